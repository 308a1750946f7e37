package refserver

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
)

// Checkouts (payment links) at merchant and customer scope, their hosted
// page (package web, wired in pages.go) and the simulation control that
// pays one without a browser.
//
// States (the vendor's sources show only available; the rest is the
// server's choice, written in openapi.yaml's CheckoutStatus):
//
//	available  the link takes a payment
//	completed  its latest charge completed (and stays so when that charge is
//	           later refunded or disputed: the link was paid)
//	expired    expiration_date passed while available
//	cancelled  the merchant set it with an update
//
// The status is worked out when the checkout is read, from the clock and
// the charge the checkout links to, so that a charge completed on the
// 3-D Secure page or by the complete control completes its checkout
// without either knowing about checkouts. An update may set available
// (with an expiration in the future, if any; so it reopens an expired or
// cancelled link) or cancelled; a completed checkout cannot change.
//
// Paying: the payer's card is charged as an inline card charge of the
// checkout's amount, currency, description and order_id (chargeCard), at
// the checkout's customer when it has one: the test cards, the fraud
// e-mail and 3-D Secure decide as on any card charge, and the charge
// sends its events (charge.succeeded, charge.failed) and webhooks as any
// other. A declined charge stays linked as the checkout's transaction and
// the payer may try again; every attempt carries the checkout's order_id
// (the index of order_ids points at the latest). A card that asks for 3-D
// Secure leaves the charge charge_pending with the challenge page as its
// payment_method.url; while it waits, the checkout takes no other payment.
//
// order_id: unique among the merchant's checkouts and transactions
// (orderIDTaken consults checkoutHoldsOrderID), so no charge made through
// the API can take a checkout's.
//
// Currency: checkoutCurrencyAllowed is the one rule.

// checkoutRecord is one checkout. c is its wire form without status and
// transaction, which checkoutWire works out when answering.
type checkoutRecord struct {
	c          openpay.Checkout
	customerID string                  // "" at merchant scope
	payer      *openpay.ChargeCustomer // the customer sent at merchant scope
	redirect   string                  // the payer's way back
	base       string                  // the server's address when created: the page's and the challenge's
	cancelled  bool
	txID       string // the latest charge made to pay it
}

// checkoutState is a merchant's checkouts (extState).
type checkoutState struct {
	byID    map[string]*checkoutRecord
	byOrder map[string]*checkoutRecord
	list    []*checkoutRecord // creation order
}

func newCheckoutState() *checkoutState {
	return &checkoutState{byID: map[string]*checkoutRecord{}, byOrder: map[string]*checkoutRecord{}}
}

// checkoutHoldsOrderID reports whether one of the merchant's checkouts has
// the order_id. The caller holds m.mu.
func checkoutHoldsOrderID(m *merchant, orderID string) bool {
	st, ok := m.ext[reflect.TypeFor[checkoutState]()].(*checkoutState)
	return ok && st.byOrder[orderID] != nil
}

// checkoutCurrencyAllowed is the one rule for the currencies a merchant's
// checkouts take (the currency as sent, "" for the default): the account's
// own (MXN, COP or PEN, country.go), not the dollars its card charges also
// take.
func checkoutCurrencyAllowed(m *merchant, cur openpay.Currency) bool {
	return cur == "" || cur == m.country.currency
}

