package refserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPanicsAnswerTheInternalErrorObject(t *testing.T) {
	t.Parallel()
	var logs syncBuf
	env := newTestEnv(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	env.s.routes.add("testPanic", http.MethodGet, "/v1/{merchant_id}/panic", http.StatusOK, func(c *call) (any, *Error) {
		panic("secret detail 4111111111111111")
	})
	r := env.get("/panic")
	desc := requireError(t, r, 1000)
	assert.Equal(t, descInternal, desc)
	assert.NotContains(t, string(r.body), "secret")
	assert.Contains(t, logs.String(), "recovered from a panic")
	assert.NotContains(t, logs.String(), "secret detail")
}

func TestDeactivatedAccountsRefuseCharges(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, true)
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	m.customers.lookup(cu).deactivated = true
	m.customers.mark(cu)
	m.mu.Unlock()
	desc := requireError(t, env.post("/customers/"+cu+"/charges", map[string]any{"method": "store", "amount": 1, "description": "x"}), 1008)
	assert.Contains(t, desc, "customer")
	m.mu.Lock()
	m.status = "deleted"
	m.mark(recMerchant, selfID)
	m.mu.Unlock()
	desc = requireError(t, env.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x"}), 1008)
	assert.Contains(t, desc, "merchant")
}

func TestSimulationControlsOverHTTP(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	sim := func(path, key string, body any) resp {
		return env.do(http.MethodPost, "/_simulate/"+env.m.ID+path, key, body)
	}
	store := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x"}), 200)["id"].(string)
	requireError(t, sim("/charges/"+store+"/pay", env.m.PublicKey, nil), 1010)
	requireError(t, sim("/charges/"+store+"/pay", env.other.PrivateKey, nil), 1002)
	requireError(t, sim("/charges/trnothere/pay", env.m.PrivateKey, nil), 1005)
	o := requireOK(t, sim("/charges/"+store+"/pay", env.m.PrivateKey, nil), 200)
	assert.Equal(t, "completed", o["status"])
	requireError(t, sim("/charges/"+store+"/pay", env.m.PrivateKey, nil), 1003)
	requireError(t, sim("/charges/"+store+"/complete", env.m.PrivateKey, nil), 1003)

	ivr := requireOK(t, env.post("/charges", map[string]any{"method": "card", "confirm": "ivr", "amount": 10, "description": "x",
		"customer": map[string]any{"name": "a", "email": "a@example.com"}}), 200)["id"].(string)
	requireError(t, sim("/charges/"+ivr+"/fail", env.m.PrivateKey, map[string]any{"error_code": 1001}), 1003)
	requireError(t, sim("/charges/"+ivr+"/fail", env.m.PrivateKey, map[string]any{"error_code": "x"}), 1001)
	o = requireOK(t, sim("/charges/"+ivr+"/fail", env.m.PrivateKey, map[string]any{"error_code": 3004}), 200)
	assert.Equal(t, "failed", o["status"])
	assert.Equal(t, declineMessage(3004), o["error_message"])

	redirect := requireOK(t, env.post("/charges", map[string]any{"method": "card", "confirm": false, "amount": 10, "description": "x",
		"redirect_url": "https://a.example", "customer": map[string]any{"name": "a", "email": "a@example.com"}}), 200)["id"].(string)
	o = requireOK(t, sim("/charges/"+redirect+"/complete", env.m.PrivateKey, nil), 200)
	assert.Equal(t, "completed", o["status"])
	o = requireOK(t, sim("/charges/"+redirect+"/chargeback", env.m.PrivateKey, nil), 200)
	assert.Equal(t, "chargeback_pending", o["status"])
	requireError(t, sim("/charges/"+redirect+"/chargeback/resolve", env.m.PrivateKey, "{}"), 1001)
	o = requireOK(t, sim("/charges/"+redirect+"/chargeback/resolve", env.m.PrivateKey, map[string]any{"accepted": true}), 200)
	assert.Equal(t, "chargeback_accepted", o["status"])

	o = requireOK(t, sim("/clock/advance", env.m.PrivateKey, map[string]any{"seconds": 90}), 200)
	assert.Equal(t, "2026-03-10T12:01:30-06:00", o["now"])
	requireError(t, sim("/clock/advance", env.m.PrivateKey, map[string]any{"seconds": 0}), 1003)
	requireError(t, sim("/clock/advance", env.m.PrivateKey, "{}"), 1001)
	requireError(t, sim("/clock/advance", env.m.PrivateKey, ""), 1001)
	// On the wall clock a merchant's advance gives it a fake clock of its
	// own (clock.go); the server's AdvanceClock still needs a fake one.
	wall := newTestEnv(t, Options{Clock: RealClock{}})
	before := time.Now().Truncate(time.Second)
	o = requireOK(t, wall.do(http.MethodPost, "/_simulate/"+wall.m.ID+"/clock/advance", wall.m.PrivateKey, map[string]any{"seconds": 3600}), 200)
	moved, err := time.Parse(time.RFC3339, o["now"].(string))
	require.NoError(t, err)
	assert.False(t, moved.Before(before.Add(time.Hour)), "%v", moved)
	_, err = wall.s.AdvanceClock(time.Second)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, openpay.ErrInvalidParameter, e.Code)
	requireErrorStatus(t, env.do(http.MethodGet, "/_simulate/"+env.m.ID+"/clock/advance", env.m.PrivateKey, nil), 1001, 405, "request")
}

