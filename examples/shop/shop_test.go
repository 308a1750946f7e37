package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a shop against its own reference server.
type fixture struct {
	srv    *openpaytest.Server
	shop   *Shop
	public *openpay.Client // the payer's browser: tokens

	mu      sync.Mutex
	shipped []string // the orders OnPaid was called for
}

// quickRetries keeps the SDK's retries in milliseconds.
var quickRetries = openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond})

func newFixture(t *testing.T, hc *http.Client, opts ...openpaytest.Option) *fixture {
	t.Helper()
	f := &fixture{srv: openpaytest.NewServer(t, opts...)}
	copts := []openpay.Option{openpay.WithBaseURL(f.srv.URL), quickRetries}
	if hc != nil {
		copts = append(copts, openpay.WithHTTPClient(hc))
	}
	c, err := openpay.New(f.srv.MerchantID, f.srv.PrivateKey, copts...)
	require.NoError(t, err)
	f.public, err = openpay.New(f.srv.MerchantID, f.srv.PublicKey, openpay.WithBaseURL(f.srv.URL))
	require.NoError(t, err)
	f.shop = New(Config{Client: c, ReturnURL: "https://shop.example/orders",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnPaid: func(o Order) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.shipped = append(f.shipped, o.ID)
		}})
	return f
}

// order makes an order for total.
func (f *fixture) order(t *testing.T, total string) Order {
	t.Helper()
	o, err := f.shop.NewOrder("Talavera mug", openpay.MustAmount(total), openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	return o
}

// token is what the payer's browser makes of a card.
func (f *fixture) token(t *testing.T, number string) string {
	t.Helper()
	tok, err := f.public.Tokens.Create(context.Background(), openpay.CardDetails{HolderName: "Ana López", CardNumber: number,
		CVV2: openpaytest.CVV(number), ExpirationMonth: "12", ExpirationYear: "30"})
	require.NoError(t, err)
	return tok.ID
}

// pay charges number for the order, as the checkout handler does.
func (f *fixture) pay(t *testing.T, orderID, number string) (Order, error) {
	t.Helper()
	return f.shop.PayByCard(context.Background(), orderID, f.token(t, number), "device-session-1", payerRequest())
}

func payerRequest() *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/orders/x/card", nil)
	r.RemoteAddr = "203.0.113.7:52814"
	return r
}

// charges lists every charge at the gateway, newest first.
func (f *fixture) charges(t *testing.T) []openpay.Transaction {
	t.Helper()
	c, err := openpay.New(f.srv.MerchantID, f.srv.PrivateKey, openpay.WithBaseURL(f.srv.URL))
	require.NoError(t, err)
	var all []openpay.Transaction
	for ch, err := range c.Charges.List(context.Background(), nil) {
		require.NoError(t, err)
		all = append(all, *ch)
	}
	return all
}

// statuses lists each charge as "order_id status".
func statuses(charges []openpay.Transaction) []string {
	var s []string
	for _, ch := range charges {
		s = append(s, ch.OrderID+" "+string(ch.Status))
	}
	slices.Sort(s)
	return s
}

func (f *fixture) shippedOrders() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.shipped)
}

func attemptStatuses(o Order) []AttemptStatus {
	var s []AttemptStatus
	for _, a := range o.Attempts {
		s = append(s, a.Status)
	}
	return s
}

func assertAmount(t *testing.T, want string, got openpay.Amount, what string) {
	t.Helper()
	assert.Zero(t, openpay.MustAmount(want).Cmp(got), "%s: want %s, got %s", what, want, got)
}

// Flow 1: a declined card leaves the order unpaid, the attempt declined.
func TestDeclineLeavesOrderUnpaid(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	o := f.order(t, "250.00")

	o, err := f.pay(t, o.ID, openpaytest.EmulatorCardDeclined)
	require.ErrorIs(t, err, openpay.ErrCardDeclined)
	assert.Equal(t, openpay.ClassDeclined, openpay.ClassOf(err))

	assert.Equal(t, OrderUnpaid, o.Status)
	require.Len(t, o.Attempts, 1)
	assert.Equal(t, o.ID+"-1", o.Attempts[0].ID)
	assert.Equal(t, AttemptDeclined, o.Attempts[0].Status)
	assert.NotEmpty(t, o.Attempts[0].Reason)
	assert.Empty(t, f.shippedOrders())

	assert.Equal(t, []string{o.ID + "-1 failed"}, statuses(f.charges(t)))
	assert.True(t, f.srv.Balance().IsZero(), "balance %s", f.srv.Balance())
}