// registerCheckouts registers checkouts at merchant and customer scope.
// Updates exist at the merchant's path only, as every vendor client sends
// them there.
func (s *Server) registerCheckouts(r *routeTable) {
	r.add("listCheckouts", http.MethodGet, "/v1/{merchant_id}/checkouts", http.StatusOK, s.listCheckouts)
	r.add("createCheckout", http.MethodPost, "/v1/{merchant_id}/checkouts", http.StatusOK, s.createCheckout)
	r.add("getCheckout", http.MethodGet, "/v1/{merchant_id}/checkouts/{checkout_id}", http.StatusOK, s.getCheckout)
	r.add("updateCheckout", http.MethodPut, "/v1/{merchant_id}/checkouts/{checkout_id}", http.StatusOK, s.updateCheckout)
	r.add("listCustomerCheckouts", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/checkouts", http.StatusOK, s.listCheckouts)
	r.add("createCustomerCheckout", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/checkouts", http.StatusOK, s.createCheckout)
	r.add("getCustomerCheckout", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/checkouts/{checkout_id}", http.StatusOK, s.getCheckout)
	r.simulate("payCheckout", "/_simulate/{merchant_id}/checkouts/{checkout_id}/pay", s.simulatePayCheckout)
}

// createCheckout creates a checkout at merchant or customer scope.
func (s *Server) createCheckout(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.CheckoutRequest
	if e := f.into(&req); e != nil {
		return nil, e
	}
	customerScope := c.param("customer_id") != ""
	var v checker
	v.required(f, "amount", "description")
	if v.err != nil {
		return nil, v.err
	}
	v.amount("amount", req.Amount)
	v.nonEmpty("description", req.Description)
	v.maxLen("description", req.Description, 250)
	if f.has("order_id") {
		v.nonEmpty("order_id", req.OrderID)
	}
	v.maxLen("order_id", req.OrderID, 100)
	v.maxLen("iva", req.IVA, 20)
	if f.has("redirect_url") {
		v.returnURL("redirect_url", req.RedirectURL)
	}
	if !checkoutCurrencyAllowed(c.m, req.Currency) {
		v.failf(openpay.ErrInvalidParameter, "The field 'currency' is not a currency this merchant's checkouts take")
	}
	if customerScope && f.has("customer") {
		v.failf(openpay.ErrInvalidParameter, "The field 'customer' is not taken on a customer's checkout: the customer is the payer")
	}
	if v.err != nil {
		return nil, v.err
	}
	expires, e := s.checkoutExpiry(f, req.ExpirationDate)
	if e != nil {
		return nil, e
	}
	if !customerScope && req.Customer != nil {
		if e := checkChargeCustomer(f.object("customer"), req.Customer); e != nil {
			return nil, e
		}
	}
	if req.Currency == "" {
		req.Currency = c.m.country.currency
	}

	m := c.m
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	if e := checkActive(m, cu); e != nil {
		return nil, e
	}
	if e := m.orderIDTaken(req.OrderID); e != nil {
		return nil, e
	}
	now := s.Now()
	id := s.ids.NewID(KindCheckout)
	r := &checkoutRecord{redirect: req.RedirectURL, base: c.baseURL(), c: openpay.Checkout{
		ID: id, Amount: req.Amount, Currency: string(req.Currency), Description: req.Description,
		OrderID: req.OrderID, IVA: req.IVA, CreationDate: openpay.FlexTime{Time: now},
		ExpirationDate: openpay.FlexTime{Time: expires},
		CheckoutLink:   c.baseURL() + "/checkout/" + url.PathEscape(m.id) + "/" + id,
	}}
	switch {
	case cu != nil:
		r.customerID = cu.id
		w := cu.wire(c.baseURL())
		r.c.Customer = &w
	case req.Customer != nil:
		r.payer = req.Customer
		r.c.Customer = &openpay.Customer{Name: req.Customer.Name, LastName: req.Customer.LastName, Email: req.Customer.Email,
			PhoneNumber: req.Customer.PhoneNumber, Address: req.Customer.Address, CreationDate: now}
	}
	st := extState(m, newCheckoutState)
	st.byID[id] = r
	st.list = append(st.list, r)
	if req.OrderID != "" {
		st.byOrder[req.OrderID] = r
	}
	m.mark(recCheckout, id)
	return s.checkoutWire(m, r), nil
}

// checkoutExpiry reads an expiration_date (x-openpay-lenient
// checkout-expiration): zero when absent or empty, 1001 when unreadable,
// 1003 when not in the future.
func (s *Server) checkoutExpiry(f fields, value string) (time.Time, *Error) {
	if !f.has("expiration_date") || value == "" {
		return time.Time{}, nil
	}
	t, ok := checkoutExpiration(value)
	if !ok {
		return time.Time{}, errorf(openpay.ErrBadRequest, "The field 'expiration_date' must be a date and time yyyy-MM-dd HH:mm")
	}
	if !t.After(s.Now()) {
		return time.Time{}, errorf(openpay.ErrInvalidParameter, "The field 'expiration_date' must be in the future")
	}
	return t, nil
}

// checkoutStatus works out a checkout's status now. The caller holds m.mu.
func (s *Server) checkoutStatus(m *merchant, r *checkoutRecord) openpay.CheckoutStatus {
	if t := m.txs[r.txID]; t != nil {
		switch t.t.Status {
		case openpay.TransactionStatusCompleted, openpay.TransactionStatusRefunded, openpay.TransactionStatusChargebackPending,
			openpay.TransactionStatusChargebackAccepted, openpay.TransactionStatusChargebackAdjustment:
			return openpay.CheckoutStatusCompleted
		}
	}
	switch {
	case r.cancelled:
		return openpay.CheckoutStatusCancelled
	case !r.c.ExpirationDate.IsZero() && !s.Now().Before(r.c.ExpirationDate.Time):
		return openpay.CheckoutStatusExpired
	}
	return openpay.CheckoutStatusAvailable
}

// checkoutWire is the checkout's answer now. The caller holds m.mu.
func (s *Server) checkoutWire(m *merchant, r *checkoutRecord) openpay.Checkout {
	w := r.c
	w.Status = s.checkoutStatus(m, r)
	if t := m.txs[r.txID]; t != nil {
		snap := t.snapshot()
		w.Transaction = &snap
	}
	return w
}

// scopeCheckout returns the checkout the path names, by id or else by
// order_id: at merchant scope any of the merchant's, at customer scope
// only the customer's; otherwise 1005. The caller holds the locks of
// c.lock.
func (c *call) scopeCheckout() (*checkoutRecord, *Error) {
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	id := c.param("checkout_id")
	r := findCheckout(c.m, id)
	if r == nil || (cu != nil && r.customerID != cu.id) {
		return nil, errNotFound("checkout", id)
	}
	return r, nil
}

// findCheckout returns the merchant's checkout with the id, or else with
// the order_id, or nil. The caller holds m.mu.
func findCheckout(m *merchant, idOrOrderID string) *checkoutRecord {
	st := extState(m, newCheckoutState)
	if r := st.byID[idOrOrderID]; r != nil {
		return r
	}
	return st.byOrder[idOrOrderID]
}

// getCheckout answers a checkout.
func (s *Server) getCheckout(c *call) (any, *Error) {
	defer c.lock()()
	r, e := c.scopeCheckout()
	if e != nil {
		return nil, e
	}
	return s.checkoutWire(c.m, r), nil
}

// listCheckouts pages the checkouts of the merchant or of the path's
// customer, newest first. startDate and endDate (yyyyMMdd, the vendor
// clients' filters) narrow the days with the common creation filters.
func (s *Server) listCheckouts(c *call) (any, *Error) {
	q := c.r.URL.Query()
	p, e := parseListParams(q)
	if e != nil {
		return nil, e
	}
	for _, name := range []string{"startDate", "endDate"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		d, err := time.ParseInLocation("20060102", v, gatewayZone)
		if err != nil {
			return nil, errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be a date yyyyMMdd", name)
		}
		if name == "startDate" {
			p.narrow(d, time.Time{})
		} else {
			p.narrow(time.Time{}, d)
		}
	}
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	st := extState(c.m, newCheckoutState)
	return page(p, st.list, func(r *checkoutRecord) (time.Time, bool) {
		return r.c.CreationDate.Time, cu == nil || r.customerID == cu.id
	}, func(r *checkoutRecord) openpay.Checkout { return s.checkoutWire(c.m, r) }), nil
}

// updateCheckout sets a checkout's status (query status) and expiration
// (body).
func (s *Server) updateCheckout(c *call) (any, *Error) {
	status, sent := queryValue(c.r.URL.Query(), "status")
	status = strings.ToLower(status) // x-openpay-lenient enum-case
	if sent && status != string(openpay.CheckoutStatusAvailable) && status != string(openpay.CheckoutStatusCancelled) {
		return nil, errorf(openpay.ErrInvalidParameter, "The parameter 'status' must be available or cancelled")
	}
	f, e := readBody(c, true)
	if e != nil {
		return nil, e
	}
	var req openpay.CheckoutUpdateRequest
	if e := f.into(&req); e != nil {
		return nil, e
	}
	expires, e := s.checkoutExpiry(f, req.ExpirationDate)
	if e != nil {
		return nil, e
	}
	defer c.lock()()
	r, e := c.scopeCheckout()
	if e != nil {
		return nil, e
	}
	now := s.checkoutStatus(c.m, r)
	if now == openpay.CheckoutStatusCompleted {
		return nil, errorf(openpay.ErrInvalidParameter, "The checkout is completed and cannot change")
	}
	if t := c.m.txs[r.txID]; t != nil && t.pending() && status == string(openpay.CheckoutStatusCancelled) {
		return nil, errorf(openpay.ErrInvalidParameter, "A payment of the checkout is in progress")
	}
	next := r.c.ExpirationDate
	if !expires.IsZero() {
		next = openpay.FlexTime{Time: expires}
	}
	cancelled := r.cancelled
	if sent {
		cancelled = status == string(openpay.CheckoutStatusCancelled)
	}
	if !cancelled && !next.IsZero() && !s.Now().Before(next.Time) {
		return nil, errorf(openpay.ErrInvalidParameter, "The checkout has expired: give an expiration_date in the future to make it available")
	}
	r.cancelled, r.c.ExpirationDate = cancelled, next
	c.m.mark(recCheckout, r.c.ID)
	return s.checkoutWire(c.m, r), nil
}

// checkoutPayment is what came of a payment of a checkout.
type checkoutPayment struct {
	co openpay.Checkout // the checkout after the attempt
	// card is the card rules' refusal: no charge was made. declined is the
	// decline of the charge made, which failed and is the checkout's
	// transaction.
	card, declined *Error
}

// err is the error of a payment that failed, nil when it did not.
func (p checkoutPayment) err() error {
	switch {
	case p.card != nil:
		return p.card
	case p.declined != nil:
		return p.declined
	}
	return nil
}

// payCheckout charges the card typed by the payer for a checkout. The error
// is for a checkout that takes no payment: 1005 when it does not exist,
// 1003 when it is not available or a payment of it waits for 3-D Secure,
// 1008 when an account is deactivated.
func (s *Server) payCheckout(merchantID, checkoutID string, d cardData) (checkoutPayment, *Error) {
	m := s.merchantByID(merchantID)
	if m == nil {
		return checkoutPayment{}, errNotFound("checkout", checkoutID)
	}
	k, cardErr := s.checkTypedCard(d)
	m.mu.Lock()
	defer m.mu.Unlock()
	r := extState(m, newCheckoutState).byID[checkoutID]
	if r == nil {
		return checkoutPayment{}, errNotFound("checkout", checkoutID)
	}
	if st := s.checkoutStatus(m, r); st != openpay.CheckoutStatusAvailable {
		return checkoutPayment{}, errorf(openpay.ErrInvalidParameter, "The checkout is %s and takes no payment", st)
	}
	if t := m.txs[r.txID]; t != nil && t.pending() {
		return checkoutPayment{}, errorf(openpay.ErrInvalidParameter, "A payment of the checkout is in progress")
	}
	var cu *customer
	if r.customerID != "" {
		if cu = m.customers.get(r.customerID); cu == nil {
			return checkoutPayment{}, errNotFound("customer", r.customerID)
		}
	}
	if e := checkActive(m, cu); e != nil {
		return checkoutPayment{}, e
	}
	if cardErr != nil {
		return checkoutPayment{co: s.checkoutWire(m, r), card: cardErr}, nil
	}
	req := &chargeRequest{kind: kindCard, amount: r.c.Amount, currency: openpay.Currency(r.c.Currency),
		description: r.c.Description, orderID: r.c.OrderID, customer: r.payer, capture: true, inline: &k,
		redirectURL: r.redirect, country: m.country}
	t := s.newChargeTx(cu, req)
	_, declined := s.chargeCard(m, m.storedCards(), cu, req, t, r.base+"/v1/"+m.id+"/charges/"+t.t.ID)
	if m.txs[t.t.ID] == t {
		r.txID = t.t.ID
		m.mark(recCheckout, r.c.ID)
	}
	return checkoutPayment{co: s.checkoutWire(m, r), declined: declined}, nil
}

// PayCheckout pays a merchant's checkout with a sandbox card as the payer
// would on its page: the charge is made with the card number, a holder,
// a future expiry and a security code the card's brand takes. It answers
// the checkout, or the error of a checkout that takes no payment, of a card
// the rules refuse, or of a declined card (whose failed charge is then the
// checkout's transaction).
func (s *Server) PayCheckout(merchantID, checkoutID, cardNumber string) (_ openpay.Checkout, err error) {
	defer s.durable(&err)()
	p, e := s.payCheckout(merchantID, checkoutID, simulatedCard(cardNumber, s.Now()))
	if e != nil {
		return openpay.Checkout{}, e
	}
	return p.co, p.err()
}

// simulatedCard is the card a simulation pays with: the number given, and
// the rest as a payer would type it.
func simulatedCard(number string, now time.Time) cardData {
	cvv := "123"
	if cardnum.Brand(number) == cardnum.AmericanExpress {
		cvv = "1234"
	}
	return cardData{holder: "Sandbox Payer", number: number, cvv: cvv, month: "12", year: now.AddDate(3, 0, 0).Format("06")}
}

// simulatePayCheckout is the pay control: body {"card_number": "..."}.
func (s *Server) simulatePayCheckout(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var body struct {
		CardNumber string `json:"card_number"`
	}
	if e := f.into(&body); e != nil {
		return nil, e
	}
	if !f.has("card_number") {
		return nil, errorf(openpay.ErrBadRequest, "The field 'card_number' is required")
	}
	p, e := s.payCheckout(c.m.id, c.param("checkout_id"), simulatedCard(body.CardNumber, s.Now()))
	switch {
	case e != nil:
		return nil, e
	case p.card != nil:
		return nil, p.card
	case p.declined != nil:
		return nil, p.declined
	}
	return p.co, nil
}
