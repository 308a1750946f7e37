package journal

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/journal/journaltest"
	_ "modernc.org/sqlite"
)

// The test database: PostgreSQL at OPENPAY_TEST_DATABASE_URL, SQLite in a
// temporary file. Each test gets a schema (PostgreSQL) or a file (SQLite)
// of its own (package journaltest).

// engine is one database a test runs on.
type engine struct {
	dialect Dialect
	driver  string
	dsn     string // what a child process opens
}

// forEach runs f as a subtest on each engine: SQLite, and PostgreSQL,
// which newEngine skips, saying how to run it, when
// OPENPAY_TEST_DATABASE_URL is not set (and fails under CI=true).
func forEach(t *testing.T, f func(t *testing.T, e engine)) {
	t.Helper()
	for _, d := range []Dialect{SQLite, PostgreSQL} {
		t.Run(string(d), func(t *testing.T) {
			f(t, newEngine(t, d))
		})
	}
}

// newEngine makes an empty database of dialect d for t (journaltest's).
func newEngine(t testing.TB, d Dialect) engine {
	t.Helper()
	db := journaltest.SQLite
	if d == PostgreSQL {
		db = journaltest.PostgreSQL
	}
	got := db(t)
	return engine{dialect: d, driver: got.Driver, dsn: got.DSN}
}

// open opens e's database.
func (e engine) open(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open(e.driver, e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	if e.dialect == SQLite {
		db.SetMaxOpenConns(4)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// The merchant of the reference server processes (any values of the
// gateway's forms).
const (
	testMerchant = "mzdtln0bmtms6o3kck8f"
	testPrivate  = "sk_e568c42a6c384b7ab02cd47d2e407cab"
	testPublic   = "pk_f934b51ab97e4d1c9bdc0a8d4b2d3c7e"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// refserverBinary builds cmd/openpay-refserver of this checkout once.
func refserverBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "journal-refserver")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "openpay-refserver")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/openpay-refserver")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building the reference server: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// gateway is a reference server running as its own process.
type gateway struct {
	URL string
	cmd *exec.Cmd
}

// startGateway starts the reference server as a process on a free port.
func startGateway(t testing.TB) *gateway {
	t.Helper()
	cmd := exec.Command(refserverBinary(t), "--addr", "127.0.0.1:0", "--merchant-id", testMerchant,
		"--private-key", testPrivate, "--public-key", testPublic)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the reference server printed no URL: %v\n%s", err, stderr.String())
	}
	return &gateway{URL: strings.TrimSpace(line), cmd: cmd}
}

// client returns an SDK client of the gateway's merchant.
func newClient(t testing.TB, base string, opts ...openpay.Option) *openpay.Client {
	t.Helper()
	opts = append([]openpay.Option{openpay.WithBaseURL(base), openpay.WithDefaultClientIP("203.0.113.7"), openpay.WithRetryPolicy(fastRetries)}, opts...)
	c, err := openpay.New(testMerchant, testPrivate, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fastRetries is the SDK's retry policy with short waits, for tests.
var fastRetries = openpay.RetryPolicy{MaxRetries: 2, WaitMin: 5 * time.Millisecond, WaitMax: 50 * time.Millisecond}

// control calls a simulation control of the gateway process.
func (g *gateway) control(t testing.TB, method, path string, body any) []byte {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, g.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(testPrivate, "")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, buf.String())
	}
	return buf.Bytes()
}

// fault arms a fault on the gateway process.
func (g *gateway) fault(t testing.TB, f map[string]any) {
	t.Helper()
	g.control(t, http.MethodPost, "/_simulate/faults", f)
}

// faultsLeft returns the sum of the counts the armed faults still take.
func (g *gateway) faultsLeft(t testing.TB) int {
	var fs []struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(g.control(t, http.MethodGet, "/_simulate/faults", nil), &fs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fs {
		n += f.Count
	}
	return n
}

// payer is a customer with a saved card whose charges succeed.
type payer struct{ customer, card string }

func newPayer(t testing.TB, c *openpay.Client) payer {
	t.Helper()
	ctx := context.Background()
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	card, err := c.Customer(cu.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana López",
		CardNumber: "4111111111111111", CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
	if err != nil {
		t.Fatal(err)
	}
	return payer{customer: cu.ID, card: card.ID}
}

// charge is the journaled charge of order at amount.
func (p payer) charge(order, amount string) Charge {
	return Charge{CustomerID: p.customer, Request: openpay.CardCharge{SourceID: p.card, Amount: openpay.MustAmount(amount),
		Description: "order " + order, OrderID: order, DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}}
}

// chargesOf returns every charge of the merchant, by order_id.
func chargesOf(t testing.TB, c *openpay.Client) map[string][]openpay.Transaction {
	t.Helper()
	out := map[string][]openpay.Transaction{}
	for tx, err := range c.Charges.List(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tx.OrderID] = append(out[tx.OrderID], *tx)
	}
	return out
}

// balance is the merchant's balance at the gateway.
func balance(t testing.TB, c *openpay.Client) openpay.Amount {
	t.Helper()
	m, err := c.Merchant.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m.Balance
}

// waitFor polls cond until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(d)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("waited %v for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
