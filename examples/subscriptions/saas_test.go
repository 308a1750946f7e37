package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Thirteen months of the SaaS's billing on the fake clock, with answers
// lost on subscription creates, a busy gateway on re-reads and every
// webhook delivered twice and out of order: each customer's invoices match
// the gateway's charges to the cent, transaction by transaction, and the
// merchant's balance is what the invoices say was paid. The dunning took
// the expired card's owner back and let the broke one go; the plan change
// neither overlapped nor left a gap.
func TestSaaSThirteenMonthsBalancesToTheCent(t *testing.T) {
	env, err := exampleenv.Connect(openpaytest.Deterministic())
	require.NoError(t, err)
	defer env.Close()
	if env.Sim == nil {
		t.Skip("the thirteen months need the embedded server's clock; OPENPAY_MERCHANT_ID is set")
	}
	ctx := context.Background()
	var out bytes.Buffer
	r, err := runSaaS(ctx, env, &out, saasMonths, true)
	require.NoError(t, err, out.String())
	t.Log("\n" + out.String())
	c := env.Client

	total := openpay.MustAmount("0")
	byName := map[string]*subscriber{}
	for _, s := range r.subscribers {
		byName[s.name] = s
		paid, paidIDs, failedIDs := r.b.ledger(s.customer.ID)
		gwPaid, gwPaidIDs, gwFailedIDs, err := gatewayLedger(ctx, c, s.customer.ID)
		require.NoError(t, err)
		assert.Equal(t, gwPaid.String(), paid.String(), "%s: invoices and charges to the cent", s.name)
		assert.Equal(t, gwPaidIDs, paidIDs, "%s: one paid invoice per completed charge", s.name)
		assert.Equal(t, gwFailedIDs, failedIDs, "%s: one failed invoice per failed charge", s.name)
		total = total.Add(paid)
		subs := 0
		for _, err := range c.Customer(s.customer.ID).Subscriptions.List(ctx, nil) {
			require.NoError(t, err)
			subs++
		}
		want := 1
		if s.name == "elena" {
			want = 2 // the monthly one, cancelled, and the yearly one
		}
		assert.Equal(t, want, subs, "%s: no subscription made twice", s.name)
	}
	assert.Equal(t, env.Sim.Balance().String(), total.String(), "the merchant's balance is what was invoiced")
	assert.Positive(t, r.redelivered, "the busy gateway made a delivery fail, and it came again")

	count := func(name string) (paid, failed int) {
		_, p, f := r.b.ledger(byName[name].customer.ID)
		return len(p), len(f)
	}
	status := func(name string) openpay.SubscriptionStatus {
		s := byName[name]
		sub, err := c.Customer(s.customer.ID).Subscriptions.Get(ctx, s.sub.ID)
		require.NoError(t, err)
		return sub.Status
	}
	// ana: the trial, then every month of the year and one more.
	paid, failed := count("ana")
	assert.Equal(t, 13, paid)
	assert.Zero(t, failed)
	assert.Equal(t, openpay.SubscriptionStatusActive, status("ana"))
	// bruno: the card expired, the dunning asked for another, the retry paid.
	paid, failed = count("bruno")
	assert.Equal(t, 13, paid, "no period lost to the expired card")
	assert.Equal(t, 1, failed)
	assert.Equal(t, 1, r.cardsTaken)
	assert.Equal(t, openpay.SubscriptionStatusActive, status("bruno"))
	for _, inv := range r.b.invoices {
		if inv.CustomerID == byName["bruno"].customer.ID && !inv.Paid {
			assert.Equal(t, openpay.ErrCardExpired, inv.Code)
		}
		if inv.CustomerID == byName["carla"].customer.ID {
			assert.Equal(t, openpay.ErrCardInsufficientFunds, inv.Code)
		}
	}
	// carla: the first charge and three retries failed; unpaid, churned.
	paid, failed = count("carla")
	assert.Zero(t, paid)
	assert.Equal(t, 4, failed)
	assert.Equal(t, openpay.SubscriptionStatusUnpaid, status("carla"))
	assert.True(t, r.b.churned[byName["carla"].sub.ID])
	// diego: a year paid at once, and the next one on its anniversary.
	paid, _ = count("diego")
	assert.Equal(t, 2, paid)
	// elena: monthly until the change took effect, then yearly from the
	// next charge day, so the months paid and the year are contiguous.
	assert.Equal(t, openpay.SubscriptionStatusCancelled, status("elena"))
	moved, err := c.Customer(byName["elena"].customer.ID).Subscriptions.Get(ctx, r.moved.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusActive, moved.Status)
	assert.Equal(t, 1, moved.CurrentPeriodNumber)
	// hernan, in Colombia: a COP plan, its invoices the Colombian account's
	// charges to the cent, each the plan's amount.
	hernan := r.coSubscriber.customer.ID
	coPaid, coIDs, coFailed := r.coBilling.ledger(hernan)
	gwPaid, gwIDs, gwFailed, err := gatewayLedger(ctx, r.coClient, hernan)
	require.NoError(t, err)
	assert.Equal(t, gwPaid.String(), coPaid.String())
	assert.Equal(t, gwIDs, coIDs)
	assert.Equal(t, gwFailed, coFailed)
	assert.Len(t, coIDs, 13)
	assert.Equal(t, "648700.00", coPaid.String())
	assert.Equal(t, r.co.Balance().String(), coPaid.String(), "the Colombian account holds what was invoiced")
	for _, inv := range r.coBilling.invoices {
		assert.Equal(t, openpay.CurrencyCOP, inv.Currency)
		assert.Equal(t, "49900.00", inv.Amount.String(), "the plan's amount, no IVA added")
	}
	// fernanda and gabriel: subscribed once despite the lost answers.
	for _, name := range []string{"fernanda", "gabriel"} {
		paid, _ = count(name)
		assert.Equal(t, 13, paid, name)
	}
}

var saasMonths = 13
