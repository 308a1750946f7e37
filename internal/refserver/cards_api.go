package refserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Stored cards, at merchant scope (/v1/{merchant_id}/cards: cards with no
// customer) and at customer scope (/customers/{customer_id}/cards). A card
// is visible only at its own scope: a customer's card is not found at
// merchant scope and the other way round.

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

// scopeCustomer returns the customer the path names (nil at merchant
// scope), or 1005. The caller holds c.m.mu.
func (c *call) scopeCustomer() (*customer, *Error) {
	id := c.param("customer_id")
	if id == "" {
		return nil, nil
	}
	cu := c.m.customers.get(id)
	if cu == nil {
		return nil, errNotFound("customer", id)
	}
	return cu, nil
}

// scopeCard returns the card the path names, at the path's scope, or 1005.
// The caller holds c.m.mu.
func (c *call) scopeCard() (*card, *Error) {
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	id := c.param("card_id")
	k := c.m.cards[id]
	if k == nil || k.deleted || (cu == nil && k.customerID != "") || (cu != nil && k.customerID != cu.id) {
		return nil, errNotFound("card", id)
	}
	return k, nil
}

// cardData is card data as a request sends it: to store a card, to create
// a token, or inline in a charge.
type cardData struct {
	holder, number, cvv, month, year string
	address                          *openpay.Address
}

// checkCardData applies the card rules to data whose members are in f
// (prefix names them in errors: "card." for a charge's inline card) and
// returns the card to store, with no id. In order:
//
//   - holder_name, card_number, expiration_month, expiration_year missing:
//     1001; card_number not 16 or 19 digits (15 for American Express): 1001;
//   - the Luhn check fails: 2004; a brand the gateway does not take: 1003;
//   - expiration not two digits: 1001; month not 01-12: 1003; in the
//     past: 2005;
//   - cvv2 missing: 2006; not 3 digits (4 for American Express): 2009;
//   - holder_name over 80 characters: 1003; address incomplete: 1001/1003;
//   - a sandbox test card on a production server: 2007.
func (s *Server) checkCardData(f fields, prefix string, d cardData) (card, *Error) {
	var v checker
	for _, n := range []string{"holder_name", "card_number", "expiration_month", "expiration_year"} {
		if !f.has(n) {
			v.failf(openpay.ErrBadRequest, "The field '%s%s' is required", prefix, n)
		}
	}
	v.nonEmpty(prefix+"holder_name", d.holder)
	if v.err != nil {
		return card{}, v.err
	}
	if !isDigits(d.number) || (len(d.number) != 15 && len(d.number) != 16 && len(d.number) != 19) ||
		(len(d.number) == 15 && !CardNumberFormatValid(d.number)) {
		return card{}, errorf(openpay.ErrBadRequest, "The field '%scard_number' must have 16 or 19 digits (15 for American Express)", prefix)
	}
	if !LuhnValid(d.number) {
		return card{}, errorf(openpay.ErrCardNumberInvalid, "The card number verification digit is invalid")
	}
	brand := CardBrand(d.number)
	if brand == "" {
		return card{}, errorf(openpay.ErrInvalidParameter, "The field '%scard_number' is not a card of a brand the gateway accepts (visa, mastercard, american express, carnet)", prefix)
	}
	month, year, e := normalizeExpiry(prefix, d.month, d.year)
	if e != nil {
		return card{}, e
	}
	if expired, _ := ExpiryPassed(month, year, s.Now()); expired {
		return card{}, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
	}
	if !f.has("cvv2") || d.cvv == "" {
		return card{}, errorf(openpay.ErrCVVMissing, "The CVV2 security code is required")
	}
	if !CVVValid(d.cvv, brand) {
		return card{}, errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
	}
	v.maxLen(prefix+"holder_name", d.holder, 80)
	v.address(prefix+"address", f, d.address)
	if v.err != nil {
		return card{}, v.err
	}
	if s.opts.Production && IsTestCard(d.number) {
		return card{}, errorf(openpay.ErrTestCardInProduction, "The card number is a sandbox test card and cannot be used in production")
	}
	k := card{
		number: d.number, holder: d.holder, expMonth: month, expYear: year, address: d.address,
		brand: brand, cardType: "credit", bankName: UnknownBankName, bankCode: UnknownBankCode,
		pendingCVV: d.cvv,
	}
	if brand == BrandCarnet {
		k.cardType = "debit"
	}
	if tc, ok := LookupTestCard(d.number); ok {
		k.cardType, k.bankName, k.bankCode, k.points = tc.Type, tc.BankName, tc.BankCode, tc.PointsCard
	}
	return k, nil
}

// normalizeExpiry checks an expiration month and year and returns them as
// two-digit strings. Month: 1 or 2 digits, 1 to 12. Year: 2 digits (4 are
// accepted and shortened).
func normalizeExpiry(prefix, month, year string) (string, string, *Error) {
	if !isDigits(month) || len(month) > 2 {
		return "", "", errorf(openpay.ErrBadRequest, "The field '%sexpiration_month' must be a two-digit month", prefix)
	}
	if !isDigits(year) || (len(year) != 2 && len(year) != 4) {
		return "", "", errorf(openpay.ErrBadRequest, "The field '%sexpiration_year' must be a two-digit year", prefix)
	}
	if len(month) == 1 {
		month = "0" + month
	}
	if month < "01" || month > "12" {
		return "", "", errorf(openpay.ErrInvalidParameter, "The field '%sexpiration_month' must be from 01 to 12", prefix)
	}
	if len(year) == 4 {
		if !strings.HasPrefix(year, "20") {
			return "", "", errorf(openpay.ErrInvalidParameter, "The field '%sexpiration_year' is out of range", prefix)
		}
		year = year[2:]
	}
	return month, year, nil
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
	if f.has("token_id") {
		var req openpay.TokenCardRequest
		if e := f.into(&req); e != nil {
			return nil, e
		}
		var v checker
		if s.opts.Strict {
			v.required(f, "device_session_id")
		}
		v.identifier("token_id", req.TokenID)
		v.maxLen("device_session_id", req.DeviceSessionID, 255)
		if v.err != nil {
			return nil, v.err
		}
		tokenID = req.TokenID
	} else {
		var req openpay.CardRequest
		if e := f.into(&req); e != nil {
			return nil, e
		}
		var v checker
		v.maxLen("device_session_id", req.DeviceSessionID, 255)
		if v.err != nil {
			return nil, v.err
		}
		k, e = s.checkCardData(f, "", cardData{holder: req.HolderName, number: req.CardNumber, cvv: req.CVV2,
			month: req.ExpirationMonth, year: req.ExpirationYear, address: req.Address})
		if e != nil {
			return nil, e
		}
	}

	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	if tokenID != "" {
		tk, e := m.unusedToken(tokenID)
		if e != nil {
			return nil, e
		}
		k = tk.card
		// The token is consumed only when the card is stored.
		defer func() {
			if created != nil {
				tk.used = true
				tk.card.pendingCVV = ""
			}
		}()
		// The card is checked again against today's date: a token made
		// earlier may hold a card that has expired since.
		if expired, _ := ExpiryPassed(k.expMonth, k.expYear, s.Now()); expired {
			return nil, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
		}
	}
	if cu != nil {
		for _, other := range m.cardList {
			if !other.deleted && other.customerID == cu.id && other.number == k.number {
				return nil, errorf(openpay.ErrCardExists, "The card is already registered on this customer")
			}
		}
		k.customerID = cu.id
	}
	k.id = s.ids.NewID(KindCard)
	k.created = s.Now()
	stored := k
	m.cards[stored.id] = &stored
	m.cardList = append(m.cardList, &stored)
	return stored.wire(), nil
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
	return tk, nil
}

// getCard answers a stored card.
func (s *Server) getCard(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	return k.wire(), nil
}

// updateCard changes the holder name, the expiration or the security code
// (kept for the next charge) of a stored card. Only the fields sent change.
// The answer is an empty object.
func (s *Server) updateCard(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.CardUpdateRequest
	if e := f.into(&req); e != nil {
		return nil, e
	}
	var v checker
	if f.has("holder_name") {
		v.nonEmpty("holder_name", req.HolderName)
		v.maxLen("holder_name", req.HolderName, 80)
	}
	v.maxLen("merchant_id", req.MerchantID, 45)
	if v.err != nil {
		return nil, v.err
	}

	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	month, year := k.expMonth, k.expYear
	if f.has("expiration_month") || f.has("expiration_year") {
		if f.has("expiration_month") {
			month = req.ExpirationMonth
		}
		if f.has("expiration_year") {
			year = req.ExpirationYear
		}
		if month, year, e = normalizeExpiry("", month, year); e != nil {
			return nil, e
		}
		if expired, _ := ExpiryPassed(month, year, s.Now()); expired {
			return nil, errorf(openpay.ErrCardExpirationPast, "The expiration date has expired")
		}
	}
	if f.has("cvv2") && !CVVValid(req.CVV2, k.brand) {
		return nil, errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
	}
	if f.has("holder_name") {
		k.holder = req.HolderName
	}
	k.expMonth, k.expYear = month, year
	if f.has("cvv2") {
		k.pendingCVV = req.CVV2
	}
	return openpay.CardUpdateResponse{}, nil
}

// deleteCard deletes a stored card: nothing can use it afterwards; the
// transactions that used it keep their copy of it.
func (s *Server) deleteCard(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	k.deleted = true
	k.pendingCVV = ""
	return nil, nil
}

// listCards lists the cards of the scope, newest first.
func (s *Server) listCards(c *call) (any, *Error) {
	p, e := parseListParams(c.r.URL.Query())
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	owner := ""
	if cu != nil {
		owner = cu.id
	}
	return page(p, c.m.cardList, func(k *card) (time.Time, bool) {
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
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	k, e := c.scopeCard()
	if e != nil {
		return nil, e
	}
	return pointsOf(k)
}
