package refserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay/internal/refserver/fault"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Armed faults are bounded per merchant and per server, and so is a
// fault's path; past a bound the control answers 1003, and the list a
// merchant gets is bounded with them.
func TestFaultBounds(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	body := map[string]any{"method": "GET", "path": "/v1/{merchant_id}/plans", "error_code": 1000}
	for range fault.MaxPerOwner {
		env.arm(body)
	}
	desc := requireError(t, env.do(http.MethodPost, "/_simulate/faults", env.m.PrivateKey, body), 1003)
	assert.Contains(t, desc, "limit")
	// The other merchant's bound is its own.
	requireOK(t, env.do(http.MethodPost, "/_simulate/faults", env.other.PrivateKey, body), http.StatusCreated)
	list := env.do(http.MethodGet, "/_simulate/faults", env.m.PrivateKey, nil)
	assert.Len(t, list.arr(t), fault.MaxPerOwner)

	// A path longer than fault.MaxPath is refused, though it names a route.
	long := env.mp("/customers/" + strings.Repeat("a", fault.MaxPath))
	desc = requireError(t, env.do(http.MethodPost, "/_simulate/faults", env.other.PrivateKey,
		map[string]any{"method": "GET", "path": long, "error_code": 1000}), 1003)
	assert.Contains(t, desc, "path")
	_, err := env.s.InjectFault(Fault{Method: "GET", Path: long, ErrorCode: 1000})
	require.Error(t, err)

	// The server's bound holds for the Go method too.
	for len(env.s.Faults()) < fault.MaxArmed {
		_, err := env.s.InjectFault(Fault{Method: "GET", Path: "/v1/{merchant_id}/plans", ErrorCode: 1000})
		require.NoError(t, err)
	}
	_, err = env.s.InjectFault(Fault{Method: "GET", Path: "/v1/{merchant_id}/plans", ErrorCode: 1000})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 1003, int(e.Code))
	requireError(t, env.do(http.MethodPost, "/_simulate/faults", env.other.PrivateKey, body), 1003)
	env.s.ClearFaults()
	assert.False(t, env.s.faults.Any(), "no body armed: requests skip the lock")
}

// A merchant's key acts on that merchant alone: the faults it arms match
// its own requests only, it cannot arm one on another merchant's path,
// it lists and disarms only its own, and its reset leaves the others'
// records. The other merchant (B) here tries everything on the main one
// (A).
func TestMerchantIsolationOfTheControls(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	a, b := env.m, env.other
	asB := func(method, path string, body any) resp { return env.do(method, path, b.PrivateKey, body) }

	// B cannot arm a fault on A's paths.
	requireError(t, asB(http.MethodPost, "/_simulate/faults", map[string]any{"method": "POST", "path": "/v1/" + a.ID + "/customers", "error_code": 1000}), 1003)
	requireError(t, asB(http.MethodPost, "/_simulate/faults", map[string]any{"method": "GET", "path": "/v1/groups/{group_id}/customers", "error_code": 1000}), 1003)
	// B's patterns match B's requests only: A's customer is made, B's fails.
	requireOK(t, asB(http.MethodPost, "/_simulate/faults", map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "error_code": 1000, "count": 5}), http.StatusCreated)
	requireOK(t, asB(http.MethodPost, "/_simulate/faults", map[string]any{"method": "POST", "path": "/v1/{merchant_id}/customers", "delay_ms": 300000}), http.StatusCreated)
	requireOK(t, env.post("/customers", customerBody("Ana")), http.StatusOK) // no 1000, no five-minute wait
	requireError(t, asB(http.MethodPost, "/v1/"+b.ID+"/customers", customerBody("Bea")), 1000)

	// A's own fault is not in B's list, and B's DELETE leaves it armed.
	env.arm(map[string]any{"method": "GET", "path": env.mp("/charges"), "error_code": 1004})
	list := asB(http.MethodGet, "/_simulate/faults", nil)
	require.Equal(t, http.StatusOK, list.status)
	assert.NotContains(t, string(list.body), a.ID)
	assert.Len(t, list.arr(t), 2)
	requireOK(t, asB(http.MethodDelete, "/_simulate/faults", nil), http.StatusNoContent)
	requireError(t, env.get("/charges"), 1004)

	// What a request consults: the server-wide faults and its merchant's,
	// never another merchant's.
	requireOK(t, asB(http.MethodPost, "/_simulate/faults", map[string]any{"method": "GET", "path": "/v1/{merchant_id}/plans", "error_code": 1000}), http.StatusCreated)
	assert.Contains(t, env.s.faults.Consulted(b.ID), b.ID, "B's requests look at B's fault")
	assert.NotContains(t, env.s.faults.Consulted(a.ID), b.ID, "A's requests look at B's fault")

	// B's reset resets B: A's charge and customer stay, B's go.
	requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": "x", "card": validCard("4111111111111111")}), http.StatusOK)
	requireOK(t, asB(http.MethodPost, "/v1/"+b.ID+"/customers", customerBody("Bea")), http.StatusOK)
	requireOK(t, asB(http.MethodPost, "/_simulate/reset", nil), http.StatusNoContent)
	assert.Len(t, listIDs(t, env.get("/charges")), 1)
	assert.Len(t, listIDs(t, env.get("/customers")), 1)
	assert.Empty(t, listIDs(t, asB(http.MethodGet, "/v1/"+b.ID+"/customers", nil)))
	assert.Empty(t, asB(http.MethodGet, "/_simulate/faults", nil).arr(t), "B's faults are disarmed by its reset")
	assert.Len(t, env.s.Faults(), 0, "A's fault was taken by its request above")
	requireOK(t, asB(http.MethodGet, "/v1/"+b.ID, nil), http.StatusOK) // B's keys still work
}

