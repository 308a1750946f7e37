package refserver

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/openapidoc"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const openAPIPath = "../../openapi.yaml"

type apiOperation struct {
	id, method, path string
	status           int // documented success status (the lowest when several)
	statuses         []int
	noAuth           bool
}

func loadOperations(t *testing.T) []apiOperation {
	t.Helper()
	doc, err := openapidoc.Load(openAPIPath)
	require.NoError(t, err)
	var ops []apiOperation
	for path, item := range doc.Paths {
		for method, op := range item {
			o := apiOperation{id: op.OperationID, method: method, path: path}
			for _, code := range op.Responses {
				if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
					o.statuses = append(o.statuses, n)
					if o.status == 0 || n < o.status {
						o.status = n
					}
				}
			}
			o.noAuth = op.Security != nil && len(*op.Security) == 0
			ops = append(ops, o)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	require.NotEmpty(t, ops)
	return ops
}

// TestRouteTableMatchesOpenAPI: every operation of openapi.yaml has exactly
// one route with its method, path and success status, found by the
// matcher; the table has no API route that openapi.yaml does not list.
func TestRouteTableMatchesOpenAPI(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	ops := loadOperations(t)
	documented := map[string]bool{}
	for _, op := range ops {
		documented[op.id] = true
		rt := s.routes.byOp[op.id]
		if !assert.NotNil(t, rt, "operation %s (%s %s) has no route", op.id, op.method, op.path) {
			continue
		}
		assert.Equal(t, op.method, rt.method, op.id)
		assert.Equal(t, op.path, rt.pattern, op.id)
		assert.Equal(t, op.status, rt.status, "%s: success status", op.id)
		// Each country answers a documented status (Peru's 201s).
		for _, c := range countryrules.All {
			assert.Contains(t, op.statuses, successStatus(c, rt), "%s: success status in %s", op.id, c.Code)
		}
		assert.Equal(t, len(op.statuses) > 1, slices.ContainsFunc(countryrules.All, func(c *countryrules.Rules) bool { return successStatus(c, rt) != rt.status }),
			"%s: a second success status is documented exactly when a country answers it", op.id)
		assert.Equal(t, op.noAuth, rt.access == accessNone, "%s: credentials", op.id)
		// The matcher finds this route for a concrete path.
		concrete := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(op.path, "x1")
		got, _, _ := s.routes.match(op.method, &url.URL{Path: concrete}, nil)
		if assert.NotNil(t, got, "%s %s", op.method, concrete) {
			assert.Equal(t, op.id, got.operationID)
		}
	}
	for _, rt := range s.routes.routes {
		if rt.simulation || rt.operationID == "getBarcode" {
			continue
		}
		assert.True(t, documented[rt.operationID], "route %s is not an operation of openapi.yaml", rt.operationID)
	}
	// Only card and token creation, and the anti-fraud key, take the
	// public key; those and the anti-fraud device data are open to browsers.
	for _, rt := range s.routes.routes {
		want := rt.operationID == "createToken" || rt.operationID == "createCard" || rt.operationID == "createCustomerCard" ||
			rt.operationID == "createGroupCustomerCard" || rt.operationID == "getAntifraudKeys"
		if rt.group {
			want = false
		}
		assert.Equal(t, want, rt.access == accessPublic, "%s: public key", rt.operationID)
		assert.Equal(t, want || rt.operationID == "getAntifraudComponents", rt.browser, "%s: open to browsers", rt.operationID)
	}
}

// TestEveryOperationIsServed calls every operation of openapi.yaml over
// HTTP, with real resources where the server has them: none may answer
// 405 or the unknown-path 404. A 404 naming a missing resource is fine
// (once a card is deleted its points are gone).
func TestEveryOperationIsServed(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cust, err := env.s.CreateCustomer(env.m.ID, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com", RequiresAccount: true})
	require.NoError(t, err)
	ids := map[string]string{
		"merchant_id": env.m.ID, "group_id": env.g.ID, "customer_id": cust.ID,
		"card_id": "kmissing", "token_id": "kmissing", "transaction_id": "trmissing", "fee_id": "trmissing",
		"bank_account_id": "bmissing", "plan_id": "pmissing", "subscription_id": "smissing",
		"webhook_id": "wmissing", "verification_code": "abcdefgh", "bin": "411111", "payout_id": "trmissing",
		"checkout_id": "cmissing",
	}
	// Real resources for the operations of this wave, when they exist.
	if r := env.post("/customers/"+cust.ID+"/cards", validCard("4111111111111111")); r.status == http.StatusOK {
		ids["card_id"] = r.obj(t)["id"].(string)
	}
	if r := env.post("/tokens", validCard("4242424242424242")); r.status == http.StatusOK {
		ids["token_id"] = r.obj(t)["id"].(string)
	}
	if r := env.post("/customers/"+cust.ID+"/charges", map[string]any{"method": "store", "amount": 10, "description": "x"}); r.status == http.StatusOK {
		ids["transaction_id"] = r.obj(t)["id"].(string)
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for _, op := range loadOperations(t) {
		path := param.ReplaceAllStringFunc(op.path, func(p string) string {
			id, ok := ids[p[1:len(p)-1]]
			require.True(t, ok, "no value for %s", p)
			return url.PathEscape(id)
		})
		key := env.m.PrivateKey
		if strings.HasPrefix(op.path, "/v1/groups/") {
			key = env.g.PrivateKey
		}
		var body any
		if op.method == http.MethodPost || op.method == http.MethodPut {
			body = "{}"
		}
		if op.id == "listStores" {
			path += "?latitud=20.6&longitud=-100.4&kilometers=10&amount=100"
		}
		r := env.do(op.method, path, key, body)
		if !hasRoute(countryrules.Mexico, env.s.routes.byOp[op.id]) {
			// Not a Mexican resource (PSE): the merchant's country has no such path.
			assert.Equal(t, http.StatusNotFound, r.status, op.id)
			assert.Equal(t, descNoSuchPath, r.obj(t)["description"], op.id)
			continue
		}
		assert.NotEqual(t, http.StatusMethodNotAllowed, r.status, "%s %s", op.id, r.body)
		if r.status == http.StatusNotFound {
			// A resource that does not exist may be described as an unknown
			// path is (a plan: the gateway's words), so ask the route table.
			u, err := url.Parse(path)
			require.NoError(t, err)
			rt, _, _ := env.s.routes.match(op.method, u, nil)
			assert.NotNil(t, rt, "%s was not routed", op.id)
		}
		assert.Less(t, r.status, 500, "%s: %s", op.id, r.body)
		t.Logf("%-40s %d", op.id, r.status)
	}
}

func TestUnknownPathsAnswerTheErrorObject(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, p := range []string{
		"/", "/v1", "/v1/", "/v2/" + env.m.ID + "/charges", env.mp("/charges/"), env.mp("/nothing"),
		env.mp("//charges"), env.mp("/charges/x/y/z"), "/v1/groups/" + env.g.ID, "/favicon.ico",
		"/barcode/", "/_simulate/nothing",
	} {
		r := env.do(http.MethodGet, p, env.m.PrivateKey, nil)
		desc := requireError(t, r, 1005)
		assert.Equal(t, descNoSuchPath, desc, p)
	}
}

func TestWrongMethodAnswers405(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	r := env.do(http.MethodDelete, env.mp("/charges"), env.m.PrivateKey, nil)
	requireErrorStatus(t, r, int(MethodNotAllowedCode), http.StatusMethodNotAllowed, "request")
	assert.Equal(t, "GET, POST", r.header.Get("Allow"))
	r = env.do(http.MethodPatch, env.mp(""), env.m.PrivateKey, nil)
	requireErrorStatus(t, r, int(MethodNotAllowedCode), http.StatusMethodNotAllowed, "request")
	assert.Equal(t, "GET", r.header.Get("Allow"))
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	noEcho := func(r resp, secret string) {
		t.Helper()
		assert.NotContains(t, string(r.body), secret)
		for _, vs := range r.header {
			for _, v := range vs {
				assert.NotContains(t, v, secret)
			}
		}
	}
	// Missing credentials.
	r := env.do(http.MethodGet, env.mp(""), "", nil)
	requireError(t, r, 1002)
	// A wrong key.
	r = env.do(http.MethodGet, env.mp(""), "sk_wrongwrongwrong", nil)
	requireError(t, r, 1002)
	noEcho(r, "sk_wrongwrongwrong")
	// Another merchant's key on this merchant's path, private or public.
	r = env.do(http.MethodGet, env.mp(""), env.other.PrivateKey, nil)
	requireError(t, r, 1002)
	noEcho(r, env.other.PrivateKey)
	r = env.do(http.MethodPost, env.mp("/tokens"), env.other.PublicKey, validCard("4111111111111111"))
	requireError(t, r, 1002)
	// An unknown merchant.
	r = env.do(http.MethodGet, "/v1/mnosuchmerchant0000", env.m.PrivateKey, nil)
	requireError(t, r, 1002)
	// The public key may not read the merchant, list charges or charge.
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, ""}, {http.MethodGet, "/charges"}, {http.MethodPost, "/charges"}, {http.MethodGet, "/tokens/kx"},
	} {
		r = env.do(c.method, env.mp(c.path), env.m.PublicKey, "{}")
		requireError(t, r, 1010)
		noEcho(r, env.m.PublicKey)
	}
	// Basic auth with a password is still the key as user.
	req := env.do(http.MethodGet, env.mp(""), "", nil, "Authorization", "Basic !!!notbase64")
	requireError(t, req, 1002)
	// The private key works.
	requireOK(t, env.get(""), http.StatusOK)
	// The group key acts only for its merchants, and only on group paths.
	r = env.do(http.MethodGet, env.mp(""), env.g.PrivateKey, nil)
	requireError(t, r, 1002)
	r = env.do(http.MethodPost, "/v1/groups/"+env.g.ID+"/merchants/"+env.other.ID+"/charges", env.g.PrivateKey, "{}")
	requireError(t, r, 1002)
	r = env.do(http.MethodPost, "/v1/groups/"+env.g.ID+"/merchants/"+env.m.ID+"/charges", env.m.PrivateKey, "{}")
	requireError(t, r, 1002)
}

// TestKeysKnownAgainAuthenticateAsBefore: once a merchant's keys have
// authenticated (and are known again without hashing them, keymatch), every
// request is answered as the first was: the keys still open what they
// opened, and a key one character off, another merchant's remembered key,
// the public key on a private route and the private key from a browser are
// still refused.
func TestKeysKnownAgainAuthenticateAsBefore(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	otherPath := "/v1/" + env.other.ID
	for round := range 3 {
		requireOK(t, env.get(""), http.StatusOK)
		requireOK(t, env.do(http.MethodPost, env.mp("/tokens"), env.m.PublicKey, validCard("4111111111111111")), http.StatusOK)
		requireOK(t, env.do(http.MethodGet, otherPath, env.other.PrivateKey, nil), http.StatusOK)
		key := env.m.PrivateKey
		for _, wrong := range []string{key[:len(key)-1] + "x", key + "x", key[:len(key)-1], env.other.PrivateKey, env.other.PublicKey} {
			requireError(t, env.do(http.MethodGet, env.mp(""), wrong, nil), 1002)
		}
		requireError(t, env.do(http.MethodGet, otherPath, key, nil), 1002)
		requireError(t, env.do(http.MethodGet, env.mp("/charges"), env.m.PublicKey, nil), 1010)
		requireError(t, env.do(http.MethodGet, env.mp(""), key, nil, "Origin", "https://shop.example"), 1010)
		require.False(t, t.Failed(), "round %d", round)
	}
}

// TestMatchDoesNotAllocate checks that routing a request of the common
// forms costs no allocation: the path is split into the matcher's own array
// and the parameters go to the caller's storage. Not parallel: AllocsPerRun
// counts the whole process's allocations.
func TestMatchDoesNotAllocate(t *testing.T) {
	s := New(Options{})
	for _, c := range []struct {
		method, path, op string
		params           []string
	}{
		{http.MethodGet, "/v1/m1/charges/tr1", "getCharge", []string{"m1", "tr1"}},
		{http.MethodGet, "/v1/m1/charges", "listCharges", []string{"m1"}},
		{http.MethodPost, "/v1/m1/customers/cu1/cards", "createCustomerCard", []string{"m1", "cu1"}},
		{http.MethodGet, "/v1/groups/g1/customers", "listGroupCustomers", []string{"g1"}},
	} {
		u, err := url.Parse(c.path)
		require.NoError(t, err)
		var buf [4]string
		rt, _, params := s.routes.match(c.method, u, buf[:0])
		if assert.NotNil(t, rt, c.path) {
			assert.Equal(t, c.op, rt.operationID, c.path)
		}
		assert.Equal(t, c.params, params, c.path)
		allocs := testing.AllocsPerRun(50, func() { s.routes.match(c.method, u, buf[:0]) })
		assert.Zero(t, allocs, c.path)
	}
}

// TestServersShareTheRouteShape: every server after the first reuses the
// first's route shape (patterns and indexes) with handlers of its own, so
// that each answers with its own state; a route added to one server (as a
// test does) stays that server's.
func TestServersShareTheRouteShape(t *testing.T) {
	t.Parallel()
	a := newTestEnv(t, Options{})
	b := newTestEnv(t, Options{})
	require.Equal(t, len(a.s.routes.routes), len(b.s.routes.handlers))
	assert.Same(t, a.s.routes.routes[0], b.s.routes.routes[0], "the shape is shared")

	// Each server's handlers act on its own state.
	assert.Equal(t, http.StatusOK, a.get("/customers").status)
	assert.Equal(t, http.StatusOK, b.get("/customers").status)
	cu := newCustomer(t, a, false)
	assert.Equal(t, http.StatusOK, a.get("/customers/"+cu).status)
	requireError(t, b.get("/customers/"+cu), 1005)

	a.s.routes.add("testOnlyA", http.MethodGet, "/v1/{merchant_id}/only-a", http.StatusOK, func(*call) (any, *Error) {
		return map[string]string{"server": "a"}, nil
	})
	assert.Equal(t, http.StatusOK, a.get("/only-a").status)
	requireError(t, b.get("/only-a"), 1005)
	c := newTestEnv(t, Options{})
	requireError(t, c.get("/only-a"), 1005)
	assert.Equal(t, http.StatusOK, c.get("/customers").status)
}

// FuzzMatchPathSegments: a path is matched by its segments as unescaping
// its escaped form gives them (a %2F stays inside its segment), whether
// the request's URL kept a RawPath or not (match reads u.Path directly
// when it did not).
func FuzzMatchPathSegments(f *testing.F) {
	for _, s := range []string{"tr1", "a%2Fb", "a%25b", "a b", "caf%C3%A9", "a;b", "%", "a%zz", "x/y", "", "a//b", "é"} {
		f.Add(s)
	}
	s := New(Options{})
	f.Fuzz(func(t *testing.T, id string) {
		u, err := url.ParseRequestURI("/v1/m1/charges/" + id)
		if err != nil {
			return
		}
		// What the segments are by the escaped path, as match read them
		// before it read u.Path.
		var want []string
		for _, p := range strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/") {
			v, err := url.PathUnescape(p)
			if err != nil || v == "" {
				want = nil
				break
			}
			want = append(want, v)
		}
		rt, _, params := s.routes.match(http.MethodGet, u, nil)
		if len(want) == 4 {
			require.NotNil(t, rt, "%q", id)
			assert.Equal(t, "getCharge", rt.operationID)
			assert.Equal(t, []string{"m1", want[3]}, params, "%q", id)
		} else if rt != nil {
			assert.NotEqual(t, "getCharge", rt.operationID, "%q: segments %q", id, want)
		}
	})
}
