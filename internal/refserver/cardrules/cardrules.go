// Package cardrules holds the card rules of the gateway: what card data
// goes through however it is given (a card stored, a token, the inline
// card of a charge or a subscription, a card typed on a page or given to a
// simulation control), and the errors of a card number (a payout's card
// too).
//
// Contract: [Check] is pure: it reads the members already decoded (package
// reqbody), the time it is given and whether the server is a production
// one, and answers the gateway's error object, the first rule broken
// winning, in the order its doc gives. The package does not own what the
// data leads to (a stored card, its id, a charge), nor the clock: the
// server does.
package cardrules

import (
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Check applies the card rules to data d decoded from the members f
// (prefix names them in errors: "card." for a charge's inline card), at
// the instant now, and returns what the number tells of the card (its
// profile) and its expiry. In order:
//
//   - holder_name, card_number, expiration_month, expiration_year missing:
//     1001; holder_name empty: 1001; card_number not 16 or 19 digits (15
//     for American Express): 1001;
//   - the Luhn check fails: 2004; a brand the gateway does not take: 1003;
//   - expiration not two digits: 1001; month not 01-12: 1003; in the
//     past: 2005;
//   - cvv2 missing: 2006; not 3 digits (4 for American Express): 2009;
//   - holder_name over 80 characters: 1003; address incomplete: 1001/1003;
//   - a sandbox test card on a production server: 2007.
func Check(f reqbody.Fields, prefix string, d openpay.CardDetails, now time.Time, production bool) (*cardnum.Profile, cardnum.Expiry, *apierr.Error) {
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
		return nil, cardnum.Expiry{}, v.Err
	}
	prof, verdict := cardnum.Check(d.CardNumber)
	if e := NumberError(prefix, verdict); e != nil {
		return nil, cardnum.Expiry{}, e
	}
	month, year, e := fieldrules.Expiry(prefix, d.ExpirationMonth, d.ExpirationYear)
	if e != nil {
		return nil, cardnum.Expiry{}, e
	}
	exp := cardnum.ParseExpiry(month, year)
	if expired, _ := exp.Passed(now); expired {
		return nil, cardnum.Expiry{}, apierr.Errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
	}
	if d.CVV2 == "" { // the member missing or null
		return nil, cardnum.Expiry{}, apierr.Errorf(openpay.ErrCVVMissing, "The CVV2 security code is required")
	}
	if !cardnum.CVVValid(d.CVV2, prof.Brand) {
		return nil, cardnum.Expiry{}, apierr.Errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
	}
	if len(d.HolderName) > 80 {
		v.MaxLen(prefix+"holder_name", d.HolderName, 80)
	}
	v.Address(prefix, f, d.Address)
	if v.Err != nil {
		return nil, cardnum.Expiry{}, v.Err
	}
	if production && cardnum.IsTestCard(d.CardNumber) {
		return nil, cardnum.Expiry{}, apierr.Errorf(openpay.ErrTestCardInProduction, "The card number is a sandbox test card and cannot be used in production")
	}
	return prof, exp, nil
}

// NumberError is the error of a card number's verdict (cardnum.Check),
// nil for a valid number; prefix names the field as in Check.
func NumberError(prefix string, v cardnum.Verdict) *apierr.Error {
	switch v {
	case cardnum.BadFormat:
		return apierr.Errorf(openpay.ErrBadRequest, "The field '%scard_number' must have 16 or 19 digits (15 for American Express)", prefix)
	case cardnum.BadLuhn:
		return apierr.Errorf(openpay.ErrCardNumberInvalid, "The card number verification digit is invalid")
	case cardnum.NoBrand:
		return apierr.Errorf(openpay.ErrInvalidParameter, "The field '%scard_number' is not a card of a brand the gateway accepts (visa, mastercard, american express, carnet)", prefix)
	}
	return nil
}

// Points of the test card with a points programme: the figures of the
// gateway's example (300 points worth 22.50 pesos). They do not go down
// when points are used.
const (
	pointsType = "santander"
	// PointsRemaining and PointsValueMXN are the card's points and what
	// they are worth, as a charge that uses them records them.
	PointsRemaining = "300"
	PointsValueMXN  = "22.50"
)

// Points answers the points balance of a card whose number told prof,
// however it is asked for (a stored card, a token), or 2008 when the card
// has no points programme.
func Points(prof *cardnum.Profile) ([]openpay.PointsBalance, *apierr.Error) {
	if !prof.Points {
		return nil, apierr.Errorf(openpay.ErrCardNotValidForPoints, "The card is not valid for points")
	}
	return []openpay.PointsBalance{{PointsType: pointsType,
		RemainingPoints: openpay.MustDecimal(PointsRemaining), RemainingMXN: openpay.MustAmount(PointsValueMXN)}}, nil
}

// KeepAddress returns a copy of a card's billing address whose strings are
// copies too (in one allocation), nil for nil: what a server keeps of a
// card sent in a request's body holds no view of that body, which holds
// the card's number and security code.
func KeepAddress(a *openpay.Address) *openpay.Address {
	if a == nil {
		return nil
	}
	kept := *a
	parts := [...]*string{&kept.City, &kept.CountryCode, &kept.Line1, &kept.Line2, &kept.Line3, &kept.PostalCode, &kept.State}
	n := 0
	for _, p := range parts {
		n += len(*p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(*p)
	}
	all := b.String()
	for _, p := range parts {
		*p, all = all[:len(*p)], all[len(*p):]
	}
	return &kept
}
