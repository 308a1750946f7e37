package refserver

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of subscriptions. The server's clock starts on 2026-03-10 at 12:00
// (testStart); days below are counted from there. Time moves with
// env.s.AdvanceClock, which runs the schedule, or env.clock.Advance, which
// does not (for creation dates only).

// subPath is the main merchant's path of a customer's subscriptions.
func subPath(cu string, rest ...string) string {
	return "/customers/" + cu + "/subscriptions" + strings.Join(rest, "")
}

// subscribe creates a subscription of the customer to the plan, charged to
// the stored card, and returns it.
func subscribe(t *testing.T, env *testEnv, cu, plan, card string, kv ...any) map[string]any {
	t.Helper()
	body := with(map[string]any{"plan_id": plan, "source_id": card}, kv...)
	return requireOK(t, env.post(subPath(cu), body), http.StatusOK)
}

// getSub reads a subscription.
func getSub(t *testing.T, env *testEnv, cu, id string) map[string]any {
	t.Helper()
	return requireOK(t, env.get(subPath(cu, "/", id)), http.StatusOK)
}

// advanceDays moves the clock n days on, running the schedule.
func advanceDays(t *testing.T, env *testEnv, n int) {
	t.Helper()
	_, err := env.s.AdvanceClock(time.Duration(n) * 24 * time.Hour)
	require.NoError(t, err)
}

// chargesWith lists the customer's charges with the given status
// (COMPLETED, FAILED, ...), newest first.
func chargesWith(t *testing.T, env *testEnv, cu, status string) []map[string]any {
	t.Helper()
	return env.get("/customers/" + cu + "/charges?limit=100&status=" + status).arr(t)
}

// completedCharges lists the customer's completed charges.
func completedCharges(t *testing.T, env *testEnv, cu string) []map[string]any {
	t.Helper()
	return chargesWith(t, env, cu, "COMPLETED")
}

// eventsOfTypes returns "type transaction-id" for each event of the main
// merchant whose type is one of types, oldest first.
func eventsOfTypes(env *testEnv, types ...string) []string {
	var out []string
	for _, ev := range env.s.Events(env.m.ID) {
		for _, typ := range types {
			if string(ev.Type) == typ {
				out = append(out, typ+" "+ev.Transaction.ID)
			}
		}
	}
	return out
}

// inlineCard is card data for a subscription's card member.
func inlineCard(number string) map[string]any { return validCard(number) }

func TestSubscriptionWithTrialAnswersTheSubscription(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env) // 30 trial days
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")

	o := subscribe(t, env, cu, plan, card)
	assert.Regexp(t, `^s[a-z0-9]{19}$`, o["id"])
	assert.Equal(t, []string{"cancel_at_period_end", "card", "charge_date", "creation_date", "current_period_number",
		"customer_id", "id", "period_end_date", "plan_id", "status", "trial_end_date"}, keysOf(o))
	for k, v := range map[string]any{"status": "trial", "cancel_at_period_end": false, "creation_date": "2026-03-10T12:00:00-06:00",
		"current_period_number": 0.0, "plan_id": plan, "customer_id": cu,
		// 30 trial days counting today: 2026-03-10 to 2026-04-08.
		"trial_end_date": "2026-04-08", "charge_date": "2026-04-09", "period_end_date": "2026-04-08"} {
		assert.Equal(t, v, o[k], k)
	}
	k := o["card"].(map[string]any)
	assert.Equal(t, card, k["id"])
	assert.Equal(t, "411111XXXXXX1111", k["card_number"])
	stored := requireOK(t, env.get("/customers/"+cu+"/cards/"+card), http.StatusOK)
	stored["address"] = nil // a subscription's card always carries it
	assert.Equal(t, stored, k, "the card as the card API shows it")
	assert.NotContains(t, string(env.get(subPath(cu, "/", o["id"].(string))).body), "4111111111111111")

	assert.Equal(t, o, getSub(t, env, cu, o["id"].(string)))
	assert.Empty(t, env.get("/customers/"+cu+"/charges").arr(t), "nothing is charged during the trial")
}

func TestSubscriptionWithoutTrialChargesTheFirstPeriodAtOnce(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 0, "amount", 99.9)
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "5555555555554444")

	o := subscribe(t, env, cu, plan, card)
	for k, v := range map[string]any{"status": "active", "current_period_number": 1.0,
		"charge_date": "2026-04-10", "period_end_date": "2026-04-09"} {
		assert.Equal(t, v, o[k], k)
	}
	assert.NotContains(t, o, "trial_end_date", "there was no trial")
	charges := completedCharges(t, env, cu)
	require.Len(t, charges, 1)
	ch := charges[0]
	assert.Equal(t, 99.9, ch["amount"])
	assert.Equal(t, "MXN", ch["currency"])
	assert.Equal(t, "card", ch["method"])
	assert.Equal(t, cu, ch["customer_id"])
	assert.Contains(t, ch["description"], o["id"].(string))
	assert.Contains(t, ch["description"], "period 1")
	assert.Equal(t, card, ch["card"].(map[string]any)["id"])
	assert.Equal(t, []string{"charge.succeeded " + ch["id"].(string)}, eventsOfTypes(env, "charge.succeeded", "charge.failed", "subscription.charge.failed"))
	// The money is the merchant's (the customer has no account).
	assert.Equal(t, "99.90", balanceOf(t, env, ""))
}

