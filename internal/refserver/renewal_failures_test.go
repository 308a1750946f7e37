package refserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stored card is charged as the gateway charges it on the charge's day:
// a card valid through 03/26, saved on 2026-03-10, pays in March and
// declines with 3002 from April on, on a direct charge and at renewal,
// where the subscription follows its plan's retry policy.
func TestStoredCardExpiredSinceDeclinesWithItsCode(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 0, "retry_times", 1, "status_after_retry", "unpaid")
	cu := newCustomer(t, env, false)
	card := requireOK(t, env.post("/customers/"+cu+"/cards", with(validCard("4111111111111111"),
		"expiration_month", "03", "expiration_year", "26")), http.StatusOK)["id"].(string)
	id := subscribe(t, env, cu, plan, card)["id"].(string) // 2026-03-10: period 1 paid
	requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(card)), http.StatusOK)
	require.Len(t, completedCharges(t, env, cu), 2)

	advanceDays(t, env, 31) // 2026-04-10: the card expired at the end of March
	o := getSub(t, env, cu, id)
	assert.Equal(t, "past_due", o["status"])
	assert.Equal(t, 1.0, o["current_period_number"])
	failed := chargesWith(t, env, cu, "FAILED")
	require.Len(t, failed, 1, "the renewal is a failed charge")
	assert.Equal(t, 3002.0, failed[0]["error_code"])
	assert.Equal(t, "The card has expired", failed[0]["error_message"])
	assert.Equal(t, 150.0, failed[0]["amount"])

	// A direct charge to the same stored card declines too, recorded.
	desc := requireErrorStatus(t, env.post("/customers/"+cu+"/charges", cardCharge(card)), 3002, http.StatusPaymentRequired, "gateway")
	assert.Equal(t, "The card has expired", desc)
	require.Len(t, chargesWith(t, env, cu, "FAILED"), 2)

	advanceDays(t, env, 1) // the one retry fails: unpaid
	assert.Equal(t, "unpaid", getSub(t, env, cu, id)["status"])
	assert.Len(t, chargesWith(t, env, cu, "FAILED"), 3)
	assert.Len(t, completedCharges(t, env, cu), 2, "nothing is paid by an expired card")
	assert.Len(t, eventsOfTypes(env, "subscription.charge.failed"), 2)
}

// A renewal on a card deleted since is a failed charge of that card with
// 1005, and sends charge.failed and subscription.charge.failed like any
// failed renewal; the subscription follows its plan's retry policy.
func TestRenewalOnADeletedCardIsARecordedFailure(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 1, "retry_times", 1, "status_after_retry", "unpaid")
	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	id := subscribe(t, env, cu, plan, card)["id"].(string)
	requireOK(t, env.del("/customers/"+cu+"/cards/"+card), http.StatusNoContent)

	advanceDays(t, env, 1)
	assert.Equal(t, "past_due", getSub(t, env, cu, id)["status"])
	failed := chargesWith(t, env, cu, "FAILED")
	require.Len(t, failed, 1)
	assert.Equal(t, 1005.0, failed[0]["error_code"])
	assert.Equal(t, card, failed[0]["card"].(map[string]any)["id"], "the charge names the card it tried")
	assert.Equal(t, []string{"charge.failed " + failed[0]["id"].(string), "subscription.charge.failed " + failed[0]["id"].(string)},
		eventsOfTypes(env, "charge.failed", "subscription.charge.failed"))

	advanceDays(t, env, 1)
	assert.Equal(t, "unpaid", getSub(t, env, cu, id)["status"])
	assert.Len(t, chargesWith(t, env, cu, "FAILED"), 2)
	assert.Len(t, eventsOfTypes(env, "subscription.charge.failed"), 2)
}

// Every failed transaction carries error_code with error_message: a
// declined charge, a charge failed by the fail control, a failed payout.
func TestFailedTransactionsCarryTheirErrorCode(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	stolen := storedCard(t, env, "/customers/"+cu, "4444444444444448")
	requireError(t, env.post("/customers/"+cu+"/charges", cardCharge(stolen)), 3003)
	failed := chargesWith(t, env, cu, "FAILED")
	require.Len(t, failed, 1)
	assert.Equal(t, 3003.0, failed[0]["error_code"])
	assert.Equal(t, "The card doesn't have sufficient funds", failed[0]["error_message"])

	// A 3-D Secure charge waiting for the payer, failed by the fail control
	// with a card's decline (cash and transfers have none: they end
	// cancelled in their own words).
	secure := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(storedCard(t, env, "/customers/"+cu, "4111111111111111"),
		"use_3d_secure", true, "redirect_url", "https://shop.example/back")), http.StatusOK)
	tx, err := env.s.FailCharge(env.m.ID, secure["id"].(string), 3010)
	require.NoError(t, err)
	assert.EqualValues(t, 3010, tx.ErrorCode)
	o := requireOK(t, env.get("/customers/"+cu+"/charges/"+secure["id"].(string)), http.StatusOK)
	assert.Equal(t, 3010.0, o["error_code"])
	assert.NotEmpty(t, o["error_message"])

	ok := requireOK(t, env.post("/charges", cardCharge(storedCard(t, env, "", "4111111111111111"), "amount", 500)), http.StatusOK)
	assert.Nil(t, ok["error_code"], "a completed charge has no error code")
}
