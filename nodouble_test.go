package openpay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// faultProxy stands between the SDK and the reference server. It forwards
// every request; for the POSTs its policy picks it lets the server process
// the request, then drops the client's connection before any byte of the
// response: the worst case for a payment, when the charge exists but the
// caller cannot know.
type faultProxy struct {
	*httptest.Server
	upstream string
	// drop decides, for the n-th POST (from 1) with this body, whether its
	// response is lost.
	drop func(n int, body []byte) bool

	mu      sync.Mutex
	seen    map[string]int // POST body -> times seen
	posts   atomic.Int64
	dropped atomic.Int64
}

func newFaultProxy(t *testing.T, upstream string, drop func(n int, body []byte) bool) *faultProxy {
	p := &faultProxy{upstream: upstream, drop: drop, seen: map[string]int{}}
	client := &http.Client{Timeout: 10 * time.Second}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		req.Header = r.Header.Clone()
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		respBody, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if r.Method == http.MethodPost {
			p.posts.Add(1)
			p.mu.Lock()
			p.seen[string(body)]++
			n := p.seen[string(body)]
			p.mu.Unlock()
			if p.drop(n, body) {
				// The server has acted; the caller never hears of it.
				p.dropped.Add(1)
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(respBody)
	}))
	t.Cleanup(p.Close)
	return p
}

// dropFirst loses the response of the first k attempts of each request.
func dropFirst(k int) func(int, []byte) bool {
	return func(n int, _ []byte) bool { return n <= k }
}

type noDoubleEnv struct {
	srv    *openpaytest.Server
	direct *openpay.Client // straight to the server, for checking
	proxy  *faultProxy
	via    *openpay.Client // through the faulty proxy
}

func newNoDoubleEnv(t *testing.T, drop func(int, []byte) bool) *noDoubleEnv {
	srv := openpaytest.NewServer(t)
	direct, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"))
	require.NoError(t, err)
	proxy := newFaultProxy(t, srv.URL, drop)
	via, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(proxy.URL), openpay.WithDefaultClientIP("203.0.113.9"),
		openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond}))
	require.NoError(t, err)
	return &noDoubleEnv{srv: srv, direct: direct, proxy: proxy, via: via}
}

// chargesWithOrderID reads, directly from the server, every charge holding
// the order_id.
func (e *noDoubleEnv) chargesWithOrderID(t *testing.T, orderID string) []openpay.Transaction {
	var out []openpay.Transaction
	for tx, err := range e.direct.Charges.List(context.Background(), &openpay.TransactionListParams{OrderID: orderID}) {
		require.NoError(t, err)
		if tx.OrderID == orderID {
			out = append(out, *tx)
		}
	}
	return out
}

func testCard() openpay.CardDetails {
	return openpay.CardDetails{HolderName: "Juan Pérez", CardNumber: openpaytest.CardVisa, CVV2: "123",
		ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)}
}

// Every charge variant with an order_id whose responses are lost is made
// exactly once, and the call returns that one charge.
func TestNoDoubleChargeWithOrderID(t *testing.T) {
	t.Parallel()
	variants := map[string]func(orderID string) openpay.ChargeRequest{
		"inline card": func(o string) openpay.ChargeRequest {
			return openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("250.00"), Description: "d", OrderID: o}
		},
		"store": func(o string) openpay.ChargeRequest {
			return openpay.StoreCharge{Amount: openpay.MustAmount("120.50"), Description: "d", OrderID: o,
				Customer: &openpay.ChargeCustomer{Name: "Luis", Email: "luis@example.com"}}
		},
		"bank": func(o string) openpay.ChargeRequest {
			return openpay.BankCharge{Amount: openpay.MustAmount("99.99"), Description: "d", OrderID: o,
				Customer: &openpay.ChargeCustomer{Name: "Luis", Email: "luis@example.com"}}
		},
	}
	for name, build := range variants {
		for _, lost := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/%d lost", name, lost), func(t *testing.T) {
				t.Parallel()
				e := newNoDoubleEnv(t, dropFirst(lost))
				orderID := fmt.Sprintf("nd-%s-%d", strings.ReplaceAll(name, " ", ""), lost)
				tx, err := e.via.Charges.Create(context.Background(), build(orderID))
				require.NoError(t, err)
				held := e.chargesWithOrderID(t, orderID)
				require.Len(t, held, 1, "the server holds exactly one charge for the order")
				assert.Equal(t, held[0].ID, tx.ID, "the call returns the charge the server holds")
				assert.Equal(t, orderID, tx.OrderID)
				assert.EqualValues(t, lost, e.proxy.dropped.Load())
				assert.EqualValues(t, lost+1, e.proxy.posts.Load(), "one attempt per lost response, then the one that met 1006")
			})
		}
	}
}

