package cardnum

// A card's class is what a charge to it does in the sandbox, named so that a
// record of a flow can say which kind of card was used without keeping its
// number, and a replay can pick an equivalent test card ([ClassCard]).
const (
	ClassApproved = "approved" // the charge completes
	ClassThreeDS  = "3ds"      // the charge waits for 3-D Secure
)

// declineClasses names the class of each decline a test card produces.
var declineClasses = map[int]string{
	CodeCardDeclined:              "declined",
	CodeCardExpired:               "expired",
	CodeInsufficientFunds:         "insufficient_funds",
	CodeCardStolen:                "stolen",
	CodeFraudRisk:                 "fraud",
	CodeOperationNotAllowed:       "not_allowed",
	CodeCardNotOnline:             "not_online",
	CodeCardLost:                  "lost",
	CodeCardRestricted:            "restricted",
	CodeCardRetained:              "retained",
	CodeBankAuthorizationRequired: "bank_authorization",
}

// Class returns the class of a card number (digits only): [ClassApproved],
// [ClassThreeDS], or the name of the decline its charges meet ("declined",
// "stolen", "insufficient_funds", ...). Any number that is not a test card
// is approved, as in the sandbox.
func Class(number string) string {
	return outcomeClass(ChargeOutcome(number, ""))
}

func outcomeClass(o Outcome) string {
	switch {
	case o.Requires3DS:
		return ClassThreeDS
	case o.Code != 0:
		if c, ok := declineClasses[o.Code]; ok {
			return c
		}
		return "declined"
	}
	return ClassApproved
}

// ClassCard returns a test card of the given class and brand to stand in for
// a card known only by its class, brand and masked number: the test card
// with that masked number when there is one of that class, else the first of
// the table with that class and brand, else the first with that class. ok is
// false when no test card has the class.
func ClassCard(class, brand, masked string) (TestCard, bool) {
	var byBrand, byClass *TestCard
	for i := range testCards {
		c := &testCards[i]
		if outcomeClass(c.Outcome) != class {
			continue
		}
		if Mask(c.Number) == masked {
			return *c, true
		}
		if byBrand == nil && c.Brand == brand {
			byBrand = c
		}
		if byClass == nil {
			byClass = c
		}
	}
	switch {
	case byBrand != nil:
		return *byBrand, true
	case byClass != nil:
		return *byClass, true
	}
	return TestCard{}, false
}
