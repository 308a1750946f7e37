package openpay

import (
	"context"
	"iter"
	"net/http"
)

// TransfersService moves funds between two customers' balances; it exists
// at customer scope only: Client.Customer(from).Transfers.
type TransfersService struct{ s scope }

// Create moves req.Amount (more than one peso) from this customer to
// req.CustomerID. The answer is the outgoing transaction; the receiving
// customer gets the matching incoming one. With an OrderID, an unknown
// outcome is retried and reconciled as for charges.
func (ts *TransfersService) Create(ctx context.Context, req TransferRequest, opts ...CallOption) (*Transaction, error) {
	want := txExpectation{req.OrderID, req.Amount, "", TransactionMethodCustomer, TransactionTypeTransfer}
	return createTx(ctx, scopeOf(ts), apiRequest{body: req}, want, opts, "transfers")
}

// Get returns a transfer transaction.
func (ts *TransfersService) Get(ctx context.Context, transferID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(ts), apiRequest{opts: opts, method: http.MethodGet}, "transfers", transferID)
}

// List iterates over the customer's transfers, in and out, newest first.
func (ts *TransfersService) List(ctx context.Context, params *TransactionListParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := params.query()
	return iterOf[Transaction](ctx, scopeOf(ts), q, err, opts, "transfers")
}

// ListPage returns one page of transfers.
func (ts *TransfersService) ListPage(ctx context.Context, params *TransactionListParams, opts ...CallOption) ([]Transaction, error) {
	q, err := params.query()
	return pageOf[Transaction](ctx, scopeOf(ts), q, err, opts, "transfers")
}
