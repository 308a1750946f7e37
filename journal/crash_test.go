package journal

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
)

// The crash tests run the journal in a child process (this test binary,
// run again with JOURNAL_CHILD set), against the reference server running
// as a process of its own, and kill the child with SIGKILL at a chosen
// step. Another process then settles what the child left.

// TestMain runs a child's part when the binary is one.
func TestMain(m *testing.M) {
	if role := os.Getenv("JOURNAL_CHILD"); role != "" {
		if err := child(role); err != nil {
			fmt.Println("ERROR", err)
			os.Exit(3)
		}
		fmt.Println("DONE")
		os.Exit(0)
	}
	code := m.Run()
	if buildPath != "" {
		_ = os.RemoveAll(filepath.Dir(buildPath))
	}
	os.Exit(code)
}

// child is a child process's part; its settings come in the environment.
func child(role string) error {
	ctx := context.Background()
	env := func(k string) string { return os.Getenv("JOURNAL_" + k) }
	db, err := sql.Open(env("DRIVER"), env("DSN"))
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := openpay.New(testMerchant, testPrivate, openpay.WithBaseURL(env("GATEWAY")), openpay.WithDefaultClientIP("203.0.113.7"),
		openpay.WithRetryPolicy(fastRetries))
	if err != nil {
		return err
	}
	settleMS, _ := strconv.Atoi(env("SETTLE_MS"))
	j, err := Open(ctx, db, c, Options{SettleAfter: time.Duration(settleMS) * time.Millisecond})
	if err != nil {
		return err
	}
	stop := func() {
		fmt.Println("READY")
		select {} // wait for the SIGKILL
	}
	p := payer{customer: env("CUSTOMER"), card: env("CARD")}
	switch role {
	case "charge":
		switch env("STEP") {
		case "claim":
			j.afterClaim = stop
		case "send":
			j.afterSend = stop
		}
		_, err := j.Charge(ctx, p.charge(env("ORDER"), env("AMOUNT")))
		return err
	case "worker":
		fmt.Println("STARTED")
		w := &Worker{Journal: j, Lease: 500 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Poll: 20 * time.Millisecond}
		return w.Run(ctx)
	case "fleet":
		return fleetChild(ctx, j, p)
	case "webhook":
		return webhookChild(ctx, j, db)
	}
	return fmt.Errorf("unknown role %q", role)
}

// fleetChild charges the same orders as every other process of the fleet,
// in its own order, with a worker running beside it.
func fleetChild(ctx context.Context, j *Journal, p payer) error {
	n, _ := strconv.Atoi(os.Getenv("JOURNAL_ORDERS"))
	seed, _ := strconv.Atoi(os.Getenv("JOURNAL_SEED"))
	order := rand.New(rand.NewPCG(uint64(seed), 7)).Perm(n)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &Worker{Journal: j, Lease: 2 * time.Second, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Poll: 50 * time.Millisecond}
	go func() { _ = w.Run(wctx) }()
	for i, k := range order {
		_, err := j.Charge(ctx, p.charge(fleetOrder(k), crashAmount))
		var tc *TermsConflictError
		if err != nil && (errors.As(err, &tc) || strings.Contains(err.Error(), "journal: claiming")) {
			return err
		}
		if i%50 == 0 {
			fmt.Println("PROGRESS", i)
		}
	}
	return nil
}

func fleetOrder(k int) string { return fmt.Sprintf("fleet-%04d", k) }

// proc is a child process.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
}

// startChild starts this test binary as a child with role and settings.
func startChild(t *testing.T, e engine, g *gateway, role string, settings map[string]string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "JOURNAL_CHILD="+role, "JOURNAL_DRIVER="+e.driver, "JOURNAL_DSN="+e.dsn,
		"JOURNAL_GATEWAY="+g.URL, "JOURNAL_SETTLE_MS=300")
	for k, v := range settings {
		cmd.Env = append(cmd.Env, "JOURNAL_"+k+"="+v)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 1000)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, out)
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return p
}

// await waits for a line starting with prefix; an ERROR line or the end of
// output fails the test.
func (p *proc) await(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("the child ended before %q", prefix)
			}
			if strings.HasPrefix(l, "ERROR") {
				t.Fatalf("child: %s", l)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("no %q from the child", prefix)
		}
	}
}

// kill ends the child with SIGKILL and waits for it.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
}

// crashEnv is a gateway process, a payer, and a journal of this process
// (the recovery side) on engine e.
type crashEnv struct {
	e    engine
	g    *gateway
	c    *openpay.Client
	j    *Journal
	p    payer
	unit openpay.Amount // what one charge of crashAmount adds to the balance
}

const crashAmount = "310.00"

