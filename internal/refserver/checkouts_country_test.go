package refserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Checkouts per country over raw HTTP: the page offers the methods of the
// merchant's country, a store payment goes through the store charge's
// receipt and pay control, PSE through the bank's page; currency, iva and
// the link's host follow the country.

// payControl is the checkout pay control with a JSON body.
func payControl(env *testEnv, id string, body any) resp {
	env.t.Helper()
	return env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/checkouts/"+id+"/pay", env.m.PrivateKey, body)
}

// methodForm is the checkout page's form for a method besides a card.
func methodForm(token, method string) url.Values {
	return url.Values{"token": {token}, "method": {method}}
}

func TestCheckoutPageMethodsPerCountry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country  openpay.Country
		currency string
		network  string // a chain of the country's store data
		pse      bool
	}{
		{openpay.CountryMexico, "MXN", "7-ELEVEN", false},
		{openpay.CountryColombia, "COP", "BALOTO", true},
		{openpay.CountryPeru, "PEN", "BOTICAS PERU", false},
	} {
		t.Run(string(tc.country), func(t *testing.T) {
			t.Parallel()
			env := countryEnv(t, tc.country)
			o := newCheckout(t, env, "/checkouts")
			assert.Equal(t, tc.currency, o["currency"], "the account's currency by default")
			link := o["checkout_link"].(string)
			page := browse(t, env, link, nil)
			require.Equal(t, http.StatusOK, page.status)
			assert.Contains(t, page.body, `data-amount="349.90" data-currency="`+tc.currency+`" id="amount"`)
			assert.Contains(t, page.body, `id="pay"`, "a card, everywhere")
			assert.Contains(t, page.body, `id="pay_store"`, "cash at a store, everywhere")
			assert.Contains(t, page.body, tc.network, "the stores of the country's networks")
			assert.Equal(t, tc.pse, strings.Contains(page.body, `id="pay_pse"`), "PSE in Colombia only")
			if !tc.pse {
				res := browse(t, env, link, methodForm(page.token(t), "bank_account"))
				assert.Equal(t, http.StatusBadRequest, res.status, "no PSE outside Colombia")
				assertNull(t, requireOK(t, env.get("/checkouts/"+o["id"].(string)), http.StatusOK), "transaction")
				assert.Contains(t, requireError(t, payControl(env, o["id"].(string), map[string]any{"method": "bank_account"}), 1003), "card or store")
			}
			res := browse(t, env, link, methodForm(page.token(t), "alipay"))
			assert.Equal(t, http.StatusBadRequest, res.status, "no Alipay on a link")
			requireError(t, payControl(env, o["id"].(string), map[string]any{"method": "alipay"}), 1003)
		})
	}
}

