package openpay

import (
	"context"
	"iter"
	"net/http"
)

// BankAccountsService registers bank accounts (CLABE), the destinations of
// payouts: a customer's at Client.Customer(id).BankAccounts, the merchant's
// own at Client.BankAccounts. Stability: the gateway serves the merchant's
// own bank accounts but Openpay does not document them, so they may change
// without notice.
type BankAccountsService struct{ s scope }

// Create registers a bank account; the same CLABE twice on one customer
// (or on the merchant) gives [ErrBankAccountExists].
func (bs *BankAccountsService) Create(ctx context.Context, req BankAccountRequest, opts ...CallOption) (*BankAccount, error) {
	return call[BankAccount](ctx, scopeOf(bs), apiRequest{opts: opts, method: http.MethodPost, body: req}, "bankaccounts")
}

// Get returns a bank account, its CLABE masked.
func (bs *BankAccountsService) Get(ctx context.Context, bankAccountID string, opts ...CallOption) (*BankAccount, error) {
	return call[BankAccount](ctx, scopeOf(bs), apiRequest{opts: opts, method: http.MethodGet}, "bankaccounts", bankAccountID)
}

// Delete removes a bank account; its past transactions are unchanged.
func (bs *BankAccountsService) Delete(ctx context.Context, bankAccountID string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(bs), http.MethodDelete, opts, "bankaccounts", bankAccountID)
}

// List iterates over the bank accounts of the scope, newest first.
func (bs *BankAccountsService) List(ctx context.Context, params *ListParams, opts ...CallOption) iter.Seq2[*BankAccount, error] {
	q, err := params.query()
	return iterOf[BankAccount](ctx, scopeOf(bs), q, err, opts, "bankaccounts")
}

// ListPage returns one page of bank accounts.
func (bs *BankAccountsService) ListPage(ctx context.Context, params *ListParams, opts ...CallOption) ([]*BankAccount, error) {
	q, err := params.query()
	return pageOf[BankAccount](ctx, scopeOf(bs), q, err, opts, "bankaccounts")
}
