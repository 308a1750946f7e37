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

// A renewal is tied to its subscription in a typed way: each
// charge.succeeded and subscription.charge.failed event of a renewal gives
// its subscription through RenewalOf; a one-off charge with an order_id,
// or of another amount, renews none; two subscriptions charging one card
// the same amount are reported as ambiguous, never guessed.
func TestRenewalIsTiedToItsSubscription(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	pro, err := k.c.Plans.Create(ctx, monthlyPlan("Pro"))
	require.NoError(t, err)
	team := monthlyPlan("Team")
	team.Amount = openpay.MustAmount("480.00")
	teamPlan, err := k.c.Plans.Create(ctx, team)
	require.NoError(t, err)

	cust, card := k.subscriber(t, openpaytest.CardVisa)
	cc := k.c.Customer(cust.ID)
	proSub, err := cc.Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: pro.ID, SourceID: card.ID})
	require.NoError(t, err)
	teamSub, err := cc.Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: teamPlan.ID, SourceID: card.ID})
	require.NoError(t, err)
	oneOff, err := cc.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("150.00"),
		Description: "Extra seats", OrderID: "inv-7", DeviceSessionID: "s"})
	require.NoError(t, err)
	_, err = k.srv.AdvanceClock(62 * 24 * time.Hour) // two renewals each
	require.NoError(t, err)

	renewals := map[string]int{}
	for _, ev := range k.srv.Events() {
		if ev.Type != openpay.EventTypeChargeSucceeded {
			continue
		}
		sub, err := cc.RenewalOf(ctx, ev.Transaction)
		if ev.Transaction.ID == oneOff.ID {
			assert.ErrorIs(t, err, openpay.ErrNotFound, "a charge with an order_id is not a renewal")
			continue
		}
		require.NoError(t, err)
		renewals[sub.ID]++
	}
	assert.Equal(t, map[string]int{proSub.ID: 3, teamSub.ID: 3}, renewals, "the first period and two renewals each")

	// Another amount on the same card: no renewal.
	other, err := cc.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("99.00"),
		Description: "Other", DeviceSessionID: "s"})
	require.NoError(t, err)
	_, err = cc.RenewalOf(ctx, other)
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	// A failed renewal, from its subscription.charge.failed event.
	cust2, bad := k.subscriber(t, openpaytest.CardInsufficientFunds)
	trial := monthlyPlan("Trial")
	trial.TrialDays = 3
	trialPlan, err := k.c.Plans.Create(ctx, trial)
	require.NoError(t, err)
	cc2 := k.c.Customer(cust2.ID)
	dunned, err := cc2.Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: trialPlan.ID, SourceID: bad.ID})
	require.NoError(t, err)
	_, err = k.srv.AdvanceClock(3 * 24 * time.Hour)
	require.NoError(t, err)
	var failed int
	for _, ev := range k.srv.Events() {
		if p, ok := ev.Payload().(*openpay.SubscriptionChargeEvent); ok {
			sub, err := cc2.RenewalOf(ctx, p.Charge)
			require.NoError(t, err)
			assert.Equal(t, dunned.ID, sub.ID)
			assert.Equal(t, openpay.ErrCardInsufficientFunds, p.Charge.ErrorCode)
			failed++
		}
	}
	assert.Equal(t, 1, failed)

	// Two subscriptions charging one card the same amount: ambiguous.
	twin, err := cc.Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: pro.ID, SourceID: card.ID})
	require.NoError(t, err)
	_, err = k.srv.AdvanceClock(31 * 24 * time.Hour)
	require.NoError(t, err)
	evs := k.srv.Events()
	last := evs[len(evs)-1].Transaction
	for i := len(evs) - 1; i >= 0; i-- {
		if tx := evs[i].Transaction; tx != nil && tx.CustomerID == cust.ID && tx.Amount.String() == "150.00" && tx.Status == openpay.TransactionStatusCompleted {
			last = tx
			break
		}
	}
	_, err = cc.RenewalOf(ctx, last)
	assert.ErrorIs(t, err, openpay.ErrAmbiguousRenewal)
	assert.ErrorContains(t, err, twin.ID)
}
