package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/journal"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// The demo runs with no setup: SQLite beside the binary, a reference
// server in the process.
func TestMarketplaceDemo(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	text := exampleenv.Output(t, run)
	assert.Contains(t, text, "journal and books in SQLite")
	assert.Contains(t, text, "commissions 40.00")
	assert.Regexp(t, `journal: [1-9][0-9]* settled, 0 failed, 0 open`, text, "nothing left open")
	assert.Contains(t, text, "the books balance")
}

// The demo on PostgreSQL when DATABASE_URL is set.
func TestMarketplaceDemoOnPostgreSQL(t *testing.T) {
	e := newEngine(t, "postgres")
	t.Setenv("DATABASE_URL", e.dsn)
	text := exampleenv.Output(t, run)
	assert.Contains(t, text, "journal and books in PostgreSQL")
	assert.Contains(t, text, "the books balance")
}

// fixture is a marketplace against a reference server, on one engine.
type fixture struct {
	e      engine
	srv    *openpaytest.Server
	c      *openpay.Client
	public *openpay.Client
	m      *Marketplace
}

// settleAfter is the tests' journal SettleAfter: longer than any call of
// theirs, short enough to wait for.
const settleAfter = time.Second

func newFixture(t *testing.T, e engine, opts ...openpaytest.Option) *fixture {
	t.Helper()
	f := &fixture{e: e, srv: openpaytest.NewServer(t, opts...)}
	var err error
	f.c, err = openpay.New(f.srv.MerchantID, f.srv.PrivateKey, openpay.WithBaseURL(f.srv.URL),
		openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond}))
	require.NoError(t, err)
	f.public, err = openpay.New(f.srv.MerchantID, f.srv.PublicKey, openpay.WithBaseURL(f.srv.URL))
	require.NoError(t, err)
	f.m = openMarketplace(t, e.open(t), f.c, "t")
	return f
}

func (f *fixture) seller(t *testing.T, name string) string {
	t.Helper()
	id, err := f.m.AddSeller(context.Background(), name, name+"@example.com")
	require.NoError(t, err)
	return id
}

func (f *fixture) token(t *testing.T, number string) string {
	t.Helper()
	tok, err := f.public.Tokens.Create(context.Background(), openpay.CardDetails{HolderName: "Ana López", CardNumber: number,
		CVV2: openpaytest.CVV(number), ExpirationMonth: "12", ExpirationYear: "40"})
	require.NoError(t, err)
	return tok.ID
}

// pay makes an order of total from seller and has the buyer pay it.
func (f *fixture) pay(t *testing.T, seller, total string) (string, error) {
	t.Helper()
	id, err := f.m.NewOrder(context.Background(), seller, openpay.MustAmount(total))
	require.NoError(t, err)
	return id, f.m.Pay(context.Background(), id, f.token(t, openpaytest.CardVisa), "device-1", "203.0.113.7")
}

// The money paths of the marketplace, for faults.
var moneyPaths = []string{
	"/v1/{merchant_id}/customers/{customer_id}/charges",
	"/v1/{merchant_id}/fees",
	"/v1/{merchant_id}/customers/{customer_id}/transfers",
	"/v1/{merchant_id}/customers/{customer_id}/payouts",
	"/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/refund",
	"/v1/{merchant_id}/fees/{fee_id}/refund",
}

// armAll arms f on every money path, count requests each.
func (f *fixture) armAll(t *testing.T, fault openpaytest.Fault, count int) {
	t.Helper()
	for _, p := range moneyPaths {
		fault.Method, fault.Path, fault.Count = http.MethodPost, p, count
		require.NoError(t, f.srv.InjectFault(fault))
	}
}

