// Command shop charges orders through the journal and settles what is left
// open with the journal's worker, as a shop's checkout and its recovery
// job would.
//
// It keeps the journal in SQLite, in shop.db beside the binary, or in
// PostgreSQL when DATABASE_URL is set (postgres://user:pass@host/db). With
// no OPENPAY_MERCHANT_ID it starts a reference server in the process, so it
// runs with no setup:
//
//	go run ./examples/shop
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/journal"
	"github.com/openpay-go/openpay/openpaytest"
	_ "modernc.org/sqlite"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	db, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()

	client, stop, err := newClient()
	if err != nil {
		return err
	}
	defer stop()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	j, err := journal.Open(ctx, db, client, journal.Options{SettleAfter: time.Minute, Logger: logger})
	if err != nil {
		return err
	}

	// The recovery job: in production it runs in every process (or one
	// job) for as long as the program runs.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = (&journal.Worker{Journal: j}).Run(wctx) }()

	// A payer with a saved card.
	cust, err := client.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	if err != nil {
		return err
	}
	card, err := client.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana López",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
	if err != nil {
		return err
	}

	// The checkout: one order_id per payment attempt. Pressing "pay"
	// twice, or two processes taking the same order, charge once.
	order := fmt.Sprintf("order-%d", time.Now().UnixNano())
	charge := journal.Charge{CustomerID: cust.ID, ClientIP: "203.0.113.7", Request: openpay.CardCharge{
		SourceID: card.ID, Amount: openpay.MustAmount("250.00"), Description: "Order 42", OrderID: order,
		DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}}
	for range 2 {
		tx, err := j.Charge(ctx, charge)
		switch {
		case err == nil:
			fmt.Printf("order %s: charge %s %s\n", order, tx.ID, tx.Status)
		case errors.Is(err, journal.ErrInProgress), errors.Is(err, openpay.ErrOutcomeUnknown):
			fmt.Printf("order %s: in progress; the worker will settle it\n", order)
		default:
			fmt.Printf("order %s: not paid: %v\n", order, err)
		}
	}

	counts, err := j.Counts(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("journal (%s): %d settled, %d failed, %d pending, %d unknown\n",
		j.Dialect(), counts.Settled, counts.Failed, counts.Pending, counts.Unknown)
	return nil
}

// openDB opens PostgreSQL at DATABASE_URL, or SQLite in shop.db beside the
// binary.
func openDB() (*sql.DB, error) {
	if url := os.Getenv("DATABASE_URL"); url != "" {
		return sql.Open("pgx", url)
	}
	dir := "."
	if exe, err := os.Executable(); err == nil {
		dir = filepath.Dir(exe)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)")
	if err != nil {
		return nil, err
	}
	return db, nil
}

// newClient is a client of the merchant in OPENPAY_MERCHANT_ID and
// OPENPAY_PRIVATE_KEY (the sandbox), or of a reference server started here.
func newClient() (*openpay.Client, func(), error) {
	if id := os.Getenv("OPENPAY_MERCHANT_ID"); id != "" {
		c, err := openpay.New(id, os.Getenv("OPENPAY_PRIVATE_KEY"), openpay.WithSandbox())
		return c, func() {}, err
	}
	srv, err := openpaytest.Start()
	if err != nil {
		return nil, nil, err
	}
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
	return c, srv.Close, err
}
