package openpay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// Every example runs against a reference server started in the process
// (deterministic ids and clock), so its output is checked by go test. Against
// the gateway, build the client with openpay.New(merchantID, privateKey) and
// nothing else: the Mexican sandbox is the default.

// exampleServer starts a reference server with deterministic ids and
// clock, the examples' stand-in for the gateway. Each example builds its
// client with openpay.New from the server's merchant id and key, as a
// program does with its own.
func exampleServer(opts ...openpaytest.Option) *openpaytest.Server {
	srv, err := openpaytest.Start(append([]openpaytest.Option{openpaytest.Deterministic()}, opts...)...)
	if err != nil {
		panic(err)
	}
	return srv
}

// exampleCard is a sandbox test card that is always approved.
func exampleCard() openpay.CardDetails {
	return openpay.CardDetails{HolderName: "Juan Pérez", CardNumber: openpaytest.CardVisa, CVV2: "123",
		ExpirationMonth: "12", ExpirationYear: "40"}
}

func ExampleNew() {
	c, err := openpay.New("mzdtln0bmtms6o3kck8f", "sk_e568c42a6c384b7ab02cd47d2e407cab",
		openpay.WithCountry(openpay.CountryColombia), // the Colombian sandbox
		openpay.WithUserAgent("shop/2.1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%T\n", c)

	// Inputs are checked before anything is sent.
	_, err = openpay.New("", "sk_x")
	fmt.Println(err != nil)
	// Output:
	// *openpay.Client
	// true
}

func ExampleChargesService_Create() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{
		Card:        exampleCard(),
		Amount:      openpay.MustAmount("250.00"),
		Description: "Order 42",
		OrderID:     "order-42",      // a retried call can never charge twice
		ClientIP:    "198.51.100.23", // the payer's address, which every charge carries
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ch.Status, ch.Amount, ch.Currency, ch.Card.CardNumber)
	// Output:
	// completed 250.00 MXN 411111XXXXXX1111
}

// A store charge gives the payer a reference to pay in cash; the reference
// server's PayCharge plays the payer.
func ExampleStoreCharge() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	ch, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("150"), Description: "Order 43"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ch.Status, ch.PaymentMethod.Type, ch.PaymentMethod.Reference != "")

	if _, err := srv.PayCharge(ch.ID); err != nil {
		fmt.Println(err)
		return
	}
	ch, _ = c.Charges.Get(ctx, ch.ID)
	fmt.Println(ch.Status)
	// Output:
	// in_progress store true
	// completed
}

func ExampleChargesService_Refund() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: exampleCard(), Amount: openpay.MustAmount("300"), Description: "Two items"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ch, err = c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("100"), Description: "one item returned"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ch.Status, ch.Refund.Amount)

	// More than what is left is refused.
	_, err = c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("250")})
	fmt.Println(err != nil)
	// Output:
	// refunded 100.00
	// true
}

// A pre-authorization holds the amount; Capture takes all or part of it.
func ExampleChargesService_Capture() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: exampleCard(), Amount: openpay.MustAmount("500"),
		Description: "Hotel deposit", Capture: openpay.Ptr(false)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ch.Status)
	ch, err = c.Charges.Capture(ctx, ch.ID, openpay.CaptureRequest{Amount: openpay.MustAmount("420.50")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ch.Status, ch.Amount)
	// Output:
	// in_progress
	// completed 420.50
}

// Lists are lazy iterators: nothing is fetched until the loop runs, and
// pages are fetched as the loop goes.
func ExampleChargesService_List() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	for _, amount := range []string{"10", "20", "30"} {
		if _, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: exampleCard(), Amount: openpay.MustAmount(amount), Description: "Item"}); err != nil {
			fmt.Println(err)
			return
		}
	}
	params := &openpay.TransactionListParams{AmountGte: openpay.MustAmount("15")}
	for ch, err := range c.Charges.List(ctx, params) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ch.Amount) // newest first
	}
	// Output:
	// 30.00
	// 20.00
}

