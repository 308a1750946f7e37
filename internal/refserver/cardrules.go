package refserver

import (
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/cardrules"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// The card rules: what card data goes through however it is given (a card
// stored, a token, the inline card of a charge or a subscription, a card
// typed on a page or given to a simulation control), before anything is
// stored. A card's points balance is cardrules.Points.

// checkCardData applies the card rules (cardrules.Check, where their
// order is) to data whose members are in f (prefix names them in errors:
// "card." for a charge's inline card) and returns the card to store, with
// an id of kind idKind (fixedID when a seed fixes it; none for "") drawn
// once the data passed.
func (s *Server) checkCardData(m *merchant, f reqbody.Fields, prefix string, d openpay.CardDetails, idKind idgen.Kind, fixedID string) (card, *Error) {
	prof, exp, e := cardrules.Check(f, prefix, d, s.nowOf(m), s.opts.Production)
	if e != nil {
		return card{}, e
	}
	k := card{address: d.Address, prof: prof, cvvPending: true, exp: exp}
	var buf [128]byte // the id, the masked number and the holder's name, in one allocation
	k.id, k.masked, k.holder = cardnum.Keep(s.ids.AppendIDOr(buf[:0], fixedID, idKind), d.CardNumber, d.HolderName)
	return k, nil
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
