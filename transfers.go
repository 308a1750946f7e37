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
// An amount of zero or less fails before sending with [ErrInvalidAmount].
func (ts *TransfersService) Create(ctx context.Context, req TransferRequest, opts ...CallOption) (*Transaction, error) {
	want := txExpectation{orderID: req.OrderID, amount: req.Amount, method: TransactionMethodCustomer, txType: TransactionTypeTransfer}
	return createTx(ctx, scopeOf(ts), apiRequest{body: req}, want, opts, "transfers")
}

// Get returns a transfer transaction.
func (ts *TransfersService) Get(ctx context.Context, transferID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(ts), apiRequest{opts: opts, method: http.MethodGet}, "transfers", transferID)
}

// GetByOrderID returns the transfer holding orderID, whatever its status, or
// an error matching [ErrNotFound] when there is none now. It only reads:
// [ErrNotFound] does not prove that nothing will be made, since an attempt
// may still be held at the gateway, so a recovery job settles an attempt
// left unknown by re-sending it with the same order_id (see
// [OutcomeUnknownError]), never with a new one. Transfers are listed at
// a customer's scope only, so a holder elsewhere is not looked for.
func (ts *TransfersService) GetByOrderID(ctx context.Context, orderID string, opts ...CallOption) (*Transaction, error) {
	return getByOrderID(ctx, scopeOf(ts), orderID, opts, "transfers")
}

// List iterates over the customer's transfers, in and out, newest first,
// each once even while transfers are made during the loop ([ListParams]
// says what a loop can miss).
func (ts *TransfersService) List(ctx context.Context, params *TransactionListParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := params.query()
	return iterOf[Transaction](ctx, scopeOf(ts), q, err, opts, "transfers")
}

// ListPage returns one page of transfers.
func (ts *TransfersService) ListPage(ctx context.Context, params *TransactionListParams, opts ...CallOption) ([]*Transaction, error) {
	q, err := params.query()
	return pageOf[Transaction](ctx, scopeOf(ts), q, err, opts, "transfers")
}