// Every refusal from the gateway is an *openpay.Error, matched with
// errors.Is against a constant per documented code or a category.
func ExampleError() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}

	card := exampleCard()
	card.CardNumber = openpaytest.EmulatorCardDeclined
	_, err = c.Charges.Create(context.Background(), openpay.InlineCardCharge{Card: card, Amount: openpay.MustAmount("100"), Description: "Declined"})

	fmt.Println(errors.Is(err, openpay.ErrCardDeclined), errors.Is(err, openpay.CategoryGateway))
	var oe *openpay.Error
	if errors.As(err, &oe) {
		fmt.Println(oe.HTTPStatus, int(oe.Code), oe.Category)
	}
	// Output:
	// true true
	// 402 3001 gateway
}

// Services of one customer hang off c.Customer(id).
func ExampleClient_Customer() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	cust, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := exampleCard()
	card, err := c.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: d})
	if err != nil {
		fmt.Println(err)
		return
	}
	ch, err := c.Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("99.90"), Description: "Subscription box"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(card.Brand, card.CardNumber)
	fmt.Println(ch.Status, ch.Amount, ch.CustomerID == cust.ID)
	// Output:
	// visa 411111XXXXXX1111
	// completed 99.90 true
}

// Customers created with RequiresAccount hold a balance: transfers move
// money between two of them, fees take the merchant's commission, payouts
// send it to a bank account.
func ExampleTransfersService_Create() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	buyer, _ := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Pablo", Email: "pablo@example.com", RequiresAccount: true})
	seller, _ := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Marta", Email: "marta@example.com", RequiresAccount: true})
	if _, err := srv.ReceiveSPEI(buyer.ID, openpay.MustAmount("1000")); err != nil { // a bank transfer arrives
		fmt.Println(err)
		return
	}

	tr, err := c.Customer(buyer.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: seller.ID,
		Amount: openpay.MustAmount("400"), Description: "Order 3001", OrderID: "transfer-3001"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fee, err := c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: seller.ID, Amount: openpay.MustAmount("20"), Description: "Commission"})
	if err != nil {
		fmt.Println(err)
		return
	}
	payout, err := c.Customer(seller.ID).Payouts.Create(ctx, openpay.InlineBankAccountPayout{
		BankAccount: openpay.BankAccountRequest{HolderName: "Marta Ruiz", CLABE: "012680012426485980"},
		Amount:      openpay.MustAmount("300"), Description: "Withdrawal"})
	if err != nil {
		fmt.Println(err)
		return
	}
	seller, _ = c.Customers.Get(ctx, seller.ID)
	fmt.Println(tr.Status, fee.Status, payout.Status, seller.Balance)
	// Output:
	// completed completed in_progress 80.00
}

