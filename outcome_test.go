package openpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A 2xx answer is a success only when it is the object the call expects.
// Anything else is an *Error with the status, the request id and an
// excerpt; on a call that changes state it is also an unknown outcome.
func TestUnusableSuccessAnswers(t *testing.T) {
	t.Parallel()
	answers := []struct {
		name, body, ctype string
		inDescription     string
	}{
		{"empty", "", "application/json", "empty body"},
		{"white space", " \n", "application/json", "empty body"},
		{"null", "null", "application/json", "null body"},
		{"HTML", "<html><body>Welcome to nginx!</body></html>", "text/html", "Welcome to nginx!"},
		{"garbage", "\x00\x01garbage", "", "garbage"},
		{"truncated", `{"id":"tr6cxbcefzatd10guvvw","amount":10`, "application/json", "not the expected JSON"},
		{"an array for an object", `[` + tpTx + `]`, "application/json", "not the expected JSON"},
		{"a number", `42`, "application/json", "not the expected JSON"},
		{"an empty object", `{}`, "application/json", "no id"},
		{"another JSON shape", `{"status":"ok","data":{"id":"x"}}`, "application/json", "no id"},
		{"an amount of the wrong type", `{"id":"tr1","amount":"many"}`, "application/json", "not the expected JSON"},
	}
	for _, a := range answers {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(a.name+" "+method, func(t *testing.T) {
				t.Parallel()
				srv := newScriptServer(t, reply(200, a.body, "Content-Type", a.ctype, "X-Request-Id", "req-2xx-1"))
				c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL), WithRetryPolicy(fastPolicy(2)))
				require.NoError(t, err)
				var tx *Transaction
				if method == http.MethodGet {
					tx, err = c.Charges.Get(context.Background(), "tr6cxbcefzatd10guvvw")
				} else {
					tx, err = c.Charges.Create(context.Background(), InlineCardCharge{Card: CardDetails{HolderName: "A", CardNumber: tpCard,
						CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}, Amount: MustAmount("10"), Description: "d"}, WithClientIP("203.0.113.1"))
				}
				assert.Nil(t, tx, "no transaction from an unusable answer")
				var oe *Error
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, 200, oe.HTTPStatus)
				assert.Equal(t, "req-2xx-1", oe.RequestID)
				assert.Zero(t, oe.Code)
				assert.Contains(t, oe.Description, a.inDescription)
				assert.Contains(t, err.Error(), "HTTP 200")
				assert.Contains(t, err.Error(), "req-2xx-1")
				// A hostile server's request id never carries a secret.
				srv2 := newScriptServer(t, reply(200, a.body, "Content-Type", a.ctype, "X-Request-Id", "Basic "+tpBasic))
				c2, err2 := New(tpMerchant, tpKey, WithBaseURL(srv2.URL))
				require.NoError(t, err2)
				var info ResponseInfo
				_, err2 = c2.Charges.Get(context.Background(), "tr1", WithResponseInfo(&info))
				require.ErrorAs(t, err2, &oe)
				assert.Equal(t, invalidRequestID, oe.RequestID)
				assert.Equal(t, invalidRequestID, info.RequestID)
				if method == http.MethodPost {
					assert.ErrorIs(t, err, ErrOutcomeUnknown, "the gateway may have charged")
				} else {
					assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a read changes nothing")
				}
				if method == http.MethodPost {
					assert.Equal(t, ClassUnknown, ClassOf(err))
				} else {
					assert.Equal(t, ClassTemporary, ClassOf(err))
				}
				assert.Equal(t, 1, srv.count(), "a 2xx is never retried")
				assertNoSecrets(t, "error", errorText(err))
			})
		}
	}

	t.Run("list items without ids", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, okReply(`[`+tpTx+`,{}]`))
		c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL))
		require.NoError(t, err)
		_, err = c.Charges.ListPage(context.Background(), nil)
		var oe *Error
		require.ErrorAs(t, err, &oe)
		assert.Contains(t, oe.Description, "no id")
	})

	// Calls answered with no body (deletes, verification) take any 2xx.
	t.Run("empty answers where none is expected", func(t *testing.T) {
		t.Parallel()
		for _, st := range []step{reply(204, ""), reply(200, ""), reply(200, "{}")} {
			srv := newScriptServer(t, st)
			c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL))
			require.NoError(t, err)
			require.NoError(t, c.Cards.Delete(context.Background(), "kq3r1x"))
			require.NoError(t, c.Webhooks.Verify(context.Background(), "wh1", "abcd1234"))
		}
		// A page that is not JSON is nobody's answer to a delete.
		srv := newScriptServer(t, htmlPage(200, "<html>Welcome</html>"))
		c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL))
		require.NoError(t, err)
		err = c.Cards.Delete(context.Background(), "kq3r1x")
		var oe *Error
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, 200, oe.HTTPStatus)
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
	})
}

