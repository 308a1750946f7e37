package refserver

import (
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// The card rules: what card data goes through however it is given (a card
// stored, a token, the inline card of a charge or a subscription, a card
// typed on a page or given to a simulation control), before anything is
// stored; and the points balance of a card with a points programme, however
// it is asked for (a stored card, a token).

// checkCardData applies the card rules to data whose members are in f
// (prefix names them in errors: "card." for a charge's inline card) and
// returns the card to store, with an id of kind idKind (fixedID when a seed
// fixes it; none for "") drawn once the data passed. In order:
//
//   - holder_name, card_number, expiration_month, expiration_year missing:
//     1001; card_number not 16 or 19 digits (15 for American Express): 1001;
//   - the Luhn check fails: 2004; a brand the gateway does not take: 1003;
//   - expiration not two digits: 1001; month not 01-12: 1003; in the
//     past: 2005;
//   - cvv2 missing: 2006; not 3 digits (4 for American Express): 2009;
//   - holder_name over 80 characters: 1003; address incomplete: 1001/1003;
//   - a sandbox test card on a production server: 2007.
func (s *Server) checkCardData(m *merchant, f reqbody.Fields, prefix string, d openpay.CardDetails, idKind idgen.Kind, fixedID string) (card, *Error) {
	var v reqbody.Checker
	// A member d holds non-empty is in f and not null: f is read only for
	// an empty one. A field's name is put together only for its error.
	if d.HolderName == "" || d.CardNumber == "" || d.ExpirationMonth == "" || d.ExpirationYear == "" {
		for _, n := range []string{"holder_name", "card_number", "expiration_month", "expiration_year"} {
			if !f.Has(n) {
				v.Failf(openpay.ErrBadRequest, "The field '%s%s' is required", prefix, n)
			}
		}
	}
	if strings.TrimSpace(d.HolderName) == "" {
		v.NonEmpty(prefix+"holder_name", d.HolderName)
	}
	if v.Err != nil {
		return card{}, v.Err
	}
	prof, verdict := cardnum.Check(d.CardNumber)
	if e := numberError(prefix, verdict); e != nil {
		return card{}, e
	}
	month, year, e := fieldrules.Expiry(prefix, d.ExpirationMonth, d.ExpirationYear)
	if e != nil {
		return card{}, e
	}
	exp := cardnum.ParseExpiry(month, year)
	if expired, _ := exp.Passed(s.nowOf(m)); expired {
		return card{}, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
	}
	if d.CVV2 == "" { // the member missing or null
		return card{}, errorf(openpay.ErrCVVMissing, "The CVV2 security code is required")
	}
	if !cardnum.CVVValid(d.CVV2, prof.Brand) {
		return card{}, errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
	}
	if len(d.HolderName) > 80 {
		v.MaxLen(prefix+"holder_name", d.HolderName, 80)
	}
	v.Address(prefix, f, d.Address)
	if v.Err != nil {
		return card{}, v.Err
	}
	if s.opts.Production && cardnum.IsTestCard(d.CardNumber) {
		return card{}, errorf(openpay.ErrTestCardInProduction, "The card number is a sandbox test card and cannot be used in production")
	}
	k := card{address: d.Address, prof: prof, cvvPending: true, exp: exp}
	var buf [128]byte // the id, the masked number and the holder's name, in one allocation
	k.id, k.masked, k.holder = cardnum.Keep(s.ids.AppendIDOr(buf[:0], fixedID, idKind), d.CardNumber, d.HolderName)
	return k, nil
}

// numberError is the error of a card number's verdict (cardnum.Check),
// nil for a valid number; prefix names the field as in checkCardData.
func numberError(prefix string, v cardnum.Verdict) *Error {
	switch v {
	case cardnum.BadFormat:
		return errorf(openpay.ErrBadRequest, "The field '%scard_number' must have 16 or 19 digits (15 for American Express)", prefix)
	case cardnum.BadLuhn:
		return errorf(openpay.ErrCardNumberInvalid, "The card number verification digit is invalid")
	case cardnum.NoBrand:
		return errorf(openpay.ErrInvalidParameter, "The field '%scard_number' is not a card of a brand the gateway accepts (visa, mastercard, american express, carnet)", prefix)
	}
	return nil
}

// refusedWhenSaved is the decline of a sandbox test card that the gateway
// will not store (cardnum.Outcome.SaveRefusal: the expired, stolen and lost
// cards), nil for any other card. Whatever stores a card asks it first.
func refusedWhenSaved(k *card) *Error {
	if code := openpay.Code(k.prof.Outcome.SaveRefusal()); code != 0 {
		return errorf(code, "%s", declineMessage(code))
	}
	return nil
}

// checkTypedCard applies the card rules of card creation (checkCardData)
// to card data typed on a page or given to a simulation control, where
// every member is present.
func (s *Server) checkTypedCard(m *merchant, d openpay.CardDetails) (card, *Error) {
	f, e := reqbody.Parse(typedCardMembers, false)
	if e != nil {
		return card{}, e
	}
	return s.checkCardData(m, f, "", d, "", "")
}

// typedCardMembers are the members card data typed on a page has: all of
// them.
var typedCardMembers = []byte(`{"holder_name":"","card_number":"","expiration_month":"","expiration_year":"","cvv2":""}`)

// Points of the test card with a points programme: the figures of the
// gateway's example (300 points worth 22.50 pesos). They do not go down
// when points are used.
const (
	pointsType      = "santander"
	pointsRemaining = "300"
	pointsValueMXN  = "22.50"
)

// pointsOf answers the points balance of a card, or 2008 when the card has
// no points programme.
func pointsOf(k *card) ([]openpay.PointsBalance, *Error) {
	if !k.prof.Points {
		return nil, errorf(openpay.ErrCardNotValidForPoints, "The card is not valid for points")
	}
	return []openpay.PointsBalance{{PointsType: pointsType,
		RemainingPoints: openpay.MustDecimal(pointsRemaining), RemainingMXN: openpay.MustAmount(pointsValueMXN)}}, nil
}
