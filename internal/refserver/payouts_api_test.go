package refserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bankPayout is a payout body to a stored bank account.
func bankPayout(destination string, kv ...any) map[string]any {
	return with(map[string]any{"method": "bank_account", "destination_id": destination, "amount": 10.5,
		"description": "Retiro de saldo semanal"}, kv...)
}

// inlineBankPayout is a payout body to a bank account given inline.
func inlineBankPayout(kv ...any) map[string]any {
	return with(map[string]any{"method": "bank_account", "amount": 10.5, "description": "Retiro de saldo semanal",
		"bank_account": map[string]any{"clabe": clabeBancomer, "holder_name": "Mi empresa"}}, kv...)
}

// inlineCardPayout is a payout body to a card given inline.
func inlineCardPayout(number string, kv ...any) map[string]any {
	return with(map[string]any{"method": "card", "amount": 10.5, "description": "Pago a tarjeta",
		"card": map[string]any{"card_number": number, "holder_name": "Mi empresa", "bank_code": "002"}}, kv...)
}

func TestPayoutVariants(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "1000.00")
	seller := createCustomerHTTP(t, env, "Seller", true)
	fund(t, env, seller, "500.00")
	plain := createCustomerHTTP(t, env, "Plain", false)
	acct := requireOK(t, env.post("/customers/"+seller+"/bankaccounts", map[string]any{"holder_name": "Mi empresa", "clabe": clabeBancomer}), 200)["id"].(string)

	// Merchant scope, bank account inline: the merchant's balance pays.
	o := requireOK(t, env.post("/payouts", inlineBankPayout("order_id", "oid-00021")), http.StatusOK)
	assert.Regexp(t, `^tr[a-z0-9]{18}$`, o["id"])
	for k, v := range map[string]any{"amount": 10.5, "method": "bank_account", "operation_type": "out",
		"transaction_type": "payout", "status": "in_progress", "currency": "MXN", "description": "Retiro de saldo semanal",
		"order_id": "oid-00021", "creation_date": "2026-03-10T12:00:00-06:00", "operation_date": "2026-03-10T12:00:00-06:00"} {
		assert.Equal(t, v, o[k], k)
	}
	for _, absent := range []string{"customer_id", "card"} {
		assert.NotContains(t, o, absent)
	}
	assertNull(t, o, "authorization", "error_message")
	assert.Equal(t, map[string]any{"clabe": "012XXXXXXXXXX46161", "bank_code": "012", "bank_name": "BANCOMER",
		"holder_name": "Mi empresa", "alias": nil}, o["bank_account"])
	assert.Equal(t, "989.50", balanceOf(t, env, ""))

	// Merchant scope, a customer's registered account: the merchant pays.
	o = requireOK(t, env.post("/payouts", bankPayout(acct)), http.StatusOK)
	ba := o["bank_account"].(map[string]any)
	assert.Equal(t, acct, ba["id"])
	assert.NotContains(t, ba, "creation_date")
	assert.NotContains(t, o, "customer_id")
	assert.Equal(t, "979.00", balanceOf(t, env, ""))

	// Customer scope, registered account: the customer's balance pays.
	o = requireOK(t, env.post("/customers/"+seller+"/payouts", bankPayout(acct, "amount", 100)), http.StatusOK)
	assert.Equal(t, seller, o["customer_id"])
	assert.Equal(t, acct, o["bank_account"].(map[string]any)["id"])
	assert.Equal(t, "400.00", balanceOf(t, env, seller))
	assert.Equal(t, "979.00", balanceOf(t, env, ""))

	// Customer scope, a customer without an account: the merchant pays.
	o = requireOK(t, env.post("/customers/"+plain+"/payouts", inlineBankPayout("amount", 9)), http.StatusOK)
	assert.Equal(t, plain, o["customer_id"])
	assert.Equal(t, "970.00", balanceOf(t, env, ""))

	// Cards: a stored debit card of the scope, an inline debit card, a
	// card the catalogue of test cards does not know.
	mcard := storedCard(t, env, "", "4111111111111111")
	o = requireOK(t, env.post("/payouts", map[string]any{"method": "card", "destination_id": mcard, "amount": 5, "description": "x"}), http.StatusOK)
	assert.Equal(t, "card", o["method"])
	c := o["card"].(map[string]any)
	assert.Equal(t, "411111XXXXXX1111", c["card_number"])
	assert.Equal(t, mcard, c["id"])
	assert.Equal(t, true, c["allows_payouts"])
	assert.NotContains(t, o, "bank_account")
	o = requireOK(t, env.post("/payouts", inlineCardPayout("5555555555554444", "card", map[string]any{
		"card_number": 5555555555554444, "holder_name": "Mi empresa", "bank_code": "602"})), http.StatusOK)
	c = o["card"].(map[string]any)
	assert.Equal(t, "555555XXXXXX4444", c["card_number"])
	assert.Equal(t, "MASARI", c["bank_name"])
	assert.Equal(t, "602", c["bank_code"])
	assert.Equal(t, "mastercard", c["brand"])
	assert.NotContains(t, c, "id")
	o = requireOK(t, env.post("/payouts", inlineCardPayout("4012888888881881")), http.StatusOK)
	assert.Equal(t, "Banamex", o["card"].(map[string]any)["bank_name"])
	o = requireOK(t, env.post("/payouts", inlineCardPayout("4012888888881881", "card",
		map[string]any{"card_number": "4012888888881881", "holder_name": "x", "bank_code": "999"})), http.StatusOK)
	assert.Equal(t, clabe.UnknownBankName, o["card"].(map[string]any)["bank_name"])
	ccard := storedCard(t, env, "/customers/"+seller, "5555555555554444")
	requireOK(t, env.post("/customers/"+seller+"/payouts", map[string]any{"method": "card", "destination_id": ccard, "amount": 1, "description": "x"}), http.StatusOK)
	assert.Equal(t, "399.00", balanceOf(t, env, seller))
	// A card of the other scope is not found.
	requireError(t, env.post("/payouts", map[string]any{"method": "card", "destination_id": ccard, "amount": 1, "description": "x"}), 1005)
	requireError(t, env.post("/customers/"+seller+"/payouts", map[string]any{"method": "card", "destination_id": mcard, "amount": 1, "description": "x"}), 1005)

	// Every payout was announced.
	var created int
	for _, ev := range env.s.Events(env.m.ID) {
		if ev.Type == openpay.EventTypePayoutCreated {
			created++
			assert.Equal(t, openpay.TransactionStatusInProgress, ev.Transaction.Status)
		}
	}
	assert.Equal(t, 9, created)
	// No card number anywhere in the answers.
	assert.NotContains(t, string(env.get("/payouts?limit=100").body), "5555555555554444")
	assert.NotContains(t, string(env.get("/payouts?limit=100").body), "4012888888881881")
}

