package refserver

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
	"github.com/openpay-go/openpay/internal/web"
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
// Paying: the payer picks a method of the merchant's country
// (checkoutMethods): a card, cash at a store, or PSE in Colombia. The
// charge is made by startCharge, as a charge through the API of that
// method would be, of the checkout's amount, currency, description,
// order_id and iva (checkoutCharge), at the checkout's customer when it
// has one, and it sends its events and webhooks as any other. A card is
// charged at once as an inline card charge: the test cards, the fraud
// e-mail and 3-D Secure decide. A store payment is a store charge
// in_progress whose receipt the payer takes to the store; a PSE payment is
// a PSE charge charge_pending at the bank's page. A failed charge stays
// linked as the checkout's transaction and the payer may try again; every
// attempt carries the checkout's order_id (the index of order_ids points
// at the latest). While a charge waits for the payer (3-D Secure, the
// store, the bank), the checkout takes no other payment.
//
// order_id: unique among the merchant's checkouts and transactions: a
// checkout holds its order_id in the store's index (holdOrderID), which
// orderIDTaken consults, so no charge made through the API can take a
// checkout's.
//
// Currency: checkoutCurrencyAllowed is the one rule.

// checkoutRecord is one checkout. c is its wire form without status and
// transaction, which checkoutWire works out when answering.
type checkoutRecord struct {
	c          openpay.Checkout
	customerID string                  // "" at merchant scope
	payer      *openpay.ChargeCustomer // the customer sent at merchant scope
	redirect   string                  // the payer's way back
	// storeBack: redirect_store_payment, a store payer goes back to
	// redirect rather than to the receipt.
	storeBack bool
	base      string // the server's address when created: the page's and the challenge's
	cancelled bool
	txID      string // the latest charge made to pay it
}

// heldOrderID is the order_id the checkout holds in the merchant's index
// (holdOrderID): its own, from its creation on.
func (r *checkoutRecord) heldOrderID() string { return r.c.OrderID }

// checkoutState is a merchant's checkouts (extState); their order_ids are
// in the store's index (orderIDHolder).
type checkoutState struct {
	byID map[string]*checkoutRecord
	list []*checkoutRecord // creation order
}

func newCheckoutState() *checkoutState {
	return &checkoutState{byID: map[string]*checkoutRecord{}}
}

