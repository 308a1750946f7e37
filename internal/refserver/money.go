package refserver

import (
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/refserver/seqindex"
)

// Money movement between balances: payouts (payouts_api.go), transfers
// (transfers_api.go), fees (fees_api.go) and the simulation controls that
// settle payouts and bring bank transfers in (money_sim.go). This file holds
// what they share.
//
// Balances. The merchant account has one; a customer created with
// requires_account has its own. Every movement happens in one critical
// section under the merchant's lock, checks and changes together, so money
// is conserved under any interleaving of requests: at every moment the sum
// of the merchant's balance, the customers' balances and the payouts still
// in_progress (whose money has left a balance but not the gateway) only
// changes by what enters from outside (charges, bank receipts) or leaves for
// good (settled payouts, refunds and chargebacks of charges). No operation of
// these files takes a balance below zero: each debit is refused first.
//
// Which balance a movement uses:
//
//   - a payout at merchant scope: the merchant's; at customer scope the
//     customer's when it has an account, else the merchant's (the customer
//     is then only a record of the merchant, as with its charges);
//   - a transfer: from the customer in the path to the customer named in the
//     body, both with an account (1003 otherwise);
//   - a fee: from the customer (which must have an account, 1003) to the
//     merchant; its refund the other way.
//
// Errors the gateway leaves unstated, chosen here:
//
//   - a balance that cannot pay: 4001 (HTTP 412), the one funds code the
//     interface documents, for the merchant account and for a customer's
//     balance alike; the description says which ([insufficientFunds]);
//   - a deactivated account: 1008 (HTTP 423) when the merchant's status is
//     not active or the customer is deactivated, for every operation that
//     moves money (payout create and cancel, transfer, fee, fee refund, a
//     bank transfer received);
//   - a request that the state of a resource refuses (a payout no longer
//     in_progress, a fee refunded already, a customer without an account
//     asked to hold money): 1003 (HTTP 422), as charges answer a capture of
//     a charge in a final status.

// Descriptions shared by the money files.
const (
	descMerchantDeactivated = "The merchant account is deactivated"
	descCustomerDeactivated = "The customer's account is deactivated"
)

// checkActive returns the 1008 error when the merchant or one of the
// customers cannot move money. The caller holds m.mu.
func checkActive(m *merchant, customers ...*customer) *Error {
	if m.status != openpay.MerchantStatusActive {
		return errorf(openpay.ErrAccountDeactivated, descMerchantDeactivated)
	}
	for _, cu := range customers {
		if cu != nil && (cu.deactivated || cu.deleted) {
			return errorf(openpay.ErrAccountDeactivated, descCustomerDeactivated)
		}
	}
	return nil
}

// errNoAccount is the answer when a customer without a balance of its own
// is asked to hold money. field names the member of the request, or "" for
// the customer of the path.
func errNoAccount(field, customerID string) *Error {
	if field == "" {
		return errorf(openpay.ErrInvalidParameter,
			"The customer '%s' has no account (it was created without requires_account)", truncateForMessage(customerID))
	}
	return errorf(openpay.ErrInvalidParameter,
		"The field '%s' names the customer '%s', which has no account (it was created without requires_account)",
		field, truncateForMessage(customerID))
}

// newMoneyTx starts in t, a zero record, a transaction of the merchant's of the given
// type and method, at the current time, in MXN (balances are kept in MXN), and returns t.
func (s *Server) newMoneyTx(t *tx, m *merchant, typ openpay.TransactionType, method openpay.TransactionMethod, op openpay.OperationType,
	amount openpay.Amount, description, orderID, customerID string) *tx {
	t.typeC, t.currencyC, t.opTypeC = txTypes.Code(string(typ)), txCurrencies.Code(string(openpay.CurrencyMXN)), txOpTypes.Code(string(op))
	s.startTx(t, s.nowFor(m), orderID, description, customerID)
	t.putAmount(amount)
	t.setMethod(method) // a payout's may be one the table does not know yet
	return t
}

// txFilter holds the filters of a transaction list: the common ones, and
// order_id, amount, amount[gte], amount[lte] and status as the charge list
// takes them.
type txFilter struct {
	p       listquery.Params
	amount  listquery.AmountBounds
	status  openpay.TransactionStatus
	orderID string
}

// parseTxFilter reads the filters of a transaction list (1003 naming a bad
// parameter); dates are days in zone, the merchant's.
func parseTxFilter(q url.Values, zone *time.Location) (txFilter, *Error) {
	var f txFilter
	var e *Error
	if f.p, e = listquery.Parse(q, zone); e != nil {
		return f, e
	}
	if f.amount, e = listquery.Amounts(q); e != nil {
		return f, e
	}
	if f.status, e = listquery.Status(q); e != nil {
		return f, e
	}
	f.orderID = q.Get("order_id")
	return f, nil
}

// listChunk is how many transactions a list examines per hold of the
// merchant's lock: a list that has many to look at lets writers in
// between chunks, so that no list holds the lock for a time that grows
// with the store.
const listChunk = 256

