package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
)

// Simulation controls move what only the outside world moves: a payer
// paying at a store or by bank transfer, completing or abandoning a
// redirect, 3-D Secure, wallet or phone payment, a chargeback, the clock.
// They are Go methods of Server and, for programs that run the server as a
// process, POST endpoints under /_simulate/, apart from the gateway's API
// and authenticated with a merchant's private key:
//
//	POST /_simulate/{merchant_id}/charges/{transaction_id}/pay                 store, bank or PSE charge paid
//	POST /_simulate/{merchant_id}/charges/{transaction_id}/complete            redirect, 3-D Secure, Alipay or IVR charge completed by the payer
//	POST /_simulate/{merchant_id}/charges/{transaction_id}/fail                a pending charge ends unpaid: a card or PSE one failed (body {"error_code": 3001}, optional, any 3xxx, cards only), cash or a transfer cancelled
//	POST /_simulate/{merchant_id}/charges/{transaction_id}/chargeback          chargeback opened on a completed card charge
//	POST /_simulate/{merchant_id}/charges/{transaction_id}/chargeback/resolve  body {"accepted": true|false}
//	POST /_simulate/{merchant_id}/clock/advance                                body {"seconds": n}; the merchant's clock moves on (a clock of its own from then on, clock.go)
//	POST /_simulate/{merchant_id}/clock/set                                    body {"now": "<RFC 3339 time>"}; the merchant's clock is put there
//	GET  /_simulate/{merchant_id}/clock                                        {"now": "<time>", "follows_server": true|false}
//	POST /_simulate/clock/advance                                              body {"seconds": n}; a merchant's key: that merchant's clock; the admin key: the server's
//
// Charge controls answer the charge; the clock controls {"now": "<time>"}.
// The server-wide controls (reset, faults, health) are in reset.go.
// Other resources register theirs (payouts, bank receipts) in their files
// with routeTable.simulate, and clock-driven work (subscriptions) with
// onClockAdvance.

// registerSimulation registers the simulation controls of charges and the
// clock.
func (s *Server) registerSimulation(r *routeTable) {
	chargeOp := func(op func(merchantID, chargeID string) (openpay.Transaction, error)) handlerFunc {
		return func(c *call) (any, *Error) {
			t, err := op(c.m.id, c.param("transaction_id"))
			if err != nil {
				return nil, err.(*Error)
			}
			return t, nil
		}
	}
	r.simulate("payCharge", "/_simulate/{merchant_id}/charges/{transaction_id}/pay", chargeOp(s.PayCharge))
	r.simulate("completeCharge", "/_simulate/{merchant_id}/charges/{transaction_id}/complete", chargeOp(s.CompleteCharge))
	r.simulate("openChargeback", "/_simulate/{merchant_id}/charges/{transaction_id}/chargeback", chargeOp(s.OpenChargeback))
	r.simulate("failCharge", "/_simulate/{merchant_id}/charges/{transaction_id}/fail", func(c *call) (any, *Error) {
		f, e := readBody(c, true)
		if e != nil {
			return nil, e
		}
		var body struct {
			ErrorCode int `json:"error_code"`
		}
		if e := f.Into(&body); e != nil {
			return nil, e
		}
		t, err := s.FailCharge(c.m.id, c.param("transaction_id"), openpay.Code(body.ErrorCode))
		if err != nil {
			return nil, err.(*Error)
		}
		return t, nil
	})
	r.simulate("resolveChargeback", "/_simulate/{merchant_id}/charges/{transaction_id}/chargeback/resolve", func(c *call) (any, *Error) {
		f, e := readBody(c, false)
		if e != nil {
			return nil, e
		}
		var body struct {
			Accepted bool `json:"accepted"`
		}
		if e := f.Into(&body); e != nil {
			return nil, e
		}
		if !f.Has("accepted") {
			return nil, errorf(openpay.ErrBadRequest, "The field 'accepted' is required")
		}
		t, err := s.ResolveChargeback(c.m.id, c.param("transaction_id"), body.Accepted)
		if err != nil {
			return nil, err.(*Error)
		}
		return t, nil
	})
	r.simulate("advanceClock", "/_simulate/{merchant_id}/clock/advance", func(c *call) (any, *Error) {
		d, e := readAdvance(c)
		if e != nil {
			return nil, e
		}
		return clockAnswer(s.AdvanceMerchantClock(c.m.id, d))
	})
	// The clock of the key's owner: a merchant's key moves that merchant's
	// clock, the admin key the server's (as /_simulate/reset, reset.go).
	r.control("advanceOwnersClock", http.MethodPost, "/_simulate/clock/advance", http.StatusOK, func(c *call) (any, *Error) {
		d, e := readAdvance(c)
		if e != nil {
			return nil, e
		}
		if owner := c.controlOwner(); owner != "" {
			return clockAnswer(s.AdvanceMerchantClock(owner, d))
		}
		return clockAnswer(s.AdvanceClock(d))
	}).access = accessAnyMerchant
	r.simulate("setClock", "/_simulate/{merchant_id}/clock/set", func(c *call) (any, *Error) {
		f, e := readBody(c, false)
		if e != nil {
			return nil, e
		}
		var body struct {
			Now time.Time `json:"now"`
		}
		if e := f.Into(&body); e != nil {
			return nil, e
		}
		if !f.Has("now") {
			return nil, errorf(openpay.ErrBadRequest, "The field 'now' is required")
		}
		if gap := body.Now.Sub(s.nowOf(c.m)).Abs(); gap > maxClockMove {
			return nil, errorf(openpay.ErrInvalidParameter, "The field 'now' must be within ten years of the merchant's clock")
		}
		return clockAnswer(s.SetMerchantClock(c.m.id, body.Now))
	})
	r.control("getClock", http.MethodGet, "/_simulate/{merchant_id}/clock", http.StatusOK, func(c *call) (any, *Error) {
		now, own, err := s.MerchantClock(c.m.id)
		if err != nil {
			return nil, err.(*Error)
		}
		return map[string]any{"now": now, "follows_server": !own}, nil
	})
}

