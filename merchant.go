package openpay

import (
	"context"
	"net/http"
)

// MerchantService reads the merchant account (Client.Merchant).
type MerchantService struct{ s scope }

// Get returns the merchant: name, contact, status, balance and the CLABE
// that receives bank transfers.
func (ms *MerchantService) Get(ctx context.Context, opts ...CallOption) (*Merchant, error) {
	return call[Merchant](ctx, scopeOf(ms), apiRequest{opts: opts, method: http.MethodGet})
}