// A 2xx answer that is not usable, on a request carrying an order_id, is
// settled by the lookup by order_id, as a lost answer is.
func TestUnusableSuccessReconciled(t *testing.T) {
	t.Parallel()
	want := txExpectation{orderID: tpOrderID, amount: MustAmount("100.00"), method: TransactionMethodCard, txType: TransactionTypeCharge}
	post := apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true, want: want}
	t.Run("found", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, htmlPage(200, "<html>OK</html>"), okReply("["+tpTx+"]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		require.NoError(t, h.call(context.Background(), post, &tx))
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		reqs := srv.requests()
		require.Len(t, reqs, 2, "one POST, one lookup: a 2xx is not sent again")
		assert.Equal(t, http.MethodGet, reqs[1].Method)
		assert.Contains(t, reqs[1].RawQuery, "order_id="+tpOrderID)
	})
	t.Run("not found", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(200, ""), okReply("[]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		err := h.call(context.Background(), post, &tx)
		var ue *OutcomeUnknownError
		require.ErrorAs(t, err, &ue)
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.NoError(t, ue.Lookup)
		var oe *Error
		require.ErrorAs(t, err, &oe, "the unusable answer stays reachable")
		assert.Equal(t, 200, oe.HTTPStatus)
		assert.Empty(t, tx.ID)
	})
}

// When the answer to a request with an order_id is lost, the retry meets
// 1006 and the lookup fails too, the call made a charge that nobody has
// seen: the error must say the outcome is unknown, and keep both causes.
func TestFailedReconciliationIsUnknown(t *testing.T) {
	t.Parallel()
	want := txExpectation{orderID: tpOrderID, amount: MustAmount("100.00"), method: TransactionMethodCard, txType: TransactionTypeCharge}
	post := apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true, want: want}
	lookupFailures := map[string]step{
		"lookup answered 401":   reply(401, `{"category":"request","error_code":1002,"description":"The api key or merchant id are invalid","http_code":401,"request_id":"r-401"}`),
		"lookup answered HTML":  htmlPage(404, "<html>gone</html>"),
		"lookup dropped":        drop(),
		"lookup found nothing":  okReply("[]"),
		"lookup answered junk":  okReply("{}"),
		"lookup answered [{}] ": okReply("[{}]"),
	}
	for name, lookup := range lookupFailures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, drop(), reply(409, dupOrder), lookup)
			h := newHarness(t, srv.URL, WithRetryPolicy(fastPolicy(1)))
			var tx Transaction
			err := h.call(context.Background(), post, &tx)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.ErrorIs(t, err, ErrDuplicateOrderID, "the 1006 stays reachable")
			var ue *OutcomeUnknownError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, tpOrderID, ue.OrderID)
			var dup *Error
			require.ErrorAs(t, ue.Err, &dup)
			assert.Equal(t, ErrDuplicateOrderID, dup.Code)
			if name == "lookup found nothing" {
				assert.NoError(t, ue.Lookup)
			} else {
				require.Error(t, ue.Lookup, "the lookup's failure stays reachable")
			}
			var conflict *OrderConflictError
			assert.False(t, errors.As(err, &conflict), "nothing says the order_id is someone else's")
			assert.Equal(t, ClassUnknown, ClassOf(err))
			assert.Empty(t, tx.ID)
			assert.Contains(t, h.logs.String(), `"level":"WARN","msg":"openpay: outcome unknown"`)
		})
	}
}

