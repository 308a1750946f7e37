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

// Contract tests for plans and subscriptions: the SDK against the reference
// server on a fake clock, so that periods pass on demand.

func monthlyPlan(name string) openpay.PlanRequest {
	return openpay.PlanRequest{Name: name, Amount: openpay.MustAmount("150.00"), RepeatEvery: 1,
		RepeatUnit: openpay.RepeatUnitMonth, RetryTimes: 2, StatusAfterRetry: openpay.StatusAfterRetryUnpaid, TrialDays: 0}
}

// subscriber creates a customer with a saved card of the given number.
func (k *contract) subscriber(t *testing.T, number string) (*openpay.Customer, *openpay.Card) {
	t.Helper()
	ctx := context.Background()
	cust, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Sofia", Email: "sofia@example.com"})
	require.NoError(t, err)
	card, err := k.c.Customer(cust.ID).Cards.Create(ctx, cardRequest(number))
	require.NoError(t, err)
	return cust, card
}

func TestContractPlans(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()

	plan, err := k.c.Plans.Create(ctx, monthlyPlan("Basic"))
	require.NoError(t, err)
	assert.NotEmpty(t, plan.ID)
	assert.Equal(t, "Basic", plan.Name)
	assert.Equal(t, "150.00", plan.Amount.String())
	assert.Equal(t, openpay.CurrencyMXN, plan.Currency)
	assert.Equal(t, openpay.PlanStatusActive, plan.Status)

	got, err := k.c.Plans.Get(ctx, plan.ID)
	require.NoError(t, err)
	assert.Equal(t, plan.ID, got.ID)

	upd, err := k.c.Plans.Update(ctx, plan.ID, openpay.PlanUpdateRequest{Name: "Basic 2027", TrialDays: openpay.Ptr(7)})
	require.NoError(t, err)
	assert.Equal(t, "Basic 2027", upd.Name)
	assert.EqualValues(t, 7, upd.TrialDays)
	assert.Equal(t, "150.00", upd.Amount.String(), "the amount cannot change")

	// Validation, through the sentinels.
	bad := monthlyPlan("")
	_, err = k.c.Plans.Create(ctx, bad)
	assert.ErrorIs(t, err, openpay.ErrBadRequest)
	bad = monthlyPlan("Zero")
	bad.Amount = openpay.MustAmount("0")
	_, err = k.c.Plans.Create(ctx, bad)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	bad = monthlyPlan("Fortnight")
	bad.RepeatUnit = "fortnight"
	_, err = k.c.Plans.Create(ctx, bad)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = k.c.Plans.Get(ctx, "pnotthere")
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	// Lists: newest first, by iterator and by page.
	second, err := k.c.Plans.Create(ctx, monthlyPlan("Premium"))
	require.NoError(t, err)
	var ids []string
	for p, err := range k.c.Plans.List(ctx, nil) {
		require.NoError(t, err)
		ids = append(ids, p.ID)
	}
	assert.Equal(t, []string{second.ID, plan.ID}, ids)
	page, err := k.c.Plans.ListPage(ctx, &openpay.ListParams{Limit: 1})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, second.ID, page[0].ID)

	// A deleted plan takes no new subscriptions.
	require.NoError(t, k.c.Plans.Delete(ctx, second.ID))
	deleted, err := k.c.Plans.Get(ctx, second.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.PlanStatusDeleted, deleted.Status)
	cust, card := k.subscriber(t, openpaytest.CardVisa)
	_, err = k.c.Customer(cust.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: second.ID, SourceID: card.ID})
	var oe *openpay.Error
	require.ErrorAs(t, err, &oe, "a deleted plan must refuse a subscription")
	assert.Equal(t, openpay.CategoryRequest, oe.Category)
}

