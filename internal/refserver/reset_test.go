package refserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHealth(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	o := requireOK(t, env.do(http.MethodGet, "/_health", "", nil), http.StatusOK)
	assert.Equal(t, map[string]any{"status": "ok"}, o)
	requireErrorStatus(t, env.do(http.MethodPost, "/_health", "", nil), 1001, http.StatusMethodNotAllowed, "request")
}

// listIDs lists the "id" of each object of a list answer.
func listIDs(t *testing.T, r resp) []string {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	var out []string
	for _, o := range r.arr(t) {
		out = append(out, o["id"].(string))
	}
	return out
}

// Reset brings back what the seed and AddMerchant made, and nothing made
// since.
func TestResetRestoresTheConfiguration(t *testing.T) {
	t.Parallel()
	env := newSeedEnv(t)
	env.s.opts.AdminKey = testAdminKey // the whole server's reset, over HTTP
	sd, err := ParseSeed([]byte(testSeedYAML))
	require.NoError(t, err)
	_, err = env.s.ApplySeed(sd)
	require.NoError(t, err)
	const m1, key1 = "mseedmerchant0000001", "sk_seed_one"
	const gid, gkey = "gseedgroup0000000001", "sk_seed_group"
	get := func(path, key string) resp { return env.do(http.MethodGet, path, key, nil) }
	post := func(path, key string, body any) map[string]any {
		return requireOK(t, env.do(http.MethodPost, path, key, body), http.StatusOK)
	}

	seedCustomers := listIDs(t, get("/v1/"+m1+"/customers", key1))
	seedCards := listIDs(t, get("/v1/"+m1+"/cards", key1))
	seedGroupCustomers := listIDs(t, get("/v1/groups/"+gid+"/customers", gkey))
	seedCharges := listIDs(t, get("/v1/"+m1+"/charges", key1)) // the opening balances
	seedEvents := len(env.s.Events(m1))
	require.Len(t, seedCustomers, 2)
	require.Len(t, seedCards, 1)

	// A merchant added after the seed, with a customer of its own.
	later, err := env.s.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
	post("/v1/"+later.ID+"/customers", later.PrivateKey, map[string]any{"name": "Late", "email": "late@example.com"})

	// Everything a suite makes: customers, cards, a charge that moves the
	// balance, a webhook with a delivery pending, a group customer, time.
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable) // verification fails, deliveries would retry
	}))
	t.Cleanup(receiver.Close)
	cu := post("/v1/"+m1+"/customers", key1, map[string]any{"name": "New", "email": "new@example.com"})
	post("/v1/"+m1+"/cards", key1, validCard("4242424242424242"))
	post("/v1/"+m1+"/charges", key1, map[string]any{"method": "card", "amount": 100, "description": "x", "card": validCard("4111111111111111")})
	requireOK(t, env.do(http.MethodPost, "/v1/"+m1+"/webhooks", key1, map[string]any{"url": receiver.URL, "event_types": []string{"charge.succeeded"}}), http.StatusCreated)
	post("/v1/groups/"+gid+"/customers", gkey, map[string]any{"name": "Group new", "email": "g@example.com"})
	_, err = env.s.AdvanceClock(36 * time.Hour)
	require.NoError(t, err)
	_, err = env.s.InjectFault(Fault{Method: "GET", Path: "/v1/{merchant_id}/plans", ErrorCode: openpay.ErrInternalServer})
	require.NoError(t, err)
	require.Len(t, listIDs(t, get("/v1/"+m1+"/customers", key1)), 3)

	r := env.do(http.MethodPost, "/_simulate/reset", testAdminKey, nil)
	requireOK(t, r, http.StatusNoContent)

	assert.Equal(t, seedCustomers, listIDs(t, get("/v1/"+m1+"/customers", key1)))
	assert.Equal(t, seedCards, listIDs(t, get("/v1/"+m1+"/cards", key1)))
	assert.Equal(t, seedGroupCustomers, listIDs(t, get("/v1/groups/"+gid+"/customers", gkey)))
	// Only the opening balances again (under new ids: the server is not seeded).
	assert.Len(t, listIDs(t, get("/v1/"+m1+"/charges", key1)), len(seedCharges))
	assert.Empty(t, listIDs(t, get("/v1/"+m1+"/webhooks", key1)))
	requireError(t, get("/v1/"+m1+"/customers/"+cu["id"].(string), key1), 1005)
	assert.Len(t, env.s.Events(m1), seedEvents)
	o := requireOK(t, get("/v1/"+m1, key1), http.StatusOK)
	assert.Equal(t, 2500.5, o["balance"])
	_, custs, err := env.s.Balances(m1)
	require.NoError(t, err)
	assert.Equal(t, "300.00", custs["aseedcustomer0000002"].String())
	plan := requireOK(t, get("/v1/"+m1+"/plans/pseedplan00000000001", key1), http.StatusOK)
	assert.Equal(t, "Monthly", plan["name"])
	assert.Empty(t, env.s.Faults())
	assert.True(t, env.clock.Now().Equal(testStart), "the clock is back at its start: %v", env.clock.Now())

	// The later merchant stays, with its keys and nothing in it.
	assert.Empty(t, listIDs(t, get("/v1/"+later.ID+"/customers", later.PrivateKey)))
}

