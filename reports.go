package openpay

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ReportsService reads the merchant's statements of account
// (Client.Reports): Openpay's fees by month and what each payout settled.
// Stability: the gateway serves these reports but Openpay does not document
// them, so they may change without notice.
type ReportsService struct{ s scope }

// PageParams page a report's detail, which takes no other filter. The
// zero value starts at the newest transaction with the gateway's default
// page size (10), or 100 when iterating.
//
// A report's detail runs in the order its figures were recorded, not in
// the order the transactions were created, so a loop over it recognises
// what it has already yielded by the page before alone: a transaction is
// yielded once as long as fewer than a page (Limit) of transactions join
// the detail between two pages.
type PageParams struct {
	// Offset skips that many transactions.
	Offset int
	// Limit is the page size, 1..100.
	Limit int
}

func (p *PageParams) encode(q url.Values) error {
	if p == nil {
		return nil
	}
	return ListParams{Offset: p.Offset, Limit: p.Limit}.encode(q)
}

// monthQuery is the query of a month's fees report.
func monthQuery(year int, month time.Month) (url.Values, error) {
	if year < 2000 || year > 9999 {
		return nil, invalidArgument("openpay: report year must have four digits, from 2000")
	}
	if month < time.January || month > time.December {
		return nil, invalidArgument("openpay: report month must be from 1 to 12")
	}
	return url.Values{"year": {strconv.Itoa(year)}, "month": {strconv.Itoa(int(month))}}, nil
}

// Fees returns Openpay's commissions on the merchant in a month: what was
// charged and given back, with tax, and the balance. The current month's
// figures may change until it ends.
func (rs *ReportsService) Fees(ctx context.Context, year int, month time.Month, opts ...CallOption) (*FeesSummary, error) {
	q, err := monthQuery(year, month)
	if err != nil {
		return nil, err
	}
	return call[FeesSummary](ctx, scopeOf(rs), apiRequest{opts: opts, method: http.MethodGet, query: q}, "reports", "fees")
}

// feeDetailQuery is the query of a month's fees detail.
func feeDetailQuery(year int, month time.Month, feeType FeeReportType, page *PageParams) (url.Values, error) {
	q, err := monthQuery(year, month)
	if err != nil {
		return nil, err
	}
	if !feeType.Valid() {
		return nil, invalidArgument("openpay: unknown fee report type " + strconv.Quote(string(feeType)))
	}
	q.Set("fee_type", string(feeType))
	return q, page.encode(q)
}

// FeeDetails iterates over the transactions behind one figure of a month's
// fees report, newest first: with [FeeReportTypeCharged] or
// [FeeReportTypeRefunded] those whose Fee was charged or given back that
// month, with the adjustment types those that adjust the fees.
func (rs *ReportsService) FeeDetails(ctx context.Context, year int, month time.Month, feeType FeeReportType, page *PageParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := feeDetailQuery(year, month, feeType, page)
	return iterInOrder[Transaction](ctx, scopeOf(rs), q, err, otherOrder, opts, "reports", "fees", "detail")
}

// FeeDetailsPage returns one page of [ReportsService.FeeDetails].
func (rs *ReportsService) FeeDetailsPage(ctx context.Context, year int, month time.Month, feeType FeeReportType, page *PageParams, opts ...CallOption) ([]*Transaction, error) {
	q, err := feeDetailQuery(year, month, feeType, page)
	return pageOf[Transaction](ctx, scopeOf(rs), q, err, opts, "reports", "fees", "detail")
}

// Payout returns what a payout of the merchant's account settled: the
// money that came into that balance since the previous payout from it, the
// money that left it other than by payouts, and adjustments. An id that
// is not a payout of the merchant gives [ErrNotFound].
func (rs *ReportsService) Payout(ctx context.Context, payoutID string, opts ...CallOption) (*PayoutSummary, error) {
	return call[PayoutSummary](ctx, scopeOf(rs), apiRequest{opts: opts, method: http.MethodGet}, "reports", "payout", payoutID)
}

// payoutDetailQuery is the query of a payout's detail.
func payoutDetailQuery(detailType PayoutReportType, page *PageParams) (url.Values, error) {
	if !detailType.Valid() {
		return nil, invalidArgument("openpay: unknown payout report type " + strconv.Quote(string(detailType)))
	}
	q := url.Values{"detail_type": {string(detailType)}}
	return q, page.encode(q)
}

// PayoutDetails iterates over the transactions behind one figure of a
// payout's report, newest first.
func (rs *ReportsService) PayoutDetails(ctx context.Context, payoutID string, detailType PayoutReportType, page *PageParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := payoutDetailQuery(detailType, page)
	return iterInOrder[Transaction](ctx, scopeOf(rs), q, err, otherOrder, opts, "reports", "payout", payoutID, "detail")
}

// PayoutDetailsPage returns one page of [ReportsService.PayoutDetails].
func (rs *ReportsService) PayoutDetailsPage(ctx context.Context, payoutID string, detailType PayoutReportType, page *PageParams, opts ...CallOption) ([]*Transaction, error) {
	q, err := payoutDetailQuery(detailType, page)
	return pageOf[Transaction](ctx, scopeOf(rs), q, err, opts, "reports", "payout", payoutID, "detail")
}
