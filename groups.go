package openpay

import (
	"context"
	"iter"
)

// The gateway's merchant-group API is smaller than a merchant's: charges
// through a group can be created, captured and refunded but not read,
// listed or cancelled, and a group customer's cards have no points
// balance. The group services below therefore offer only those operations,
// each one a call of the merchant service that shares its implementation,
// so an operation the gateway lacks at group scope does not compile.

// GroupChargesService creates charges through a merchant group, for one of
// the group's merchants (GroupScope.Merchant(id).Charges) or for a group
// customer at that merchant (GroupScope.Merchant(id).Customer(cid).Charges).
// A charge made here is a transaction of that merchant: read, list or
// cancel it with the merchant's own credentials ([Client.Charges]).
type GroupChargesService struct{ s scope }

// Create charges with one of the [ChargeRequest] variants. The gateway
// requires the payer's IP address: set the request's ClientIP (or
// [WithDefaultClientIP] on the client), else Create fails before sending
// with [ErrClientIPRequired]. [WithClientIP] overrides both for one call.
//
// Unlike [ChargesService.Create], a Create whose outcome is unknown (the
// connection dropped after sending) is never retried, even with an
// OrderID: the group API has no list of charges in which a retry could
// look its order_id up, so it could not tell its own charge from another.
// Such a failure returns an error matching [ErrOutcomeUnknown]; find out
// with the merchant's client, listing its charges by the OrderID
// ([TransactionListParams].OrderID). A duplicate OrderID gives
// [ErrDuplicateOrderID]. A nil req fails before sending with
// [ErrNilRequest].
func (g *GroupChargesService) Create(ctx context.Context, req ChargeRequest, opts ...CallOption) (*Transaction, error) {
	if err := checkCharge(req); err != nil {
		return nil, err
	}
	body, want, ip := req.chargeRequest()
	// An expectation without an order_id makes the request not
	// reconcilable; its amount is still checked.
	return createTx(ctx, scopeOf(g), apiRequest{body: body, needsClientIP: true, clientIP: ip}, txExpectation{amount: want.amount}, opts, "charges")
}

// charges is the merchant service sharing g's implementation (nil for a
// nil g, whose calls then fail like those of a nil service).
func (g *GroupChargesService) charges() *ChargesService { return (*ChargesService)(g) }

// Capture confirms a pre-authorization made through the group, in whole
// (zero req.Amount) or in part; see [ChargesService.Capture].
func (g *GroupChargesService) Capture(ctx context.Context, chargeID string, req CaptureRequest, opts ...CallOption) (*Transaction, error) {
	return g.charges().Capture(ctx, chargeID, req, opts...)
}

// Refund returns a card charge's money to the payer, in whole (zero
// req.Amount) or in part; see [ChargesService.Refund]. The group API has
// no read of a charge, so a refund whose answer was lost is not read back:
// the error is an [*OutcomeUnknownError]; read the charge with the
// merchant's client ([ChargesService.Get]: its Refund) to settle it.
func (g *GroupChargesService) Refund(ctx context.Context, chargeID string, req RefundRequest, opts ...CallOption) (*Transaction, error) {
	return g.charges().Refund(ctx, chargeID, req, opts...)
}

// GroupCardsService stores the cards of a group customer
// (GroupScope.Customer(id).Cards). The cards serve every merchant of the
// group; their number and security code can never be read back.
type GroupCardsService struct{ s scope }

// cards is the merchant service sharing g's implementation.
func (g *GroupCardsService) cards() *CardsService { return (*CardsService)(g) }

// Create saves a card from its data; see [CardsService.Create].
func (g *GroupCardsService) Create(ctx context.Context, req CardRequest, opts ...CallOption) (*Card, error) {
	return g.cards().Create(ctx, req, opts...)
}

// CreateFromToken saves the card behind a token; see
// [CardsService.CreateFromToken].
func (g *GroupCardsService) CreateFromToken(ctx context.Context, req TokenCardRequest, opts ...CallOption) (*Card, error) {
	return g.cards().CreateFromToken(ctx, req, opts...)
}

// Get returns a card.
func (g *GroupCardsService) Get(ctx context.Context, cardID string, opts ...CallOption) (*Card, error) {
	return g.cards().Get(ctx, cardID, opts...)
}

// Update changes a card's holder name or expiry, or sets the security code
// used by the card's next transaction. At group scope req.MerchantID is
// required: the merchant of the group that uses the card.
func (g *GroupCardsService) Update(ctx context.Context, cardID string, req CardUpdateRequest, opts ...CallOption) error {
	return g.cards().Update(ctx, cardID, req, opts...)
}

// Delete removes a card; past transactions keep their records.
func (g *GroupCardsService) Delete(ctx context.Context, cardID string, opts ...CallOption) error {
	return g.cards().Delete(ctx, cardID, opts...)
}

// List iterates over the customer's cards, newest first.
func (g *GroupCardsService) List(ctx context.Context, params *ListParams, opts ...CallOption) iter.Seq2[*Card, error] {
	return g.cards().List(ctx, params, opts...)
}

// ListPage returns one page of the customer's cards.
func (g *GroupCardsService) ListPage(ctx context.Context, params *ListParams, opts ...CallOption) ([]*Card, error) {
	return g.cards().ListPage(ctx, params, opts...)
}