// readAdvance reads the body of a clock's advance: {"seconds": n}, from
// one second to ten years.
func readAdvance(c *call) (time.Duration, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return 0, e
	}
	var body struct {
		Seconds int64 `json:"seconds"`
	}
	if e := f.Into(&body); e != nil {
		return 0, e
	}
	if !f.Has("seconds") {
		return 0, errorf(openpay.ErrBadRequest, "The field 'seconds' is required")
	}
	if body.Seconds <= 0 || body.Seconds > int64(maxClockMove/time.Second) {
		return 0, errorf(openpay.ErrInvalidParameter, "The field 'seconds' must be from 1 to ten years")
	}
	return time.Duration(body.Seconds) * time.Second, nil
}

// maxClockMove bounds one move of a clock over HTTP: ten years, so that a
// request's walk over the work due on the way stays bounded.
const maxClockMove = 10 * 366 * 24 * time.Hour

// clockAnswer is the answer of a clock control: {"now": "<time>"}, the
// merchant's time after it.
func clockAnswer(now time.Time, err error) (any, *Error) {
	if err != nil {
		return nil, err.(*Error)
	}
	return map[string]time.Time{"now": now}, nil
}

// AdvanceClock moves the server's clock forward by d and runs what time
// moves: pending charges past their due date are cancelled, and the work
// other resources registered (subscription charges and their retries)
// runs. The clock does not jump: it stops at every instant on the way at
// which some work falls due, in order, and runs the work there, so that
// what the server does on its own carries the time it was due
// (creation_date, operation_date, the event's date), not the time at the
// end of the jump. A jump over three monthly charge days makes three
// charges dated on their three days. It needs a server built with a
// [*FakeClock] (1003 otherwise). It moves the merchants that follow the
// server's clock and runs their work; a merchant with a clock of its own
// (AdvanceMerchantClock, SetMerchantClock, clock.go) stays where it is.
// It returns the new time.
func (s *Server) AdvanceClock(d time.Duration) (_ time.Time, err error) {
	defer s.durable(&err)()
	fc, e := s.fakeClock()
	if e != nil {
		return time.Time{}, e
	}
	if d <= 0 {
		return time.Time{}, errorf(openpay.ErrInvalidParameter, "The clock only moves forward")
	}
	s.advanceMu.Lock()
	defer s.advanceMu.Unlock()
	return s.walkClock(fc, fc.Now().Add(d), s.followersOfServerClock, fc.Set), nil
}