// syncBuf is a buffer the server's logger and a test can share.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogsCarryNoSecrets runs requests full of card data and keys (in
// bodies, paths, query strings and headers), good and bad, with the logger
// at debug level, and checks that nothing of it reaches the log.
func TestLogsCarryNoSecrets(t *testing.T) {
	t.Parallel()
	var logs syncBuf
	env := newTestEnv(t, Options{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	const number, amex, cvv = "4242424242424242", "343434343434343", "4827"
	cu := newCustomer(t, env, true)
	tok := requireOK(t, env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, with(validCard(number), "cvv2", "311")), 200)["id"].(string)
	requireOK(t, env.post("/customers/"+cu+"/cards", with(validCard(amex), "cvv2", cvv)), 200)
	requireOK(t, env.post("/charges", map[string]any{"method": "card", "source_id": tok, "amount": 10, "description": "x"}), 200)
	requireError(t, env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": number,
		"card": with(validCard("4000000000030017"), "cvv2", "555")}), 3001)
	requireError(t, env.post("/cards", with(validCard(number), "cvv2", "12")), 2009)
	requireError(t, env.post("/cards", with(validCard("4242424242424241"), "cvv2", cvv)), 2004)
	requireError(t, env.get("/cards/"+number), 1005)
	require.Equal(t, http.StatusOK, env.get("/charges?order_id="+number+"&cvv2="+cvv).status)
	requireError(t, env.do(http.MethodGet, env.mp(""), "sk_"+number, nil), 1002)
	requireError(t, env.do(http.MethodGet, env.mp("/"+number), env.m.PrivateKey, nil), 1005)
	requireError(t, env.do(http.MethodGet, env.mp(""), env.m.PublicKey, nil), 1010)
	requireErrorStatus(t, env.do(http.MethodPatch, env.mp("/cards"), env.m.PrivateKey, number), 1001, 405, "request")
	requireErrorStatus(t, env.do("X"+number, env.mp("/cards"), env.m.PrivateKey, nil), 1001, 405, "request")

	out := logs.String()
	require.Contains(t, out, `"operation":"createCharge"`, "the log is at debug level and records requests")
	require.Contains(t, out, `"operation":"unmatched"`)
	for _, secret := range []string{number, amex, "4000000000030017", "4242424242424241", env.m.PrivateKey, env.m.PublicKey,
		env.other.PrivateKey, "cvv2", "card_number", "Authorization", "Basic "} {
		assert.NotContains(t, out, secret)
	}
	// A security code would show as a whole number or string; digits inside
	// longer numbers and hex request ids are not one.
	for _, code := range []string{cvv, "311", "555"} {
		assert.NotRegexp(t, regexp.MustCompile(`(^|[^0-9a-f.-])`+code+`([^0-9a-f-]|$)`), out, "security code %s", code)
	}
	// Every line is a request record or a warning, with a fixed set of keys.
	// A request that matches no operation also has its path (what a client
	// with a wrong base URL asked for), with card-like numbers hidden: the
	// secrets above are checked on it too.
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		for k := range rec {
			assert.Contains(t, []string{"time", "level", "msg", "operation", "method", "status", "duration", "request_id", "panic_type", "path"}, k)
		}
		if _, ok := rec["path"]; ok {
			assert.Equal(t, "unmatched", rec["operation"], "only unmatched requests carry their path")
		}
	}
}

