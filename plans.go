package openpay

import (
	"context"
	"iter"
	"net/http"
)

// PlansService manages subscription plans (Client.Plans).
type PlansService struct{ s scope }

// Create creates a plan.
func (ps *PlansService) Create(ctx context.Context, req PlanRequest, opts ...CallOption) (*Plan, error) {
	return call[Plan](ctx, scopeOf(ps), apiRequest{opts: opts, method: http.MethodPost, body: req}, "plans")
}

// Update changes a plan's name or trial days, the only fields a plan lets
// change.
func (ps *PlansService) Update(ctx context.Context, planID string, req PlanUpdateRequest, opts ...CallOption) (*Plan, error) {
	return call[Plan](ctx, scopeOf(ps), apiRequest{opts: opts, method: http.MethodPut, body: req}, "plans", planID)
}

// Get returns a plan.
func (ps *PlansService) Get(ctx context.Context, planID string, opts ...CallOption) (*Plan, error) {
	return call[Plan](ctx, scopeOf(ps), apiRequest{opts: opts, method: http.MethodGet}, "plans", planID)
}

// Delete retires a plan: it takes no new subscriptions, while the existing
// ones keep being charged.
func (ps *PlansService) Delete(ctx context.Context, planID string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(ps), http.MethodDelete, opts, "plans", planID)
}

// List iterates over the plans, newest first.
func (ps *PlansService) List(ctx context.Context, params *ListParams, opts ...CallOption) iter.Seq2[*Plan, error] {
	q, err := params.query()
	return iterOf[Plan](ctx, scopeOf(ps), q, err, opts, "plans")
}

// ListPage returns one page of plans.
func (ps *PlansService) ListPage(ctx context.Context, params *ListParams, opts ...CallOption) ([]*Plan, error) {
	q, err := params.query()
	return pageOf[Plan](ctx, scopeOf(ps), q, err, opts, "plans")
}

// Subscriptions iterates over the subscriptions to a plan, newest first.
func (ps *PlansService) Subscriptions(ctx context.Context, planID string, params *ListParams, opts ...CallOption) iter.Seq2[*Subscription, error] {
	q, err := params.query()
	return iterOf[Subscription](ctx, scopeOf(ps), q, err, opts, "plans", planID, "subscriptions")
}

// SubscriptionsPage returns one page of a plan's subscriptions.
func (ps *PlansService) SubscriptionsPage(ctx context.Context, planID string, params *ListParams, opts ...CallOption) ([]*Subscription, error) {
	q, err := params.query()
	return pageOf[Subscription](ctx, scopeOf(ps), q, err, opts, "plans", planID, "subscriptions")
}

// Subscription returns one subscription to the plan, whichever customer
// holds it.
func (ps *PlansService) Subscription(ctx context.Context, planID, subscriptionID string, opts ...CallOption) (*Subscription, error) {
	return call[Subscription](ctx, scopeOf(ps), apiRequest{opts: opts, method: http.MethodGet}, "plans", planID, "subscriptions", subscriptionID)
}