func TestSubscriptionTrialEndDate(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env) // 30 trial days, overridden by trial_end_date
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")

	// A later day: the trial lasts until then.
	o := subscribe(t, env, cu, plan, card, "trial_end_date", "2026-05-01")
	assert.Equal(t, "trial", o["status"])
	assert.Equal(t, "2026-05-01", o["trial_end_date"])
	assert.Equal(t, "2026-05-02", o["charge_date"])
	assert.Equal(t, "2026-05-01", o["period_end_date"])
	// Today: the trial lasts today.
	o = subscribe(t, env, cu, plan, card, "trial_end_date", "2026-03-10")
	assert.Equal(t, "trial", o["status"])
	assert.Equal(t, "2026-03-11", o["charge_date"])
	assert.Empty(t, completedCharges(t, env, cu))
	// A past day: no trial, the first period is charged now.
	o = subscribe(t, env, cu, plan, card, "trial_end_date", "2026-03-09")
	assert.Equal(t, "active", o["status"])
	assert.NotContains(t, o, "trial_end_date")
	assert.Equal(t, "2026-04-10", o["charge_date"])
	assert.Len(t, completedCharges(t, env, cu), 1)
}

func TestSubscriptionCreateValidation(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env)
	cu := newCustomer(t, env, false)
	otherCu := createCustomerHTTP(t, env, "Luis", false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	othersCard := storedCard(t, env, "/customers/"+otherCu, "4242424242424242")
	merchantCard := storedCard(t, env, "", "4242424242424242")
	deletedCard := storedCard(t, env, "/customers/"+cu, "5555555555554444")
	requireOK(t, env.del("/customers/"+cu+"/cards/"+deletedCard), http.StatusNoContent)
	long := strings.Repeat("x", 46)
	valid := map[string]any{"plan_id": plan, "source_id": card}
	cases := []struct {
		body  any
		code  int
		words []string
	}{
		{"", 1001, nil},
		{"{", 1001, nil},
		{with(valid, "plan_id", nil), 1001, []string{"'plan_id'"}},
		{with(valid, "plan_id", 7), 1001, []string{"'plan_id'"}},
		{with(valid, "plan_id", ""), 1001, []string{"'plan_id'"}},
		{with(valid, "plan_id", long), 1003, []string{"'plan_id'"}},
		{with(valid, "source_id", nil), 1001, []string{"'source_id'", "'card'"}},
		{with(valid, "card", inlineCard("4242424242424242")), 1001, []string{"'source_id'", "'card'"}},
		{with(valid, "source_id", long), 1003, []string{"'source_id'"}},
		{with(valid, "source_id", 3), 1001, []string{"'source_id'"}},
		{with(valid, "trial_end_date", "2026/05/01"), 1001, []string{"'trial_end_date'"}},
		{with(valid, "trial_end_date", 20260501), 1001, []string{"'trial_end_date'"}},
		{with(valid, "trial_end_date", "2040-01-01"), 1003, []string{"'trial_end_date'"}},
		{with(valid, "source_id", nil, "card", "4242424242424242"), 1001, []string{"'card'"}},
		{with(valid, "source_id", nil, "card", with(inlineCard("4242424242424242"), "holder_name", nil)), 1001, []string{"'card.holder_name'"}},
		{with(valid, "source_id", nil, "card", with(inlineCard("4242424242424242"), "card_number", "42424242")), 1001, []string{"'card.card_number'"}},
		{with(valid, "source_id", nil, "card", inlineCard("4242424242424241")), 2004, nil},
		{with(valid, "source_id", nil, "card", with(inlineCard("4242424242424242"), "cvv2", nil)), 2006, nil},
		{with(valid, "source_id", nil, "card", with(inlineCard("4242424242424242"), "cvv2", "12")), 2009, nil},
		{with(valid, "source_id", nil, "card", with(inlineCard("4242424242424242"), "expiration_year", "20")), 2005, nil},
		{with(valid, "source_id", nil, "card", with(inlineCard("4242424242424242"), "expiration_month", "13")), 1003, []string{"'card.expiration_month'"}},
		{with(valid, "plan_id", "pnothere"), 1005, []string{"The requested resource doesn't exist"}}, // the gateway's words for a plan
		{with(valid, "source_id", "knothere"), 1005, []string{"card", "knothere"}},
		{with(valid, "source_id", othersCard), 1005, []string{"card"}},
		{with(valid, "source_id", merchantCard), 1005, []string{"card"}},
		{with(valid, "source_id", deletedCard), 1005, []string{"card"}},
		// The customer has 4111111111111111 stored already.
		{with(valid, "source_id", nil, "card", inlineCard("4111111111111111")), 2002, nil},
	}
	for _, c := range cases {
		desc := requireError(t, env.post(subPath(cu), c.body), c.code)
		for _, w := range c.words {
			assert.Contains(t, desc, w, "%v", c.body)
		}
	}
	requireError(t, env.post(subPath("anothere"), valid), 1005)
	// The other merchant has no such plan.
	r := env.do(http.MethodPost, "/v1/"+env.other.ID+subPath(cu), env.other.PrivateKey, valid)
	requireError(t, r, 1005)
	assert.Empty(t, env.get(subPath(cu)).arr(t), "nothing was created")
	assert.Empty(t, env.get("/plans/"+plan+"/subscriptions").arr(t))
	assert.Len(t, env.get("/customers/"+cu+"/cards").arr(t), 1, "no card data was stored")
}