// Flow 2: after a decline, another card pays under a new attempt id.
func TestDeclineThenAnotherCardPaysOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	o := f.order(t, "250.00")

	_, err := f.pay(t, o.ID, openpaytest.CardInsufficientFunds)
	require.ErrorIs(t, err, openpay.ErrCardInsufficientFunds)
	o, err = f.pay(t, o.ID, openpaytest.CardVisa)
	require.NoError(t, err)

	assert.Equal(t, OrderPaid, o.Status)
	assert.Equal(t, []AttemptStatus{AttemptDeclined, AttemptPaid}, attemptStatuses(o))
	assert.Equal(t, o.Attempts[1].ChargeID, o.PaidBy)
	assert.Equal(t, []string{o.ID}, f.shippedOrders())

	// A paid order takes no further payment.
	_, err = f.pay(t, o.ID, openpaytest.CardVisa)
	require.ErrorIs(t, err, ErrAlreadyPaid)

	assert.Equal(t, []string{o.ID + "-1 failed", o.ID + "-2 completed"}, statuses(f.charges(t)))
	assertAmount(t, "250.00", f.srv.Balance(), "balance")
}

// Flow 3: the charge is made but its answer is lost; the SDK finds it by
// the attempt id, and the order is paid once.
func TestLostAnswerPaysOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	o := f.order(t, "480.00")
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges",
		Drop: openpaytest.DropAfter}))

	o, err := f.pay(t, o.ID, openpaytest.CardVisa)
	require.NoError(t, err)
	assert.Empty(t, f.srv.Faults(), "the answer was dropped")

	assert.Equal(t, OrderPaid, o.Status)
	assert.Equal(t, []AttemptStatus{AttemptPaid}, attemptStatuses(o))
	assert.Equal(t, []string{o.ID}, f.shippedOrders())
	assert.Equal(t, []string{o.ID + "-1 completed"}, statuses(f.charges(t)))
	assertAmount(t, "480.00", f.srv.Balance(), "balance")
}

// Flow 4: a declined charge whose answer is lost is a decline, not a
// payment (issue 22's first finding).
func TestLostDeclineIsNotPaid(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	o := f.order(t, "480.00")
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges",
		Drop: openpaytest.DropAfter}))

	o, err := f.pay(t, o.ID, openpaytest.EmulatorCardDeclined)
	require.ErrorIs(t, err, openpay.ErrCardDeclined)
	assert.Empty(t, f.srv.Faults(), "the answer was dropped")

	assert.Equal(t, OrderUnpaid, o.Status)
	assert.Equal(t, []AttemptStatus{AttemptDeclined}, attemptStatuses(o))
	assert.Empty(t, f.shippedOrders())
	assert.Equal(t, []string{o.ID + "-1 failed"}, statuses(f.charges(t)))
	assert.True(t, f.srv.Balance().IsZero(), "balance %s", f.srv.Balance())

	// The payer can go on with another card.
	o, err = f.pay(t, o.ID, openpaytest.CardVisa)
	require.NoError(t, err)
	assert.Equal(t, OrderPaid, o.Status)
}

// Flow 5: a shop whose attempt numbering is broken sends a declined
// attempt's id again, for another card; the first POST meets a 500, the
// retry 1006. That is an order-id conflict: the second card is never
// charged and the order is not paid.
func TestReusedAttemptIDIsConflict(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	o := f.order(t, "250.00")
	_, err := f.pay(t, o.ID, openpaytest.EmulatorCardDeclined)
	require.ErrorIs(t, err, openpay.ErrCardDeclined)

	// The bug: the shop forgets the attempt it made, so the next one is
	// numbered 1 again.
	f.shop.mu.Lock()
	f.shop.orders[o.ID].Attempts = nil
	f.shop.mu.Unlock()
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges",
		ErrorCode: openpay.ErrInternalServer}))

	o, err = f.pay(t, o.ID, openpaytest.CardVisa)
	var conflict *openpay.OrderConflictError
	require.ErrorAs(t, err, &conflict)
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
	assert.Equal(t, o.ID+"-1", conflict.OrderID)
	assert.Empty(t, f.srv.Faults(), "the 500 was answered")

	assert.Equal(t, OrderUnpaid, o.Status)
	assert.Equal(t, []AttemptStatus{AttemptConflict}, attemptStatuses(o))
	assert.Empty(t, f.shippedOrders())
	assert.Equal(t, []string{o.ID + "-1 failed"}, statuses(f.charges(t)), "the second card was never charged")
	assert.True(t, f.srv.Balance().IsZero(), "balance %s", f.srv.Balance())
}

