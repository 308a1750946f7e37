package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/ascii"
	"github.com/openpay-go/openpay/internal/refserver/cardrules"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Charges: the six variants of section 4.1 at merchant, customer and group
// scope, their capture, refund and cancellation, and the moves the
// simulation controls make (simulate_api.go).
//
// States (section 3 of the specification and the facts; the gateway leaves
// the rest unstated, so these are the server's choices):
//
//	card, capture true (default)  -> completed, authorization set; the amount is credited
//	card, capture false           -> in_progress: a pre-authorization (authorization set, nothing credited)
//	  capture (amount <= authorized, once)  -> completed, amount = captured amount; credited
//	  refund or cancel              -> cancelled (voided; nothing moves)
//	card declined (3xxx, test cards, fraud e-mail) -> a failed transaction is stored with
//	  error_message, and the request answers the decline's error
//	card needing 3-D Secure (use_3d_secure, or the 3-D Secure test card) -> charge_pending,
//	  payment_method redirect; completed (or in_progress when capture was false) by the payer;
//	  abandoned, cancelled after payerDueAfter (transaction.expired besides charge.cancelled),
//	  a window kept in due_date and not shown (snapshot)
//	redirect (confirm false), alipay, IVR (confirm "ivr") -> charge_pending with their payment_method
//	store, bank_account           -> in_progress with their payment_method, until paid
//	PSE (Colombia)                -> charge_pending, payment_method redirect to the bank page;
//	  completed or failed by the payer (the page or the controls); past its due_date ->
//	  cancelled, announced with transaction.expired besides charge.cancelled
//	pending charges (charge_pending, unpaid store or bank, pre-authorization): cancel -> cancelled;
//	  past their due_date when the clock advances -> cancelled
//	completed card charge: refund (partial or full; never more than what was captured), once ->
//	  refunded, with the refund nested as `refund`; the refunded amount leaves the balance
//	  (4001 when the balance cannot pay it). A refunded charge refuses another refund (1003):
//	  the charge nests one refund, so a second would hide the first from every read
//	  (openapi.yaml, refundCharge), and a refund is safe to repeat
//	completed or refunded card charge: chargeback opened -> chargeback_pending (the disputed
//	  amount leaves the balance at once); accepted -> chargeback_accepted; rejected -> back to
//	  its previous status and the amount returns
//
// Money: a completed charge credits the merchant's balance, or the balance of
// the customer it was made for when that customer has an account
// (requires_account), as the gateway funds customer accounts with their
// charges. A USD charge credits its value in MXN at the server's exchange
// rate, carried as exchange_rate. An Alipay charge credits its amount less
// the gateway's fee.
//
// Lists and reads at merchant scope see every charge of the merchant,
// including customers' charges; at customer scope only that customer's.
// A group customer's charge at one of the group's merchants (groups_api.go
// registers it with these handlers) is that merchant's transaction and
// credits that merchant's balance.
//
// An order_id is unique among all the merchant's transactions, whatever
// their status: a declined charge keeps its order_id (1006 on a retry).
//
// The metadata of a card or IVR charge (an object of strings) is kept and
// echoed on the charge in the same shape, as the gateway does (the vendor's
// clients read it back from charge responses).

