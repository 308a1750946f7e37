package refserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planBody is a plan creation body (the gateway's example plan), changed by
// kv as with does.
func planBody(kv ...any) map[string]any {
	return with(map[string]any{"name": "Curso de ingles", "amount": 150, "repeat_every": 1, "repeat_unit": "month",
		"retry_times": 2, "status_after_retry": "cancelled", "trial_days": 30}, kv...)
}

// newPlan creates a plan of the main merchant and returns its id.
func newPlan(t *testing.T, env *testEnv, kv ...any) string {
	t.Helper()
	return requireOK(t, env.post("/plans", planBody(kv...)), http.StatusOK)["id"].(string)
}

func TestPlanCreateAnswersThePlan(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	o := requireOK(t, env.post("/plans", planBody("amount", 150.5)), http.StatusOK)
	assert.Regexp(t, `^p[a-z0-9]{19}$`, o["id"])
	assert.Equal(t, map[string]any{"id": o["id"], "name": "Curso de ingles", "status": "active", "amount": 150.5,
		"currency": "MXN", "creation_date": "2026-03-10T12:00:00-06:00", "repeat_every": 1.0, "repeat_unit": "month",
		"retry_times": 2.0, "status_after_retry": "cancelled", "trial_days": 30.0}, o)
	assert.Equal(t, o, requireOK(t, env.get("/plans/"+o["id"].(string)), http.StatusOK))

	// retry_times may be left out (0); currency USD is taken; 0 trial days.
	o = requireOK(t, env.post("/plans", planBody("retry_times", nil, "currency", "USD", "trial_days", 0,
		"repeat_unit", "week", "repeat_every", 2, "status_after_retry", "unpaid")), http.StatusOK)
	assert.Equal(t, 0.0, o["retry_times"])
	assert.Equal(t, "USD", o["currency"])
	assert.Equal(t, 0.0, o["trial_days"])
	assert.Equal(t, "week", o["repeat_unit"])
	assert.Equal(t, "unpaid", o["status_after_retry"])

	// Plans are the merchant's own.
	r := env.do(http.MethodGet, "/v1/"+env.other.ID+"/plans/"+o["id"].(string), env.other.PrivateKey, nil)
	requireError(t, r, 1005)
	requireError(t, env.get("/plans/pnothere"), 1005)
	// The public key cannot manage plans.
	requireError(t, env.do(http.MethodPost, env.mp("/plans"), env.m.PublicKey, planBody()), 1010)
}

func TestPlanCreateValidation(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cases := []struct {
		body  any
		code  int
		field string
	}{
		{"", 1001, ""},
		{"[1]", 1001, ""},
		{planBody("name", nil), 1001, "'name'"},
		{planBody("name", "  "), 1001, "'name'"},
		{planBody("name", strings.Repeat("n", 256)), 1003, "'name'"},
		{planBody("name", 5), 1001, "'name'"},
		{planBody("amount", nil), 1001, "'amount'"},
		{planBody("amount", "ciento"), 1001, "'amount'"},
		{planBody("amount", 0), 1003, "'amount'"},
		{planBody("amount", -1), 1003, "'amount'"},
		{planBody("amount", 1.005), 1003, "'amount'"},
		{planBody("currency", "EUR"), 1003, "'currency'"},
		{planBody("repeat_every", nil), 1001, "'repeat_every'"},
		{planBody("repeat_every", 1.5), 1001, "'repeat_every'"},
		{planBody("repeat_every", 0), 1003, "'repeat_every'"},
		{planBody("repeat_every", maxRepeatEvery+1), 1003, "'repeat_every'"},
		{planBody("repeat_unit", nil), 1001, "'repeat_unit'"},
		{planBody("repeat_unit", "day"), 1003, "'repeat_unit'"},
		{planBody("retry_times", -1), 1003, "'retry_times'"},
		{planBody("retry_times", "dos"), 1001, "'retry_times'"},
		{planBody("status_after_retry", nil), 1001, "'status_after_retry'"},
		{planBody("status_after_retry", "deleted"), 1003, "'status_after_retry'"},
		{planBody("trial_days", nil), 1001, "'trial_days'"},
		{planBody("trial_days", -1), 1003, "'trial_days'"},
		{planBody("trial_days", maxTrialDays+1), 1003, "'trial_days'"},
	}
	for _, c := range cases {
		desc := requireError(t, env.post("/plans", c.body), c.code)
		assert.Contains(t, desc, c.field, "%v", c.body)
	}
	assert.Empty(t, env.get("/plans").arr(t), "nothing was created")
}

func TestPlanUpdateChangesOnlyNameAndTrialDays(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id := newPlan(t, env)
	before := requireOK(t, env.get("/plans/"+id), http.StatusOK)

	o := requireOK(t, env.put("/plans/"+id, map[string]any{"name": "Curso de aleman", "trial_days": 60}), http.StatusOK)
	want := with(before, "name", "Curso de aleman", "trial_days", 60.0)
	assert.Equal(t, want, o)
	assert.Equal(t, want, requireOK(t, env.get("/plans/"+id), http.StatusOK))
	// Only the members sent change; 0 trial days is a value.
	o = requireOK(t, env.put("/plans/"+id, map[string]any{"trial_days": 0}), http.StatusOK)
	assert.Equal(t, with(want, "trial_days", 0.0), o)
	o = requireOK(t, env.put("/plans/"+id, map[string]any{}), http.StatusOK)
	assert.Equal(t, with(want, "trial_days", 0.0), o)
	// The whole plan sent back with its own values is accepted; members a
	// plan request does not have are ignored.
	o = requireOK(t, env.put("/plans/"+id, with(o, "name", "Curso de frances")), http.StatusOK)
	assert.Equal(t, "Curso de frances", o["name"])
	assert.Equal(t, "active", o["status"])

	// The other members cannot change: 1003 naming the member.
	for _, c := range []struct {
		body  map[string]any
		code  int
		field string
	}{
		{map[string]any{"amount": 200}, 1003, "'amount'"},
		{map[string]any{"currency": "USD"}, 1003, "'currency'"},
		{map[string]any{"repeat_every": 2}, 1003, "'repeat_every'"},
		{map[string]any{"repeat_unit": "year"}, 1003, "'repeat_unit'"},
		{map[string]any{"retry_times": 5}, 1003, "'retry_times'"},
		{map[string]any{"status_after_retry": "unpaid"}, 1003, "'status_after_retry'"},
		{map[string]any{"name": strings.Repeat("n", 81)}, 1003, "'name'"},
		{map[string]any{"name": ""}, 1001, "'name'"},
		{map[string]any{"name": 1}, 1001, "'name'"},
		{map[string]any{"trial_days": -1}, 1003, "'trial_days'"},
		{map[string]any{"trial_days": "tres"}, 1001, "'trial_days'"},
		{map[string]any{"amount": "x"}, 1001, "'amount'"},
	} {
		desc := requireError(t, env.put("/plans/"+id, c.body), c.code)
		assert.Contains(t, desc, c.field, "%v", c.body)
	}
	// An 80-character name is fine on update.
	requireOK(t, env.put("/plans/"+id, map[string]any{"name": strings.Repeat("n", 80)}), http.StatusOK)
	requireError(t, env.put("/plans/"+id, "not json"), 1001)
	requireError(t, env.put("/plans/pnothere", map[string]any{"name": "x"}), 1005)
}

func TestPlanDeleteRefusesNewSubscriptionsAndKeepsTheExistingOnes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id := newPlan(t, env, "trial_days", 0)
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	sub := requireOK(t, env.post("/customers/"+cu+"/subscriptions", map[string]any{"plan_id": id, "source_id": card}), http.StatusOK)

	requireOK(t, env.del("/plans/"+id), http.StatusNoContent)
	o := requireOK(t, env.get("/plans/"+id), http.StatusOK)
	assert.Equal(t, "deleted", o["status"])
	assert.Equal(t, []string{id}, ids(env.get("/plans").arr(t)), "a deleted plan stays listed")
	// A retried delete succeeds too.
	requireOK(t, env.del("/plans/"+id), http.StatusNoContent)
	requireError(t, env.del("/plans/pnothere"), 1005)

	desc := requireError(t, env.post("/customers/"+cu+"/subscriptions", map[string]any{"plan_id": id, "source_id": card}), 1003)
	assert.Contains(t, desc, "'plan_id'")
	assert.Contains(t, desc, "deleted")
	desc = requireError(t, env.put("/plans/"+id, map[string]any{"name": "x"}), 1003)
	assert.Contains(t, desc, "deleted")

	// The existing subscription keeps being charged.
	_, err := env.s.AdvanceClock(31 * 24 * time.Hour)
	require.NoError(t, err)
	got := requireOK(t, env.get("/customers/"+cu+"/subscriptions/"+sub["id"].(string)), http.StatusOK)
	assert.Equal(t, "active", got["status"])
	assert.Equal(t, 2.0, got["current_period_number"])
	assert.Len(t, completedCharges(t, env, cu), 2)
}

