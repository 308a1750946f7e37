package openpay

import (
	"context"
	"iter"
	"net/http"
)

// FeesService charges fees to customers' balances, in favour of the
// merchant (Client.Fees).
type FeesService struct{ s scope }

// Create charges a fee to req.CustomerID, whose account must hold a
// balance (created with RequiresAccount). With an OrderID, an unknown
// outcome is retried and reconciled as for charges.
func (fs *FeesService) Create(ctx context.Context, req FeeRequest, opts ...CallOption) (*Transaction, error) {
	want := txExpectation{req.OrderID, req.Amount, "", TransactionMethodCustomer, TransactionTypeFee}
	return createTx(ctx, scopeOf(fs), apiRequest{body: req}, want, opts, "fees")
}

// Get returns a fee.
func (fs *FeesService) Get(ctx context.Context, feeID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(fs), apiRequest{opts: opts, method: http.MethodGet}, "fees", feeID)
}

// Refund returns a fee to the customer's balance.
func (fs *FeesService) Refund(ctx context.Context, feeID string, req FeeRefundRequest, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(fs), apiRequest{opts: opts, method: http.MethodPost, body: req}, "fees", feeID, "refund")
}

// List iterates over the fees matching params, newest first.
func (fs *FeesService) List(ctx context.Context, params *TransactionListParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := params.query()
	return iterOf[Transaction](ctx, scopeOf(fs), q, err, opts, "fees")
}

// ListPage returns one page of fees.
func (fs *FeesService) ListPage(ctx context.Context, params *TransactionListParams, opts ...CallOption) ([]Transaction, error) {
	q, err := params.query()
	return pageOf[Transaction](ctx, scopeOf(fs), q, err, opts, "fees")
}
