package openpay_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lifecycle as the godoc tells it: a failed renewal is one failed
// transaction with its code, sent as charge.failed and
// subscription.charge.failed; past_due -> unpaid after the plan's retries;
// unpaid stays unpaid after a card update, its ChargeDate a past day; and
// the two deletes side by side: Subscriptions.Cancel makes it gone,
// Customers.Delete leaves it cancelled and readable through its plan.
func TestSubscriptionLifecycleAsDocumented(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	req := monthlyPlan("Dunning")
	req.TrialDays, req.RetryTimes = 1, 1
	plan, err := k.c.Plans.Create(ctx, req)
	require.NoError(t, err)
	cust, bad := k.subscriber(t, openpaytest.CardInsufficientFunds)
	cc := k.c.Customer(cust.ID)
	sub, err := cc.Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: bad.ID})
	require.NoError(t, err)
	_, err = k.srv.AdvanceClock(2 * 24 * time.Hour) // the first charge and its one retry fail
	require.NoError(t, err)
	got, err := cc.Subscriptions.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusUnpaid, got.Status)

	byTx := map[string][]openpay.EventType{}
	for _, ev := range k.srv.Events() {
		if ev.Type == openpay.EventTypeChargeFailed || ev.Type == openpay.EventTypeSubscriptionChargeFailed {
			require.Equal(t, openpay.ErrCardInsufficientFunds, ev.Transaction.ErrorCode)
			byTx[ev.Transaction.ID] = append(byTx[ev.Transaction.ID], ev.Type)
		}
	}
	require.Len(t, byTx, 2, "one failed transaction per attempt")
	for _, types := range byTx {
		assert.Equal(t, []openpay.EventType{openpay.EventTypeChargeFailed, openpay.EventTypeSubscriptionChargeFailed}, types)
	}

	// A card update does not bring an unpaid subscription back.
	good, err := cc.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	got, err = cc.Subscriptions.Update(ctx, sub.ID, openpay.SubscriptionUpdateRequest{SourceID: good.ID})
	require.NoError(t, err)
	assert.Equal(t, good.ID, got.Card.ID, "the update takes the card")
	_, err = k.srv.AdvanceClock(40 * 24 * time.Hour)
	require.NoError(t, err)
	got, err = cc.Subscriptions.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusUnpaid, got.Status)
	assert.True(t, got.ChargeDate.Before(openpay.DateOf(k.srv.Now())), "ChargeDate of a final status is a past day")
	for ch, err := range cc.Charges.List(ctx, nil) {
		require.NoError(t, err)
		assert.NotEqual(t, openpay.TransactionStatusCompleted, ch.Status, "nothing is charged once unpaid")
	}

	// The two deletes side by side.
	ok := monthlyPlan("Plain")
	okPlan, err := k.c.Plans.Create(ctx, ok)
	require.NoError(t, err)
	a, aCard := k.subscriber(t, openpaytest.CardVisa)
	b, bCard := k.subscriber(t, openpaytest.CardVisa)
	aSub, err := k.c.Customer(a.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: okPlan.ID, SourceID: aCard.ID})
	require.NoError(t, err)
	bSub, err := k.c.Customer(b.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: okPlan.ID, SourceID: bCard.ID})
	require.NoError(t, err)
	require.NoError(t, k.c.Customer(a.ID).Subscriptions.Cancel(ctx, aSub.ID))
	require.NoError(t, k.c.Customer(a.ID).Subscriptions.Cancel(ctx, aSub.ID), "a retried Cancel succeeds")
	_, err = k.c.Plans.Subscription(ctx, okPlan.ID, aSub.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound, "Subscriptions.Cancel: gone on the plan's path too")
	require.NoError(t, k.c.Customers.Delete(ctx, b.ID))
	_, err = k.c.Customer(b.ID).Subscriptions.Get(ctx, bSub.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound, "the customer is gone")
	kept, err := k.c.Plans.Subscription(ctx, okPlan.ID, bSub.ID)
	require.NoError(t, err, "Customers.Delete: cancelled, readable through the plan")
	assert.Equal(t, openpay.SubscriptionStatusCancelled, kept.Status)
}
