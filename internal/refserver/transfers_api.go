package refserver

import (
	"net/http"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/cents"
	"github.com/openpay-go/openpay/internal/refserver/compact"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Transfers between two customers with an account
// (/customers/{customer_id}/transfers): the customer of the path pays, the
// customer named by customer_id receives.
//
// Rules: customer_id, amount and description required (1001); amount more
// than one peso with two decimals at most (1003); description at most 250
// characters; order_id at most 100 and unique among all the merchant's
// transactions (1006). The receiving customer must exist (1005) and differ
// from the paying one (1003); both need an account (1003); a deactivated
// account answers 1008; a paying balance short of the amount 4001.
//
// A transfer is one step under the merchant's lock: the amount leaves the paying balance
// and enters the receiving one, and two transactions are stored, completed, with the same
// id, as the gateway's list example shows them: the out transaction on the paying customer
// (it carries the order_id, and is the answer, with the paying customer's store reference
// and CLABE as the gateway's create example carries them) and the in transaction on the
// receiving customer. Reading the id at a customer's scope answers that customer's side;
// the list of a customer shows both directions of its transfers. One transfer.succeeded
// event carries the out transaction.

// registerTransfers registers transfers between two customers.
func (s *Server) registerTransfers(r *routeTable) {
	r.add("listTransfers", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/transfers", http.StatusOK, s.listTransfers)
	r.add("createTransfer", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/transfers", http.StatusOK, s.createTransfer)
	r.add("getTransfer", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/transfers/{transaction_id}", http.StatusOK, s.getTransfer)
}

// onePeso is the amount a transfer must exceed.
var onePeso = openpay.MustAmount("1.00")

// createTransfer moves funds from the customer of the path to another.
func (s *Server) createTransfer(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.TransferRequest
	if e := f.IntoTransferRequest(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	v.RequiredUnlessGiven(req.CustomerID != "", f, "customer_id")
	v.Identifier("customer_id", req.CustomerID)
	fieldrules.Money(&v, f, req.Amount, req.Description, req.OrderID)
	if v.Err == nil && req.Amount.Cmp(onePeso) <= 0 {
		v.Failf(openpay.ErrInvalidParameter, "The field 'amount' must be greater than 1.00")
	}
	if v.Err != nil {
		return nil, v.Err
	}
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	from, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	to := m.customers.get(req.CustomerID)
	if to == nil {
		return nil, errNotFound("customer", req.CustomerID)
	}
	if to == from {
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'customer_id' must name a customer other than the one paying")
	}
	if e := checkActive(m, from, to); e != nil {
		return nil, e
	}
	if !from.hasAccount() {
		return nil, errNoAccount("", from.id())
	}
	if !to.hasAccount() {
		return nil, errNoAccount("customer_id", to.id())
	}
	if e := m.orderIDTaken(req.OrderID); e != nil {
		return nil, e
	}
	if !cents.Move(&from.balance, &to.balance, req.Amount) {
		return nil, insufficientFunds(from)
	}
	m.customers.mark(from.id())
	m.customers.mark(to.id())
	// The in side, stored right before the out side (getTransfer finds it there), which alone holds
	// the id's index entry (addTx skips an in side's) and the order_id; one allocation for both.
	sides := new([2]tx)
	out, in := s.newMoneyTx(&sides[1], m, openpay.TransactionTypeTransfer, openpay.TransactionMethodCustomer, openpay.OperationTypeOut,
		req.Amount, req.Description, req.OrderID, from.id()), &sides[0]
	out.putStatus(openpay.TransactionStatusCompleted) // not stored yet: in no status list (setStatus)
	*in = out.frozen()
	in.text = txTexts.Make(&[compact.TextFields]string{out.id(), "", out.description(), to.id()})
	in.setOpType(openpay.OperationTypeIn)
	m.addTx(in)
	m.addTx(out)
	s.emitDated(m, openpay.EventTypeTransferSucceeded, out, compact.DateOf(out.createdNs, out.createdZone))
	answer := c.answerTx(out)
	c.store = openpay.StoreReference{Reference: from.storeRef, BarcodeURL: from.barcodeAt(c.baseURL())}
	answer.Store, answer.CLABE = &c.store, from.clabe
	return answer, nil
}

// getTransfer answers the side of a transfer that belongs to the customer
// of the path.
func (s *Server) getTransfer(c *call) (any, *Error) {
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	id := c.param("transaction_id")
	t := m.txByID(id) // the out side, stored right after the in side
	if t != nil && t.typ() == openpay.TransactionTypeTransfer && t.customerID() != cu.id() && t.seq > 1 {
		t = m.tx(t.seq - 1)
	}
	if t == nil || t.typ() != openpay.TransactionTypeTransfer || t.id() != id || t.customerID() != cu.id() {
		return nil, errNotFound("transfer", id)
	}
	return t.snapshot(), nil
}

// listTransfers lists the transfers in and out of the customer's balance,
// newest first.
func (s *Server) listTransfers(c *call) (any, *Error) {
	flt, e := parseTxFilter(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	return flt.list(c, openpay.TransactionTypeTransfer, func(t *tx, cu *customer) bool {
		return t.typ() == openpay.TransactionTypeTransfer && cu != nil && t.customerID() == cu.id()
	})
}