// Flow 6: cash at a store, paid later; the webhook marks the order paid,
// once although the gateway delivers the event twice.
func TestStorePaymentByWebhookDeliveredTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, openpaytest.WithWebhookRetryDelay(5*time.Millisecond))
	handler, err := f.shop.Handler("openpay", "hook-secret")
	require.NoError(t, err)

	// The receiver's first answer to charge.succeeded is lost after the
	// shop handled it (a proxy's timeout, say): the gateway delivers again.
	var succeeded atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var ev struct{ Type openpay.EventType }
		_ = json.Unmarshal(body, &ev)
		if ev.Type == openpay.EventTypeChargeSucceeded && succeeded.Add(1) == 1 {
			handler.ServeHTTP(httptest.NewRecorder(), r)
			http.Error(w, "gateway timeout", http.StatusGatewayTimeout)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer receiver.Close()
	c, err := openpay.New(f.srv.MerchantID, f.srv.PrivateKey, openpay.WithBaseURL(f.srv.URL))
	require.NoError(t, err)
	hook, err := c.Webhooks.Create(context.Background(), openpay.WebhookRequest{URL: receiver.URL + "/webhooks/openpay",
		User: "openpay", Password: "hook-secret", EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)
	require.Equal(t, openpay.WebhookStatusVerified, hook.Status)

	o := f.order(t, "180.50")
	o, err = f.shop.PayAtStore(context.Background(), o.ID, payerRequest())
	require.NoError(t, err)
	assert.Equal(t, OrderPending, o.Status)
	a := o.Attempts[0]
	assert.Equal(t, AttemptPending, a.Status)
	assert.NotEmpty(t, a.Reference)
	_, err = f.pay(t, o.ID, openpaytest.CardVisa)
	require.ErrorIs(t, err, ErrPaymentInProgress, "no second payment while the store reference is open")

	_, err = f.srv.PayCharge(a.ChargeID) // the payer pays at the store
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, f.srv.WaitForDeliveries(ctx))
	assert.Equal(t, int32(2), succeeded.Load(), "charge.succeeded delivered twice")
	assert.Zero(t, f.srv.WebhookDeliveryStats(hook.ID).Pending)

	o, _ = f.shop.Order(o.ID)
	assert.Equal(t, OrderPaid, o.Status)
	assert.Equal(t, a.ChargeID, o.PaidBy)
	assert.Equal(t, []string{o.ID}, f.shippedOrders())

	// Past the deduplication (another process, a store that forgot), the
	// same event changes nothing either.
	ev := &openpay.WebhookEvent{Type: openpay.EventTypeChargeSucceeded, Transaction: &openpay.Transaction{ID: a.ChargeID}}
	require.NoError(t, f.shop.HandleEvent(context.Background(), ev))
	assert.Equal(t, []string{o.ID}, f.shippedOrders())

	assert.Equal(t, []string{o.ID + "-1 completed"}, statuses(f.charges(t)))
	assertAmount(t, "180.50", f.srv.Balance(), "balance")
	_, err = f.shop.Refund(context.Background(), o.ID, openpay.Amount{})
	assert.ErrorIs(t, err, ErrCashRefund)
}

// Flow 7: a refund in part. The gateway refunds a charge once (issue 31),
// so the order takes one refund, and sending it again (as after a lost
// answer) returns the same refund and moves nothing more.
func TestRefundOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := context.Background()
	o := f.order(t, "300.00")
	_, err := f.shop.Refund(ctx, o.ID, openpay.MustAmount("1"))
	require.ErrorIs(t, err, ErrNotPaid)
	_, err = f.pay(t, o.ID, openpaytest.CardVisa)
	require.NoError(t, err)

	_, err = f.shop.Refund(ctx, o.ID, openpay.MustAmount("300.01"))
	require.ErrorIs(t, err, ErrRefundTooLarge)
	o, err = f.shop.Refund(ctx, o.ID, openpay.MustAmount("120.50"))
	require.NoError(t, err)
	assert.Equal(t, OrderRefunded, o.Status)
	assertAmount(t, "120.50", o.Refunded, "refunded")
	assertAmount(t, "179.50", f.srv.Balance(), "balance after the partial refund")
	assert.Equal(t, []string{o.ID + "-1 refunded"}, statuses(f.charges(t)))

	_, err = f.shop.Refund(ctx, o.ID, openpay.Amount{})
	require.ErrorIs(t, err, ErrAlreadyRefunded)
	assertAmount(t, "179.50", f.srv.Balance(), "nothing more left the balance")
}

