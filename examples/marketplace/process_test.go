package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/journal"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A child process is the test binary run again with childEnv set to its
// mode; the rest of its configuration is in the environment too. The
// reference server stays in the test's process, so the gateway's state
// outlives a child killed with SIGKILL.
const childEnv = "MARKETPLACE_TEST_CHILD"

// The child's modes.
const (
	// dieBeforeSend: pay an order, and die when the charge is about to be
	// sent (claimed in the journal, nothing sent).
	dieBeforeSend = "die-before-send"
	// dieAfterSend: pay an order, and die when the gateway's answer to the
	// charge arrives (the gateway acted; the outcome is not written).
	dieAfterSend = "die-after-send"
	// payAll: pay every order of the list, with the journal's worker
	// running, then recover until nothing is open.
	payAll = "pay-all"
)

// startChild starts a child process of mode against f's gateway and
// database; env adds to its environment.
func (f *fixture) startChild(t *testing.T, mode string, env ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, "MKT_DRIVER="+f.e.driver, "MKT_DSN="+f.e.dsn, "MKT_URL="+f.srv.URL,
		"MKT_MERCHANT="+f.srv.MerchantID, "MKT_PRIVATE="+f.srv.PrivateKey, "MKT_PUBLIC="+f.srv.PublicKey, "MKT_PREFIX=t")
	cmd.Env = append(cmd.Env, env...)
	out := new(strings.Builder)
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	return cmd, out
}

// child runs a child process's mode and returns its exit code.
func child(mode string) int {
	if err := runChild(mode); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

func runChild(mode string) error {
	ctx := context.Background()
	e := engine{driver: os.Getenv("MKT_DRIVER"), dsn: os.Getenv("MKT_DSN")}
	db, err := e.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	var hc *http.Client
	if mode == dieBeforeSend || mode == dieAfterSend {
		hc = &http.Client{Transport: dieAtCharge{before: mode == dieBeforeSend}}
	}
	opts := []openpay.Option{openpay.WithBaseURL(os.Getenv("MKT_URL")),
		openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond})}
	if hc != nil {
		opts = append(opts, openpay.WithHTTPClient(hc))
	}
	c, err := openpay.New(os.Getenv("MKT_MERCHANT"), os.Getenv("MKT_PRIVATE"), opts...)
	if err != nil {
		return err
	}
	m, err := Open(ctx, config(c, db, os.Getenv("MKT_PREFIX")))
	if err != nil {
		return err
	}
	switch mode {
	case dieBeforeSend, dieAfterSend:
		err := m.Pay(ctx, os.Getenv("MKT_ORDER"), os.Getenv("MKT_TOKEN"), "device-1", "203.0.113.7")
		return fmt.Errorf("the child was to die during the payment; it returned %v", err)
	case payAll:
		return payEveryOrder(ctx, m, strings.Split(os.Getenv("MKT_ORDERS"), ","))
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// dieAtCharge kills its process with SIGKILL at the charge's POST: before
// sending it, or once the gateway's answer arrives.
type dieAtCharge struct{ before bool }

func (d dieAtCharge) RoundTrip(r *http.Request) (*http.Response, error) {
	charge := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/charges")
	if charge && d.before {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	res, err := http.DefaultTransport.RoundTrip(r)
	if charge && err == nil {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return res, err
}

// payEveryOrder pays each order with a token of its own, the worker
// running meanwhile, then recovers until nothing is open. It prints how
// many payments found the order taken by the other process.
func payEveryOrder(ctx context.Context, m *Marketplace, orders []string) error {
	public, err := openpay.New(os.Getenv("MKT_MERCHANT"), os.Getenv("MKT_PUBLIC"), openpay.WithBaseURL(os.Getenv("MKT_URL")))
	if err != nil {
		return err
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = m.Worker.Run(wctx) }()
	taken := 0
	for _, id := range orders {
		tok, err := public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Ana López", CardNumber: openpaytest.CardVisa,
			CVV2: "123", ExpirationMonth: "12", ExpirationYear: "40"})
		if err != nil {
			return err
		}
		err = m.Pay(ctx, id, tok.ID, "device-1", "203.0.113.7")
		switch {
		case errors.Is(err, ErrAlreadyPaid), errors.Is(err, ErrPaymentInProgress):
			taken++
		case err != nil && openpay.ClassOf(err) != openpay.ClassUnknown:
			return fmt.Errorf("paying %s: %w", id, err)
		}
	}
	if err := recoverAll(m); err != nil {
		return err
	}
	fmt.Printf("taken by the other: %d\n", taken)
	return nil
}

// chargesByOrder counts the gateway's charges by order_id, and the
// completed charges by the order they pay (their description).
func (f *fixture) chargesByOrder(t *testing.T) (byOrderID map[string]int, completed map[string]int) {
	t.Helper()
	byOrderID, completed = map[string]int{}, map[string]int{}
	for ch, err := range f.c.Charges.List(context.Background(), nil) {
		require.NoError(t, err)
		byOrderID[ch.OrderID]++
		if ch.Status == openpay.TransactionStatusCompleted {
			completed[strings.TrimPrefix(ch.Description, "Order ")]++
		}
	}
	return byOrderID, completed
}

// The process paying an order dies with SIGKILL after the journal claimed
// the attempt: before sending the charge, or after the gateway acted and
// before the outcome is written. The journal's worker, in another process,
// finishes the order exactly once: one charge for the order_id, the
// attempt made and naming it, the commission taken once, the books
// balanced.
func TestProcessDiesMidPayment(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		f := newFixture(t, e)
		seller := f.seller(t, "a")
		ctx := context.Background()
		for _, mode := range []string{dieBeforeSend, dieAfterSend} {
			order, err := f.m.NewOrder(ctx, seller, openpay.MustAmount("300.00"))
			require.NoError(t, err)
			cmd, out := f.startChild(t, mode, "MKT_ORDER="+order, "MKT_TOKEN="+f.token(t, openpaytest.CardVisa))
			err = cmd.Wait()
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL, "%s: the child was to die by SIGKILL: %v\n%s", mode, err, out)

			attempt := order + "-pay1"
			op, found := f.m.Op(ctx, attempt)
			require.True(t, found, "%s: the movement is recorded before the claim", mode)
			require.Equal(t, journal.StatePending, op.State, "%s: claimed, its outcome never written", mode)
			byOrderID, _ := f.chargesByOrder(t)
			if mode == dieBeforeSend {
				require.Zero(t, byOrderID[attempt], "nothing was sent")
			} else {
				require.Equal(t, 1, byOrderID[attempt], "the gateway acted")
			}

			op = f.settled(t, attempt) // past SettleAfter, the worker settles it
			assert.Equal(t, journal.StateMade, op.State, mode)
			f.recover(t) // and the commission follows
			byOrderID, completed := f.chargesByOrder(t)
			assert.Equal(t, 1, byOrderID[attempt], "%s: one charge for the order_id", mode)
			assert.Equal(t, 1, completed[order], "%s: the order paid once", mode)
			ch, err := f.c.Customer(seller).Charges.GetByOrderID(ctx, attempt)
			require.NoError(t, err)
			assert.Equal(t, ch.ID, op.TxID, "%s: the attempt names the charge", mode)
			o, _ := f.m.Order(ctx, order)
			assert.Equal(t, attempt, o.Charge, mode)
			assert.NotEmpty(t, o.Commission, "%s: the commission follows", mode)
			assert.ErrorIs(t, f.m.Pay(ctx, order, f.token(t, openpaytest.CardVisa), "d", "203.0.113.7"), ErrAlreadyPaid, mode)
		}
		f.books(t)
		report, err := f.m.Nightly(ctx)
		require.NoError(t, err)
		assert.Equal(t, "60.00", report.Commissions.String(), "two commissions of 30.00")
	})
}