func TestSubscriptionWithCardDataStoresTheCard(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 0)
	cu := newCustomer(t, env, false)
	o := requireOK(t, env.post(subPath(cu), map[string]any{"plan_id": plan, "card": inlineCard("345678000000007")}), http.StatusOK)
	cards := env.get("/customers/" + cu + "/cards").arr(t)
	require.Len(t, cards, 1)
	cards[0]["address"] = nil // a subscription's card always carries it
	assert.Equal(t, cards[0], o["card"])
	assert.Equal(t, "345678XXXXX0007", cards[0]["card_number"])
	assert.Equal(t, "american_express", cards[0]["brand"])
	assert.Equal(t, "active", o["status"])
	assert.Len(t, completedCharges(t, env, cu), 1)
}

func TestSubscriptionDeclinedAtCreationCreatesNothing(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 0)
	cu := newCustomer(t, env, false)

	// Card data that is declined: 3003, no subscription, no card kept; the
	// same data can be sent again (it answers the decline, not 2002).
	body := map[string]any{"plan_id": plan, "card": inlineCard("4444444444444448")}
	requireError(t, env.post(subPath(cu), body), 3003)
	requireError(t, env.post(subPath(cu), body), 3003)
	assert.Empty(t, env.get(subPath(cu)).arr(t))
	assert.Empty(t, env.get("/customers/"+cu+"/cards").arr(t))
	failed := chargesWith(t, env, cu, "FAILED")
	require.Len(t, failed, 2, "each declined charge is recorded")
	assert.Equal(t, []string{"charge.failed " + failed[1]["id"].(string), "charge.failed " + failed[0]["id"].(string)},
		eventsOfTypes(env, "charge.failed", "subscription.charge.failed"), "there is no subscription to tell about")

	// A stored card that is declined: 3003; the card stays stored.
	poor := storedCard(t, env, "/customers/"+cu, "4444444444444448")
	requireError(t, env.post(subPath(cu), map[string]any{"plan_id": plan, "source_id": poor}), 3003)
	assert.Len(t, env.get("/customers/"+cu+"/cards").arr(t), 1)

	// A card that needs 3-D Secure cannot be charged by a subscription.
	secure := storedCard(t, env, "/customers/"+cu, "5454545454545454")
	requireError(t, env.post(subPath(cu), map[string]any{"plan_id": plan, "source_id": secure}), 3012)
	cancelled := chargesWith(t, env, cu, "CANCELLED")
	require.Len(t, cancelled, 1, "the pending charge is cancelled")
	assert.Empty(t, chargesWith(t, env, cu, "CHARGE_PENDING"))
	assert.Empty(t, env.get(subPath(cu)).arr(t))
	assert.Empty(t, completedCharges(t, env, cu))
}

func TestSubscriptionTrialEndsWithTheFirstCharge(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 10)
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	id := subscribe(t, env, cu, plan, card)["id"].(string)

	advanceDays(t, env, 9) // 2026-03-19, the last day of the trial
	o := getSub(t, env, cu, id)
	assert.Equal(t, "trial", o["status"])
	assert.Empty(t, completedCharges(t, env, cu))

	advanceDays(t, env, 1) // 2026-03-20
	o = getSub(t, env, cu, id)
	for k, v := range map[string]any{"status": "active", "current_period_number": 1.0, "trial_end_date": "2026-03-19",
		"charge_date": "2026-04-20", "period_end_date": "2026-04-19"} {
		assert.Equal(t, v, o[k], k)
	}
	charges := completedCharges(t, env, cu)
	require.Len(t, charges, 1)
	// Charged at the first instant of its day, which the clock passed on
	// its way to 12:00.
	assert.Equal(t, "2026-03-20T00:00:00-06:00", charges[0]["creation_date"])
	assert.Equal(t, 150.0, charges[0]["amount"])
	assert.Equal(t, []string{"charge.succeeded " + charges[0]["id"].(string)}, eventsOfTypes(env, "charge.succeeded"))
}