// FuzzServeHTTP sends arbitrary methods, paths, bodies and credentials:
// the server never panics and never answers 5xx; every answer but a barcode
// or an empty one is the JSON error object or a JSON value.
func FuzzServeHTTP(f *testing.F) {
	seed := int64(1)
	s := New(Options{IDSeed: &seed, Clock: NewFakeClock(testStart)})
	m, err := s.AddMerchant(MerchantConfig{ID: "mfuzzmerchant0000001", PrivateKey: "sk_fuzz", PublicKey: "pk_fuzz"})
	require.NoError(f, err)
	g, err := s.AddGroup(GroupConfig{ID: "gfuzz", PrivateKey: "sk_group", MerchantIDs: []string{m.ID}})
	require.NoError(f, err)
	cu, err := s.CreateCustomer(m.ID, openpayCustomer("Fuzz", true))
	require.NoError(f, err)
	for _, c := range []struct {
		method, path, body string
		key                byte
	}{
		{"POST", "/charges", `{"method":"card","source_id":"x","amount":10,"description":"d"}`, 1},
		{"POST", "/charges", `{"method":"card","amount":10.001,"description":"d","card":{"card_number":"4111111111111111","holder_name":"a","expiration_month":"12","expiration_year":"30","cvv2":"123"}}`, 1},
		{"POST", "/charges", `{"method":"store","amount":1e400,"description":"d","due_date":"2030-01-01"}`, 1},
		{"POST", "/charges", `{"method":"card","confirm":"ivr","amount":"1","description":"d","customer":{"name":1}}`, 1},
		{"POST", "/customers/" + cu.ID + "/charges", `{"method":"bank_account","amount":5,"description":"d","order_id":"o"}`, 1},
		{"POST", "/charges", `{"method":"card","confirm":false,"amount":5,"description":"d","redirect_url":"http://a","customer":{"name":"a","email":"a@b.co","address":{"line1":"x"}}}`, 1},
		{"POST", "/cards", `{"token_id":null,"card_number":4111111111111111,"cvv2":123,"expiration_month":1,"expiration_year":30,"holder_name":"x"}`, 2},
		{"POST", "/tokens", `{"card_number":"4111111111111111","address":[],"cvv2":"1"}`, 2},
		{"PUT", "/cards/k1", `{"expiration_month":"99"}`, 1},
		{"GET", "/charges?limit=0&offset=-1&creation[gte]=x&amount[lte]=1e99999&status=%ZZ", "", 1},
		{"POST", "/charges/tr1/refund", `{"amount":-0}`, 1},
		{"POST", "/charges/tr1/capture", `[]`, 1},
		{"GET", "", "", 0},
		{"GET", "/../../etc/passwd", "", 1},
		{"DELETE", "/customers/" + cu.ID + "/cards/x", "", 1},
		{"POST", "/webhooks", `{"url":"http://x"}`, 1},
		{"GET", "/v1/groups/gfuzz/customers", "", 3},
		{"POST", "/v1/groups/gfuzz/merchants/" + m.ID + "/charges", `{"method":"alipay","amount":3,"description":"d","redirect_url":"x"}`, 3},
		{"GET", "/barcode/%00", "", 0},
		{"GET", "/stores?latitud=x", "", 0},
		{"POST", "/_simulate/" + m.ID + "/clock/advance", `{"seconds":9e18}`, 1},
		{"BREW", "/charges", "{", 1},
	} {
		f.Add(c.method, c.path, c.body, c.key)
	}
	f.Fuzz(func(t *testing.T, method, path, body string, key byte) {
		if method == "" || strings.ContainsAny(method, " \t\r\n") {
			method = http.MethodGet
		}
		full := path
		if key%4 == 1 || key%4 == 2 {
			if !strings.HasPrefix(path, "/v1/") && !strings.HasPrefix(path, "/_simulate/") {
				full = "/v1/" + m.ID + path
			}
		}
		if !strings.HasPrefix(full, "/") {
			full = "/" + full
		}
		u, err := url.ParseRequestURI(full)
		if err != nil {
			return
		}
		req := &http.Request{Method: method, URL: u, Header: http.Header{}, Host: "example.com",
			Body: http.NoBody, ContentLength: int64(len(body))}
		if body != "" {
			req.Body = readCloser{strings.NewReader(body)}
		}
		switch key % 4 {
		case 1:
			req.SetBasicAuth("sk_fuzz", "")
		case 2:
			req.SetBasicAuth("pk_fuzz", "")
		case 3:
			req.SetBasicAuth(g.PrivateKey, "")
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		res := rec.Result()
		require.Less(t, res.StatusCode, 500, "5xx answer %s", rec.Body.String())
		if ct := res.Header.Get("Content-Type"); ct == "application/json" {
			require.True(t, json.Valid(rec.Body.Bytes()), "invalid JSON: %q", rec.Body.String())
		} else if rec.Body.Len() > 0 {
			require.Equal(t, "image/png", ct)
		}
	})
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// TestAnswersCarryTheirLength checks that JSON answers, small or large, go
// out with a Content-Length (set by the server above net/http's chunking
// buffer, by net/http below it), never chunked, so clients can size their
// read.
func TestAnswersCarryTheirLength(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	var id string
	for i := range 30 {
		o := requireOK(t, env.post("/charges", cardCharge(card, "description", strings.Repeat("d", 200), "order_id", fmt.Sprint("o-", i))), http.StatusOK)
		id = o["id"].(string)
	}
	for _, path := range []string{env.mp("/charges/" + id), env.mp("/charges?limit=30")} {
		req, err := http.NewRequest(http.MethodGet, env.srv.URL+path, nil)
		require.NoError(t, err)
		req.SetBasicAuth(env.m.PrivateKey, "")
		res, err := env.srv.Client().Do(req)
		require.NoError(t, err)
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
		assert.Empty(t, res.TransferEncoding, path)
		assert.Equal(t, int64(len(data)), res.ContentLength, path)
	}
}
