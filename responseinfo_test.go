package openpay

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithResponseInfo reports the status, the request id and the attempts of
// every kind of outcome, without changing what the call returns.
func TestWithResponseInfo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := func(t *testing.T, srv *scriptServer) *Client {
		c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL), WithRetryPolicy(fastPolicy(2)))
		require.NoError(t, err)
		return c
	}
	t.Run("success after a retry", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(503, err1004, "X-Request-Id", "r-first"), reply(200, tpTx, "X-Request-Id", "r-ok-7"))
		info := ResponseInfo{HTTPStatus: 999, Reconciled: true} // overwritten, not merged
		tx, err := client(t, srv).Charges.Get(ctx, "tr6cxbcefzatd10guvvw", WithResponseInfo(&info))
		require.NoError(t, err)
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		assert.Equal(t, ResponseInfo{HTTPStatus: 200, RequestID: "r-ok-7", Attempts: 2}, headerless(t, info))
	})
	t.Run("gateway error: the body's request id", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(409, dupOrder, "X-Request-Id", "r-header"))
		var info ResponseInfo
		_, err := client(t, srv).Fees.Create(ctx, FeeRequest{CustomerID: "c1", Amount: MustAmount("1"), Description: "d"}, WithResponseInfo(&info))
		require.ErrorIs(t, err, ErrDuplicateOrderID)
		assert.Equal(t, ResponseInfo{HTTPStatus: 409, RequestID: tpRequestID, Attempts: 1}, headerless(t, info))
	})
	t.Run("no answer", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, drop())
		var info ResponseInfo
		err := client(t, srv).Customers.Delete(ctx, "c1", WithResponseInfo(&info))
		require.Error(t, err)
		assert.Equal(t, ResponseInfo{Attempts: 3}, info)
	})
	t.Run("refused before sending", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, okReply(tpTx))
		info := ResponseInfo{Attempts: 5}
		_, err := client(t, srv).Charges.Create(ctx, StoreCharge{Amount: MustAmount("1"), Description: "d"}, WithResponseInfo(&info))
		require.ErrorIs(t, err, ErrClientIPRequired)
		assert.Equal(t, ResponseInfo{}, info)
		assert.Zero(t, srv.count())
	})
	t.Run("reconciled", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, drop(), reply(409, dupOrder), okReply("["+tpTx+"]"))
		var info ResponseInfo
		tx, err := client(t, srv).Charges.Create(ctx, CardCharge{SourceID: "k1", Amount: MustAmount("100.00"), Description: "d", OrderID: tpOrderID},
			WithClientIP("203.0.113.1"), WithResponseInfo(&info))
		require.NoError(t, err)
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		// The status is the one of the answer the result stands for (the
		// charge made), not the 1006 that led to the lookup.
		assert.Equal(t, ResponseInfo{HTTPStatus: 200, RequestID: tpRequestID, Attempts: 2, Reconciled: true}, info)
	})
	// The calls that answer a plain array pass their options on too.
	t.Run("array answers", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(200, `[]`, "X-Request-Id", "r-array"))
		c := client(t, srv)
		for name, call := range map[string]func(info *ResponseInfo) error{
			"Cards.Points": func(info *ResponseInfo) error {
				_, err := c.Cards.Points(ctx, "k1", WithResponseInfo(info))
				return err
			},
			"Tokens.Points": func(info *ResponseInfo) error {
				_, err := c.Tokens.Points(ctx, "t1", WithResponseInfo(info))
				return err
			},
			"Webhooks.List": func(info *ResponseInfo) error { _, err := c.Webhooks.List(ctx, WithResponseInfo(info)); return err },
		} {
			var info ResponseInfo
			require.NoError(t, call(&info), name)
			assert.Equal(t, ResponseInfo{HTTPStatus: 200, RequestID: "r-array", Attempts: 1}, headerless(t, info), name)
		}
	})
	t.Run("iterator: the last page", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(200, "["+tpTx+"]", "X-Request-Id", "r-page"))
		var info ResponseInfo
		n := 0
		for _, err := range client(t, srv).Charges.List(ctx, &TransactionListParams{ListParams: ListParams{Limit: 5}}, WithResponseInfo(&info)) {
			require.NoError(t, err)
			n++
		}
		assert.Equal(t, 1, n)
		assert.Equal(t, ResponseInfo{HTTPStatus: 200, RequestID: "r-page", Attempts: 1}, headerless(t, info))
	})
}

// Every method of every service takes call options last, so that
// WithResponseInfo (and WithClientIP) can be passed to any call.
func TestEveryMethodTakesCallOptions(t *testing.T) {
	t.Parallel()
	c, err := New(tpMerchant, tpKey)
	require.NoError(t, err)
	g := c.Group("g1")
	gm := g.Merchant("m1")
	services := []any{c.Charges, c.Payouts, c.Fees, c.Cards, c.Customers, c.Plans, c.Tokens, c.Webhooks, c.Merchant, c.Stores}
	cs := c.Customer("c1")
	services = append(services, cs.Charges, cs.Payouts, cs.Transfers, cs.Cards, cs.BankAccounts, cs.Subscriptions,
		g.Customers, g.Customer("c1").Cards, gm.Charges, gm.Customer("c1").Charges, gm.Customer("c1").Subscriptions)
	optsType := reflect.TypeFor[[]CallOption]()
	methods := 0
	for _, svc := range services {
		typ := reflect.TypeOf(svc)
		require.NotZero(t, typ.NumMethod(), "%s", typ)
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			ft := m.Type
			assert.True(t, ft.IsVariadic() && ft.In(ft.NumIn()-1) == optsType, "%s.%s takes no ...CallOption", typ, m.Name)
			assert.Equal(t, reflect.TypeFor[context.Context](), ft.In(1), "%s.%s: context first", typ, m.Name)
			methods++
		}
	}
	assert.Greater(t, methods, 60)
	_ = http.MethodGet
}

// headerless checks that info carries the final answer's headers (every
// scripted answer is JSON) and returns info without them, for comparing
// the other fields. Header was added to ResponseInfo in issue 36.
func headerless(t *testing.T, info ResponseInfo) ResponseInfo {
	t.Helper()
	assert.Equal(t, "application/json", info.Header.Get("Content-Type"))
	info.Header = nil
	return info
}
