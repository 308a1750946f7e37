package webcheckout_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/web-checkout/webshop"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/openpay-go/openpay/tests/internal/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testShop is the shop serving on a local port against a reference server,
// with its webhook registered.
type testShop struct {
	*webshop.Shop
	URL    string
	Sim    *openpaytest.Server
	Client *openpay.Client
}

func startShop(t *testing.T, opts ...openpaytest.Option) testShop {
	t.Helper()
	sim := openpaytest.NewServer(t, opts...)
	client, err := openpay.New(sim.MerchantID, sim.PrivateKey, openpay.WithBaseURL(sim.URL))
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	s, err := webshop.New(webshop.Config{Client: client, MerchantID: sim.MerchantID, PublicKey: sim.PublicKey,
		ScriptBase: sim.URL, Sandbox: true, BaseURL: base, HookUser: "shop", HookPassword: "s3cret-for-tests"})
	require.NoError(t, err)
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	hook, err := s.RegisterWebhook(context.Background(), base+"/webhooks")
	require.NoError(t, err)
	require.Equal(t, openpay.WebhookStatusVerified, hook.Status, "the shop answered the verification event")
	return testShop{Shop: s, URL: base, Sim: sim, Client: client}
}

// typeCard fills the shop's card fields, as the payer does.
func typeCard(t *testing.T, tab context.Context, number string) {
	t.Helper()
	webtest.Do(t, tab,
		chromedp.SendKeys(chromedp.ID("holder"), "Ana López"),
		chromedp.SendKeys(chromedp.ID("number"), number),
		chromedp.SendKeys(chromedp.ID("month"), "12"),
		chromedp.SendKeys(chromedp.ID("year"), "30"),
		chromedp.SendKeys(chromedp.ID("cvv"), openpaytest.CVV(number)),
	)
}

// outcome is what the payer reads on the shop's result page.
type outcome struct{ Result, Message, Order, Path string }

func readOutcome(t *testing.T, tab context.Context) outcome {
	t.Helper()
	webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("result")))
	var o outcome
	var err error
	read := func(id string) string {
		if err != nil {
			return ""
		}
		var s string
		s, err = chromedp.Run(tab, chromedp.Text(chromedp.ID(id)))
		return strings.TrimSpace(s)
	}
	o.Result, o.Message, o.Order = read("result"), read("message"), read("order")
	require.NoError(t, err)
	o.Path = webtest.Eval[string](t, tab, "location.pathname")
	return o
}