// Without a currency in the request the gateway charges in the account's
// currency, which is not MXN in Colombia or Peru: reconciliation compares
// the currency only when the request names one.
func TestReconciliationCurrency(t *testing.T) {
	t.Parallel()
	withCurrency := func(cur string) string {
		return strings.Replace(tpTx, `"currency":"MXN"`, `"currency":"`+cur+`"`, 1)
	}
	store := strings.NewReplacer(`"method":"card"`, `"method":"store"`)
	for _, tt := range []struct {
		name      string
		requested Currency
		method    TransactionMethod
		found     string
		conflict  bool
	}{
		{"store charge in COP, no currency asked", "", TransactionMethodStore, store.Replace(withCurrency("COP")), false},
		{"store charge in PEN, no currency asked", "", TransactionMethodStore, store.Replace(withCurrency("PEN")), false},
		{"card charge in MXN, no currency asked", "", TransactionMethodCard, tpTx, false},
		{"asked mxn, found MXN", "mxn", TransactionMethodCard, tpTx, false},
		{"asked USD, found MXN", CurrencyUSD, TransactionMethodCard, tpTx, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := txExpectation{orderID: tpOrderID, amount: MustAmount("100.00"), currency: tt.requested, method: tt.method, txType: TransactionTypeCharge}
			srv := newScriptServer(t, drop(), reply(409, dupOrder), okReply("["+tt.found+"]"))
			h := newHarness(t, srv.URL)
			var tx Transaction
			err := h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true, want: want}, &tx)
			if tt.conflict {
				var ce *OrderConflictError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, ClassFault, ClassOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		})
	}
}

// A final answer met after an earlier attempt that the gateway may have
// carried out may be about that attempt (a used token, a duplicate): the
// lookup decides. After a 503, which refuses before acting, it is taken as
// it is.
func TestFinalAnswerAfterEarlierAttempt(t *testing.T) {
	t.Parallel()
	want := txExpectation{orderID: tpOrderID, amount: MustAmount("100.00"), method: TransactionMethodCard, txType: TransactionTypeCharge}
	post := apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true, want: want}
	usedToken := `{"category":"request","error_code":1003,"description":"This source_id was already used","http_code":422,"request_id":"r-1003"}`
	declined := `{"category":"gateway","error_code":3001,"description":"The card was declined","http_code":402,"request_id":"r-3001"}`

	t.Run("504, then the token is used: the first attempt charged", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(504, ""), reply(422, usedToken), okReply("["+tpTx+"]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		require.NoError(t, h.call(context.Background(), post, &tx))
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		assert.Equal(t, 3, srv.count())
	})
	t.Run("504, then declined, nothing found: the decline stands", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(504, ""), reply(402, declined), okReply("[]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		err := h.call(context.Background(), post, &tx)
		assert.ErrorIs(t, err, ErrCardDeclined)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		assert.Equal(t, ClassDeclined, ClassOf(err))
		assert.Equal(t, 3, srv.count())
	})
	// A 503 may have acted like a 500 (issue 31): the decline after it is
	// looked up, and the charge the 503 hid is the call's result.
	t.Run("503, then declined: looked up", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(503, err1004), reply(402, declined), okReply("["+tpTx+"]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		err := h.call(context.Background(), post, &tx)
		require.NoError(t, err)
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		assert.Equal(t, 3, srv.count(), "two attempts, then the lookup")
	})
	t.Run("server errors until the retries are spent, then found", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(500, err1000), reply(500, err1000), reply(500, err1000), okReply("["+tpTx+"]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		require.NoError(t, h.call(context.Background(), post, &tx))
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
	})
	t.Run("every answer lost, then found", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, drop(), drop(), drop(), okReply("["+tpTx+"]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		require.NoError(t, h.call(context.Background(), post, &tx))
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		logs := h.logs.String()
		assert.Contains(t, logs, `"level":"WARN","msg":"openpay: retrying"`)
		assert.Contains(t, logs, `"level":"WARN","msg":"openpay: outcome unclear, looking the transaction up by order_id"`)
		assert.Contains(t, logs, `"level":"INFO","msg":"openpay: reconciled: the request's own transaction was found by order_id"`)
	})
}

