package openpaytest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// A store charge made through the SDK, paid by the simulated payer.
func Example() {
	srv, err := openpaytest.Start(openpaytest.Deterministic())
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer srv.Close()
	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"))
	if err != nil {
		fmt.Println("client:", err)
		return
	}
	ctx := context.Background()
	ch, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("150"), Description: "Order 42", OrderID: "42"})
	if err != nil {
		fmt.Println("charge:", err)
		return
	}
	fmt.Println(ch.Status, ch.PaymentMethod.Type)

	paid, err := srv.PayCharge(ch.ID)
	if err != nil {
		fmt.Println("pay:", err)
		return
	}
	fmt.Println(paid.Status, srv.Balance())
	// Output:
	// in_progress store
	// completed 150.00
}

// A Colombian merchant: a PSE payment through the SDK, completed as the
// payer's bank would.
func ExampleWithCountry() {
	srv, err := openpaytest.Start(openpaytest.WithCountry(openpay.CountryColombia))
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer srv.Close()
	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"))
	if err != nil {
		fmt.Println("client:", err)
		return
	}
	ch, err := c.Charges.Create(context.Background(), openpay.PSECharge{
		Amount: openpay.MustAmount("119000"), IVA: openpay.MustAmount("19000"), Description: "Order 3001",
		RedirectURL: "https://shop.example.co/return",
		Customer: &openpay.ChargeCustomer{Name: "Camila", Email: "camila@example.co",
			CustomerAddress: &openpay.ColombianAddress{Department: "Antioquia", City: "Medellín", Additional: "Carrera 43A # 10-52"}},
	})
	if err != nil {
		fmt.Println("charge:", err)
		return
	}
	fmt.Println(ch.Status, ch.Currency, ch.PaymentMethod.Type)

	paid, err := srv.PayCharge(ch.ID)
	if err != nil {
		fmt.Println("pay:", err)
		return
	}
	fmt.Println(paid.Status, srv.Balance())
	// Output:
	// charge_pending COP redirect
	// completed 119000.00
}

// exampleCard is a documented sandbox card as a charge carries it.
func exampleCard(number string) openpay.CardDetails {
	return openpay.CardDetails{HolderName: "Ana López", CardNumber: number, CVV2: openpaytest.CVV(number),
		ExpirationMonth: "12", ExpirationYear: "30"}
}

// The answer to a charge is lost after the gateway made it, and the SDK's
// own lookup by order_id fails too, so the outcome is unknown; the shop
// looks the charge up by its order_id before charging again, and finds it:
// the customer is charged once.
func Example_recoveryByOrderID() {
	srv, err := openpaytest.Start(openpaytest.Deterministic())
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer srv.Close()
	// No retries, so that the lost answer reaches the shop's code.
	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"), openpay.WithRetryPolicy(openpay.RetryPolicy{}))
	if err != nil {
		fmt.Println("client:", err)
		return
	}
	ctx := context.Background()
	for _, f := range []openpaytest.Fault{
		{Operation: "Charges.Create", Calls: 1, Drop: openpaytest.DropAfter},
		// The lookup that settles a lost create lists the charges.
		{Method: "GET", Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrServiceUnavailable},
	} {
		if err := srv.InjectFault(f); err != nil {
			fmt.Println("fault:", err)
			return
		}
	}
	order := openpay.InlineCardCharge{Amount: openpay.MustAmount("100"), Description: "Order 7", OrderID: "o-7",
		Card: exampleCard(openpaytest.CardVisa)}
	_, err = c.Charges.Create(ctx, order)
	fmt.Println("outcome unknown:", errors.Is(err, openpay.ErrOutcomeUnknown))

	found, err := c.Charges.GetByOrderID(ctx, "o-7")
	switch {
	case errors.Is(err, openpay.ErrNotFound):
		fmt.Println("nothing was made: charge again")
	case err != nil:
		fmt.Println("lookup:", err)
	default:
		fmt.Println("already charged:", found.Status, found.Amount)
	}
	fmt.Println("balance:", srv.Balance())
	// Output:
	// outcome unknown: true
	// already charged: completed 100.00
	// balance: 100.00
}

// The next charge meets a gateway that answers 503, on every retry the SDK
// makes; nothing is charged, and the call after succeeds.
func ExampleServer_InjectFault() {
	srv, err := openpaytest.Start()
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer srv.Close()
	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"),
		openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: time.Millisecond}))
	if err != nil {
		fmt.Println("client:", err)
		return
	}
	err = srv.InjectFault(openpaytest.Fault{
		Operation: "Charges.Create", // as the code calls it
		Calls:     1,                // the next call, its retries included
		ErrorCode: openpay.ErrServiceUnavailable,
	})
	if err != nil {
		fmt.Println("fault:", err)
		return
	}
	ctx := context.Background()
	order := openpay.InlineCardCharge{Amount: openpay.MustAmount("100"), Description: "Order 8", OrderID: "o-8",
		Card: exampleCard(openpaytest.CardVisa)}
	var info openpay.ResponseInfo
	_, err = c.Charges.Create(ctx, order, openpay.WithResponseInfo(&info))
	fmt.Println(errors.Is(err, openpay.ErrServiceUnavailable), info.Attempts, srv.Balance())

	ch, err := c.Charges.Create(ctx, order)
	if err != nil {
		fmt.Println("charge:", err)
		return
	}
	fmt.Println(ch.Status, srv.Balance())
	// Output:
	// true 3 0.00
	// completed 100.00
}

