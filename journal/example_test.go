package journal_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/journal"
	"github.com/openpay-go/openpay/openpaytest"
	_ "modernc.org/sqlite"
)

// A charge through the journal: claimed, sent, recorded. The same charge
// again (a double click, a second process) joins it and charges nothing.
func ExampleJournal_Charge() {
	ctx := context.Background()
	srv, _ := openpaytest.Start()
	defer srv.Close()
	client, _ := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.7"))

	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)")
	defer db.Close()
	j, err := journal.Open(ctx, db, client, journal.Options{})
	if err != nil {
		log.Fatal(err)
	}

	cust, _ := client.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	card, _ := client.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana López",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
	charge := journal.Charge{CustomerID: cust.ID, Request: openpay.CardCharge{SourceID: card.ID,
		Amount: openpay.MustAmount("250.00"), Description: "Order 42", OrderID: "order-42"}}

	first, err := j.Charge(ctx, charge)
	if err != nil {
		log.Fatal(err)
	}
	again, err := j.Charge(ctx, charge)
	if err != nil {
		log.Fatal(err)
	}
	a, _ := j.Attempt(ctx, "order-42")
	fmt.Println(first.Status, again.ID == first.ID, a.State)

	// The same order_id with another amount is refused before sending.
	charge.Request = openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("300.00"), Description: "Order 42", OrderID: "order-42"}
	_, err = j.Charge(ctx, charge)
	var conflict *journal.TermsConflictError
	fmt.Println(errors.As(err, &conflict), conflict.Differs)
	// Output:
	// completed true made
	// true amount
}

// The recovery job: a worker settles, with the same order_id, what a dead
// process or a lost answer left open. Run it in every process (or in one
// job) with the program's lifetime; Drain is the one-shot form for cron.
func ExampleWorker() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, _ := openpaytest.Start()
	defer srv.Close()
	client, _ := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)")
	defer db.Close()
	j, err := journal.Open(ctx, db, client, journal.Options{})
	if err != nil {
		log.Fatal(err)
	}

	w := &journal.Worker{Journal: j}
	go func() { _ = w.Run(ctx) }()

	counts, _ := j.Counts(ctx)
	fmt.Printf("%+v\n", counts)
	// Output:
	// {Pending:0 Unknown:0 Settled:0 Failed:0}
}

// Webhook deduplication for a fleet: each event is handled once, whichever
// process it reaches.
func ExampleEventStore_Handler() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)")
	defer db.Close()
	client, _ := openpay.New("mzdtln0bmtms6o3kck8f", "sk_e568c42a6c384b7ab02cd47d2e407cab", openpay.WithSandbox())
	j, err := journal.Open(ctx, db, client, journal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	handled := 0
	handle := j.Events().Handler(func(ctx context.Context, ev *openpay.WebhookEvent) error {
		handled++ // mark the order paid, in the same database
		return nil
	})
	h, err := openpay.WebhookHandler("hook-user", "hook-password", handle)
	if err != nil {
		log.Fatal(err)
	}
	_ = h // http.Handle("/openpay/webhook", h)

	var ev openpay.WebhookEvent
	_ = ev.UnmarshalJSON([]byte(`{"type":"charge.succeeded","event_date":"2026-11-20T10:00:00-06:00","transaction":{"id":"tr1","amount":10,"method":"card"}}`))
	for range 3 { // the gateway delivered it three times
		_ = handle(ctx, &ev)
	}
	fmt.Println("handled", handled)
	// Output:
	// handled 1
}
