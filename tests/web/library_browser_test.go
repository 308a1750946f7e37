package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/openpay-go/openpay/tests/internal/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkoutPage is a shop's checkout page, as a merchant writes it for the
// gateway's Openpay.js, with only the script URLs pointing at the
// reference server. It is served from another origin than the server, so
// every call the library makes is a cross-origin one.
var checkoutPage = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Checkout</title>
<script src="{{.Server}}/openpay.v1.min.js"></script>
<script src="{{.Server}}/openpay-data.v1.min.js"></script>
</head><body>
<form id="payment-form">
  <input id="holder" data-openpay-card="holder_name">
  <input id="number" data-openpay-card="card_number">
  <input id="month" data-openpay-card="expiration_month">
  <input id="year" data-openpay-card="expiration_year">
  <input id="cvv" data-openpay-card="cvv2">
  <input data-openpay-card-address="line1" value="Av. 5 de Febrero 1">
  <input data-openpay-card-address="city" value="Querétaro">
  <input data-openpay-card-address="state" value="Querétaro">
  <input data-openpay-card-address="postal_code" value="76000">
  <input data-openpay-card-address="country_code" value="MX">
</form>
<script>
  OpenPay.setId({{.MerchantID}});
  OpenPay.setApiKey({{.PublicKey}});
  OpenPay.setSandboxMode(true);
  window.deviceSessionId = OpenPay.deviceData.setup("payment-form", "deviceIdHiddenFieldName");
  window.result = null;
  function done(r) { window.result = {ok: true, id: r.data.id, status: r.status, card: r.data.card}; }
  function failed(e) { window.result = {ok: false, message: e.message, status: e.status, data: e.data}; }
  function fieldsAndCreate() {
    window.result = null;
    OpenPay.token.create({
      card_number: document.getElementById("number").value,
      holder_name: document.getElementById("holder").value,
      expiration_month: document.getElementById("month").value,
      expiration_year: document.getElementById("year").value,
      cvv2: document.getElementById("cvv").value
    }, done, failed);
  }
  function formAndCreate() {
    window.result = null;
    OpenPay.token.extractFormAndCreate("payment-form", done, failed);
  }
  // A page that leaks the private key: the browser sends Origin, the
  // server refuses with 1010 (and lets the page read why).
  function rawCall(path, key, body) {
    window.result = null;
    fetch({{.Server}} + path, {method: body ? "POST" : "GET", credentials: "include",
      headers: {"Authorization": "Basic " + btoa(key + ":"), "Content-Type": "application/json"},
      body: body ? JSON.stringify(body) : undefined})
      .then(function (r) { return r.json().then(function (j) { window.result = {ok: r.ok, status: r.status, data: j}; }); })
      .catch(function (e) { window.result = {ok: false, blocked: true, message: String(e)}; });
  }
