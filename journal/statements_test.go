package journal

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/openpay-go/openpay/openpaytest"
	"modernc.org/sqlite"
)

// countingDriver is SQLite's driver with a count of the statements its
// connections run (database/sql runs every statement through ExecContext
// or QueryContext when a connection has them).
type countingDriver struct {
	inner      sqlite.Driver
	statements atomic.Int64
}

func (d *countingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, d: d}, nil
}

type countingConn struct {
	driver.Conn
	d *countingDriver
}

func (c *countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.d.statements.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.d.statements.Add(1)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

var (
	countingOnce sync.Once
	counting     = &countingDriver{}
)

// The happy path of a charge costs two statements (the claim and the
// outcome); a call that joins a made attempt costs two and sends nothing.
func TestHappyPathIsTwoStatements(t *testing.T) {
	countingOnce.Do(func() { sql.Register("sqlite-counting", counting) })
	db, err := sql.Open("sqlite-counting", "file:"+filepath.Join(t.TempDir(), "j.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := openpaytest.NewServer(t, openpaytest.WithMerchant(testMerchant, testPrivate, testPublic))
	c := newClient(t, srv.URL)
	p := newPayer(t, c)
	ctx := context.Background()
	j, err := Open(ctx, db, c, Options{Dialect: SQLite})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	before := counting.statements.Load()
	tx, err := j.Charge(ctx, p.charge("o-two", "12.00"))
	if err != nil {
		t.Fatal(err)
	}
	if n := counting.statements.Load() - before; n != 2 {
		t.Fatalf("a charge ran %d statements, want 2", n)
	}
	before = counting.statements.Load()
	again, err := j.Charge(ctx, p.charge("o-two", "12.00"))
	if err != nil || again.ID != tx.ID {
		t.Fatalf("joining: %v, %v", again, err)
	}
	if n := counting.statements.Load() - before; n != 2 {
		t.Fatalf("a joining call ran %d statements, want 2", n)
	}
	if got := len(chargesOf(t, c)["o-two"]); got != 1 {
		t.Fatalf("%d charges", got)
	}
}