func TestCreatePayoutErrors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "100.00")
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "20.00")
	acct := requireOK(t, env.post("/customers/"+cu+"/bankaccounts", map[string]any{"holder_name": "Ana", "clabe": clabeIXE}), 200)["id"].(string)
	creditCard := storedCard(t, env, "", "4242424242424242")
	requireOK(t, env.post("/payouts", inlineBankPayout("order_id", "taken", "amount", 1)), 200)

	cases := []struct {
		name  string
		path  string
		body  any
		code  int
		field string
	}{
		{"not JSON", "/payouts", "{", 1001, ""},
		{"method missing", "/payouts", with(bankPayout(acct), "method", nil), 1001, "method"},
		{"method a number", "/payouts", with(bankPayout(acct), "method", 1), 1001, "method"},
		{"method unknown", "/payouts", with(bankPayout(acct), "method", "cash"), 1003, "method"},
		{"destination missing", "/payouts", with(bankPayout(acct), "destination_id", nil), 1001, "destination_id"},
		{"destination too long", "/payouts", bankPayout(strings.Repeat("b", 46)), 1003, "destination_id"},
		{"amount missing", "/payouts", with(bankPayout(acct), "amount", nil), 1001, "amount"},
		{"amount a string not a number", "/payouts", with(bankPayout(acct), "amount", "diez"), 1001, "amount"},
		{"amount zero", "/payouts", with(bankPayout(acct), "amount", 0), 1003, "amount"},
		{"amount negative", "/payouts", with(bankPayout(acct), "amount", -5), 1003, "amount"},
		{"amount three decimals", "/payouts", with(bankPayout(acct), "amount", 1.005), 1003, "amount"},
		{"description missing", "/payouts", with(bankPayout(acct), "description", nil), 1001, "description"},
		{"description blank", "/payouts", with(bankPayout(acct), "description", ""), 1001, "description"},
		{"description too long", "/payouts", with(bankPayout(acct), "description", strings.Repeat("d", 251)), 1003, "description"},
		{"order_id too long", "/payouts", with(bankPayout(acct), "order_id", strings.Repeat("o", 101)), 1003, "order_id"},
		{"order_id blank", "/payouts", with(bankPayout(acct), "order_id", ""), 1001, "order_id"},
		{"bank_account not an object", "/payouts", inlineBankPayout("bank_account", "012"), 1001, "bank_account"},
		{"bank_account.clabe missing", "/payouts", inlineBankPayout("bank_account", map[string]any{"holder_name": "x"}), 1001, "bank_account.clabe"},
		{"bank_account.holder_name missing", "/payouts", inlineBankPayout("bank_account", map[string]any{"clabe": clabeIXE}), 1001, "bank_account.holder_name"},
		{"bank_account.clabe invalid", "/payouts", inlineBankPayout("bank_account", map[string]any{"clabe": "012180012324246160", "holder_name": "x"}), 1003, "bank_account.clabe"},
		{"bank_account.alias too long", "/payouts", inlineBankPayout("bank_account", map[string]any{"clabe": clabeIXE, "holder_name": "x", "alias": strings.Repeat("a", 46)}), 1003, "bank_account.alias"},
		{"card.card_number missing", "/payouts", inlineCardPayout("", "card", map[string]any{"holder_name": "x", "bank_code": "002"}), 1001, "card.card_number"},
		{"card.bank_code missing", "/payouts", inlineCardPayout("", "card", map[string]any{"holder_name": "x", "card_number": "4111111111111111"}), 1001, "card.bank_code"},
		{"card.card_number short", "/payouts", inlineCardPayout("411111111111111"), 1001, "card.card_number"},
		{"card.card_number letters", "/payouts", inlineCardPayout("41111111111111x1"), 1001, "card.card_number"},
		{"card Luhn", "/payouts", inlineCardPayout("4111111111111112"), 2004, ""},
		{"card brand", "/payouts", inlineCardPayout("9000000000000001"), 1003, "card.card_number"},
		{"card.bank_code", "/payouts", inlineCardPayout("4111111111111111", "card", map[string]any{"card_number": "4111111111111111", "holder_name": "x", "bank_code": "12"}), 1001, "card.bank_code"},
		{"card.holder_name too long", "/payouts", inlineCardPayout("4111111111111111", "card", map[string]any{"card_number": "4111111111111111", "holder_name": strings.Repeat("h", 81), "bank_code": "002"}), 1003, "card.holder_name"},
		{"card credit test card", "/payouts", inlineCardPayout("4242424242424242"), 1003, ""},
		{"stored card not for payouts", "/payouts", map[string]any{"method": "card", "destination_id": creditCard, "amount": 1, "description": "x"}, 1003, "allows_payouts"},
		{"bank account unknown", "/customers/" + cu + "/payouts", bankPayout("bnothere"), 1005, "bnothere"},
		{"card unknown", "/payouts", map[string]any{"method": "card", "destination_id": "knothere", "amount": 1, "description": "x"}, 1005, "knothere"},
		{"customer unknown", "/customers/anothere/payouts", bankPayout(acct), 1005, "anothere"},
		{"order_id taken", "/payouts", inlineBankPayout("order_id", "taken"), 1006, ""},
		{"merchant short", "/payouts", inlineBankPayout("amount", 99.01), 4001, "merchant"},
		{"customer short", "/customers/" + cu + "/payouts", bankPayout(acct, "amount", 20.01), 4001, "customer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			desc := requireError(t, env.post(c.path, c.body), c.code)
			if c.field != "" {
				assert.Contains(t, desc, c.field)
			}
		})
	}
	// Nothing moved and nothing was stored.
	assert.Equal(t, "99.00", balanceOf(t, env, ""))
	assert.Equal(t, "20.00", balanceOf(t, env, cu))
	assert.Len(t, env.get("/payouts").arr(t), 1)
	// A customer's bank account is not another customer's.
	other := createCustomerHTTP(t, env, "Otro", true)
	fund(t, env, other, "5")
	requireError(t, env.post("/customers/"+other+"/payouts", bankPayout(acct, "amount", 1)), 1005)
	// A deleted bank account cannot receive.
	gone := requireOK(t, env.post("/customers/"+other+"/bankaccounts", map[string]any{"holder_name": "O", "clabe": clabeIXE}), 200)["id"].(string)
	requireOK(t, env.del("/customers/"+other+"/bankaccounts/"+gone), http.StatusNoContent)
	requireError(t, env.post("/customers/"+other+"/payouts", bankPayout(gone, "amount", 1)), 1005)

	// Deactivated accounts: 1008, before funds are looked at.
	deactivateCustomer(env, cu)
	desc := requireError(t, env.post("/customers/"+cu+"/payouts", bankPayout(acct, "amount", 1000)), 1008)
	assert.Contains(t, desc, "customer")
	setMerchantStatus(env, openpay.MerchantStatusDeleted)
	desc = requireError(t, env.post("/payouts", inlineBankPayout()), 1008)
	assert.Contains(t, desc, "merchant")

	// Credentials.
	requireError(t, env.do(http.MethodPost, env.mp("/payouts"), env.m.PublicKey, inlineBankPayout()), 1010)
	requireError(t, env.do(http.MethodPost, env.mp("/payouts"), "sk_nobody", inlineBankPayout()), 1002)

	// A production server refuses the sandbox's test cards.
	prod := newTestEnv(t, Options{Production: true})
	fund(t, prod, "", "100")
	requireError(t, prod.post("/payouts", inlineCardPayout("4111111111111111")), 2007)
}