// PayCharge simulates the payer paying a store or bank-transfer charge that
// is in_progress, or a PSE charge waiting for the payer's bank: the charge
// completes and its amount is credited.
func (s *Server) PayCharge(merchantID, chargeID string) (openpay.Transaction, error) {
	return s.withCharge(merchantID, chargeID, func(m *merchant, t *tx) *Error {
		if s.lapse(m, t, s.nowOf(m)) {
			return errLapsed(m, t)
		}
		if t.kind == kindPSE && t.status() == openpay.TransactionStatusChargePending {
			t.conciliated = true
			s.completeCharge(m, t, s.nowFor(m))
			return nil
		}
		if (t.kind != kindStore && t.kind != kindBank) || t.status() != openpay.TransactionStatusInProgress {
			return errorf(openpay.ErrInvalidParameter, "Only a store or bank charge in progress, or a PSE charge pending, can be paid")
		}
		s.completeCharge(m, t, s.nowFor(m))
		return nil
	})
}

// CompleteCharge simulates the payer completing a charge_pending charge
// (payment form, 3-D Secure, Alipay, IVR): the charge completes and is
// credited, or, for a 3-D Secure charge made with capture false, becomes a
// pre-authorization (in_progress). An IVR charge counts the payer's call in
// payment_method.attempts.
func (s *Server) CompleteCharge(merchantID, chargeID string) (openpay.Transaction, error) {
	return s.withCharge(merchantID, chargeID, func(m *merchant, t *tx) *Error {
		if s.lapse(m, t, s.nowOf(m)) {
			return errLapsed(m, t)
		}
		if t.status() != openpay.TransactionStatusChargePending {
			return errorf(openpay.ErrInvalidParameter, "Only a charge_pending charge can be completed")
		}
		if t.method() == openpay.TransactionMethodCard && t.kind == kindCard && !t.captureOnCompletion {
			t.preauth = true
			m.setStatus(t, openpay.TransactionStatusInProgress)
			t.setText(fieldAuthorization, s.ids.AuthorizationNumber())
			t.setOperated(s.nowFor(m))
			return nil
		}
		if t.rare().PaymentMethod != nil && t.rare().PaymentMethod.Type != "" {
			t.conciliated = t.kind != kindCard
		}
		t.countPhoneAttempt()
		s.completeCharge(m, t, s.nowFor(m))
		return nil
	})
}

// countPhoneAttempt counts, on an IVR charge, the payer's call that
// completes or fails it in payment_method.attempts (0 until the payer
// calls). The payment method is replaced, not changed in place: earlier
// snapshots (events) share it. The caller holds m.mu.
func (t *tx) countPhoneAttempt() {
	if t.kind != kindIVR || t.rare().PaymentMethod == nil {
		return
	}
	pm := *t.rare().PaymentMethod
	pm.Attempts++
	t.more().PaymentMethod = &pm
}

// FailCharge simulates a charge waiting for its payer ending unpaid, as
// the gateway would end it:
//
//   - a card charge (3-D Secure, the card form, IVR) and an Alipay one
//     fail with the decline of code, a card error code 3001-3012 (0 means
//     3001);
//   - a PSE charge fails: the payer's bank rejected it;
//   - cash at a store and a bank transfer are never declined: the payer
//     just does not pay, so the charge is cancelled, as when its due date
//     passes, with its own words (unpaidStoreMessage, unpaidBankMessage).
//
// A code is refused (1003) for cash and transfers, which have no decline,
// and ignored for PSE (the bank's words are always the same). An IVR
// charge counts the payer's call in payment_method.attempts.
func (s *Server) FailCharge(merchantID, chargeID string, code openpay.Code) (openpay.Transaction, error) {
	sent := code != 0
	if code == 0 {
		code = openpay.ErrCardDeclined
	}
	if code < 3001 || code > 3012 || !code.Documented() {
		return openpay.Transaction{}, errorf(openpay.ErrInvalidParameter, "The field 'error_code' must be a card error code from 3001 to 3012")
	}
	return s.withCharge(merchantID, chargeID, func(m *merchant, t *tx) *Error {
		if s.lapse(m, t, s.nowOf(m)) {
			return errLapsed(m, t)
		}
		if !t.pending() || t.preauth {
			return errorf(openpay.ErrInvalidParameter, "Only a charge waiting for the payer can fail")
		}
		if sent && (t.kind == kindStore || t.kind == kindBank) {
			return errorf(openpay.ErrInvalidParameter, "The field 'error_code' is a card's decline; a %s charge has none", t.method())
		}
		message := declineMessage(code)
		switch t.kind {
		case kindStore, kindBank:
			t.more().ErrorMessage = unpaidStoreMessage
			if t.kind == kindBank {
				t.more().ErrorMessage = unpaidBankMessage
			}
			s.cancel(m, t)
			return nil
		case kindPSE:
			message = pseRejectedMessage
		}
		t.countPhoneAttempt()
		failTx(m, t, code, message)
		t.setOperated(s.nowFor(m))
		s.emit(m, openpay.EventTypeChargeFailed, t)
		return nil
	})
}

