package refserver

import (
	"net/http"
	"net/url"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
)

// Reports: the merchant's statements of account, computed from the
// transactions the server holds, so that every figure is the sum of the
// transactions its detail lists.
//
// Fees (/reports/fees?year&month): the gateway's commissions on the
// merchant. The server takes one kind, the fee of an Alipay charge (the
// charge's `fee` object), when the charge completes: the credit is the
// amount less fee and tax. A month is a calendar month in the gateway's
// time zone. charged and charged_tax sum the fees and taxes taken in the
// month; the detail of charged lists those charges (each with its fee),
// newest first. The server gives no fee back (an Alipay charge cannot be
// refunded) and makes no adjustments, so the other figures are 0 and their
// details empty; total is the charged figures less the refunded ones.
//
// Payouts (/reports/payout/{payout_id}): what a payout of the merchant
// settled, for a payout from any balance (the merchant's, or a customer's
// with an account). Its transactions are those recorded after the
// previous payout from the same balance that was not cancelled or failed,
// and before it. Among them, `in` are those that credited that balance:
// charges and bank transfers received that are credited (completed, then
// perhaps refunded or disputed), the receiving side of a transfer, a fee
// (for the merchant's balance), a fee's refund (for the customer's); `out`
// those that debited it other than payouts: refunds of charges, the sending
// side of a transfer, a fee (for the customer's balance), a fee's refund
// (for the merchant's). Chargebacks are no transaction of their own and do
// not count. Each figure sums the amounts in MXN (at the exchange rate of
// a charge in USD). The server makes no adjustments: 0 and empty details.
// Ids that are not a payout of the merchant answer 1005.
//
// Parameters: year, month, fee_type and detail_type are required (1001
// when absent or not a number); a year outside 2000..9999, a month outside
// 1..12 or an unknown type answers 1003. Details page with offset and
// limit.

// registerReports registers the fees and payout reports.
func (s *Server) registerReports(r *routeTable) {
	r.add("getFeesReport", http.MethodGet, "/v1/{merchant_id}/reports/fees", http.StatusOK, s.getFeesReport)
	r.add("listFeesReportDetail", http.MethodGet, "/v1/{merchant_id}/reports/fees/detail", http.StatusOK, s.listFeesReportDetail)
	r.add("getPayoutReport", http.MethodGet, "/v1/{merchant_id}/reports/payout/{payout_id}", http.StatusOK, s.getPayoutReport)
	r.add("listPayoutReportDetail", http.MethodGet, "/v1/{merchant_id}/reports/payout/{payout_id}/detail", http.StatusOK, s.listPayoutReportDetail)
}

// feeCharges returns the charges behind one figure of the fees report in
// [from, to), oldest first: only charged has any. The caller holds m.mu.
func feeCharges(m *merchant, kind openpay.FeeReportType, from, to time.Time) []*tx {
	if kind != openpay.FeeReportTypeCharged {
		return nil
	}
	var out []*tx
	for _, t := range feeReport(m).charged {
		if at := t.after().feeCharged; !at.Before(from) && at.Before(to) {
			out = append(out, t)
		}
	}
	return out
}