// Many concurrent charges, each losing its first response: each call gets
// its own charge, and the server holds exactly one per order.
func TestNoDoubleChargeConcurrent(t *testing.T) {
	t.Parallel()
	e := newNoDoubleEnv(t, dropFirst(1))
	const n = 24
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx, err := e.via.Charges.Create(context.Background(), openpay.InlineCardCharge{
				Card: testCard(), Amount: openpay.AmountFromCents(int64(1000 + i)), Description: "d", OrderID: fmt.Sprintf("conc-%d", i)})
			if assert.NoError(t, err) {
				ids[i] = tx.ID
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		held := e.chargesWithOrderID(t, fmt.Sprintf("conc-%d", i))
		require.Len(t, held, 1)
		assert.Equal(t, held[0].ID, ids[i])
		assert.True(t, held[0].Amount.Equal(openpay.AmountFromCents(int64(1000+i))))
		assert.False(t, seen[ids[i]])
		seen[ids[i]] = true
	}
}

// Without an order_id the SDK cannot tell a retry from a second charge: it
// does not retry, and says the outcome is unknown. The server made it once.
func TestNoOrderIDOutcomeUnknown(t *testing.T) {
	t.Parallel()
	e := newNoDoubleEnv(t, dropFirst(1))
	before := e.srv.Balance()
	_, err := e.via.Charges.Create(context.Background(), openpay.InlineCardCharge{
		Card: testCard(), Amount: openpay.MustAmount("77.00"), Description: "no order id"})
	require.Error(t, err)
	assert.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	var te *openpay.TransportError
	require.ErrorAs(t, err, &te)
	assert.True(t, te.MayHaveReached)
	assert.Equal(t, 1, te.Attempts)
	assert.EqualValues(t, 1, e.proxy.posts.Load(), "not retried")
	assert.True(t, e.srv.Balance().Sub(before).Equal(openpay.MustAmount("77.00")), "charged once")
}

// A retry that finds its order_id held by a different transaction reports
// the conflict instead of returning someone else's charge.
func TestOrderIDConflictAfterRetry(t *testing.T) {
	t.Parallel()
	e := newNoDoubleEnv(t, dropFirst(1))
	ctx := context.Background()
	first, err := e.direct.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("100.00"), Description: "d", OrderID: "shared"})
	require.NoError(t, err)
	_, err = e.via.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("200.00"), Description: "d", OrderID: "shared"})
	var conflict *openpay.OrderConflictError
	require.ErrorAs(t, err, &conflict)
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
	require.NotNil(t, conflict.Existing)
	assert.Equal(t, first.ID, conflict.Existing.ID)
	assert.Len(t, e.chargesWithOrderID(t, "shared"), 1)

	// Met on the first attempt (nothing lost), a duplicate is looked up
	// too (issue 31): an exact re-send gets the charge already made, and
	// another amount is a conflict, never the plain gateway error.
	again, err := e.direct.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("100.00"), Description: "d", OrderID: "shared"})
	require.NoError(t, err)
	assert.Equal(t, first.ID, again.ID)
	_, err = e.direct.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("300.00"), Description: "d", OrderID: "shared"})
	require.ErrorAs(t, err, &conflict)
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
	assert.Len(t, e.chargesWithOrderID(t, "shared"), 1)
}

// Payouts, transfers and fees with an order_id are reconciled the same way:
// each lost response ends with the one transaction the server holds.
func TestNoDoubleMoneyMovement(t *testing.T) {
	t.Parallel()
	e := newNoDoubleEnv(t, dropFirst(1))
	ctx := context.Background()
	k := &contract{srv: e.srv, c: e.direct}
	a := k.fundedCustomer(t, "Ana", "500.00")
	b := k.fundedCustomer(t, "Beto", "")

	tr, err := e.via.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("100.00"), Description: "rent", OrderID: "nd-transfer"})
	require.NoError(t, err)
	assert.Equal(t, "nd-transfer", tr.OrderID)
	fee, err := e.via.Fees.Create(ctx, openpay.FeeRequest{CustomerID: a.ID, Amount: openpay.MustAmount("10.00"), Description: "fee", OrderID: "nd-fee"})
	require.NoError(t, err)
	assert.Equal(t, "nd-fee", fee.OrderID)
	ba, err := e.direct.Customer(a.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Ana", CLABE: "012680012426485980"})
	require.NoError(t, err)
	po, err := e.via.Customer(a.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: ba.ID, Amount: openpay.MustAmount("50.00"), Description: "out", OrderID: "nd-payout"})
	require.NoError(t, err)
	assert.Equal(t, "nd-payout", po.OrderID)

	assert.EqualValues(t, 3, e.proxy.dropped.Load())
	// Each moved once: 500 - 100 - 10 - 50.
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("340.00")), "%s", k.balance(t, a.ID))
	assert.True(t, k.balance(t, b.ID).Equal(openpay.MustAmount("100.00")))
}
