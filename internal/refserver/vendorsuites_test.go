package refserver

import (
	"net/http"
	"testing"

	"github.com/openpay-go/openpay"
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
	for range MaxListLimit + 2 {
		cu = createCustomerHTTP(t, env, "Ana", false)
	}
	assert.Len(t, env.get("/customers?limit=10000").arr(t), MaxListLimit)
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
		card := requireOK(t, env.post("/cards", validCard("4111111111111111")), http.StatusOK)
		assert.Equal(t, "Banamex", card["bank_name"], country)
		assert.Equal(t, "002", card["bank_code"], country)
		charge := requireOK(t, env.post("/charges", cardCharge(card["id"].(string))), http.StatusOK)
		assert.Equal(t, "Banamex", charge["card"].(map[string]any)["bank_name"], country)
	}
}