// TestBrowserCheckout pays in headless Chromium on the shop's checkout page,
// through every way the shop takes money, and checks what the payer sees,
// what the API holds and that the webhook updated the order.
func TestBrowserCheckout(t *testing.T) {
	start := time.Now()
	browser := webtest.Browser(t)
	shop := startShop(t)
	t.Logf("browser and shop started in %v", time.Since(start).Round(time.Millisecond))

	// settled waits for the webhook receiver to record event on the order,
	// checks the charge the API holds for the order and returns both.
	settled := func(t *testing.T, orderID string, event openpay.EventType, want openpay.TransactionStatus) (webshop.Order, openpay.Transaction) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, shop.Sim.WaitForDeliveries(ctx))
		o, _ := shop.Order(orderID)
		require.Contains(t, o.Events, event, "the webhook receiver did not record %s on order %s", event, orderID)
		charges, err := shop.Client.Charges.ListPage(context.Background(), &openpay.TransactionListParams{OrderID: orderID})
		require.NoError(t, err)
		require.Len(t, charges, 1, "one charge for the order")
		assert.Equal(t, want, charges[0].Status)
		assert.Zero(t, openpay.MustAmount(webshop.Price).Cmp(charges[0].Amount), "amount %s", charges[0].Amount)
		if o.ChargeID != "" {
			assert.Equal(t, charges[0].ID, o.ChargeID)
		}
		return o, *charges[0]
	}

	flows := []struct {
		name    string
		pay     func(t *testing.T, tab context.Context) // from the filled-in checkout page to the shop's result page
		card    string                                  // typed on the shop's page
		charged string                                  // the card the charge holds, when not card
		result  string
		message string
		status  openpay.TransactionStatus
		event   openpay.EventType
		path    string
	}{{
		name: "card that pays", card: openpaytest.CardVisa,
		result: "Thank you: paid", status: openpay.TransactionStatusCompleted, event: openpay.EventTypeChargeSucceeded, path: "/return",
	}, {
		name: "declined card", card: openpaytest.EmulatorCardDeclined,
		result: "Payment declined", message: "The card was declined",
		status: openpay.TransactionStatusFailed, event: openpay.EventTypeChargeFailed, path: "/pay",
	}, {
		name: "3-D Secure approved", card: openpaytest.Card3DSecure,
		pay: func(t *testing.T, tab context.Context) {
			webtest.Do(t, tab, chromedp.Click(chromedp.ID("use_3ds")), chromedp.Click(chromedp.ID("pay")),
				chromedp.WaitVisible(chromedp.ID("approve")), chromedp.Click(chromedp.ID("approve")))
		},
		result: "Thank you: paid", status: openpay.TransactionStatusCompleted, event: openpay.EventTypeChargeSucceeded, path: "/return",
	}, {
		name: "3-D Secure failed", card: openpaytest.CardVisa, // any card: the payer asked for 3-D Secure
		pay: func(t *testing.T, tab context.Context) {
			webtest.Do(t, tab, chromedp.Click(chromedp.ID("use_3ds")), chromedp.Click(chromedp.ID("pay")),
				chromedp.WaitVisible(chromedp.ID("fail")), chromedp.Click(chromedp.ID("fail")))
		},
		result: "Payment declined", message: "The card was declined",
		status: openpay.TransactionStatusFailed, event: openpay.EventTypeChargeFailed, path: "/return",
	}, {
		name: "card typed on the gateway's page", charged: openpaytest.CardMastercard,
		pay: func(t *testing.T, tab context.Context) {
			webtest.Do(t, tab, chromedp.Click(chromedp.ID("mode-hosted")), chromedp.Click(chromedp.ID("pay")))
			webtest.PayCard(t, tab, openpaytest.CardMastercard)
		},
		result: "Thank you: paid", status: openpay.TransactionStatusCompleted, event: openpay.EventTypeChargeSucceeded, path: "/return",
	}}
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			tab := webtest.Tab(t, browser, shop.URL+"/")
			session := webtest.Await[string](t, tab, `(document.querySelector("input[name=device_session_id]") || {}).value`)
			assert.Regexp(t, `^[A-Za-z0-9]{32}$`, session, "deviceData.setup put the session id in the form")
			if f.card != "" {
				typeCard(t, tab, f.card)
			}
			if f.pay != nil {
				f.pay(t, tab)
			} else {
				webtest.Do(t, tab, chromedp.Click(chromedp.ID("pay")))
			}

			got := readOutcome(t, tab)
			assert.Equal(t, f.result, got.Result)
			assert.Equal(t, f.message, got.Message)
			assert.Equal(t, f.path, got.Path)
			o, charge := settled(t, got.Order, f.event, f.status)
			assert.Equal(t, o.ID, got.Order)
			if f.charged == "" {
				f.charged = f.card
			}
			require.NotNil(t, charge.Card)
			assert.Equal(t, f.charged[:6]+"XXXXXX"+f.charged[12:], charge.Card.CardNumber, "the typed card was charged")
		})
	}
	t.Logf("browser checkout took %v", time.Since(start).Round(time.Millisecond))
}