</script>
</body></html>`))

// tokenResult is what the page's callbacks publish.
type tokenResult struct {
	OK      bool           `json:"ok"`
	ID      string         `json:"id"`
	Status  int            `json:"status"`
	Message string         `json:"message"`
	Blocked bool           `json:"blocked"`
	Card    map[string]any `json:"card"`
	Data    map[string]any `json:"data"`
}

// checkout starts a reference server, a shop serving checkoutPage on
// another origin, and a browser tab on that page.
func checkout(t *testing.T, browser context.Context) (*openpaytest.Server, context.Context) {
	t.Helper()
	srv := openpaytest.NewServer(t)
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = checkoutPage.Execute(w, map[string]string{"Server": srv.URL, "MerchantID": srv.MerchantID, "PublicKey": srv.PublicKey})
	}))
	t.Cleanup(shop.Close)
	tab := webtest.Tab(t, browser, shop.URL+"/checkout")
	return srv, tab
}

func typeCard(t *testing.T, tab context.Context, number, cvv string) {
	t.Helper()
	webtest.Do(t, tab,
		chromedp.SendKeys(chromedp.ID("holder"), "Ana Pérez"),
		chromedp.SendKeys(chromedp.ID("number"), number),
		chromedp.SendKeys(chromedp.ID("month"), "12"),
		chromedp.SendKeys(chromedp.ID("year"), "30"),
		chromedp.SendKeys(chromedp.ID("cvv"), cvv),
	)
}

// TestBrowserCheckout drives a checkout page in headless Chromium: the
// library served by the reference server makes the device session id and
// a token from the typed card, and the merchant's server charges the token
// with that id through the SDK.
func TestBrowserCheckout(t *testing.T) {
	start := time.Now()
	browser := webtest.Browser(t)
	t.Logf("browser started in %v", time.Since(start).Round(time.Millisecond))

	charge := func(t *testing.T, srv *openpaytest.Server, token, session string) (*openpay.Transaction, error) {
		t.Helper()
		c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.7"))
		require.NoError(t, err)
		return c.Charges.Create(context.Background(), openpay.CardCharge{SourceID: token, DeviceSessionID: session,
			Amount: openpay.MustAmount("250.00"), Description: "Browser checkout"})
	}

	t.Run("token.create and deviceData.setup", func(t *testing.T) {
		srv, tab := checkout(t, browser)
		session := webtest.Eval[string](t, tab, "window.deviceSessionId")
		assert.Regexp(t, regexp.MustCompile(`^[A-Za-z0-9]{32}$`), session)
		assert.Equal(t, session, webtest.Eval[string](t, tab, `document.getElementById("deviceIdHiddenFieldName").value`),
			"the hidden field carries the session id")
		assert.Equal(t, session, webtest.Eval[string](t, tab, "OpenPay.deviceData.setup()"), "the id is fixed for the page")
		// The device-data components arrived across origins and were added.
		got := webtest.Await[string](t, tab, `(document.querySelector("[data-openpay-device-session]") || {}).outerHTML`)
		assert.Contains(t, got, session)

		typeCard(t, tab, openpaytest.CardVisa, "123")
		webtest.Eval[any](t, tab, "fieldsAndCreate()")
		res := webtest.Await[tokenResult](t, tab, "window.result")
		require.True(t, res.OK, "failure callback: %+v", res)
		assert.Equal(t, 200, res.Status)
		assert.Equal(t, "411111XXXXXX1111", res.Card["card_number"])

		ch, err := charge(t, srv, res.ID, session)
		require.NoError(t, err)
		assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	})

	t.Run("extractFormAndCreate", func(t *testing.T) {
		srv, tab := checkout(t, browser)
		typeCard(t, tab, openpaytest.CardMastercard, "321")
		webtest.Eval[any](t, tab, "formAndCreate()")
		res := webtest.Await[tokenResult](t, tab, "window.result")
		require.True(t, res.OK, "failure callback: %+v", res)
		address, _ := res.Card["address"].(map[string]any)
		assert.Equal(t, "76000", address["postal_code"], "the address fields went with the card")
		ch, err := charge(t, srv, res.ID, webtest.Eval[string](t, tab, "window.deviceSessionId"))
		require.NoError(t, err)
		assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	})

	t.Run("refused card reaches the failure callback", func(t *testing.T) {
		_, tab := checkout(t, browser)
		typeCard(t, tab, "4111111111111112", "123") // wrong check digit
		webtest.Eval[any](t, tab, "formAndCreate()")
		res := webtest.Await[tokenResult](t, tab, "window.result")
		assert.False(t, res.OK)
		assert.Equal(t, "Request error", res.Message)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Status)
		assert.EqualValues(t, 2004, res.Data["error_code"], "the error object: %+v", res.Data)
		assert.EqualValues(t, http.StatusUnprocessableEntity, res.Data["http_code"])
	})

	t.Run("declined card tokenizes and the charge is declined", func(t *testing.T) {
		srv, tab := checkout(t, browser)
		typeCard(t, tab, openpaytest.EmulatorCardDeclined, "123")
		webtest.Eval[any](t, tab, "formAndCreate()")
		res := webtest.Await[tokenResult](t, tab, "window.result")
		require.True(t, res.OK, "failure callback: %+v", res)
		_, err := charge(t, srv, res.ID, webtest.Eval[string](t, tab, "window.deviceSessionId"))
		var oe *openpay.Error
		require.True(t, errors.As(err, &oe), "%v", err)
		assert.Equal(t, openpay.Code(3001), oe.Code)
	})

	t.Run("private key from the page", func(t *testing.T) {
		srv, tab := checkout(t, browser)
		// The library itself refuses anything but a public key.
		webtest.Eval[any](t, tab, "OpenPay.setApiKey("+jsString(srv.PrivateKey)+"); fieldsAndCreate()")
		res := webtest.Await[tokenResult](t, tab, "window.result")
		assert.False(t, res.OK)
		assert.Equal(t, "Empty or invalid Openpay API Key", res.Message)
		// Sent anyway, the server refuses it with 1010, readably.
		webtest.Eval[any](t, tab, "rawCall('/v1/"+srv.MerchantID+"/tokens', "+jsString(srv.PrivateKey)+
			", {card_number: '4111111111111111', holder_name: 'Ana', expiration_month: '12', expiration_year: '30', cvv2: '123'})")
		res = webtest.Await[tokenResult](t, tab, "window.result")
		assert.Equal(t, 403, res.Status, "%+v", res)
		assert.EqualValues(t, 1010, res.Data["error_code"])
	})

	t.Run("a card made from the page is read without Vary", func(t *testing.T) {
		// No cache stores a POST answer (no explicit freshness), so the
		// server names no Vary on it; the page reads it all the same.
		srv, tab := checkout(t, browser)
		webtest.Eval[any](t, tab, "rawCall('/v1/"+srv.MerchantID+"/cards', "+jsString(srv.PublicKey)+
			", {card_number: '4111111111111111', holder_name: 'Ana', expiration_month: '12', expiration_year: '30', cvv2: '123'})")
		res := webtest.Await[tokenResult](t, tab, "window.result")
		require.True(t, res.OK, "%+v", res)
		assert.Equal(t, 200, res.Status)
		assert.Equal(t, "411111XXXXXX1111", res.Data["card_number"])
		c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
		require.NoError(t, err)
		var ids []string
		for card, err := range c.Cards.List(context.Background(), nil) {
			require.NoError(t, err)
			ids = append(ids, card.ID)
		}
		assert.Equal(t, []string{res.Data["id"].(string)}, ids, "the merchant has the page's card, once")
	})

	t.Run("other routes are closed to the page", func(t *testing.T) {
		srv, tab := checkout(t, browser)
		webtest.Eval[any](t, tab, "rawCall('/v1/"+srv.MerchantID+"/charges', "+jsString(srv.PublicKey)+")")
		res := webtest.Await[tokenResult](t, tab, "window.result")
		assert.True(t, res.Blocked, "the browser keeps the answer from the page: %+v", res)
	})

	t.Run("card validation helpers", func(t *testing.T) {
		_, tab := checkout(t, browser)
		checks := map[string]any{
			"OpenPay.card.validateCardNumber('4111 1111 1111 1111')": true,
			"OpenPay.card.validateCardNumber('4111111111111112')":    false,
			"OpenPay.card.validateCardNumber('41111')":               false,
			"OpenPay.card.cardType('345678000000007')":               "American Express",
			"OpenPay.card.cardType('5555555555554444')":              "Mastercard",
			"OpenPay.card.cardType('2221000000000009')":              "Mastercard",
			"OpenPay.card.cardType('4111111111111111')":              "Visa",
			"OpenPay.card.validateCVC('123', '4111111111111111')":    true,
			"OpenPay.card.validateCVC('123', '345678000000007')":     false,
			"OpenPay.card.validateCVC('1234', '345678000000007')":    true,
			"OpenPay.card.validateCVC('12a')":                        false,
			"OpenPay.card.validateExpiry('12', '2099')":              true,
			"OpenPay.card.validateExpiry('12', '99')":                true,
			"OpenPay.card.validateExpiry('01', '2000')":              false,
			"OpenPay.card.validateExpiry('13', '2099')":              false,
			"OpenPay.getSandboxMode()":                               true,
		}
		for expr, want := range checks {
			assert.EqualValues(t, want, webtest.Eval[any](t, tab, expr), expr)
		}
	})
	t.Logf("browser tests took %v", time.Since(start).Round(time.Millisecond))
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
