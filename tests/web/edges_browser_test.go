package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/openpay-go/openpay/tests/internal/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The payer at the edges of the hosted pages, in headless Chromium: a link
// that expires while the payer is at 3-D Secure, a payer who goes back to
// the shop, links that ended, amounts and statuses as a payer reads them,
// and a store payment no store can take.

// edgeShop is a shop's return page: it shows the charge id it was given.
func edgeShop(t *testing.T) *httptest.Server {
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><p id="shop">shop: charge %q</p>`, r.URL.Query().Get("id"))
	}))
	t.Cleanup(shop.Close)
	return shop
}

// edgeText waits for the element and returns its text.
func edgeText(t *testing.T, tab context.Context, id string) string {
	t.Helper()
	webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID(id)))
	s, err := chromedp.Run(tab, chromedp.Text(chromedp.ID(id)))
	require.NoError(t, err)
	return strings.TrimSpace(s)
}

// has reports whether the page has an element with the id.
func has(t *testing.T, tab context.Context, id string) bool {
	t.Helper()
	return webtest.Eval[bool](t, tab, fmt.Sprintf(`!!document.getElementById(%q)`, id))
}

// TestBrowserLinkEdges: a Mexican shop's payment links, as the payer meets
// them.
func TestBrowserLinkEdges(t *testing.T) {
	browser := webtest.Browser(t)
	shop := edgeShop(t)
	srv := openpaytest.NewServer(t, openpaytest.WithClock(time.Now()))
	client, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)
	ctx := context.Background()
	newLink := func(t *testing.T, order string, expires time.Duration) *openpay.Checkout {
		t.Helper()
		req := openpay.CheckoutRequest{Amount: openpay.MustAmount("1349.90"), Description: "Pedido " + order + " <b>x</b>",
			OrderID: order, RedirectURL: shop.URL + "/back?order=" + order}
		if expires > 0 {
			req.ExpirationDate = srv.Now().Add(expires)
		}
		co, err := client.Checkouts.Create(ctx, req)
		require.NoError(t, err)
		return co
	}

	t.Run("the link expires while the payer is at 3-D Secure", func(t *testing.T) {
		co := newLink(t, "e1", 30*time.Minute)
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "1,349.90 MXN", edgeText(t, tab, "amount"), "written as Mexico writes it")
		assert.Equal(t, "Pedido e1 <b>x</b>", edgeText(t, tab, "description"), "the description, as text, in its place")
		assert.Equal(t, "Payment link", edgeText(t, tab, "title"), "the heading is not the merchant's description")
		assert.Equal(t, "open for payment", edgeText(t, tab, "status"))
		webtest.PayCard(t, tab, openpaytest.Card3DSecure)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("approve")))
		assert.True(t, has(t, tab, "leave"), "the challenge page has a way back to the shop")

		_, err := srv.AdvanceClock(31 * time.Minute) // the link expires; the payer is still on the page
		require.NoError(t, err)
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("approve")))
		assert.Equal(t, "cancelled", statusOf(t, tab), "the late approval finds the charge cancelled")
		assert.Equal(t, "not paid: it was cancelled", edgeText(t, tab, "status"))
		assert.True(t, has(t, tab, "return"), "and the way back to the shop")

		got, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		assert.Equal(t, openpay.CheckoutStatusExpired, got.Status)
		require.NotNil(t, got.Transaction)
		assert.Equal(t, openpay.TransactionStatusCancelled, got.Transaction.Status)
		assert.Equal(t, "0.00", srv.Balance().String(), "no money moved for the expired link")

		again := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "expired", statusOf(t, again))
		assert.Equal(t, "expired unpaid", edgeText(t, again, "status"), "an ended link is worded in the past")
		assert.False(t, has(t, again, "pay"), "no form on an expired link")
		webtest.Do(t, again, chromedp.Click(chromedp.ID("return")))
		assert.Equal(t, fmt.Sprintf("shop: charge %q", got.Transaction.ID), edgeText(t, again, "shop"))
	})

	t.Run("the payer goes back to the shop from 3-D Secure", func(t *testing.T) {
		co := newLink(t, "e2", 0)
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		webtest.PayCard(t, tab, openpaytest.Card3DSecure)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("approve")), chromedp.Click(chromedp.ID("leave")))
		back := edgeText(t, tab, "shop")
		got, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		require.NotNil(t, got.Transaction)
		assert.Equal(t, fmt.Sprintf("shop: charge %q", got.Transaction.ID), back, "back at the shop with the charge id")
		assert.Equal(t, openpay.TransactionStatusCancelled, got.Transaction.Status, "the abandoned charge is cancelled")
		assert.Equal(t, openpay.CheckoutStatusAvailable, got.Status, "the link takes another try")

		// Another try pays it.
		again := webtest.Tab(t, browser, co.CheckoutLink)
		assert.True(t, has(t, again, "return"), "an open link has the way back too")
		webtest.PayCard(t, again, openpaytest.CardVisa)
		edgeText(t, again, "shop")
		got, err = client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
	})

	t.Run("a cancelled link", func(t *testing.T) {
		co := newLink(t, "e3", 0)
		_, err := client.Checkouts.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusCancelled})
		require.NoError(t, err)
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "cancelled", statusOf(t, tab))
		assert.Equal(t, "cancelled by the shop", edgeText(t, tab, "status"))
		assert.Contains(t, webtest.Eval[string](t, tab, `document.querySelector("main").innerText`), "This link was cancelled by the shop")
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("return")))
		assert.Equal(t, `shop: charge ""`, edgeText(t, tab, "shop"), "back to the shop, with no charge to name")
	})

	t.Run("the card form of a redirect charge", func(t *testing.T) {
		ch, err := client.Charges.Create(ctx, openpay.RedirectCharge{Amount: openpay.MustAmount("20.00"), Description: "form", Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.mx"},
			RedirectURL: shop.URL + "/back"}, openpay.WithClientIP("198.51.100.4"))
		require.NoError(t, err)
		tab := webtest.Tab(t, browser, ch.PaymentMethod.URL)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("card_number")), chromedp.Click(chromedp.ID("leave")))
		assert.Equal(t, fmt.Sprintf("shop: charge %q", ch.ID), edgeText(t, tab, "shop"))
		got, err := client.Charges.Get(ctx, ch.ID)
		require.NoError(t, err)
		assert.Equal(t, openpay.TransactionStatusCancelled, got.Status)
	})
}

// TestBrowserCountryEdges: a Colombian link reads its pesos and its IVA as
// Colombia writes them and its PSE page has a way back; a Peruvian store
// payment no store takes says so on its receipt, and a link of that amount
// offers no store.
func TestBrowserCountryEdges(t *testing.T) {
	browser := webtest.Browser(t)
	shop := edgeShop(t)
	ctx := context.Background()

	t.Run("Colombia", func(t *testing.T) {
		srv := openpaytest.NewServer(t, openpaytest.WithCountry(openpay.CountryColombia))
		client, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(openpay.CountryColombia), openpay.WithBaseURL(srv.URL))
		require.NoError(t, err)
		co, err := client.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("119000"), Description: "Pedido 9",
			IVA: openpay.MustAmount("19000"), RedirectURL: shop.URL + "/back"})
		require.NoError(t, err)
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "119.000,00 COP", edgeText(t, tab, "amount"))
		assert.Equal(t, "19.000,00 COP", edgeText(t, tab, "iva"))
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("pay_pse")), chromedp.WaitVisible(chromedp.ID("approve")))
		assert.Equal(t, "119.000,00 COP", edgeText(t, tab, "amount"))
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("leave")))
		edgeText(t, tab, "shop")
		got, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		require.NotNil(t, got.Transaction)
		assert.Equal(t, openpay.TransactionStatusCancelled, got.Transaction.Status, "the PSE payer left: cancelled")
		assert.Equal(t, openpay.CheckoutStatusAvailable, got.Status)
	})

	t.Run("Peru", func(t *testing.T) {
		srv := openpaytest.NewServer(t, openpaytest.WithCountry(openpay.CountryPeru))
		client, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(openpay.CountryPeru), openpay.WithBaseURL(srv.URL),
			openpay.WithDefaultClientIP("198.51.100.4"))
		require.NoError(t, err)
		payer := &openpay.ChargeCustomer{Name: "Marco", Email: "marco@example.pe"}
		big, err := client.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("119000"), Description: "grande", Customer: payer})
		require.NoError(t, err)
		tab := webtest.Tab(t, browser, srv.URL+"/paynet-pdf/"+srv.MerchantID+"/transaction/"+big.ID)
		assert.Contains(t, edgeText(t, tab, "no_store"), "No store network takes a payment of this amount")
		assert.Equal(t, "119,000.00 PEN", edgeText(t, tab, "amount"))
		assert.Equal(t, "waiting for your payment", edgeText(t, tab, "status"), "the status in words")
		assert.Equal(t, "in_progress", webtest.Eval[string](t, tab, `document.getElementById("status").dataset.status`))

		small, err := client.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("150.50"), Description: "chica", Customer: payer})
		require.NoError(t, err)
		tab = webtest.Tab(t, browser, srv.URL+"/paynet-pdf/"+srv.MerchantID+"/transaction/"+small.ID)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("networks")))
		assert.False(t, has(t, tab, "no_store"))

		co, err := client.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("119000"), Description: "Pedido grande"})
		require.NoError(t, err)
		tab = webtest.Tab(t, browser, co.CheckoutLink)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("pay")))
		assert.False(t, has(t, tab, "pay_store"), "no store takes 119,000.00 PEN: the link does not offer one")
		assert.False(t, has(t, tab, "return"), "a link without a redirect_url has no way back to offer")
	})
}