// Flow 7, with the refund's answer replaced by a 503 after the gateway
// made it: the SDK reads the charge back, and the refund is this call's.
func TestRefundAnswerLostAfterActing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := context.Background()
	o := f.order(t, "300.00")
	_, err := f.pay(t, o.ID, openpaytest.CardVisa)
	require.NoError(t, err)
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges/{transaction_id}/refund",
		ErrorCode: openpay.ErrServiceUnavailable, Acted: true}))
	o, err = f.shop.Refund(ctx, o.ID, openpay.MustAmount("50"))
	require.NoError(t, err)
	assertAmount(t, "50.00", o.Refunded, "refunded")
	assertAmount(t, "250.00", f.srv.Balance(), "refunded once")
}

// Flow 8: the nightly job runs at 00:30 UTC in a UTC container, 18:30 in
// Mexico City. Its "yesterday" is the merchant's: sales at 18:00 and 23:00
// Mexico City time on day D (00:00 and 05:00 UTC on D+1) belong to it when
// the job runs on the evening of D+1; a sale at 00:10 on D+1 does not.
func TestNightlyAt0030UTC(t *testing.T) {
	t.Parallel()
	mexicoCity := openpay.CountryMexico.Location()
	day := openpay.NewDate(2026, time.March, 10)
	f := newFixture(t, nil, openpaytest.WithClock(day.In(mexicoCity).Add(18*time.Hour)))

	sale := func(total string) Order {
		o := f.order(t, total)
		o, err := f.pay(t, o.ID, openpaytest.CardVisa)
		require.NoError(t, err)
		return o
	}
	advanceTo := func(at time.Time) {
		_, err := f.srv.AdvanceClock(at.Sub(f.srv.Now()))
		require.NoError(t, err)
	}
	sale("100.00") // 18:00 on D
	advanceTo(day.In(mexicoCity).Add(23 * time.Hour))
	sale("200.00") // 23:00 on D
	advanceTo(day.AddDays(1).In(mexicoCity).Add(10 * time.Minute))
	late := sale("400.00") // 00:10 on D+1
	advanceTo(day.AddDays(2).In(time.UTC).Add(30 * time.Minute))

	now := f.srv.Now().In(time.UTC)
	require.Equal(t, "00:30", now.Format("15:04"))
	require.NotEqual(t, day, openpay.DateOf(now).AddDays(-1), "the container's own yesterday is another day")
	report, err := f.shop.Nightly(context.Background(), now)
	require.NoError(t, err)

	assert.Equal(t, day, report.Day)
	assert.Equal(t, 2, report.Charges)
	assertAmount(t, "300.00", report.GatewayTotal, "the gateway's sales of D")
	assert.Equal(t, 2, report.Orders)
	assertAmount(t, "300.00", report.ShopTotal, "the shop's sales of D")
	assert.True(t, report.OK(), "%s", report)

	// The next night counts the late sale.
	advanceTo(f.srv.Now().Add(24 * time.Hour))
	report, err = f.shop.Nightly(context.Background(), f.srv.Now().In(time.UTC))
	require.NoError(t, err)
	assert.Equal(t, day.AddDays(1), report.Day)
	assert.Equal(t, 1, report.Charges)
	assertAmount(t, late.Total.String(), report.GatewayTotal, "the gateway's sales of D+1")
	assert.True(t, report.OK(), "%s", report)
}

