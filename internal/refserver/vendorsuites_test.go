package refserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of this file hold the server to what the vendor's Ruby specs
// (open-pay/openpay-ruby test/spec, gem 3.0.0) and Python integration suite
// (open-pay/openpay-python openpay/test/test_integration.py) expect of the
// gateway, each in raw HTTP so that a JSON tag shared by the SDK and the
// server cannot hide a difference (issue 25).

// TestNotFoundSaysTheGatewaysWords: a plan that does not exist is 1005
// with the gateway's words. Evidence: facts.md ("The requested resource
// doesn't exist"); plans_spec.rb and colombia/plans_col_spec.rb ("fails to
// get a non existing customer plan") read that text exactly, while
// exceptions_spec.rb reads "The customer with id '1111' does not exist" for
// a customer.
func TestNotFoundSaysTheGatewaysWords(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	assert.Equal(t, "The requested resource doesn't exist", requireError(t, env.get("/plans/111111"), 1005))
	assert.Equal(t, "The requested resource doesn't exist", requireError(t, env.put("/plans/111111", map[string]any{"name": "x"}), 1005))
	assert.Equal(t, "The requested resource doesn't exist", requireError(t, env.del("/plans/111111"), 1005))
	assert.Equal(t, "The customer with id '1111' does not exist", requireError(t, env.del("/customers/1111"), 1005))
}

// TestMerchantCardCustomerIDIsNull: a merchant-level card's customer_id is
// sent, as null, on the card and on the card inside a charge made with it.
// Evidence: api-spec.md 2.2 ("customer_id: string or null. Null when the
// card is merchant-level").
func TestMerchantCardCustomerIDIsNull(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	assertNull(t, requireOK(t, env.get("/cards/"+card), http.StatusOK), "customer_id")
	charge := requireOK(t, env.post("/charges", cardCharge(card)), http.StatusOK)
	require.IsType(t, map[string]any{}, charge["card"])
	assertNull(t, charge["card"].(map[string]any), "customer_id")
	got := requireOK(t, env.get("/charges/"+charge["id"].(string)), http.StatusOK)
	assertNull(t, got["card"].(map[string]any), "customer_id")
	// A customer's card keeps its owner.
	cu := newCustomer(t, env, false)
	own := requireOK(t, env.post("/customers/"+cu+"/cards", validCard("4242424242424242")), http.StatusOK)
	assert.Equal(t, cu, own["customer_id"])
}

// TestLimitAboveTheMaximumIsCapped: every list takes a limit above 100 as
// 100 rather than refusing it. Evidence: customers_spec.rb "all the
// customers" lists with limit 10000 and counts the answer; facts.md: 100 is
// the largest page.
func TestLimitAboveTheMaximumIsCapped(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	var cu string
	for range listquery.MaxLimit + 2 {
		cu = createCustomerHTTP(t, env, "Ana", false)
	}
	assert.Len(t, env.get("/customers?limit=10000").arr(t), listquery.MaxLimit)
	assert.Len(t, env.get("/customers?limit=101&offset=100").arr(t), 2)
	// Every list reads limit alike.
	for _, path := range []string{"/charges", "/cards", "/payouts", "/customers/" + cu + "/transfers", "/fees", "/plans", "/bankaccounts",
		"/checkouts", "/webhooks", "/tokens"} {
		r := env.get(path + "?limit=10000")
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
		assert.NotNil(t, r.arr(t), path)
	}
	requireError(t, env.get("/customers?limit=0"), 1003)
}