func TestCancelPayout(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "100.00")
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "50.00")
	p := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 30)), 200)["id"].(string)
	cp := requireOK(t, env.post("/customers/"+cu+"/payouts", inlineBankPayout("amount", 20)), 200)["id"].(string)
	assert.Equal(t, "70.00", balanceOf(t, env, ""))
	assert.Equal(t, "30.00", balanceOf(t, env, cu))

	env.clock.Advance(2 * time.Minute)
	o := requireOK(t, env.del("/payouts/"+p), http.StatusOK)
	assert.Equal(t, "cancelled", o["status"])
	assert.Equal(t, strings.ToUpper(p), o["authorization"])
	assert.Equal(t, "2026-03-10T12:02:00-06:00", o["operation_date"])
	assert.Equal(t, "2026-03-10T12:00:00-06:00", o["creation_date"])
	assert.Equal(t, "100.00", balanceOf(t, env, ""))
	assert.Equal(t, o, requireOK(t, env.get("/payouts/"+p), http.StatusOK))
	desc := requireError(t, env.del("/payouts/"+p), 1003)
	assert.Contains(t, desc, "cancelled")
	assert.Equal(t, "100.00", balanceOf(t, env, ""), "a payout is cancelled once")

	// A customer's payout: not found at another customer's scope, cancelled
	// at its own; the money returns to the customer.
	other := createCustomerHTTP(t, env, "Otro", true)
	requireError(t, env.del("/customers/"+other+"/payouts/"+cp), 1005)
	requireError(t, env.del("/customers/"+cu+"/payouts/"+p), 1005)
	o = requireOK(t, env.del("/customers/"+cu+"/payouts/"+cp), http.StatusOK)
	assert.Equal(t, "cancelled", o["status"])
	assert.Equal(t, "50.00", balanceOf(t, env, cu))

	// Settled or failed payouts cannot be cancelled.
	settled := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 1)), 200)["id"].(string)
	_, err := env.s.SettlePayout(env.m.ID, settled)
	require.NoError(t, err)
	requireError(t, env.del("/payouts/"+settled), 1003)
	failed := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 1)), 200)["id"].(string)
	_, err = env.s.FailPayout(env.m.ID, failed, "")
	require.NoError(t, err)
	requireError(t, env.del("/payouts/"+failed), 1003)
	requireError(t, env.del("/payouts/trnothere"), 1005)

	// Merchant scope reaches a customer's payout.
	cp2 := requireOK(t, env.post("/customers/"+cu+"/payouts", inlineBankPayout("amount", 5)), 200)["id"].(string)
	requireOK(t, env.del("/payouts/"+cp2), http.StatusOK)
	assert.Equal(t, "50.00", balanceOf(t, env, cu))

	// A charge is not a payout.
	charge := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x"}), 200)["id"].(string)
	requireError(t, env.del("/payouts/"+charge), 1005)
	requireError(t, env.get("/payouts/"+charge), 1005)

	// A deactivated account cannot take its money back.
	cp3 := requireOK(t, env.post("/customers/"+cu+"/payouts", inlineBankPayout("amount", 5)), 200)["id"].(string)
	deactivateCustomer(env, cu)
	requireError(t, env.del("/customers/"+cu+"/payouts/"+cp3), 1008)
	p4 := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 5)), 200)["id"].(string)
	setMerchantStatus(env, openpay.MerchantStatusDeleted)
	requireError(t, env.del("/payouts/"+p4), 1008)
	setMerchantStatus(env, openpay.MerchantStatusActive)
	requireOK(t, env.del("/payouts/"+p4), http.StatusOK)
}