// A production logger (Info) sees retries, reconciliations and unknown
// outcomes, and none of the per-attempt debug records.
func TestWarnLevelRecords(t *testing.T) {
	t.Parallel()
	// The calls run one after another on this goroutine: no lock needed.
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := newScriptServer(t, reply(503, err1004), okReply(tpTx), drop())
	c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL), WithRetryPolicy(fastPolicy(2)), WithLogger(logger))
	require.NoError(t, err)
	_, err = c.Charges.Get(context.Background(), "tr6cxbcefzatd10guvvw")
	require.NoError(t, err)
	_, err = c.Charges.Create(context.Background(), InlineCardCharge{Card: CardDetails{HolderName: "A", CardNumber: tpCard,
		CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}, Amount: MustAmount("10"), Description: "d"}, WithClientIP("203.0.113.1"))
	require.ErrorIs(t, err, ErrOutcomeUnknown)

	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		records = append(records, m)
	}
	require.Len(t, records, 2, buf.String())
	assert.Equal(t, "WARN", records[0]["level"])
	assert.Equal(t, "openpay: retrying", records[0]["msg"])
	assert.EqualValues(t, 503, records[0]["status"])
	assert.Equal(t, "WARN", records[1]["level"])
	assert.Equal(t, "openpay: outcome unknown", records[1]["msg"])
	assert.Equal(t, http.MethodPost, records[1]["method"])
	assertNoSecrets(t, "log", buf.String())
}