func TestPlanListNewestFirstWithFiltersAndPaging(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	var made []string // oldest first: 2026-03-10, -11, -12
	for i := range 3 {
		if i > 0 {
			env.clock.Advance(24 * time.Hour)
		}
		made = append(made, newPlan(t, env))
	}
	assert.Equal(t, []string{made[2], made[1], made[0]}, ids(env.get("/plans").arr(t)))
	assert.Equal(t, []string{made[2]}, ids(env.get("/plans?limit=1").arr(t)))
	assert.Equal(t, []string{made[1], made[0]}, ids(env.get("/plans?offset=1&limit=5").arr(t)))
	assert.Equal(t, []string{made[1]}, ids(env.get("/plans?creation=2026-03-11").arr(t)))
	assert.Equal(t, []string{made[2], made[1]}, ids(env.get("/plans?creation[gte]=2026-03-11").arr(t)))
	assert.Equal(t, []string{made[1], made[0]}, ids(env.get("/plans?creation[lte]=2026-03-11").arr(t)))
	assert.Empty(t, env.get("/plans?offset=3").arr(t))
	for _, q := range []string{"limit=0", "offset=-1", "creation=11-03-2026", "creation[gte]=x"} {
		requireError(t, env.get("/plans?"+q), 1003)
	}
	// Another merchant sees none of them.
	r := env.do(http.MethodGet, "/v1/"+env.other.ID+"/plans", env.other.PrivateKey, nil)
	assert.Empty(t, r.arr(t))
}