// books checks the marketplace against the gateway: the platform's balance
// plus the sellers' equals charged - refunded - paid out, no order_id holds
// two transactions, every movement the marketplace settled is there once,
// and the nightly report agrees to the cent.
func (f *fixture) books(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	var charged, refunded, paidOut, held openpay.Amount
	seen := map[string]int{}
	for ch, err := range f.c.Charges.List(ctx, nil) {
		require.NoError(t, err)
		if ch.Status == openpay.TransactionStatusCompleted || ch.Status == openpay.TransactionStatusRefunded {
			charged = charged.Add(ch.Amount)
		}
		if ch.Refund != nil {
			refunded = refunded.Add(ch.Refund.Amount)
		}
		seen[ch.OrderID]++
	}
	for fee, err := range f.c.Fees.List(ctx, nil) {
		require.NoError(t, err)
		seen[fee.OrderID]++
	}
	report, err := f.m.Nightly(ctx)
	require.NoError(t, err)
	for _, s := range report.Sellers {
		held = held.Add(s.Gateway)
		for po, err := range f.c.Customer(s.Seller).Payouts.List(ctx, nil) {
			require.NoError(t, err)
			paidOut = paidOut.Add(po.Amount)
			seen[po.OrderID]++
		}
		for tr, err := range f.c.Customer(s.Seller).Transfers.List(ctx, nil) {
			require.NoError(t, err)
			if tr.OperationType == openpay.OperationTypeOut {
				seen[tr.OrderID]++
			}
		}
	}
	total := held.Add(f.srv.Balance())
	assert.Equal(t, charged.Sub(refunded).Sub(paidOut).String(), total.String(),
		"platform + sellers = charged - refunded - paid out (charged %s, refunded %s, paid out %s)", charged, refunded, paidOut)
	for id, n := range seen {
		assert.Equal(t, 1, n, "order_id %q holds %d transactions", id, n)
	}
	ops, err := f.m.Ops(ctx)
	require.NoError(t, err)
	for _, op := range ops {
		if op.State == journal.StateMade && op.Kind != KindRefund && op.Kind != KindCommissionRefund {
			assert.Equal(t, 1, seen[op.ID], "movement %s made once", op.ID)
		}
	}
	assert.True(t, report.OK(), "%s", report)
	assert.Equal(t, report.Commissions.String(), f.srv.Balance().String(), "the platform holds its commissions")
}

// flow runs every kind of movement once: two paid orders, a whole refund
// (with the commission back), a split, a payout and a partial refund. The
// seller ends with 650 - 65 + 40 - 400 - 100 - 50 - 50 = 25.00, the other
// with the 100.00 split, the platform with 25.00 of commissions.
func (f *fixture) flow(t *testing.T, a, b string) {
	t.Helper()
	ctx := context.Background()
	o1, err := f.pay(t, a, "400.00")
	f.settle(t, err)
	o2, err := f.pay(t, a, "250.00")
	f.settle(t, err)
	f.settle(t, f.m.Refund(ctx, o1, openpay.Amount{}))
	_, err = f.m.Split(ctx, a, b, openpay.MustAmount("100.00"), "b's share")
	f.settle(t, err)
	_, err = f.m.Payout(ctx, a, openpay.MustAmount("50.00"), "032180000118359719", "A")
	f.settle(t, err)
	f.settle(t, f.m.Refund(ctx, o2, openpay.MustAmount("50.00")))
}

// settle follows the advice for a call's error: an unknown outcome is
// settled by the recovery job (the journal's worker), never by a new
// attempt. It may run in a goroutine of the test.
func (f *fixture) settle(t *testing.T, err error) {
	t.Helper()
	if openpay.ClassOf(err) != openpay.ClassUnknown {
		return
	}
	if err := recoverAll(f.m); err != nil {
		t.Error(err)
	}
}

// recover runs the recovery job until it leaves nothing open.
func (f *fixture) recover(t *testing.T) {
	t.Helper()
	require.NoError(t, recoverAll(f.m))
}

// recoverAll runs m's recovery job until it leaves nothing open (the
// worker backs off between tries, and re-sends only past SettleAfter).
func recoverAll(m *Marketplace) error {
	deadline := time.Now().Add(10 * settleAfter)
	for {
		err := m.Recover(context.Background())
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// settled runs the recovery job until movement id is final.
func (f *fixture) settled(t *testing.T, id string) Op {
	t.Helper()
	deadline := time.Now().Add(10 * settleAfter)
	for {
		err := f.m.Recover(context.Background())
		op, ok := f.m.Op(context.Background(), id)
		if ok && op.State.Final() {
			return op
		}
		require.False(t, time.Now().After(deadline), "movement %s still %q: %v", id, op.State, err)
		time.Sleep(20 * time.Millisecond)
	}
}

// Every flow, with each answer replaced after the server acted (an error
// object, a proxy's page, a dropped connection) on every money path: the
// SDK settles each call, or the recovery job does, and the books balance
// after each flow.
func TestFlowsWithAnswersReplacedAfterActing(t *testing.T) {
	forEach(t, testFlowsWithAnswersReplacedAfterActing)
}

func testFlowsWithAnswersReplacedAfterActing(t *testing.T, e engine) {
	for _, tt := range []struct {
		name  string
		fault openpaytest.Fault
	}{
		{"gateway's 503 after acting", openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable, Acted: true}},
		{"proxy's 502 page after acting", openpaytest.Fault{Page: http.StatusBadGateway, Acted: true}},
		{"gateway's 500 after acting", openpaytest.Fault{ErrorCode: openpay.ErrInternalServer, Acted: true}},
		{"connection dropped after acting", openpaytest.Fault{Drop: openpaytest.DropAfter}},
		{"503 before acting", openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, newEngine(t, e.name)) // a database of its own
			a, b := f.seller(t, "a"), f.seller(t, "b")
			f.armAll(t, tt.fault, 1)
			f.flow(t, a, b)
			f.books(t)
			ops, err := f.m.Ops(context.Background())
			require.NoError(t, err)
			states := map[OpKind]journal.State{}
			for _, op := range ops {
				states[op.Kind] = op.State
			}
			for _, k := range []OpKind{KindCharge, KindCommission, KindSplit, KindPayout, KindRefund, KindCommissionRefund} {
				assert.Equal(t, journal.StateMade, states[k], "%s", k)
			}
			assert.Len(t, ops, 9, "two charges and commissions, two refunds, one commission refund, a split, a payout")
			report, err := f.m.Nightly(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "25.00", report.Commissions.String())
		})
	}
}