// The error_message of charges the fail control ends without a card's
// decline.
const (
	unpaidStoreMessage = "The payer did not pay at the store"
	unpaidBankMessage  = "The payer did not make the bank transfer"
	pseRejectedMessage = "The bank rejected the payment"
)

// OpenChargeback simulates the card holder's bank disputing a completed
// (or partly refunded) card charge: chargeback_pending, and what the
// charge still holds in the balance leaves it at once (this is the one
// movement that may take a balance below zero, as a card network's
// would). A chargeback is a card network's: cash paid at a store, a bank
// transfer, PSE and Alipay have none, and are refused (1003), as their
// refund is.
func (s *Server) OpenChargeback(merchantID, chargeID string) (openpay.Transaction, error) {
	return s.withCharge(merchantID, chargeID, func(m *merchant, t *tx) *Error {
		if !t.byCard() {
			return errorf(openpay.ErrInvalidParameter, "Only card charges can be disputed: a %s charge has no chargeback", t.method())
		}
		if t.after().chargeback != "" || (t.status() != openpay.TransactionStatusCompleted && t.status() != openpay.TransactionStatusRefunded) ||
			!t.amount().Sub(t.after().refunded).IsPositive() {
			return errorf(openpay.ErrInvalidParameter, "Only a completed charge with an amount not refunded can be disputed")
		}
		held := t.credited().Sub(t.after().debited)
		if held.IsPositive() {
			m.accountFor(t.customerID()).debit(held, true)
			t.after().debited = t.after().debited.Add(held)
			t.after().chargebackHeld = held
		}
		t.after().chargeback = string(t.status())
		m.setStatus(t, openpay.TransactionStatusChargebackPending)
		t.setOperated(s.nowFor(m))
		s.emit(m, openpay.EventTypeChargebackCreated, t)
		return nil
	})
}

// ResolveChargeback settles an open chargeback: accepted leaves the charge
// chargeback_accepted (the money stays with the payer); rejected returns the
// charge to its previous status and the money to the balance.
func (s *Server) ResolveChargeback(merchantID, chargeID string, accepted bool) (openpay.Transaction, error) {
	return s.withCharge(merchantID, chargeID, func(m *merchant, t *tx) *Error {
		if t.status() != openpay.TransactionStatusChargebackPending {
			return errorf(openpay.ErrInvalidParameter, "The charge has no open chargeback")
		}
		t.setOperated(s.nowFor(m))
		if accepted {
			m.setStatus(t, openpay.TransactionStatusChargebackAccepted)
			s.emit(m, openpay.EventTypeChargebackAccepted, t)
			return nil
		}
		if t.after().chargebackHeld.IsPositive() {
			m.accountFor(t.customerID()).credit(t.after().chargebackHeld)
			t.after().debited = t.after().debited.Sub(t.after().chargebackHeld)
			t.after().chargebackHeld = openpay.Amount{}
		}
		m.setStatus(t, openpay.TransactionStatus(t.after().chargeback))
		t.after().chargeback = ""
		s.emit(m, openpay.EventTypeChargebackRejected, t)
		return nil
	})
}
