package openpay_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const subscriptionsRoute = "/v1/{merchant_id}/customers/{customer_id}/subscriptions"

// subscriptionsOf counts the customer's subscriptions and completed
// charges: the books a lost create must not double.
func subscriptionsOf(t *testing.T, c *openpay.Client, customerID string) (subs, paid int) {
	t.Helper()
	ctx := context.Background()
	for _, err := range c.Customer(customerID).Subscriptions.List(ctx, nil) {
		require.NoError(t, err)
		subs++
	}
	for ch, err := range c.Customer(customerID).Charges.List(ctx, nil) {
		require.NoError(t, err)
		if ch.Status == openpay.TransactionStatusCompleted {
			paid++
		}
	}
	return subs, paid
}

// A create whose answer is lost after the server made the subscription
// (Drop-after) returns that subscription: nothing to settle, nothing
// doubled.
func TestSubscriptionCreateWithLostAnswerIsSettled(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	plan, err := k.c.Plans.Create(ctx, monthlyPlan("Pro"))
	require.NoError(t, err)
	cust, card := k.subscriber(t, openpaytest.CardVisa)
	require.NoError(t, k.srv.InjectFault(openpaytest.Fault{Method: "POST", Path: subscriptionsRoute, Drop: openpaytest.DropAfter}))
	sub, err := k.c.Customer(cust.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
	require.NoError(t, err, "the lookup finds what the lost create made")
	assert.Equal(t, plan.ID, sub.PlanID)
	assert.Equal(t, openpay.SubscriptionStatusActive, sub.Status)
	subs, paid := subscriptionsOf(t, k.c, cust.ID)
	assert.Equal(t, 1, subs)
	assert.Equal(t, 1, paid)

	// With card data: the card is matched by its number.
	cust2, _ := k.subscriber(t, openpaytest.CardMastercard)
	require.NoError(t, k.srv.InjectFault(openpaytest.Fault{Method: "POST", Path: subscriptionsRoute, Drop: openpaytest.DropAfter}))
	inline := inlineCard(openpaytest.CardVisaCredit)
	sub, err = k.c.Customer(cust2.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, Card: &inline})
	require.NoError(t, err)
	assert.Equal(t, "424242XXXXXX4242", sub.Card.CardNumber)
}

// A recovery that follows the docs never makes a second subscription, even
// while the first create is still being carried out: FindCreated answers
// "unknown" (never "not found") until the in-flight bound has passed, then
// finds the first create's subscription.
func TestSubscriptionRecoveryWhileTheCreateIsInFlight(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	plan, err := k.c.Plans.Create(ctx, monthlyPlan("Pro"))
	require.NoError(t, err)
	cust, card := k.subscriber(t, openpaytest.CardVisa)
	req := openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID}
	subs := k.c.Customer(cust.ID).Subscriptions
	require.NoError(t, k.srv.InjectFault(openpaytest.Fault{Method: "POST", Path: subscriptionsRoute, Delay: 1500 * time.Millisecond}))

	began := time.Now()
	var wg sync.WaitGroup
	var first *openpay.Subscription
	var firstErr error
	wg.Go(func() { first, firstErr = subs.Create(ctx, req) })
	time.Sleep(300 * time.Millisecond) // the create waits at the server

	// The recovery job, following FindCreated's docs.
	_, err = subs.FindCreated(ctx, req, began)
	var unknown *openpay.OutcomeUnknownError
	require.ErrorAs(t, err, &unknown, "in flight: not found yet is not 'not found'")
	assert.NotErrorIs(t, err, openpay.ErrNotFound)
	assert.ErrorIs(t, err, openpay.ErrOutcomeUnknown)

	wg.Wait()
	require.NoError(t, firstErr)
	found, err := subs.FindCreated(ctx, req, began)
	require.NoError(t, err)
	assert.Equal(t, first.ID, found.ID)
	n, paid := subscriptionsOf(t, k.c, cust.ID)
	assert.Equal(t, 1, n)
	assert.Equal(t, 1, paid)
}

// A client that gives up on a slow create gets the subscription or an
// *OutcomeUnknownError, never a plain error that invites a second create;
// the documented recovery loop then ends with exactly one subscription.
// When the create made nothing (Drop-before, a 500 answered before
// acting), FindCreated says ErrNotFound once the in-flight bound has passed,
// and only then is the create sent again. The books are counted after the
// held create has had every chance to land.
func TestSubscriptionRecoveryLoopMakesOne(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	c, err := openpay.New(k.srv.MerchantID, k.srv.PrivateKey, openpay.WithBaseURL(k.srv.URL),
		openpay.WithTimeout(200*time.Millisecond), openpay.WithInFlightBound(1500*time.Millisecond))
	require.NoError(t, err)
	ctx := context.Background()
	plan, err := c.Plans.Create(ctx, monthlyPlan("Pro"))
	require.NoError(t, err)

	recover := func(subs *openpay.SubscriptionsService, req openpay.SubscriptionRequest) *openpay.Subscription {
		began := time.Now()
		sub, err := subs.Create(ctx, req)
		for attempt := 0; err != nil; attempt++ {
			require.Less(t, attempt, 100)
			switch {
			case errors.Is(err, openpay.ErrNotFound):
				began = time.Now()
				sub, err = subs.Create(ctx, req) // the docs allow it now
			case errors.Is(err, openpay.ErrOutcomeUnknown):
				time.Sleep(50 * time.Millisecond)
				sub, err = subs.FindCreated(ctx, req, began)
			default:
				require.NoError(t, err)
			}
		}
		return sub
	}

	for _, f := range []openpaytest.Fault{
		{Method: "POST", Path: subscriptionsRoute, Delay: time.Second},
		{Method: "POST", Path: subscriptionsRoute, Drop: openpaytest.DropBefore},
		{Method: "POST", Path: subscriptionsRoute, ErrorCode: openpay.ErrInternalServer},
	} {
		cust, card := k.subscriber(t, openpaytest.CardVisa)
		require.NoError(t, k.srv.InjectFault(f))
		sub := recover(c.Customer(cust.ID).Subscriptions, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
		time.Sleep(1200 * time.Millisecond) // past the delay fault: a held create has landed
		n, paid := subscriptionsOf(t, c, cust.ID)
		assert.Equal(t, 1, n, "%+v", f)
		assert.Equal(t, 1, paid, "%+v", f)
		assert.Equal(t, plan.ID, sub.PlanID)
	}
}
