package refserver

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/barcode"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/openpay-go/openpay/internal/refserver/cents"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// balance reads the main merchant's balance through the API.
func balance(t *testing.T, env *testEnv) string {
	t.Helper()
	o := requireOK(t, env.get(""), http.StatusOK)
	return fmt.Sprintf("%v", o["balance"])
}

// customerBalance reads a customer's balance from the server.
func customerBalance(t *testing.T, env *testEnv, id string) string {
	t.Helper()
	_, cs, err := env.s.Balances(env.m.ID)
	require.NoError(t, err)
	return cs[id].String()
}

func storedCard(t *testing.T, env *testEnv, scope, number string) string {
	t.Helper()
	return requireOK(t, env.post(scope+"/cards", validCard(number)), env.created())["id"].(string)
}

func cardCharge(source string, kv ...any) map[string]any {
	return with(map[string]any{"method": "card", "source_id": source, "amount": 100, "description": "Cargo inicial"}, kv...)
}

func TestChargeStoredCardTokenAndInline(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	o := requireOK(t, env.post("/charges", cardCharge(card, "order_id", "oid-1", "amount", 100.5, "device_session_id", "s")), http.StatusOK)
	assert.Regexp(t, `^tr[a-z0-9]{18}$`, o["id"])
	assert.Equal(t, "completed", o["status"])
	assert.Regexp(t, `^[0-9]{6}$`, o["authorization"])
	assert.Equal(t, "card", o["method"])
	assert.Equal(t, "in", o["operation_type"])
	assert.Equal(t, "charge", o["transaction_type"])
	assert.Equal(t, "MXN", o["currency"])
	assert.Equal(t, 100.5, o["amount"])
	assert.Equal(t, "oid-1", o["order_id"])
	assert.Equal(t, "Cargo inicial", o["description"])
	assert.NotContains(t, o, "customer_id")
	assertNull(t, o, "error_message")
	k := o["card"].(map[string]any)
	assert.Equal(t, card, k["id"])
	assert.Equal(t, "411111XXXXXX1111", k["card_number"])
	assert.Equal(t, "100.5", balance(t, env))

	tok := requireOK(t, env.post("/tokens", validCard("5555555555554444")), http.StatusOK)["id"].(string)
	o = requireOK(t, env.post("/charges", cardCharge(tok)), http.StatusOK)
	assert.Equal(t, "completed", o["status"])
	assert.NotContains(t, o["card"], "id", "a token's card has no id")
	assert.Equal(t, "555555XXXXXX4444", o["card"].(map[string]any)["card_number"])
	desc := requireError(t, env.post("/charges", cardCharge(tok)), 1003)
	assert.Contains(t, desc, "used")

	o = requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 50, "description": "inline",
		"card": validCard("343434343434343")}), http.StatusOK)
	assert.Equal(t, "completed", o["status"])
	assert.Equal(t, "343434XXXXX4343", o["card"].(map[string]any)["card_number"])
	assert.Equal(t, "250.5", balance(t, env))

	requireError(t, env.post("/charges", cardCharge("knothere")), 1005)
	requireError(t, env.post("/charges", map[string]any{"method": "card", "amount": 50, "description": "x", "card": "4111"}), 1001)
	requireError(t, env.post("/charges", map[string]any{"method": "card", "amount": 50, "description": "x",
		"card": with(validCard("4111111111111111"), "cvv2", nil)}), 2006)
	requireError(t, env.post("/charges", cardCharge(card, "cvv2", "12")), 2009)
	requireOK(t, env.post("/charges", cardCharge(card, "cvv2", "123")), http.StatusOK)
}

func TestCustomerScopeCharges(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	plain, withAccount := newCustomer(t, env, false), newCustomer(t, env, true)
	for _, cu := range []string{plain, withAccount} {
		card := storedCard(t, env, "/customers/"+cu, "4242424242424242")
		o := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(card)), http.StatusOK)
		assert.Equal(t, cu, o["customer_id"])
		assert.Equal(t, cu, o["card"].(map[string]any)["customer_id"])
		// A merchant card, another customer's card or a missing customer.
		requireError(t, env.post("/customers/"+cu+"/charges", cardCharge(storedCard(t, env, "", "4111111111111111"))), 1005)
		requireError(t, env.post("/customers/anobody/charges", cardCharge(card)), 1005)
	}
	// A customer without an account: the merchant is credited; with one,
	// the customer.
	assert.Equal(t, "100", balance(t, env))
	assert.Equal(t, "100.00", customerBalance(t, env, withAccount))
	other := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+plain, "4111111111111111")
	requireError(t, env.post("/customers/"+other+"/charges", cardCharge(card)), 1005)
	requireError(t, env.post("/charges", cardCharge(card)), 1005)
}

func TestPreAuthorization(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	o := requireOK(t, env.post("/charges", cardCharge(card, "capture", false, "amount", 300)), http.StatusOK)
	id := o["id"].(string)
	assert.Equal(t, "in_progress", o["status"])
	assert.Regexp(t, `^[0-9]{6}$`, o["authorization"])
	assert.Equal(t, "0", balance(t, env), "nothing moves until the capture")
	requireError(t, env.post("/charges/"+id+"/capture", map[string]any{"amount": 300.01}), 1003)
	requireError(t, env.post("/charges/"+id+"/capture", map[string]any{"amount": 0}), 1003)
	requireError(t, env.post("/charges/"+id+"/capture", map[string]any{"amount": "x"}), 1001)
	o = requireOK(t, env.post("/charges/"+id+"/capture", map[string]any{"amount": 250}), http.StatusOK)
	assert.Equal(t, "completed", o["status"])
	assert.Equal(t, 250.0, o["amount"])
	assert.Equal(t, "250", balance(t, env))
	desc := requireError(t, env.post("/charges/"+id+"/capture", nil), 1003)
	assert.Equal(t, descFinalStatus, desc)
	requireError(t, env.post("/charges/trnothere/capture", nil), 1005)

	// Without a body the whole amount is captured.
	id = requireOK(t, env.post("/charges", cardCharge(card, "capture", false, "amount", 40)), http.StatusOK)["id"].(string)
	o = requireOK(t, env.post("/charges/"+id+"/capture", nil), http.StatusOK)
	assert.Equal(t, 40.0, o["amount"])

	// Refunding or cancelling a pre-authorization voids it.
	id = requireOK(t, env.post("/charges", cardCharge(card, "capture", false)), http.StatusOK)["id"].(string)
	o = requireOK(t, env.post("/charges/"+id+"/refund", nil), http.StatusOK)
	assert.Equal(t, "cancelled", o["status"])
	assert.NotContains(t, o, "refund")
	requireError(t, env.post("/charges/"+id+"/capture", nil), 1003)
	id = requireOK(t, env.post("/charges", cardCharge(card, "capture", false)), http.StatusOK)["id"].(string)
	o = requireOK(t, env.post("/charges/"+id+"/cancel", nil), http.StatusOK)
	assert.Equal(t, "cancelled", o["status"])
	requireError(t, env.post("/charges/"+id+"/cancel", nil), 1003)
	assert.Equal(t, "290", balance(t, env))
}

