package openpaytest_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shopBooks is what one merchant's suite made: a monthly subscription and
// a store charge due in three days.
type shopBooks struct {
	m           *openpaytest.Merchant
	c           *openpay.Client
	customerID  string
	sub         *openpay.Subscription
	storeCharge string
}

const monthlyFee = "299.00"

// openShop subscribes a customer to a monthly plan (charged at once) and
// leaves a store charge unpaid, due in three days.
func openShop(t *testing.T, m *openpaytest.Merchant) *shopBooks {
	t.Helper()
	ctx := context.Background()
	c, err := m.Client(openpay.WithDefaultClientIP("203.0.113.7"))
	require.NoError(t, err)
	plan, err := c.Plans.Create(ctx, openpay.PlanRequest{Name: "Pro", Amount: openpay.MustAmount(monthlyFee), RepeatEvery: 1,
		RepeatUnit: openpay.RepeatUnitMonth, RetryTimes: 2, StatusAfterRetry: openpay.StatusAfterRetryCancelled})
	require.NoError(t, err)
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Sofía", Email: "sofia@example.com"})
	require.NoError(t, err)
	card, err := c.Customer(cu.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Sofía Méndez",
		CardNumber: openpaytest.CardVisa, CVV2: openpaytest.CVV(openpaytest.CardVisa), ExpirationMonth: "12",
		ExpirationYear: "30"}})
	require.NoError(t, err)
	sub, err := c.Customer(cu.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
	require.NoError(t, err)
	ch, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("80"), Description: "Order 9",
		DueDate: m.Now().Add(72 * time.Hour)})
	require.NoError(t, err)
	return &shopBooks{m: m, c: c, customerID: cu.ID, sub: sub, storeCharge: ch.ID}
}

// state reads the merchant's books: the subscription, the store charge's
// status, the subscription's card charges (newest first) and the balance.
func (b *shopBooks) state(t *testing.T) (sub *openpay.Subscription, store openpay.TransactionStatus, renewals []*openpay.Transaction, balance openpay.Amount) {
	t.Helper()
	ctx := context.Background()
	sub, err := b.c.Customer(b.customerID).Subscriptions.Get(ctx, b.sub.ID)
	require.NoError(t, err)
	ch, err := b.c.Charges.Get(ctx, b.storeCharge)
	require.NoError(t, err)
	renewals, err = b.c.Customer(b.customerID).Charges.ListPage(ctx, &openpay.TransactionListParams{})
	require.NoError(t, err)
	return sub, ch.Status, renewals, b.m.Balance()
}

// Two suites share a server, a merchant each. One moves its merchant's
// clock 40 days: its subscription renews and its unpaid store charge
// expires, dated in its own time; the other's books, its clock and the
// server's stand still. The server's clock then moves the other merchant
// alone, and the first merchant's reset makes it follow the server's
// clock again.
func TestMerchantClocksShareAServer(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	other, err := srv.AddMerchant("", "", "")
	require.NoError(t, err)
	a, b := openShop(t, &srv.Merchant), openShop(t, other)
	start := openpaytest.DefaultStart
	fee := openpay.MustAmount(monthlyFee)

	_, _, aCharges, aBalance := a.state(t)
	require.Len(t, aCharges, 1, "the first period is charged at once")
	bSub, bStore, bCharges, bBalance := b.state(t)
	require.Len(t, bCharges, 1)
	require.Equal(t, openpay.TransactionStatusInProgress, bStore)

	now, err := a.m.AdvanceClock(40 * 24 * time.Hour)
	require.NoError(t, err)
	assert.Equal(t, start.Add(40*24*time.Hour), now)
	assert.Equal(t, now, a.m.Now())

	sub, store, charges, balance := a.state(t)
	assert.Equal(t, openpay.TransactionStatusCancelled, store, "the unpaid store charge expired on A's clock")
	require.Len(t, charges, 2, "A's subscription renewed once in 40 days")
	renewal := charges[0]
	assert.Equal(t, openpay.TransactionStatusCompleted, renewal.Status)
	assert.True(t, renewal.CreationDate.After(start.Add(27*24*time.Hour)), "the renewal is dated in A's time: %v", renewal.CreationDate)
	assert.Equal(t, aBalance.Add(fee).String(), balance.String(), "the renewal is credited once")
	assert.True(t, sub.ChargeDate.After(a.sub.ChargeDate), "the next charge moved a period on: %v", sub.ChargeDate)
	cancelled := 0
	for _, ev := range a.m.Events() {
		if ev.Type == openpay.EventTypeChargeCancelled {
			cancelled++
		}
	}
	assert.Equal(t, 1, cancelled, "charge.cancelled once")

	// B, and the server, did not move.
	assert.Equal(t, start, srv.Now(), "the server's clock")
	assert.Equal(t, start, b.m.Now(), "B's clock")
	sub, store, charges, balance = b.state(t)
	assert.Equal(t, openpay.TransactionStatusInProgress, store)
	assert.Len(t, charges, 1)
	assert.Equal(t, bBalance.String(), balance.String())
	assert.Equal(t, bSub.ChargeDate, sub.ChargeDate)
	cu, err := b.c.Customers.Create(context.Background(), openpay.CustomerRequest{Name: "Bea", Email: "bea@example.com"})
	require.NoError(t, err)
	assert.True(t, cu.CreationDate.Equal(start), "B's records are dated by the server's clock: %v", cu.CreationDate)

	// The server's clock moves B (which follows it), not A.
	_, err = srv.AdvanceClock(40 * 24 * time.Hour)
	require.NoError(t, err)
	_, store, charges, balance = b.state(t)
	assert.Equal(t, openpay.TransactionStatusCancelled, store)
	assert.Len(t, charges, 2)
	assert.Equal(t, bBalance.Add(fee).String(), balance.String())
	assert.Equal(t, start.Add(40*24*time.Hour), a.m.Now(), "A keeps its own time")
	_, _, charges, _ = a.state(t)
	assert.Len(t, charges, 2, "A's subscription was not charged by the server's clock")

	// A's reset: its records are gone and its clock follows the server's
	// again; B keeps its books.
	require.NoError(t, a.m.Reset())
	assert.Equal(t, srv.Now(), a.m.Now())
	list, err := a.c.Charges.ListPage(context.Background(), &openpay.TransactionListParams{})
	require.NoError(t, err)
	assert.Empty(t, list)
	_, _, charges, _ = b.state(t)
	assert.Len(t, charges, 2)
	_, err = srv.AdvanceClock(time.Hour)
	require.NoError(t, err)
	assert.Equal(t, srv.Now(), a.m.Now(), "A moves with the server's clock again")
}

