package openpaytest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEachKeyReachesOnlyItsMerchant is two merchants' sequence on one
// server and one kept-alive client: each creates a customer; each key
// reads its own merchant's customer and nothing of the other's (its path:
// 401; its customer's id under the own path: 404, not found); a key one
// byte off, the other merchant's key and the public key on a private
// route are refused right after the right key was accepted (the key the
// server remembers), and the right key is accepted again after them.
// Unknown paths answer 404 and a wrong method 405 with its Allow, whatever
// the key. The books: each merchant ends with exactly its own customer.
func TestEachKeyReachesOnlyItsMerchant(t *testing.T) {
	srv := openpaytest.NewServer(t)
	b, err := srv.AddMerchant("", "", "")
	require.NoError(t, err)
	a := srv.Merchant
	hc := srv.HTTPClient()
	do := func(method, path, key, body string) (int, map[string]any, http.Header) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		if key != "" {
			req.SetBasicAuth(key, "")
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		var out map[string]any
		if len(raw) > 0 && raw[0] == '{' {
			require.NoError(t, json.Unmarshal(raw, &out), "%s", raw)
		}
		return resp.StatusCode, out, resp.Header
	}
	create := func(m *openpaytest.Merchant, name string) string {
		st, out, _ := do(http.MethodPost, "/v1/"+m.MerchantID+"/customers", m.PrivateKey, `{"name":"`+name+`","email":"`+name+`@example.com"}`)
		require.Equal(t, http.StatusOK, st, "%v", out)
		return out["id"].(string)
	}
	ca, cb := create(&a, "ana"), create(b, "beto")
	pathA, pathB := "/v1/"+a.MerchantID+"/customers/"+ca, "/v1/"+b.MerchantID+"/customers/"+cb
	oneOff := []byte(a.PrivateKey)
	oneOff[len(oneOff)-1] ^= 1
	for range 2 { // twice: the second round finds the keys remembered
		st, out, _ := do(http.MethodGet, pathA, a.PrivateKey, "")
		require.Equal(t, http.StatusOK, st)
		assert.Equal(t, "ana", out["name"])
		for _, wrong := range []struct{ name, path, key string }{
			{"one byte off", pathA, string(oneOff)},
			{"the other merchant's key", pathA, b.PrivateKey},
			{"its key on the other merchant's path", pathB, a.PrivateKey},
			{"no key", pathA, ""},
		} {
			st, out, _ := do(http.MethodGet, wrong.path, wrong.key, "")
			assert.Equal(t, http.StatusUnauthorized, st, wrong.name)
			assert.EqualValues(t, 1002, out["error_code"], wrong.name)
		}
		st, out, _ = do(http.MethodGet, pathA, a.PublicKey, "")
		assert.Equal(t, http.StatusForbidden, st, "the public key on a private route")
		assert.EqualValues(t, 1010, out["error_code"])
		st, out, _ = do(http.MethodGet, "/v1/"+a.MerchantID+"/customers/"+cb, a.PrivateKey, "")
		assert.Equal(t, http.StatusNotFound, st, "the other merchant's customer under its own path")
		assert.EqualValues(t, 1005, out["error_code"])
		st, out, _ = do(http.MethodGet, pathB, b.PrivateKey, "")
		require.Equal(t, http.StatusOK, st)
		assert.Equal(t, "beto", out["name"])
		st, _, _ = do(http.MethodGet, pathA, a.PrivateKey, "")
		assert.Equal(t, http.StatusOK, st, "the right key again")
	}
	for _, p := range []string{pathA + "/", "/v1/" + a.MerchantID + "//customers", "/v1/" + a.MerchantID + "/customerz", pathA + "/nothing/here"} {
		st, out, _ := do(http.MethodGet, p, a.PrivateKey, "")
		assert.Equal(t, http.StatusNotFound, st, p)
		assert.NotNil(t, out["error_code"], p)
	}
	st, _, h := do(http.MethodPut, "/v1/"+a.MerchantID+"/customers", a.PrivateKey, "{}")
	assert.Equal(t, http.StatusMethodNotAllowed, st)
	assert.Equal(t, "GET, POST", h.Get("Allow"))
	for _, m := range []struct {
		m    *openpaytest.Merchant
		want string
	}{{&a, ca}, {b, cb}} {
		st, _, _ := do(http.MethodGet, "/v1/"+m.m.MerchantID+"/customers", m.m.PrivateKey, "")
		require.Equal(t, http.StatusOK, st)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/"+m.m.MerchantID+"/customers", nil)
		req.SetBasicAuth(m.m.PrivateKey, "")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		var list []map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
		resp.Body.Close()
		require.Len(t, list, 1, m.m.MerchantID)
		assert.Equal(t, m.want, list[0]["id"])
	}
}