// The report names what does not match: a charge for no order, a charge
// the orders do not show, an order paid with no charge.
func TestNightlyFindsMismatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := context.Background()
	c, err := openpay.New(f.srv.MerchantID, f.srv.PrivateKey, openpay.WithBaseURL(f.srv.URL))
	require.NoError(t, err)

	// A sale made by someone else with the same account.
	stray, err := c.Charges.Create(ctx, openpay.CardCharge{SourceID: f.token(t, openpaytest.CardVisa), Amount: openpay.MustAmount("10"),
		Description: "not the shop's", OrderID: "elsewhere-1"}, openpay.WithClientIP("203.0.113.9"))
	require.NoError(t, err)
	// A charge of the shop whose answer the shop never got.
	lost := f.order(t, "20.00")
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropAfter}))
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodGet, Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrInternalServer, Count: 100}))
	_, err = f.pay(t, lost.ID, openpaytest.CardVisa)
	require.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	f.srv.ClearFaults()
	// An order the shop marked paid with a charge that is not there.
	ghost := f.order(t, "30.00")
	f.shop.mu.Lock()
	f.shop.orders[ghost.ID].PaidBy = "trghost"
	f.shop.orders[ghost.ID].Attempts = []Attempt{{ID: ghost.ID + "-1", Status: AttemptPaid, ChargeID: "trghost", Created: f.srv.Now()}}
	f.shop.mu.Unlock()

	report, err := f.shop.Reconcile(ctx, dayOf(f.srv.Now()))
	require.NoError(t, err)
	assert.False(t, report.OK())
	assert.Equal(t, []string{stray.ID}, report.NoOrder)
	var lostCharge string
	for _, ch := range f.charges(t) {
		if ch.OrderID == lost.ID+"-1" {
			lostCharge = ch.ID
		}
	}
	assert.Equal(t, []string{lostCharge}, report.NotRecorded)
	assert.Equal(t, []string{ghost.ID}, report.NoCharge)
	assert.Equal(t, 2, report.Charges)
	assert.Equal(t, 1, report.Orders)

	// The recovery job puts the lost one right.
	require.NoError(t, f.shop.Recover(ctx))
	report, err = f.shop.Reconcile(ctx, dayOf(f.srv.Now()))
	require.NoError(t, err)
	assert.Empty(t, report.NotRecorded)
}

// Flow 9: the nightly job counts each charge once while other charges are
// made during its loop (offset paging, newest first: new charges push the
// older ones onto the next page).
func TestNightlyCountsEachChargeOnceWhileChargesAreMade(t *testing.T) {
	t.Parallel()
	const before, during = 120, 7
	var f *fixture
	var once sync.Once
	hook := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/charges") && r.URL.Query().Get("order_id") == "" {
			// Other payers pay while the job reads its first page.
			once.Do(func() {
				for range during {
					o := f.order(t, "1.00")
					_, err := f.pay(t, o.ID, openpaytest.CardVisa)
					require.NoError(t, err)
				}
			})
		}
		return resp, err
	})
	f = newFixture(t, &http.Client{Transport: hook})
	for range before {
		o := f.order(t, "10.00")
		_, err := f.pay(t, o.ID, openpaytest.CardVisa)
		require.NoError(t, err)
	}

	report, err := f.shop.Reconcile(context.Background(), dayOf(f.srv.Now()))
	require.NoError(t, err)

	// Each charge of 10.00 counted once; those made during the loop may be
	// missed, never counted twice.
	seenDuring := report.Charges - before
	require.GreaterOrEqual(t, seenDuring, 0)
	require.LessOrEqual(t, seenDuring, during, "more charges counted than exist: %s", report)
	assertAmount(t, fmt.Sprintf("%d.00", 10*before+seenDuring), report.GatewayTotal, "charges counted twice")
	assert.Empty(t, report.NoOrder)
	assert.Empty(t, report.NotRecorded)
	assert.Len(t, report.NoCharge, during-seenDuring, "only the orders paid during the loop can be missing")
	assert.Equal(t, before+during, report.Orders)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Flow 10: attempts whose outcome is unknown, settled by the recovery job.