func TestSubscriptionChargesEachPeriodOnceOverAJump(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	monthly := subscribe(t, env, cu, newPlan(t, env, "trial_days", 0, "amount", 10), card)["id"].(string)
	fortnightly := subscribe(t, env, cu, newPlan(t, env, "trial_days", 0, "amount", 20, "repeat_unit", "week", "repeat_every", 2), card)["id"].(string)
	yearly := subscribe(t, env, cu, newPlan(t, env, "trial_days", 0, "amount", 30, "repeat_unit", "year"), card)["id"].(string)

	// 100 days: 2026-06-18. Monthly: 03-10 (at creation), 04-10, 05-10,
	// 06-10. Every two weeks: 03-10, 03-24, 04-07, 04-21, 05-05, 05-19,
	// 06-02, 06-16. Yearly: 03-10 only.
	advanceDays(t, env, 100)
	count := func() map[float64]int {
		n := map[float64]int{}
		for _, ch := range completedCharges(t, env, cu) {
			n[ch["amount"].(float64)]++
		}
		return n
	}
	assert.Equal(t, map[float64]int{10: 4, 20: 8, 30: 1}, count())
	for _, c := range []struct {
		id, next string
		periods  float64
	}{{monthly, "2026-07-10", 4}, {fortnightly, "2026-06-30", 8}, {yearly, "2027-03-10", 1}} {
		o := getSub(t, env, cu, c.id)
		assert.Equal(t, "active", o["status"])
		assert.Equal(t, c.periods, o["current_period_number"], c.id)
		assert.Equal(t, c.next, o["charge_date"], c.id)
	}
	// Each period's charge says which period it pays.
	var periods []string
	for _, ch := range completedCharges(t, env, cu) {
		if d := ch["description"].(string); strings.Contains(d, monthly) {
			periods = append(periods, d[strings.LastIndex(d, " ")+1:])
		}
	}
	assert.Equal(t, []string{"4", "3", "2", "1"}, periods)

	// Nothing more until the next charge day; a second jump of two years
	// charges the yearly plan twice more.
	advanceDays(t, env, 1)
	assert.Equal(t, map[float64]int{10: 4, 20: 8, 30: 1}, count())
	advanceDays(t, env, 2*365)
	assert.Equal(t, 3, count()[30])
	assert.Equal(t, "2029-03-10", getSub(t, env, cu, yearly)["charge_date"])
	assert.Len(t, eventsOfTypes(env, "charge.succeeded"), len(completedCharges(t, env, cu)))
}

// A jump of the clock over several charge days makes each charge at its
// own day, not at the end of the jump: creation_date, operation_date and
// the dates of its events are the first instant of the day it was due, in
// order. (One 95-day jump used to give three renewals all dated on the
// last day.)
func TestSubscriptionChargesOverAJumpCarryTheirDueDays(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	id := subscribe(t, env, cu, newPlan(t, env, "trial_days", 0, "amount", 10), card)["id"].(string)

	now, err := env.s.AdvanceClock(95 * 24 * time.Hour) // 2026-03-10 12:00 to 2026-06-13 12:00
	require.NoError(t, err)
	assert.Equal(t, "2026-06-13T12:00:00-06:00", now.Format(time.RFC3339), "the jump ends where it was told to")
	assert.Equal(t, "2026-06-13T12:00:00-06:00", env.s.Now().Format(time.RFC3339))

	charges := completedCharges(t, env, cu) // newest first
	var created, operated []string
	for _, ch := range charges {
		created = append(created, ch["creation_date"].(string))
		operated = append(operated, ch["operation_date"].(string))
	}
	want := []string{"2026-06-10T00:00:00-06:00", "2026-05-10T00:00:00-06:00", "2026-04-10T00:00:00-06:00", "2026-03-10T12:00:00-06:00"}
	assert.Equal(t, want, created)
	assert.Equal(t, want, operated)

	// The events: one charge.succeeded per charge, oldest first, each dated
	// when its charge was made, as a webhook delivers it.
	var evDates []string
	var evCharges []string
	for _, ev := range env.s.Events(env.m.ID) {
		if ev.Type == openpay.EventTypeChargeSucceeded {
			evDates = append(evDates, ev.Wire().EventDate.Format(time.RFC3339))
			evCharges = append(evCharges, ev.Transaction.ID)
		}
	}
	assert.Equal(t, []string{want[3], want[2], want[1], want[0]}, evDates)
	assert.Equal(t, []string{charges[3]["id"].(string), charges[2]["id"].(string), charges[1]["id"].(string), charges[0]["id"].(string)}, evCharges)

	o := getSub(t, env, cu, id)
	assert.Equal(t, 4.0, o["current_period_number"])
	assert.Equal(t, "2026-07-10", o["charge_date"])
}

// Retries over a jump are dated on their own days too, and so is the
// change to the plan's status_after_retry.
func TestSubscriptionRetriesOverAJumpCarryTheirDays(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4444444444444448") // insufficient funds
	subscribe(t, env, cu, newPlan(t, env, "trial_days", 2, "retry_times", 2, "status_after_retry", "unpaid"), card)

	advanceDays(t, env, 30)
	var dates []string
	for _, ch := range chargesWith(t, env, cu, "FAILED") {
		dates = append(dates, ch["creation_date"].(string))
	}
	assert.Equal(t, []string{"2026-03-14T00:00:00-06:00", "2026-03-13T00:00:00-06:00", "2026-03-12T00:00:00-06:00"}, dates)
	var evDates []string
	for _, ev := range env.s.Events(env.m.ID) {
		if ev.Type == openpay.EventTypeSubscriptionChargeFailed {
			evDates = append(evDates, ev.Date.Format(time.RFC3339))
		}
	}
	assert.Equal(t, []string{dates[2], dates[1], dates[0]}, evDates)
}