func TestContractSubscriptions(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()

	req := monthlyPlan("Monthly")
	req.TrialDays = 10
	plan, err := k.c.Plans.Create(ctx, req)
	require.NoError(t, err)
	cust, card := k.subscriber(t, openpaytest.CardVisa)
	subs := k.c.Customer(cust.ID).Subscriptions

	sub, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusTrial, sub.Status)
	assert.Equal(t, plan.ID, sub.PlanID)
	assert.Equal(t, cust.ID, sub.CustomerID)
	require.NotNil(t, sub.Card)
	assert.Equal(t, "411111XXXXXX1111", sub.Card.CardNumber)
	start := k.srv.Now()
	// The trial counts today as its first day (the gateway's example: a
	// 30-day trial started on the 14th ends on the 13th of the next month).
	assert.Equal(t, openpay.DateOf(start.AddDate(0, 0, 9)), sub.TrialEndDate)

	got, err := subs.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, sub.ID, got.ID)
	byPlan, err := k.c.Plans.Subscription(ctx, plan.ID, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, sub.ID, byPlan.ID)
	assert.Equal(t, cust.ID, byPlan.CustomerID, "found through the plan, without the customer")
	_, err = k.c.Plans.Subscription(ctx, plan.ID, "snotthere")
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	charges := func() []*openpay.Transaction {
		page, err := k.c.Customer(cust.ID).Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: 100}})
		require.NoError(t, err)
		return page
	}
	assert.Empty(t, charges(), "no charge during the trial")

	// The trial ends and three monthly periods start: one charge each.
	_, err = k.srv.AdvanceClock(11 * 24 * time.Hour)
	require.NoError(t, err)
	got, err = subs.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusActive, got.Status)
	require.Len(t, charges(), 1)
	for range 2 {
		_, err = k.srv.AdvanceClock(31 * 24 * time.Hour)
		require.NoError(t, err)
	}
	made := charges()
	require.Len(t, made, 3)
	for _, ch := range made {
		assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
		assert.Equal(t, "150.00", ch.Amount.String())
	}
	got, err = subs.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.EqualValues(t, 3, got.CurrentPeriodNumber)

	// The plan lists its subscriptions.
	var planSubs []string
	for s, err := range k.c.Plans.Subscriptions(ctx, plan.ID, nil) {
		require.NoError(t, err)
		planSubs = append(planSubs, s.ID)
	}
	assert.Equal(t, []string{sub.ID}, planSubs)

	// Cancel at the end of the paid period: no further charge.
	upd, err := subs.Update(ctx, sub.ID, openpay.SubscriptionUpdateRequest{CancelAtPeriodEnd: openpay.Ptr(true)})
	require.NoError(t, err)
	assert.True(t, upd.CancelAtPeriodEnd)
	_, err = k.srv.AdvanceClock(40 * 24 * time.Hour)
	require.NoError(t, err)
	got, err = subs.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusCancelled, got.Status)
	assert.Len(t, charges(), 3)

	// A second subscription with an inline card, deleted at once.
	second, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, Card: openpay.Ptr(inlineCard(openpaytest.CardMastercard))})
	require.NoError(t, err)
	var listed []string
	for s, err := range subs.List(ctx, nil) {
		require.NoError(t, err)
		listed = append(listed, s.ID)
	}
	assert.Equal(t, []string{second.ID, sub.ID}, listed, "newest first")
	require.NoError(t, subs.Cancel(ctx, second.ID))
	// The deleted subscription is gone (read: 1005; not listed), and a
	// retried delete succeeds (openapi.yaml, deleteSubscription).
	_, err = subs.Get(ctx, second.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	listed = nil
	for s, err := range subs.List(ctx, nil) {
		require.NoError(t, err)
		listed = append(listed, s.ID)
	}
	assert.Equal(t, []string{sub.ID}, listed)
	require.NoError(t, subs.Cancel(ctx, second.ID))

	// Failures through the sentinels.
	_, err = subs.Create(ctx, openpay.SubscriptionRequest{PlanID: "pnotthere", SourceID: card.ID})
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: "knotthere"})
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID})
	assert.ErrorIs(t, err, openpay.ErrBadRequest)
	_, err = k.c.Customer("cnotthere").Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
	assert.ErrorIs(t, err, openpay.ErrNotFound)
}