// TestCheckoutStorePayment: the payer picks the store on the page, gets
// the receipt of a store charge in_progress, and the link completes when
// the store charge is paid.
func TestCheckoutStorePayment(t *testing.T) {
	t.Parallel()
	for _, country := range []openpay.Country{openpay.CountryMexico, openpay.CountryColombia, openpay.CountryPeru} {
		t.Run(string(country), func(t *testing.T) {
			t.Parallel()
			env := countryEnv(t, country)
			o := newCheckout(t, env, "/checkouts", "order_id", "st-1", "redirect_url", "https://shop.example/paid",
				"customer", map[string]any{"name": "Ana", "email": "ana@example.com"})
			id, link := o["id"].(string), o["checkout_link"].(string)
			token := browse(t, env, link, nil).token(t)
			res := browse(t, env, link, methodForm(token, "store"))
			require.Equal(t, http.StatusSeeOther, res.status, res.body)

			co := requireOK(t, env.get("/checkouts/"+id), http.StatusOK)
			assert.Equal(t, "available", co["status"])
			charge := co["transaction"].(map[string]any)
			chargeID := charge["id"].(string)
			assert.Equal(t, "/paynet-pdf/"+env.m.ID+"/transaction/"+chargeID, res.location, "to the store charge's receipt")
			assert.Equal(t, "store", charge["method"])
			assert.Equal(t, "in_progress", charge["status"])
			assert.Equal(t, "st-1", charge["order_id"])
			assert.Equal(t, o["currency"], charge["currency"])
			assert.Equal(t, 349.9, charge["amount"])
			pm := charge["payment_method"].(map[string]any)
			assert.Equal(t, "store", pm["type"])
			ref := pm["reference"].(string)
			assert.Equal(t, country == openpay.CountryMexico, pm["paybin_reference"] != nil, "Paybin is Mexican")

			receipt := browse(t, env, res.location, nil)
			require.Equal(t, http.StatusOK, receipt.status)
			assert.Contains(t, receipt.body, `id="reference">`+ref)
			assert.Contains(t, receipt.body, `id="barcode"`)

			// Back on the link, the payer finds the receipt again and no form.
			page := browse(t, env, link, nil)
			assert.Contains(t, page.body, `id="continue" href="`+res.location+`"`)
			assert.NotContains(t, page.body, `id="card_form"`)
			assert.Contains(t, requireError(t, payControl(env, id, map[string]any{"card_number": "4111111111111111"}), 1003), "in progress")
			res = browse(t, env, link, cardForm(token, "4111111111111111"))
			assert.Equal(t, http.StatusConflict, res.status)
			assert.Contains(t, res.body, "A payment of the checkout is in progress")

			// The payer pays at the store (the charge's pay control).
			paid := requireOK(t, env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/charges/"+chargeID+"/pay", env.m.PrivateKey, nil), http.StatusOK)
			assert.Equal(t, "completed", paid["status"])
			co = requireOK(t, env.get("/checkouts/"+id), http.StatusOK)
			assert.Equal(t, "completed", co["status"])
			assert.Equal(t, "completed", co["transaction"].(map[string]any)["status"])
			page = browse(t, env, link, nil)
			assert.Contains(t, page.body, `id="charge_id">`+chargeID)
		})
	}
}

// TestCheckoutStoreControl: the pay control's store method, and the store
// charge's window, which closes with the link.
func TestCheckoutStoreControl(t *testing.T) {
	t.Parallel()
	env := countryEnv(t, openpay.CountryPeru)
	// testStart is 2026-03-10 12:00 in Mexico City, 13:00 in Lima; a store
	// charge is due 48 hours on. Peruvian times are Lima's (-05:00).
	soon := newCheckout(t, env, "/checkouts", "expiration_date", "2026-03-11 12:00")["id"].(string)
	o := requireOK(t, payControl(env, soon, map[string]any{"method": "STORE"}), http.StatusOK)
	charge := o["transaction"].(map[string]any)
	assert.Equal(t, "in_progress", charge["status"])
	assert.Equal(t, "PEN", charge["currency"])
	assert.Equal(t, "2026-03-11T12:00:00-05:00", charge["due_date"], "due when the link expires")
	late := newCheckout(t, env, "/checkouts", "expiration_date", "2026-04-01 12:00")["id"].(string)
	charge = requireOK(t, payControl(env, late, map[string]any{"method": "store"}), http.StatusOK)["transaction"].(map[string]any)
	assert.Equal(t, "2026-03-12T13:00:00-05:00", charge["due_date"], "a store charge's own window, sooner than the link's")
	requireError(t, payControl(env, late, map[string]any{"method": "store"}), 1003)
	requireError(t, payControl(env, late, map[string]any{"method": "card"}), 1001)
}

// TestCheckoutPSE: in Colombia the payer picks PSE on the page, approves
// on the bank's page and is sent back; a rejection leaves the link open.
func TestCheckoutPSE(t *testing.T) {
	t.Parallel()
	env := countryEnv(t, openpay.CountryColombia)
	o := newCheckout(t, env, "/checkouts", "amount", 10000, "iva", "1900", "order_id", "pse-1", "redirect_url", "https://shop.example.co/paid")
	id, link := o["id"].(string), o["checkout_link"].(string)
	assert.Equal(t, "COP", o["currency"])
	assert.Equal(t, "1900", o["iva"])

	page := browse(t, env, link, nil)
	res := browse(t, env, link, methodForm(page.token(t), "bank_account"))
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	co := requireOK(t, env.get("/checkouts/"+id), http.StatusOK)
	charge := co["transaction"].(map[string]any)
	chargeID := charge["id"].(string)
	assert.Equal(t, "bank_account", charge["method"])
	assert.Equal(t, "charge_pending", charge["status"])
	assert.Equal(t, "pse-1", charge["order_id"])
	bank := charge["payment_method"].(map[string]any)["url"].(string)
	assert.Equal(t, bank, res.location, "to the PSE bank's page")
	assert.Equal(t, env.srv.URL+"/v1/"+env.m.ID+"/charges/"+chargeID+"/redirect/", bank)
	assert.Contains(t, browse(t, env, link, nil).body, `id="continue" href="`+bank+`"`)

	// Rejected: the link stays open for another try.
	bankPage := browse(t, env, bank, nil)
	require.Equal(t, http.StatusOK, bankPage.status)
	res = browse(t, env, bank, url.Values{"token": {bankPage.token(t)}, "action": {"fail"}})
	require.Equal(t, http.StatusSeeOther, res.status)
	co = requireOK(t, env.get("/checkouts/"+id), http.StatusOK)
	assert.Equal(t, "available", co["status"])
	assert.Equal(t, "failed", co["transaction"].(map[string]any)["status"])

	// Approved: the charge and the link complete; the payer is back at the shop.
	page = browse(t, env, link, nil)
	res = browse(t, env, link, methodForm(page.token(t), "bank_account"))
	require.Equal(t, http.StatusSeeOther, res.status)
	bank = res.location
	bankPage = browse(t, env, bank, nil)
	res = browse(t, env, bank, url.Values{"token": {bankPage.token(t)}, "action": {"approve"}})
	require.Equal(t, http.StatusSeeOther, res.status)
	co = requireOK(t, env.get("/checkouts/"+id), http.StatusOK)
	assert.Equal(t, "completed", co["status"])
	chargeID = co["transaction"].(map[string]any)["id"].(string)
	assert.Equal(t, "https://shop.example.co/paid?id="+chargeID, res.location)
	assert.Equal(t, "completed", requireOK(t, env.get("/charges/"+chargeID), http.StatusOK)["status"])
}

// TestCheckoutPSEWithoutRedirect: a link without redirect_url brings the
// PSE payer back to itself, which shows the payment; the pay control
// starts PSE too.
func TestCheckoutPSEWithoutRedirect(t *testing.T) {
	t.Parallel()
	env := countryEnv(t, openpay.CountryColombia)
	o := newCheckout(t, env, "/checkouts")
	id, link := o["id"].(string), o["checkout_link"].(string)
	charge := requireOK(t, payControl(env, id, map[string]any{"method": "bank_account"}), http.StatusOK)["transaction"].(map[string]any)
	chargeID := charge["id"].(string)
	bank := charge["payment_method"].(map[string]any)["url"].(string)
	bankPage := browse(t, env, bank, nil)
	res := browse(t, env, bank, url.Values{"token": {bankPage.token(t)}, "action": {"approve"}})
	require.Equal(t, http.StatusSeeOther, res.status)
	assert.Equal(t, link+"?id="+chargeID, res.location, "back to the link")
	page := browse(t, env, res.location, nil)
	assert.Contains(t, page.body, `data-status="completed" id="status"`)
	assert.Contains(t, page.body, `id="charge_id">`+chargeID)
}

// TestCheckoutIVA: a checkout's iva is checked as a charge's, echoed, and
// carried by the charges that pay it.
func TestCheckoutIVA(t *testing.T) {
	t.Parallel()
	env := countryEnv(t, openpay.CountryColombia)
	for _, bad := range []any{"abc", "1.234", "-5", ""} {
		assert.Contains(t, requireError(t, env.post("/checkouts", map[string]any{"amount": 10000, "description": "x", "iva": bad}), 1003), "iva", "%v", bad)
	}
	o := newCheckout(t, env, "/checkouts", "amount", 10000, "iva", 1900)
	assert.Equal(t, "1900", o["iva"], "a number as written")
	o = newCheckout(t, env, "/checkouts", "amount", 10000, "iva", "1596.64")
	assert.Equal(t, "1596.64", o["iva"])

	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	r := findCheckout(m, o["id"].(string))
	for _, kind := range []chargeKind{kindCard, kindStore, kindPSE} {
		req := env.s.checkoutCharge(m, r, kind)
		assert.Equal(t, "1596.64", req.iva, "kind %d", kind)
		assert.Equal(t, openpay.CurrencyCOP, req.currency)
	}
	m.mu.Unlock()
}

// TestCheckoutCurrencyPerCountry: a link is in the account's currency
// only.
func TestCheckoutCurrencyPerCountry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country   openpay.Country
		own       string
		refused   []string
		hostAfter string
	}{
		{openpay.CountryMexico, "mxn", []string{"COP", "PEN", "USD"}, "https://sandbox-api.openpay.mx/checkout/"},
		{openpay.CountryColombia, "COP", []string{"MXN", "PEN", "USD"}, "https://sandbox-api.openpay.co/checkout/"},
		{openpay.CountryPeru, "PEN", []string{"MXN", "COP", "USD"}, "https://sandbox-api.openpay.pe/checkout/"},
	} {
		t.Run(string(tc.country), func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t, Options{Country: tc.country, BaseURL: "https://sandbox-api.openpay.mx"})
			o := newCheckout(t, env, "/checkouts", "currency", tc.own)
			assert.Equal(t, strings.ToUpper(tc.own), o["currency"])
			link := o["checkout_link"].(string)
			assert.Equal(t, tc.hostAfter+env.m.ID+"/"+o["id"].(string), link, "the country's host, as every URL the server answers")
			for _, cur := range tc.refused {
				assert.Contains(t, requireError(t, env.post("/checkouts", map[string]any{"amount": 10, "description": "x", "currency": cur}), 1003), "currency", cur)
			}
		})
	}
}

