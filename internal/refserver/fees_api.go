package refserver

import (
	"net/http"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Fees: the merchant charges a customer with an account
// (/v1/{merchant_id}/fees); the amount moves from the customer's balance to
// the merchant's.
//
// Rules: customer_id, amount and description required (1001); customer_id
// at most 45 characters, amount greater than zero with two decimals at
// most, description at most 250, order_id at most 100 (1003) and unique
// among all the merchant's transactions (1006). The customer must exist
// (1005) and have an account (1003); a deactivated account answers 1008; a
// customer balance short of the amount 4001.
//
// The fee is a completed transaction of type fee, method customer,
// operation out, on the customer (fee.succeeded). A refund
// (POST /fees/{fee_id}/refund, optional body {"description"}) returns the
// whole amount from the merchant's balance to the customer's, once: the
// answer is the refund, a completed transaction of type refund, method
// customer, operation in, on the customer (fee.refund.succeeded), and the
// fee becomes refunded with the refund nested, as a refunded charge does. A
// second refund answers 1003; a merchant balance short of the amount 4001;
// a deleted or deactivated customer 1008. Reads and lists answer fees (the
// refund is read through its fee); lists take the common filters and
// order_id, amount, amount[gte], amount[lte] and status.

// registerFees registers fees charged from a customer's balance to the
// merchant, and their refunds.
func (s *Server) registerFees(r *routeTable) {
	r.add("listFees", http.MethodGet, "/v1/{merchant_id}/fees", http.StatusOK, s.listFees)
	r.add("createFee", http.MethodPost, "/v1/{merchant_id}/fees", http.StatusOK, s.createFee)
	r.add("getFee", http.MethodGet, "/v1/{merchant_id}/fees/{fee_id}", http.StatusOK, s.getFee)
	r.add("refundFee", http.MethodPost, "/v1/{merchant_id}/fees/{fee_id}/refund", http.StatusOK, s.refundFee)
}

// createFee charges a fee to a customer's balance.
func (s *Server) createFee(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.FeeRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	v.Required(f, "customer_id")
	v.Identifier("customer_id", req.CustomerID)
	fieldrules.Money(&v, f, req.Amount, req.Description, req.OrderID)
	if v.Err != nil {
		return nil, v.Err
	}
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	cu := m.customers.get(req.CustomerID)
	if cu == nil {
		return nil, errNotFound("customer", req.CustomerID)
	}
	if e := checkActive(m, cu); e != nil {
		return nil, e
	}
	if !cu.hasAccount() {
		return nil, errNoAccount("customer_id", cu.id())
	}
	if e := m.orderIDTaken(req.OrderID); e != nil {
		return nil, e
	}
	if !cu.debit(req.Amount, false) {
		return nil, insufficientFunds(cu)
	}
	m.customers.mark(cu.id())
	m.credit(req.Amount)
	t := s.newMoneyTx(new(tx), m, openpay.TransactionTypeFee, openpay.TransactionMethodCustomer, openpay.OperationTypeOut,
		req.Amount, req.Description, req.OrderID, cu.id())
	t.setCurrency(m.country.Currency)
	m.setStatus(t, openpay.TransactionStatusCompleted)
	m.addTx(t)
	s.emit(m, openpay.EventTypeFeeSucceeded, t)
	return t.snapshot(), nil
}

// scopeFee returns the fee the path names, or 1005. The caller holds
// c.m.mu.
func (c *call) scopeFee() (*tx, *Error) {
	id := c.param("fee_id")
	t := c.m.txByID(id)
	if t == nil || t.typ() != openpay.TransactionTypeFee {
		return nil, errNotFound("fee", id)
	}
	return t, nil
}

// getFee answers a fee.
func (s *Server) getFee(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	t, e := c.scopeFee()
	if e != nil {
		return nil, e
	}
	return t.snapshot(), nil
}

// refundFee returns a fee to the customer's balance.
func (s *Server) refundFee(c *call) (any, *Error) {
	f, e := readBody(c, true)
	if e != nil {
		return nil, e
	}
	var req openpay.FeeRefundRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	v.MaxLen("description", req.Description, 250)
	if v.Err != nil {
		return nil, v.Err
	}
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	fee, e := c.scopeFee()
	if e != nil {
		return nil, e
	}
	if fee.status() != openpay.TransactionStatusCompleted {
		return nil, errorf(openpay.ErrInvalidParameter, "The fee has already been refunded")
	}
	cu := m.customers.lookup(fee.customerID())
	if cu == nil {
		return nil, errorf(openpay.ErrAccountDeactivated, descCustomerDeactivated)
	}
	if e := checkActive(m, cu); e != nil {
		return nil, e
	}
	if !m.debit(fee.amount(), false) {
		return nil, insufficientFunds(m)
	}
	cu.credit(fee.amount())
	m.customers.mark(cu.id())
	desc := req.Description
	if desc == "" {
		desc = "Refund of fee " + fee.id()
	}
	r := s.newMoneyTx(new(tx), m, openpay.TransactionTypeRefund, openpay.TransactionMethodCustomer, openpay.OperationTypeIn,
		fee.amount(), desc, "", cu.id())
	r.setCurrency(fee.currency())
	m.setStatus(r, openpay.TransactionStatusCompleted)
	r.conciliated = true
	m.addTx(r)
	refund := r.snapshot()
	fee.more().Refund = &refund
	m.setStatus(fee, openpay.TransactionStatusRefunded)
	fee.setOperated(r.operated())
	s.emit(m, openpay.EventTypeFeeRefundSucceeded, r)
	return r.snapshot(), nil
}

// listFees lists the merchant's fees, newest first.
func (s *Server) listFees(c *call) (any, *Error) {
	flt, e := parseTxFilter(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	return flt.list(c, openpay.TransactionTypeFee, func(t *tx, _ *customer) bool {
		return t.typ() == openpay.TransactionTypeFee
	})
}