func TestDeclinesRecordAFailedCharge(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, tc := range cardnum.TestCards() {
		if tc.Outcome.Code == 0 {
			continue
		}
		t.Run(tc.Number, func(t *testing.T) {
			var card string
			if tc.Outcome.RefusedWhenSaved { // not stored: charged through a token
				card = requireOK(t, env.post("/tokens", validCard(tc.Number)), http.StatusOK)["id"].(string)
			} else {
				card = storedCard(t, env, "", tc.Number)
			}
			order := "decline-" + tc.Number
			desc := requireError(t, env.post("/charges", cardCharge(card, "order_id", order)), tc.Outcome.Code)
			r := env.get("/charges?order_id=" + order)
			list := r.arr(t)
			require.Len(t, list, 1)
			assert.Equal(t, "failed", list[0]["status"])
			assert.Equal(t, desc, list[0]["error_message"])
			assertNull(t, list[0], "authorization")
			// The order_id stays taken.
			requireError(t, env.post("/charges", cardCharge(storedCard(t, env, "", "4111111111111111"), "order_id", order)), 1006)
		})
	}
	// The inline form declines the same way.
	requireError(t, env.post("/charges", map[string]any{"method": "card", "amount": 5, "description": "x",
		"card": validCard("4000000000030017")}), 3001)
	assert.Equal(t, "0", balance(t, env))
}

func TestFraudEmail(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	customer := map[string]any{"name": "Fraude", "email": "error.fraud@openpay.mx"}
	requireError(t, env.post("/charges", cardCharge(card, "customer", customer)), 3005)
	cu, err := env.s.CreateCustomer(env.m.ID, openpay.CustomerRequest{Name: "F", Email: cardnum.FraudEmail})
	require.NoError(t, err)
	ccard := storedCard(t, env, "/customers/"+cu.ID, "4111111111111111")
	requireError(t, env.post("/customers/"+cu.ID+"/charges", cardCharge(ccard)), 3005)
	// Even a 3-D Secure card.
	requireError(t, env.post("/charges", cardCharge(storedCard(t, env, "", "5454545454545454"), "customer", customer)), 3005)
	requireOK(t, env.post("/charges", cardCharge(card, "customer", map[string]any{"name": "Ok", "email": "ok@example.com"})), http.StatusOK)
}

// A fraud-risk decline (3005) names the anti-fraud rule it broke in
// fraud_rules, as the gateway's error object does; other declines carry
// none.
func TestFraudDeclineNamesTheRuleBroken(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	fraudCustomer := map[string]any{"name": "Fraude", "email": "error.fraud@openpay.mx"}
	cu, err := env.s.CreateCustomer(env.m.ID, openpay.CustomerRequest{Name: "F", Email: cardnum.FraudEmail})
	require.NoError(t, err)
	ccard := storedCard(t, env, "/customers/"+cu.ID, "4111111111111111")
	plan := newPlan(t, env, "trial_days", 0)
	cases := []struct {
		name, path string
		body       map[string]any
		rule       string
	}{
		{"fraud e-mail on a merchant charge", "/charges", cardCharge(card, "customer", fraudCustomer), cardnum.FraudRuleEmail},
		{"fraud e-mail of the customer", "/customers/" + cu.ID + "/charges", cardCharge(ccard), cardnum.FraudRuleEmail},
		{"fraud card inline", "/charges", map[string]any{"method": "card", "amount": 10, "description": "d",
			"card": validCard("4000000000030058")}, cardnum.FraudRuleCard},
		{"subscription charged at creation", "/customers/" + cu.ID + "/subscriptions", map[string]any{"plan_id": plan, "source_id": ccard}, cardnum.FraudRuleEmail},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := env.post(c.path, c.body)
			requireError(t, r, 3005)
			assert.Equal(t, []any{c.rule}, r.obj(t)["fraud_rules"])
		})
	}
	r := env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": "d", "card": validCard("4000000000030017")})
	requireError(t, r, 3001)
	assert.NotContains(t, r.obj(t), "fraud_rules")
}

func TestThreeDSecure(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "5454545454545454")
	o := requireOK(t, env.post("/charges", cardCharge(card, "redirect_url", "https://shop.example/back")), http.StatusOK)
	id := o["id"].(string)
	assert.Equal(t, "charge_pending", o["status"])
	pm := o["payment_method"].(map[string]any)
	assert.Equal(t, "redirect", pm["type"])
	assert.Equal(t, env.srv.URL+"/v1/"+env.m.ID+"/charges/"+id+"/redirect/", pm["url"])
	assertNull(t, o, "authorization")
	assert.Equal(t, false, o["conciliated"])
	assert.Equal(t, "0", balance(t, env))
	done, err := env.s.CompleteCharge(env.m.ID, id)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, done.Status)
	assert.NotEmpty(t, done.Authorization)
	assert.Equal(t, "100", balance(t, env))

	// Any card with use_3d_secure; redirect_url is then required.
	visa := storedCard(t, env, "", "4111111111111111")
	requireError(t, env.post("/charges", cardCharge(visa, "use_3d_secure", true)), 1001)
	requireError(t, env.post("/charges", cardCharge(visa, "use_3d_secure", true, "redirect_url", "not a url")), 1003)
	o = requireOK(t, env.post("/charges", cardCharge(visa, "use_3d_secure", true, "redirect_url", "https://shop.example/back", "capture", false)), http.StatusOK)
	assert.Equal(t, "charge_pending", o["status"])
	done, err = env.s.CompleteCharge(env.m.ID, o["id"].(string))
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusInProgress, done.Status, "capture false: a pre-authorization once authenticated")
	requireOK(t, env.post("/charges/"+done.ID+"/capture", nil), http.StatusOK)

	// Abandoned: cancel, or failed.
	o = requireOK(t, env.post("/charges", cardCharge(card)), http.StatusOK)
	requireOK(t, env.post("/charges/"+o["id"].(string)+"/cancel", nil), http.StatusOK)
	o = requireOK(t, env.post("/charges", cardCharge(card)), http.StatusOK)
	failed, err := env.s.FailCharge(env.m.ID, o["id"].(string), openpay.ErrCardDeclined)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusFailed, failed.Status)
	assert.NotEmpty(t, failed.ErrorMessage)
	_, err = env.s.CompleteCharge(env.m.ID, o["id"].(string))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, openpay.ErrInvalidParameter, e.Code)
}

