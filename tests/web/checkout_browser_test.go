package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/openpay-go/openpay/tests/internal/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserCheckoutLink pays payment links in headless Chromium on the
// reference server's hosted checkout page: a declined card and then a good
// one, a card through 3-D Secure, and an expired link. The shop sees the
// payer come back and the webhook arrive.
func TestBrowserCheckoutLink(t *testing.T) {
	browser := webtest.Browser(t)
	srv := openpaytest.NewServer(t, openpaytest.WithClock(time.Now()))
	client, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)
	ctx := context.Background()

	// The shop: where the payer returns, and its webhook receiver.
	var mu sync.Mutex
	var events []openpay.WebhookEvent
	shop := http.NewServeMux()
	shop.HandleFunc("GET /paid", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><p id="back">order %s charge %s</p>`, r.URL.Query().Get("order"), r.URL.Query().Get("id"))
	})
	hooks, err := openpay.WebhookHandler("", "", func(_ context.Context, ev *openpay.WebhookEvent) error {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, *ev)
		return nil
	})
	require.NoError(t, err)
	shop.Handle("POST /hooks", hooks)
	shopSrv := httptest.NewServer(shop)
	t.Cleanup(shopSrv.Close)
	_, err = client.Webhooks.Create(ctx, openpay.WebhookRequest{URL: shopSrv.URL + "/hooks",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeFailed}})
	require.NoError(t, err)
	waitDeliveries := func(t *testing.T) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		require.NoError(t, srv.WaitForDeliveries(ctx))
	}
	eventFor := func(chargeID string, typ openpay.EventType) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range events {
			if ev.Type == typ && ev.Transaction != nil && ev.Transaction.ID == chargeID {
				return true
			}
		}
		return false
	}

	newLink := func(t *testing.T, order string) *openpay.Checkout {
		co, err := client.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("349.90"), Description: "Order " + order,
			OrderID: order + fmt.Sprint(time.Now().UnixNano()), RedirectURL: shopSrv.URL + "/paid?order=" + order,
			ExpirationDate: srv.Now().Add(time.Hour)})
		require.NoError(t, err)
		return co
	}
	typeCard := func(t *testing.T, tab context.Context, number string) {
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("card_number")))
		// After a refused card the page keeps the holder and expiry typed.
		webtest.Eval[bool](t, tab, `["holder_name","expiration_month","expiration_year"].every(id => (document.getElementById(id).value = "") === "")`)
		webtest.PayCard(t, tab, number)
	}
	text := func(t *testing.T, tab context.Context, id string) string {
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID(id)))
		s, err := chromedp.Run(tab, chromedp.Text(chromedp.ID(id)))
		require.NoError(t, err)
		return strings.TrimSpace(s)
	}
	paid := func(t *testing.T, tab context.Context, co *openpay.Checkout) {
		t.Helper()
		back := text(t, tab, "back")
		got, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
		require.NotNil(t, got.Transaction)
		assert.Equal(t, openpay.TransactionStatusCompleted, got.Transaction.Status)
		assert.Equal(t, co.OrderID, got.Transaction.OrderID)
		assert.Contains(t, back, "charge "+got.Transaction.ID, "the payer came back with the charge id")
		waitDeliveries(t)
		assert.True(t, eventFor(got.Transaction.ID, openpay.EventTypeChargeSucceeded), "the shop's webhook received charge.succeeded")
		// The link now shows it was paid.
		again := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "completed", statusOf(t, again))
		assert.False(t, webtest.Eval[bool](t, again, `!!document.getElementById("pay")`), "no form on a paid link")
	}

	t.Run("declined, then paid", func(t *testing.T) {
		co := newLink(t, "1001")
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "349.90 MXN", text(t, tab, "amount"))
		assert.Equal(t, "available", statusOf(t, tab))
		typeCard(t, tab, openpaytest.EmulatorCardDeclined)
		assert.Contains(t, text(t, tab, "message"), "The card was declined")
		declined, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		require.NotNil(t, declined.Transaction)
		assert.Equal(t, openpay.TransactionStatusFailed, declined.Transaction.Status)
		waitDeliveries(t)
		assert.True(t, eventFor(declined.Transaction.ID, openpay.EventTypeChargeFailed), "the shop's webhook received charge.failed")
		typeCard(t, tab, openpaytest.CardVisa)
		paid(t, tab, co)
	})
	t.Run("3-D Secure", func(t *testing.T) {
		co := newLink(t, "1002")
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		typeCard(t, tab, openpaytest.Card3DSecure)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("approve")), chromedp.Click(chromedp.ID("approve")))
		paid(t, tab, co)
	})
	t.Run("expired", func(t *testing.T) {
		co := newLink(t, "1003")
		_, err := srv.AdvanceClock(2 * time.Hour)
		require.NoError(t, err)
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "expired", statusOf(t, tab))
		assert.False(t, webtest.Eval[bool](t, tab, `!!document.getElementById("card_form")`), "an expired link takes no card")
	})
}

// TestBrowserCheckoutCountryMethods pays payment links in headless
// Chromium by the methods of the merchant's country: a Colombian link
// through PSE (the bank's page approves, the payer is back at the shop)
// and a Mexican one in cash at a store (the receipt's reference, then the
// store's payment completes the link).
func TestBrowserCheckoutCountryMethods(t *testing.T) {
	browser := webtest.Browser(t)
	ctx := context.Background()
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><p id="back">charge %s</p>`, r.URL.Query().Get("id"))
	}))
	t.Cleanup(shop.Close)
	setup := func(t *testing.T, country openpay.Country, amount string) (*openpaytest.Server, *openpay.Client, *openpay.Checkout) {
		srv := openpaytest.NewServer(t, openpaytest.WithCountry(country), openpaytest.WithClock(time.Now()))
		client, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(country), openpay.WithBaseURL(srv.URL))
		require.NoError(t, err)
		co, err := client.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount(amount), Description: "Pedido 77",
			OrderID: "77", RedirectURL: shop.URL + "/paid"})
		require.NoError(t, err)
		return srv, client, co
	}
	text := func(t *testing.T, tab context.Context, id string) string {
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID(id)))
		s, err := chromedp.Run(tab, chromedp.Text(chromedp.ID(id)))
		require.NoError(t, err)
		return strings.TrimSpace(s)
	}

	t.Run("Colombia, PSE", func(t *testing.T) {
		_, client, co := setup(t, openpay.CountryColombia, "50000")
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "50.000,00 COP", text(t, tab, "amount"), "written as Colombia writes it")
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("pay_pse")))
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("approve")))
		assert.Contains(t, webtest.Eval[string](t, tab, "location.pathname"), "/redirect/", "on the PSE bank's page")
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("approve")))
		back := text(t, tab, "back")
		got, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
		require.NotNil(t, got.Transaction)
		assert.Equal(t, openpay.TransactionMethodBankAccount, got.Transaction.Method)
		assert.Equal(t, "charge "+got.Transaction.ID, back, "back at the shop with the charge id")
	})

	t.Run("Mexico, store", func(t *testing.T) {
		srv, client, co := setup(t, openpay.CountryMexico, "349.90")
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Contains(t, text(t, tab, "store_networks"), "7-ELEVEN")
		assert.False(t, webtest.Eval[bool](t, tab, `!!document.getElementById("pay_pse")`), "no PSE in Mexico")
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("pay_store")))
		reference := text(t, tab, "reference")
		assert.Equal(t, "in_progress", statusOf(t, tab))
		got, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		assert.Equal(t, openpay.CheckoutStatusAvailable, got.Status, "until the payer pays at the store")
		require.NotNil(t, got.Transaction)
		assert.Equal(t, reference, got.Transaction.PaymentMethod.Reference)
		_, err = srv.PayCharge(got.Transaction.ID)
		require.NoError(t, err)
		again := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "completed", statusOf(t, again))
		assert.Equal(t, got.Transaction.ID, text(t, again, "charge_id"))
	})
}

// statusOf is the status a hosted page shows, as the API names it (its
// data-status; the payer reads it in words).
func statusOf(t *testing.T, tab context.Context) string {
	t.Helper()
	webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("status")))
	return webtest.Eval[string](t, tab, `document.getElementById("status").dataset.status`)
}