func TestSubscriptionDeclinesRetryThenStatusAfterRetry(t *testing.T) {
	t.Parallel()
	for _, after := range []string{"unpaid", "cancelled"} {
		t.Run(after, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t, Options{})
			plan := newPlan(t, env, "trial_days", 1, "retry_times", 2, "status_after_retry", after)
			cu := newCustomer(t, env, false)
			card := storedCard(t, env, "/customers/"+cu, "4444444444444448") // insufficient funds
			id := subscribe(t, env, cu, plan, card)["id"].(string)

			// 2026-03-11: the first attempt fails.
			advanceDays(t, env, 1)
			o := getSub(t, env, cu, id)
			for k, v := range map[string]any{"status": "past_due", "current_period_number": 0.0,
				"charge_date": "2026-03-12", "period_end_date": "2026-03-11"} {
				assert.Equal(t, v, o[k], k)
			}
			failed := chargesWith(t, env, cu, "FAILED")
			require.Len(t, failed, 1)
			assert.Equal(t, []string{"charge.failed " + failed[0]["id"].(string), "subscription.charge.failed " + failed[0]["id"].(string)},
				eventsOfTypes(env, "charge.failed", "subscription.charge.failed"))

			// Two retries, one a day.
			advanceDays(t, env, 1)
			o = getSub(t, env, cu, id)
			assert.Equal(t, "past_due", o["status"])
			assert.Equal(t, "2026-03-13", o["charge_date"])
			assert.Len(t, chargesWith(t, env, cu, "FAILED"), 2)
			advanceDays(t, env, 1)
			o = getSub(t, env, cu, id)
			assert.Equal(t, after, o["status"])
			assert.Len(t, chargesWith(t, env, cu, "FAILED"), 3)
			assert.Len(t, eventsOfTypes(env, "subscription.charge.failed"), 3)

			// Final: nothing is tried any more.
			advanceDays(t, env, 40)
			assert.Equal(t, after, getSub(t, env, cu, id)["status"])
			assert.Len(t, chargesWith(t, env, cu, "FAILED"), 3)
			assert.Empty(t, completedCharges(t, env, cu))
		})
	}
}

func TestSubscriptionRetriesOverAJumpAndWithoutRetries(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4444444444444448")
	threeRetries := subscribe(t, env, cu, newPlan(t, env, "trial_days", 1, "retry_times", 3, "status_after_retry", "unpaid"), card)["id"].(string)
	noRetry := subscribe(t, env, cu, newPlan(t, env, "trial_days", 1, "retry_times", nil, "status_after_retry", "cancelled"), card)["id"].(string)

	// Ten days at once: every attempt happens, one per day passed.
	advanceDays(t, env, 10)
	assert.Equal(t, "unpaid", getSub(t, env, cu, threeRetries)["status"])
	assert.Equal(t, "cancelled", getSub(t, env, cu, noRetry)["status"])
	assert.Len(t, chargesWith(t, env, cu, "FAILED"), 4+1)
	assert.Len(t, eventsOfTypes(env, "subscription.charge.failed"), 5)
}

func TestSubscriptionPastDuePaidWithANewCard(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 1, "retry_times", 3)
	cu := newCustomer(t, env, false)
	bad := storedCard(t, env, "/customers/"+cu, "4444444444444448")
	good := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	id := subscribe(t, env, cu, plan, bad)["id"].(string)
	advanceDays(t, env, 1) // 2026-03-11: declined
	o := requireOK(t, env.put(subPath(cu, "/", id), map[string]any{"source_id": good}), http.StatusOK)
	assert.Equal(t, "past_due", o["status"])
	assert.Equal(t, good, o["card"].(map[string]any)["id"])

	advanceDays(t, env, 1) // 2026-03-12: the retry pays the period of 03-11
	o = getSub(t, env, cu, id)
	assert.Equal(t, "active", o["status"])
	assert.Equal(t, 1.0, o["current_period_number"])
	assert.Equal(t, "2026-04-11", o["charge_date"], "the period keeps its place in the calendar")
	assert.Len(t, completedCharges(t, env, cu), 1)
	advanceDays(t, env, 30) // 2026-04-11
	assert.Len(t, completedCharges(t, env, cu), 2)
}

func TestSubscriptionCancelAtPeriodEnd(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 0)
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	ending := subscribe(t, env, cu, plan, card)["id"].(string)
	undone := subscribe(t, env, cu, plan, card)["id"].(string)

	o := requireOK(t, env.put(subPath(cu, "/", ending), map[string]any{"cancel_at_period_end": true}), http.StatusOK)
	assert.Equal(t, true, o["cancel_at_period_end"])
	assert.Equal(t, "active", o["status"])
	requireOK(t, env.put(subPath(cu, "/", undone), map[string]any{"cancel_at_period_end": true}), http.StatusOK)
	o = requireOK(t, env.put(subPath(cu, "/", undone), map[string]any{"cancel_at_period_end": false}), http.StatusOK)
	assert.Equal(t, false, o["cancel_at_period_end"])
	assert.Len(t, completedCharges(t, env, cu), 2)

	advanceDays(t, env, 40) // past 2026-04-10
	o = getSub(t, env, cu, ending)
	assert.Equal(t, "cancelled", o["status"])
	assert.Equal(t, 1.0, o["current_period_number"])
	assert.Equal(t, "2026-04-09", o["period_end_date"], "the last day paid for")
	assert.Equal(t, "active", getSub(t, env, cu, undone)["status"])
	assert.Len(t, completedCharges(t, env, cu), 3, "only the subscription that goes on is charged")
	desc := requireError(t, env.put(subPath(cu, "/", ending), map[string]any{"cancel_at_period_end": false}), 1003)
	assert.Contains(t, desc, "cancelled")
	requireError(t, env.put(subPath(cu, "/", undone), map[string]any{"cancel_at_period_end": "yes"}), 1001)
}

