package refserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Checkouts over raw HTTP: the answer's shape, the rules of creation,
// update and lists, the pay control, and the hosted page as a browser
// drives it (GET the link, POST the form, follow the 303).

func newCheckout(t *testing.T, env *testEnv, path string, fields ...any) map[string]any {
	t.Helper()
	body := map[string]any{"amount": 349.9, "description": "Order 1001"}
	for i := 0; i+1 < len(fields); i += 2 {
		body[fields[i].(string)] = fields[i+1]
	}
	return requireOK(t, env.post(path, body), http.StatusOK)
}

func TestCheckoutShape(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{BaseURL: "http://refserver.test"})
	o := newCheckout(t, env, "/checkouts")
	id := o["id"].(string)
	assert.Equal(t, "available", o["status"])
	assert.Equal(t, 349.9, o["amount"])
	assert.Equal(t, "MXN", o["currency"])
	assert.Equal(t, "http://refserver.test/checkout/"+env.m.ID+"/"+id, o["checkout_link"])
	assert.Equal(t, testStart.Format("2006-01-02T15:04:05.000-0700"), o["creation_date"], "the gateway's form, offset without a colon")
	assertNull(t, o, "order_id", "iva", "expiration_date", "customer", "transaction")

	// The echo the vendor's Python test expects: yyyy-MM-dd HH:mm comes back
	// as ISO with milliseconds, in the gateway's zone.
	o = newCheckout(t, env, "/checkouts", "expiration_date", "2026-03-12 10:30", "order_id", 8576, "iva", "16",
		"send_email", "false", "currency", "mxn", "amount", "100.00",
		"customer", map[string]any{"name": "Ana", "last_name": "López", "email": "ana@example.com", "phone_number": "5512345678"})
	assert.Equal(t, "2026-03-12T10:30:00.000-0600", o["expiration_date"])
	assert.Equal(t, "8576", o["order_id"], "numeric-strings")
	assert.Equal(t, "16", o["iva"])
	assert.Equal(t, 100.0, o["amount"])
	cu := o["customer"].(map[string]any)
	assert.Equal(t, "Ana", cu["name"])
	assert.Equal(t, "ana@example.com", cu["email"])
	assert.NotContains(t, cu, "id", "the payer of a merchant's checkout is no stored customer")

	// Get by id, and by order_id.
	assert.Equal(t, o["id"], requireOK(t, env.get("/checkouts/"+o["id"].(string)), http.StatusOK)["id"])
	assert.Equal(t, o["id"], requireOK(t, env.get("/checkouts/8576"), http.StatusOK)["id"])
	requireError(t, env.get("/checkouts/cnothere"), 1005)
	// Another merchant sees none of them.
	requireError(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/checkouts/"+id, env.other.PrivateKey, nil), 1005)
}

func TestCheckoutCreationRules(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Ana", false)
	newCheckout(t, env, "/checkouts", "order_id", "o-1")
	requireOK(t, env.post("/charges", cardCharge(storedCard(t, env, "", "4111111111111111"), "order_id", "o-2")), http.StatusOK)
	cases := []struct {
		name, path string
		body       string
		code       int
		field      string
	}{
		{"no amount", "/checkouts", `{"description":"x"}`, 1001, "amount"},
		{"no description", "/checkouts", `{"amount":10}`, 1001, "description"},
		{"zero amount", "/checkouts", `{"amount":0,"description":"x"}`, 1003, "amount"},
		{"three decimals", "/checkouts", `{"amount":1.005,"description":"x"}`, 1003, "amount"},
		{"currency", "/checkouts", `{"amount":10,"description":"x","currency":"USD"}`, 1003, "currency"},
		{"expired already", "/checkouts", `{"amount":10,"description":"x","expiration_date":"2026-03-10 11:00"}`, 1003, "expiration_date"},
		{"not a date", "/checkouts", `{"amount":10,"description":"x","expiration_date":"mañana"}`, 1001, "expiration_date"},
		{"bad redirect", "/checkouts", `{"amount":10,"description":"x","redirect_url":"not a url"}`, 1003, "redirect_url"},
		{"customer without email", "/checkouts", `{"amount":10,"description":"x","customer":{"name":"Ana"}}`, 1001, "customer.email"},
		{"customer at customer scope", "/customers/" + cu + "/checkouts", `{"amount":10,"description":"x","customer":{"name":"Ana","email":"a@example.com"}}`, 1003, "customer"},
		{"order_id of a checkout", "/checkouts", `{"amount":10,"description":"x","order_id":"o-1"}`, 1006, ""},
		{"order_id of a charge", "/checkouts", `{"amount":10,"description":"x","order_id":"o-2"}`, 1006, ""},
		{"unknown customer", "/customers/anothere/checkouts", `{"amount":10,"description":"x"}`, 1005, "anothere"},
	}
	for _, tc := range cases {
		desc := requireError(t, env.post(tc.path, tc.body), tc.code)
		assert.Contains(t, desc, tc.field, tc.name)
	}
	// A charge cannot take a checkout's order_id either.
	requireError(t, env.post("/charges", cardCharge(storedCard(t, env, "", "5555555555554444"), "order_id", "o-1")), 1006)
}

