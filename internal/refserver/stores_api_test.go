package refserver

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/openpay-go/openpay/internal/storedata"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeQuery is the path of a store search.
func storeQuery(lat, lng, km, amount string) string {
	q := url.Values{"latitud": {lat}, "longitud": {lng}, "kilometers": {km}, "amount": {amount}}
	return "/stores?" + q.Encode()
}

// Querétaro's centre: the bundled data set has a dozen stores around it.
const qroLat, qroLng = "20.5888", "-100.3899"

func TestListStoresNearestFirstWithoutCredentials(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	r := env.do(http.MethodGet, storeQuery(qroLat, qroLng, "10", "500"), "", nil)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	stores := r.arr(t)
	require.GreaterOrEqual(t, len(stores), 5)
	for _, st := range stores {
		assert.Equal(t, "active", st["status"])
		assert.IsType(t, float64(0), st["id_store"], "id_store is a JSON number, as the gateway sends it")
		assert.IsType(t, float64(0), st["id"])
		addr := st["address"].(map[string]any)
		assert.Contains(t, addr, "line3", "line3 is sent, null, as the gateway does")
		assert.Nil(t, addr["line3"])
		assert.Equal(t, "QUERETARO", addr["city"])
	}
	// The same answer as the search of package storedata (whose tests check
	// the radius and the order), in the same order.
	want := storedata.Mexico().Search(20.5888, -100.3899, 10, decimal.NewFromInt(500))
	require.Len(t, stores, len(want))
	for i, st := range stores {
		assert.Equal(t, float64(want[i].IDStore), st["id_store"])
		geo := st["geolocation"].(map[string]any)
		assert.Equal(t, want[i].Lat, geo["lat"])
		assert.Equal(t, want[i].Lng, geo["lng"])
		assert.Equal(t, want[i].Name, st["name"])
		assert.Equal(t, want[i].Chain.Name, st["paynet_chain"].(map[string]any)["name"])
	}

	// Credentials, right or wrong, change nothing.
	for _, key := range []string{env.m.PrivateKey, env.m.PublicKey, "sk_nobody"} {
		again := env.do(http.MethodGet, storeQuery(qroLat, qroLng, "10", "500"), key, nil)
		require.Equal(t, http.StatusOK, again.status, "body: %s", again.body)
		assert.JSONEq(t, string(r.body), string(again.body))
	}

	// Far from every store: an empty array, not null.
	none := env.do(http.MethodGet, storeQuery("0", "-140", "5", "10"), "", nil)
	require.Equal(t, http.StatusOK, none.status)
	assert.JSONEq(t, "[]", string(none.body))
}

func TestListStoresLeavesOutChainsBelowTheAmount(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	chainsAt := func(amount string) map[string]float64 {
		t.Helper()
		r := env.do(http.MethodGet, storeQuery(qroLat, qroLng, "50", amount), "", nil)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		out := map[string]float64{}
		for _, st := range r.arr(t) {
			chain := st["paynet_chain"].(map[string]any)
			out[chain["name"].(string)] = chain["max_amount"].(float64)
		}
		return out
	}
	small := chainsAt("100")
	require.Contains(t, small, "CIRCLE K")
	assert.Equal(t, 5000.0, small["CIRCLE K"])
	// A chain takes exactly its max_amount, not a cent more.
	assert.Contains(t, chainsAt("5000"), "CIRCLE K")
	above := chainsAt("5000.01")
	assert.NotContains(t, above, "CIRCLE K")
	assert.NotContains(t, above, "K")
	large := chainsAt("15000")
	assert.Less(t, len(large), len(small))
	for name, maxAmount := range large {
		assert.GreaterOrEqual(t, maxAmount, 15000.0, name)
	}
	assert.Contains(t, large, "EXTRA")
	assert.Empty(t, chainsAt("100000"), "no chain takes 100000")
}