// TestBanamexIsSpelledAsDocumented: the issuer of 411111 cards is
// "Banamex", bank code 002, in every country. Evidence: every documented
// answer for 411111XXXXXX1111 (cards--create-a-card.json,
// charges--get-a-charge.json and five more); cards_spec.rb,
// colombia/cards_col_spec.rb and peru/cards_pe_spec.rb read 'Banamex'.
func TestBanamexIsSpelledAsDocumented(t *testing.T) {
	t.Parallel()
	for _, country := range []openpay.Country{openpay.CountryMexico, openpay.CountryColombia, openpay.CountryPeru} {
		env := countryEnv(t, country)
		card := requireOK(t, env.post("/cards", validCard("4111111111111111")), env.created())
		assert.Equal(t, "Banamex", card["bank_name"], country)
		assert.Equal(t, "002", card["bank_code"], country)
		charge := requireOK(t, env.post("/charges", cardCharge(card["id"].(string))), http.StatusOK)
		assert.Equal(t, "Banamex", charge["card"].(map[string]any)["bank_name"], country)
	}
}

// moneyKeys are the members that hold amounts of money in answers.
var moneyKeys = map[string]bool{"amount": true, "balance": true, "max_amount": true, "tax": true, "total": true,
	"charged": true, "charged_tax": true, "charged_adjustments": true, "charged_adjustments_tax": true,
	"refunded": true, "refunded_tax": true, "refunded_adjustments": true, "refunded_adjustments_tax": true,
	"in": true, "out": true}

// amountsWritten returns every amount of the raw answer body as written,
// and those written without a decimal point.
func amountsWritten(t *testing.T, body []byte) (all, integral []string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s", body)
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case json.Number:
			if moneyKeys[key] {
				all = append(all, key+"="+x.String())
				if !strings.Contains(x.String(), ".") {
					integral = append(integral, key+"="+x.String())
				}
			}
		}
	}
	walk("", v)
	return all, integral
}

// TestAmountsCarryADecimalPoint: every amount of every answer is written
// with a decimal point (100.0), so that a typed client reads a float.
// Evidence: the documented answers write 100.0, 150.0, 130.0 (charges,
// refunds, fees, payouts, transfers, subscriptions); the vendor's Ruby
// specs expect floats (charges_spec.rb, plans_spec.rb be_within(0.1)).
func TestAmountsCarryADecimalPoint(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "5000.00")
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "500.00")
	card := storedCard(t, env, "", "4111111111111111")
	charge := env.post("/charges", cardCharge(card, "amount", 1000))
	answers := map[string]resp{
		"charge":      charge,
		"refund":      env.post("/charges/"+idOf(t, charge)+"/refund", map[string]any{"amount": 100}),
		"charges":     env.get("/charges"),
		"fee":         env.post("/fees", map[string]any{"customer_id": cu, "amount": 10, "description": "Cuota"}),
		"plan":        env.post("/plans", planBody("amount", 150)),
		"merchant":    env.get(""),
		"customer":    env.get("/customers/" + cu),
		"checkout":    env.post("/checkouts", map[string]any{"amount": 200, "description": "Link"}),
		"fees report": env.get("/reports/fees?year=2026&month=3"),
		"store":       env.post("/charges", map[string]any{"method": "store", "amount": 30, "description": "Tienda"}),
	}
	for name, r := range answers {
		require.Less(t, r.status, 300, "%s: %s", name, r.body)
		all, integral := amountsWritten(t, r.body)
		assert.NotEmpty(t, all, "%s carries amounts: %s", name, r.body)
		assert.Empty(t, integral, "%s: %s", name, r.body)
	}
	assert.Contains(t, string(charge.body), `"amount":1000.0`)
}