// Every cancelled payout, whatever its destination and scope, carries its
// authorization (the upper-cased id, as the gateway's example of a
// cancelled payout shows) in the cancel answer, in reads and in lists at
// both scopes.
func TestCancelledPayoutsCarryTheirAuthorization(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "1000.00")
	seller := createCustomerHTTP(t, env, "Seller", true)
	fund(t, env, seller, "500.00")
	plain := createCustomerHTTP(t, env, "Plain", false)
	acct := requireOK(t, env.post("/customers/"+seller+"/bankaccounts", map[string]any{"holder_name": "Mi empresa", "clabe": clabeBancomer}), 200)["id"].(string)
	mcard := storedCard(t, env, "", "4111111111111111")
	ccard := storedCard(t, env, "/customers/"+seller, "5555555555554444")
	cases := []struct {
		name, scope string
		body        map[string]any
	}{
		{"merchant, bank account inline", "", inlineBankPayout()},
		{"merchant, registered bank account", "", bankPayout(acct)},
		{"merchant, stored card", "", map[string]any{"method": "card", "destination_id": mcard, "amount": 5, "description": "x"}},
		{"merchant, card inline", "", inlineCardPayout("5555555555554444")},
		{"customer with an account, registered bank account", "/customers/" + seller, bankPayout(acct)},
		{"customer with an account, stored card", "/customers/" + seller, map[string]any{"method": "card", "destination_id": ccard, "amount": 5, "description": "x"}},
		{"customer without an account, bank account inline", "/customers/" + plain, inlineBankPayout()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := requireOK(t, env.post(c.scope+"/payouts", c.body), http.StatusOK)["id"].(string)
			want := strings.ToUpper(id)
			o := requireOK(t, env.del(c.scope+"/payouts/"+id), http.StatusOK)
			assert.Equal(t, "cancelled", o["status"])
			assert.Equal(t, want, o["authorization"])
			assert.Equal(t, want, requireOK(t, env.get(c.scope+"/payouts/"+id), http.StatusOK)["authorization"])
			assert.Equal(t, want, requireOK(t, env.get("/payouts/"+id), http.StatusOK)["authorization"])
			var listed []string
			for _, p := range env.get(c.scope + "/payouts?status=CANCELLED&limit=100").arr(t) {
				if p["id"] == id {
					listed = append(listed, p["authorization"].(string))
				}
			}
			assert.Equal(t, []string{want}, listed)
		})
	}
}

