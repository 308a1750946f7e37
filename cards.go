package openpay

import (
	"context"
	"iter"
	"net/http"
)

// CardsService stores cards, at the merchant level (Client.Cards) or for a
// customer (Client.Customer(id).Cards). After a card is saved its number and
// security code can never be read back: responses carry the masked number.
type CardsService struct{ s scope }

// Create saves a card from its data: req.Card is the [CardDetails] that
// also tokenizes a card and pays inline. It is one of the two calls a
// public key may make, but card data should reach the gateway from the
// payer's device (see [TokensService.Create]) rather than through a server.
func (cs *CardsService) Create(ctx context.Context, req CardRequest, opts ...CallOption) (*Card, error) {
	return call[Card](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost, body: req, publicKeyOK: true}, "cards")
}

// CreateFromToken saves the card behind a token made on the payer's device.
// Tokens are single-use.
func (cs *CardsService) CreateFromToken(ctx context.Context, req TokenCardRequest, opts ...CallOption) (*Card, error) {
	return call[Card](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost, body: req, publicKeyOK: true}, "cards")
}

// Get returns a card.
func (cs *CardsService) Get(ctx context.Context, cardID string, opts ...CallOption) (*Card, error) {
	return call[Card](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodGet}, "cards", cardID)
}

// Update changes a card's holder name or expiry, or sets the security code
// used by the card's next transaction.
func (cs *CardsService) Update(ctx context.Context, cardID string, req CardUpdateRequest, opts ...CallOption) error {
	_, err := call[map[string]any](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPut, body: req}, "cards", cardID)
	return err
}

// Delete removes a card; past transactions keep their records.
func (cs *CardsService) Delete(ctx context.Context, cardID string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(cs), http.MethodDelete, opts, "cards", cardID)
}

// List iterates over the cards, newest first.
func (cs *CardsService) List(ctx context.Context, params *ListParams, opts ...CallOption) iter.Seq2[*Card, error] {
	q, err := params.query()
	return iterOf[Card](ctx, scopeOf(cs), q, err, opts, "cards")
}

// ListPage returns one page of cards.
func (cs *CardsService) ListPage(ctx context.Context, params *ListParams, opts ...CallOption) ([]*Card, error) {
	q, err := params.query()
	return pageOf[Card](ctx, scopeOf(cs), q, err, opts, "cards")
}

// Points returns the reward-points balances of a card in one of the
// issuers' points programmes; a card without one gives
// [ErrCardNotValidForPoints].
func (cs *CardsService) Points(ctx context.Context, cardID string, opts ...CallOption) ([]PointsBalance, error) {
	out, err := call[[]PointsBalance](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodGet}, "cards", cardID, "points")
	if err != nil {
		return nil, err
	}
	return *out, nil
}