// TestFormatErrorsAre1001: a value of the wrong form is 1001 (HTTP 400), a
// well-formed value that is not allowed stays 1003. Evidence: api-spec.md
// section 7 ("fields have wrong format" is 1001); customers_spec.rb,
// colombia/customers_co_spec.rb and peru/customers_pe_spec.rb read
// "'foo' is not a valid email address", and exceptions_spec.rb reads 400
// and 1001, for the e-mail 'foo'.
func TestFormatErrorsAre1001(t *testing.T) {
	t.Parallel()
	for _, country := range []openpay.Country{openpay.CountryMexico, openpay.CountryColombia, openpay.CountryPeru} {
		env := countryEnv(t, country)
		desc := requireError(t, env.post("/customers", map[string]any{"name": "Juan", "email": "foo"}), 1001)
		assert.Equal(t, "'foo' is not a valid email address", desc, country)
	}
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Ana", false)
	requireError(t, env.put("/customers/"+cu, map[string]any{"name": "Ana", "email": "foo"}), 1001)
	requireError(t, env.post("/customers/"+cu+"/bankaccounts", map[string]any{"holder_name": "Ana", "clabe": "0121800001"}), 1001)
	clabeBadDigit := clabeBancomer[:17] + string('0'+(clabeBancomer[17]-'0'+1)%10)
	requireError(t, env.post("/customers/"+cu+"/bankaccounts", map[string]any{"holder_name": "Ana", "clabe": clabeBadDigit}), 1003)
	requireError(t, env.post("/cards", with(validCard("4111111111111111"), "address", map[string]any{"line1": "x",
		"postal_code": "1", "state": "s", "city": "c", "country_code": "MEX"})), 1001)
	requireError(t, env.post("/cards", with(validCard("4111111111111111"), "card_number", "41111111")), 1001)
	requireError(t, env.post("/cards", with(validCard("4111111111111111"), "expiration_month", "1x")), 1001)
	requireError(t, env.post("/cards", with(validCard("4111111111111111"), "expiration_month", "13")), 1003)
}

// TestDeletedSubscriptionIsGone: a deleted subscription leaves the
// customer's list and the plan's, and reading it answers 1005. Evidence:
// subscriptions_spec.rb and colombia/subscriptions_col_spec.rb (.each and
// .delete_all) count no subscription after deleting them; a deleted order
// reads 1005 (facts-vendor.md section 5), as a deleted card does.
func TestDeletedSubscriptionIsGone(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env)
	cu := createCustomerHTTP(t, env, "Ana", false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	path := "/customers/" + cu + "/subscriptions"
	kept := requireOK(t, env.post(path, map[string]any{"plan_id": plan, "card_id": card}), http.StatusOK)["id"].(string)
	gone := requireOK(t, env.post(path, map[string]any{"plan_id": plan, "card_id": card}), http.StatusOK)["id"].(string)
	require.Len(t, env.get(path).arr(t), 2)
	requireOK(t, env.del(path+"/"+gone), http.StatusNoContent)
	listed := env.get(path).arr(t)
	require.Len(t, listed, 1)
	assert.Equal(t, kept, listed[0]["id"])
	assert.Len(t, env.get("/plans/"+plan+"/subscriptions").arr(t), 1)
	requireError(t, env.get(path+"/"+gone), 1005)
	requireError(t, env.get("/plans/"+plan+"/subscriptions/"+gone), 1005)
	requireOK(t, env.del(path+"/"+gone), http.StatusNoContent) // a retried DELETE
}