func TestPayoutSimulations(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "100.00")
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "40.00")
	p := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 25)), 200)["id"].(string)
	cp := requireOK(t, env.post("/customers/"+cu+"/payouts", inlineBankPayout("amount", 15)), 200)["id"].(string)

	// Settled: completed, the money has left for good.
	env.clock.Advance(time.Hour)
	o := requireOK(t, env.sim("/payouts/"+p+"/settle", nil), http.StatusOK)
	assert.Equal(t, "completed", o["status"])
	assert.Equal(t, strings.ToUpper(p), o["authorization"])
	assert.Equal(t, "2026-03-10T13:00:00-06:00", o["operation_date"])
	assert.Equal(t, "75.00", balanceOf(t, env, ""))
	requireError(t, env.sim("/payouts/"+p+"/settle", nil), 1003)
	requireError(t, env.sim("/payouts/"+p+"/fail", nil), 1003)

	// Failed: the money returns to the customer.
	requireError(t, env.sim("/payouts/"+cp+"/fail", map[string]any{"error_message": 5}), 1001)
	requireError(t, env.sim("/payouts/"+cp+"/fail", map[string]any{"error_message": strings.Repeat("e", 251)}), 1003)
	requireError(t, env.sim("/payouts/"+cp+"/fail", "{"), 1001)
	o = requireOK(t, env.sim("/payouts/"+cp+"/fail", map[string]any{"error_message": "Cuenta inexistente"}), http.StatusOK)
	assert.Equal(t, "failed", o["status"])
	assert.Equal(t, "Cuenta inexistente", o["error_message"])
	assert.Equal(t, "40.00", balanceOf(t, env, cu))
	assert.Equal(t, o, requireOK(t, env.get("/customers/"+cu+"/payouts/"+cp), 200))
	// Without a message, a default one.
	cp2 := requireOK(t, env.post("/customers/"+cu+"/payouts", inlineBankPayout("amount", 1)), 200)["id"].(string)
	o = requireOK(t, env.sim("/payouts/"+cp2+"/fail", nil), http.StatusOK)
	assert.Equal(t, defaultPayoutFailure, o["error_message"])

	// Unknown payouts, a charge, other credentials.
	requireError(t, env.sim("/payouts/trnothere/settle", nil), 1005)
	charge := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x"}), 200)["id"].(string)
	requireError(t, env.sim("/payouts/"+charge+"/settle", nil), 1005)
	p2 := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 1)), 200)["id"].(string)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/payouts/"+p2+"/settle", env.m.PublicKey, nil), 1010)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/payouts/"+p2+"/settle", env.other.PrivateKey, nil), 1002)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+env.other.ID+"/payouts/"+p2+"/settle", env.other.PrivateKey, nil), 1005)
	requireErrorStatus(t, env.do(http.MethodGet, "/_simulate/"+env.m.ID+"/payouts/"+p2+"/settle", env.m.PrivateKey, nil), 1001, 405, "request")
	_, err := env.s.SettlePayout("mnosuchmerchant", p2)
	assert.Equal(t, openpay.ErrNotFound, err.(*Error).Code)

	// The events, in order.
	var got []string
	for _, ev := range env.s.Events(env.m.ID) {
		if strings.HasPrefix(string(ev.Type), "payout.") {
			got = append(got, string(ev.Type)+" "+ev.Transaction.ID+" "+string(ev.Transaction.Status))
		}
	}
	assert.Equal(t, []string{
		"payout.created " + p + " in_progress", "payout.created " + cp + " in_progress",
		"payout.succeeded " + p + " completed", "payout.failed " + cp + " failed",
		"payout.created " + cp2 + " in_progress", "payout.failed " + cp2 + " failed",
		"payout.created " + p2 + " in_progress",
	}, got)
}