func TestSubscriptionDeleteCancelsAtOnce(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 0)
	cu := newCustomer(t, env, false)
	other := createCustomerHTTP(t, env, "Luis", false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	id := subscribe(t, env, cu, plan, card)["id"].(string)

	requireError(t, env.del(subPath(other, "/", id)), 1005)
	requireError(t, env.get(subPath(other, "/", id)), 1005)
	requireOK(t, env.del(subPath(cu, "/", id)), http.StatusNoContent)
	// Gone: no longer read nor listed (issue 25: the vendor's Ruby specs).
	requireError(t, env.get(subPath(cu, "/", id)), 1005)
	assert.Empty(t, ids(env.get(subPath(cu)).arr(t)))
	requireOK(t, env.del(subPath(cu, "/", id)), http.StatusNoContent)
	requireError(t, env.del(subPath(other, "/", id)), 1005)
	requireError(t, env.put(subPath(cu, "/", id), map[string]any{"cancel_at_period_end": true}), 1005)
	advanceDays(t, env, 40)
	assert.Len(t, completedCharges(t, env, cu), 1, "only the charge made at creation")
	requireError(t, env.del(subPath(cu, "/snothere")), 1005)
	requireError(t, env.get(subPath(cu, "/snothere")), 1005)
}

func TestCustomerDeletionCancelsItsSubscriptions(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 5)
	ana := createCustomerHTTP(t, env, "Ana", false)
	luis := createCustomerHTTP(t, env, "Luis", false)
	anaSub := subscribe(t, env, ana, plan, storedCard(t, env, "/customers/"+ana, "4111111111111111"))["id"].(string)
	luisSub := subscribe(t, env, luis, plan, storedCard(t, env, "/customers/"+luis, "4111111111111111"))["id"].(string)

	requireOK(t, env.del("/customers/"+ana), http.StatusNoContent)
	status := map[string]any{}
	for _, o := range env.get("/plans/" + plan + "/subscriptions").arr(t) {
		status[o["id"].(string)] = o["status"]
	}
	assert.Equal(t, map[string]any{anaSub: "cancelled", luisSub: "trial"}, status)
	requireError(t, env.get(subPath(ana, "/", anaSub)), 1005)

	advanceDays(t, env, 5)
	assert.Len(t, completedCharges(t, env, luis), 1)
	all := env.get("/charges?limit=100").arr(t)
	require.Len(t, all, 1, "the deleted customer is not charged")
	assert.Equal(t, luis, all[0]["customer_id"])
}