func TestRecoveryJobSettlesUnknownAttempts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("charged", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		o := f.order(t, "650.00")
		// The answer is lost and the lookups by order_id fail too.
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropAfter}))
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodGet, Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrInternalServer, Count: 100}))

		o, err := f.pay(t, o.ID, openpaytest.CardVisa)
		var unknown *openpay.OutcomeUnknownError
		require.ErrorAs(t, err, &unknown)
		assert.Equal(t, OrderUnpaid, o.Status)
		assert.Equal(t, []AttemptStatus{AttemptUnknown}, attemptStatuses(o))
		_, err = f.pay(t, o.ID, openpaytest.CardVisa)
		require.ErrorIs(t, err, ErrPaymentInProgress, "no new attempt while one may have been charged")

		// While the gateway still fails, the job leaves the attempt unknown.
		require.Error(t, f.shop.Recover(ctx))
		o, _ = f.shop.Order(o.ID)
		assert.Equal(t, []AttemptStatus{AttemptUnknown}, attemptStatuses(o))

		f.srv.ClearFaults()
		require.NoError(t, f.shop.Recover(ctx))
		o, _ = f.shop.Order(o.ID)
		assert.Equal(t, OrderPaid, o.Status)
		assert.Equal(t, []AttemptStatus{AttemptPaid}, attemptStatuses(o))
		assert.Equal(t, []string{o.ID}, f.shippedOrders())
		assert.Equal(t, []string{o.ID + "-1 completed"}, statuses(f.charges(t)))
		assertAmount(t, "650.00", f.srv.Balance(), "balance")

		require.NoError(t, f.shop.Recover(ctx), "a second run has nothing to do")
		assert.Equal(t, []string{o.ID}, f.shippedOrders())
	})

	t.Run("never happened", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		o := f.order(t, "650.00")
		// No attempt of the request reaches the gateway.
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropBefore, Count: 100}))

		o, err := f.pay(t, o.ID, openpaytest.CardVisa)
		require.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
		assert.Equal(t, []AttemptStatus{AttemptUnknown}, attemptStatuses(o))
		f.srv.ClearFaults()

		// The job re-sends the attempt as it was (issue 31): it is made now,
		// under its own attempt id, and never a second time.
		require.NoError(t, f.shop.Recover(ctx))
		o, _ = f.shop.Order(o.ID)
		assert.Equal(t, OrderPaid, o.Status)
		assert.Equal(t, []AttemptStatus{AttemptPaid}, attemptStatuses(o))
		assert.Equal(t, []string{o.ID + "-1 completed"}, statuses(f.charges(t)))
		assertAmount(t, "650.00", f.srv.Balance(), "balance")
	})

	// Order 77 (issue 31, item 4): the attempt is held at the gateway after
	// the shop gave up. The job re-sends it while it is still held; the
	// order is paid once, whichever request the gateway carries out first.
	t.Run("still in flight", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, nil)
		o := f.order(t, "640.00")
		const hold = 1500 * time.Millisecond
		require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges", Delay: hold}))
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		o, err := f.shop.PayByCard(short, o.ID, f.token(t, openpaytest.CardVisa), "device-session-1", payerRequest())
		require.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
		assert.Equal(t, []AttemptStatus{AttemptUnknown}, attemptStatuses(o))

		require.NoError(t, f.shop.Recover(ctx))
		o, _ = f.shop.Order(o.ID)
		assert.Equal(t, OrderPaid, o.Status)
		time.Sleep(hold) // the held attempt reaches the gateway and meets its order_id taken
		assert.Equal(t, []string{o.ID + "-1 completed"}, statuses(f.charges(t)))
		assertAmount(t, "640.00", f.srv.Balance(), "paid once, not 1280.00")
		assert.Equal(t, []string{o.ID}, f.shippedOrders())
	})
}

// The recovery job also settles a lost decline as a decline.
func TestRecoveryJobSettlesUnknownDecline(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	o := f.order(t, "90.00")
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodPost, Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropAfter}))
	require.NoError(t, f.srv.InjectFault(openpaytest.Fault{Method: http.MethodGet, Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrInternalServer, Count: 100}))
	_, err := f.pay(t, o.ID, openpaytest.EmulatorCardDeclined)
	require.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	f.srv.ClearFaults()

	require.NoError(t, f.shop.Recover(context.Background()))
	o, _ = f.shop.Order(o.ID)
	assert.Equal(t, OrderUnpaid, o.Status)
	assert.Equal(t, []AttemptStatus{AttemptDeclined}, attemptStatuses(o))
	assert.Empty(t, f.shippedOrders())
}

// The API refuses careless input before anything reaches the gateway.
func TestCreateOrderRefusesCarelessInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	h, err := f.shop.Handler("openpay", "hook-secret")
	require.NoError(t, err)
	for _, tc := range []struct {
		total, description string
		want               int
	}{
		{"1000.00", "Talavera mug", http.StatusCreated},
		{"1e3", "Talavera mug", http.StatusBadRequest},
		{"1,000.00", "Talavera mug", http.StatusBadRequest},
		{"12.345", "Talavera mug", http.StatusBadRequest},
		{"-5", "Talavera mug", http.StatusBadRequest},
		{"0", "Talavera mug", http.StatusBadRequest},
		{"10", "Talavera \xff mug", http.StatusBadRequest},
	} {
		form := url.Values{"total": {tc.total}, "description": {tc.description}, "name": {"Ana"}, "email": {"ana@example.com"}}
		r := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, tc.want, w.Code, "total %q, description %q: %s", tc.total, tc.description, w.Body)
	}
}
