package openpay

import (
	"context"
	"iter"
	"net/http"
)

// TokensService creates card tokens (Client.Tokens). A token stands for
// card data for one later use (a charge's SourceID, or
// [CardsService.CreateFromToken]); it is meant to be made on the payer's
// device with the public key, so that card data never crosses the
// merchant's server.
type TokensService struct{ s scope }

// Create tokenises a card's data, the [CardDetails] that also stores a
// card ([CardRequest]) and pays inline ([InlineCardCharge]). It is one of
// the two calls a public key may make. The token's card reads back as a
// [Card], masked.
func (ts *TokensService) Create(ctx context.Context, card CardDetails, opts ...CallOption) (*Token, error) {
	return call[Token](ctx, scopeOf(ts), apiRequest{opts: opts, method: http.MethodPost, body: card, publicKeyOK: true}, "tokens")
}

// Get returns a token, with its card masked.
func (ts *TokensService) Get(ctx context.Context, tokenID string, opts ...CallOption) (*Token, error) {
	return call[Token](ctx, scopeOf(ts), apiRequest{opts: opts, method: http.MethodGet}, "tokens", tokenID)
}

// Points returns the reward-points balances of the card behind a token.
func (ts *TokensService) Points(ctx context.Context, tokenID string, opts ...CallOption) ([]PointsBalance, error) {
	out, err := call[[]PointsBalance](ctx, scopeOf(ts), apiRequest{opts: opts, method: http.MethodGet}, "tokens", tokenID, "points")
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// List iterates over the merchant's tokens matching params, newest first,
// consumed ones included. Their cards are masked as in [TokensService.Get].
// Stability: the gateway serves this lookup but Openpay does not document
// it, so it may change without notice.
func (ts *TokensService) List(ctx context.Context, params *ListParams, opts ...CallOption) iter.Seq2[*Token, error] {
	q, err := params.query()
	return iterOf[Token](ctx, scopeOf(ts), q, err, opts, "tokens")
}

// ListPage returns one page of tokens.
func (ts *TokensService) ListPage(ctx context.Context, params *ListParams, opts ...CallOption) ([]*Token, error) {
	q, err := params.query()
	return pageOf[Token](ctx, scopeOf(ts), q, err, opts, "tokens")
}
