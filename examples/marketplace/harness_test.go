package main

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/journal/journaltest"
)

// engine is one database a test runs on (package journaltest's: a SQLite
// file, or a PostgreSQL schema of its own); a child process opens the same.
type engine struct {
	name   string // sqlite or postgres: newEngine(t, name) makes another
	driver string // sqlite or pgx
	dsn    string
}

// forEach runs f as a parallel subtest on SQLite and on PostgreSQL, which
// skips (saying how to run it) when OPENPAY_TEST_DATABASE_URL is not set,
// and fails instead under CI=true.
func forEach(t *testing.T, f func(t *testing.T, e engine)) {
	t.Helper()
	t.Parallel()
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, newEngine(t, name))
		})
	}
}

// newEngine makes an empty database for t.
func newEngine(t *testing.T, name string) engine {
	t.Helper()
	db := journaltest.SQLite
	if name == "postgres" {
		db = journaltest.PostgreSQL
	}
	got := db(t)
	return engine{name: name, driver: got.Driver, dsn: got.DSN}
}

// open opens e's database, closed when t ends.
func (e engine) open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := e.openDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (e engine) openDB() (*sql.DB, error) {
	db, err := sql.Open(e.driver, e.dsn)
	if err == nil && e.driver == "sqlite" {
		db.SetMaxOpenConns(4)
	}
	return db, err
}

// config is the marketplace's configuration in the tests (and their child
// processes): a short SettleAfter and back-off.
func config(c *openpay.Client, db *sql.DB, prefix string) Config {
	return Config{Client: c, DB: db, Prefix: prefix, CommissionPercent: 10, SettleAfter: settleAfter,
		MinBackoff: time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// openMarketplace opens the marketplace prefix on db.
func openMarketplace(t *testing.T, db *sql.DB, c *openpay.Client, prefix string) *Marketplace {
	t.Helper()
	m, err := Open(context.Background(), config(c, db, prefix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