// The answers are lost and every lookup fails too: the calls end unknown,
// the recovery job (the journal's worker, once the gateway answers again)
// settles each, and the books balance.
func TestRecoveryJobSettlesByResending(t *testing.T) { forEach(t, testRecoveryJobSettlesByResending) }

func testRecoveryJobSettlesByResending(t *testing.T, e engine) {
	f := newFixture(t, e)
	a, b := f.seller(t, "a"), f.seller(t, "b")
	ctx := context.Background()
	o1, err := f.pay(t, a, "400.00") // no fault: money to move
	require.NoError(t, err)
	f.armAll(t, openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable, Acted: true}, 1)
	for _, p := range []string{"/v1/{merchant_id}/customers/{customer_id}/charges", "/v1/{merchant_id}/charges",
		"/v1/{merchant_id}/fees", "/v1/{merchant_id}/customers/{customer_id}/transfers",
		"/v1/{merchant_id}/customers/{customer_id}/payouts", "/v1/{merchant_id}/payouts",
		"/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}", "/v1/{merchant_id}/fees/{fee_id}"} {
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodGet, Path: p, ErrorCode: openpay.ErrInternalServer, Count: 50}))
	}
	o2, err := f.pay(t, a, "250.00")
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))
	_, err = f.m.Split(ctx, a, b, openpay.MustAmount("100.00"), "share")
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))
	_, err = f.m.Payout(ctx, a, openpay.MustAmount("50.00"), "032180000118359719", "A")
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))
	err = f.m.Refund(ctx, o1, openpay.Amount{})
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))
	// A new payment of the order waits for the unknown attempt.
	assert.ErrorIs(t, f.m.Pay(ctx, o2, f.token(t, openpaytest.CardVisa), "d", "203.0.113.7"), ErrPaymentInProgress)
	report, err := f.m.Nightly(context.Background())
	if err == nil {
		assert.False(t, report.OK(), "unknown movements are not in agreement yet")
	}

	require.Error(t, f.m.Recover(ctx), "the gateway still fails: nothing settled yet")
	f.srv.ClearFaults()
	f.recover(t)
	require.NoError(t, f.m.Recover(ctx), "a second run has nothing to do")
	ops, err := f.m.Ops(ctx)
	require.NoError(t, err)
	for _, op := range ops {
		assert.Equal(t, journal.StateMade, op.State, "%s", op.ID)
	}
	o, _ := f.m.Order(ctx, o2)
	assert.Len(t, o.Attempts, 1, "settled under its own attempt id")
	f.books(t)
}

// Order 77: the attempt is held at the gateway after the client gave up;
// the recovery job re-sends it (past SettleAfter) while it is still held,
// and the order is paid once.
func TestRecoveryWhileTheAttemptIsHeld(t *testing.T) { forEach(t, testRecoveryWhileTheAttemptIsHeld) }

func testRecoveryWhileTheAttemptIsHeld(t *testing.T, e engine) {
	f := newFixture(t, e)
	a := f.seller(t, "a")
	const hold = settleAfter + 1500*time.Millisecond
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: moneyPaths[0], Delay: hold}))
	id, err := f.m.NewOrder(context.Background(), a, openpay.MustAmount("640.00"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = f.m.Pay(ctx, id, f.token(t, openpaytest.CardVisa), "device-1", "203.0.113.7")
	require.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err), "%v", err)

	start := time.Now()
	f.recover(t) // looks up, waits out SettleAfter, re-sends with the same order_id
	require.Less(t, time.Since(start), hold, "re-sent while the first is still held")
	time.Sleep(hold) // the held attempt reaches the gateway, and meets its order_id taken
	n := 0
	for ch, err := range f.c.Charges.List(context.Background(), nil) {
		require.NoError(t, err)
		assert.Equal(t, "640.00", ch.Amount.String())
		n++
	}
	assert.Equal(t, 1, n, "paid once, not 1280.00")
	f.books(t)
}

