package refserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// arm arms a fault over HTTP with the main merchant's key.
func (e *testEnv) arm(body map[string]any) map[string]any {
	e.t.Helper()
	return requireOK(e.t, e.do(http.MethodPost, "/_simulate/faults", e.m.PrivateKey, body), http.StatusCreated)
}

// customer is a customer creation body.
func customerBody(name string) map[string]any {
	return map[string]any{"name": name, "email": strings.ToLower(name) + "@example.com"}
}

// An error fault answers the gateway's error object for its code, once,
// without acting; the next request is answered as usual.
func TestFaultErrorCodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		code int
		desc string
	}{
		{1000, ""}, {1004, ""}, {1007, ""}, {1004, "Scheduled maintenance"}, {3001, ""},
	} {
		env := newTestEnv(t, Options{})
		body := map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "error_code": tt.code}
		if tt.desc != "" {
			body["description"] = tt.desc
		}
		armed := env.arm(body)
		assert.Equal(t, "f1", armed["id"])
		assert.Equal(t, 1.0, armed["count"])
		desc := requireError(t, env.post("/customers", customerBody("Ana")), tt.code)
		if tt.desc != "" {
			assert.Equal(t, tt.desc, desc)
		}
		requireOK(t, env.post("/customers", customerBody("Bea")), http.StatusOK)
		assert.Len(t, listIDs(t, env.get("/customers")), 1, "the failed request created nothing")
		assert.Empty(t, env.do(http.MethodGet, "/_simulate/faults", env.m.PrivateKey, nil).arr(t), "disarmed")
	}
}

// A fault on a concrete path fails that merchant's requests only, Count
// times; the list shows what is left.
func TestFaultCountAndExactPath(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	env.arm(map[string]any{"method": "get", "path": env.mp("/customers"), "count": 2, "error_code": 1004})
	listIDs(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/customers", env.other.PrivateKey, nil))
	requireOK(t, env.post("/customers", customerBody("Ana")), http.StatusOK) // another method
	requireError(t, env.get("/customers"), 1004)
	list := env.do(http.MethodGet, "/_simulate/faults", env.m.PrivateKey, nil).arr(t)
	require.Len(t, list, 1)
	assert.Equal(t, map[string]any{"id": "f1", "method": "GET", "path": env.mp("/customers"), "count": 1.0, "error_code": 1004.0}, list[0])
	requireError(t, env.get("/customers"), 1004)
	listIDs(t, env.get("/customers"))

	// When two faults match, the one armed first applies.
	env.arm(map[string]any{"method": "GET", "path": "/v1/{merchant_id}/customers", "error_code": 1000})
	env.arm(map[string]any{"method": "GET", "path": "/v1/{merchant_id}/customers", "error_code": 1004})
	requireError(t, env.get("/customers"), 1000)
	requireError(t, env.get("/customers"), 1004)
}

// A delay holds the answer back, then the request is answered as usual.
func TestFaultDelay(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	env.arm(map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "delay_ms": 300})
	start := time.Now()
	requireOK(t, env.post("/customers", customerBody("Ana")), http.StatusOK)
	assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
}

// rawPost posts a customer and returns the transport's error.
func rawPost(env *testEnv, path string, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, env.srv.URL+path, strings.NewReader(body))
	require.NoError(env.t, err)
	req.SetBasicAuth(env.m.PrivateKey, "")
	req.Header.Set("Content-Type", "application/json")
	res, err := env.srv.Client().Do(req)
	if err == nil {
		res.Body.Close()
	}
	return res, err
}

// A drop closes the connection without an answer: before the server acts
// (no customer), or after it has (the customer exists).
func TestFaultDrop(t *testing.T) {
	t.Parallel()
	for drop, made := range map[string]int{"before": 0, "after": 1} {
		env := newTestEnv(t, Options{})
		env.arm(map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "drop": drop})
		_, err := rawPost(env, env.mp("/customers"), `{"name":"Ana","email":"ana@example.com"}`)
		require.Error(t, err, drop)
		assert.Len(t, listIDs(t, env.get("/customers")), made, drop)
		res, err := rawPost(env, env.mp("/customers"), `{"name":"Bea","email":"bea@example.com"}`)
		require.NoError(t, err, "disarmed after one request")
		assert.Equal(t, http.StatusOK, res.StatusCode)
	}
}

