package refserver

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The clock controls over HTTP act on the merchant of the path, with its
// key: its time, its records' dates and its answers' Date header move;
// the other merchant's and the server's do not; its reset makes it follow
// the server's clock again.
func TestMerchantClockControlsOverHTTP(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	a, b := env.m, env.other
	clock := func(m MerchantConfig) map[string]any {
		return requireOK(t, env.do(http.MethodGet, "/_simulate/"+m.ID+"/clock", m.PrivateKey, nil), http.StatusOK)
	}
	assert.Equal(t, map[string]any{"now": "2026-03-10T12:00:00-06:00", "follows_server": true}, clock(a))

	o := requireOK(t, env.do(http.MethodPost, "/_simulate/"+a.ID+"/clock/set", a.PrivateKey, map[string]any{"now": "2026-04-01T09:00:00-06:00"}), http.StatusOK)
	assert.Equal(t, "2026-04-01T09:00:00-06:00", o["now"])
	o = requireOK(t, env.do(http.MethodPost, "/_simulate/"+a.ID+"/clock/advance", a.PrivateKey, map[string]any{"seconds": 3600}), http.StatusOK)
	assert.Equal(t, "2026-04-01T10:00:00-06:00", o["now"])
	assert.Equal(t, map[string]any{"now": "2026-04-01T10:00:00-06:00", "follows_server": false}, clock(a))
	assert.Equal(t, map[string]any{"now": "2026-03-10T12:00:00-06:00", "follows_server": true}, clock(b))
	assert.Equal(t, testStart, env.s.Now())

	// Dates: A's records and answers carry A's time, B's the server's.
	r := env.post("/customers", customerBody("Ana"))
	assert.Equal(t, "2026-04-01T10:00:00-06:00", requireOK(t, r, http.StatusOK)["creation_date"])
	assert.Equal(t, "Wed, 01 Apr 2026 16:00:00 GMT", r.header.Get("Date"))
	r = env.do(http.MethodPost, "/v1/"+b.ID+"/customers", b.PrivateKey, customerBody("Bea"))
	assert.Equal(t, "2026-03-10T12:00:00-06:00", requireOK(t, r, http.StatusOK)["creation_date"])
	assert.Equal(t, "Tue, 10 Mar 2026 18:00:00 GMT", r.header.Get("Date"))

	// Bad bodies and another merchant's key are refused.
	requireError(t, env.do(http.MethodPost, "/_simulate/"+a.ID+"/clock/set", a.PrivateKey, "{}"), 1001)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+a.ID+"/clock/set", a.PrivateKey, map[string]any{"now": "tomorrow"}), 1001)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+a.ID+"/clock/set", a.PrivateKey, map[string]any{"now": "2046-04-01T09:00:00-06:00"}), 1003)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+a.ID+"/clock/set", a.PrivateKey, map[string]any{"now": "0001-01-01T00:00:00Z"}), 1003)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+a.ID+"/clock/advance", b.PrivateKey, map[string]any{"seconds": 60}), 1002)
	requireError(t, env.do(http.MethodGet, "/_simulate/"+a.ID+"/clock", b.PrivateKey, nil), 1002)
	assert.Equal(t, "2026-04-01T10:00:00-06:00", clock(a)["now"])

	// A's reset: A follows the server's clock again; B is untouched.
	requireOK(t, env.do(http.MethodPost, "/_simulate/reset", a.PrivateKey, nil), http.StatusNoContent)
	assert.Equal(t, map[string]any{"now": "2026-03-10T12:00:00-06:00", "follows_server": true}, clock(a))
	assert.Len(t, listIDs(t, env.do(http.MethodGet, "/v1/"+b.ID+"/customers", b.PrivateKey, nil)), 1)
	_, err := env.s.AdvanceClock(time.Hour)
	require.NoError(t, err)
	assert.Equal(t, "2026-03-10T13:00:00-06:00", clock(a)["now"], "A moves with the server's clock")
}

// A merchant's own clock is kept in the data directory: after a restart it
// stands where it stood, while the other merchant follows the server's
// clock, which goes on from its saved time.
func TestDataKeepsMerchantClocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := openPersistEnv(t, dir, nil, testStart)
	requireOK(t, env.sim("/clock/advance", map[string]any{"seconds": 40 * 86400}), http.StatusOK)
	_, err := env.s.AdvanceClock(time.Hour)
	require.NoError(t, err)
	env.srv.Close()
	env.s.Close()

	again := openPersistEnv(t, dir, env, testStart.Add(-1000*time.Hour))
	now, own, err := again.s.MerchantClock(env.m.ID)
	require.NoError(t, err)
	assert.True(t, own)
	assert.Equal(t, testStart.Add(40*24*time.Hour), now)
	now, own, err = again.s.MerchantClock(env.other.ID)
	require.NoError(t, err)
	assert.False(t, own)
	assert.Equal(t, testStart.Add(time.Hour), now)
	assert.Equal(t, "2026-04-19T12:00:00-06:00", requireOK(t, again.post("/customers", customerBody("Ana")), http.StatusOK)["creation_date"])
}