// A store charge's due date passes on the fake clock: the unpaid charge is
// cancelled, at the time it was due.
func ExampleServer_AdvanceClock() {
	srv, err := openpaytest.Start(openpaytest.Deterministic())
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer srv.Close()
	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"))
	if err != nil {
		fmt.Println("client:", err)
		return
	}
	ctx := context.Background()
	due := srv.Now().Add(48 * time.Hour)
	ch, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("80"), Description: "Order 9", DueDate: due})
	if err != nil {
		fmt.Println("charge:", err)
		return
	}
	now, err := srv.AdvanceClock(72 * time.Hour)
	if err != nil {
		fmt.Println("clock:", err)
		return
	}
	got, err := c.Charges.Get(ctx, ch.ID)
	if err != nil {
		fmt.Println("get:", err)
		return
	}
	fmt.Println(now.Format(time.DateTime), got.Status)
	// Output:
	// 2026-01-08 10:00:00 cancelled
}

// Two suites share one server, a merchant each; one moves its merchant's
// clock three days on, and its unpaid store charge expires. The other
// merchant's charge, its clock and the server's do not move; a reset of
// the first merchant makes its clock follow the server's again.
func ExampleMerchant_AdvanceClock() {
	srv, err := openpaytest.Start(openpaytest.Deterministic())
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer srv.Close()
	other, err := srv.AddMerchant("", "", "")
	if err != nil {
		fmt.Println("merchant:", err)
		return
	}
	ctx := context.Background()
	charge := func(m *openpaytest.Merchant) (*openpay.Client, string) {
		c, err := m.Client(openpay.WithDefaultClientIP("203.0.113.7"))
		if err != nil {
			fmt.Println("client:", err)
			return nil, ""
		}
		ch, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("80"), Description: "Order 9",
			DueDate: m.Now().Add(48 * time.Hour)})
		if err != nil {
			fmt.Println("charge:", err)
			return nil, ""
		}
		return c, ch.ID
	}
	status := func(c *openpay.Client, id string) openpay.TransactionStatus {
		ch, err := c.Charges.Get(ctx, id)
		if err != nil {
			return openpay.TransactionStatus(err.Error())
		}
		return ch.Status
	}
	mine, myCharge := charge(&srv.Merchant)
	theirs, theirCharge := charge(other)
	if mine == nil || theirs == nil {
		return
	}

	now, err := srv.Merchant.AdvanceClock(72 * time.Hour)
	if err != nil {
		fmt.Println("clock:", err)
		return
	}
	fmt.Println("mine:  ", now.Format(time.DateTime), status(mine, myCharge))
	fmt.Println("theirs:", other.Now().Format(time.DateTime), status(theirs, theirCharge))
	fmt.Println("server:", srv.Now().Format(time.DateTime))

	if err := srv.Merchant.Reset(); err != nil {
		fmt.Println("reset:", err)
		return
	}
	fmt.Println("after my reset:", srv.Merchant.Now().Format(time.DateTime))
	// Output:
	// mine:   2026-01-08 10:00:00 cancelled
	// theirs: 2026-01-05 10:00:00 in_progress
	// server: 2026-01-05 10:00:00
	// after my reset: 2026-01-05 10:00:00
}

// A webhook receiver gets the events of the calls a test made; the test
// waits for the deliveries instead of sleeping.
func ExampleServer_WaitForDeliveries() {
	srv, err := openpaytest.Start()
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer srv.Close()
	var mu sync.Mutex
	var got []openpay.EventType
	hooks, err := openpay.WebhookHandler("hook-user", "hook-secret", func(_ context.Context, ev *openpay.WebhookEvent) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, ev.Type)
		return nil
	})
	if err != nil {
		fmt.Println("handler:", err)
		return
	}
	receiver := httptest.NewServer(hooks)
	defer receiver.Close()

	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"))
	if err != nil {
		fmt.Println("client:", err)
		return
	}
	ctx := context.Background()
	_, err = c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: receiver.URL, User: "hook-user", Password: "hook-secret",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	if err != nil {
		fmt.Println("webhook:", err)
		return
	}
	if _, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("100"), Description: "Order 10",
		Card: exampleCard(openpaytest.CardVisa)}); err != nil {
		fmt.Println("charge:", err)
		return
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := srv.WaitForDeliveries(wait); err != nil {
		fmt.Println("wait:", err)
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(got[len(got)-1])
	// Output:
	// charge.succeeded
}

// A merchant's sandbox flows, recorded once with `openpay-refserver
// record`, kept as a test: Replay fails the test with a report of every
// answer the reference server gives differently.
func ExampleReplay() {
	var t *testing.T // in a test: func TestSandboxFlows(t *testing.T) { ... }
	openpaytest.Replay(t, "testdata/flows.jsonl", openpaytest.ReplayAllowlist("testdata/allow.txt"))
}