// TestDeclineCardsRefusedWhenSaved: the expired, stolen and lost test cards
// cannot be stored, at merchant or customer scope, from data or from a
// token; a token holds them, and the charge made with it declines. The
// other decline cards are stored. Evidence: cards_spec.rb ("fails when
// using an expired card": 3002, 'The card has expired'; "fails when using
// a stolen card"), exceptions_spec.rb, colombia/cards_col_spec.rb;
// facts.md's test-card table (the codes); Factories.rb keeps
// 4444444444444448 as a card (:only_deposit).
func TestDeclineCardsRefusedWhenSaved(t *testing.T) {
	t.Parallel()
	for _, country := range []openpay.Country{openpay.CountryMexico, openpay.CountryColombia} {
		env := countryEnv(t, country)
		cu := createCustomerHTTP(t, env, "Ana", false)
		for _, scope := range []string{"", "/customers/" + cu} {
			r := env.post(scope+"/cards", validCard("4000000000000069"))
			assert.Equal(t, http.StatusPaymentRequired, r.status)
			assert.Equal(t, "The card has expired", requireError(t, r, 3002), "%s %s", country, scope)
			requireError(t, env.post(scope+"/cards", validCard("4000000000000119")), 3004)
			requireError(t, env.post(scope+"/cards", validCard("4000000000030090")), 3009)
			tok := requireOK(t, env.post("/tokens", validCard("4000000000000069")), http.StatusOK)["id"].(string)
			requireError(t, env.post(scope+"/cards", map[string]any{"token_id": tok, "device_session_id": "s"}), 3002)
			requireError(t, env.post(scope+"/charges", cardCharge(tok)), 3002) // the token was not used up
			for _, stored := range []string{"4444444444444448", "4222222222222220", "4000000000030017"} {
				requireOK(t, env.post(scope+"/cards", validCard(stored)), http.StatusOK)
			}
			assert.Len(t, env.get(scope+"/cards").arr(t), 3, "%s %s", country, scope)
		}
		plan := newPlan(t, env)
		requireError(t, env.post("/customers/"+cu+"/subscriptions", map[string]any{"plan_id": plan,
			"card": validCard("4000000000000069")}), 3002)
	}
}

// TestReadEchoUpdatesAccepted: an update that sends back what the client
// read is taken. Evidence: the vendor's Python client's save() PUTs the
// object it holds with status null (customers also balance null): its
// test_update_and_cancel_subscription saves a subscription whose card is
// masked (411111XXXXXX1111) and expects status active and
// cancel_at_period_end true; test_update_plan saves a plan the same way.
func TestReadEchoUpdatesAccepted(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plan := newPlan(t, env, "trial_days", 0)
	cu := createCustomerHTTP(t, env, "Miguel", false)
	sub := requireOK(t, env.post("/customers/"+cu+"/subscriptions", map[string]any{"plan_id": plan,
		"card": validCard("4111111111111111")}), http.StatusOK)
	require.Equal(t, "active", sub["status"])
	require.Equal(t, "411111XXXXXX1111", sub["card"].(map[string]any)["card_number"])
	sub["cancel_at_period_end"], sub["status"] = true, nil
	saved := requireOK(t, env.put("/customers/"+cu+"/subscriptions/"+sub["id"].(string), sub), http.StatusOK)
	assert.Equal(t, "active", saved["status"])
	assert.Equal(t, true, saved["cancel_at_period_end"])
	assert.Equal(t, sub["card"].(map[string]any)["id"], saved["card"].(map[string]any)["id"], "the card is unchanged")
	assert.Len(t, env.get("/customers/"+cu+"/cards").arr(t), 1, "no card stored twice")

	// A subscription whose trial has ended echoes its trial_end_date.
	trialPlan := newPlan(t, env, "trial_days", 2)
	trial := requireOK(t, env.post("/customers/"+cu+"/subscriptions", map[string]any{"plan_id": trialPlan,
		"source_id": sub["card"].(map[string]any)["id"]}), http.StatusOK)
	advanceDays(t, env, 3)
	read := requireOK(t, env.get("/customers/"+cu+"/subscriptions/"+trial["id"].(string)), http.StatusOK)
	require.Equal(t, "active", read["status"])
	require.NotNil(t, read["trial_end_date"])
	read["status"] = nil
	requireOK(t, env.put("/customers/"+cu+"/subscriptions/"+trial["id"].(string), read), http.StatusOK)

	// Plans and customers saved whole, as the same client does.
	p := requireOK(t, env.get("/plans/"+plan), http.StatusOK)
	p["name"], p["status"] = "New plan name", nil
	assert.Equal(t, "New plan name", requireOK(t, env.put("/plans/"+plan, p), http.StatusOK)["name"])
	c := requireOK(t, env.get("/customers/"+cu), http.StatusOK)
	c["last_name"], c["status"], c["balance"] = "Lopez", nil, nil
	assert.Equal(t, "Lopez", requireOK(t, env.put("/customers/"+cu, c), http.StatusOK)["last_name"])
}