func TestListStoresValidation(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	valid := map[string]string{"latitud": qroLat, "longitud": qroLng, "kilometers": "10", "amount": "100"}
	query := func(name, value string, drop bool) string {
		q := url.Values{}
		for k, v := range valid {
			if k == name {
				if drop {
					continue
				}
				v = value
			}
			q.Set(k, v)
		}
		return "/stores?" + q.Encode()
	}
	for _, name := range []string{"latitud", "longitud", "kilometers", "amount"} {
		t.Run("missing "+name, func(t *testing.T) {
			desc := requireError(t, env.do(http.MethodGet, query(name, "", true), "", nil), 1001)
			assert.Contains(t, desc, "'"+name+"'")
			desc = requireError(t, env.do(http.MethodGet, query(name, " ", false), "", nil), 1001)
			assert.Contains(t, desc, "'"+name+"'")
		})
	}
	requireError(t, env.do(http.MethodGet, "/stores", "", nil), 1001)

	bad := []struct{ name, value string }{
		{"latitud", "norte"}, {"latitud", "90.000001"}, {"latitud", "-91"}, {"latitud", "NaN"}, {"latitud", "Inf"},
		{"latitud", "1e400"}, {"latitud", "20,5"},
		{"longitud", "oeste"}, {"longitud", "180.5"}, {"longitud", "-181"}, {"longitud", "-Inf"},
		{"kilometers", "diez"}, {"kilometers", "0"}, {"kilometers", "-3"}, {"kilometers", "20000.5"}, {"kilometers", "1e9"},
		{"kilometers", "NaN"},
		{"amount", "cien"}, {"amount", "0"}, {"amount", "-10"}, {"amount", "10.001"}, {"amount", "NaN"}, {"amount", "1e99999"},
		{"amount", "0x10"},
	}
	for _, b := range bad {
		t.Run(b.name+"="+b.value, func(t *testing.T) {
			desc := requireError(t, env.do(http.MethodGet, query(b.name, b.value, false), "", nil), 1003)
			assert.Contains(t, desc, "'"+b.name+"'")
		})
	}

	// The edges of the ranges are accepted.
	for _, ok := range []struct{ name, value string }{
		{"latitud", "90"}, {"latitud", "-90"}, {"longitud", "180"}, {"longitud", "-180"},
		{"kilometers", "20000"}, {"kilometers", "0.001"}, {"amount", "0.01"}, {"amount", "99999.99"}, {"amount", " 100 "},
	} {
		r := env.do(http.MethodGet, query(ok.name, ok.value, false), "", nil)
		assert.Equal(t, http.StatusOK, r.status, "%s=%s: %s", ok.name, ok.value, r.body)
	}
}

// TestListStoresNeverFails sends odd queries: every answer is 200 or the
// error object with a 4xx status.
func TestListStoresNeverFails(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, raw := range []string{
		"", "latitud", "latitud=&longitud=&kilometers=&amount=", "latitud=1&latitud=2&longitud=3&kilometers=4&amount=5",
		"latitud=%00&longitud=1&kilometers=1&amount=1", "latitud=1e308&longitud=-1e308&kilometers=1e308&amount=1e308",
		"latitud=0x1p3&longitud=1&kilometers=1&amount=1", "latitud=1&longitud=1&kilometers=5e-324&amount=1",
		"latitud=20&longitud=-100&kilometers=20000&amount=0.01", "amount=" + url.QueryEscape("99999999999999999999999999999999999999999999.99") + "&latitud=1&longitud=1&kilometers=1",
	} {
		r := env.do(http.MethodGet, "/stores?"+raw, "", nil)
		assert.Less(t, r.status, 500, "%s: %s", raw, r.body)
		if r.status != http.StatusOK {
			requireError(t, r, int(r.obj(t)["error_code"].(float64)))
		}
	}
	// Other methods are not served on /stores.
	r := env.do(http.MethodPost, storeQuery(qroLat, qroLng, "10", "100"), "", "{}")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
}