// A seller's balance too small for a payout answers 4001 (the name says
// "merchant"; it is the seller's shortfall): refused, nothing moved.
func TestPayoutBeyondTheSellersBalance(t *testing.T) { forEach(t, testPayoutBeyondTheSellersBalance) }

func testPayoutBeyondTheSellersBalance(t *testing.T, e engine) {
	f := newFixture(t, e)
	a := f.seller(t, "a")
	_, err := f.pay(t, a, "100.00")
	require.NoError(t, err)
	id, err := f.m.Payout(context.Background(), a, openpay.MustAmount("95.00"), "032180000118359719", "A")
	require.ErrorIs(t, err, openpay.ErrMerchantInsufficientFunds)
	op, _ := f.m.Op(context.Background(), id)
	assert.Equal(t, journal.StateRefused, op.State)
	f.books(t)
}

// The webhook of a charge whose answer was lost is processed once (the
// journal's event store), and has the worker settle what it can; the
// charge is settled by the worker once the gateway answers lookups again
// (the event itself writes no state: the journal writes a state only from
// the gateway's answer or a transaction read back), and the commission
// follows.
func TestWebhookSettlesOnce(t *testing.T) { forEach(t, testWebhookSettlesOnce) }

func testWebhookSettlesOnce(t *testing.T, e engine) {
	f := newFixture(t, e, openpaytest.WithWebhookRetryDelay(5*time.Millisecond))
	a := f.seller(t, "a")
	h, err := f.m.WebhookHandler("openpay", "hook-secret")
	require.NoError(t, err)
	receiver := httptest.NewServer(h)
	defer receiver.Close()
	_, err = f.c.Webhooks.Create(context.Background(), openpay.WebhookRequest{URL: receiver.URL, User: "openpay", Password: "hook-secret",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)

	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: moneyPaths[0], Drop: openpaytest.DropAfter, Count: 10}))
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodGet, Path: moneyPaths[0], ErrorCode: openpay.ErrInternalServer, Count: 50}))
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodGet, Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrInternalServer, Count: 50}))
	id, err := f.pay(t, a, "300.00")
	require.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err), "%v", err)
	require.NoError(t, f.srv.WaitForDeliveries(context.Background()))
	assert.Equal(t, int64(1), f.m.noticed.Load(), "the charge's event handled once")
	var done int
	require.NoError(t, f.m.db.QueryRow(`SELECT COUNT(*) FROM openpay_events WHERE state = 'done'`).Scan(&done))
	assert.Equal(t, 2, done, "the verification and the charge's event, each once")
	f.srv.ClearFaults()
	f.recover(t)
	o, _ := f.m.Order(context.Background(), id)
	require.NotEmpty(t, o.Charge, "the worker settled the charge")
	require.NotEmpty(t, o.Commission, "the commission follows")
	f.books(t)
}

// Twenty sellers' flows at once, with faults armed on every money path
// (answers replaced after acting, dropped connections, proxies' pages):
// everything settles and the books balance to the cent. Run with -race.
func TestTwentyConcurrentFlowsBalance(t *testing.T) { forEach(t, testTwentyConcurrentFlowsBalance) }

func testTwentyConcurrentFlowsBalance(t *testing.T, e engine) {
	f := newFixture(t, e)
	const n = 20
	sellers := make([]string, n)
	for i := range sellers {
		sellers[i] = f.seller(t, fmt.Sprintf("s%d", i))
	}
	f.armAll(t, openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable, Acted: true}, 4)
	f.armAll(t, openpaytest.Fault{Page: http.StatusBadGateway, Acted: true}, 4)
	f.armAll(t, openpaytest.Fault{Drop: openpaytest.DropAfter}, 4)
	f.armAll(t, openpaytest.Fault{ErrorCode: openpay.ErrInternalServer}, 4)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.flow(t, sellers[i], sellers[(i+1)%n])
		}()
	}
	wg.Wait()
	f.srv.ClearFaults()
	f.recover(t)
	ops, err := f.m.Ops(context.Background())
	require.NoError(t, err)
	for _, op := range ops {
		assert.Contains(t, []journal.State{journal.StateMade, journal.StateRefused}, op.State, "%s: %s", op.ID, op.Reason)
	}
	f.books(t)
}