func TestPlanSubscriptionsList(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	planA, planB := newPlan(t, env), newPlan(t, env, "name", "B")
	ana := createCustomerHTTP(t, env, "Ana", false)
	luis := createCustomerHTTP(t, env, "Luis", false)
	subscribe := func(cu, plan string) string {
		t.Helper()
		card := map[string]any{"holder_name": "Juan Perez", "card_number": "4242424242424242", "cvv2": "123",
			"expiration_month": "12", "expiration_year": "30"}
		r := env.post("/customers/"+cu+"/subscriptions", map[string]any{"plan_id": plan, "card": card})
		if r.status == http.StatusConflict { // the card is already the customer's
			cards := env.get("/customers/" + cu + "/cards").arr(t)
			r = env.post("/customers/"+cu+"/subscriptions", map[string]any{"plan_id": plan, "source_id": cards[0]["id"]})
		}
		return requireOK(t, r, http.StatusOK)["id"].(string)
	}
	a1 := subscribe(ana, planA)
	env.clock.Advance(24 * time.Hour)
	l1 := subscribe(luis, planA)
	b1 := subscribe(ana, planB)
	env.clock.Advance(24 * time.Hour)
	a2 := subscribe(ana, planA)
	requireOK(t, env.del("/customers/"+ana+"/subscriptions/"+a2), http.StatusNoContent)

	list := env.get("/plans/" + planA + "/subscriptions").arr(t)
	assert.Equal(t, []string{l1, a1}, ids(list), "every customer's, newest first, not the deleted one")
	assert.Equal(t, planA, list[0]["plan_id"])
	assert.Equal(t, luis, list[0]["customer_id"])
	assert.Equal(t, []string{b1}, ids(env.get("/plans/"+planB+"/subscriptions").arr(t)))
	assert.Equal(t, []string{a1}, ids(env.get("/plans/"+planA+"/subscriptions?offset=1&limit=1").arr(t)))
	assert.Equal(t, []string{l1}, ids(env.get("/plans/"+planA+"/subscriptions?creation=2026-03-11").arr(t)))
	assert.Equal(t, []string{l1}, ids(env.get("/plans/"+planA+"/subscriptions?creation[gte]=2026-03-11").arr(t)))
	requireError(t, env.get("/plans/"+planA+"/subscriptions?limit=x"), 1003)
	requireError(t, env.get("/plans/pnothere/subscriptions"), 1005)

	// One subscription of a plan, of whichever customer; a deleted one is gone.
	one := requireOK(t, env.get("/plans/"+planA+"/subscriptions/"+l1), http.StatusOK)
	assert.Equal(t, l1, one["id"])
	assert.Equal(t, luis, one["customer_id"])
	requireError(t, env.get("/plans/"+planA+"/subscriptions/"+a2), 1005)
	requireError(t, env.get("/plans/"+planB+"/subscriptions/"+a1), 1005)
	requireError(t, env.get("/plans/"+planA+"/subscriptions/snothere"), 1005)
	requireError(t, env.get("/plans/pnothere/subscriptions/"+a1), 1005)
}
