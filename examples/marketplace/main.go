// Command marketplace is the backend of a marketplace to copy: sellers are
// customers with their own balance; a buyer pays a seller's order by token
// into the seller's account; the platform's commission is a fee on the
// seller; sellers split revenue by transfers and are paid out to their
// CLABE; refunds give the commission back; every money movement goes
// through the journal (github.com/openpay-go/openpay/journal), so that a
// process that dies mid-payment and two processes taking the same order
// move the money once, and the journal's worker is the recovery job (it
// settles every movement left open with the same order_id, never a new
// one); a webhook receiver processes each event once across processes; a
// nightly report checks each seller's balance to the cent.
//
//	cd examples/marketplace && go run .
//
// It keeps its tables and the journal in SQLite, in marketplace.db beside
// the binary, or in PostgreSQL when DATABASE_URL is set
// (postgres://user:pass@host/db): run as many processes as you like on
// one PostgreSQL database. With no environment it runs against a reference
// server started in the program; with OPENPAY_MERCHANT_ID,
// OPENPAY_PRIVATE_KEY and OPENPAY_PUBLIC_KEY set it runs against the
// Openpay sandbox.
//
// It is a module of its own (go.mod beside this file), so that the SDK's
// module does not depend on the database drivers; copy the directory and
// drop the go.mod's replace lines.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, when DATABASE_URL is set
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
	_ "modernc.org/sqlite" // SQLite, the default
)

func main() { exampleenv.Main(run) }

func run(ctx context.Context, out io.Writer) error { return exampleenv.Run(ctx, out, flow) }

// openDB opens PostgreSQL at DATABASE_URL, or SQLite in marketplace.db
// beside the binary.
func openDB() (*sql.DB, string, error) {
	if url := os.Getenv("DATABASE_URL"); url != "" {
		db, err := sql.Open("pgx", url)
		return db, "PostgreSQL at DATABASE_URL", err
	}
	dir := "."
	if exe, err := os.Executable(); err == nil {
		dir = filepath.Dir(exe)
	}
	file := filepath.Join(dir, "marketplace.db")
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)")
	return db, "SQLite in " + file, err
}

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	db, where, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := Open(ctx, Config{Client: env.Client, DB: db, Prefix: fmt.Sprintf("mkt%d", time.Now().UnixNano()), CommissionPercent: 10,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "journal and books in", where)

	// The recovery job: the journal's worker, in every process for as long
	// as it runs.
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = m.Worker.Run(wctx) }()

	marta, err := m.AddSeller(ctx, "Marta", "marta@example.com")
	if err != nil {
		return fmt.Errorf("adding a seller: %w", err)
	}
	pablo, err := m.AddSeller(ctx, "Pablo", "pablo@example.com")
	if err != nil {
		return fmt.Errorf("adding a seller: %w", err)
	}

	// A buyer pays Marta's order of 400.00: 40.00 of it is the platform's.
	order, err := m.NewOrder(ctx, marta, openpay.MustAmount("400.00"))
	if err != nil {
		return err
	}
	tok, err := env.Public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Ana López", CardNumber: openpaytest.CardVisa,
		CVV2: "123", ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)})
	if err != nil {
		return fmt.Errorf("the buyer's token: %w", err)
	}
	if err := m.Pay(ctx, order, tok.ID, "device-session-1", env.PayerIP); err != nil {
		return fmt.Errorf("paying order %s: %w", order, err)
	}
	// Pressing "pay" again (or another process taking the order) pays nothing more.
	if err := m.Pay(ctx, order, tok.ID, "device-session-1", env.PayerIP); err != ErrAlreadyPaid {
		return fmt.Errorf("paying order %s again: %v", order, err)
	}
	o, _ := m.Order(ctx, order)
	fmt.Fprintf(out, "order %s paid: charge %s, commission %s\n", order, o.Charge, o.Commission)

	// Marta shares 100.00 with Pablo, then is paid out 200.00.
	if _, err := m.Split(ctx, marta, pablo, openpay.MustAmount("100.00"), "Pablo's share of "+order); err != nil {
		return fmt.Errorf("split: %w", err)
	}
	if _, err := m.Payout(ctx, marta, openpay.MustAmount("200.00"), "032180000118359719", "Marta"); err != nil {
		return fmt.Errorf("payout: %w", err)
	}
	// Whatever was left open, settled now by the journal's worker.
	if err := m.Recover(ctx); err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	report, err := m.Nightly(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, report)
	if !report.OK() {
		return fmt.Errorf("the books do not balance:\n%s", report)
	}
	counts, err := m.Journal().Counts(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "journal: %d settled, %d failed, %d open\n", counts.Settled, counts.Failed, counts.Pending+counts.Unknown)
	fmt.Fprintln(out, "the books balance")
	return nil
}