func TestCheckoutListFilters(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Ana", false)
	var ids []string
	for i := range 4 {
		path := "/checkouts"
		if i%2 == 1 {
			path = "/customers/" + cu + "/checkouts"
		}
		ids = append(ids, newCheckout(t, env, path)["id"].(string))
		env.clock.Advance(24 * time.Hour)
	}
	list := func(path string) []string {
		var out []string
		for _, o := range requireList(t, env.get(path)) {
			out = append(out, o["id"].(string))
		}
		return out
	}
	assert.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, list("/checkouts"), "the merchant's list has its customers' checkouts")
	assert.Equal(t, []string{ids[3], ids[1]}, list("/customers/"+cu+"/checkouts"))
	assert.Equal(t, []string{ids[2], ids[1]}, list("/checkouts?startDate=20260311&endDate=20260312"))
	assert.Equal(t, []string{ids[3], ids[2]}, list("/checkouts?startDate=20260312"))
	assert.Equal(t, []string{ids[1]}, list("/checkouts?endDate=20260312&creation[gte]=2026-03-11&limit=1&offset=1"), "all filters narrow together")
	assert.Equal(t, []string{ids[1]}, list("/customers/"+cu+"/checkouts?startDate=20260311&endDate=20260311"))
	for _, q := range []string{"startDate=2026-03-11", "endDate=20261340", "limit=0", "offset=-1"} {
		requireError(t, env.get("/checkouts?"+q), 1003)
	}
}

// requireList checks a 200 list answer and returns its objects.
func requireList(t *testing.T, r resp) []map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	return r.arr(t)
}

func TestCheckoutUpdate(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id := newCheckout(t, env, "/checkouts", "expiration_date", "2026-03-10 13:00")["id"].(string)
	put := func(query string, body any) resp {
		return env.do(http.MethodPut, env.mp("/checkouts/"+id+query), env.m.PrivateKey, body)
	}
	o := requireOK(t, put("?status=cancelled", nil), http.StatusOK)
	assert.Equal(t, "cancelled", o["status"])
	o = requireOK(t, put("?status=AVAILABLE", map[string]any{"expiration_date": "2026-03-11 09:15"}), http.StatusOK)
	assert.Equal(t, "available", o["status"])
	assert.Equal(t, "2026-03-11T09:15:00.000-0600", o["expiration_date"])

	env.clock.Advance(22 * time.Hour) // 2026-03-11 10:00: past the new expiration
	assert.Equal(t, "expired", requireOK(t, env.get("/checkouts/"+id), http.StatusOK)["status"])
	requireError(t, put("?status=available", map[string]any{}), 1003)
	requireError(t, put("", map[string]any{"expiration_date": "2026-03-11 09:59"}), 1003)
	o = requireOK(t, put("", map[string]any{"expiration_date": "2026-03-12 09:00"}), http.StatusOK)
	assert.Equal(t, "available", o["status"], "a new expiration opens an expired link again")

	requireError(t, put("?status=completed", nil), 1003)
	requireError(t, put("?status=expired", nil), 1003)
	requireError(t, put("?status=available", `{"expiration_date":5}`), 1001)
	requireError(t, env.do(http.MethodPut, env.mp("/checkouts/cnothere?status=available"), env.m.PrivateKey, nil), 1005)

	// Paid: nothing changes any more.
	pay := env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/checkouts/"+id+"/pay", env.m.PrivateKey, map[string]any{"card_number": "4111111111111111"})
	assert.Equal(t, "completed", requireOK(t, pay, http.StatusOK)["status"])
	requireError(t, put("?status=cancelled", nil), 1003)
}