// WebhookHandler serves the webhook URL. Here the gateway is the reference
// server, which delivers the verification event when the webhook is
// created and then the events it subscribed to, as the gateway does.
func ExampleWebhookHandler() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	paid := make(chan string, 10)
	handle := func(ctx context.Context, ev *openpay.WebhookEvent) error {
		if ev.Transaction == nil {
			// The verification event has no transaction: answering it
			// (nil, so 200) is what verifies the webhook.
			return nil
		}
		switch ev.Type {
		case openpay.EventTypeChargeSucceeded:
			// Nothing signs the body: read the charge from the API.
			ch, err := c.Charges.Get(ctx, ev.Transaction.ID)
			if err != nil {
				return err // a non-nil error makes the gateway deliver again later
			}
			if ch.Status == openpay.TransactionStatusCompleted {
				paid <- ch.Description // mark the order paid
			}
		}
		return nil // also for types you do not handle: the gateway adds new ones
	}
	// The gateway repeats deliveries: Deduplicate processes each event once.
	// A MemoryEventStore serves one process; give several a shared store.
	h, err := openpay.WebhookHandler("hook-user", "hook-secret",
		openpay.Deduplicate(openpay.NewMemoryEventStore(10000), handle))
	if err != nil {
		fmt.Println(err)
		return
	}
	hook := httptest.NewServer(h) // stands for https://shop.example/openpay/events
	defer hook.Close()

	wh, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: hook.URL, User: "hook-user", Password: "hook-secret",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(wh.Status)

	if _, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: exampleCard(), Amount: openpay.MustAmount("99"),
		Description: "Order 44"}); err != nil {
		fmt.Println(err)
		return
	}
	// The reference server delivers the event before this returns (a
	// test's way to wait for webhooks; the gateway delivers when it does).
	if err := srv.WaitForDeliveries(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("paid:", <-paid)

	// A request without the webhook's credentials is refused.
	res, err := http.Post(hook.URL, "application/json", strings.NewReader(`{"type":"charge.succeeded"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Body.Close()
	fmt.Println(res.StatusCode)
	// Output:
	// verified
	// paid: Order 44
	// 401
}

// Deduplicate lets each event through once; an event whose processing
// failed comes through again with the gateway's next delivery.
func ExampleDeduplicate() {
	ctx := context.Background()
	failFirst := true
	process := openpay.Deduplicate(openpay.NewMemoryEventStore(10000), func(ctx context.Context, ev *openpay.WebhookEvent) error {
		if failFirst {
			failFirst = false
			fmt.Println("processing", ev.Transaction.ID, "failed")
			return errors.New("database down")
		}
		fmt.Println("processed", ev.Transaction.ID)
		return nil
	})
	ev := &openpay.WebhookEvent{Type: openpay.EventTypeChargeSucceeded,
		EventDate:   time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		Transaction: &openpay.Transaction{ID: "trzjaozcik8msyqshka4"}}
	for range 3 { // three deliveries of one event
		_ = process(ctx, ev)
	}
	// Output:
	// processing trzjaozcik8msyqshka4 failed
	// processed trzjaozcik8msyqshka4
}

// ClientIP finds the payer's address for a charge: behind load balancers,
// trust their addresses and nobody else's.
func ExampleClientIP() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	balancers := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}

	// What a checkout handler receives through a balancer: the payer wrote
	// the first X-Forwarded-For entry, the balancer the last.
	r := httptest.NewRequest(http.MethodPost, "/checkout", nil)
	r.RemoteAddr = "10.0.3.7:41522"
	r.Header.Set("X-Forwarded-For", "192.0.2.1, 203.0.113.50")
	ip, err := openpay.ClientIP(r, balancers...)
	fmt.Println(ip, err)

	// The same headers straight from the internet prove nothing.
	r.RemoteAddr = "198.51.100.23:52814"
	ip, _ = openpay.ClientIP(r, balancers...)
	fmt.Println(ip)

	// In the handler, the charge carries the address found.
	r.RemoteAddr = "10.0.3.7:41522"
	ip, err = openpay.ClientIP(r, balancers...)
	if err != nil {
		fmt.Println(err)
		return
	}
	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: exampleCard(), Amount: openpay.MustAmount("20"),
		Description: "Order 45", ClientIP: ip})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ch.Status)
	// Output:
	// 203.0.113.50 <nil>
	// 198.51.100.23
	// completed
}

func ExampleMustAmount() {
	a := openpay.MustAmount("250.5")
	fmt.Println(a)

	_, err := openpay.NewAmount("1.005") // never rounded
	fmt.Println(errors.Is(err, openpay.ErrAmountPrecision))
	// Output:
	// 250.50
	// true
}

// One switch tells an unknown outcome, the payer's problem, a passing
// failure and a fault apart.
func ExampleClassOf() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	card := exampleCard()
	card.CardNumber = openpaytest.CardInsufficientFunds
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Card: card, Amount: openpay.MustAmount("99.00"), Description: "Order 7"})
	switch openpay.ClassOf(err) {
	case openpay.ClassUnknown:
		fmt.Println("settle first: re-send the same request, same order_id")
	case openpay.ClassDeclined:
		fmt.Println("tell the payer:", errors.Is(err, openpay.ErrCardInsufficientFunds))
	case openpay.ClassTemporary:
		fmt.Println("nothing was done: try again later")
	case openpay.ClassFault:
		fmt.Println("fix the request:", err)
	}
	// Output:
	// tell the payer: true
}

func ExampleWithResponseInfo() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL),               // leave out against the gateway
		openpay.WithDefaultClientIP("203.0.113.7")) // the payer's address on every charge
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	var info openpay.ResponseInfo
	_, err = c.Charges.Get(ctx, "trnotthere0000000001", openpay.WithResponseInfo(&info))
	fmt.Println(errors.Is(err, openpay.ErrNotFound), info.HTTPStatus, info.Attempts, info.RequestID != "")
	// Output:
	// true 404 1 true
}