// getFeesReport answers the month's fees.
func (s *Server) getFeesReport(c *call) (any, *Error) {
	from, to, e := listquery.Month(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	var r openpay.FeesSummary
	for _, t := range feeCharges(c.m, openpay.FeeReportTypeCharged, from, to) {
		r.Charged, r.ChargedTax = r.Charged.Add(t.rare().Fee.Amount), r.ChargedTax.Add(t.rare().Fee.Tax)
	}
	r.Total = r.Charged.Add(r.ChargedTax).Add(r.ChargedAdjustments).Add(r.ChargedAdjustmentsTax).
		Sub(r.Refunded).Sub(r.RefundedTax).Sub(r.RefundedAdjustments).Sub(r.RefundedAdjustmentsTax)
	return r, nil
}

// listFeesReportDetail answers the charges behind one figure of the month's
// fees, newest first.
func (s *Server) listFeesReportDetail(c *call) (any, *Error) {
	q := c.query
	from, to, e := listquery.Month(q, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	kind, e := listquery.Kind(q, "fee_type", openpay.FeeReportType.Valid)
	if e != nil {
		return nil, e
	}
	p, e := reportPage(q)
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	return pageTx(p, feeCharges(c.m, kind, from, to)), nil
}

// reportPage reads offset and limit.
func reportPage(q url.Values) (listquery.Params, *Error) {
	return listquery.Parse(url.Values{"offset": q["offset"], "limit": q["limit"]}, gatewayZone) // no dates
}

// pageTx pages records kept oldest first, newest first.
func pageTx(p listquery.Params, recs []*tx) []openpay.Transaction {
	return listquery.Page(p, recs, func(t *tx) (time.Time, bool) { return time.Time{}, true }, (*tx).snapshot)
}

// payoutReportTx returns the payout the path names (1005 when it is not a
// payout of the merchant). The caller holds c.m.mu.
func (c *call) payoutReportTx() (*tx, *Error) {
	id := c.param("payout_id")
	t := c.m.txByID(id)
	if t == nil || t.typ() != openpay.TransactionTypePayout {
		return nil, errNotFound("payout", id)
	}
	return t, nil
}

// settles reports whether a payout took money from its balance for good
// or for now: a cancelled or failed one gave it back and settled nothing.
func settles(t *tx) bool {
	return t.status() != openpay.TransactionStatusCancelled && t.status() != openpay.TransactionStatusFailed
}

// payoutSide says how the record t moved the balance acct: into it
// (PayoutReportTypeIn), out of it other than by a payout
// (PayoutReportTypeOut), or not at all (""). The caller holds m.mu.
func payoutSide(m *merchant, t *tx, acct account) openpay.PayoutReportType {
	own := m.accountFor(t.customerID()) == acct
	_, merchantBalance := acct.(*merchant)
	switch t.typ() {
	case openpay.TransactionTypeCharge:
		if own && t.credited().IsPositive() {
			return openpay.PayoutReportTypeIn
		}
	case openpay.TransactionTypeTransfer:
		if own {
			return openpay.PayoutReportType(t.opType())
		}
	case openpay.TransactionTypeFee:
		switch {
		case merchantBalance:
			return openpay.PayoutReportTypeIn
		case own:
			return openpay.PayoutReportTypeOut
		}
	case openpay.TransactionTypeRefund:
		switch {
		case t.method() != openpay.TransactionMethodCustomer:
			if own {
				return openpay.PayoutReportTypeOut // a charge's refund
			}
		case merchantBalance:
			return openpay.PayoutReportTypeOut // a fee's refund
		case own:
			return openpay.PayoutReportTypeIn
		}
	}
	return ""
}

// payoutRecords returns the records a payout settled that moved its
// balance on the given side, oldest first. The caller holds m.mu.
func payoutRecords(m *merchant, payout *tx, side openpay.PayoutReportType) []*tx {
	acct := m.accountFor(payout.customerID())
	// The window starts after the previous payout from the same balance,
	// found among the merchant's payouts (creation order) rather than by
	// walking every transaction. seq numbers txList from 1.
	start := 0
	payouts := m.txIndex.Get(txKey{typ: openpay.TransactionTypePayout})
	for i := payouts.Index(payout.seq) - 1; i >= 0; i-- {
		if t := m.tx(payouts[i]); settles(t) && m.accountFor(t.customerID()) == acct {
			start = int(t.seq)
			break
		}
	}
	var out []*tx
	for _, t := range m.txList[start : payout.seq-1] {
		if payoutSide(m, t, acct) == side {
			out = append(out, t)
		}
	}
	return out
}

// getPayoutReport answers what a payout settled.
func (s *Server) getPayoutReport(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	p, e := c.payoutReportTx()
	if e != nil {
		return nil, e
	}
	sum := func(side openpay.PayoutReportType) openpay.Amount {
		var a openpay.Amount
		for _, t := range payoutRecords(c.m, p, side) {
			a = a.Add(s.toMXN(t, t.amount()))
		}
		return a
	}
	return openpay.PayoutSummary{In: sum(openpay.PayoutReportTypeIn), Out: sum(openpay.PayoutReportTypeOut)}, nil
}

// listPayoutReportDetail answers the transactions behind one figure of a
// payout's report, newest first.
func (s *Server) listPayoutReportDetail(c *call) (any, *Error) {
	q := c.query
	kind, e := listquery.Kind(q, "detail_type", openpay.PayoutReportType.Valid)
	if e != nil {
		return nil, e
	}
	pg, e := reportPage(q)
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	p, e := c.payoutReportTx()
	if e != nil {
		return nil, e
	}
	return pageTx(pg, payoutRecords(c.m, p, kind)), nil
}
