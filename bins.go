package openpay

import (
	"context"
	"net/http"
	"net/url"
)

// BINsService looks up the issuer of a card prefix (Client.BINs): what a
// checkout page asks while the payer types a card number, to tell credit
// from debit and decide whether to offer instalments. Openpay's own
// checkout integrations use a different lookup in each country:
//
//	lookup      used for          answers
//	Get         every country     bank, brand, type, country, online and points use
//	CardType    Mexico            CREDIT or DEBIT
//	Validate    Colombia          CREDIT or DEBIT (the same fact as CardType; it validates nothing)
//	Promotions  Peru              CREDIT or DEBIT, and the instalments the card may pay in
//
// Stability: the gateway serves these lookups but Openpay does not
// document them, so they may change without notice.
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