// TestCheckoutRedirectStorePayment: with redirect_store_payment the store
// payer goes back to the shop with the charge id instead of to the
// receipt; without a redirect_url the flag changes nothing.
func TestCheckoutRedirectStorePayment(t *testing.T) {
	t.Parallel()
	env := countryEnv(t, openpay.CountryColombia)
	for _, tc := range []struct {
		name  string
		extra []any
		shop  bool
	}{
		{"flag and redirect_url", []any{"redirect_store_payment", true, "redirect_url", "https://shop.example.co/ref?o=9"}, true},
		{"redirect_url only", []any{"redirect_url", "https://shop.example.co/ref?o=9"}, false},
		{"flag only", []any{"redirect_store_payment", "true"}, false},
	} {
		o := newCheckout(t, env, "/checkouts", tc.extra...)
		assert.NotContains(t, o, "redirect_store_payment", "not echoed")
		link := o["checkout_link"].(string)
		res := browse(t, env, link, methodForm(browse(t, env, link, nil).token(t), "store"))
		require.Equal(t, http.StatusSeeOther, res.status, tc.name)
		chargeID := requireOK(t, env.get("/checkouts/"+o["id"].(string)), http.StatusOK)["transaction"].(map[string]any)["id"].(string)
		if tc.shop {
			assert.Equal(t, "https://shop.example.co/ref?o=9&id="+chargeID, res.location, tc.name)
		} else {
			assert.Equal(t, "/paynet-pdf/"+env.m.ID+"/transaction/"+chargeID, res.location, tc.name)
		}
	}
}