// registerCharges registers charges at merchant, customer and group scope.
func (s *Server) registerCharges(r *routeTable) {
	r.add("listCharges", http.MethodGet, "/v1/{merchant_id}/charges", http.StatusOK, s.listCharges)
	r.add("createCharge", http.MethodPost, "/v1/{merchant_id}/charges", http.StatusOK, s.createCharge).needsClientIP()
	r.add("getCharge", http.MethodGet, "/v1/{merchant_id}/charges/{transaction_id}", http.StatusOK, s.getCharge)
	r.add("updateCharge", http.MethodPut, "/v1/{merchant_id}/charges/{transaction_id}", http.StatusOK, s.updateCharge)
	r.add("captureCharge", http.MethodPost, "/v1/{merchant_id}/charges/{transaction_id}/capture", http.StatusOK, s.captureCharge)
	r.add("refundCharge", http.MethodPost, "/v1/{merchant_id}/charges/{transaction_id}/refund", http.StatusOK, s.refundCharge)
	r.add("cancelCharge", http.MethodPost, "/v1/{merchant_id}/charges/{transaction_id}/cancel", http.StatusOK, s.cancelCharge)
	r.add("listCustomerCharges", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/charges", http.StatusOK, s.listCharges)
	r.add("createCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges", http.StatusOK, s.createCharge).needsClientIP()
	r.add("getCustomerCharge", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}", http.StatusOK, s.getCharge)
	r.add("updateCustomerCharge", http.MethodPut, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}", http.StatusOK, s.updateCharge)
	r.add("captureCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/capture", http.StatusOK, s.captureCharge)
	r.add("refundCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/refund", http.StatusOK, s.refundCharge)
	r.add("cancelCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/cancel", http.StatusOK, s.cancelCharge)
	r.add("createPSECharge", http.MethodPost, "/v1/{merchant_id}/pse", http.StatusOK, s.createCharge).needsClientIP()
	r.add("createCustomerPSECharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/pse", http.StatusOK, s.createCharge).needsClientIP()
	r.add("createGroupMerchantCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/charges", http.StatusOK, s.createCharge).needsClientIP()
	r.add("captureGroupMerchantCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/charges/{transaction_id}/capture", http.StatusOK, s.captureCharge)
	r.add("refundGroupMerchantCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/charges/{transaction_id}/refund", http.StatusOK, s.refundCharge)
	s.onClockAdvance(s.expireCharges, s.nextExpiry)
}

// parseCharge decodes and validates a charge request. The variant is chosen
// by method and the fields that come with it: card with source_id (stored
// card or token), card with a card object (inline data), card with confirm
// false (payment form), card with confirm "ivr", store, bank_account,
// alipay. confirm true is an ordinary card charge (reqbody.ChargeConfirm). The
// merchant's country decides what bank_account means (SPEI in Mexico, PSE
// in Colombia), which methods exist and which currencies (country.go); the
// /pse paths take a PSE charge only. It fills *req, which is zero.
func (s *Server) parseCharge(f reqbody.Fields, customerScope bool, merch *merchant, psePath bool, req *chargeRequest) *Error {
	country := merch.country
	var v reqbody.Checker
	req.capture, req.country = true, country
	if e := f.MemberChargeMethod("method", &req.method); e != nil { // decoded into storage the request has anyway
		return e
	}
	if v.RequiredUnlessGiven(req.method != "", f, "method"); v.Err != nil { // absent or null: decoding left it empty
		return v.Err
	}
	method := string(req.method)
	var customer *openpay.ChargeCustomer // kept at merchant scope once checked
	var extraRequired []string
	confirm := reqbody.ChargeConfirm(f)
	if psePath && method != string(openpay.ChargeMethodBankAccount) {
		return errorf(openpay.ErrInvalidParameter, "The field 'method' must be bank_account on a PSE charge")
	}
	switch {
	case method == string(openpay.ChargeMethodCard) && confirm != reqbody.ConfirmYes:
		switch confirm {
		case reqbody.ConfirmNo:
			var w openpay.RedirectCharge
			if e := f.Into(&w); e != nil {
				return e
			}
			req.kind, req.redirectURL = kindRedirect, w.RedirectURL
			req.amount, req.description, req.orderID, customer, req.currency = w.Amount, w.Description, w.OrderID, w.Customer, w.Currency
			extraRequired = []string{"redirect_url"}
		case reqbody.ConfirmIVR:
			var w openpay.IVRCharge
			if e := f.Into(&w); e != nil {
				return e
			}
			req.kind, req.metadata = kindIVR, w.Metadata
			req.amount, req.description, req.orderID, customer, req.currency = w.Amount, w.Description, w.OrderID, w.Customer, w.Currency
		default:
			return errorf(openpay.ErrInvalidParameter, "The field 'confirm' must be false (payment form), \"ivr\" (phone payment) or true")
		}
		if !customerScope {
			extraRequired = append(extraRequired, "customer")
		}
	case method == string(openpay.ChargeMethodCard) && f.Has("card"):
		var w openpay.InlineCardCharge
		if e := f.ShareStrings().IntoInlineCardCharge(&w); e != nil { // views of the body: newChargeTx copies what a charge keeps
			return e
		}
		data := f.Object("card")
		prof, exp, e := cardrules.Check(data, "card.", w.Card, s.nowOf(merch), s.opts.Production) // checkCardData's rules; nothing kept
		if data == nil {
			e = errorf(openpay.ErrBadRequest, "The field 'card' must be an object")
		}
		if e != nil {
			return e
		}
		req.kind, req.inline, req.number, req.metadata = kindCard, true, w.Card.CardNumber, w.Metadata
		req.inlineCard = card{address: w.Card.Address, prof: prof, exp: exp, holder: w.Card.HolderName}
		req.amount, req.description, req.orderID, customer, req.currency = w.Amount, w.Description, w.OrderID, w.Customer, w.Currency
		if e := s.cardChargeOptions(req, f, w.Capture, w.UseCardPoints, w.Use3DSecure, w.RedirectURL, w.DeviceSessionID, w.PaymentPlan); e != nil {
			return e
		}
	case method == string(openpay.ChargeMethodCard):
		w := &req.card
		if e := f.ShareStrings().IntoCardCharge(w); e != nil {
			return e
		}
		req.kind, req.sourceID, req.cvv2, req.metadata = kindCard, w.SourceID, w.CVV2, w.Metadata
		req.amount, req.description, req.orderID, customer, req.currency = w.Amount, w.Description, w.OrderID, w.Customer, w.Currency
		if v.RequiredUnlessGiven(w.SourceID != "", f, "source_id"); v.Err != nil {
			return v.Err
		}
		v.Identifier("source_id", w.SourceID)
		if f.Has("cvv2") && (!ascii.Digits(w.CVV2) || len(w.CVV2) < 3 || len(w.CVV2) > 4) {
			return errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
		}
		if v.Err != nil {
			return v.Err
		}
		if e := s.cardChargeOptions(req, f, w.Capture, w.UseCardPoints, w.Use3DSecure, w.RedirectURL, w.DeviceSessionID, w.PaymentPlan); e != nil {
			return e
		}
	case method == string(openpay.ChargeMethodStore):
		var w openpay.StoreCharge
		if e := f.IntoAt(&w, country.Zone); e != nil {
			return e
		}
		req.kind, req.dueDate = kindStore, w.DueDate
		req.amount, req.description, req.orderID, customer, req.currency = w.Amount, w.Description, w.OrderID, w.Customer, w.Currency
		if s.opts.Strict && !customerScope {
			extraRequired = []string{"customer"}
		}
	case method == string(openpay.ChargeMethodBankAccount) && country.PSE:
		var w openpay.PSECharge
		if e := f.Into(&w); e != nil {
			return e
		}
		// The SDK's PSECharge has no currency (PSE's is COP, which the SDK
		// writes itself); the wire may carry one, read here (an absent one
		// leaves req.currency as it is).
		if e := f.MemberCurrency("currency", &req.currency); e != nil {
			return e
		}
		req.kind, req.redirectURL = kindPSE, w.RedirectURL
		req.amount, req.description, req.orderID, customer = w.Amount, w.Description, w.OrderID, w.Customer
		extraRequired = []string{"redirect_url"}
	case method == string(openpay.ChargeMethodBankAccount) && f.Has("redirect_url") && country.SPEI:
		// A SPEI body takes no redirect_url (openapi.yaml): this is a PSE
		// charge sent to a country without PSE.
		return errorf(openpay.ErrInvalidParameter,
			"The field 'redirect_url' makes a bank_account charge a PSE charge, which merchants in %s do not have", country.Code)
	case method == string(openpay.ChargeMethodBankAccount):
		var w openpay.BankCharge
		if e := f.IntoAt(&w, country.Zone); e != nil {
			return e
		}
		req.kind, req.dueDate = kindBank, w.DueDate
		req.amount, req.description, req.orderID, customer = w.Amount, w.Description, w.OrderID, w.Customer
	case method == string(openpay.ChargeMethodAlipay):
		var w openpay.AlipayCharge
		if e := f.IntoAt(&w, country.Zone); e != nil {
			return e
		}
		req.kind, req.dueDate, req.redirectURL = kindAlipay, w.DueDate, w.RedirectURL
		req.amount, req.description, req.orderID, customer = w.Amount, w.Description, w.OrderID, w.Customer
		extraRequired = []string{"redirect_url"}
	default:
		return country.MethodError()
	}
	if !offers(country, req.kind) {
		return country.MethodError()
	}
	if req.useCardPoints != "" && req.useCardPoints != "NONE" && !country.Points {
		return errorf(openpay.ErrInvalidParameter, "The field 'use_card_points' must be NONE: cards have no points in %s", country.Code)
	}

	v.RequiredUnlessGiven(!req.amount.IsZero() && req.description != "", f, "amount", "description")
	v.Required(f, extraRequired...)
	if s.opts.Strict {
		v.Required(f, "order_id")
		if req.kind == kindCard && !customerScope {
			v.Required(f, "customer")
		}
	}
	if v.Err != nil {
		return v.Err
	}
	v.Amount("amount", req.amount)
	v.NonEmpty("description", req.description)
	v.MaxLen("description", req.description, 250)
	if req.orderID != "" || f.Has("order_id") { // one given is one present
		v.NonEmpty("order_id", req.orderID)
	}
	v.MaxLen("order_id", req.orderID, 100)
	req.iva = v.IVA(f) // as written (reqbody's readByHandler)
	if f.Has("redirect_url") {
		v.ReturnURL("redirect_url", req.redirectURL)
	}
	if !req.dueDate.IsZero() && !req.dueDate.After(s.nowOf(merch)) {
		v.Failf(openpay.ErrInvalidParameter, "The field 'due_date' must be in the future")
	}
	if v.Err != nil {
		return v.Err
	}
	cur, e := chargeCurrency(country, req.kind, req.currency)
	if e != nil {
		return e
	}
	req.currency = cur
	if !customerScope && customer != nil {
		if e := fieldrules.ChargeCustomer(f.Object("customer"), customer); e != nil {
			return e
		}
		req.customer = customer
	}
	return nil
}

// cardChargeOptions validates the options of a charge to a card (stored,
// token or inline): capture, points, 3-D Secure, device session, payment
// plan.
func (s *Server) cardChargeOptions(req *chargeRequest, f reqbody.Fields, capture *bool, points openpay.UseCardPoints,
	use3DS bool, redirectURL, deviceSessionID string, plan *openpay.PaymentPlan) *Error {
	var v reqbody.Checker
	if capture != nil {
		req.capture = *capture
	}
	switch points {
	case "", "NONE", "ONLY_POINTS", "MIXED":
		req.useCardPoints = points
	default:
		v.Failf(openpay.ErrInvalidParameter, "The field 'use_card_points' must be NONE, ONLY_POINTS or MIXED")
	}
	req.use3DS, req.redirectURL = use3DS, redirectURL
	if use3DS {
		v.Required(f, "redirect_url")
	}
	if s.opts.Strict {
		v.Required(f, "device_session_id")
	}
	v.MaxLen("device_session_id", deviceSessionID, 255)
	if plan != nil {
		if !f.Object("payment_plan").Has("payments") {
			v.Failf(openpay.ErrBadRequest, "The field 'payment_plan.payments' is required")
		}
		if e := req.country.CheckInstalments(plan); e != nil && v.Err == nil {
			v.Err = e
		}
	}
	return v.Err
}

// createCharge creates a charge of any variant at merchant, customer,
// group-merchant or group-merchant-customer scope.
func (s *Server) createCharge(c *call) (any, *Error) {
	f, e := reqbody.ReadOwn(c.r, c.s.maxBody) // its strings may be views (parseCharge)
	if e != nil {
		return nil, e
	}
	var req chargeRequest // on the stack: parsed, charged, then done with
	if e := s.parseCharge(f, c.param("customer_id") != "", c.m, c.route.segs[len(c.route.segs)-1] == "pse", &req); e != nil {
		return nil, e
	}
	m := c.m
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	if cu != nil && cu.deactivated {
		return nil, errorf(openpay.ErrAccountDeactivated, "The customer's account is deactivated")
	}
	if m.status != openpay.MerchantStatusActive {
		return nil, errorf(openpay.ErrAccountDeactivated, "The merchant account is deactivated")
	}
	if e := m.orderIDTaken(req.orderID); e != nil {
		return nil, e
	}
	t, e := s.startCharge(m, c.cards(), cu, &req, s.newChargeTx(m, cu, &req), c.baseURL())
	if e != nil {
		return nil, e
	}
	return c.answerTx(t), nil
}

// scopeCharge returns the charge the path names, or 1005: at merchant
// scope any charge of the merchant, at customer scope only the customer's.
// The caller holds the locks of c.lock.
func (c *call) scopeCharge() (*tx, *Error) {
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	id := c.param("transaction_id")
	t := c.m.txByID(id)
	if t == nil || t.typ() != "charge" || (cu != nil && t.customerID() != cu.id()) {
		return nil, errNotFound("charge", id)
	}
	return t, nil
}

// getCharge answers a charge, with its latest refund nested when refunded.
func (s *Server) getCharge(c *call) (any, *Error) {
	defer c.lock()()
	t, e := c.scopeCharge()
	if e != nil {
		return nil, e
	}
	return c.answerTx(t), nil
}

// listCharges lists the charges of the scope, newest first, with the
// common filters and order_id, amount, amount[gte], amount[lte], status.
func (s *Server) listCharges(c *call) (any, *Error) {
	flt, e := parseTxFilter(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	return flt.list(c, openpay.TransactionTypeCharge, func(t *tx, cu *customer) bool {
		return t.typ() == openpay.TransactionTypeCharge && (cu == nil || t.customerID() == cu.id())
	})
}

// captureCharge charges what a pre-authorization authorized, or part of it.
func (s *Server) captureCharge(c *call) (any, *Error) {
	f, e := readBody(c, true)
	if e != nil {
		return nil, e
	}
	var req openpay.CaptureRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	if f.Has("amount") {
		v.Amount("amount", req.Amount)
	}
	if v.Err != nil {
		return nil, v.Err
	}
	defer c.lock()()
	t, e := c.scopeCharge()
	if e != nil {
		return nil, e
	}
	if !t.preauth {
		return nil, errorf(openpay.ErrInvalidParameter, descFinalStatus)
	}
	if f.Has("amount") {
		if req.Amount.Cmp(t.amount()) > 0 {
			return nil, errorf(openpay.ErrInvalidParameter, "The field 'amount' cannot exceed the authorized amount %s", t.amount())
		}
		c.m.setAmount(t, req.Amount)
	}
	s.completeCharge(c.m, t, s.nowFor(c.m))
	return t.snapshot(), nil
}

// descAlreadyRefunded answers a refund of a charge refunded before.
const descAlreadyRefunded = "The charge has already been refunded"

// refundCharge refunds a card charge in whole or in part, once, or voids a
// pre-authorization.
func (s *Server) refundCharge(c *call) (any, *Error) {
	f, e := readBody(c, true)
	if e != nil {
		return nil, e
	}
	var req openpay.RefundRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	if f.Has("amount") {
		v.Amount("amount", req.Amount)
	}
	v.MaxLen("description", req.Description, 250)
	if v.Err != nil {
		return nil, v.Err
	}
	m := c.m
	defer c.lock()()
	t, e := c.scopeCharge()
	if e != nil {
		return nil, e
	}
	if !t.byCard() {
		return nil, errorf(openpay.ErrInvalidParameter, "Only card charges can be refunded")
	}
	if t.preauth {
		s.cancel(m, t)
		return t.snapshot(), nil
	}
	if t.status() == openpay.TransactionStatusRefunded || t.rare().Refund != nil {
		return nil, errorf(openpay.ErrInvalidParameter, descAlreadyRefunded)
	}
	if t.status() != openpay.TransactionStatusCompleted {
		return nil, errorf(openpay.ErrInvalidParameter, descFinalStatus)
	}
	remaining := t.amount().Sub(t.after().refunded)
	amount := remaining
	if f.Has("amount") {
		if req.Amount.Cmp(remaining) > 0 {
			return nil, errorf(openpay.ErrInvalidParameter, "The field 'amount' cannot exceed the refundable amount %s", remaining)
		}
		amount = req.Amount
	}
	// The refund leaves the balance the charge was credited to. The last
	// refund takes exactly what remains of the credit, so that rounding of
	// USD conversions never leaves a cent behind.
	debit := s.toMXN(t, amount)
	if amount.Cmp(remaining) == 0 || debit.Cmp(t.credited().Sub(t.after().debited)) > 0 {
		debit = t.credited().Sub(t.after().debited)
	}
	acct := m.accountFor(t.customerID())
	if debit.IsPositive() && !acct.debit(debit, false) {
		return nil, insufficientFunds(acct)
	}
	t.after().debited = t.after().debited.Add(debit)
	t.after().refunded = t.after().refunded.Add(amount)
	now := s.nowFor(m)
	desc := req.Description
	if desc == "" {
		desc = "Refund of " + t.id()
	}
	r := s.newDrawnTx(openpay.Transaction{
		Amount: amount, Authorization: t.authorization(), Method: t.method(),
		OperationType: openpay.OperationTypeOut, TransactionType: "refund", Status: openpay.TransactionStatusCompleted,
		Currency: t.currency(), CreationDate: now, OperationDate: now, Description: desc, CustomerID: t.customerID(),
		ExchangeRate: t.rare().ExchangeRate,
	})
	m.addTx(r)
	refund := r.snapshot()
	t.more().Refund = &refund
	m.setStatus(t, openpay.TransactionStatusRefunded)
	t.setOperated(now)
	s.emit(m, openpay.EventTypeChargeRefunded, t)
	return t.snapshot(), nil
}

// cancelCharge cancels a charge still waiting for the payer, or a
// pre-authorization.
func (s *Server) cancelCharge(c *call) (any, *Error) {
	defer c.lock()()
	t, e := c.scopeCharge()
	if e != nil {
		return nil, e
	}
	if !t.pending() {
		return nil, errorf(openpay.ErrInvalidParameter, descFinalStatus)
	}
	s.cancel(c.m, t)
	return t.snapshot(), nil
}

// expireCharges cancels the merchant's pending charges whose due date has
// passed, on every clock advance.
func (s *Server) expireCharges(m *merchant, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.txList {
		s.lapse(m, t, now)
	}
}

// nextExpiry is when the merchant's next pending charge expires: the first
// second after its due date (the server's time has whole seconds).
func (s *Server) nextExpiry(m *merchant) (next time.Time, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.txList {
		if at := t.rare().DueDate.Truncate(time.Second).Add(time.Second); t.expiring() && (!ok || at.Before(next)) {
			next, ok = at, true
		}
	}
	return next, ok
}

// updateCharge changes the description or the order_id of a charge, the
// two members the Java SDK's update sends; only those sent change. The
// gateway's rules are not published; the server's: any status, the limits
// of charge creation (description at most 250 characters, order_id not
// empty and at most 100), and a new order_id unused among the merchant's
// transactions (1006), the old one released. The merchant path finds a
// customer's charge too, as for every charge operation.
func (s *Server) updateCharge(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.ChargeUpdateRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	v.MaxLen("description", req.Description, 250)
	if f.Has("order_id") {
		v.NonEmpty("order_id", req.OrderID)
	}
	v.MaxLen("order_id", req.OrderID, 100)
	if v.Err != nil {
		return nil, v.Err
	}
	m := c.m
	defer c.lock()()
	t, e := c.scopeCharge()
	if e != nil {
		return nil, e
	}
	if f.Has("order_id") && req.OrderID != t.orderID() {
		if e := m.orderIDTaken(req.OrderID); e != nil {
			return nil, e
		}
		if t.orderID() != "" {
			m.orderIDs.Remove(m.txList, t.orderID())
		}
		t.setText(fieldOrderID, req.OrderID)
		m.orderIDs.Put(m.txList, req.OrderID, t.seq)
	}
	if f.Has("description") {
		t.setText(fieldDescription, req.Description)
	}
	m.markTx(t)
	return t.snapshot(), nil
}