// With a seeded server, the same requests after a reset get the same ids
// (and request ids) as after the start, also when a merchant was added
// after some traffic.
func TestResetRepeatsSeededIDs(t *testing.T) {
	t.Parallel()
	seed := int64(7)
	env := newTestEnv(t, Options{IDSeed: &seed})
	run := func() []string {
		var got []string
		for _, path := range []string{"/customers", "/customers"} {
			r := env.post(path, map[string]any{"name": "Ana", "email": "ana@example.com", "requires_account": true})
			o := requireOK(t, r, http.StatusOK)
			got = append(got, o["id"].(string), o["clabe"].(string), r.header.Get("X-Request-Id"))
		}
		o := requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": "x",
			"card": validCard("4111111111111111")}), http.StatusOK)
		return append(got, o["id"].(string), o["authorization"].(string))
	}
	first := run()
	require.NoError(t, env.s.Reset())
	assert.Equal(t, first, run())

	later, err := env.s.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
	afterAdd := run()
	require.NoError(t, env.s.Reset())
	assert.Equal(t, afterAdd, run())
	assert.NotEqual(t, first, afterAdd)
	// The added merchant kept its generated id and keys.
	requireOK(t, env.do(http.MethodGet, "/v1/"+later.ID, later.PrivateKey, nil), http.StatusOK)
}

// testAdminKey is the admin key (Options.AdminKey) of the tests that set one.
const testAdminKey = "sk_admin_key_of_the_tests"

// Reset takes any merchant's private key, which resets that merchant
// alone, or the admin key, which resets the server; nothing else.
func TestResetCredentials(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{AdminKey: testAdminKey})
	requireError(t, env.do(http.MethodPost, "/_simulate/reset", "", nil), 1002)
	requireError(t, env.do(http.MethodPost, "/_simulate/reset", "sk_unknown", nil), 1002)
	requireError(t, env.do(http.MethodPost, "/_simulate/reset", env.g.PrivateKey, nil), 1002)
	requireError(t, env.do(http.MethodPost, "/_simulate/reset", env.m.PublicKey, nil), 1010)
	requireError(t, env.do(http.MethodPost, "/_simulate/reset", env.m.PrivateKey, nil, "Origin", "https://shop.example"), 1010)
	requireErrorStatus(t, env.do(http.MethodGet, "/_simulate/reset", env.m.PrivateKey, nil), 1001, http.StatusMethodNotAllowed, "request")
	requireError(t, env.do(http.MethodPost, "/_simulate/reset", testAdminKey, nil, "Origin", "https://shop.example"), 1010)
	requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)
	// Another merchant's key resets that merchant, not this one.
	requireOK(t, env.do(http.MethodPost, "/_simulate/reset", env.other.PrivateKey, nil), http.StatusNoContent)
	assert.Len(t, listIDs(t, env.get("/customers")), 1)
	requireOK(t, env.do(http.MethodPost, "/_simulate/reset", testAdminKey, nil), http.StatusNoContent)
	assert.Empty(t, listIDs(t, env.get("/customers")))
	// Without an admin key configured, no key is one.
	plain := newTestEnv(t, Options{})
	requireError(t, plain.do(http.MethodPost, "/_simulate/reset", testAdminKey, nil), 1002)
}

// Requests running while the server resets all succeed (each sees one
// whole state), and the last reset leaves nothing behind. Run with -race.
func TestResetUnderConcurrentRequests(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": "x",
					"card": validCard("4111111111111111")})
				assert.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
				assert.Equal(t, http.StatusOK, env.get("/charges").status)
			}
		}()
	}
	for range 5 {
		time.Sleep(10 * time.Millisecond)
		requireOK(t, env.do(http.MethodPost, "/_simulate/reset", env.m.PrivateKey, nil), http.StatusNoContent)
	}
	close(stop)
	wg.Wait()
	require.NoError(t, env.s.Reset())
	assert.Empty(t, listIDs(t, env.get("/charges")))
	b, _, err := env.s.Balances(env.m.ID)
	require.NoError(t, err)
	assert.True(t, b.IsZero(), "balance %s", b)
}

// Deliveries waiting for a retry are dropped by a reset.
func TestResetDropsPendingDeliveries(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{WebhookRetryDelay: time.Hour})
	var mu sync.Mutex
	events := 0
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"verification"`) {
			mu.Lock()
			events++
			mu.Unlock()
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(receiver.Close)
	wh := requireOK(t, env.post("/webhooks", map[string]any{"url": receiver.URL, "event_types": []string{"charge.succeeded"}}), http.StatusCreated)
	require.Equal(t, "verified", wh["status"])
	requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": "x",
		"card": validCard("4111111111111111")}), http.StatusOK)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return events == 1
	}, 10*time.Second, 5*time.Millisecond)
	require.Equal(t, 1, env.s.WebhookDeliveryStats(wh["id"].(string)).Pending, "waiting for its retry")
	require.NoError(t, env.s.Reset())
	assert.Zero(t, env.s.WebhookDeliveryStats(wh["id"].(string)))
}