// checkoutCurrencyAllowed is the one rule for the currencies a merchant's
// checkouts take (the currency as sent, "" for the default): the account's
// own (MXN, COP or PEN, country.go), not the dollars its card charges also
// take.
func checkoutCurrencyAllowed(m *merchant, cur openpay.Currency) bool {
	return cur == "" || cur == m.country.Currency
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
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	customerScope := c.param("customer_id") != ""
	var v reqbody.Checker
	v.Required(f, "amount", "description")
	if v.Err != nil {
		return nil, v.Err
	}
	v.Amount("amount", req.Amount)
	v.NonEmpty("description", req.Description)
	v.MaxLen("description", req.Description, 250)
	if f.Has("order_id") {
		v.NonEmpty("order_id", req.OrderID)
	}
	v.MaxLen("order_id", req.OrderID, 100)
	// As on charges: the charges that pay the checkout carry it.
	if a, err := openpay.NewAmount(v.IVA(f)); err == nil { // the form IVA checks is NewAmount's
		req.IVA = a
	}
	if f.Has("redirect_url") {
		v.ReturnURL("redirect_url", req.RedirectURL)
	}
	if !checkoutCurrencyAllowed(c.m, req.Currency) {
		v.Failf(openpay.ErrInvalidParameter, "The field 'currency' is not a currency this merchant's checkouts take")
	}
	if customerScope && f.Has("customer") {
		v.Failf(openpay.ErrInvalidParameter, "The field 'customer' is not taken on a customer's checkout: the customer is the payer")
	}
	if v.Err != nil {
		return nil, v.Err
	}
	expires, e := s.checkoutExpiry(c.m, f)
	if e != nil {
		return nil, e
	}
	if !customerScope && req.Customer != nil {
		if e := fieldrules.ChargeCustomer(f.Object("customer"), req.Customer); e != nil {
			return nil, e
		}
	}
	if req.Currency == "" {
		req.Currency = c.m.country.Currency
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
	now := s.nowFor(m)
	id := s.ids.NewID(idgen.KindCheckout)
	r := &checkoutRecord{redirect: req.RedirectURL, storeBack: req.RedirectStorePayment, base: c.baseURL(), c: openpay.Checkout{
		ID: id, Amount: req.Amount, Currency: req.Currency, Description: req.Description,
		OrderID: req.OrderID, IVA: req.IVA, CreationDate: now,
		ExpirationDate: expires,
		CheckoutLink:   c.baseURL() + "/checkout/" + url.PathEscape(m.id) + "/" + id,
	}}
	switch {
	case cu != nil:
		r.customerID = cu.id()
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
	m.holdOrderID(r)
	m.mark(recCheckout, id)
	return s.checkoutWire(m, r), nil
}

// checkoutExpiry reads an expiration_date (x-openpay-lenient
// checkout-expiration): zero when absent or empty, 1001 when unreadable,
// 1003 when not in the future (by the merchant's clock). A time without
// an offset is the merchant's zone's.
func (s *Server) checkoutExpiry(m *merchant, f reqbody.Fields) (time.Time, *Error) {
	zone := zoneOf(m)
	var value string // as written: the wire field is a time.Time (reqbody's readByHandler)
	if e := f.Member("expiration_date", &value); e != nil {
		return time.Time{}, e
	}
	if value == "" {
		return time.Time{}, nil
	}
	t, ok := reqbody.CheckoutExpiration(value, zone)
	if !ok {
		return time.Time{}, errorf(openpay.ErrBadRequest, "The field 'expiration_date' must be a date and time yyyy-MM-dd HH:mm")
	}
	if !t.After(s.nowOf(m)) {
		return time.Time{}, errorf(openpay.ErrInvalidParameter, "The field 'expiration_date' must be in the future")
	}
	return t, nil
}

// checkoutStatus works out a checkout's status now. The caller holds m.mu.
func (s *Server) checkoutStatus(m *merchant, r *checkoutRecord) openpay.CheckoutStatus {
	if t := m.txByID(r.txID); t != nil {
		switch t.status() {
		case openpay.TransactionStatusCompleted, openpay.TransactionStatusRefunded, openpay.TransactionStatusChargebackPending,
			openpay.TransactionStatusChargebackAccepted, openpay.TransactionStatusChargebackAdjustment:
			return openpay.CheckoutStatusCompleted
		}
	}
	switch {
	case r.cancelled:
		return openpay.CheckoutStatusCancelled
	case !r.c.ExpirationDate.IsZero() && !s.nowOf(m).Before(r.c.ExpirationDate):
		return openpay.CheckoutStatusExpired
	}
	return openpay.CheckoutStatusAvailable
}

// checkoutWire is the checkout's answer now. The caller holds m.mu.
func (s *Server) checkoutWire(m *merchant, r *checkoutRecord) openpay.Checkout {
	w := r.c
	w.Status = s.checkoutStatus(m, r)
	if t := m.txByID(r.txID); t != nil {
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
	if r == nil || (cu != nil && r.customerID != cu.id()) {
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
	r, _ := m.orderIDHolder(idOrOrderID).(*checkoutRecord)
	return r
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
	q := c.query
	p, e := listquery.Parse(q, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	for _, name := range []string{"startDate", "endDate"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		d, err := time.ParseInLocation("20060102", v, zoneOf(c.m))
		if err != nil {
			return nil, errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be a date yyyyMMdd", name)
		}
		if name == "startDate" {
			p.Narrow(d, time.Time{})
		} else {
			p.Narrow(time.Time{}, d)
		}
	}
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	st := extState(c.m, newCheckoutState)
	return listquery.Page(p, st.list, func(r *checkoutRecord) (time.Time, bool) {
		return r.c.CreationDate, cu == nil || r.customerID == cu.id()
	}, func(r *checkoutRecord) openpay.Checkout { return s.checkoutWire(c.m, r) }), nil
}

// updateCheckout sets a checkout's status (query status) and expiration
// (body).
func (s *Server) updateCheckout(c *call) (any, *Error) {
	status, sent := listquery.Value(c.query, "status")
	status = strings.ToLower(status) // x-openpay-lenient enum-case
	if sent && status != string(openpay.CheckoutStatusAvailable) && status != string(openpay.CheckoutStatusCancelled) {
		return nil, errorf(openpay.ErrInvalidParameter, "The parameter 'status' must be available or cancelled")
	}
	f, e := readBody(c, true)
	if e != nil {
		return nil, e
	}
	var req openpay.CheckoutUpdateRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	expires, e := s.checkoutExpiry(c.m, f)
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
	if t := c.m.txByID(r.txID); t != nil && t.pending() && status == string(openpay.CheckoutStatusCancelled) {
		return nil, errorf(openpay.ErrInvalidParameter, "A payment of the checkout is in progress")
	}
	next := r.c.ExpirationDate
	if !expires.IsZero() {
		next = expires
	}
	cancelled := r.cancelled
	if sent {
		cancelled = status == string(openpay.CheckoutStatusCancelled)
	}
	if !cancelled && !next.IsZero() && !s.nowOf(c.m).Before(next) {
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

// checkoutMethods are the ways a merchant's checkouts are paid, in the
// order the page offers them: a card, cash at a store of the country's
// networks, and PSE where the country has it (country.go decides).
func checkoutMethods(m *merchant) []openpay.ChargeMethod {
	out := []openpay.ChargeMethod{openpay.ChargeMethodCard, openpay.ChargeMethodStore}
	if offers(m.country, kindPSE) {
		out = append(out, openpay.ChargeMethodBankAccount)
	}
	return out
}

// checkoutKind is the kind of the charge that pays a merchant's checkout
// by method (empty: card), or 1003 for a method its checkouts do not take.
func checkoutKind(m *merchant, method openpay.ChargeMethod) (chargeKind, *Error) {
	if method == "" {
		method = openpay.ChargeMethodCard
	}
	if slices.Contains(checkoutMethods(m), method) {
		switch method {
		case openpay.ChargeMethodStore:
			return kindStore, nil
		case openpay.ChargeMethodBankAccount:
			return kindPSE, nil
		}
		return kindCard, nil
	}
	methods := "card or store"
	if offers(m.country, kindPSE) {
		methods = "card, store or bank_account (PSE)"
	}
	return 0, errorf(openpay.ErrInvalidParameter, "The field 'method' must be %s for a checkout of a merchant in %s", methods, m.country.Code)
}

// ivaText is a checkout's iva as its charges are sent with it: the
// decimal string, "" for none.
func ivaText(a openpay.Amount) string {
	if a.IsZero() {
		return ""
	}
	text, _ := a.MarshalText() // an iva has at most two decimals (Checker.IVA)
	return string(text)
}

// checkoutCharge is the request of the charge that pays a checkout by a
// kind: the checkout's amount, currency, description, order_id and iva,
// its payer. A payment that waits for its payer (3-D Secure, the store,
// the bank) closes with the link, when that is sooner than the charge's
// own window: past the link's expiration the charge is cancelled, so no
// payment completes an expired link. A PSE payer comes back to the shop's
// redirect_url or, without one, to the link, which then shows the outcome.
func (s *Server) checkoutCharge(m *merchant, r *checkoutRecord, kind chargeKind) *chargeRequest {
	req := &chargeRequest{kind: kind, amount: r.c.Amount, currency: openpay.Currency(r.c.Currency), description: r.c.Description,
		orderID: r.c.OrderID, iva: ivaText(r.c.IVA), customer: r.payer, capture: true, country: m.country}
	window := map[chargeKind]time.Duration{kindCard: payerDueAfter, kindStore: storeDueAfter, kindPSE: pseDueAfter}[kind]
	if exp := r.c.ExpirationDate; !exp.IsZero() && exp.Before(s.nowOf(m).Add(window)) {
		req.dueDate = exp
	}
	switch kind {
	case kindCard:
		req.redirectURL = r.redirect
	case kindPSE:
		req.redirectURL = r.redirect
		if req.redirectURL == "" {
			req.redirectURL = r.c.CheckoutLink
		}
	}
	return req
}

// payCheckout pays a checkout by method (empty: card) as its payer: a card
// with the data typed (d), which is charged at once, or a store or PSE
// payment, whose charge waits for the payer (in_progress at the store,
// charge_pending at the bank) and completes the checkout when it completes.
// The error is for a payment the checkout does not take: 1005 when it does
// not exist, 1003 for a method its country lacks, when it is not available
// or a payment of it waits for the payer, 1008 when an account is
// deactivated.
func (s *Server) payCheckout(merchantID, checkoutID string, method openpay.ChargeMethod, d openpay.CardDetails) (checkoutPayment, *Error) {
	m := s.merchantByID(merchantID)
	if m == nil {
		return checkoutPayment{}, errNotFound("checkout", checkoutID)
	}
	kind, e := checkoutKind(m, method)
	if e != nil {
		return checkoutPayment{}, e
	}
	var k card
	var cardErr *Error
	if kind == kindCard {
		k, cardErr = s.checkTypedCard(m, d)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := extState(m, newCheckoutState).byID[checkoutID]
	if r == nil {
		return checkoutPayment{}, errNotFound("checkout", checkoutID)
	}
	if t := m.txByID(r.txID); t != nil {
		s.lapse(m, t, s.nowOf(m)) // a payment whose window closed waits no more
	}
	if st := s.checkoutStatus(m, r); st != openpay.CheckoutStatusAvailable {
		return checkoutPayment{}, errorf(openpay.ErrInvalidParameter, "The checkout is %s and takes no payment", st)
	}
	if t := m.txByID(r.txID); t != nil && t.pending() {
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
	req := s.checkoutCharge(m, r, kind)
	if kind == kindCard {
		req.inline, req.inlineCard = true, k
	}
	t := s.newChargeTx(m, cu, req)
	_, declined := s.startCharge(m, m.storedCards(), cu, req, t, r.base)
	if m.txByID(t.id()) == t {
		r.txID = t.id()
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
	p, e := s.payCheckout(merchantID, checkoutID, openpay.ChargeMethodCard, simulatedCard(cardNumber, s.nowOf(s.merchantByID(merchantID))))
	if e != nil {
		return openpay.Checkout{}, e
	}
	return p.co, p.err()
}

// PayCheckoutBy starts paying a merchant's checkout by a method the payer
// finishes away from its page, as the payer who picks it there: store (the
// checkout's transaction is a store charge in_progress, completed by
// PayCharge) or, in Colombia, bank_account (a PSE charge charge_pending,
// completed on its bank page or by PayCharge). The checkout completes when
// that charge does. A card needs its number: PayCheckout.
func (s *Server) PayCheckoutBy(merchantID, checkoutID string, method openpay.ChargeMethod) (_ openpay.Checkout, err error) {
	if method == "" || method == openpay.ChargeMethodCard {
		return openpay.Checkout{}, errorf(openpay.ErrInvalidParameter, "A card payment of a checkout needs the card number (PayCheckout)")
	}
	defer s.durable(&err)()
	p, e := s.payCheckout(merchantID, checkoutID, method, openpay.CardDetails{})
	if e != nil {
		return openpay.Checkout{}, e
	}
	return p.co, p.err()
}

// simulatedCard is the card a simulation pays with: the number given, and
// the rest as a payer would type it.
func simulatedCard(number string, now time.Time) openpay.CardDetails {
	cvv := "123"
	if cardnum.Brand(number) == cardnum.AmericanExpress {
		cvv = "1234"
	}
	return openpay.CardDetails{HolderName: "Sandbox Payer", CardNumber: number, CVV2: cvv, ExpirationMonth: "12", ExpirationYear: now.AddDate(3, 0, 0).Format("06")}
}

// simulatePayCheckout is the pay control: body {"card_number": "..."}
// (method card, the default), or {"method": "store"} or, in Colombia,
// {"method": "bank_account"} (PSE), which start a payment the payer
// finishes away from the page.
func (s *Server) simulatePayCheckout(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var body struct {
		Method     openpay.ChargeMethod `json:"method"`
		CardNumber string               `json:"card_number"`
	}
	if e := f.Into(&body); e != nil {
		return nil, e
	}
	var d openpay.CardDetails
	if body.Method == "" || body.Method == openpay.ChargeMethodCard {
		if !f.Has("card_number") {
			return nil, errorf(openpay.ErrBadRequest, "The field 'card_number' is required")
		}
		d = simulatedCard(body.CardNumber, s.nowOf(c.m))
	}
	p, e := s.payCheckout(c.m.id, c.param("checkout_id"), body.Method, d)
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

// The checkout's hosted page (package web) reads and pays it through the
// server's pageBackend (pages.go), with the pay control's payment.

var _ web.CheckoutBackend = pageBackend{}

// Checkout implements web.CheckoutBackend.
func (b pageBackend) Checkout(merchantID, checkoutID string) (web.PageCheckout, error) {
	m := b.s.merchantByID(merchantID)
	if m == nil {
		return web.PageCheckout{}, web.ErrNoCheckout
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r := extState(m, newCheckoutState).byID[checkoutID]
	if r == nil {
		return web.PageCheckout{}, web.ErrNoCheckout
	}
	return web.PageCheckout{RedirectURL: r.redirect, StoreBack: r.storeBack, Checkout: b.s.checkoutWire(m, r), Methods: checkoutMethods(m)[1:]}, nil
}

// PayCheckout implements web.CheckoutBackend with the pay control's
// payment.
func (b pageBackend) PayCheckout(merchantID, checkoutID string, c web.PayerCard) (web.CheckoutPayment, error) {
	return b.checkoutPayment(merchantID, checkoutID, openpay.ChargeMethodCard, typedCard(c))
}

// StartCheckoutPayment implements web.CheckoutBackend with the pay
// control's payment by another method.
func (b pageBackend) StartCheckoutPayment(merchantID, checkoutID string, method openpay.ChargeMethod) (web.CheckoutPayment, error) {
	return b.checkoutPayment(merchantID, checkoutID, method, openpay.CardDetails{})
}

// checkoutPayment is payCheckout as the checkout page sees it; what it
// changed is stored before the page answers.
func (b pageBackend) checkoutPayment(merchantID, checkoutID string, method openpay.ChargeMethod, d openpay.CardDetails) (_ web.CheckoutPayment, err error) {
	defer b.s.durable(&err)()
	p, e := b.s.payCheckout(merchantID, checkoutID, method, d)
	switch {
	case e != nil && e.Code == openpay.ErrNotFound:
		return web.CheckoutPayment{}, web.ErrNoCheckout
	case e != nil:
		return web.CheckoutPayment{}, errors.New(e.Description)
	case p.card != nil:
		return web.CheckoutPayment{Invalid: p.card.Description}, nil
	}
	out := web.CheckoutPayment{}
	if t := p.co.Transaction; t != nil {
		out.ChargeID = t.ID
		if t.Status == openpay.TransactionStatusChargePending && t.PaymentMethod != nil {
			out.NextURL = t.PaymentMethod.URL
		}
	}
	if p.declined != nil {
		out.Declined = p.declined.Description
	}
	return out, nil
}
