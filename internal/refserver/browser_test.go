package refserver

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testOrigin = "https://shop.example"

// TestPreflightOnlyForBrowserRoutes: the routes the public key may call,
// and the anti-fraud device data, answer a preflight with the request's
// origin; every other route answers it as any unknown method, without
// CORS headers.
func TestPreflightOnlyForBrowserRoutes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cust, err := env.s.CreateCustomer(env.m.ID, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	tests := []struct {
		name, method, path string
		open               bool
	}{
		{"token creation", http.MethodPost, env.mp("/tokens"), true},
		{"card creation", http.MethodPost, env.mp("/cards"), true},
		{"customer card creation", http.MethodPost, env.mp("/customers/" + cust.ID + "/cards"), true},
		{"anti-fraud key", http.MethodGet, env.mp("/antifraudkeys"), true},
		{"anti-fraud components", http.MethodGet, "/antifraud/" + env.m.ID + "/components?s=x", true},
		{"charge creation", http.MethodPost, env.mp("/charges"), false},
		{"token read", http.MethodGet, env.mp("/tokens/kx"), false},
		{"card update", http.MethodPut, env.mp("/cards/kx"), false},
		{"merchant", http.MethodGet, env.mp(""), false},
		{"group card creation", http.MethodPost, "/v1/groups/" + env.g.ID + "/customers/" + cust.ID + "/cards", false},
		{"unknown path", http.MethodPost, "/v1/nothing/here/at/all", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := env.do(http.MethodOptions, tc.path, "", nil, "Origin", testOrigin,
				"Access-Control-Request-Method", tc.method, "Access-Control-Request-Headers", "authorization,content-type")
			if !tc.open {
				assert.NotEqual(t, http.StatusNoContent, r.status)
				assert.GreaterOrEqual(t, r.status, 400)
				assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
				assert.Empty(t, r.header.Get("Access-Control-Allow-Credentials"))
				return
			}
			assert.Equal(t, http.StatusNoContent, r.status)
			assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"))
			assert.Equal(t, "true", r.header.Get("Access-Control-Allow-Credentials"))
			assert.Contains(t, r.header.Get("Access-Control-Allow-Methods"), tc.method)
			allowed := strings.ToLower(r.header.Get("Access-Control-Allow-Headers"))
			for _, h := range []string{"authorization", "content-type", "accept"} {
				assert.Contains(t, allowed, h)
			}
			assert.NotEmpty(t, r.header.Get("Access-Control-Max-Age"))
			assert.Contains(t, r.header.Values("Vary"), "Origin")
		})
	}
}

// TestBrowserCallsCarryTheOrigin: answers of browser routes, errors
// included, let the calling origin read them; other routes do not, and a
// request without Origin gets no CORS headers at all.
func TestBrowserCallsCarryTheOrigin(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	r := env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, validCard("4111111111111111"), "Origin", testOrigin)
	assert.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "true", r.header.Get("Access-Control-Allow-Credentials"))

	// An error on a browser route is readable too (the library hands it to
	// the failure callback).
	r = env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, "{}", "Origin", testOrigin)
	requireError(t, r, 1001)
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"))

	// The public key on a private route: 1010, and no CORS headers.
	r = env.do(http.MethodGet, env.mp("/charges"), env.m.PublicKey, nil, "Origin", testOrigin)
	requireError(t, r, 1010)
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))

	// The SDK and servers send no Origin: no CORS headers.
	r = env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, validCard("4111111111111111"))
	assert.Equal(t, http.StatusOK, r.status)
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
}

// TestVaryOriginOnlyWhereACacheMayStore: the answers of the browser routes
// name Origin in Vary where a cache may store them (GET and HEAD, errors
// included), for a server's request as for a browser's, and not on the
// POST answers no cache stores (no explicit freshness): a server's and a
// browser's card and token creation. The cards are made all the same.
func TestVaryOriginOnlyWhereACacheMayStore(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	noVary := func(t *testing.T, r resp, what string) {
		t.Helper()
		assert.Less(t, r.status, 300, "%s: %s", what, r.body)
		assert.Empty(t, r.header.Values("Vary"), "%s: a POST answer no cache stores", what)
	}
	varyOnce := func(t *testing.T, r resp, what string) {
		t.Helper()
		assert.Equal(t, []string{"Origin"}, r.header.Values("Vary"), "%s: an answer a cache may store", what)
	}

	// The merchant's server makes a card, the shop's page another and a token.
	r := env.post("/cards", validCard("4111111111111111"))
	noVary(t, r, "server card")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
	r = env.do(http.MethodPost, env.mp("/cards"), env.m.PublicKey, validCard("5555555555554444"), "Origin", testOrigin)
	noVary(t, r, "browser card")
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"), "the page reads its card")
	assert.Equal(t, "true", r.header.Get("Access-Control-Allow-Credentials"))
	r = env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, validCard("4111111111111111"), "Origin", testOrigin)
	noVary(t, r, "browser token")
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"))
	r = env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, "{}", "Origin", testOrigin)
	requireError(t, r, 1001)
	assert.Empty(t, r.header.Values("Vary"), "a POST's error")
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"), "the page reads why")

	// The anti-fraud key is a GET: a cache may keep it, so it varies by
	// Origin whoever asks, and its errors too.
	r = env.do(http.MethodGet, env.mp("/antifraudkeys"), env.m.PublicKey, nil)
	assert.Equal(t, http.StatusOK, r.status)
	varyOnce(t, r, "server GET")
	assert.Empty(t, r.header.Get("Access-Control-Allow-Origin"))
	r = env.do(http.MethodGet, env.mp("/antifraudkeys"), env.m.PublicKey, nil, "Origin", testOrigin)
	assert.Equal(t, http.StatusOK, r.status)
	varyOnce(t, r, "browser GET")
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"))
	r = env.do(http.MethodHead, env.mp("/antifraudkeys"), env.m.PublicKey, nil)
	assert.Equal(t, http.StatusOK, r.status)
	varyOnce(t, r, "HEAD")
	r = env.do(http.MethodGet, env.mp("/antifraudkeys"), "", nil)
	requireError(t, r, 1002)
	varyOnce(t, r, "a GET's error")
	r = env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components?s=x", "", nil)
	assert.Equal(t, http.StatusOK, r.status)
	varyOnce(t, r, "the device data")

	// The books: both cards are the merchant's.
	cards := env.do(http.MethodGet, env.mp("/cards"), env.m.PrivateKey, nil)
	require.Equal(t, http.StatusOK, cards.status, "%s", cards.body)
	var list []openpay.Card
	require.NoError(t, json.Unmarshal(cards.body, &list))
	assert.Len(t, list, 2)
}