func TestRedirectIVRAndAlipayCharges(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	customer := map[string]any{"name": "Juan", "last_name": "Vazquez", "email": "juan@example.com", "phone_number": "4423456723"}
	redirect := map[string]any{"method": "card", "amount": 100, "description": "terminal", "confirm": false,
		"redirect_url": "https://shop.example/back", "customer": customer}
	o := requireOK(t, env.post("/charges", redirect), http.StatusOK)
	assert.Equal(t, "charge_pending", o["status"])
	assert.Equal(t, false, o["conciliated"] == true)
	pm := o["payment_method"].(map[string]any)
	assert.Equal(t, "redirect", pm["type"])
	assert.True(t, strings.HasSuffix(pm["url"].(string), "/charges/"+o["id"].(string)+"/card_capture"))
	echo := o["customer"].(map[string]any)
	assert.Equal(t, "Juan", echo["name"])
	assert.Equal(t, "juan@example.com", echo["email"])
	assert.Contains(t, echo, "creation_date")
	assert.NotContains(t, echo, "id")
	requireError(t, env.post("/charges", with(redirect, "customer", nil)), 1001)
	requireError(t, env.post("/charges", with(redirect, "redirect_url", nil)), 1001)
	requireError(t, env.post("/charges", with(redirect, "customer", map[string]any{"name": "x"})), 1001)
	requireError(t, env.post("/charges", with(redirect, "customer", map[string]any{"name": "x", "email": "nope"})), 1001) // a format: 1001 (issue 25)
	requireError(t, env.post("/charges", with(redirect, "confirm", "yes")), 1003)
	// confirm true is an ordinary card charge, which needs a source_id or a card.
	requireError(t, env.post("/charges", with(redirect, "confirm", true)), 1001)
	cu := newCustomer(t, env, false)
	requireOK(t, env.post("/customers/"+cu+"/charges", with(redirect, "customer", nil)), http.StatusOK)
	done, err := env.s.CompleteCharge(env.m.ID, o["id"].(string))
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, done.Status)
	assert.True(t, done.Conciliated)

	ivr := map[string]any{"method": "card", "confirm": "ivr", "amount": 100, "description": "IVR", "customer": customer}
	o = requireOK(t, env.post("/charges", ivr), http.StatusOK)
	assert.Equal(t, "charge_pending", o["status"])
	pm = o["payment_method"].(map[string]any)
	assert.Equal(t, "ivr", pm["type"])
	assert.Equal(t, ivrPhoneNumber, pm["phone_number"])
	assert.GreaterOrEqual(t, pm["ivr_key"], 100000.0)
	assert.Contains(t, o, "due_date")
	requireError(t, env.post("/charges", with(ivr, "confirm", "phone")), 1003)
	requireError(t, env.post("/charges", with(ivr, "customer", nil)), 1001)

	alipay := map[string]any{"method": "alipay", "amount": 2000, "description": "Cargo Alipay", "redirect_url": "https://shop.example/back"}
	o = requireOK(t, env.post("/charges", alipay), http.StatusOK)
	assert.Equal(t, "alipay", o["method"])
	assert.Equal(t, "charge_pending", o["status"])
	assert.Equal(t, map[string]any{"amount": 2.0, "tax": 0.0, "currency": "MXN"}, o["fee"])
	assert.Equal(t, "redirect", o["payment_method"].(map[string]any)["type"])
	requireError(t, env.post("/charges", with(alipay, "redirect_url", nil)), 1001)
	before := balance(t, env)
	_, err = env.s.CompleteCharge(env.m.ID, o["id"].(string))
	require.NoError(t, err)
	assert.Equal(t, "100", before)
	assert.Equal(t, "2098", balance(t, env), "the Alipay fee stays with the gateway")
	requireError(t, env.post("/charges/"+o["id"].(string)+"/refund", nil), 1003)
}

// An IVR charge counts the payer's calls in payment_method.attempts: the
// call that completes it and the one that fails it are attempts. Earlier
// events keep the count they were sent with.
func TestIVRChargeCountsThePayersAttempts(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	ivr := map[string]any{"method": "card", "confirm": "ivr", "amount": 100, "description": "IVR",
		"customer": map[string]any{"name": "Juan", "email": "juan@example.com"}}
	attempts := func(o map[string]any) any { return o["payment_method"].(map[string]any)["attempts"] }
	for _, c := range []struct{ op, status string }{{"complete", "completed"}, {"fail", "failed"}} {
		t.Run(c.op, func(t *testing.T) {
			id := requireOK(t, env.post("/charges", ivr), http.StatusOK)["id"].(string)
			o := requireOK(t, env.sim("/charges/"+id+"/"+c.op, nil), http.StatusOK)
			assert.Equal(t, c.status, o["status"])
			assert.Equal(t, 1.0, attempts(o))
			got := requireOK(t, env.get("/charges/"+id), http.StatusOK)
			assert.Equal(t, 1.0, attempts(got))
			assert.Equal(t, "ivr", got["payment_method"].(map[string]any)["type"])
			for _, ev := range env.s.Events(env.m.ID) {
				if ev.Transaction.ID == id && ev.Type == openpay.EventTypeChargeCreated {
					assert.Zero(t, ev.Transaction.PaymentMethod.Attempts, "the creation event keeps the count it was sent with")
				}
			}
		})
	}
}

