package refserver

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A query that net/url cannot parse whole (here, more parameters than it
// takes) is refused with 1001, never read in part: read in part, the bad
// filter at its end would be dropped and the list answered unfiltered.
func TestQueryParsedWholeOrRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	requireOK(t, env.post("/customers", customerBody("Ana")), http.StatusOK)
	var b strings.Builder
	for i := range 10001 {
		b.WriteString("x" + strconv.Itoa(i) + "=1&")
	}
	requireError(t, env.get("/customers?"+b.String()+"limit=abc"), 1001)
	requireError(t, env.get("/charges?"+b.String()+"status=nope"), 1001)
	requireError(t, env.get("/customers?limit=%zz"), 1001)
	// A query that parses is read as before.
	requireError(t, env.get("/customers?x=1&limit=abc"), 1003)
	require.Len(t, listIDs(t, env.get("/customers?limit=1")), 1)
	// The hosted pages and the dashboard get the same refusal.
	r := env.do(http.MethodGet, "/_dashboard/?"+b.String(), "", nil)
	assert.Equal(t, http.StatusBadRequest, r.status)
}

// redirect_url takes an http or https URL or a relative one; any other
// scheme (which the 3-D Secure page would send the payer's browser to) is
// a malformed field, 1001, on every request that takes one.
func TestRedirectURLSchemes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	for _, bad := range []string{"javascript:alert(document.domain)//", "JAVASCRIPT:alert(1)", "data:text/html,x",
		"vbscript:x", "http:/no-host", "shop.example.com:8080/back"} {
		desc := requireError(t, env.post("/charges", cardCharge(card, "use_3d_secure", true, "redirect_url", bad)), 1001)
		assert.Contains(t, desc, "redirect_url", bad)
		requireError(t, env.post("/charges", map[string]any{"method": "alipay", "amount": 20, "description": "x", "redirect_url": bad}), 1001)
		requireError(t, env.post("/checkouts", map[string]any{"amount": 10, "description": "x", "redirect_url": bad}), 1001)
	}
	for _, good := range []string{"https://shop.example/back", "http://localhost:8080/back", "/", "shop.example.com/back"} {
		o := requireOK(t, env.post("/charges", cardCharge(card, "use_3d_secure", true, "redirect_url", good)), http.StatusOK)
		pageURL := o["payment_method"].(map[string]any)["url"].(string)
		page := browse(t, env, pageURL, nil)
		res := browse(t, env, pageURL, url.Values{"token": {page.token(t)}, "action": {"approve"}})
		require.Equal(t, http.StatusSeeOther, res.status, res.body)
		assert.Contains(t, res.location, good+"?id="+o["id"].(string))
	}
}

// The opaque origin "null", which any page can take (a sandboxed frame),
// is never let read an answer with credentials; a real origin still is.
func TestOriginNullNeverWithCredentials(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, r := range []resp{
		env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, validCard("4111111111111111"), "Origin", "null"),
		env.do(http.MethodOptions, env.mp("/tokens"), "", nil, "Origin", "null", "Access-Control-Request-Method", "POST"),
		env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components?s=x", "", nil, "Origin", "null"),
	} {
		assert.Empty(t, r.header.Get("Access-Control-Allow-Credentials"))
		assert.NotEqual(t, "*", r.header.Get("Access-Control-Allow-Origin"))
	}
	r := env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, validCard("4111111111111111"), "Origin", testOrigin)
	assert.Equal(t, "true", r.header.Get("Access-Control-Allow-Credentials"))
}

// JSON answers, errors included, carry X-Content-Type-Options: nosniff;
// the hosted pages carry a Content-Security-Policy that allows no script.
func TestAnswersCarryNosniffAndPagesACSP(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, r := range []resp{env.get("/customers"), env.get("/customers/nope"), env.do(http.MethodGet, "/_health", "", nil),
		env.do(http.MethodGet, "/antifraud/"+env.m.ID+"/components?s=x", "", nil)} {
		assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), "%s", r.body)
	}
	card := storedCard(t, env, "", "4111111111111111")
	o := requireOK(t, env.post("/charges", cardCharge(card, "use_3d_secure", true, "redirect_url", "https://shop.example/back")), http.StatusOK)
	checkout := requireOK(t, env.post("/checkouts", map[string]any{"amount": 10, "description": "x"}), http.StatusOK)
	for _, page := range []string{o["payment_method"].(map[string]any)["url"].(string), checkout["checkout_link"].(string),
		env.srv.URL + "/v1/" + env.m.ID + "/charges/nope/redirect/"} {
		r := browse(t, env, page, nil)
		csp := r.header.Get("Content-Security-Policy")
		assert.Contains(t, csp, "default-src 'none'", page)
		assert.NotContains(t, csp, "script-src", page)
		assert.Contains(t, csp, "frame-ancestors 'none'", page)
		assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), page)
	}
}