// A transaction found by order_id is the call's own only when it has the
// call's terms and source and was made after the call began, by the
// gateway's clock (scriptDate stands at tpTx's creation, 12:00:00).
func TestReconcileOwnership(t *testing.T) {
	t.Parallel()
	withCard := func(tx, card string) string {
		return strings.Replace(tx, `"order_id"`, `"card":`+card+`,"order_id"`, 1)
	}
	createdAt := func(tx, at string) string {
		return strings.Replace(tx, `"creation_date":"2024-03-09T12:00:00-06:00"`, `"creation_date":"`+at+`"`, 1)
	}
	failed := func(tx, extra string) string {
		return strings.Replace(tx, `"status":"completed"`, `"status":"failed"`+extra, 1)
	}
	visa := `{"card_number":"411111XXXXXX1111","holder_name":"A","expiration_month":"12","expiration_year":"30","brand":"visa"}`
	storedVisa := `{"id":"kvisa","card_number":"411111XXXXXX1111","holder_name":"A","expiration_month":"12","expiration_year":"30","brand":"visa"}`
	token := func(number string) step {
		return okReply(`{"id":"tok1","card":{"card_number":"` + number + `","holder_name":"A","expiration_month":"12","expiration_year":"30","brand":"visa"}}`)
	}
	base := txExpectation{orderID: tpOrderID, amount: MustAmount("100.00"), method: TransactionMethodCard, txType: TransactionTypeCharge}
	tests := []struct {
		name  string
		want  txExpectation
		found string
		more  []step // answers after the lookup's
		// own: the call's charge; code: the decline it stands for;
		// conflict: another's; otherwise the outcome stays unknown.
		own      bool
		code     Code
		conflict bool
	}{
		{name: "made at the gateway's Date", want: base, found: tpTx, own: true},
		{name: "made 4s before the Date: clocks to the second", want: base, found: createdAt(tpTx, "2024-03-09T11:59:56-06:00"), own: true},
		// An exact re-send is idempotent (issue 31): a transaction made
		// before the call, with its terms, is its own.
		{name: "made a minute before the call: an exact re-send", want: base, found: createdAt(tpTx, "2024-03-09T11:59:00-06:00"), own: true},
		{name: "no creation date: not judged by time", want: base, found: strings.Replace(tpTx, `"creation_date":"2024-03-09T12:00:00-06:00",`, "", 1), own: true},
		{name: "stored card, same id", want: withSource(base, "kvisa", true), found: withCard(tpTx, storedVisa), own: true},
		{name: "stored card, another id", want: withSource(base, "kother", false), found: withCard(tpTx, storedVisa), conflict: true},
		{name: "token of the same card", want: withSource(base, "tok1", true), found: withCard(tpTx, visa), more: []step{token("411111XXXXXX1111")}, own: true},
		{name: "token of another card", want: withSource(base, "tok1", true), found: withCard(tpTx, visa), more: []step{token("424242XXXXXX4242")}, conflict: true},
		{name: "neither the card nor a token", want: withSource(base, "tok1", true), found: withCard(tpTx, visa),
			more: []step{reply(404, `{"category":"request","error_code":1005,"description":"The requested resource doesn't exist","http_code":404}`)}, conflict: true},
		{name: "the token cannot be read", want: withSource(base, "tok1", true), found: withCard(tpTx, visa),
			more: []step{reply(401, `{"category":"request","error_code":1002,"description":"The api key or merchant id are invalid","http_code":401}`)}},
		{name: "card in the request, same card", want: txExpectation{orderID: tpOrderID, amount: MustAmount("100"), method: TransactionMethodCard,
			txType: TransactionTypeCharge, cardNumber: "4111 1111 1111 1111"}, found: withCard(tpTx, visa), own: true},
		{name: "card in the request, another card", want: txExpectation{orderID: tpOrderID, amount: MustAmount("100"), method: TransactionMethodCard,
			txType: TransactionTypeCharge, cardNumber: "4242424242424242"}, found: withCard(tpTx, visa), conflict: true},
		{name: "another customer's", want: withCustomer(base, "c2"), found: strings.Replace(tpTx, `"order_id"`, `"customer_id":"c1","order_id"`, 1), conflict: true},
		{name: "declined, with its code", want: base, found: failed(tpTx, `,"error_code":3003,"error_message":"whatever"`), code: ErrCardInsufficientFunds},
		{name: "declined, the code named by its message", want: base, found: failed(tpTx, `,"error_message":"The card has expired."`), code: ErrCardExpired},
		{name: "declined, no code named", want: base, found: failed(tpTx, `,"error_message":"Declined by the issuer"`), code: ErrCardDeclined},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, append([]step{drop(), reply(409, dupOrder), okReply("[" + tt.found + "]")}, tt.more...)...)
			h := newHarness(t, srv.URL)
			var tx Transaction
			var info ResponseInfo
			err := h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true, want: tt.want},
				&tx, WithResponseInfo(&info))
			var conflict *OrderConflictError
			switch {
			case tt.own:
				require.NoError(t, err)
				assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
				assert.Equal(t, ResponseInfo{HTTPStatus: 200, RequestID: tpRequestID, Attempts: 2, Reconciled: true}, info)
			case tt.code != 0:
				assert.ErrorIs(t, err, tt.code)
				assert.Equal(t, ClassDeclined, ClassOf(err))
				var oe *Error
				require.ErrorAs(t, err, &oe)
				require.NotNil(t, oe.Transaction)
				assert.Equal(t, "tr6cxbcefzatd10guvvw", oe.Transaction.ID)
				assert.Equal(t, 402, oe.HTTPStatus)
				assert.Equal(t, 402, info.HTTPStatus)
				assert.True(t, info.Reconciled)
				assert.Empty(t, tx.ID)
			case tt.conflict:
				require.ErrorAs(t, err, &conflict)
				assert.ErrorIs(t, err, ErrDuplicateOrderID)
				assert.False(t, info.Reconciled)
				assert.Equal(t, 409, info.HTTPStatus)
				assert.Empty(t, tx.ID)
			default:
				assert.ErrorIs(t, err, ErrOutcomeUnknown)
				assert.False(t, errors.As(err, &conflict))
				var ue *OutcomeUnknownError
				require.ErrorAs(t, err, &ue)
				assert.ErrorIs(t, ue.Lookup, ErrUnauthorized)
			}
		})
	}
}

func withSource(w txExpectation, source string, token bool) txExpectation {
	w.source, w.token = source, token
	return w
}

func withCustomer(w txExpectation, customer string) txExpectation {
	w.customer = customer
	return w
}
