package openpay

import (
	"context"
	"iter"
	"net/http"
)

// PayoutRequest is one of the payout variants: [BankAccountPayout] (a
// registered bank account), [InlineBankAccountPayout] (CLABE and holder in
// the request), [CardPayout] (a stored card) and [InlineCardPayout] (card
// data in the request). The SDK writes each variant's method itself: the
// types have no field for it.
type PayoutRequest interface {
	payoutRequest() (body any, want txExpectation)
}

func (r BankAccountPayout) payoutRequest() (any, txExpectation) {
	return fixedBody{`"method":"bank_account"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodBankAccount, txType: TransactionTypePayout, source: r.DestinationID}
}

func (r InlineBankAccountPayout) payoutRequest() (any, txExpectation) {
	return fixedBody{`"method":"bank_account"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodBankAccount, txType: TransactionTypePayout}
}

func (r CardPayout) payoutRequest() (any, txExpectation) {
	return fixedBody{`"method":"card"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodCard, txType: TransactionTypePayout, source: r.DestinationID}
}

func (r InlineCardPayout) payoutRequest() (any, txExpectation) {
	return fixedBody{`"method":"card"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodCard, txType: TransactionTypePayout, cardNumber: r.Card.CardNumber}
}

// PayoutsService sends funds from the merchant's balance
// (Client.Payouts) or a customer's (Client.Customer(id).Payouts) to a bank
// account or a card.
type PayoutsService struct{ s scope }

// Create starts a payout; it begins in_progress and debits the balance at
// once. With an OrderID, an unknown outcome is retried and reconciled as
// for charges (see [ChargesService.Create]); without one it is reported
// as [ErrOutcomeUnknown]. A nil req fails before sending with
// [ErrNilRequest].
// An amount of zero or less fails before sending with [ErrInvalidAmount].
func (ps *PayoutsService) Create(ctx context.Context, req PayoutRequest, opts ...CallOption) (*Transaction, error) {
	if err := checkRequest(req, "PayoutRequest"); err != nil {
		return nil, err
	}
	body, want := req.payoutRequest()
	return createTx(ctx, scopeOf(ps), apiRequest{body: body}, want, opts, "payouts")
}

// Get returns a payout.
func (ps *PayoutsService) Get(ctx context.Context, payoutID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(ps), apiRequest{opts: opts, method: http.MethodGet}, "payouts", payoutID)
}

// GetByOrderID returns the payout holding orderID, whatever its status, or
// an error matching [ErrNotFound] when there is none now. It only reads:
// [ErrNotFound] does not prove that nothing will be made, since an attempt
// may still be held at the gateway, so a recovery job settles an attempt
// left unknown by re-sending it with the same order_id (see
// [OutcomeUnknownError]), never with a new one. At a customer's scope it
// looks among that customer's payouts, then at the merchant's: a holder
// there (another customer's, or the merchant's) is an
// [*OrderConflictError] carrying it, since order ids are unique across the
// merchant.
func (ps *PayoutsService) GetByOrderID(ctx context.Context, orderID string, opts ...CallOption) (*Transaction, error) {
	return getByOrderID(ctx, scopeOf(ps), orderID, opts, "payouts")
}

// Cancel cancels a payout that is still in_progress and returns it,
// cancelled.
func (ps *PayoutsService) Cancel(ctx context.Context, payoutID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(ps), apiRequest{opts: opts, method: http.MethodDelete}, "payouts", payoutID)
}

// List iterates over the payouts matching params, newest first, each once
// even while payouts are made during the loop ([ListParams] says what a
// loop can miss).
func (ps *PayoutsService) List(ctx context.Context, params *PayoutListParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := params.query()
	return iterOf[Transaction](ctx, scopeOf(ps), q, err, opts, "payouts")
}

// ListPage returns one page of payouts.
func (ps *PayoutsService) ListPage(ctx context.Context, params *PayoutListParams, opts ...CallOption) ([]*Transaction, error) {
	q, err := params.query()
	return pageOf[Transaction](ctx, scopeOf(ps), q, err, opts, "payouts")
}
