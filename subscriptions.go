package openpay

import (
	"context"
	"iter"
	"net/http"
)

// SubscriptionsService subscribes a customer to plans:
// Client.Customer(id).Subscriptions.
type SubscriptionsService struct{ s scope }

// Create subscribes the customer to req.PlanID, charging a saved card
// (SourceID) or card data (Card). A TrialEndDate in the past means no
// trial; without one the plan's trial days apply.
func (ss *SubscriptionsService) Create(ctx context.Context, req SubscriptionRequest, opts ...CallOption) (*Subscription, error) {
	return call[Subscription](ctx, scopeOf(ss), apiRequest{opts: opts, method: http.MethodPost, body: req}, "subscriptions")
}

// Update changes the card, the trial end, or asks to cancel at the end of
// the current period.
func (ss *SubscriptionsService) Update(ctx context.Context, subscriptionID string, req SubscriptionUpdateRequest, opts ...CallOption) (*Subscription, error) {
	return call[Subscription](ctx, scopeOf(ss), apiRequest{opts: opts, method: http.MethodPut, body: req}, "subscriptions", subscriptionID)
}

// Get returns a subscription.
func (ss *SubscriptionsService) Get(ctx context.Context, subscriptionID string, opts ...CallOption) (*Subscription, error) {
	return call[Subscription](ctx, scopeOf(ss), apiRequest{opts: opts, method: http.MethodGet}, "subscriptions", subscriptionID)
}

// Delete cancels a subscription at once.
func (ss *SubscriptionsService) Delete(ctx context.Context, subscriptionID string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(ss), http.MethodDelete, opts, "subscriptions", subscriptionID)
}

// List iterates over the customer's subscriptions, newest first.
func (ss *SubscriptionsService) List(ctx context.Context, params *ListParams, opts ...CallOption) iter.Seq2[*Subscription, error] {
	q, err := params.query()
	return iterOf[Subscription](ctx, scopeOf(ss), q, err, opts, "subscriptions")
}

// ListPage returns one page of subscriptions.
func (ss *SubscriptionsService) ListPage(ctx context.Context, params *ListParams, opts ...CallOption) ([]Subscription, error) {
	q, err := params.query()
	return pageOf[Subscription](ctx, scopeOf(ss), q, err, opts, "subscriptions")
}
