package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/openpay-go/openpay/tests/internal/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// screenshotEnv makes TestDashboardInBrowser write the README's screenshot
// (docs/dashboard.png); without it the test drives the browser the same
// way and leaves the tree alone.
const screenshotEnv = "UPDATE_SCREENSHOT"

// TestDashboardInBrowser opens the dashboard of a server that holds a
// little of everything, presses "pay" on a store charge waiting for its
// payer and sees the charge completed, with the event the payment caused.
func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	browser := webtest.Browser(t)
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	ctx := context.Background()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.7"))
	require.NoError(t, err)

	cust, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", LastName: "Pérez", Email: "ana.perez@example.com"})
	require.NoError(t, err)
	card, err := c.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana Pérez",
		CardNumber: openpaytest.CardVisa, CVV2: openpaytest.CVV(openpaytest.CardVisa), ExpirationMonth: "12",
		ExpirationYear: "30"}})
	require.NoError(t, err)
	_, err = c.Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("250.00"),
		Description: "Order 1001", OrderID: "order-1001"})
	require.NoError(t, err)
	_, err = c.Charges.Create(ctx, openpay.BankCharge{Amount: openpay.MustAmount("1200.00"), Description: "Order 1002, SPEI",
		OrderID: "order-1002"})
	require.NoError(t, err)
	store, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("350.00"), Description: "Order 1003, at a store",
		OrderID: "order-1003"})
	require.NoError(t, err)
	require.Equal(t, openpay.TransactionStatusInProgress, store.Status)

	tab := webtest.Tab(t, browser, srv.URL+"/_dashboard/merchants/"+srv.MerchantID+"/transactions")
	webtest.Do(t, tab, chromedp.EmulateViewport(1280, 900))
	row := fmt.Sprintf("#tx-%s", store.ID)
	status := fmt.Sprintf("document.querySelector(%q).textContent", row+" .status")
	assert.Equal(t, "in_progress", webtest.Eval[string](t, tab, status))
	assert.Equal(t, "411111XXXXXX1111", webtest.Eval[string](t, tab, `document.querySelector(".card_number").textContent`),
		"card numbers masked")

	// The button posts a form, and the answer sends the browser back to
	// the page: wait for the new page (the old one's marker gone).
	webtest.Eval[bool](t, tab, "window.beforePay = true")
	webtest.Do(t, tab, chromedp.Click(chromedp.CSS(row+" button.action-pay")))
	awaitNewPage(t, tab, fmt.Sprintf("!window.beforePay && document.querySelector(%q) !== null && %s === 'completed'", row+" .status", status))
	history := webtest.Eval[string](t, tab, fmt.Sprintf("document.querySelector(%q).textContent", row+" .history"))
	assert.Contains(t, history, "charge.succeeded", "the event the payment caused")
	assert.False(t, webtest.Eval[bool](t, tab, fmt.Sprintf("document.querySelector(%q) !== null", row+" button.action-pay")),
		"a paid charge has no pay button")

	got, err := c.Charges.Get(ctx, store.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, got.Status)
	assert.True(t, srv.Balance().Equal(openpay.MustAmount("600.00")), "250 by card and 350 at the store: %s", srv.Balance())

	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NotEmpty(t, shot)
	if os.Getenv(screenshotEnv) != "" {
		path := filepath.Join("..", "..", "docs", "dashboard.png")
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, shot, 0o644))
		t.Logf("wrote %s (%d bytes) at %s", path, len(shot), time.Now().Format(time.RFC3339))
	}
}

// awaitNewPage waits until expr is true on the tab, across the navigation a
// form's submission makes (evaluating fails while the page changes).
func awaitNewPage(t *testing.T, tab context.Context, expr string) {
	t.Helper()
	for {
		ok, err := chromedp.Run(tab, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if tab.Err() != nil {
			t.Fatalf("waiting for %s: %v (last: %v)", expr, tab.Err(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
