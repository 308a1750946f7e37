package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
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
	k := c.cards().find(cu, id)
	if k == nil {
		return nil, errNotFound("card", id)
	}
	return k, nil
}

// cardSet is where cards are stored: a merchant's (its merchant-level
// cards and its customers') or a group's (its customers'). A deleted card
// stays, marked, for the transactions that used it.
type cardSet struct {
	byID map[string]*card
	list *[]*card // creation order
	own  owner    // whose cards they are, for mark
}

// storedCards returns the merchant's cards. The caller holds m.mu.
func (m *merchant) storedCards() cardSet {
	return cardSet{byID: m.cards, list: &m.cardList, own: owner{m: m}}
}

// mark marks the card with the given id changed (see persist.go). The
// caller holds the lock of the set's owner.
func (cs cardSet) mark(id string) {
	if cs.own.m != nil {
		cs.own.m.mark(recCard, id)
	} else {
		cs.own.g.mark(recGroupCard, id)
	}
}

// find returns the live card with the id stored at the scope of cu
// (merchant level when cu is nil), or nil.
func (cs cardSet) find(cu *customer, id string) *card {
	k := cs.byID[id]
	if k == nil || k.deleted || k.customerID != ownerID(cu) {
		return nil
	}
	return k
}

// add stores a new card and returns the stored record.
func (cs cardSet) add(k card) *card {
	stored := &k
	cs.byID[stored.id] = stored
	*cs.list = append(*cs.list, stored)
	cs.mark(stored.id)
	return stored
}

// ownerID is the customer id the cards and bank accounts of cu carry ("" at
// merchant level).
func ownerID(cu *customer) string {
	if cu == nil {
		return ""
	}
	return cu.id
}

// unusedToken returns the token the request names, usable: the merchant's
// on merchant paths; on group paths a token of any merchant of the group
// (a group has no tokens of its own, and its key acts for each of its
// merchants), whose merchant stays locked until release is called. The
// caller holds the locks of c.lock.
func (c *call) unusedToken(id string) (tk *token, release func(), _ *Error) {
	if c.m != nil {
		tk, e := c.m.unusedToken(id)
		return tk, func() {}, e
	}
	return c.s.groupToken(c.g, id)
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
		var req openpay.CardRequest
		if e := f.Into(&req); e != nil {
			return nil, e
		}
		var v reqbody.Checker
		v.MaxLen("device_session_id", req.DeviceSessionID, 255)
		if v.Err != nil {
			return nil, v.Err
		}
		k, e = s.checkCardData(f, "", cardData{holder: req.HolderName, number: req.CardNumber, cvv: req.CVV2,
			month: req.ExpirationMonth, year: req.ExpirationYear, address: req.Address})
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
		// The token is consumed only when the card is stored (this runs
		// before release: the token's merchant is still locked).
		defer func() {
			if created != nil {
				tk.used = true
				tk.card.pendingCVV = ""
			}
		}()
		// The card is checked again against today's date: a token made
		// earlier may hold a card that has expired since.
		if expired, _ := cardnum.ExpiryPassed(k.expMonth, k.expYear, s.Now()); expired {
			return nil, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
		}
	}
	cards := c.cards()
	if cu != nil {
		for _, other := range *cards.list {
			if !other.deleted && other.customerID == cu.id && other.number == k.number {
				return nil, errorf(openpay.ErrCardExists, "The card is already registered on this customer")
			}
		}
		k.customerID = cu.id
	}
	k.id = c.newID(idgen.KindCard)
	k.created = s.nowFor(c.m)
	return cards.add(k).wire(), nil
}

// unusedToken returns a token that can still be used: 1005 when it does not
// exist, 1003 when it was already used. The caller holds m.mu, and marks
// the token used once the operation that consumes it succeeds.
func (m *merchant) unusedToken(id string) (*token, *Error) {
	tk := m.tokens[id]
	if tk == nil {
		return nil, errNotFound("token", id)
	}
	if tk.used {
		return nil, errorf(openpay.ErrInvalidParameter, "The token with id '%s' has already been used", truncateForMessage(id))
	}
	m.mark(recToken, id) // its caller is about to use it
	return tk, nil
}

// getCard answers a stored card.
func (s *Server) getCard(c *call) (any, *Error) {
	defer c.lock()()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	return k.wire(), nil
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
	month, year := k.expMonth, k.expYear
	if f.Has("expiration_month") || f.Has("expiration_year") {
		if f.Has("expiration_month") {
			month = req.ExpirationMonth
		}
		if f.Has("expiration_year") {
			year = req.ExpirationYear
		}
		if month, year, e = normalizeExpiry("", month, year); e != nil {
			return nil, e
		}
		if expired, _ := cardnum.ExpiryPassed(month, year, s.Now()); expired {
			return nil, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
		}
	}
	if f.Has("cvv2") && !cardnum.CVVValid(req.CVV2, k.brand) {
		return nil, errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
	}
	if f.Has("holder_name") {
		k.holder = req.HolderName
	}
	k.expMonth, k.expYear = month, year
	c.cards().mark(k.id)
	if f.Has("cvv2") {
		k.pendingCVV = req.CVV2
	}
	return openpay.CardUpdateResponse{}, nil
}

// deleteCard deletes a stored card: nothing can use it afterwards; the
// transactions that used it keep their copy of it.
func (s *Server) deleteCard(c *call) (any, *Error) {
	defer c.lock()()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	k.deleted = true
	k.pendingCVV = ""
	c.cards().mark(k.id)
	return nil, nil
}

// listCards lists the cards of the scope, newest first.
func (s *Server) listCards(c *call) (any, *Error) {
	p, e := parseListParams(c.r.URL.Query(), zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	owner := ownerID(cu)
	return page(p, *c.cards().list, func(k *card) (time.Time, bool) {
		return k.created, !k.deleted && k.customerID == owner
	}, (*card).wire), nil
}

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
	if !k.points {
		return nil, errorf(openpay.ErrCardNotValidForPoints, "The card is not valid for points")
	}
	return []openpay.PointsBalance{{PointsType: pointsType,
		RemainingPoints: openpay.MustDecimal(pointsRemaining), RemainingMXN: openpay.MustAmount(pointsValueMXN)}}, nil
}

// getCardPoints answers a stored card's points balance.
func (s *Server) getCardPoints(c *call) (any, *Error) {
	defer c.lock()()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	return pointsOf(k)
}