func TestListPayouts(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "1000.00")
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "1000.00")
	var merchantIDs, customerIDs []string
	for i, amount := range []float64{10, 20, 30, 40} {
		mp := requireOK(t, env.post("/payouts", inlineBankPayout("amount", amount, "order_id", "m-"+string(rune('a'+i)))), 200)["id"].(string)
		merchantIDs = append(merchantIDs, mp)
		cp := requireOK(t, env.post("/customers/"+cu+"/payouts", inlineBankPayout("amount", amount+1)), 200)["id"].(string)
		customerIDs = append(customerIDs, cp)
		env.clock.Advance(24 * time.Hour)
	}
	// Charges, fees and transfers are not payouts.
	requireOK(t, env.post("/fees", map[string]any{"customer_id": cu, "amount": 5, "description": "fee"}), 200)
	_, err := env.s.SettlePayout(env.m.ID, merchantIDs[1])
	require.NoError(t, err)

	all := ids(env.get("/payouts?limit=100").arr(t))
	assert.Equal(t, []string{customerIDs[3], merchantIDs[3], customerIDs[2], merchantIDs[2], customerIDs[1], merchantIDs[1],
		customerIDs[0], merchantIDs[0]}, all, "merchant scope: every payout, newest first")
	assert.Equal(t, []string{customerIDs[3], customerIDs[2], customerIDs[1], customerIDs[0]},
		ids(env.get("/customers/"+cu+"/payouts").arr(t)))
	list := func(q url.Values) []string { return ids(env.get("/payouts?" + q.Encode()).arr(t)) }
	assert.Equal(t, []string{merchantIDs[1]}, list(url.Values{"status": {"COMPLETED"}}))
	assert.Len(t, list(url.Values{"status": {"in_progress"}}), 7)
	assert.Equal(t, []string{merchantIDs[2]}, list(url.Values{"order_id": {"m-c"}}))
	assert.Equal(t, []string{merchantIDs[2]}, list(url.Values{"amount": {"30"}}))
	assert.Equal(t, []string{customerIDs[3], merchantIDs[3], customerIDs[2]}, list(url.Values{"amount[gte]": {"31"}}))
	assert.Equal(t, []string{customerIDs[0], merchantIDs[0]}, list(url.Values{"amount[lte]": {"11.00"}}))
	assert.Equal(t, []string{customerIDs[1], merchantIDs[1]}, list(url.Values{"creation": {"2026-03-11"}}))
	assert.Equal(t, all[2:4], list(url.Values{"offset": {"2"}, "limit": {"2"}}))
	assert.Equal(t, all, list(url.Values{"payout_type": {"ALL"}, "limit": {"100"}}))
	assert.Equal(t, all, list(url.Values{"payout_type": {"manual"}, "limit": {"100"}}))
	assert.Empty(t, list(url.Values{"payout_type": {"AUTOMATIC"}}))
	// Any other value is taken (openapi.yaml passes it through) and names
	// a kind of payout the server never makes.
	for _, typ := range []string{"WEEKLY", "bank_account", "SIDEWAYS"} {
		r := env.get("/payouts?" + url.Values{"payout_type": {typ}}.Encode())
		require.Equal(t, http.StatusOK, r.status, "payout_type %q: %s", typ, r.body)
		assert.Empty(t, r.arr(t), typ)
	}
	for _, q := range []string{"status=DONE", "amount=ten", "amount%5Bgte%5D=1.001", "limit=0", "offset=x", "creation%5Blte%5D=2026-02-30"} {
		requireError(t, env.get("/payouts?"+q), 1003)
		requireError(t, env.get("/customers/"+cu+"/payouts?"+q), 1003)
	}
	requireError(t, env.get("/customers/anothere/payouts"), 1005)
	requireError(t, env.get("/customers/anothere/payouts/"+customerIDs[0]), 1005)
	// Reads: merchant scope reaches a customer's payout; a customer scope
	// does not reach the merchant's.
	requireOK(t, env.get("/payouts/"+customerIDs[0]), 200)
	requireError(t, env.get("/customers/"+cu+"/payouts/"+merchantIDs[0]), 1005)
	requireError(t, env.get("/payouts/trnothere"), 1005)
}
