package openpay

import (
	"context"
	"net/http"
)

// BINsService looks up the issuer of a card prefix (Client.BINs). The
// public reference does not document it; the Java and PHP SDKs call it.
type BINsService struct{ s scope }

// Get returns what the gateway knows of the cards whose numbers start with
// bin (six digits): bank, brand, type, country, and whether they may pay
// online or with Santander points. An unknown BIN gives [ErrNotFound].
func (bs *BINsService) Get(ctx context.Context, bin string, opts ...CallOption) (*CardBIN, error) {
	return call[CardBIN](ctx, bs.s, apiRequest{opts: opts, method: http.MethodGet}, "bines", bin)
}