// Keys the gateway sends with a zero value on charges, whose Go wire types
// leave zero values out (omitzero): the handlers hold the right values, and
// the answer key-set mechanism (openapi.yaml-driven, applied when the answer
// is encoded) writes them. A customer's balance is the other way round: the
// gateway leaves it out while it is zero.
func TestAnswersCarryTheKeysTheGatewaySendsAsZero(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	customer := map[string]any{"name": "Juan", "email": "juan@example.com"}
	for name, body := range map[string]map[string]any{
		"redirect": {"method": "card", "amount": 100, "description": "terminal", "confirm": false,
			"redirect_url": "https://shop.example/back", "customer": customer},
		"alipay": {"method": "alipay", "amount": 100, "description": "Alipay", "redirect_url": "https://shop.example/back"},
		"ivr":    {"method": "card", "confirm": "ivr", "amount": 100, "description": "IVR", "customer": customer},
	} {
		o := requireOK(t, env.post("/charges", body), http.StatusOK)
		assert.Equal(t, false, o["conciliated"], name)
		if name == "ivr" {
			assert.Equal(t, 0.0, o["payment_method"].(map[string]any)["attempts"])
		}
	}
	// The gateway's examples of card, store and bank charges carry no
	// conciliated.
	for name, body := range map[string]map[string]any{
		"card":  cardCharge(storedCard(t, env, "", "4111111111111111")),
		"store": {"method": "store", "amount": 100, "description": "tienda"},
		"bank":  {"method": "bank_account", "amount": 100, "description": "banco"},
	} {
		assert.NotContains(t, requireOK(t, env.post("/charges", body), http.StatusOK), "conciliated", name)
	}
	// A customer with an account shows its balance once it is not zero;
	// at creation the gateway's answer has store and clabe but no balance
	// (customers--create-a-new-customer.json).
	o := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com", "requires_account": true}), http.StatusOK)
	assert.NotContains(t, o, "balance", "as the gateway's creation example")
	assert.Contains(t, o, "clabe")
	_, err := env.s.ReceiveSPEI(env.m.ID, o["id"].(string), openpay.MustAmount("103"), "deposit")
	require.NoError(t, err)
	o = requireOK(t, env.get("/customers/"+o["id"].(string)), http.StatusOK)
	assert.Equal(t, 103.0, o["balance"])
	o = requireOK(t, env.post("/customers", map[string]any{"name": "Eva", "email": "eva@example.com"}), http.StatusOK)
	assert.NotContains(t, o, "balance", "a customer without an account has no balance")
}

func TestStoreCharge(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	o := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 100, "description": "Cargo con tienda",
		"order_id": "oid-00053", "due_date": "2026-03-20T13:45:00-05:00"}), http.StatusOK)
	id := o["id"].(string)
	assert.Equal(t, "store", o["method"])
	assert.Equal(t, "in_progress", o["status"])
	assert.Equal(t, "2026-03-20T12:45:00-06:00", o["due_date"], "converted to central time")
	pm := o["payment_method"].(map[string]any)
	assert.Equal(t, "store", pm["type"])
	ref := pm["reference"].(string)
	assert.Equal(t, "000020"+strings.ToUpper(id)+"01", ref[:len(ref)-5])
	assert.Regexp(t, `^010199[0-9]{10}$`, pm["paybin_reference"])
	for _, u := range []struct{ url, data string }{{pm["barcode_url"].(string), ref}, {pm["barcode_paybin_url"].(string), pm["paybin_reference"].(string)}} {
		require.True(t, strings.HasPrefix(u.url, env.srv.URL+"/barcode/"), u.url)
		res, err := http.Get(u.url)
		require.NoError(t, err)
		img := readAll(t, res)
		assert.Equal(t, "image/png", res.Header.Get("Content-Type"))
		// Package barcode's tests read its images back with a scanner; here
		// it is enough that the server draws the reference it issued.
		want, err := barcode.Code128(u.data, 1, 45)
		require.NoError(t, err)
		assert.Equal(t, want, img)
	}
	requireError(t, env.do(http.MethodGet, "/barcode/NOTISSUED", "", nil), 1005)
	requireError(t, env.do(http.MethodGet, "/barcode/"+url.PathEscape(ref)+"?width=11", "", nil), 1003)
	requireError(t, env.do(http.MethodGet, "/barcode/"+url.PathEscape(ref)+"?height=0", "", nil), 1003)
	res, err := http.Get(env.srv.URL + "/barcode/" + ref + "?width=3&height=20")
	require.NoError(t, err)
	want, err := barcode.Code128(ref, 3, 20)
	require.NoError(t, err)
	assert.Equal(t, want, readAll(t, res))

	requireError(t, env.post("/charges/"+id+"/refund", nil), 1003)
	requireError(t, env.post("/charges/"+id+"/capture", nil), 1003)
	paid, err := env.s.PayCharge(env.m.ID, id)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, paid.Status)
	assert.Equal(t, "100", balance(t, env))
	_, err = env.s.PayCharge(env.m.ID, id)
	assert.Error(t, err, "paid once")
	requireError(t, env.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x",
		"due_date": "2026-03-01T00:00:00-06:00"}), 1003)
	requireError(t, env.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x", "due_date": "tomorrow"}), 1001)

	// Unpaid past its due date: cancelled when the clock moves on.
	o = requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x"}), http.StatusOK)
	_, err = env.s.AdvanceClock(47 * time.Hour)
	require.NoError(t, err)
	assert.Equal(t, "in_progress", requireOK(t, env.get("/charges/"+o["id"].(string)), 200)["status"])
	_, err = env.s.AdvanceClock(2 * time.Hour)
	require.NoError(t, err)
	assert.Equal(t, "cancelled", requireOK(t, env.get("/charges/"+o["id"].(string)), 200)["status"])
}

func readAll(t *testing.T, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	buf, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", buf)
	return buf
}

func TestBankCharge(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, true)
	o := requireOK(t, env.post("/customers/"+cu+"/charges", map[string]any{"method": "bank_account", "amount": 100, "description": "Cargo con banco"}), http.StatusOK)
	assert.Equal(t, "bank_account", o["method"])
	assert.Equal(t, "in_progress", o["status"])
	assert.Equal(t, cu, o["customer_id"])
	pm := o["payment_method"].(map[string]any)
	assert.Equal(t, "bank_transfer", pm["type"])
	assert.True(t, clabe.Valid(pm["clabe"].(string)), pm["clabe"])
	assert.Equal(t, "012", pm["clabe"].(string)[:3])
	assert.Regexp(t, `^[0-9]{20}$`, pm["name"])
	assert.Equal(t, bankAgreement, pm["agreement"])
	assert.Equal(t, bankName, pm["bank"])
	_, err := env.s.PayCharge(env.m.ID, o["id"].(string))
	require.NoError(t, err)
	assert.Equal(t, "100.00", customerBalance(t, env, cu))
}