// The controls refuse incomplete faults and faults on no API route, take
// any merchant's private key, and DELETE disarms what that key armed.
func TestFaultControl(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, tt := range []struct {
		body map[string]any
		code int
	}{
		{map[string]any{"path": "/v1/{merchant_id}/charges", "error_code": 1000}, 1001},
		{map[string]any{"method": "POST", "error_code": 1000}, 1001},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges"}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "error_code": 1000, "drop": "after"}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "error_code": 1234}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "drop": "sideways"}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "delay_ms": 3600000}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "delay_ms": -1}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "error_code": 1000, "count": 1001}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/chargez", "error_code": 1000}, 1003},
		{map[string]any{"method": "GET", "path": "/v1/{merchant_id}/charges/{transaction_id}/refund", "error_code": 1000}, 1003},
		{map[string]any{"method": "POST", "path": "/_simulate/reset", "error_code": 1000}, 1003},
		{map[string]any{"method": "GET", "path": "/_health", "error_code": 1000}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/x/charges?limit=1", "error_code": 1000}, 1003},
		{map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "error_code": "x"}, 1001},
	} {
		requireError(t, env.do(http.MethodPost, "/_simulate/faults", env.m.PrivateKey, tt.body), tt.code)
	}
	_, err := env.s.InjectFault(Fault{Method: "POST", Path: "/v1/{merchant_id}/charges"})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, openpay.ErrInvalidParameter, e.Code)

	requireError(t, env.do(http.MethodGet, "/_simulate/faults", "", nil), 1002)
	requireError(t, env.do(http.MethodPost, "/_simulate/faults", env.m.PublicKey, map[string]any{}), 1010)
	requireOK(t, env.do(http.MethodPost, "/_simulate/faults", env.other.PrivateKey,
		map[string]any{"method": "POST", "path": "/v1/{merchant_id}/charges", "drop": "after", "count": 3}), http.StatusCreated)
	_, err = env.s.InjectFault(Fault{Method: "GET", Path: "/v1/{merchant_id}/charges", Delay: time.Second})
	require.NoError(t, err)
	// A merchant's key lists and disarms its own faults; the Go methods
	// see them all.
	assert.Empty(t, env.do(http.MethodGet, "/_simulate/faults", env.m.PrivateKey, nil).arr(t))
	list := env.do(http.MethodGet, "/_simulate/faults", env.other.PrivateKey, nil).arr(t)
	require.Len(t, list, 1)
	assert.Equal(t, "after", list[0]["drop"])
	all := env.s.Faults()
	require.Len(t, all, 2)
	assert.Equal(t, time.Second, all[1].Delay)
	requireOK(t, env.do(http.MethodDelete, "/_simulate/faults", env.m.PrivateKey, nil), http.StatusNoContent)
	assert.Len(t, env.s.Faults(), 2)
	requireOK(t, env.do(http.MethodDelete, "/_simulate/faults", env.other.PrivateKey, nil), http.StatusNoContent)
	assert.Len(t, env.s.Faults(), 1)
	env.s.ClearFaults()
	assert.Empty(t, env.s.Faults())
	listIDs(t, env.get("/charges"))
}

// BenchmarkFaultCheck is the fault check of one merchant's request: with
// no fault armed, and with another merchant holding as many faults as it
// may (which the request must not look at).
//
//	go test ./internal/refserver -run '^$' -bench BenchmarkFaultCheck
func BenchmarkFaultCheck(b *testing.B) {
	env := newTestEnv(b, Options{})
	req, err := http.NewRequest(http.MethodGet, env.srv.URL+env.mp("/customers"), nil)
	require.NoError(b, err)
	rt, _, params := env.s.routes.match(req.Method, req.URL, nil)
	require.NotNil(b, rt)
	run := func(b *testing.B) {
		for b.Loop() {
			if env.s.takeFault(rt, params, req) != nil {
				b.Fatal("a fault applied")
			}
		}
	}
	b.Run("none armed", run)
	for range fault.MaxPerOwner {
		requireOK(b, env.do(http.MethodPost, "/_simulate/faults", env.other.PrivateKey,
			map[string]any{"method": "GET", "path": "/v1/{merchant_id}/customers", "error_code": 1000}), http.StatusCreated)
	}
	b.Run("another merchant's faults armed", run)
}

// An "acted" fault carries the request out, then answers its error or page
// in place of the answer (issue 31): the customer exists though the client
// read a 503 or a proxy's page. A page without "acted" comes before acting.
func TestFaultAnswersAfterActing(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	env.arm(map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "error_code": 1004, "acted": true})
	requireError(t, env.post("/customers", customerBody("Ana")), 1004)
	assert.Len(t, listIDs(t, env.get("/customers")), 1, "carried out before the 503")

	env.arm(map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "page": 502, "acted": true})
	r := env.post("/customers", customerBody("Bea"))
	assert.Equal(t, http.StatusBadGateway, r.status)
	assert.Contains(t, r.header.Get("Content-Type"), "text/html")
	assert.Contains(t, string(r.body), "502 Bad Gateway")
	assert.Len(t, listIDs(t, env.get("/customers")), 2, "carried out before the page")

	env.arm(map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "page": 503})
	r = env.post("/customers", customerBody("Cid"))
	assert.Equal(t, http.StatusServiceUnavailable, r.status)
	assert.Len(t, listIDs(t, env.get("/customers")), 2, "a page without acted comes before acting")

	for _, bad := range []map[string]any{
		{"page": 302},
		{"page": 502, "error_code": 1004},
		{"delay_ms": 10, "acted": true},
		{"drop": "after", "acted": true},
	} {
		bad["method"], bad["path"] = "POST", "/v1/{merchant_id}/customers"
		requireError(t, env.do(http.MethodPost, "/_simulate/faults", env.m.PrivateKey, bad), 1003)
	}
}

// Faults armed from Go while requests take them: the fault InjectFault
// returns is copied under the lock the requests take it under (under
// -race, reading it after the lock was let go was reported).
func TestInjectFaultWhileRequestsTakeIt(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				env.do(http.MethodGet, "/v1/"+env.m.ID+"/customers", env.m.PrivateKey, nil)
			}
		}
	}()
	for range 20 {
		f, err := env.s.InjectFault(Fault{Method: http.MethodGet, Path: "/v1/{merchant_id}/customers", ErrorCode: openpay.ErrInternalServer, Count: 1})
		require.NoError(t, err)
		require.Equal(t, 1, f.Count, "the fault as armed")
		require.NotEmpty(t, f.ID)
		// No lock taken here: the request that takes the fault runs
		// unordered with what InjectFault read after arming it.
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	<-done
}
