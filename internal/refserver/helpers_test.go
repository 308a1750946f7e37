package refserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testEnv is a server behind httptest with two merchants and a group, for
// tests that speak raw HTTP and JSON.
type testEnv struct {
	t     testing.TB
	s     *Server
	srv   *httptest.Server
	m     MerchantConfig // the main merchant
	other MerchantConfig // a second merchant
	g     GroupConfig    // a group with the main merchant (Mexico only)
	clock *FakeClock
}

// testStart is the fake clock's start in deterministic tests.
var testStart = time.Date(2026, 3, 10, 12, 0, 0, 0, gatewayZone)

func newTestEnv(t testing.TB, opts Options) *testEnv {
	t.Helper()
	env := &testEnv{t: t}
	if opts.Clock == nil {
		env.clock = NewFakeClock(testStart)
		opts.Clock = env.clock
	}
	env.s = New(opts)
	env.srv = httptest.NewServer(env.s)
	t.Cleanup(env.srv.Close)
	t.Cleanup(env.s.Close)
	env.addMerchants()
	if withDataDir(t) {
		checkData(t, env.s)
	}
	return env
}

// addMerchants adds the main and the other merchant and, in Mexico, the
// group.
func (e *testEnv) addMerchants() {
	t := e.t
	t.Helper()
	var err error
	e.m, err = e.s.AddMerchant(MerchantConfig{Name: "Main merchant"})
	require.NoError(t, err)
	e.other, err = e.s.AddMerchant(MerchantConfig{Name: "Other merchant"})
	require.NoError(t, err)
	if r, _ := countryrules.Of(e.s.opts.Country); r == countryrules.Mexico { // groups exist in Mexico only
		e.g, err = e.s.AddGroup(GroupConfig{MerchantIDs: []string{e.m.ID}})
		require.NoError(t, err)
	}
}

// checkData makes s persist into a temporary directory and compare the
// store with its whole state written afresh after each of the first
// checkEvery requests that change something, then after every power of
// two (and when the test ends, if requests came after the last
// comparison): a change a handler made without marking its record fails
// the test. (A comparison reads the whole state: after every request of a
// test that makes thousands, the package's tests would take minutes.) The
// package's tests run so under TestWithDataDir (bothways_test.go).
func checkData(t testing.TB, s *Server) {
	t.Helper()
	restored, err := s.openData(t.TempDir(), false)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.data.Close() })
	require.False(t, restored)
	require.NoError(t, s.SaveData())
	const checkEvery = 200
	var mu sync.Mutex
	var diffs []string
	var commits int
	unchecked := false // a commit came after the last comparison
	compare := func() {
		diff := s.data.Diff()
		mu.Lock()
		defer mu.Unlock()
		diffs = append(diffs, diff...)
	}
	s.data.AfterCommit(func() {
		mu.Lock()
		commits++
		n := commits
		skip := n > checkEvery && n&(n-1) != 0
		unchecked = skip
		mu.Unlock()
		if !skip {
			compare()
		}
	})
	t.Cleanup(func() {
		mu.Lock()
		last := unchecked
		mu.Unlock()
		if last {
			compare()
		}
		mu.Lock()
		defer mu.Unlock()
		assert.Empty(t, diffs, "records changed without being marked")
	})
}

// resp is a raw HTTP answer.
type resp struct {
	status int
	header http.Header
	body   []byte
}

// obj decodes the body as a JSON object.
func (r resp) obj(t testing.TB) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(r.body, &v), "body %s", r.body)
	return v
}

// arr decodes the body as a JSON array of objects.
func (r resp) arr(t testing.TB) []map[string]any {
	t.Helper()
	var v []map[string]any
	require.NoError(t, json.Unmarshal(r.body, &v), "body %s", r.body)
	return v
}