// A merchant's clock can be set, back or forth, on a server on the wall
// clock too: it then stands still, so a suite's dates are fixed while
// others' run on the wall clock.
func TestMerchantSetClock(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	other, err := srv.AddMerchant("", "", "")
	require.NoError(t, err)
	at := time.Date(2030, time.March, 1, 9, 30, 0, 0, openpay.CountryMexico.Location())
	now, err := srv.Merchant.SetClock(at)
	require.NoError(t, err)
	assert.True(t, now.Equal(at))
	c, err := srv.Client()
	require.NoError(t, err)
	cu, err := c.Customers.Create(context.Background(), openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	assert.True(t, cu.CreationDate.Equal(at), "dated by the merchant's frozen clock: %v", cu.CreationDate)
	assert.WithinDuration(t, time.Now(), other.Now(), time.Minute, "the other merchant stays on the wall clock")
	_, err = srv.AdvanceClock(time.Hour)
	assert.ErrorIs(t, err, openpaytest.ErrRealClock, "the server's clock is still the wall clock")

	back, err := srv.Merchant.SetClock(at.Add(-24 * time.Hour))
	require.NoError(t, err)
	assert.True(t, back.Equal(at.Add(-24*time.Hour)), "a merchant's clock may be set back: %v", back)
	_, err = srv.Merchant.AdvanceClock(-time.Hour)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = srv.Merchant.SetClock(time.Time{})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
}

// The server's SetClock moves the merchants that follow its clock (their
// work runs on the way) and not one with a clock of its own; set back, it
// only moves back.
func TestServerSetClock(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	other, err := srv.AddMerchant("", "", "")
	require.NoError(t, err)
	start := openpaytest.DefaultStart
	_, err = other.SetClock(start) // its own clock, standing where the server's stands
	require.NoError(t, err)
	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"))
	require.NoError(t, err)
	ch, err := c.Charges.Create(context.Background(), openpay.StoreCharge{Amount: openpay.MustAmount("80"), Description: "Order 9",
		DueDate: start.Add(48 * time.Hour)})
	require.NoError(t, err)

	now, err := srv.SetClock(start.Add(72 * time.Hour))
	require.NoError(t, err)
	assert.Equal(t, start.Add(72*time.Hour), now)
	assert.Equal(t, now, srv.Merchant.Now())
	assert.Equal(t, start, other.Now(), "a merchant with its own clock does not move")
	got, err := c.Charges.Get(context.Background(), ch.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, got.Status, "the due date passed on the way")

	now, err = srv.SetClock(start)
	require.NoError(t, err)
	assert.Equal(t, start, now)
	got, err = c.Charges.Get(context.Background(), ch.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, got.Status, "what was done stays done")
}