// TestChargeMetadataEchoed: the metadata a card or IVR charge is created
// with comes back on the charge (and on every later read) as the same
// object of strings; a charge sent without any carries none.
// A jump of the clock cancels each unpaid charge at its own due date (the
// first second after it), in order, not at the end of the jump.
func TestPendingChargesExpireAtTheirDueDatesOverAJump(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	customer := map[string]any{"name": "Juan", "email": "juan@example.com"}
	store := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x"}), http.StatusOK)
	ivr := requireOK(t, env.post("/charges", map[string]any{"method": "card", "confirm": "ivr", "amount": 1, "description": "x",
		"customer": customer}), http.StatusOK)
	require.Equal(t, "2026-03-12T12:00:00-06:00", store["due_date"])
	require.Equal(t, "2026-03-11T12:00:00-06:00", ivr["due_date"])

	advanceDays(t, env, 10)
	for _, c := range []struct{ id, at string }{
		{store["id"].(string), "2026-03-12T12:00:01-06:00"},
		{ivr["id"].(string), "2026-03-11T12:00:01-06:00"},
	} {
		o := requireOK(t, env.get("/charges/"+c.id), http.StatusOK)
		assert.Equal(t, "cancelled", o["status"])
		assert.Equal(t, c.at, o["operation_date"])
	}
	var cancelled []string
	for _, ev := range env.s.Events(env.m.ID) {
		if ev.Type == openpay.EventTypeChargeCancelled {
			cancelled = append(cancelled, ev.Transaction.ID+" "+ev.Date.Format(time.RFC3339))
		}
	}
	assert.Equal(t, []string{ivr["id"].(string) + " 2026-03-11T12:00:01-06:00", store["id"].(string) + " 2026-03-12T12:00:01-06:00"}, cancelled)
}

func TestChargeMetadataEchoed(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	meta := map[string]any{"segment": "vip", "channel": "app"}
	customer := map[string]any{"name": "Juan", "email": "juan@example.com"}
	for name, body := range map[string]map[string]any{
		"stored card": cardCharge(card, "metadata", meta),
		"inline card": {"method": "card", "amount": 50, "description": "inline", "card": validCard("5555555555554444"), "metadata": meta},
		"ivr":         {"method": "card", "confirm": "ivr", "amount": 100, "description": "IVR", "customer": customer, "metadata": meta},
	} {
		t.Run(name, func(t *testing.T) {
			o := requireOK(t, env.post("/charges", body), http.StatusOK)
			assert.Equal(t, meta, o["metadata"])
			got := requireOK(t, env.get("/charges/"+o["id"].(string)), http.StatusOK)
			assert.Equal(t, meta, got["metadata"])
		})
	}
	o := requireOK(t, env.post("/charges", cardCharge(card)), http.StatusOK)
	assert.NotContains(t, o, "metadata")

	// At customer scope, in lists, and on a declined charge too.
	cu := newCustomer(t, env, false)
	ccard := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	o = requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(ccard, "metadata", meta)), http.StatusOK)
	assert.Equal(t, meta, o["metadata"])
	listed := env.get("/customers/" + cu + "/charges").arr(t)
	require.Len(t, listed, 1)
	assert.Equal(t, meta, listed[0]["metadata"])
	requireError(t, env.post("/charges", map[string]any{"method": "card", "amount": 5, "description": "declined",
		"order_id": "meta-declined", "card": validCard("4000000000030017"), "metadata": meta}), 3001)
	failed := env.get("/charges?order_id=meta-declined").arr(t)
	require.Len(t, failed, 1)
	assert.Equal(t, meta, failed[0]["metadata"])
}

func TestChargeValidation(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	plain := storedCard(t, env, "", "4242424242424242")
	base := cardCharge(card)
	cases := []struct {
		name string
		body any
		code int
		in   string
	}{
		{"no body", "", 1001, "body"},
		{"no method", with(base, "method", nil), 1001, "method"},
		{"method a number", with(base, "method", 3), 1001, "method"},
		{"unknown method", with(base, "method", "cash"), 1003, "method"},
		{"no amount", with(base, "amount", nil), 1001, "amount"},
		{"amount a string not a number", with(base, "amount", "cien"), 1001, "amount"},
		{"amount zero", with(base, "amount", 0), 1003, "amount"},
		{"amount negative", with(base, "amount", -5), 1003, "amount"},
		{"amount three decimals", with(base, "amount", 1.234), 1003, "amount"},
		{"amount huge exponent", `{"method":"card","source_id":"x","description":"d","amount":1e999999}`, 1001, "amount"},
		{"no description", with(base, "description", nil), 1001, "description"},
		{"description too long", with(base, "description", strings.Repeat("d", 251)), 1003, "description"},
		{"order_id too long", with(base, "order_id", strings.Repeat("o", 101)), 1003, "order_id"},
		{"order_id empty", with(base, "order_id", ""), 1001, "order_id"},
		{"currency", with(base, "currency", "EUR"), 1003, "currency"},
		{"no source_id", with(base, "source_id", nil), 1001, "source_id"},
		{"source_id too long", with(base, "source_id", strings.Repeat("k", 46)), 1003, "source_id"},
		{"payment plan 5", with(base, "payment_plan", map[string]any{"payments": 5}), 1003, "payment_plan"},
		{"payment plan empty", with(base, "payment_plan", map[string]any{}), 1001, "payment_plan.payments"},
		{"use_card_points bad", with(base, "use_card_points", "ALL"), 1003, "use_card_points"},
		{"points without programme", with(cardCharge(plain), "use_card_points", "MIXED"), 2008, "points"},
		{"capture a string not a boolean", with(base, "capture", "no"), 1001, "capture"},
		{"metadata not strings", with(base, "metadata", map[string]any{"a": 1}), 1001, "metadata"},
		{"device_session_id too long", with(base, "device_session_id", strings.Repeat("s", 256)), 1003, "device_session_id"},
		{"customer not an object", with(base, "customer", "x"), 1001, "customer"},
		{"customer name too long", with(base, "customer", map[string]any{"name": strings.Repeat("n", 101), "email": "a@b.co"}), 1003, "customer.name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			desc := requireError(t, env.post("/charges", c.body), c.code)
			assert.Contains(t, desc, c.in)
		})
	}
	for _, plan := range []int{3, 6, 9, 12, 18} {
		requireOK(t, env.post("/charges", with(base, "payment_plan", map[string]any{"payments": plan})), http.StatusOK)
	}
	// Points: a card with a programme pays part with its points.
	pts := storedCard(t, env, "", "5105105105105100")
	o := requireOK(t, env.post("/charges", with(cardCharge(pts), "use_card_points", "MIXED")), http.StatusOK)
	assert.Equal(t, 22.5, o["card_points"].(map[string]any)["amount"])
	o = requireOK(t, env.post("/charges", with(cardCharge(pts), "use_card_points", "ONLY_POINTS", "amount", 20)), http.StatusOK)
	assert.Equal(t, 20.0, o["card_points"].(map[string]any)["amount"])
	requireError(t, env.post("/charges", with(cardCharge(pts), "use_card_points", "ONLY_POINTS", "amount", 30)), 3003)
}