// do sends a request with key as the Basic user (no Authorization header
// when key is ""). body is sent as is when it is a string or []byte, encoded
// as JSON otherwise (nil sends nothing).
func (e *testEnv) do(method, path, key string, body any, headers ...string) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		require.NoError(e.t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	require.NoError(e.t, err)
	if key != "" {
		req.SetBasicAuth(key, "")
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.srv.Client().Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	return resp{status: res.StatusCode, header: res.Header, body: data}
}

// mp is the main merchant's path prefix followed by rest.
func (e *testEnv) mp(rest string) string { return "/v1/" + e.m.ID + rest }

// post sends a POST with the main merchant's private key.
func (e *testEnv) post(path string, body any, headers ...string) resp {
	e.t.Helper()
	return e.do(http.MethodPost, e.mp(path), e.m.PrivateKey, body, headers...)
}

// get sends a GET with the main merchant's private key.
func (e *testEnv) get(path string) resp {
	e.t.Helper()
	return e.do(http.MethodGet, e.mp(path), e.m.PrivateKey, nil)
}

// created is the status the main merchant's creates of customers, cards
// and tokens answer: 201 in Peru (the vendor's Peru suite), 200 elsewhere.
func (e *testEnv) created() int {
	if r, _ := countryrules.Of(e.s.opts.Country); r == countryrules.Peru {
		return http.StatusCreated
	}
	return http.StatusOK
}

// requireOK checks a 2xx answer with the wanted status and returns its
// object.
func requireOK(t testing.TB, r resp, status int) map[string]any {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	if status == http.StatusNoContent {
		require.Empty(t, r.body)
		return nil
	}
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	return r.obj(t)
}

// requireError checks that r is the gateway's error object with the given
// code, the code's HTTP status and category, and the complete shape:
// category, description, error_code, http_code (equal to the status) and
// request_id (equal to the X-Request-Id header). It returns the description.
func requireError(t testing.TB, r resp, code int) string {
	t.Helper()
	wantStatus := map[int]int{1000: 500, 1001: 400, 1002: 401, 1003: 422, 1004: 503, 1005: 404, 1006: 409, 1007: 402,
		1008: 423, 1009: 413, 1010: 403, 2001: 409, 2002: 409, 2003: 409, 2004: 422, 2005: 400, 2006: 400,
		2007: 412, 2008: 412, 2009: 412, 3001: 402, 3002: 402, 3003: 402, 3004: 402, 3005: 402, 3006: 412,
		3008: 412, 3009: 402, 3010: 402, 3011: 402, 3012: 412, 4001: 412}[code]
	wantCategory := "request"
	if code >= 3000 && code < 4000 || code == 1007 {
		wantCategory = "gateway"
	}
	if code == 1000 || code == 1004 {
		wantCategory = "internal"
	}
	return requireErrorStatus(t, r, code, wantStatus, wantCategory)
}

// requireErrorStatus is requireError with an explicit status and category
// (the 405 answers).
func requireErrorStatus(t testing.TB, r resp, code, status int, category string) string {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	o := r.obj(t)
	require.Equal(t, float64(code), o["error_code"], "body: %s", r.body)
	require.Equal(t, category, o["category"])
	require.Equal(t, float64(status), o["http_code"])
	desc, ok := o["description"].(string)
	require.True(t, ok, "description must be a string: %s", r.body)
	require.NotEmpty(t, desc)
	reqID, ok := o["request_id"].(string)
	require.True(t, ok)
	require.NotEmpty(t, reqID)
	require.Equal(t, r.header.Get("X-Request-Id"), reqID)
	for k := range o {
		require.Contains(t, []string{"category", "description", "error_code", "http_code", "request_id", "fraud_rules", "risk_data"}, k)
	}
	return desc
}

// validCard is a card creation body for number.
func validCard(number string) map[string]any {
	cvv := "123"
	if strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37") {
		cvv = "1234"
	}
	return map[string]any{"holder_name": "Juan Perez", "card_number": number, "cvv2": cvv,
		"expiration_month": "12", "expiration_year": "30"}
}

// openpayCustomer is a customer request.
func openpayCustomer(name string, account bool) openpay.CustomerRequest {
	return openpay.CustomerRequest{Name: name, Email: strings.ToLower(name) + "@example.com", RequiresAccount: account}
}

// assertNull checks that each key is in the object, as null: the gateway
// sends a key it has no value for as null rather than leaving it out.
func assertNull(t testing.TB, o map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		v, has := o[k]
		if assert.True(t, has, "%s must be sent (as null)", k) {
			assert.Nil(t, v, k)
		}
	}
}
