package journal

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/openpay-go/openpay/journal/journaltest"
	"github.com/openpay-go/openpay/openpaytest"
)

// benchEngines are the engines a benchmark runs on: SQLite, and
// PostgreSQL when OPENPAY_TEST_DATABASE_URL is set.
func benchEngines(b *testing.B) []Dialect {
	if os.Getenv(journaltest.DatabaseURLEnv) == "" {
		b.Logf("PostgreSQL benchmarks skipped: %s is not set", journaltest.DatabaseURLEnv)
		return []Dialect{SQLite}
	}
	return []Dialect{SQLite, PostgreSQL}
}

// BenchmarkCharge compares a card charge through the journal (claim, send,
// record) with the same charge through the SDK alone, against an
// in-process reference server, in one run: the difference is the cost of
// the journal's two statements.
func BenchmarkCharge(b *testing.B) {
	srv := openpaytest.NewServer(b, openpaytest.WithMerchant(testMerchant, testPrivate, testPublic))
	c := newClient(b, srv.URL)
	p := newPayer(b, c)
	ctx := context.Background()
	// Each run takes order ids of its own (b.Run may run a function again).
	run := func() string { return strconv.FormatInt(time.Now().UnixNano(), 36) + "-" }
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		prefix := "sdk-" + run()
		for i := 0; b.Loop(); i++ {
			if _, err := c.Customer(p.customer).Charges.Create(ctx, p.charge(prefix+strconv.Itoa(i), "10.00").Request); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, d := range benchEngines(b) {
		b.Run("journal-"+string(d), func(b *testing.B) {
			e := newEngine(b, d)
			j, err := Open(ctx, e.open(b), c, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			prefix := string(d) + "-" + run()
			for i := 0; b.Loop(); i++ {
				if _, err := j.Charge(ctx, p.charge(prefix+strconv.Itoa(i), "10.00")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWorkerDrain measures how fast workers settle 10,000 attempts
// left pending past the settle window (their processes died after the
// claim): each is looked up, found missing and sent again with its
// order_id. Run it with -benchtime=1x; it reports attempts per second.
func BenchmarkWorkerDrain(b *testing.B) {
	const n = 10000
	srv := openpaytest.NewServer(b, openpaytest.WithMerchant(testMerchant, testPrivate, testPublic))
	c := newClient(b, srv.URL)
	p := newPayer(b, c)
	ctx := context.Background()
	for _, d := range benchEngines(b) {
		b.Run(string(d), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				e := newEngine(b, d)
				clk := &clock{}
				j, err := Open(ctx, e.open(b), c, Options{Now: clk.now})
				if err != nil {
					b.Fatal(err)
				}
				tx, err := j.db.BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				for i := range n {
					a, err := chargeAttempt(p.charge(string(d)+"-drain-"+strconv.Itoa(i)+"-"+strconv.FormatInt(time.Now().UnixNano(), 36), "10.00"))
					if err != nil {
						b.Fatal(err)
					}
					now := clk.now()
					if _, err := tx.ExecContext(ctx, `INSERT INTO openpay_attempts
					(charge_id, attempt_key, kind, variant, customer_id, amount, currency, source, request, client_ip, state, created_ms, updated_ms, next_ms)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $11, $12)`,
						a.ChargeID, a.OrderID, string(a.Kind), a.Variant, a.CustomerID, a.Amount.String(), string(a.Currency), a.Source,
						a.request, a.clientIP, ms(now), ms(now.Add(j.settle))); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				clk.advance(2 * time.Minute)
				w := &Worker{Journal: j, Batch: 64, Concurrency: 4}
				b.StartTimer()
				start := time.Now()
				taken, err := w.Drain(ctx)
				elapsed := time.Since(start)
				b.StopTimer()
				if err != nil || taken != n {
					b.Fatalf("drained %d, %v", taken, err)
				}
				if cnt, _ := j.Counts(ctx); cnt.Settled != n {
					b.Fatalf("counts %+v", cnt)
				}
				b.ReportMetric(float64(n)/elapsed.Seconds(), "attempts/s")
			}
		})
	}
}
