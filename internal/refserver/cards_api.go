package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/cardrules"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Stored cards, at merchant scope (/v1/{merchant_id}/cards: cards with no
// customer) and at customer scope (/customers/{customer_id}/cards), and,
// through the same handlers, the cards of a group's customers (registered
// in groups_api.go). A card is visible only at its own scope: a customer's
// card is not found at merchant scope and the other way round.

// registerCards registers stored cards at merchant and customer scope.
func (s *Server) registerCards(r *routeTable) {
	r.add("listCards", http.MethodGet, "/v1/{merchant_id}/cards", http.StatusOK, s.listCards)
	r.add("createCard", http.MethodPost, "/v1/{merchant_id}/cards", http.StatusOK, s.createCard).allowPublicKey()
	r.add("getCard", http.MethodGet, "/v1/{merchant_id}/cards/{card_id}", http.StatusOK, s.getCard)
	r.add("updateCard", http.MethodPut, "/v1/{merchant_id}/cards/{card_id}", http.StatusOK, s.updateCard)
	r.add("deleteCard", http.MethodDelete, "/v1/{merchant_id}/cards/{card_id}", http.StatusNoContent, s.deleteCard)
	r.add("getCardPoints", http.MethodGet, "/v1/{merchant_id}/cards/{card_id}/points", http.StatusOK, s.getCardPoints)
	r.add("listCustomerCards", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/cards", http.StatusOK, s.listCards)
	r.add("createCustomerCard", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/cards", http.StatusOK, s.createCard).allowPublicKey()
	r.add("getCustomerCard", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, s.getCard)
	r.add("updateCustomerCard", http.MethodPut, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, s.updateCard)
	r.add("deleteCustomerCard", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}", http.StatusNoContent, s.deleteCard)
	r.add("getCustomerCardPoints", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}/points", http.StatusOK, s.getCardPoints)
}

// scopeCard returns the card the path names, at the path's scope, or 1005.
// The caller holds the locks of c.lock.
func (c *call) scopeCard() (*card, *Error) {
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	id := c.param("card_id")
	if k := c.cards().find(cu, id); k != nil {
		return k, nil
	}
	return nil, errNotFound("card", id)
}

// createCard stores a card from its data (CardRequest) or from a token
// (TokenCardRequest, which consumes the token). A number already stored on
// the same customer answers 2002.
func (s *Server) createCard(c *call) (created any, _ *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var k card
	var tokenID string
	if f.Has("token_id") {
		var req openpay.TokenCardRequest
		if e := f.Into(&req); e != nil {
			return nil, e
		}
		var v reqbody.Checker
		if s.opts.Strict {
			v.Required(f, "device_session_id")
		}
		v.Identifier("token_id", req.TokenID)
		v.MaxLen("device_session_id", req.DeviceSessionID, 255)
		if v.Err != nil {
			return nil, v.Err
		}
		tokenID = req.TokenID
	} else {
		// The card's members and device_session_id in one value (decoding
		// takes pointers: each of two would be allocated), its strings views
		// of the body (Borrow): checkCardData copies what stays, never the number.
		var req struct {
			card      openpay.CardDetails
			sessionID string
		}
		if e := f.Borrow().IntoCardDetails(&req.card); e != nil {
			return nil, e
		}
		if e := f.MemberString("device_session_id", &req.sessionID); e != nil {
			return nil, e
		}
		var v reqbody.Checker
		v.MaxLen("device_session_id", req.sessionID, 255)
		if v.Err != nil {
			return nil, v.Err
		}
		k, e = s.checkCardData(c.m, f, "", req.card, idgen.KindCard, c.fixedID())
		if e != nil {
			return nil, e
		}
	}

	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	if tokenID != "" {
		tk, release, e := c.unusedToken(tokenID)
		if e != nil {
			return nil, e
		}
		defer release()
		k = tk.card
		k.id = c.newID(idgen.KindCard)
		// The token is consumed only when the card is stored (this runs
		// before release: the token's merchant is still locked).
		defer func() {
			if created != nil {
				tk.used = true
				tk.card.cvvPending = false
			}
		}()
		// The card is checked again against today's date: a token made
		// earlier may hold a card that has expired since.
		if expired, _ := k.exp.Passed(s.nowOf(c.m)); expired {
			return nil, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
		}
	}
	if e := refusedWhenSaved(&k); e != nil {
		return nil, e
	}
	cards := c.cards()
	if cu != nil {
		if cards.holds(cu.id(), k.masked) {
			return nil, errorf(openpay.ErrCardExists, "The card is already registered on this customer")
		}
		k.customerID = cu.id()
	}
	k.created = s.nowFor(c.m)
	return c.answerCard(cards.add(k)), nil
}

// getCard answers a stored card.
func (s *Server) getCard(c *call) (any, *Error) {
	defer c.lock()()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	return c.answerCard(k), nil
}

// updateCard changes the holder name, the expiration or the security code
// (kept for the next charge) of a stored card. Only the fields sent change.
// The answer is an empty object. A group customer's card names the merchant
// of the group that uses it: merchant_id is required there (section 4.4)
// and must be one of the group's merchants (1003).
func (s *Server) updateCard(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.CardUpdateRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	if f.Has("holder_name") {
		v.NonEmpty("holder_name", req.HolderName)
		v.MaxLen("holder_name", req.HolderName, 80)
	}
	v.MaxLen("merchant_id", req.MerchantID, 45)
	if c.g != nil {
		v.Required(f, "merchant_id")
		if v.Err == nil && !c.g.merchants[req.MerchantID] {
			v.Failf(openpay.ErrInvalidParameter, "The field 'merchant_id' must name a merchant of the group")
		}
	}
	if v.Err != nil {
		return nil, v.Err
	}

	defer c.lock()()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	month, year := k.exp.Month(), k.exp.Year()
	if f.Has("expiration_month") || f.Has("expiration_year") {
		if f.Has("expiration_month") {
			month = req.ExpirationMonth
		}
		if f.Has("expiration_year") {
			year = req.ExpirationYear
		}
		if month, year, e = fieldrules.Expiry("", month, year); e != nil {
			return nil, e
		}
		if expired, _ := cardnum.ExpiryPassed(month, year, s.nowOf(c.m)); expired {
			return nil, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
		}
	}
	if f.Has("cvv2") && !cardnum.CVVValid(req.CVV2, k.prof.Brand) {
		return nil, errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
	}
	if f.Has("holder_name") {
		k.holder = req.HolderName
	}
	k.exp, k.charged = cardnum.ParseExpiry(month, year), nil // charges after this one record the card as it is now
	c.cards().mark(k.id)
	k.cvvPending = k.cvvPending || f.Has("cvv2")
	return map[string]any{}, nil // the gateway answers an empty object
}

// deleteCard deletes a stored card: nothing can use it afterwards; the
// transactions that used it keep their copy of it.
func (s *Server) deleteCard(c *call) (any, *Error) {
	defer c.lock()()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	k.deleted, k.cvvPending = true, false
	c.cards().mark(k.id)
	return nil, nil
}

// listCards lists the cards of the scope, newest first.
func (s *Server) listCards(c *call) (any, *Error) {
	p, e := listquery.Parse(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	owner, list := ownerID(cu), *c.cards().list
	if cu != nil {
		list = c.cards().customerCards(owner) // not the merchant's every card
	}
	return listquery.Page(p, list, func(k *card) (time.Time, bool) {
		return k.created, !k.deleted && k.customerID == owner
	}, (*card).wire), nil
}

// getCardPoints answers a stored card's points balance.
func (s *Server) getCardPoints(c *call) (any, *Error) {
	defer c.lock()()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	return cardrules.Points(k.prof)
}