func newCrashEnv(t *testing.T, e engine) *crashEnv {
	g := startGateway(t)
	c := newClient(t, g.URL)
	j, err := Open(context.Background(), e.open(t), c, Options{SettleAfter: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	v := &crashEnv{e: e, g: g, c: c, j: j, p: newPayer(t, c)}
	// What one charge adds to the balance, measured with a plain charge.
	before := balance(t, c)
	if _, err := c.Customer(v.p.customer).Charges.Create(context.Background(), v.p.charge("control", crashAmount).Request); err != nil {
		t.Fatal(err)
	}
	v.unit = balance(t, c).Sub(before)
	if !v.unit.IsPositive() {
		t.Fatalf("a charge added %s to the balance", v.unit)
	}
	return v
}

// recover settles the journal from this process until order is final, and
// checks the books: one charge with order at the gateway, the attempt made
// and naming it, the balance up by one charge since before.
func (v *crashEnv) recover(t *testing.T, order string, before openpay.Amount) {
	t.Helper()
	w := &Worker{Journal: v.j, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond}
	waitFor(t, 30*time.Second, "the attempt to settle", func() bool {
		if _, err := w.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		a, err := v.j.Attempt(context.Background(), order)
		return err == nil && a.State.Final()
	})
	txs := chargesOf(t, v.c)[order]
	if len(txs) != 1 {
		t.Fatalf("%d charges with order_id %s at the gateway, want 1", len(txs), order)
	}
	a, _ := v.j.Attempt(context.Background(), order)
	if a.State != StateMade || a.TransactionID != txs[0].ID || !a.Amount.Equal(txs[0].Amount) {
		t.Fatalf("attempt %s %s %s; the gateway's charge %s %s", a.State, a.TransactionID, a.Amount, txs[0].ID, txs[0].Amount)
	}
	if got := balance(t, v.c).Sub(before); !got.Equal(v.unit) {
		t.Fatalf("the balance moved by %s, one charge is %s", got, v.unit)
	}
	// The charge is final: a call with the same terms joins it.
	tx, err := v.j.Charge(context.Background(), v.p.charge(order, crashAmount))
	if err != nil || tx.ID != txs[0].ID {
		t.Fatalf("joining the settled attempt: %v, %v", tx, err)
	}
}

func (v *crashEnv) charger(t *testing.T, order, step string) *proc {
	return startChild(t, v.e, v.g, "charge", map[string]string{"CUSTOMER": v.p.customer, "CARD": v.p.card,
		"ORDER": order, "AMOUNT": crashAmount, "STEP": step})
}

func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("crash tests start processes; skipped with -short")
	}
	forEach(t, func(t *testing.T, e engine) {
		v := newCrashEnv(t, e)
		ctx := context.Background()

		t.Run("after the claim, before sending", func(t *testing.T) {
			before := balance(t, v.c)
			ch := v.charger(t, "crash-claim", "claim")
			ch.await(t, "READY")
			ch.kill(t)
			if a, err := v.j.Attempt(ctx, "crash-claim"); err != nil || a.State != StatePending {
				t.Fatalf("attempt %+v, %v", a, err)
			}
			if n := len(chargesOf(t, v.c)["crash-claim"]); n != 0 {
				t.Fatalf("%d charges before sending", n)
			}
			v.recover(t, "crash-claim", before)
		})

		t.Run("after the gateway acted, before the outcome was written", func(t *testing.T) {
			before := balance(t, v.c)
			ch := v.charger(t, "crash-send", "send")
			ch.await(t, "READY")
			ch.kill(t)
			if a, err := v.j.Attempt(ctx, "crash-send"); err != nil || a.State != StatePending {
				t.Fatalf("attempt %+v, %v", a, err)
			}
			if n := len(chargesOf(t, v.c)["crash-send"]); n != 1 {
				t.Fatalf("%d charges after sending", n)
			}
			v.recover(t, "crash-send", before)
		})

		t.Run("a worker killed during its lookup", func(t *testing.T) {
			before := balance(t, v.c)
			ch := v.charger(t, "crash-lookup", "send")
			ch.await(t, "READY")
			ch.kill(t)
			v.g.fault(t, map[string]any{"method": "GET", "path": "/v1/{merchant_id}/customers/{customer_id}/charges", "count": 1, "delay_ms": 5000})
			time.Sleep(350 * time.Millisecond) // past the settle window
			w := startChild(t, v.e, v.g, "worker", nil)
			w.await(t, "STARTED")
			waitFor(t, 30*time.Second, "the worker's lookup to reach the gateway", func() bool { return v.g.faultsLeft(t) == 0 })
			w.kill(t)
			if a, err := v.j.Attempt(ctx, "crash-lookup"); err != nil || a.State.Final() {
				t.Fatalf("attempt %+v, %v", a, err)
			}
			v.recover(t, "crash-lookup", before)
		})
	})
}