// TestCheckoutPayControl: the simulation control charges the card as the
// page does; the checkout's state follows its charge.
func TestCheckoutPayControl(t *testing.T) {
	t.Parallel()
	env, rc := hookedEnv(t)
	cu := createCustomerHTTP(t, env, "Ana", true)
	o := newCheckout(t, env, "/customers/"+cu+"/checkouts", "order_id", "pay-1", "expiration_date", "2026-03-10 18:00")
	id := o["id"].(string)
	assert.Equal(t, cu, o["customer"].(map[string]any)["id"], "a customer's checkout carries the stored customer")
	pay := func(id, number string) resp {
		return env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/checkouts/"+id+"/pay", env.m.PrivateKey, map[string]any{"card_number": number})
	}

	requireError(t, env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/checkouts/"+id+"/pay", env.m.PrivateKey, map[string]any{}), 1001)
	requireError(t, pay(id, "4111111111111112"), 2004)
	assert.Equal(t, "available", requireOK(t, env.get("/checkouts/"+id), http.StatusOK)["status"])
	assertNull(t, requireOK(t, env.get("/checkouts/"+id), http.StatusOK), "transaction")

	requireError(t, pay(id, "4000000000030017"), 3001)
	o = requireOK(t, env.get("/checkouts/"+id), http.StatusOK)
	assert.Equal(t, "available", o["status"], "a declined card leaves the link open")
	failed := o["transaction"].(map[string]any)
	assert.Equal(t, "failed", failed["status"])
	assertOutcome(t, env, rc, failed["id"].(string), openpay.TransactionStatusFailed, openpay.EventTypeChargeFailed, "The card was declined")

	o = requireOK(t, pay(id, "4111111111111111"), http.StatusOK)
	assert.Equal(t, "completed", o["status"])
	charge := o["transaction"].(map[string]any)
	assert.Equal(t, "completed", charge["status"])
	assert.Equal(t, "pay-1", charge["order_id"], "the charge carries the checkout's order_id")
	assert.Equal(t, cu, charge["customer_id"])
	assert.Equal(t, 349.9, charge["amount"])
	assert.Equal(t, "Order 1001", charge["description"])
	got := rc.waitFor(3)
	assert.Equal(t, openpay.EventTypeChargeSucceeded, got[2].event.Type)
	assert.Equal(t, charge["id"], got[2].event.Transaction.ID)
	assert.Equal(t, "pay-1", got[2].event.Transaction.OrderID)
	// The customer's account got the money, as any of its charges.
	_, balances, err := env.s.Balances(env.m.ID)
	require.NoError(t, err)
	assert.Equal(t, "349.90", balances[cu].String())
	// The list of charges by order_id finds the one that paid.
	charges := requireList(t, env.get("/charges?order_id=pay-1"))
	require.Len(t, charges, 1)
	assert.Equal(t, charge["id"], charges[0]["id"])

	requireError(t, pay(id, "4111111111111111"), 1003)
	requireError(t, pay("cnothere", "4111111111111111"), 1005)
	// Refunded, the link stays paid.
	requireOK(t, env.post("/customers/"+cu+"/charges/"+charge["id"].(string)+"/refund", map[string]any{}), http.StatusOK)
	assert.Equal(t, "completed", requireOK(t, env.get("/customers/"+cu+"/checkouts/"+id), http.StatusOK)["status"])

	// An expired link takes no payment.
	late := newCheckout(t, env, "/checkouts", "expiration_date", "2026-03-10 12:30")["id"].(string)
	env.clock.Advance(time.Hour)
	assert.Contains(t, requireError(t, pay(late, "4111111111111111"), 1003), "expired")
	cancelled := newCheckout(t, env, "/checkouts")["id"].(string)
	requireOK(t, env.do(http.MethodPut, env.mp("/checkouts/"+cancelled+"?status=cancelled"), env.m.PrivateKey, nil), http.StatusOK)
	assert.Contains(t, requireError(t, pay(cancelled, "4111111111111111"), 1003), "cancelled")
}

// TestCheckoutThreeDSecure: a card that asks for 3-D Secure leaves the
// charge waiting on its challenge page; the link completes when the
// charge does, whoever completes it.
func TestCheckoutThreeDSecure(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id := newCheckout(t, env, "/checkouts", "redirect_url", "https://shop.example/paid")["id"].(string)
	pay := func(number string) resp {
		return env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/checkouts/"+id+"/pay", env.m.PrivateKey, map[string]any{"card_number": number})
	}
	o := requireOK(t, pay("5454545454545454"), http.StatusOK)
	assert.Equal(t, "available", o["status"])
	charge := o["transaction"].(map[string]any)
	assert.Equal(t, "charge_pending", charge["status"])
	challenge := charge["payment_method"].(map[string]any)["url"].(string)
	assert.Equal(t, env.srv.URL+"/v1/"+env.m.ID+"/charges/"+charge["id"].(string)+"/redirect/", challenge)
	assert.Contains(t, requireError(t, pay("4111111111111111"), 1003), "in progress")
	requireError(t, env.do(http.MethodPut, env.mp("/checkouts/"+id+"?status=cancelled"), env.m.PrivateKey, nil), 1003)

	page := browse(t, env, challenge, nil)
	res := browse(t, env, challenge, url.Values{"token": {page.token(t)}, "action": {"approve"}})
	require.Equal(t, http.StatusSeeOther, res.status)
	assert.Equal(t, "https://shop.example/paid?id="+charge["id"].(string), res.location, "back to the checkout's redirect_url")
	assert.Equal(t, "completed", requireOK(t, env.get("/checkouts/"+id), http.StatusOK)["status"])
}

// TestCheckoutPage: the hosted page at checkout_link, as a browser drives it.
func TestCheckoutPage(t *testing.T) {
	t.Parallel()
	env, rc := hookedEnv(t)
	o := newCheckout(t, env, "/checkouts", "redirect_url", "https://shop.example/paid?order=1001", "expiration_date", "2026-03-11 12:00",
		"customer", map[string]any{"name": "Ana", "email": "ana@example.com"})
	link := o["checkout_link"].(string)
	page := browse(t, env, link, nil)
	require.Equal(t, http.StatusOK, page.status)
	for _, el := range []string{`id="amount">349.90 MXN`, `data-status="available" id="status"`, `id="expires">2026-03-11 12:00`,
		`id="card_number"`, `id="cvv2"`, `id="pay"`} {
		assert.Contains(t, page.body, el)
	}
	token := page.token(t)

	res := browse(t, env, link, cardForm("forged", "4111111111111111"))
	assert.Equal(t, http.StatusForbidden, res.status)
	res = browse(t, env, link, cardForm(token, "4111111111111112"))
	assert.Equal(t, http.StatusUnprocessableEntity, res.status)
	assert.Contains(t, res.body, "verification digit")
	assert.Contains(t, res.body, `value="Juan Perez"`, "the holder is typed again for the payer")
	assert.NotContains(t, res.body, "4111111111111112", "never the card number")

	res = browse(t, env, link, cardForm(token, "4000000000030017"))
	assert.Equal(t, http.StatusPaymentRequired, res.status)
	assert.Contains(t, res.body, "The card was declined")
	assert.Contains(t, res.body, `id="pay"`, "the payer may try another card")

	res = browse(t, env, link, cardForm(token, "4242 4242 4242 4242"))
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	co := requireOK(t, env.get("/checkouts/"+o["id"].(string)), http.StatusOK)
	assert.Equal(t, "completed", co["status"])
	chargeID := co["transaction"].(map[string]any)["id"].(string)
	assert.Equal(t, "https://shop.example/paid?order=1001&id="+chargeID, res.location)
	got := rc.waitFor(3)
	assert.Equal(t, openpay.EventTypeChargeFailed, got[1].event.Type)
	assert.Equal(t, openpay.EventTypeChargeSucceeded, got[2].event.Type)
	assert.Equal(t, chargeID, got[2].event.Transaction.ID)

	// Paid: the page shows it and takes nothing.
	page = browse(t, env, link, nil)
	assert.Equal(t, http.StatusOK, page.status)
	assert.Contains(t, page.body, `data-status="completed" id="status"`)
	assert.Contains(t, page.body, `id="charge_id">`+chargeID)
	assert.NotContains(t, page.body, `id="pay"`)
	res = browse(t, env, link, cardForm(token, "4111111111111111"))
	assert.Equal(t, http.StatusConflict, res.status)

	// Expired with the clock: the page says so.
	late := newCheckout(t, env, "/checkouts", "expiration_date", "2026-03-10 13:00")
	env.clock.Advance(2 * time.Hour)
	page = browse(t, env, late["checkout_link"].(string), nil)
	assert.Equal(t, http.StatusOK, page.status)
	assert.Contains(t, page.body, `data-status="expired" id="status"`)
	assert.NotContains(t, page.body, `id="card_form"`)

	// No such link; another merchant's path.
	res = browse(t, env, "/checkout/"+env.m.ID+"/cnothere", nil)
	assert.Equal(t, http.StatusNotFound, res.status)
	res = browse(t, env, strings.Replace(link, env.m.ID, env.other.ID, 1), nil)
	assert.Equal(t, http.StatusNotFound, res.status)
}

// TestCheckoutPageWithoutRedirect: a link with no redirect_url shows the
// paid state to the payer instead of sending them anywhere.
func TestCheckoutPageWithoutRedirect(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	link := newCheckout(t, env, "/checkouts")["checkout_link"].(string)
	page := browse(t, env, link, nil)
	res := browse(t, env, link, cardForm(page.token(t), "4111111111111111"))
	assert.Equal(t, http.StatusOK, res.status)
	assert.Contains(t, res.body, `data-status="completed" id="status"`)
	assert.NotContains(t, res.body, `id="return"`)
}

// TestCheckoutPageWhilePaymentWaits: back on the link while the 3-D
// Secure challenge waits, the payer reads why no card is taken.
func TestCheckoutPageWhilePaymentWaits(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	link := newCheckout(t, env, "/checkouts")["checkout_link"].(string)
	page := browse(t, env, link, nil)
	res := browse(t, env, link, cardForm(page.token(t), "5454545454545454"))
	require.Equal(t, http.StatusSeeOther, res.status)
	assert.Contains(t, res.location, "/redirect/")
	res = browse(t, env, link, cardForm(page.token(t), "4111111111111111"))
	assert.Equal(t, http.StatusConflict, res.status)
	assert.Contains(t, res.body, "A payment of the checkout is in progress")
	assert.Contains(t, res.body, `data-status="available" id="status"`)
}

// TestCheckoutPayerEmail: the payer named on a merchant's checkout is the
// charge's payer, so the sandbox's fraud e-mail declines it as on any card
// charge.
func TestCheckoutPayerEmail(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id := newCheckout(t, env, "/checkouts", "customer", map[string]any{"name": "Eva", "email": cardnum.FraudEmail})["id"].(string)
	pay := env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/checkouts/"+id+"/pay", env.m.PrivateKey, map[string]any{"card_number": "4111111111111111"})
	requireError(t, pay, 3005)
	o := requireOK(t, env.get("/checkouts/"+id), http.StatusOK)
	assert.Equal(t, "available", o["status"])
	assert.Equal(t, "failed", o["transaction"].(map[string]any)["status"])
}
