package cardnum

import "strings"

// Gateway error codes that a sandbox test card (or the fraud e-mail) can
// produce on a charge. Their HTTP statuses are in section 7 of the
// specification: 402 for the declines, 412 for 3006, 3008 and 3012.
const (
	CodeCardDeclined              = 3001
	CodeCardExpired               = 3002
	CodeInsufficientFunds         = 3003
	CodeCardStolen                = 3004
	CodeFraudRisk                 = 3005
	CodeOperationNotAllowed       = 3006
	CodeCardNotOnline             = 3008
	CodeCardLost                  = 3009
	CodeCardRestricted            = 3010
	CodeCardRetained              = 3011
	CodeBankAuthorizationRequired = 3012
)

// FraudEmail is the customer e-mail address that makes the sandbox answer a
// card charge with 3005 (fraud risk), whatever the card. The comparison is
// case-insensitive: see [IsFraudEmail].
const FraudEmail = "ERROR.FRAUD@OPENPAY.MX"

// The anti-fraud rules a 3005 (fraud risk) answer names in its fraud_rules,
// as the gateway's error objects name the rules a request broke. The
// gateway does not publish its rules' names; these are the server's.
const (
	// FraudRuleEmail is broken by a charge whose customer e-mail is
	// [FraudEmail].
	FraudRuleEmail = "Customer e-mail on the anti-fraud block list"
	// FraudRuleCard is broken by a charge to the test card that is
	// identified as fraudulent (4000000000030058).
	FraudRuleCard = "Card number on the anti-fraud block list"
)

// Outcome is what the sandbox does with a charge to a card.
type Outcome struct {
	// Code is the gateway error code the charge fails with, or 0 when it
	// succeeds (or needs 3-D Secure, see Requires3DS).
	Code int
	// FraudRule is the anti-fraud rule a fraud-risk decline (3005) broke,
	// answered in the error's fraud_rules; empty for other outcomes.
	FraudRule string
	// Requires3DS means the card cannot be charged directly: the charge goes
	// to charge_pending with a redirect url for 3-D Secure authentication.
	Requires3DS bool
	// RefusedWhenSaved means the card cannot be stored either (a card, a
	// card from a token, a subscription's card data): storing it fails
	// with Code, as a charge does. The outcome is the card's own state
	// (expired, stolen, lost), not a refusal of one payment. A stored
	// card keeps its outcome, not its number, so the refusal travels with
	// the outcome (a token's card is saved later).
	RefusedWhenSaved bool
}

// Success reports whether the charge completes at once.
func (o Outcome) Success() bool { return o.Code == 0 && !o.Requires3DS }

// TestCard is one card of the sandbox test-card table.
type TestCard struct {
	Number      string
	Brand       string // a brand constant
	Type        string // "debit" or "credit"
	BankName    string // as clabe.Bank(BankCode) names it
	BankCode    string
	PointsCard  bool // the card has a reward-points programme
	Outcome     Outcome
	Description string
	// Documented is true for the cards the gateway's sandbox documents; false
	// for the numbers this project chose where the gateway publishes none.
	Documented bool
}