// POST /_simulate/clock/advance moves the clock of the key's owner: a
// merchant's key that merchant's, the admin key the server's (with the
// merchants that follow it).
func TestOwnersClockControl(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{AdminKey: testAdminKey})
	advance := func(key string, seconds int) resp {
		return env.do(http.MethodPost, "/_simulate/clock/advance", key, map[string]any{"seconds": seconds})
	}
	o := requireOK(t, advance(env.m.PrivateKey, 3600), http.StatusOK)
	assert.Equal(t, "2026-03-10T13:00:00-06:00", o["now"])
	assert.Equal(t, testStart, env.s.Now(), "a merchant's key does not move the server's clock")
	o = requireOK(t, advance(testAdminKey, 7200), http.StatusOK)
	assert.Equal(t, "2026-03-10T14:00:00-06:00", o["now"])
	other, own, err := env.s.MerchantClock(env.other.ID)
	require.NoError(t, err)
	assert.False(t, own)
	assert.Equal(t, testStart.Add(2*time.Hour), other, "the other merchant follows the server's clock")
	mine, _, err := env.s.MerchantClock(env.m.ID)
	require.NoError(t, err)
	assert.Equal(t, testStart.Add(time.Hour), mine, "a merchant's own clock stays")
	requireError(t, advance(env.m.PrivateKey, 0), 1003)
	requireError(t, advance(env.m.PublicKey, 60), 1010)
	requireError(t, advance("sk_nobody", 60), 1002)

	// The whole server's reset puts the server's clock back to its start,
	// and every merchant follows it again.
	requireOK(t, env.do(http.MethodPost, "/_simulate/reset", testAdminKey, nil), http.StatusNoContent)
	for _, m := range []MerchantConfig{env.m, env.other} {
		now, own, err := env.s.MerchantClock(m.ID)
		require.NoError(t, err)
		assert.False(t, own)
		assert.Equal(t, testStart, now)
	}
}

// Merchants' clocks and the server's move while both merchants are
// charged: each clock ends where its own moves put it, and every charge is
// recorded once.
func TestMerchantClocksUnderConcurrentRequests(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	_, err := env.s.SetMerchantClock(env.m.ID, testStart) // A's own clock from the start
	require.NoError(t, err)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(3)
		go func() {
			defer wg.Done()
			_, err := env.s.AdvanceMerchantClock(env.m.ID, time.Hour)
			assert.NoError(t, err)
		}()
		go func() {
			defer wg.Done()
			_, err := env.s.AdvanceClock(time.Minute)
			assert.NoError(t, err)
		}()
		go func() {
			defer wg.Done()
			for _, m := range []MerchantConfig{env.m, env.other} {
				r := env.do(http.MethodPost, "/v1/"+m.ID+"/charges", m.PrivateKey,
					map[string]any{"method": "store", "amount": 10 + i, "description": "x", "order_id": fmt.Sprint("o-", i)})
				assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
			}
		}()
	}
	wg.Wait()
	a, _, err := env.s.MerchantClock(env.m.ID)
	require.NoError(t, err)
	assert.Equal(t, testStart.Add(n*time.Hour), a)
	b, own, err := env.s.MerchantClock(env.other.ID)
	require.NoError(t, err)
	assert.False(t, own)
	assert.Equal(t, testStart.Add(n*time.Minute), b)
	for _, m := range []MerchantConfig{env.m, env.other} {
		assert.Len(t, listIDs(t, env.do(http.MethodGet, "/v1/"+m.ID+"/charges?limit=100", m.PrivateKey, nil)), n)
	}
}

// Code that dates or judges a merchant's records reads the merchant's
// clock (s.nowFor, s.nowOf), not the server's: s.Now() appears only where
// the server's own time is meant.
func TestMerchantTimeReadsTheMerchantsClock(t *testing.T) {
	t.Parallel()
	serverTime := map[string]string{
		"clock.go":     "nowOf falls back to it, and a merchant's own clock starts there",
		"server.go":    "Now itself, and a new merchant's creation date",
		"dashboard.go": "the overview shows the server's clock",
		"reset.go":     "a configuration step records the server's time, which a reset replays",
	}
	serverNow := regexp.MustCompile(`\bs\.(clock\.)?Now\(\)`)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || serverTime[name] != "" {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		for i, line := range strings.Split(string(src), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "//") {
				assert.False(t, serverNow.MatchString(line), "%s:%d reads the server's clock: use s.nowFor(m) or s.nowOf(m)", name, i+1)
			}
		}
	}
}
