// Package journaltest gives each test an empty database for the journal,
// on either engine: a SQLite file of its own, or a PostgreSQL schema of
// its own in the database at OPENPAY_TEST_DATABASE_URL. The journal's tests
// use it, and so can a merchant's tests of code built on the journal.
//
// Without OPENPAY_TEST_DATABASE_URL the PostgreSQL tests skip, saying how
// to run them; with CI=true they fail instead, so a CI that can start
// PostgreSQL never skips them silently.
package journaltest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// DatabaseURLEnv names the environment variable holding the PostgreSQL
// database the tests may create schemas in
// (postgres://user:pass@host:port/db).
const DatabaseURLEnv = "OPENPAY_TEST_DATABASE_URL"

// Database is an empty database for one test: what sql.Open takes.
type Database struct {
	// Driver is "sqlite" (modernc.org/sqlite) or "pgx"
	// (github.com/jackc/pgx/v5/stdlib); the test imports the driver.
	Driver string
	// DSN opens the test's database; a child process may open it too.
	DSN string
}

// Open opens the database, closed when t ends.
func (d Database) Open(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open(d.Driver, d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// SQLite is a new SQLite file in t's temporary directory, opened in WAL
// mode with a busy timeout and immediate transactions (what several
// connections, or processes, writing at once need).
func SQLite(t testing.TB) Database {
	t.Helper()
	file := filepath.Join(t.TempDir(), "journal.db")
	return Database{Driver: "sqlite", DSN: "file:" + file + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(wal)&_txlock=immediate"}
}

// PostgreSQL is a new schema, dropped when t ends, in the database at
// OPENPAY_TEST_DATABASE_URL; its DSN sets search_path to it. Without the
// variable t skips (fails under CI=true).
func PostgreSQL(t testing.TB) Database {
	t.Helper()
	base := os.Getenv(DatabaseURLEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI runs the PostgreSQL tests (see .ci/run)", DatabaseURLEnv)
		}
		t.Skipf("PostgreSQL tests skipped: set %s (for example postgres://openpay:openpay@127.0.0.1:5432/openpay_test) to a database the tests may create schemas in; .ci/run shows how to start one", DatabaseURLEnv)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "journal_test_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("creating a schema in %s: %v", DatabaseURLEnv, err)
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
	return Database{Driver: "pgx", DSN: u.String()}
}
