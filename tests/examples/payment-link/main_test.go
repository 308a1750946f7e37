package paymentlink_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/payment-link/paylink"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/openpay-go/openpay/tests/internal/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserPaymentLinkEdges pays the shop's links in headless Chromium on
// the reference server's hosted page, at their edges: the link expires
// while the payer is at 3-D Secure (the late approval moves no money, the
// link reads expired, the way back leads to an order not paid), and a
// payer who goes back to the shop from 3-D Secure, then pays the same link
// with another card. The books: the link's state, its charges, the balance.
func TestBrowserPaymentLinkEdges(t *testing.T) {
	browser := webtest.Browser(t)
	sim := openpaytest.NewServer(t, openpaytest.WithClock(time.Now()))
	client, err := openpay.New(sim.MerchantID, sim.PrivateKey, openpay.WithBaseURL(sim.URL))
	require.NoError(t, err)
	shop, err := paylink.StartReceiver(client)
	require.NoError(t, err)
	t.Cleanup(shop.Close)
	ctx := context.Background()
	text := func(t *testing.T, tab context.Context, id string) string {
		t.Helper()
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID(id)))
		s, err := chromedp.Run(tab, chromedp.Text(chromedp.ID(id)))
		require.NoError(t, err)
		return strings.TrimSpace(s)
	}

	t.Run("the link expires at 3-D Secure", func(t *testing.T) {
		co, err := paylink.NewLink(ctx, client, "edge-late", shop.Base(), sim.Now().Add(30*time.Minute))
		require.NoError(t, err)
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "1,250.00 MXN", text(t, tab, "amount"))
		webtest.PayCard(t, tab, openpaytest.Card3DSecure)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("approve")))
		_, err = sim.AdvanceClock(31 * time.Minute)
		require.NoError(t, err)
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("approve")), chromedp.WaitVisible(chromedp.ID("return")))
		assert.Equal(t, "cancelled", webtest.Eval[string](t, tab, `document.getElementById("status").dataset.status`))
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("return")))
		assert.Equal(t, "not paid: the link expired", text(t, tab, "order_status"), "the shop reads the API: not paid")

		got, err := client.Checkouts.GetByOrderID(ctx, "edge-late")
		require.NoError(t, err)
		assert.Equal(t, openpay.CheckoutStatusExpired, got.Status)
		charges, err := client.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: "edge-late"})
		require.NoError(t, err)
		require.Len(t, charges, 1)
		assert.Equal(t, openpay.TransactionStatusCancelled, charges[0].Status)
		assert.Equal(t, "0.00", sim.Balance().String(), "no money for an expired link")

		again := webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "expired unpaid", text(t, again, "status"))
		assert.False(t, webtest.Eval[bool](t, again, `!!document.getElementById("pay")`), "an expired link takes nothing")
	})

	t.Run("back to the shop, then paid", func(t *testing.T) {
		co, err := paylink.NewLink(ctx, client, "edge-back", shop.Base(), sim.Now().Add(48*time.Hour))
		require.NoError(t, err)
		tab := webtest.Tab(t, browser, co.CheckoutLink)
		webtest.PayCard(t, tab, openpaytest.Card3DSecure)
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("approve")), chromedp.Click(chromedp.ID("leave")))
		assert.Equal(t, "not paid: the payment was cancelled", text(t, tab, "order_status"))

		tab = webtest.Tab(t, browser, co.CheckoutLink)
		assert.Equal(t, "open for payment", text(t, tab, "status"))
		webtest.PayCard(t, tab, openpaytest.CardVisa)
		assert.Equal(t, "paid", text(t, tab, "order_status"))
		got, err := client.Checkouts.Get(ctx, co.ID)
		require.NoError(t, err)
		assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
		assert.Equal(t, "1250.00", sim.Balance().String(), "paid once")
	})
}