func TestSubscriptionUpdate(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env) // 30 trial days
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	second := storedCard(t, env, "/customers/"+cu, "5555555555554444")
	id := subscribe(t, env, cu, plan, card)["id"].(string)
	path := subPath(cu, "/", id)

	// The end of the trial moves.
	o := requireOK(t, env.put(path, map[string]any{"trial_end_date": "2026-04-30"}), http.StatusOK)
	assert.Equal(t, "2026-04-30", o["trial_end_date"])
	assert.Equal(t, "2026-05-01", o["charge_date"])
	assert.Equal(t, "trial", o["status"])
	// Another stored card, then card data (stored on the customer).
	o = requireOK(t, env.put(path, map[string]any{"source_id": second}), http.StatusOK)
	assert.Equal(t, second, o["card"].(map[string]any)["id"])
	o = requireOK(t, env.put(path, map[string]any{"card": inlineCard("4242424242424242")}), http.StatusOK)
	assert.Equal(t, "424242XXXXXX4242", o["card"].(map[string]any)["card_number"])
	assert.Len(t, env.get("/customers/"+cu+"/cards").arr(t), 3)
	assert.Equal(t, o, getSub(t, env, cu, id))
	// Nothing sent, nothing changed.
	assert.Equal(t, o, requireOK(t, env.put(path, map[string]any{}), http.StatusOK))

	for _, c := range []struct {
		body  any
		code  int
		words []string
	}{
		{"", 1001, nil},
		{map[string]any{"source_id": card, "card": inlineCard("4242424242424242")}, 1001, []string{"'source_id'", "'card'"}},
		{map[string]any{"source_id": "knothere"}, 1005, []string{"card"}},
		{map[string]any{"card": inlineCard("4242424242424242")}, 2002, nil},
		{map[string]any{"card": with(inlineCard("5105105105105100"), "cvv2", nil)}, 2006, nil},
		{map[string]any{"trial_end_date": "30-04-2026"}, 1001, []string{"'trial_end_date'"}},
		{map[string]any{"trial_end_date": "2040-04-30"}, 1003, []string{"'trial_end_date'"}},
		{map[string]any{"cancel_at_period_end": 1}, 1001, []string{"'cancel_at_period_end'"}},
	} {
		desc := requireError(t, env.put(path, c.body), c.code)
		for _, w := range c.words {
			assert.Contains(t, desc, w, "%v", c.body)
		}
	}
	assert.Equal(t, o, getSub(t, env, cu, id), "a refused update changes nothing")
	requireError(t, env.put(subPath(cu, "/snothere"), map[string]any{}), 1005)

	// Two days later a past trial_end_date ends the trial: the first period
	// is charged now, and the trial's last day was yesterday.
	env.clock.Advance(2 * 24 * time.Hour) // 2026-03-12
	o = requireOK(t, env.put(path, map[string]any{"trial_end_date": "2026-03-01"}), http.StatusOK)
	for k, v := range map[string]any{"status": "active", "current_period_number": 1.0, "trial_end_date": "2026-03-11",
		"charge_date": "2026-04-12", "period_end_date": "2026-04-11"} {
		assert.Equal(t, v, o[k], k)
	}
	assert.Len(t, completedCharges(t, env, cu), 1)
	desc := requireError(t, env.put(path, map[string]any{"trial_end_date": "2026-05-01"}), 1003)
	assert.Contains(t, desc, "'trial_end_date'")

	// Ending the trial of a subscription made today leaves no trial at all;
	// a decline then makes it past_due, and the update still succeeds.
	bad := storedCard(t, env, "/customers/"+cu, "4444444444444448")
	id2 := subscribe(t, env, cu, plan, bad)["id"].(string)
	o = requireOK(t, env.put(subPath(cu, "/", id2), map[string]any{"trial_end_date": "2026-03-01"}), http.StatusOK)
	assert.Equal(t, "past_due", o["status"])
	assert.NotContains(t, o, "trial_end_date")
	assert.Equal(t, "2026-03-13", o["charge_date"])
}

func TestSubscriptionListNewestFirstWithFiltersAndPaging(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env)
	ana := createCustomerHTTP(t, env, "Ana", false)
	luis := createCustomerHTTP(t, env, "Luis", false)
	card := storedCard(t, env, "/customers/"+ana, "4111111111111111")
	var made []string // 2026-03-10, -11, -12
	for i := range 3 {
		if i > 0 {
			env.clock.Advance(24 * time.Hour)
		}
		made = append(made, subscribe(t, env, ana, plan, card)["id"].(string))
	}
	subscribe(t, env, luis, plan, storedCard(t, env, "/customers/"+luis, "4111111111111111"))

	assert.Equal(t, []string{made[2], made[1], made[0]}, ids(env.get(subPath(ana)).arr(t)))
	assert.Equal(t, []string{made[2]}, ids(env.get(subPath(ana)+"?limit=1").arr(t)))
	assert.Equal(t, []string{made[1], made[0]}, ids(env.get(subPath(ana)+"?offset=1").arr(t)))
	assert.Equal(t, []string{made[1]}, ids(env.get(subPath(ana)+"?creation=2026-03-11").arr(t)))
	assert.Equal(t, []string{made[1], made[0]}, ids(env.get(subPath(ana)+"?creation[lte]=2026-03-11").arr(t)))
	assert.Equal(t, []string{made[2]}, ids(env.get(subPath(ana)+"?creation[gte]=2026-03-12").arr(t)))
	assert.Len(t, env.get(subPath(luis)).arr(t), 1)
	for _, q := range []string{"limit=0", "offset=x", "creation=2026-3-11"} {
		requireError(t, env.get(subPath(ana)+"?"+q), 1003)
	}
	requireError(t, env.get(subPath("anothere")), 1005)
}

