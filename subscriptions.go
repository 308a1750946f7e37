package openpay

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"
)

// SubscriptionsService subscribes a customer to plans:
// Client.Customer(id).Subscriptions.
type SubscriptionsService struct{ s scope }

// Create subscribes the customer to req.PlanID, charging a saved card
// (SourceID) or card data (Card). A TrialEndDate in the past means no
// trial; without one the plan's trial days apply.
//
// A create carries no order_id and is never sent twice. When its answer is
// lost (an error matching [ErrOutcomeUnknown]: no answer after the request
// may have reached the gateway, a server error), Create looks for the
// subscription it made (see [SubscriptionsService.FindCreated]) and
// returns it; when it finds none the error is an [*OutcomeUnknownError]
// (its OrderID empty). Do not send the create again then: keep req and the
// time taken before the call, and settle it with FindCreated, which never
// tells you to send again while the first create may still be carried out.
func (ss *SubscriptionsService) Create(ctx context.Context, req SubscriptionRequest, opts ...CallOption) (*Subscription, error) {
	began := time.Now()
	sub, err := call[Subscription](ctx, scopeOf(ss), apiRequest{opts: opts, method: http.MethodPost, body: req}, "subscriptions")
	if err != nil && errors.Is(err, ErrOutcomeUnknown) {
		return ss.settleCreate(ctx, req, began, err)
	}
	return sub, err
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

// Cancel cancels a subscription at once (the gateway's DELETE), and it is
// gone: reading or changing it answers not found, on the customer's paths
// and the plan's, and it leaves every list (Openpay's published test
// suites count none after cancelling). Cancelling it again succeeds, so a
// retried Cancel is safe. To cancel at the end of the period instead, set
// CancelAtPeriodEnd with [SubscriptionsService.Update]. See
// [CustomersService.Delete] for what deleting the customer does instead.
func (ss *SubscriptionsService) Cancel(ctx context.Context, subscriptionID string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(ss), http.MethodDelete, opts, "subscriptions", subscriptionID)
}

// List iterates over the customer's subscriptions, newest first.
func (ss *SubscriptionsService) List(ctx context.Context, params *ListParams, opts ...CallOption) iter.Seq2[*Subscription, error] {
	q, err := params.query()
	return iterOf[Subscription](ctx, scopeOf(ss), q, err, opts, "subscriptions")
}

// ListPage returns one page of subscriptions.
func (ss *SubscriptionsService) ListPage(ctx context.Context, params *ListParams, opts ...CallOption) ([]*Subscription, error) {
	q, err := params.query()
	return pageOf[Subscription](ctx, scopeOf(ss), q, err, opts, "subscriptions")
}