// TestBrowserCheckoutEdges: the payer at the edges of 3-D Secure and the
// gateway's card page, in headless Chromium. A payer who goes back to the
// shop from the bank's page, or from the gateway's card form, cancels the
// charge and reads the order cancelled; a payer who leaves the page open
// for more than the hour 3-D Secure waits finds the charge cancelled when
// approving at last, and a way back to the shop, which the webhook has
// already told. Each time one charge for the order, and no money.
func TestBrowserCheckoutEdges(t *testing.T) {
	browser := webtest.Browser(t)
	shop := startShop(t, openpaytest.WithClock(time.Now()))
	// cancelled checks the books: the order's one charge is cancelled, the
	// webhook told the shop, and nothing reached the balance.
	cancelled := func(t *testing.T, orderID string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, shop.Sim.WaitForDeliveries(ctx))
		o, _ := shop.Order(orderID)
		assert.Equal(t, webshop.StatusCanceled, o.Status)
		assert.Contains(t, o.Events, openpay.EventTypeChargeCancelled, "the webhook told the shop")
		charges, err := shop.Client.Charges.ListPage(context.Background(), &openpay.TransactionListParams{OrderID: orderID})
		require.NoError(t, err)
		require.Len(t, charges, 1, "one charge for the order")
		assert.Equal(t, openpay.TransactionStatusCancelled, charges[0].Status)
		assert.Equal(t, "0.00", shop.Sim.Balance().String())
	}
	to3DS := func(t *testing.T) context.Context {
		tab := webtest.Tab(t, browser, shop.URL+"/")
		webtest.Await[string](t, tab, `(document.querySelector("input[name=device_session_id]") || {}).value`)
		typeCard(t, tab, openpaytest.Card3DSecure)
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("use_3ds")), chromedp.Click(chromedp.ID("pay")),
			chromedp.WaitVisible(chromedp.ID("approve")))
		return tab
	}

	t.Run("back to the shop from 3-D Secure", func(t *testing.T) {
		tab := to3DS(t)
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("leave")))
		got := readOutcome(t, tab)
		assert.Equal(t, "Payment cancelled", got.Result)
		assert.Equal(t, "/return", got.Path)
		cancelled(t, got.Order)
	})

	t.Run("back to the shop from the gateway's card page", func(t *testing.T) {
		tab := webtest.Tab(t, browser, shop.URL+"/")
		webtest.Await[string](t, tab, `(document.querySelector("input[name=device_session_id]") || {}).value`)
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("mode-hosted")), chromedp.Click(chromedp.ID("pay")),
			chromedp.WaitVisible(chromedp.ID("card_number")), chromedp.Click(chromedp.ID("leave")))
		got := readOutcome(t, tab)
		assert.Equal(t, "Payment cancelled", got.Result)
		cancelled(t, got.Order)
	})

	t.Run("3-D Secure abandoned for an hour", func(t *testing.T) {
		tab := to3DS(t)
		_, err := shop.Sim.AdvanceClock(61 * time.Minute)
		require.NoError(t, err)
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("approve")))
		webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("return")))
		assert.Equal(t, "cancelled", webtest.Eval[string](t, tab, `document.getElementById("status").dataset.status`),
			"the late approval finds the charge cancelled")
		webtest.Do(t, tab, chromedp.Click(chromedp.ID("return")))
		got := readOutcome(t, tab)
		assert.Equal(t, "Payment cancelled", got.Result)
		cancelled(t, got.Order)
	})
}

// TestReturnReadsTheAPI checks that the return page believes the API, not
// the query string: a charge that is not one of the shop's orders, or an
// unknown id, shows nothing, and a pending charge shows as pending whatever
// the query claims.
func TestReturnReadsTheAPI(t *testing.T) {
	shop := startShop(t)
	ctx := context.Background()
	get := func(query string) (int, string) {
		t.Helper()
		res, err := http.Get(shop.URL + "/return?" + query)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, string(b)
	}

	code, _ := get("id=trzzzzzzzzzzzzzzzzzz&status=completed")
	assert.Equal(t, http.StatusNotFound, code, "unknown charge")

	// A charge of the merchant's, not made by the shop.
	other, err := shop.Client.Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount(webshop.Price), Description: "elsewhere",
		Card:     openpay.CardDetails{HolderName: "Ana", CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"}}, openpay.WithClientIP("203.0.113.9"))
	require.NoError(t, err)
	code, _ = get("id=" + other.ID)
	assert.Equal(t, http.StatusNotFound, code, "not one of the shop's orders")

	// A shop order waiting for 3-D Secure: the payer comes back claiming success.
	o := shop.NewOrder()
	pending, err := shop.Client.Charges.Create(ctx, openpay.InlineCardCharge{Amount: o.Amount, Description: webshop.Product, OrderID: o.ID,
		Card:     openpay.CardDetails{HolderName: "Ana", CardNumber: openpaytest.Card3DSecure, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"}, RedirectURL: shop.URL + "/return"},
		openpay.WithClientIP("203.0.113.9"))
	require.NoError(t, err)
	code, page := get("id=" + pending.ID + "&status=completed")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, webshop.Headline(webshop.StatusPending))
	got, _ := shop.Order(o.ID)
	assert.Equal(t, webshop.StatusPending, got.Status)
}