// A trial end day chosen by the merchant travels as an openpay.Date: sent
// on creation and on update, it comes back as the same day on every read,
// and the first charge is due the day after.
func TestContractSubscriptionTrialEndDate(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	plan, err := k.c.Plans.Create(ctx, monthlyPlan("No trial of its own"))
	require.NoError(t, err)
	cust, card := k.subscriber(t, openpaytest.CardVisa)
	subs := k.c.Customer(cust.ID).Subscriptions

	// Far enough ahead that the server's time zone cannot make it today.
	trialEnd := openpay.DateOf(k.srv.Now()).AddDays(20)
	sub, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID, TrialEndDate: trialEnd})
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusTrial, sub.Status)
	assert.Equal(t, trialEnd, sub.TrialEndDate)
	assert.Equal(t, trialEnd, sub.PeriodEndDate)
	assert.Equal(t, trialEnd.AddDays(1), sub.ChargeDate)
	got, err := subs.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, trialEnd, got.TrialEndDate)
	assert.Equal(t, trialEnd.AddDays(1), got.ChargeDate)

	longer := trialEnd.AddDays(7)
	upd, err := subs.Update(ctx, sub.ID, openpay.SubscriptionUpdateRequest{TrialEndDate: longer})
	require.NoError(t, err)
	assert.Equal(t, longer, upd.TrialEndDate)
	assert.Equal(t, longer.AddDays(1), upd.ChargeDate)
	listed, err := subs.ListPage(ctx, nil)
	require.NoError(t, err)
	require.Len(t, listed, 1)
	assert.Equal(t, longer, listed[0].TrialEndDate)

	// Without a trial the answer has no trial_end_date: the zero Date.
	plain, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
	require.NoError(t, err)
	assert.Equal(t, openpay.SubscriptionStatusActive, plain.Status)
	assert.True(t, plain.TrialEndDate.IsZero())
	assert.True(t, plain.ChargeDate.After(openpay.DateOf(k.srv.Now())))
}

// A card that keeps failing: past_due, then the plan's status_after_retry
// once its retries are spent.
func TestContractSubscriptionRetries(t *testing.T) {
	t.Parallel()
	for _, after := range []openpay.StatusAfterRetry{openpay.StatusAfterRetryUnpaid, openpay.StatusAfterRetryCancelled} {
		t.Run(string(after), func(t *testing.T) {
			t.Parallel()
			k := newContract(t, openpaytest.Deterministic())
			ctx := context.Background()
			req := monthlyPlan("Retrying")
			req.TrialDays = 3
			req.StatusAfterRetry = after
			plan, err := k.c.Plans.Create(ctx, req)
			require.NoError(t, err)
			cust, card := k.subscriber(t, openpaytest.CardInsufficientFunds)
			sub, err := k.c.Customer(cust.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
			require.NoError(t, err)

			_, err = k.srv.AdvanceClock(4 * 24 * time.Hour)
			require.NoError(t, err)
			got, err := k.c.Customer(cust.ID).Subscriptions.Get(ctx, sub.ID)
			require.NoError(t, err)
			assert.Equal(t, openpay.SubscriptionStatusPastDue, got.Status)

			for range 10 {
				_, err = k.srv.AdvanceClock(24 * time.Hour)
				require.NoError(t, err)
			}
			got, err = k.c.Customer(cust.ID).Subscriptions.Get(ctx, sub.ID)
			require.NoError(t, err)
			assert.Equal(t, string(after), string(got.Status))
		})
	}
}

// Deleting a customer cancels its subscriptions.
func TestContractCustomerDeleteCancelsSubscriptions(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	plan, err := k.c.Plans.Create(ctx, monthlyPlan("Monthly"))
	require.NoError(t, err)
	cust, card := k.subscriber(t, openpaytest.CardVisa)
	sub, err := k.c.Customer(cust.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
	require.NoError(t, err)
	require.NoError(t, k.c.Customers.Delete(ctx, cust.ID))
	for s, err := range k.c.Plans.Subscriptions(ctx, plan.ID, nil) {
		require.NoError(t, err)
		if s.ID == sub.ID {
			assert.Equal(t, openpay.SubscriptionStatusCancelled, s.Status)
		}
	}
}