// list pages the transactions of type typ at the path's scope (the
// merchant's, or those of the path's customer) that keep accepts and that
// pass the filters, newest first. It takes the locks of c.lock itself.
//
// Its cost does not grow with the store where an index answers: order_id
// through m.orderIDs, status through m.txStatus, the scope and type through
// m.txIndex, dates by binary search over creation order, offset by
// arithmetic when nothing is left to check record by record. What remains
// (amounts; a status at a customer's scope; dates after the clock was set
// back) is checked walking the candidates newest first, which stops at the
// page's end: its cost is the page over the share of candidates that
// match. An amount filter skips, by binary search, the blocks of records
// whose amounts m.amounts shows cannot match. That walk holds the lock listChunk records at a time, and after
// taking it again finds its place by seq, since the status lists may have
// changed meanwhile; records stored after the list began are left out.
func (f txFilter) list(c *call, typ openpay.TransactionType, keep func(t *tx, cu *customer) bool) ([]openpay.Transaction, *Error) {
	unlock := c.lock()
	cu, e := c.scopeCustomer()
	if e != nil {
		unlock()
		return nil, e
	}
	m := c.m
	checkDates := m.clockBack && f.p.Dated()
	// candidates returns the smallest list the indexes give, and whether
	// every record in it belongs to the list.
	candidates := func() (seqindex.List, bool) {
		switch {
		case f.orderID != "":
			if t := m.txByOrderID(f.orderID); t != nil {
				return seqindex.List{t.seq}, false
			}
			return nil, true
		case f.status != "" && cu == nil:
			return m.txStatus.Get(txKey{typ: typ, status: f.status}), true
		case cu != nil:
			return m.txIndex.Get(txKey{typ: typ, customer: cu.id()}), f.status == ""
		}
		return m.txIndex.Get(txKey{typ: typ}), true
	}
	bounds := func(recs seqindex.List) (lo, hi int) {
		if checkDates {
			return 0, len(recs)
		}
		return listquery.DateRange(f.p, recs, func(seq uint32) time.Time { return m.tx(seq).created() })
	}
	recs, indexed := candidates()
	lo, hi := bounds(recs)
	out := make([]openpay.Transaction, 0, min(f.p.Limit, hi-lo))
	if indexed && !checkDates && !f.amount.Set() {
		for i := hi - 1 - f.p.Offset; i >= lo && len(out) < f.p.Limit; i-- {
			out = append(out, m.tx(recs[i]).snapshot())
		}
		unlock()
		return out, nil
	}
	last := m.txSeq + 1 // the walk examines records of smaller seq only
	skipped, held := 0, 0
	for i := hi - 1; i >= lo && len(out) < f.p.Limit; i-- {
		if held++; held > listChunk {
			unlock()
			unlock, held = c.lock(), 1
			recs, _ = candidates()
			lo, _ = bounds(recs)
			i = recs.Index(last) - 1
			if i < lo {
				break
			}
		}
		if recs[i] >= last {
			continue
		}
		t := m.tx(recs[i])
		if f.amount.Set() {
			if start, ok := m.amounts.Skip(t.seq, f.amount); ok && start <= t.seq {
				last = start // and on to the records before its block
				i = recs.Index(last)
				continue
			}
		}
		last = t.seq
		if !keep(t, cu) || (checkDates && !f.p.KeepDate(t.created())) ||
			(f.status != "" && t.status() != f.status) || !t.amountKept(f.amount) {
			continue
		}
		if skipped < f.p.Offset {
			skipped++
			continue
		}
		out = append(out, t.snapshot())
	}
	unlock()
	return out, nil
}

// customerDeletionListener is implemented by the per-merchant state of a
// resource (a value kept with extState) that must act when a customer is
// deleted. deleteCustomer calls customerDeleted on every such state of the
// merchant, under the merchant's lock, after the customer is marked
// deleted; the subscriptions state cancels the customer's subscriptions
// this way, without the customer file knowing about subscriptions.
type customerDeletionListener interface {
	customerDeleted(s *Server, m *merchant, customerID string)
}

// notifyCustomerDeleted calls the listeners of the merchant's states, in a
// fixed order (by type name) so that events stay deterministic. The caller
// holds m.mu.
func (s *Server) notifyCustomerDeleted(m *merchant, customerID string) {
	type entry struct {
		name string
		l    customerDeletionListener
	}
	var ls []entry
	for typ, st := range m.ext {
		if l, ok := st.(customerDeletionListener); ok {
			ls = append(ls, entry{typ.String(), l})
		}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].name < ls[j].name })
	for _, e := range ls {
		e.l.customerDeleted(s, m, customerID)
	}
}

// endPayout moves a payout in progress to its final status: completed, or
// cancelled or failed, which return its amount to the balance it left. The
// caller holds m.mu and has checked the status.
func (s *Server) endPayout(m *merchant, t *tx, status openpay.TransactionStatus, errorMessage string) {
	if status == openpay.TransactionStatusFailed {
		// The receiving bank's refusal: a funds transfer rejected (1007).
		failTx(m, t, openpay.ErrFundsTransferRejected, errorMessage)
	} else {
		m.setStatus(t, status)
		t.more().ErrorMessage = errorMessage
	}
	t.setOperated(s.nowFor(m))
	t.setText(fieldAuthorization, strings.ToUpper(t.id()))
	if status != openpay.TransactionStatusCompleted {
		m.accountFor(t.customerID()).credit(t.amount())
	}
}

// feeReportState lists, per merchant, the charges on which the gateway
// took a fee, in the order the fees were taken: a charge's completion
// (charges_api.go) and a load (persist_kinds.go) add to it, the fees report
// (reports_api.go) reads it.
type feeReportState struct{ charged []*tx }

func newFeeReportState() *feeReportState { return &feeReportState{} }

// feeReport returns the merchant's fee records. The caller holds m.mu.
func feeReport(m *merchant) *feeReportState {
	return extState(m, newFeeReportState)
}

// addFeeCharged records that the gateway took its fee on t (at
// t.later.feeCharged), keeping the list in the order the fees were taken:
// at completion that is the end; a load (persist_kinds.go) reads the
// charges in creation order, and a charge completed after a later one
// goes back to its place. The caller holds m.mu.
func addFeeCharged(m *merchant, t *tx) {
	st := feeReport(m)
	i := len(st.charged)
	for i > 0 && st.charged[i-1].later.feeCharged.After(t.later.feeCharged) {
		i--
	}
	st.charged = slices.Insert(st.charged, i, t)
}
