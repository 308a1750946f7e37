package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
)

// The tests' databases: PostgreSQL at OPENPAY_TEST_DATABASE_URL (a schema
// of its own for each test), SQLite in a temporary file.
const databaseURLEnv = "OPENPAY_TEST_DATABASE_URL"

// engine is one database a test runs on; a child process opens the same.
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
	if name == "sqlite" {
		file := filepath.Join(t.TempDir(), "marketplace.db")
		return engine{name: name, driver: "sqlite", dsn: "file:" + file + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(wal)&_txlock=immediate"}
	}
	base := os.Getenv(databaseURLEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI runs the PostgreSQL tests (see .ci/run)", databaseURLEnv)
		}
		t.Skipf("PostgreSQL tests skipped: set %s (for example postgres://openpay:openpay@127.0.0.1:5432/openpay_test) to a database the tests may create schemas in", databaseURLEnv)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "marketplace_test_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("creating a schema in %s: %v", databaseURLEnv, err)
	}
	t.Cleanup(func() {
		if admin, err := sql.Open("pgx", base); err == nil {
			_, _ = admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
			admin.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return engine{name: name, driver: "pgx", dsn: u.String()}
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
