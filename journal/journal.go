// Package journal makes the money-moving calls of the openpay SDK safe
// across crashes and across a fleet of processes, by keeping a journal of
// them in the merchant's own database.
//
// Before a charge, payout, transfer, fee or refund is sent, the journal
// claims the attempt in one statement, keyed by its order_id (for a refund,
// by the charge and an attempt key the merchant chooses), with the terms
// that make a re-send exact: kind, amount, currency, source and customer.
// After the call it records the outcome: made, declined, refused (nothing
// made) or unknown. A process that dies between the two leaves the attempt
// pending; a [Worker], in any process of the fleet, settles it through the
// SDK with the same order_id (a lookup, then an exact re-send only when the
// gateway shows nothing), so an order is never paid twice and never lost.
//
// The same database deduplicates webhook events for the whole fleet
// ([Journal.Events]).
//
// The engine is the merchant's *sql.DB: PostgreSQL through pgx's
// database/sql driver (github.com/jackc/pgx/v5/stdlib) for fleets, or
// SQLite through modernc.org/sqlite for one process. [Open] creates and
// upgrades the tables (versioned migrations embedded in the package).
package journal

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Dialect names the SQL engine behind the *sql.DB.
type Dialect string

// The engines the journal runs on.
const (
	// PostgreSQL, through github.com/jackc/pgx/v5/stdlib (driver "pgx").
	PostgreSQL Dialect = "postgres"
	// SQLite, through modernc.org/sqlite (driver "sqlite").
	SQLite Dialect = "sqlite"
)

// Options tune a [Journal]. The zero value is ready for use.
type Options struct {
	// Dialect is the engine; empty means the one the driver of the *sql.DB
	// names (pgx or sqlite).
	Dialect Dialect
	// SettleAfter is how long after its claim an attempt may still be in
	// the hands of the process that claimed it: a worker looks up a pending
	// attempt, and re-sends one the gateway shows nothing of, only after
	// it. Zero means one minute. Choose it longer than the longest call the
	// SDK may make (its timeout times its tries).
	SettleAfter time.Duration
	// Logger receives a record for each attempt settled by a worker and
	// each outcome left unknown. Nil means the client's (the one given
	// with [openpay.WithLogger], see [openpay.Client.Logger]), so the
	// SDK's records and the journal's go to one logger; a client without
	// one discards them. No card data is logged: only kinds, order ids,
	// amounts, states and transaction ids.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now. Tests move it.
	Now func() time.Time
}

// Journal records the money-moving calls of one openpay client in a
// database. It is safe for concurrent use, by any number of processes
// sharing the database.
type Journal struct {
	db      *sql.DB
	client  *openpay.Client
	dialect Dialect
	settle  time.Duration
	log     *slog.Logger
	now     func() time.Time

	// Test hooks, set only by the package's crash tests: after the claim
	// (before the call is sent), and after the call answered (before the
	// outcome is written).
	afterClaim, afterSend func()
}

// Open returns a journal for client's calls, kept in db, after creating or
// upgrading its tables. Several processes may open the same database at
// once: the migrations run once.
func Open(ctx context.Context, db *sql.DB, client *openpay.Client, opts Options) (*Journal, error) {
	if db == nil || client == nil {
		return nil, errors.New("journal: Open needs a database and a client")
	}
	j := &Journal{db: db, client: client, dialect: opts.Dialect, settle: opts.SettleAfter, log: opts.Logger, now: opts.Now}
	if j.dialect == "" {
		d, err := dialectOf(db)
		if err != nil {
			return nil, err
		}
		j.dialect = d
	}
	if j.settle <= 0 {
		j.settle = time.Minute
	}
	if j.log == nil {
		j.log = client.Logger()
	}
	if j.log == nil {
		j.log = slog.New(slog.DiscardHandler)
	}
	if j.now == nil {
		j.now = time.Now
	}
	if err := j.migrate(ctx); err != nil {
		return nil, err
	}
	return j, nil
}

// dialectOf tells the engine from the type of db's driver.
func dialectOf(db *sql.DB) (Dialect, error) {
	t := reflect.TypeOf(db.Driver())
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch name := strings.ToLower(t.PkgPath() + "." + t.Name()); {
	case strings.Contains(name, "pgx"), strings.Contains(name, "lib/pq"):
		return PostgreSQL, nil
	case strings.Contains(name, "sqlite"):
		return SQLite, nil
	default:
		return "", fmt.Errorf("journal: cannot tell the engine of driver %s; set Options.Dialect", name)
	}
}

// Dialect returns the engine the journal runs on.
func (j *Journal) Dialect() Dialect { return j.dialect }

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one versioned schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in version order. A file is
// named NNNN_what.sql; its statements end with a semicolon at the end of a
// line.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("journal: migration %s is not named NNNN_what.sql", base)
		}
		b, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].version < out[b].version })
	return out, nil
}

// statements splits a migration into its statements, dropping comments.
func statements(src string) []string {
	var out []string
	var cur strings.Builder
	for line := range strings.SplitSeq(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// migrate applies the migrations the database has not seen, each in a
// transaction with its version row. On PostgreSQL an advisory lock makes
// processes that open the journal at once take turns; on SQLite the first
// write of the transaction does.
func (j *Journal) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if _, err := j.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS openpay_journal_schema (version BIGINT NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("journal: creating the schema table: %w", err)
	}
	var last error
	for range 5 {
		if last = j.migrateOnce(ctx, ms); last == nil {
			return nil
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond) // another process migrating (SQLite busy)
	}
	return fmt.Errorf("journal: migrating: %w", last)
}

func (j *Journal) migrateOnce(ctx context.Context, ms []migration) error {
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if j.dialect == PostgreSQL {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7316020511)`); err != nil {
			return err
		}
	} else if _, err := tx.ExecContext(ctx, `UPDATE openpay_journal_schema SET applied_ms = applied_ms WHERE version < 0`); err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := tx.QueryContext(ctx, `SELECT version FROM openpay_journal_schema`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		for _, stmt := range statements(m.sql) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO openpay_journal_schema (version, name, applied_ms) VALUES ($1, $2, $3)`,
			m.version, m.name, j.now().UnixMilli()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SchemaVersion returns the newest migration applied to the database.
func (j *Journal) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	err := j.db.QueryRowContext(ctx, `SELECT MAX(version) FROM openpay_journal_schema`).Scan(&v)
	return int(v.Int64), err
}

// ms is t in milliseconds since 1970.
func ms(t time.Time) int64 { return t.UnixMilli() }