func TestUSDCharge(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	o := requireOK(t, env.post("/charges", cardCharge(card, "currency", "USD", "amount", 10.01)), http.StatusOK)
	assert.Equal(t, "USD", o["currency"])
	assert.Equal(t, 10.01, o["amount"])
	assert.Equal(t, map[string]any{"from": "USD", "to": "MXN", "date": "2026-03-10", "value": 18.5}, o["exchange_rate"])
	assert.Equal(t, "185.19", balance(t, env), "10.01 x 18.5 = 185.185, to the cent")
	// A partial refund rounds its part: 3.33 x 18.5 = 61.605, to the cent.
	// A charge takes one refund (issue 31), so the rest stays credited.
	id := o["id"].(string)
	requireOK(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 3.33}), http.StatusOK)
	assert.Equal(t, "123.58", balance(t, env))
	requireError(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 6.68}), 1003)
	// A whole refund takes exactly what was credited: nothing is left.
	o = requireOK(t, env.post("/charges", cardCharge(card, "currency", "USD", "amount", 10.01)), http.StatusOK)
	requireOK(t, env.post("/charges/"+o["id"].(string)+"/refund", nil), http.StatusOK)
	assert.Equal(t, "123.58", balance(t, env))
}

func TestRefunds(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	id := requireOK(t, env.post("/charges", cardCharge(card, "amount", 100, "order_id", "r-1")), http.StatusOK)["id"].(string)
	o := requireOK(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 30, "description": "devolucion"}), http.StatusOK)
	assert.Equal(t, "refunded", o["status"])
	assert.Equal(t, 100.0, o["amount"], "the charge keeps its amount")
	rf := o["refund"].(map[string]any)
	assert.Equal(t, "refund", rf["transaction_type"])
	assert.Equal(t, "out", rf["operation_type"])
	assert.Equal(t, "completed", rf["status"])
	assert.Equal(t, 30.0, rf["amount"])
	assert.Equal(t, "devolucion", rf["description"])
	assert.Equal(t, o["authorization"], rf["authorization"])
	assert.Regexp(t, `^tr[a-z0-9]{18}$`, rf["id"])
	assert.Equal(t, "70", balance(t, env))
	assert.Equal(t, o, requireOK(t, env.get("/charges/"+id), http.StatusOK), "a read shows the refund too")
	requireError(t, env.get("/charges/"+rf["id"].(string)), 1005)

	// A charge takes one refund (issue 31): it nests one, so a second
	// would hide the first; the refunded total is the nested refund's.
	desc := requireError(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 20}), 1003)
	assert.Contains(t, desc, "already been refunded")
	desc = requireError(t, env.post("/charges/"+id+"/refund", nil), 1003)
	assert.Contains(t, desc, "refunded")
	assert.Equal(t, "70", balance(t, env), "nothing more left the balance")
	assert.Equal(t, o, requireOK(t, env.get("/charges/"+id), http.StatusOK), "the one refund stays readable")
	requireError(t, env.post("/charges/"+id+"/cancel", nil), 1003)
	requireError(t, env.post("/charges/trnothere/refund", nil), 1005)

	// Bad refunds, and a whole refund: without an amount, all of it.
	id = requireOK(t, env.post("/charges", cardCharge(card, "amount", 100)), http.StatusOK)["id"].(string)
	requireError(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 100.01}), 1003)
	requireError(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": -1}), 1003)
	requireError(t, env.post("/charges/"+id+"/refund", map[string]any{"description": strings.Repeat("d", 251)}), 1003)
	o = requireOK(t, env.post("/charges/"+id+"/refund", nil), http.StatusOK)
	assert.Equal(t, 100.0, o["refund"].(map[string]any)["amount"], "without an amount: all of it")
	assert.Equal(t, "70", balance(t, env))

	// The balance must be able to pay the refund.
	id = requireOK(t, env.post("/charges", cardCharge(card, "amount", 100)), http.StatusOK)["id"].(string)
	env.s.merchantByID(env.m.ID).mu.Lock()
	env.s.merchantByID(env.m.ID).balance = cents.Of(openpay.MustAmount("99.99"))
	env.s.merchantByID(env.m.ID).mu.Unlock()
	requireError(t, env.post("/charges/"+id+"/refund", nil), 4001)
	requireOK(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 99.99}), http.StatusOK)

	// A customer's balance likewise.
	cu := newCustomer(t, env, true)
	ccard := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	id = requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(ccard, "amount", 10)), http.StatusOK)["id"].(string)
	env.s.merchantByID(env.m.ID).mu.Lock()
	env.s.merchantByID(env.m.ID).customers.lookup(cu).balance = cents.Of(openpay.MustAmount("5"))
	env.s.merchantByID(env.m.ID).mu.Unlock()
	desc = requireError(t, env.post("/customers/"+cu+"/charges/"+id+"/refund", nil), 4001)
	assert.Contains(t, desc, "customer")
	requireOK(t, env.post("/customers/"+cu+"/charges/"+id+"/refund", map[string]any{"amount": 5}), http.StatusOK)
	assert.Equal(t, "0.00", customerBalance(t, env, cu))
}

func TestConcurrentRefundsNeverExceedTheCharge(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	id := requireOK(t, env.post("/charges", cardCharge(card, "amount", 100)), http.StatusOK)["id"].(string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := 0, 0
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := env.post("/charges/"+id+"/refund", map[string]any{"amount": 7})
			mu.Lock()
			defer mu.Unlock()
			switch r.status {
			case http.StatusOK:
				ok++
			case http.StatusUnprocessableEntity:
				refused++
			default:
				t.Errorf("unexpected answer %d %s", r.status, r.body)
			}
		}()
	}
	wg.Wait()
	// A charge takes one refund (issue 31): of 40 at once, one is made.
	assert.Equal(t, 1, ok, "one refund per charge")
	assert.Equal(t, 39, refused)
	assert.Equal(t, "93", balance(t, env))
}

