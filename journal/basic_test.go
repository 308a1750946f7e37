package journal

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// clock is a test clock that starts at the wall clock and moves when told.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// env is a journal on an engine, in front of an in-process reference
// server.
type env struct {
	srv *openpaytest.Server
	c   *openpay.Client
	j   *Journal
	clk *clock
	p   payer
}

func newEnv(t *testing.T, e engine) *env {
	t.Helper()
	srv := openpaytest.NewServer(t, openpaytest.WithMerchant(testMerchant, testPrivate, testPublic))
	c := newClient(t, srv.URL)
	clk := &clock{}
	j, err := Open(context.Background(), e.open(t), c, Options{Now: clk.now, SettleAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, c: c, j: j, clk: clk, p: newPayer(t, c)}
}

func (v *env) attempt(t *testing.T, order string) Attempt {
	t.Helper()
	a, err := v.j.Attempt(context.Background(), order)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// oneCharge checks that the gateway holds exactly one charge with order and
// that the attempt is final, made, and names it.
func (v *env) oneCharge(t *testing.T, order string) openpay.Transaction {
	t.Helper()
	txs := chargesOf(t, v.c)[order]
	if len(txs) != 1 {
		t.Fatalf("order %s: %d charges at the gateway, want 1", order, len(txs))
	}
	a := v.attempt(t, order)
	if a.State != StateMade || a.TransactionID != txs[0].ID {
		t.Fatalf("order %s: attempt %s %q, the gateway's charge %s", order, a.State, a.TransactionID, txs[0].ID)
	}
	return txs[0]
}

func TestOpenMigrates(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		db := e.open(t)
		c := newClient(t, "http://127.0.0.1:1")
		for range 2 {
			j, err := Open(context.Background(), db, c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if j.Dialect() != e.dialect {
				t.Fatalf("dialect %s, want %s", j.Dialect(), e.dialect)
			}
			v, err := j.SchemaVersion(context.Background())
			if err != nil || v != 1 {
				t.Fatalf("schema version %d, %v", v, err)
			}
		}
	})
}

// A charge is claimed, made and recorded; the same charge again joins it
// (the same transaction, nothing sent); other terms under the same
// order_id are refused before sending.
func TestChargeJoinsAndRefusesOtherTerms(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		before := balance(t, v.c)
		tx, err := v.j.Charge(ctx, v.p.charge("o-1", "100.00"))
		if err != nil {
			t.Fatal(err)
		}
		again, err := v.j.Charge(ctx, v.p.charge("o-1", "100.00"))
		if err != nil || again.ID != tx.ID {
			t.Fatalf("joining: %v, %v (want %s)", again, err, tx.ID)
		}
		_, err = v.j.Charge(ctx, v.p.charge("o-1", "150.00"))
		var tc *TermsConflictError
		if !errors.As(err, &tc) || tc.Differs != "amount" {
			t.Fatalf("other amount: %v", err)
		}
		other := v.p.charge("o-1", "100.00")
		other.CustomerID = ""
		if _, err := v.j.Charge(ctx, other); !errors.As(err, &tc) || tc.Differs != "customer" {
			t.Fatalf("other customer: %v", err)
		}
		got := v.oneCharge(t, "o-1")
		if got.ID != tx.ID {
			t.Fatalf("charge %s, want %s", got.ID, tx.ID)
		}
		once := balance(t, v.c).Sub(before)
		if !once.IsPositive() {
			t.Fatalf("balance moved by %s", once)
		}
		c, err := v.j.Counts(ctx)
		if err != nil || c != (Counts{Settled: 1}) {
			t.Fatalf("counts %+v, %v", c, err)
		}
	})
}

// A decline is final and a joined call gets the decline; a refusal (a card
// that does not exist) is final with nothing made.
func TestDeclineAndRefusal(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		declining, err := v.c.Customer(v.p.customer).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana",
			CardNumber: openpaytest.CardInsufficientFunds, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
		if err != nil {
			t.Fatal(err)
		}
		ch := v.p.charge("o-declined", "80.00")
		r := ch.Request.(openpay.CardCharge)
		r.SourceID = declining.ID
		ch.Request = r
		if _, err := v.j.Charge(ctx, ch); !errors.Is(err, openpay.ErrCardInsufficientFunds) {
			t.Fatalf("declined card: %v", err)
		}
		if _, err := v.j.Charge(ctx, ch); !errors.Is(err, openpay.ErrCardInsufficientFunds) {
			t.Fatalf("joining the decline: %v", err)
		}
		if a := v.attempt(t, "o-declined"); a.State != StateDeclined || a.ErrorCode != openpay.ErrCardInsufficientFunds {
			t.Fatalf("attempt %+v", a)
		}
		r.SourceID = "knowherecard0000000x"
		r.OrderID = "o-refused"
		ch.Request = r
		if _, err := v.j.Charge(ctx, ch); err == nil {
			t.Fatal("a card that does not exist was charged")
		}
		if a := v.attempt(t, "o-refused"); a.State != StateRefused {
			t.Fatalf("attempt %+v", a)
		}
		if n := len(chargesOf(t, v.c)["o-refused"]); n != 0 {
			t.Fatalf("%d charges for a refused attempt", n)
		}
		if _, err := v.j.Charge(ctx, Charge{Request: openpay.CardCharge{SourceID: "x", CVV2: "123", Amount: openpay.MustAmount("1"), OrderID: "o-cvv"}}); !errors.Is(err, ErrCardData) {
			t.Fatalf("a CVV: %v", err)
		}
	})
}