// Off loopback, a merchant signed in to the dashboard moves its own clock,
// never the server's nor another merchant's (clock.go), and its form token
// is its own: another merchant's session does not take it.
func TestDashboardSessionsAreApart(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{ListenAddr: "0.0.0.0:8080"})
	a := dashClient{env: env, user: env.m.ID, pass: env.m.PrivateKey}
	b := dashClient{env: env, user: env.other.ID, pass: env.other.PrivateKey}
	tokenA, tokenB := a.token(), b.token()
	assert.NotEqual(t, tokenA, tokenB)

	assert.Contains(t, b.page("/_dashboard/"), `id="advance_form"`, "a merchant moves its own clock")
	r := b.press("/_dashboard/clock/advance", tokenB, "seconds", "3600")
	assert.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	assert.Equal(t, testStart, env.s.Now(), "the server's clock did not move")
	bNow, own, err := env.s.MerchantClock(env.other.ID)
	require.NoError(t, err)
	assert.True(t, own)
	assert.Equal(t, testStart.Add(time.Hour), bNow, "B's clock moved")
	aNow, own, err := env.s.MerchantClock(env.m.ID)
	require.NoError(t, err)
	assert.False(t, own)
	assert.Equal(t, testStart, aNow, "A's clock did not move")
	assert.Contains(t, b.page("/_dashboard/"), `id="clock">2026-03-10 13:00:00 -06:00</strong> (the merchant's own, fake)`)

	// A's token in B's session is refused.
	charge := requireOK(t, env.do(http.MethodPost, "/v1/"+env.other.ID+"/charges", env.other.PrivateKey,
		map[string]any{"method": "store", "amount": 150, "description": "tienda"}), http.StatusOK)["id"].(string)
	r = b.press("/_dashboard/merchants/"+env.other.ID+"/transactions/"+charge+"/pay", tokenA)
	assert.Equal(t, http.StatusForbidden, r.status)
	r = b.press("/_dashboard/merchants/"+env.other.ID+"/transactions/"+charge+"/pay", tokenB)
	assert.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)

	// Alone on its server, a merchant moves its clock too.
	solo := &testEnv{t: t, clock: NewFakeClock(testStart)}
	solo.s = New(Options{Clock: solo.clock, ListenAddr: "0.0.0.0:8080"})
	solo.srv = httptest.NewServer(solo.s)
	t.Cleanup(solo.srv.Close)
	t.Cleanup(solo.s.Close)
	m, err := solo.s.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
	d := dashClient{env: solo, user: m.ID, pass: m.PrivateKey}
	assert.Contains(t, d.page("/_dashboard/"), `id="advance_form"`)
	r = d.press("/_dashboard/clock/advance", d.token(), "seconds", "3600")
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	soloNow, _, err := solo.s.MerchantClock(m.ID)
	require.NoError(t, err)
	assert.Equal(t, testStart.Add(time.Hour), soloNow)
}

// The admin key is no merchant's: a merchant whose key it is is refused.
func TestAdminKeyIsNoMerchantsKey(t *testing.T) {
	t.Parallel()
	s := New(Options{AdminKey: testAdminKey})
	t.Cleanup(s.Close)
	_, err := s.AddMerchant(MerchantConfig{PrivateKey: testAdminKey})
	require.Error(t, err)
	_, err = s.AddMerchant(MerchantConfig{PublicKey: testAdminKey})
	require.Error(t, err)
	_, err = s.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
}