func TestOrderIDIsUniqueAcrossTheMerchant(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	requireOK(t, env.post("/charges", cardCharge(card, "order_id", "o-1")), http.StatusOK)
	desc := requireError(t, env.post("/charges", cardCharge(card, "order_id", "o-1")), 1006)
	assert.Equal(t, descDuplicateOrder, desc)
	requireError(t, env.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x", "order_id": "o-1"}), 1006)
	cu := newCustomer(t, env, false)
	requireError(t, env.post("/customers/"+cu+"/charges", map[string]any{"method": "bank_account", "amount": 1, "description": "x", "order_id": "o-1"}), 1006)
	// Another merchant has its own order_ids.
	r := env.do(http.MethodPost, "/v1/"+env.other.ID+"/charges", env.other.PrivateKey,
		map[string]any{"method": "store", "amount": 1, "description": "x", "order_id": "o-1"})
	requireOK(t, r, http.StatusOK)
	// Without an order_id nothing is checked.
	requireOK(t, env.post("/charges", cardCharge(card)), http.StatusOK)
	requireOK(t, env.post("/charges", cardCharge(card)), http.StatusOK)
}

func TestConcurrentChargesWithOneOrderID(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	const n = 50
	var wg sync.WaitGroup
	statuses := make([]resp, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			statuses[i] = env.post("/charges", cardCharge(card, "order_id", "same-order"))
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, r := range statuses {
		if r.status == http.StatusOK {
			ok++
			continue
		}
		requireError(t, r, 1006)
	}
	assert.Equal(t, 1, ok)
	assert.Len(t, env.get("/charges?order_id=same-order").arr(t), 1)
	assert.Equal(t, "100", balance(t, env))
}

func TestListCharges(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	cu := newCustomer(t, env, false)
	ccard := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	a := requireOK(t, env.post("/charges", cardCharge(card, "amount", 10)), 200)["id"]
	b := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 20, "description": "x", "order_id": "st"}), 200)["id"]
	c := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(ccard, "amount", 30)), 200)["id"]
	requireError(t, env.post("/charges", cardCharge(storedCard(t, env, "", "4000000000030017"), "amount", 40)), 3001)
	requireOK(t, env.post("/charges/"+a.(string)+"/refund", map[string]any{"amount": 1}), 200)
	ids := func(q string) []any {
		var out []any
		for _, o := range env.get(q).arr(t) {
			out = append(out, o["id"])
		}
		return out
	}
	all := ids("/charges")
	require.Len(t, all, 4, "the merchant sees every charge, its customers' too, not the refund")
	assert.Equal(t, []any{c, b, a}, all[1:])
	assert.Equal(t, []any{c}, ids("/customers/"+cu+"/charges"))
	assert.Equal(t, []any{b}, ids("/charges?order_id=st"))
	assert.Equal(t, []any{b}, ids("/charges?status=IN_PROGRESS"))
	assert.Equal(t, []any{a}, ids("/charges?status=refunded"))
	assert.Len(t, ids("/charges?status=FAILED"), 1)
	assert.Equal(t, []any{c, b}, ids("/charges?amount[gte]=20&amount[lte]=30"))
	assert.Equal(t, []any{b}, ids("/charges?amount=20.00"))
	assert.Equal(t, []any{b}, ids("/charges?offset=2&limit=1"))
	assert.Empty(t, ids("/charges?creation=2026-03-11"))
	assert.Len(t, ids("/charges?creation=2026-03-10"), 4)
	requireError(t, env.get("/charges?status=DONE"), 1003)
	requireError(t, env.get("/charges?amount[gte]=abc"), 1003)
	requireError(t, env.get("/charges?amount=1.001"), 1003)
	assert.Len(t, ids("/charges?limit=1000"), 4, "a limit above 100 is taken as 100")
	// Reads: the merchant reads any charge; a customer only its own.
	requireOK(t, env.get("/charges/"+c.(string)), 200)
	requireError(t, env.get("/customers/"+cu+"/charges/"+a.(string)), 1005)
	requireError(t, env.get("/customers/anobody/charges"), 1005)
	requireError(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/charges/"+a.(string), env.other.PrivateKey, nil), 1005)
}

func TestStrictMode(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{Strict: true})
	card := storedCard(t, env, "", "4111111111111111")
	customer := map[string]any{"name": "Ana", "email": "ana@example.com"}
	full := cardCharge(card, "order_id", "s-1", "device_session_id", "dsid", "customer", customer)
	xff := []string{"X-Forwarded-For", "203.0.113.7"}
	requireError(t, env.post("/charges", full), 1001)
	requireError(t, env.post("/charges", full, "X-Forwarded-For", "not-an-ip"), 1003)
	requireError(t, env.post("/charges", with(full, "order_id", nil), xff...), 1001)
	requireError(t, env.post("/charges", with(full, "device_session_id", nil), xff...), 1001)
	requireError(t, env.post("/charges", with(full, "customer", nil), xff...), 1001)
	requireError(t, env.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x", "order_id": "s-2"}, xff...), 1001)
	requireOK(t, env.post("/charges", full, "X-Forwarded-For", "203.0.113.7, 10.0.0.1"), http.StatusOK)
	// Only charge creation needs the header.
	requireOK(t, env.post("/cards", validCard("4242424242424242")), http.StatusOK)

	lenient := newTestEnv(t, Options{})
	requireOK(t, lenient.post("/charges", cardCharge(storedCard(t, lenient, "", "4111111111111111"))), http.StatusOK)
	requireOK(t, lenient.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x"}, "X-Forwarded-For", "junk"), http.StatusOK)
}

func TestChargebacks(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	id := requireOK(t, env.post("/charges", cardCharge(card, "amount", 100)), 200)["id"].(string)
	requireOK(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 40}), 200)
	cb, err := env.s.OpenChargeback(env.m.ID, id)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusChargebackPending, cb.Status)
	assert.Equal(t, "0", balance(t, env))
	requireError(t, env.post("/charges/"+id+"/refund", nil), 1003)
	_, err = env.s.OpenChargeback(env.m.ID, id)
	assert.Error(t, err)
	back, err := env.s.ResolveChargeback(env.m.ID, id, false)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusRefunded, back.Status)
	assert.Equal(t, "60", balance(t, env))
	_, err = env.s.OpenChargeback(env.m.ID, id)
	require.NoError(t, err)
	lost, err := env.s.ResolveChargeback(env.m.ID, id, true)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusChargebackAccepted, lost.Status)
	assert.Equal(t, "0", balance(t, env))
	_, err = env.s.ResolveChargeback(env.m.ID, id, true)
	assert.Error(t, err)
	var types []openpay.EventType
	for _, ev := range env.s.Events(env.m.ID) {
		types = append(types, ev.Type)
	}
	assert.Equal(t, []openpay.EventType{"charge.succeeded", "charge.refunded", "chargeback.created", "chargeback.rejected",
		"chargeback.created", "chargeback.accepted"}, types)
}

