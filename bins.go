package openpay

import (
	"context"
	"net/http"
	"net/url"
)

// BINsService looks up the issuer of a card prefix (Client.BINs).
// Openpay's API reference does not describe these operations. CardType,
// Promotions and Validate are the per-country checks a checkout page makes
// while the payer types a card number, to decide whether to offer
// instalments.
type BINsService struct{ s scope }

// Get returns what the gateway knows of the cards whose numbers start with
// bin (six digits): bank, brand, type, country, and whether they may pay
// online or with Santander points. An unknown BIN gives [ErrNotFound].
func (bs *BINsService) Get(ctx context.Context, bin string, opts ...CallOption) (*CardBIN, error) {
	return call[CardBIN](ctx, scopeOf(bs), apiRequest{opts: opts, method: http.MethodGet}, "bines", bin)
}

// CardType returns whether the cards of bin (six to eight digits) are CREDIT
// or DEBIT cards, as Mexican accounts check it (GET bines/man/{bin}, with
// the private key). An unknown BIN gives [ErrNotFound].
func (bs *BINsService) CardType(ctx context.Context, bin string, opts ...CallOption) (*BINCardType, error) {
	return call[BINCardType](ctx, scopeOf(bs), apiRequest{opts: opts, method: http.MethodGet}, "bines", "man", bin)
}

// Promotions returns the card type of bin (six to eight digits) and the
// numbers of instalments, with or without interest, its cards may pay this
// merchant's charges in, as Peruvian accounts check it (GET
// bines/{bin}/promotions, sent without credentials). An unknown BIN gives
// [ErrNotFound].
func (bs *BINsService) Promotions(ctx context.Context, bin string, opts ...CallOption) (*BINPromotions, error) {
	return call[BINPromotions](ctx, scopeOf(bs), apiRequest{opts: opts, method: http.MethodGet, noAuth: true, publicKeyOK: true},
		"bines", bin, "promotions")
}

// Validate returns whether the cards of bin (six to eight digits) are
// CREDIT or DEBIT cards, as Colombian accounts check it (GET
// /v1/cards/validate-bin?bin=, a path without the merchant, sent without
// credentials). An unknown BIN gives [ErrNotFound].
func (bs *BINsService) Validate(ctx context.Context, bin string, opts ...CallOption) (*BINValidation, error) {
	root := scope{c: scopeOf(bs).c} // a path without the merchant
	return call[BINValidation](ctx, root, apiRequest{opts: opts, method: http.MethodGet,
		query: url.Values{"bin": {bin}}, noAuth: true, publicKeyOK: true}, "v1", "cards", "validate-bin")
}