// testCards is the sandbox table. The documented numbers and outcomes come
// from the gateway; the card type and issuing bank of each, which the
// gateway does not publish, are taken from its response examples where one
// shows the card (4111... Banamex debit, 4242... Bancomer credit, 5555...4444
// Masari debit) and chosen otherwise.
//
// Numbers chosen by this project (Documented false) follow one pattern so
// they are easy to remember: 4000 0000 0003 0CC plus a Luhn check digit, where
// 30CC is the error code (4000000000030017 declines with 3001). The points
// card is 5105105105105100, a documented success card, here given a Santander
// points programme so the points endpoints have a card to answer for (any
// other card answers them with 2008). 5062100000000002 is a chosen Carnet
// success card, so that brand can be exercised too.
var testCards = []TestCard{
	{Number: "4111111111111111", Brand: Visa, Type: "debit", BankName: "Banamex", BankCode: "002", Documented: true,
		Description: "Visa, charge succeeds"},
	{Number: "4242424242424242", Brand: Visa, Type: "credit", BankName: "BANCOMER", BankCode: "012", Documented: true,
		Description: "Visa, charge succeeds"},
	{Number: "5555555555554444", Brand: Mastercard, Type: "debit", BankName: "MASARI", BankCode: "602", Documented: true,
		Description: "Mastercard, charge succeeds"},
	{Number: "5105105105105100", Brand: Mastercard, Type: "credit", BankName: "SANTANDER", BankCode: "014", Documented: true,
		PointsCard: true, Description: "Mastercard, charge succeeds; has a points programme (points_type santander)"},
	{Number: "345678000000007", Brand: AmericanExpress, Type: "credit", BankName: "AMERICAN EXPRESS", BankCode: "103", Documented: true,
		Description: "American Express, charge succeeds"},
	{Number: "343434343434343", Brand: AmericanExpress, Type: "credit", BankName: "AMERICAN EXPRESS", BankCode: "103", Documented: true,
		Description: "American Express, charge succeeds"},
	{Number: "5062100000000002", Brand: Carnet, Type: "debit", BankName: "AZTECA", BankCode: "127",
		Description: "Carnet, charge succeeds"},
	{Number: "4000000000000069", Brand: Visa, Type: "credit", BankName: "BANORTE", BankCode: "072", Documented: true,
		Outcome: Outcome{Code: CodeCardExpired, RefusedWhenSaved: true}, Description: "3002: the card has expired"},
	{Number: "4444444444444448", Brand: Visa, Type: "debit", BankName: "HSBC", BankCode: "021", Documented: true,
		Outcome: Outcome{Code: CodeInsufficientFunds}, Description: "3003: the card has insufficient funds"},
	{Number: "4000000000000119", Brand: Visa, Type: "credit", BankName: "SCOTIABANK", BankCode: "044", Documented: true,
		Outcome: Outcome{Code: CodeCardStolen, RefusedWhenSaved: true}, Description: "3004: the card was reported stolen"},
	{Number: "4222222222222220", Brand: Visa, Type: "debit", BankName: "BANCOPPEL", BankCode: "137", Documented: true,
		Outcome: Outcome{Code: CodeCardNotOnline}, Description: "3008: the card is not supported in online transactions"},
	{Number: "5454545454545454", Brand: Mastercard, Type: "credit", BankName: "Banamex", BankCode: "002", Documented: true,
		Outcome: Outcome{Requires3DS: true}, Description: "requires 3-D Secure: the charge goes to charge_pending with a redirect url"},
	{Number: "4000000000030017", Brand: Visa, Type: "credit", BankName: "Banamex", BankCode: "002",
		Outcome: Outcome{Code: CodeCardDeclined}, Description: "3001: the card was declined"},
	{Number: "4000000000030058", Brand: Visa, Type: "credit", BankName: "BANCOMER", BankCode: "012",
		Outcome: Outcome{Code: CodeFraudRisk, FraudRule: FraudRuleCard}, Description: "3005: the card was identified as fraudulent"},
	{Number: "4000000000030066", Brand: Visa, Type: "debit", BankName: "SANTANDER", BankCode: "014",
		Outcome: Outcome{Code: CodeOperationNotAllowed}, Description: "3006: the operation is not allowed for this customer or transaction"},
	{Number: "4000000000030090", Brand: Visa, Type: "credit", BankName: "BANORTE", BankCode: "072",
		Outcome: Outcome{Code: CodeCardLost, RefusedWhenSaved: true}, Description: "3009: the card was reported lost"},
	{Number: "4000000000030108", Brand: Visa, Type: "debit", BankName: "HSBC", BankCode: "021",
		Outcome: Outcome{Code: CodeCardRestricted}, Description: "3010: the card is restricted by the bank"},
	{Number: "4000000000030116", Brand: Visa, Type: "credit", BankName: "INBURSA", BankCode: "036",
		Outcome: Outcome{Code: CodeCardRetained}, Description: "3011: the bank asked to hold (retain) the card"},
	{Number: "4000000000030124", Brand: Visa, Type: "debit", BankName: "AZTECA", BankCode: "127",
		Outcome: Outcome{Code: CodeBankAuthorizationRequired}, Description: "3012: the bank requires authorization for this payment"},
}

var testCardIndex = func() map[string]int {
	m := make(map[string]int, len(testCards))
	for i, c := range testCards {
		m[c.Number] = i
	}
	return m
}()

// TestCards returns the sandbox test-card table, a fresh copy on each call.
func TestCards() []TestCard {
	out := make([]TestCard, len(testCards))
	copy(out, testCards)
	return out
}

// LookupTestCard returns the test card with the given number (digits only).
func LookupTestCard(number string) (TestCard, bool) {
	i, ok := testCardIndex[number]
	if !ok {
		return TestCard{}, false
	}
	return testCards[i], true
}

// IsTestCard reports whether number is a sandbox test card. In production
// mode the gateway refuses such numbers with 2007.
func IsTestCard(number string) bool {
	_, ok := testCardIndex[number]
	return ok
}

// IsFraudEmail reports whether a customer e-mail is the sandbox's fraud
// trigger, [FraudEmail], ignoring case and surrounding spaces.
func IsFraudEmail(email string) bool {
	return strings.EqualFold(strings.TrimSpace(email), FraudEmail)
}

// SaveRefusal is the code the sandbox refuses to store a card of this outcome with, 0
// when it stores it. The vendor's Ruby specs (cards_spec.rb,
// exceptions_spec.rb, colombia/cards_col_spec.rb) see 4000000000000069
// refused with 3002 "The card has expired" when saved, at merchant and
// customer scope, and 4000000000000119 (stolen) refused; the lost card of
// this table (3009) is refused like the stolen one. The other declines
// are about a payment (funds, online use, fraud, the bank's say), so those
// cards are stored and decline when charged: the Ruby factories keep
// 4444444444444448 as a card for deposits. Tokens hold any card: the
// decline shows where the token is used.
func (o Outcome) SaveRefusal() int {
	if o.RefusedWhenSaved {
		return o.Code
	}
	return 0
}

// ChargeOutcome is the sandbox's answer to a card charge, given the card
// number and the e-mail of the customer on the charge ("" when none). The
// fraud e-mail wins over the card (anti-fraud screening runs before the
// issuer is asked, so even a 3-D Secure card fails with 3005); then the
// test-card table decides; any other card succeeds.
func ChargeOutcome(number, customerEmail string) Outcome {
	return NumberOutcome(number).ForPayer(customerEmail)
}

// NumberOutcome is what a charge to the card number does when the payer's
// e-mail does not decide: the test-card table's outcome, success for any
// other card. A server that keeps cards without their numbers keeps this.
func NumberOutcome(number string) Outcome {
	if c, ok := LookupTestCard(number); ok {
		return c.Outcome
	}
	return Outcome{}
}

// ForPayer is the outcome of a charge to a card whose number gives o, by
// a customer with the e-mail customerEmail ("" when none): the fraud
// e-mail wins over the card.
func (o Outcome) ForPayer(customerEmail string) Outcome {
	if IsFraudEmail(customerEmail) {
		return Outcome{Code: CodeFraudRisk, FraudRule: FraudRuleEmail}
	}
	return o
}
