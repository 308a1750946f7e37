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
// An amount of zero or less fails before sending with [ErrInvalidAmount].
func (fs *FeesService) Create(ctx context.Context, req FeeRequest, opts ...CallOption) (*Transaction, error) {
	want := txExpectation{orderID: req.OrderID, amount: req.Amount, method: TransactionMethodCustomer, txType: TransactionTypeFee, customer: req.CustomerID}
	return createTx(ctx, scopeOf(fs), apiRequest{body: req}, want, opts, "fees")
}

// Get returns a fee.
func (fs *FeesService) Get(ctx context.Context, feeID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(fs), apiRequest{opts: opts, method: http.MethodGet}, "fees", feeID)
}

// GetByOrderID returns the fee holding orderID, whatever its status, or
// an error matching [ErrNotFound] when there is none now. It only reads:
// [ErrNotFound] does not prove that nothing will be made, since an attempt
// may still be held at the gateway, so a recovery job settles an attempt
// left unknown by re-sending it with the same order_id (see
// [OutcomeUnknownError]), never with a new one.
func (fs *FeesService) GetByOrderID(ctx context.Context, orderID string, opts ...CallOption) (*Transaction, error) {
	return getByOrderID(ctx, scopeOf(fs), orderID, opts, "fees")
}

// Refund returns a fee to the customer's balance; the answer is the
// refund. The gateway refunds a fee once, so Refund is safe to repeat, as
// [ChargesService.Refund] is: after a lost answer the SDK reads the fee
// back (it never sends the refund again by itself), and a fee already
// refunded is this call's success (its refund is returned); a fee that
// shows no refund yet after an answer that may have hidden one gives an
// [*OutcomeUnknownError], settled by re-sending.
func (fs *FeesService) Refund(ctx context.Context, feeID string, req FeeRefundRequest, opts ...CallOption) (*Transaction, error) {
	return refund(ctx, scopeOf(fs), apiRequest{opts: opts, body: req}, refundCheck{fee: true}, "fees", feeID, "refund")
}

// List iterates over the fees matching params, newest first, each once
// even while fees are charged during the loop ([ListParams] says what a
// loop can miss).
func (fs *FeesService) List(ctx context.Context, params *TransactionListParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := params.query()
	return iterOf[Transaction](ctx, scopeOf(fs), q, err, opts, "fees")
}

// ListPage returns one page of fees.
func (fs *FeesService) ListPage(ctx context.Context, params *TransactionListParams, opts ...CallOption) ([]*Transaction, error) {
	q, err := params.query()
	return pageOf[Transaction](ctx, scopeOf(fs), q, err, opts, "fees")
}