func TestGroupMerchantCharges(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	gp := "/v1/groups/" + env.g.ID + "/merchants/" + env.m.ID + "/charges"
	o := requireOK(t, env.do(http.MethodPost, gp, env.g.PrivateKey, cardCharge(card, "capture", false)), 200)
	id := o["id"].(string)
	o = requireOK(t, env.do(http.MethodPost, gp+"/"+id+"/capture", env.g.PrivateKey, nil), 200)
	assert.Equal(t, "completed", o["status"])
	o = requireOK(t, env.do(http.MethodPost, gp+"/"+id+"/refund", env.g.PrivateKey, nil), 200)
	assert.Equal(t, "refunded", o["status"])
	assert.Len(t, env.get("/charges").arr(t), 1, "the charge is the merchant's")
	requireError(t, env.do(http.MethodPost, gp, "sk_wrong", cardCharge(card)), 1002)
}

func TestSecurityCodeIsUsedOnceThenDropped(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id := storedCard(t, env, "", "4111111111111111")
	m := env.s.merchantByID(env.m.ID)
	// The server keeps that a code waits for the next charge, never the
	// code itself (it kept the digits until that charge before).
	func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		rec := reflect.ValueOf(*m.storedCards().get(id))
		for i := range rec.NumField() {
			if f := rec.Field(i); f.Kind() == reflect.String {
				assert.NotEqual(t, "123", f.String(), "no field holds the code (%s)", rec.Type().Field(i).Name)
			}
		}
	}()
	pending := func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.storedCards().get(id).cvvPending
	}
	assert.True(t, pending(), "kept for the next charge")
	requireOK(t, env.post("/charges", cardCharge(id)), 200)
	assert.False(t, pending(), "dropped after it")
	requireOK(t, env.do(http.MethodPut, env.mp("/cards/"+id), env.m.PrivateKey, map[string]any{"cvv2": "456"}), 200)
	assert.True(t, pending())
	requireError(t, env.post("/charges", cardCharge(id, "amount", 1, "order_id", "x", "card", nil, "currency", "EUR")), 1003)
	assert.True(t, pending(), "a refused request does not use it")
	requireError(t, env.post("/charges", cardCharge(storedCard(t, env, "", "4000000000030017"))), 3001)
	requireOK(t, env.post("/charges", cardCharge(id)), 200)
	assert.False(t, pending())
	tok := requireOK(t, env.post("/tokens", validCard("4242424242424242")), 200)["id"].(string)
	requireOK(t, env.post("/charges", cardCharge(tok)), 200)
	m.mu.Lock()
	assert.False(t, m.tokens[tok].card.cvvPending)
	m.mu.Unlock()
}

// An address nested in a member (an inline card's, a charge customer's) is
// checked where it is: a complete one is taken, and a missing member is
// named with its full path. (The checker used to look for the nested
// address at the wrong level and answered "card.address.line1 is
// required" with line1 present.)
func TestNestedAddressesAreCheckedWhereTheyAre(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	address := map[string]any{"line1": "Av. 5 de febrero 1080", "line2": "Roble 207", "postal_code": "76000",
		"state": "Querétaro", "city": "Querétaro", "country_code": "MX"}
	noLine1 := with(address, "line1", nil)
	badCountry := with(address, "country_code", "MEX")
	cardWith := func(number string, a map[string]any) map[string]any { return with(validCard(number), "address", a) }
	customerWith := func(a map[string]any) map[string]any {
		return map[string]any{"name": "Juan", "email": "juan@example.com", "address": a}
	}
	cu := newCustomer(t, env, false)
	plan := newPlan(t, env, "trial_days", 0)
	cases := []struct {
		name     string
		path     string
		body     func(a map[string]any, n int) map[string]any
		echoed   func(o map[string]any) any
		prefixed string
	}{
		{"charge with an inline card", "/charges", func(a map[string]any, _ int) map[string]any {
			return map[string]any{"method": "card", "amount": 10, "description": "d", "card": cardWith("4111111111111111", a)}
		}, func(o map[string]any) any { return o["card"].(map[string]any)["address"] }, "card.address"},
		{"customer charge with an inline card", "/customers/" + cu + "/charges", func(a map[string]any, _ int) map[string]any {
			return map[string]any{"method": "card", "amount": 10, "description": "d", "card": cardWith("5555555555554444", a)}
		}, func(o map[string]any) any { return o["card"].(map[string]any)["address"] }, "card.address"},
		{"charge customer's address", "/charges", func(a map[string]any, _ int) map[string]any {
			return map[string]any{"method": "card", "confirm": false, "redirect_url": "https://shop.example/back",
				"amount": 10, "description": "d", "customer": customerWith(a)}
		}, func(o map[string]any) any { return o["customer"].(map[string]any)["address"] }, "customer.address"},
		{"subscription with an inline card", "/customers/" + cu + "/subscriptions", func(a map[string]any, n int) map[string]any {
			// A new number each time: a customer cannot store one twice.
			numbers := []string{"4242424242424242", "5105105105105100", "345678000000007"}
			return map[string]any{"plan_id": plan, "card": cardWith(numbers[n], a)}
		}, func(o map[string]any) any { return o["card"].(map[string]any)["address"] }, "card.address"},
		{"card", "/cards", func(a map[string]any, _ int) map[string]any { return cardWith("4111111111111111", a) },
			func(o map[string]any) any { return o["address"] }, "address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := requireOK(t, env.post(c.path, c.body(address, 0)), http.StatusOK)
			// Echoed as sent, with the line the gateway always sends (null).
			echoed := maps.Clone(address)
			echoed["line3"] = nil
			assert.Equal(t, echoed, c.echoed(o))
			desc := requireError(t, env.post(c.path, c.body(noLine1, 1)), 1001)
			assert.Contains(t, desc, "'"+c.prefixed+".line1'")
			desc = requireError(t, env.post(c.path, c.body(badCountry, 2)), 1001) // a format
			assert.Contains(t, desc, "'"+c.prefixed+".country_code'")
		})
	}
}