func TestGroupMerchantSubscriptions(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 3)
	gkey := env.g.PrivateKey
	gdo := func(method, path string, body any) resp {
		t.Helper()
		return env.do(method, "/v1/groups/"+env.g.ID+path, gkey, body)
	}
	// A customer of the group, with a card the group stores.
	cu := requireOK(t, gdo(http.MethodPost, "/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)["id"].(string)
	card := requireOK(t, gdo(http.MethodPost, "/customers/"+cu+"/cards", validCard("4111111111111111")), http.StatusOK)["id"].(string)
	base := "/merchants/" + env.m.ID + "/customers/" + cu + "/subscriptions"

	o := requireOK(t, gdo(http.MethodPost, base, map[string]any{"plan_id": plan, "source_id": card}), http.StatusOK)
	id := o["id"].(string)
	assert.Equal(t, "trial", o["status"])
	assert.Equal(t, cu, o["customer_id"])
	assert.Equal(t, card, o["card"].(map[string]any)["id"])
	assert.Equal(t, o, requireOK(t, gdo(http.MethodGet, base+"/"+id, nil), http.StatusOK))
	assert.Equal(t, []string{id}, ids(gdo(http.MethodGet, base, nil).arr(t)))
	o = requireOK(t, gdo(http.MethodPut, base+"/"+id, map[string]any{"card": inlineCard("5555555555554444")}), http.StatusOK)
	assert.Equal(t, "555555XXXXXX4444", o["card"].(map[string]any)["card_number"])
	assert.Len(t, gdo(http.MethodGet, "/customers/"+cu+"/cards", nil).arr(t), 2, "card data is stored with the group's customer")
	// The plan lists it, card included.
	listed := env.get("/plans/" + plan + "/subscriptions").arr(t)
	require.Len(t, listed, 1)
	assert.Equal(t, o, listed[0])
	// The merchant's own paths do not know the group's customer; the
	// merchant's key does not open the group's paths; a merchant outside
	// the group has no such route.
	requireError(t, env.get(subPath(cu)), 1005)
	requireError(t, env.do(http.MethodGet, "/v1/groups/"+env.g.ID+base, env.m.PrivateKey, nil), 1002)
	requireError(t, gdo(http.MethodGet, "/merchants/"+env.other.ID+"/customers/"+cu+"/subscriptions", nil), 1002)
	requireError(t, gdo(http.MethodPost, "/merchants/"+env.m.ID+"/customers/anothere/subscriptions", map[string]any{"plan_id": plan, "source_id": card}), 1005)
	requireError(t, gdo(http.MethodPost, base, map[string]any{"plan_id": "pnothere", "source_id": card}), 1005)

	// The trial ends: the merchant charges the group's customer.
	advanceDays(t, env, 3)
	got := requireOK(t, gdo(http.MethodGet, base+"/"+id, nil), http.StatusOK)
	assert.Equal(t, "active", got["status"])
	charges := env.get("/charges?limit=100").arr(t)
	require.Len(t, charges, 1)
	assert.Equal(t, "completed", charges[0]["status"])
	assert.Equal(t, cu, charges[0]["customer_id"])
	assert.Equal(t, "555555XXXXXX4444", charges[0]["card"].(map[string]any)["card_number"])
	assert.Equal(t, "150.00", balanceOf(t, env, ""))

	// Cancel through the group; deleting the customer cancels the others.
	requireOK(t, gdo(http.MethodDelete, base+"/"+id, nil), http.StatusNoContent)
	requireError(t, gdo(http.MethodGet, base+"/"+id, nil), 1005)
	id2 := requireOK(t, gdo(http.MethodPost, base, map[string]any{"plan_id": plan, "source_id": card}), http.StatusOK)["id"].(string)
	requireOK(t, gdo(http.MethodDelete, "/customers/"+cu, nil), http.StatusNoContent)
	for _, s := range env.get("/plans/" + plan + "/subscriptions").arr(t) {
		assert.Equal(t, "cancelled", s["status"], s["id"])
	}
	assert.Contains(t, ids(env.get("/plans/"+plan+"/subscriptions").arr(t)), id2)
}

// TestSubscriptionScheduleUnderConcurrentRequests moves the clock while
// other requests read and change subscriptions and plans (run it with
// -race): each period is still charged exactly once.
func TestSubscriptionScheduleUnderConcurrentRequests(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	monthly := newPlan(t, env, "trial_days", 0, "amount", 10)
	weekly := newPlan(t, env, "trial_days", 0, "amount", 20, "repeat_unit", "week")
	subs := []string{subscribe(t, env, cu, monthly, card)["id"].(string), subscribe(t, env, cu, weekly, card)["id"].(string)}
	gcu := requireOK(t, env.do(http.MethodPost, "/v1/groups/"+env.g.ID+"/customers", env.g.PrivateKey,
		map[string]any{"name": "Luis", "email": "luis@example.com"}), http.StatusOK)["id"].(string)
	gbase := "/v1/groups/" + env.g.ID + "/merchants/" + env.m.ID + "/customers/" + gcu + "/subscriptions"
	requireOK(t, env.do(http.MethodPost, gbase, env.g.PrivateKey, map[string]any{"plan_id": weekly, "card": inlineCard("4111111111111111")}), http.StatusOK)

	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() { // 60 days, one at a time: 2026-05-09
		defer wg.Done()
		defer close(done)
		for range 60 {
			if _, err := env.s.AdvanceClock(24 * time.Hour); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				var r resp
				switch (w + i) % 5 {
				case 0:
					r = env.get(subPath(cu, "/", subs[i%2]))
				case 1:
					r = env.get("/plans/" + weekly + "/subscriptions")
				case 2:
					r = env.put(subPath(cu, "/", subs[i%2]), map[string]any{"cancel_at_period_end": false})
				case 3:
					r = env.do(http.MethodGet, gbase, env.g.PrivateKey, nil)
				default:
					r = env.put("/plans/"+weekly, map[string]any{"name": "Weekly"})
				}
				if r.status != http.StatusOK {
					t.Errorf("status %d: %s", r.status, r.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	n := map[float64]int{}
	for _, ch := range env.get("/charges?limit=100").arr(t) {
		assert.Equal(t, "completed", ch["status"])
		n[ch["amount"].(float64)]++
	}
	// Monthly: 03-10, 04-10. Weekly (two subscriptions): 03-10 and eight
	// weeks more, to 05-05.
	assert.Equal(t, map[float64]int{10: 2, 20: 18}, n)
}