// TestPrivateKeyFromBrowserIs1010: the private key (or a group's key) in a
// request that carries an Origin header is refused with 1010 on every
// authenticated route, the public-key ones included; a wrong key is still
// 1002.
func TestPrivateKeyFromBrowserIs1010(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	tests := []struct {
		name, method, path, key string
		body                    any
		want                    int
	}{
		{"token creation", http.MethodPost, env.mp("/tokens"), env.m.PrivateKey, validCard("4111111111111111"), 1010},
		{"merchant", http.MethodGet, env.mp(""), env.m.PrivateKey, nil, 1010},
		{"charges", http.MethodGet, env.mp("/charges"), env.m.PrivateKey, nil, 1010},
		{"anti-fraud key", http.MethodGet, env.mp("/antifraudkeys"), env.m.PrivateKey, nil, 1010},
		{"group customers", http.MethodGet, "/v1/groups/" + env.g.ID + "/customers", env.g.PrivateKey, nil, 1010},
		{"wrong key", http.MethodGet, env.mp(""), "sk_0000000000000000", nil, 1002},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := env.do(tc.method, tc.path, tc.key, tc.body, "Origin", testOrigin)
			requireError(t, r, tc.want)
			// Without the Origin header the same call is not refused so.
			r = env.do(tc.method, tc.path, tc.key, tc.body)
			if tc.want == 1010 {
				assert.Less(t, r.status, 300, "%s", r.body)
			}
		})
	}
}

// TestAntifraudEndpoints: the key answers in the parenthesised form the
// browser library strips, with an empty key; the components name the
// session and need the s parameter and a known merchant.
func TestAntifraudEndpoints(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	r := env.do(http.MethodGet, env.mp("/antifraudkeys"), env.m.PublicKey, nil, "Origin", testOrigin)
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, `({"data":""})`, string(r.body))
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"))
	r = env.do(http.MethodGet, env.mp("/antifraudkeys"), "", nil)
	requireError(t, r, 1002)

	session := "Ab0cD1eF2gH3iJ4kL5mN6oP7qR8sT9uV"
	r = env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components?s="+session, "", nil, "Origin", testOrigin)
	assert.Equal(t, http.StatusOK, r.status)
	assert.Contains(t, r.header.Get("Content-Type"), "text/html")
	assert.Regexp(t, regexp.MustCompile(`data-openpay-device-session="`+session+`"`), string(r.body))
	assert.Equal(t, testOrigin, r.header.Get("Access-Control-Allow-Origin"))
	r = env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components?s=%3Cscript%3E", "", nil)
	assert.NotContains(t, string(r.body), "<script>")
	requireError(t, env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components", "", nil), 1001)
	requireError(t, env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components?s="+strings.Repeat("a", 256), "", nil), 1003)
	// An unknown merchant id gets what a real one gets: the route, open
	// without credentials, is no oracle of merchant ids.
	known := env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components?s=x", "", nil)
	unknown := env.do(http.MethodGet, "/antifraud/mnosuchmerchant/components?s=x", "", nil)
	assert.Equal(t, http.StatusOK, unknown.status)
	assert.Equal(t, known.body, unknown.body)
	assert.Equal(t, known.header.Get("Content-Type"), unknown.header.Get("Content-Type"))
}

// TestServesTheBrowserLibrary: the library's files are served at the
// script host's paths; other methods fall through to the API's answer.
func TestServesTheBrowserLibrary(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, p := range []string{"/openpay.v1.js", "/openpay.v1.min.js", "/openpay-data.v1.js", "/openpay-data.v1.min.js"} {
		r := env.do(http.MethodGet, p, "", nil)
		assert.Equal(t, http.StatusOK, r.status, p)
		assert.Contains(t, r.header.Get("Content-Type"), "javascript", p)
		assert.Contains(t, string(r.body), "OpenPay", p)
	}
	r := env.do(http.MethodPost, "/openpay.v1.js", "", nil)
	requireError(t, r, 1005)
}
