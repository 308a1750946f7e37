package openpay

import (
	"context"
	"net/http"
	"net/url"
)

// BINsService looks up the issuer of a card prefix, a BIN (Client.BINs):
// what a checkout page asks while the payer types a card number, to tell
// credit from debit and decide whether to offer instalments.
//
//	lookup      countries   answers
//	Get         all three   bank, brand, type, country, online and points use ([CardBIN])
//	CardType    all three   debit or credit ([CardType]), by the lookup of the client's country
//	Promotions  Peru        debit or credit, and the instalments the card may pay in ([BINPromotions])
//
// Openpay's own checkout integrations ask a different endpoint for the
// card type in each country; CardType asks the one of the country the
// client was made for ([WithCountry]), so one call serves every account.
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

// CardType returns whether the cards of bin (six to eight digits) are debit
// or credit cards ([CardTypeDebit], [CardTypeCredit]), asking the lookup
// the checkout integrations of the client's country use:
//
//	Mexico     GET bines/man/{bin}, with the private key
//	Colombia   GET /v1/cards/validate-bin?bin={bin}, a path without the merchant, without credentials
//	Peru       GET bines/{bin}/promotions, without credentials (see Promotions)
//
// An unknown BIN gives [ErrNotFound].
func (bs *BINsService) CardType(ctx context.Context, bin string, opts ...CallOption) (CardType, error) {
	s := scopeOf(bs)
	var country Country
	if s.c != nil {
		country = s.c.country
	}
	switch country {
	case CountryColombia:
		root := scope{c: s.c} // a path without the merchant
		v, err := call[binValidation](ctx, root, apiRequest{opts: opts, method: http.MethodGet,
			query: url.Values{"bin": {bin}}, noAuth: true, publicKeyOK: true}, "v1", "cards", "validate-bin")
		if err != nil {
			return "", err
		}
		return v.CardType, nil
	case CountryPeru:
		p, err := bs.Promotions(ctx, bin, opts...)
		if err != nil {
			return "", err
		}
		return p.CardType, nil
	}
	v, err := call[binCardType](ctx, s, apiRequest{opts: opts, method: http.MethodGet}, "bines", "man", bin)
	if err != nil {
		return "", err
	}
	return v.Type, nil
}

// Promotions returns, in Peru, the card type of bin (six to eight digits)
// and the numbers of instalments, with or without interest, its cards may
// pay this merchant's charges in (GET bines/{bin}/promotions, sent without
// credentials). An unknown BIN gives [ErrNotFound].
func (bs *BINsService) Promotions(ctx context.Context, bin string, opts ...CallOption) (*BINPromotions, error) {
	return call[BINPromotions](ctx, scopeOf(bs), apiRequest{opts: opts, method: http.MethodGet, noAuth: true, publicKeyOK: true},
		"bines", bin, "promotions")
}