// An answer lost after the gateway charged, with the SDK's lookup failing
// too, leaves the attempt unknown; the worker settles it to the charge the
// gateway made, without charging again.
func TestWorkerSettlesUnknown(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers/{customer_id}/charges", Drop: openpaytest.DropAfter, Count: 3})
		inject(t, v.srv, openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers/{customer_id}/charges", ErrorCode: openpay.ErrServiceUnavailable, Count: 3})
		if _, err := v.j.Charge(ctx, v.p.charge("o-lost", "120.00")); !errors.Is(err, openpay.ErrOutcomeUnknown) {
			t.Fatalf("want an unknown outcome, got %v", err)
		}
		if a := v.attempt(t, "o-lost"); a.State != StateUnknown {
			t.Fatalf("attempt %s", a.State)
		}
		if _, err := v.j.Charge(ctx, v.p.charge("o-lost", "120.00")); !errors.Is(err, ErrInProgress) {
			t.Fatalf("joining an unknown attempt: %v", err)
		}
		v.srv.ClearFaults()
		w := &Worker{Journal: v.j, MinBackoff: time.Millisecond}
		if n, err := w.Drain(ctx); err != nil || n != 1 {
			t.Fatalf("drain: %d, %v", n, err)
		}
		v.oneCharge(t, "o-lost")
		tx, err := v.j.Charge(ctx, v.p.charge("o-lost", "120.00"))
		if err != nil || tx.OrderID != "o-lost" {
			t.Fatalf("joining the settled attempt: %v, %v", tx, err)
		}
	})
}

// When the gateway made nothing, the worker sends the same request again
// with the same order_id, but only after the settle window.
func TestWorkerResendsAfterWindow(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers/{customer_id}/charges", Drop: openpaytest.DropBefore, Count: 3})
		inject(t, v.srv, openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers/{customer_id}/charges", ErrorCode: openpay.ErrServiceUnavailable, Count: 1})
		if _, err := v.j.Charge(ctx, v.p.charge("o-none", "90.00")); err == nil {
			t.Fatal("want an error")
		}
		w := &Worker{Journal: v.j, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}
		if _, err := w.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		if a := v.attempt(t, "o-none"); a.State.Final() {
			t.Fatalf("settled within the window: %+v", a)
		}
		if n := len(chargesOf(t, v.c)["o-none"]); n != 0 {
			t.Fatalf("re-sent within the window: %d charges", n)
		}
		v.clk.advance(2 * time.Minute)
		if _, err := w.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		v.oneCharge(t, "o-none")
	})
}

// While the gateway fails every lookup, the worker never writes a final
// state, and backs off.
func TestWorkerNeverFinalWithoutProof(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers/{customer_id}/charges", Drop: openpaytest.DropAfter, Count: 3})
		inject(t, v.srv, openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers/{customer_id}/charges", ErrorCode: openpay.ErrInternalServer, Count: 1000})
		_, _ = v.j.Charge(ctx, v.p.charge("o-down", "70.00"))
		v.clk.advance(2 * time.Minute)
		w := &Worker{Journal: v.j, MinBackoff: time.Hour, MaxBackoff: 2 * time.Hour}
		if n, err := w.Drain(ctx); err != nil || n != 1 {
			t.Fatalf("drain: %d, %v", n, err)
		}
		a := v.attempt(t, "o-down")
		if a.State != StateUnknown || a.Tries != 1 {
			t.Fatalf("attempt %+v", a)
		}
		if n, _ := w.Drain(ctx); n != 0 {
			t.Fatalf("taken again within the back-off: %d", n)
		}
		if c, _ := v.j.Counts(ctx); c.Unknown != 1 {
			t.Fatalf("counts %+v", c)
		}
		v.srv.ClearFaults()
		v.clk.advance(3 * time.Hour)
		if _, err := w.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		v.oneCharge(t, "o-down")
	})
}

func inject(t *testing.T, srv *openpaytest.Server, f openpaytest.Fault) {
	t.Helper()
	if err := srv.InjectFault(f); err != nil {
		t.Fatal(err)
	}
}

// A call the SDK refuses before sending (no payer IP) lets go of its key:
// the corrected call with the same order_id is made.
func TestNotSentLetsGoOfTheKey(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		noIP, err := openpay.New(testMerchant, testPrivate, openpay.WithBaseURL(v.srv.URL))
		if err != nil {
			t.Fatal(err)
		}
		j, err := Open(ctx, v.j.db, noIP, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Charge(ctx, v.p.charge("o-ip", "40.00")); !errors.Is(err, openpay.ErrClientIPRequired) {
			t.Fatalf("without an IP: %v", err)
		}
		if _, err := j.Attempt(ctx, "o-ip"); !errors.Is(err, sql.ErrNoRows) {
			t.Fatalf("the attempt not sent is kept: %v", err)
		}
		ch := v.p.charge("o-ip", "40.00")
		ch.ClientIP = "198.51.100.4"
		if _, err := j.Charge(ctx, ch); err != nil {
			t.Fatal(err)
		}
		v.oneCharge(t, "o-ip")
		// The address may be given in the charge request itself: it is
		// kept with the attempt (the recorded request has no member for it).
		ch = v.p.charge("o-ip-2", "41.00")
		req := ch.Request.(openpay.CardCharge)
		req.ClientIP = "198.51.100.5"
		ch.Request = req
		if _, err := j.Charge(ctx, ch); err != nil {
			t.Fatalf("with the request's own address: %v", err)
		}
		v.oneCharge(t, "o-ip-2")
	})
}