// Two marketplace processes on one database pay the same orders at once
// (each buyer's press of "pay" reaching both), with answers lost after the
// gateway acted and 5xx armed: every order is paid once and takes one
// commission, every movement is settled, the books balance. On SQLite the
// two processes share one file on one host.
func TestTwoProcessesPayTheSameOrdersOnce(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		f := newFixture(t, e)
		ctx := context.Background()
		sellers := []string{f.seller(t, "a"), f.seller(t, "b")}
		var orders []string
		for i := range 20 {
			id, err := f.m.NewOrder(ctx, sellers[i%2], openpay.AmountFromCents(int64(10000+100*i)))
			require.NoError(t, err)
			orders = append(orders, id)
		}
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: moneyPaths[0], ErrorCode: openpay.ErrServiceUnavailable, Acted: true, Count: 4}))
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: moneyPaths[0], Drop: openpaytest.DropAfter, Count: 4}))
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: moneyPaths[1], ErrorCode: openpay.ErrInternalServer, Count: 4}))

		var wg sync.WaitGroup
		outs := make([]string, 2)
		errs := make([]error, 2)
		for i := range 2 {
			cmd, out := f.startChild(t, payAll, "MKT_ORDERS="+strings.Join(orders, ","))
			wg.Go(func() {
				errs[i] = cmd.Wait()
				outs[i] = out.String()
			})
		}
		wg.Wait()
		for i := range 2 {
			require.NoError(t, errs[i], "process %d:\n%s", i, outs[i])
		}
		assert.True(t, strings.Contains(outs[0]+outs[1], "taken by the other: ") && !strings.Contains(outs[0]+outs[1], "taken by the other: 0\ntaken by the other: 0"),
			"the processes contended for the orders:\n%s%s", outs[0], outs[1])

		f.recover(t)
		byOrderID, completed := f.chargesByOrder(t)
		for _, id := range orders {
			assert.Equal(t, 1, completed[id], "order %s paid once", id)
			o, _ := f.m.Order(ctx, id)
			assert.NotEmpty(t, o.Charge, "order %s paid", id)
			assert.NotEmpty(t, o.Commission, "order %s's commission", id)
		}
		for id, n := range byOrderID {
			assert.Equal(t, 1, n, "order_id %s", id)
		}
		f.books(t)
	})
}
