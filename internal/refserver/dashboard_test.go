package refserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dashClient speaks to the dashboard of a testEnv as a browser would: it
// does not follow redirects, so a button's 303 can be seen.
type dashClient struct {
	env        *testEnv
	user, pass string // HTTP Basic, when user is set
}

func (d dashClient) send(method, path string, form url.Values, headers ...string) resp {
	d.env.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, d.env.srv.URL+path, body)
	require.NoError(d.env.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if d.user != "" {
		req.SetBasicAuth(d.user, d.pass)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	c := *d.env.srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := c.Do(req)
	require.NoError(d.env.t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(d.env.t, err)
	return resp{status: res.StatusCode, header: res.Header, body: data}
}

// page GETs a dashboard page and requires 200.
func (d dashClient) page(path string) string {
	d.env.t.Helper()
	r := d.send(http.MethodGet, path, nil)
	require.Equal(d.env.t, http.StatusOK, r.status, "%s: %s", path, r.body)
	assert.Equal(d.env.t, "text/html; charset=utf-8", r.header.Get("Content-Type"))
	return string(r.body)
}

var csrfField = regexp.MustCompile(`name="csrf" (?:value|content)="([^"]+)"`)

// token reads the form token from a dashboard page (its forms carry it,
// and so does the page's head, for a page with no form).
func (d dashClient) token() string {
	d.env.t.Helper()
	m := csrfField.FindStringSubmatch(d.page("/_dashboard/"))
	require.NotNil(d.env.t, m, "no form token on the overview")
	return m[1]
}

// press posts a button's form as a page of the dashboard does (same
// origin).
func (d dashClient) press(path, token string, extra ...string) resp {
	d.env.t.Helper()
	form := url.Values{"csrf": {token}, "back": {"/_dashboard/"}}
	for i := 0; i+1 < len(extra); i += 2 {
		form.Set(extra[i], extra[i+1])
	}
	return d.send(http.MethodPost, path, form, "Origin", d.env.srv.URL, "Sec-Fetch-Site", "same-origin")
}

// dashState fills a merchant with a little of everything the dashboard
// shows and returns the ids.
type dashState struct {
	customer, card, bankAccount, customerCharge, storeCharge, cardCharge, pendingCharge, payout string
}

func fillDashboard(t *testing.T, env *testEnv) dashState {
	t.Helper()
	var st dashState
	st.customer = requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com",
		"requires_account": true}), http.StatusOK)["id"].(string)
	st.card = storedCard(t, env, "/customers/"+st.customer, "4111111111111111")
	st.customerCharge = requireOK(t, env.post("/customers/"+st.customer+"/charges", cardCharge(st.card)), http.StatusOK)["id"].(string)
	st.bankAccount = requireOK(t, env.post("/customers/"+st.customer+"/bankaccounts",
		map[string]any{"holder_name": "Ana", "clabe": clabeBancomer}), http.StatusOK)["id"].(string)
	st.storeCharge = requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 150,
		"description": "tienda"}), http.StatusOK)["id"].(string)
	merchantCard := storedCard(t, env, "", "5555555555554444")
	st.cardCharge = requireOK(t, env.post("/charges", cardCharge(merchantCard)), http.StatusOK)["id"].(string)
	threeDS := storedCard(t, env, "", "5454545454545454")
	st.pendingCharge = requireOK(t, env.post("/charges", cardCharge(threeDS, "redirect_url", "https://shop.example/back")),
		http.StatusOK)["id"].(string)
	st.payout = requireOK(t, env.post("/payouts", inlineBankPayout("amount", 10)), http.StatusOK)["id"].(string)
	return st
}

func TestDashboardPages(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	st := fillDashboard(t, env)
	d := dashClient{env: env}

	overview := d.page("/_dashboard/")
	assert.Contains(t, overview, env.m.ID)
	assert.Contains(t, overview, env.other.ID)
	assert.Contains(t, overview, "Main merchant")
	assert.Contains(t, overview, `id="clock">2026-03-10 12:00:00 -06:00`)
	assert.Contains(t, overview, `id="advance"`, "a fake clock has its advance button")

	customers := d.page("/_dashboard/merchants/" + env.m.ID + "/")
	assert.Contains(t, customers, st.customer)
	assert.Contains(t, customers, st.card)
	assert.Contains(t, customers, "411111XXXXXX1111", "card numbers masked as the API answers them")
	assert.Contains(t, customers, st.bankAccount)
	assert.Contains(t, customers, clabe.Mask(clabeBancomer))
	link := "/_dashboard/merchants/" + env.m.ID + "/transactions?type=charge&amp;customer=" + st.customer
	assert.Contains(t, customers, `href="`+link+`"`, "a customer links to its charges")
	theirs := d.page(strings.ReplaceAll(link, "&amp;", "&"))
	assert.Equal(t, 1, strings.Count(theirs, `class="transaction"`))
	assert.Contains(t, theirs, `data-id="`+st.customerCharge+`"`)

	txs := d.page("/_dashboard/merchants/" + env.m.ID + "/transactions")
	for _, id := range []string{st.storeCharge, st.cardCharge, st.pendingCharge, st.payout} {
		assert.Contains(t, txs, `data-id="`+id+`"`)
	}
	assert.Contains(t, txs, "555555XXXXXX4444")
	assert.Contains(t, txs, "<code>charge.created</code>", "the events a transaction caused show in its history")
	assert.Contains(t, txs, "<code>payout.created</code>")
	row := func(id string) string {
		i := strings.Index(txs, `data-id="`+id+`"`)
		require.GreaterOrEqual(t, i, 0)
		j := strings.Index(txs[i:], "</tr>")
		return txs[i : i+j]
	}
	assert.Contains(t, row(st.storeCharge), "action-pay")
	assert.Contains(t, row(st.storeCharge), "action-fail")
	assert.Contains(t, row(st.pendingCharge), "action-complete")
	assert.Contains(t, row(st.cardCharge), "action-chargeback")
	assert.NotContains(t, row(st.cardCharge), "action-pay")
	assert.Contains(t, row(st.payout), "action-settle")

	hooks := d.page("/_dashboard/merchants/" + env.m.ID + "/webhooks")
	assert.Contains(t, hooks, "No webhooks.")

	// Nothing secret on any page: no private key, no full card number
	// or CLABE.
	for _, pg := range []string{overview, customers, txs, hooks} {
		for _, secret := range []string{env.m.PrivateKey, env.other.PrivateKey, env.g.PrivateKey,
			"4111111111111111", "5555555555554444", "5454545454545454", clabeBancomer} {
			assert.NotContains(t, pg, secret)
		}
	}

	r := d.send(http.MethodGet, "/_dashboard/merchants/nosuchmerchant/", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	r = d.send(http.MethodGet, "/_dashboard/merchants/"+env.m.ID+"/elsewhere", nil)
	assert.Equal(t, http.StatusNotFound, r.status)
	r = d.send(http.MethodGet, "/_dashboard", nil)
	assert.Equal(t, http.StatusMovedPermanently, r.status)
	assert.Equal(t, "/_dashboard/", r.header.Get("Location"))
}

func TestDashboardButtons(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	st := fillDashboard(t, env)
	d := dashClient{env: env}
	token := d.token()
	status := func(id string) string {
		t.Helper()
		tx := env.s.merchantByID(env.m.ID)
		tx.mu.Lock()
		defer tx.mu.Unlock()
		return string(tx.txByID(id).status())
	}
	act := func(id, action string) resp {
		t.Helper()
		return d.press("/_dashboard/merchants/"+env.m.ID+"/transactions/"+id+"/"+action, token)
	}

	cases := []struct {
		id, action, want string
	}{
		{st.storeCharge, "pay", "completed"},
		{st.pendingCharge, "complete", "completed"},
		{st.cardCharge, "chargeback", "chargeback_pending"},
		{st.payout, "settle", "completed"},
	}
	for _, tc := range cases {
		r := act(tc.id, tc.action)
		require.Equal(t, http.StatusSeeOther, r.status, "%s: %s", tc.action, r.body)
		assert.Equal(t, "/_dashboard/", r.header.Get("Location"))
		assert.Equal(t, tc.want, status(tc.id), tc.action)
	}
	for _, step := range []struct{ action, want string }{
		{"reject", "completed"}, {"chargeback", "chargeback_pending"}, {"accept", "chargeback_accepted"},
	} {
		r := act(st.cardCharge, step.action)
		require.Equal(t, http.StatusSeeOther, r.status, "%s: %s", step.action, r.body)
		assert.Equal(t, step.want, status(st.cardCharge), step.action)
		if step.want == "chargeback_pending" {
			one := d.page("/_dashboard/merchants/" + env.m.ID + "/transactions?id=" + st.cardCharge)
			assert.Contains(t, one, "action-accept")
			assert.Contains(t, one, "action-reject")
		}
	}
	txs := d.page("/_dashboard/merchants/" + env.m.ID + "/transactions")
	assert.Contains(t, txs, "<code>charge.succeeded</code>")
	assert.Contains(t, txs, "<code>chargeback.created</code>")
	assert.Contains(t, txs, "<code>chargeback.rejected</code>")
	assert.Contains(t, txs, "<code>chargeback.accepted</code>")
	assert.Contains(t, txs, "<code>payout.succeeded</code>")

	// fail: a charge waiting for its payer (cash that is never paid ends
	// cancelled, as its due date would end it), and a payout in progress.
	store := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 20, "description": "x"}), http.StatusOK)["id"].(string)
	payout := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 1)), http.StatusOK)["id"].(string)
	for id, want := range map[string]string{store: "cancelled", payout: "failed"} {
		r := act(id, "fail")
		require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
		assert.Equal(t, want, status(id))
	}

	// The store charge paid above is cash: no chargeback button, and the
	// action pressed anyway is refused and leaves it completed.
	one := d.page("/_dashboard/merchants/" + env.m.ID + "/transactions?id=" + st.storeCharge)
	assert.NotContains(t, one, "action-chargeback", "a paid store charge has no chargeback")
	r := act(st.storeCharge, "chargeback")
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Contains(t, string(r.body), "Only card charges can be disputed")
	assert.Equal(t, "completed", status(st.storeCharge))

	// An action the state refuses says why, and changes nothing.
	r = act(st.storeCharge, "pay")
	assert.Equal(t, http.StatusConflict, r.status)
	assert.Contains(t, string(r.body), "Only a store or bank charge in progress, or a PSE charge pending, can be paid")
	r = act(st.storeCharge, "dance")
	assert.Equal(t, http.StatusConflict, r.status)

	// The clock.
	r = d.press("/_dashboard/clock/advance", token, "seconds", "3600")
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	assert.Equal(t, testStart.Add(time.Hour), env.s.Now())
	r = d.press("/_dashboard/clock/advance", token, "seconds", "-5")
	assert.Equal(t, http.StatusUnprocessableEntity, r.status)
	assert.Equal(t, testStart.Add(time.Hour), env.s.Now())

	// back only ever leads to a dashboard page.
	r = d.send(http.MethodPost, "/_dashboard/clock/advance", url.Values{"csrf": {token}, "seconds": {"1"},
		"back": {"https://evil.example/_dashboard/"}}, "Sec-Fetch-Site", "same-origin")
	require.Equal(t, http.StatusSeeOther, r.status)
	assert.Equal(t, "/_dashboard/", r.header.Get("Location"))

	// Reset: what was made is gone, the clock is back at its start. The
	// button is answered outside the request gate, or it would wait for
	// itself.
	r = d.press("/_dashboard/reset", token)
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	assert.Equal(t, testStart, env.s.Now())
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	kept := m.txByID(st.cardCharge) != nil
	m.mu.Unlock()
	assert.False(t, kept, "the charge made before the reset is gone")
}

func TestDashboardRefusesCrossSiteRequests(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	charge := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 150, "description": "tienda"}), http.StatusOK)["id"].(string)
	d := dashClient{env: env}
	token := d.token()
	path := "/_dashboard/merchants/" + env.m.ID + "/transactions/" + charge + "/pay"
	cases := []struct {
		name    string
		form    url.Values
		headers []string
	}{
		{"no token", url.Values{}, []string{"Sec-Fetch-Site", "same-origin"}},
		{"wrong token", url.Values{"csrf": {"x" + token}}, []string{"Sec-Fetch-Site", "same-origin"}},
		{"token from another site", url.Values{"csrf": {token}}, []string{"Sec-Fetch-Site", "cross-site"}},
		{"other origin, no fetch metadata", url.Values{"csrf": {token}}, []string{"Origin", "https://evil.example"}},
	}
	for _, tc := range cases {
		r := d.send(http.MethodPost, path, tc.form, tc.headers...)
		assert.Equal(t, http.StatusForbidden, r.status, tc.name)
		assert.Len(t, env.s.Events(env.m.ID), 1, "%s: only charge.created, the charge was not paid", tc.name)
	}
	r := d.send(http.MethodPost, path, url.Values{"csrf": {token}}, "Sec-Fetch-Site", "same-origin")
	assert.Equal(t, http.StatusSeeOther, r.status, "the same request from the dashboard's own page works")
	r = d.send(http.MethodPut, path, url.Values{"csrf": {token}})
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
}

func TestDashboardCredentialsOffLoopback(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{ListenAddr: "0.0.0.0:8080"})
	charge := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 150, "description": "tienda"}), http.StatusOK)["id"].(string)

	for name, d := range map[string]dashClient{
		"none":               {env: env},
		"wrong key":          {env: env, user: env.m.ID, pass: env.other.PrivateKey},
		"public key":         {env: env, user: env.m.ID, pass: env.m.PublicKey},
		"key as user (API)":  {env: env, user: env.m.PrivateKey},
		"unknown merchant":   {env: env, user: "mnosuchmerchant", pass: env.m.PrivateKey},
		"empty key":          {env: env, user: env.m.ID},
		"group key":          {env: env, user: env.g.ID, pass: env.g.PrivateKey},
		"key of other, path": {env: env, user: env.other.ID, pass: env.m.PrivateKey},
	} {
		for _, path := range []string{"/_dashboard/", "/_dashboard/merchants/" + env.m.ID + "/transactions"} {
			r := d.send(http.MethodGet, path, nil)
			assert.Equal(t, http.StatusUnauthorized, r.status, "%s %s", name, path)
			assert.Contains(t, r.header.Get("WWW-Authenticate"), "Basic realm=", name)
			assert.NotContains(t, string(r.body), env.m.ID, name)
		}
		r := d.send(http.MethodPost, "/_dashboard/merchants/"+env.m.ID+"/transactions/"+charge+"/pay",
			url.Values{}, "Sec-Fetch-Site", "same-origin")
		assert.Equal(t, http.StatusUnauthorized, r.status, name)
	}

	d := dashClient{env: env, user: env.m.ID, pass: env.m.PrivateKey}
	overview := d.page("/_dashboard/")
	assert.Contains(t, overview, env.m.ID)
	assert.NotContains(t, overview, env.other.ID, "a merchant's key shows that merchant alone")
	assert.NotContains(t, overview, `id="reset"`, "reset touches every merchant")
	assert.Contains(t, d.page("/_dashboard/merchants/"+env.m.ID+"/transactions"), charge)
	r := d.send(http.MethodGet, "/_dashboard/merchants/"+env.other.ID+"/", nil)
	assert.Equal(t, http.StatusNotFound, r.status)

	token := d.token()
	r = d.press("/_dashboard/merchants/"+env.other.ID+"/transactions/"+charge+"/pay", token)
	assert.Equal(t, http.StatusNotFound, r.status, "not another merchant's buttons")
	r = d.press("/_dashboard/reset", token)
	assert.Equal(t, http.StatusForbidden, r.status)
	r = d.press("/_dashboard/merchants/"+env.m.ID+"/transactions/"+charge+"/pay", token)
	assert.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
}

func TestDashboardLoopback(t *testing.T) {
	t.Parallel()
	cases := []struct {
		listen, host string
		open         bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "localhost:8080", true},
		{"[::1]:8080", "[::1]:8080", true},
		{"127.0.0.1:8080", "evil.example:8080", false}, // DNS rebinding
		{"0.0.0.0:8080", "127.0.0.1:8080", false},
		{"[::]:8080", "localhost:8080", false},
		{":8080", "localhost:8080", false},
		{"192.0.2.10:8080", "192.0.2.10:8080", false},
		{"", "localhost:8080", false}, // no listener known, no connection: not loopback
	}
	for _, tc := range cases {
		s := New(Options{ListenAddr: tc.listen, NoDashboard: true})
		r := httptest.NewRequest(http.MethodGet, "/_dashboard/", nil)
		r.Host = tc.host
		assert.Equal(t, tc.open, s.dashboardOnLoopback(r), "%s %s", tc.listen, tc.host)
	}
}

func TestDashboardOff(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{NoDashboard: true})
	r := dashClient{env: env}.send(http.MethodGet, "/_dashboard/", nil)
	requireError(t, r, int(openpay.ErrNotFound))
}

func TestDashboardTransactionPages(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	m := env.s.merchantByID(env.m.ID)
	// Stored directly: the pages must not care how many there are.
	const n = 3000
	m.mu.Lock()
	for i := range n {
		t := env.s.newMoneyTx(new(tx), m, openpay.TransactionTypeCharge, openpay.TransactionMethodStore, openpay.OperationTypeIn,
			openpay.MustAmount("1.00"), fmt.Sprintf("charge %d", i), "", "")
		t.kind = kindStore
		m.setStatus(t, openpay.TransactionStatusInProgress)
		if i%2 == 1 {
			m.setStatus(t, openpay.TransactionStatusCancelled)
		}
		m.addTx(t)
	}
	m.mu.Unlock()
	d := dashClient{env: env}
	base := "/_dashboard/merchants/" + env.m.ID + "/transactions"
	first := d.page(base)
	assert.Equal(t, 25, strings.Count(first, `class="transaction"`))
	assert.Contains(t, first, "charge 2999", "newest first")
	assert.NotContains(t, first, "charge 2974<")
	assert.Contains(t, first, "1–25 of 3000")
	assert.Contains(t, first, `href="?offset=25"`)

	second := d.page(base + "?offset=25")
	assert.Contains(t, second, "charge 2974<")
	assert.Contains(t, second, `href="?offset=0"`)

	pending := d.page(base + "?type=charge&status=in_progress")
	assert.Contains(t, pending, "of 1500")
	assert.Contains(t, pending, "charge 2998<")
	assert.NotContains(t, pending, "charge 2999<")
	assert.Contains(t, pending, `href="?offset=25&amp;type=charge&amp;status=in_progress"`)

	last := d.page(base + "?offset=2990")
	assert.Equal(t, 10, strings.Count(last, `class="transaction"`))
	assert.Contains(t, d.page(base+"?offset=5000"), "No transactions.")
	assert.Contains(t, d.page(base+"?type=nonsense"), "No transactions.")
}

func TestDashboardWebhookAttempts(t *testing.T) {
	t.Parallel()
	calls := make(chan string, 100)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"verification"`) {
			w.WriteHeader(http.StatusOK)
			return
		}
		calls <- string(body)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(receiver.Close)
	env := newTestEnv(t, Options{WebhookRetryDelay: time.Millisecond})
	wh := requireOK(t, env.post("/webhooks", map[string]any{"url": receiver.URL, "user": "u", "password": "hook-secret",
		"event_types": []string{"charge.created"}}), http.StatusCreated)["id"].(string)
	requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 150, "description": "tienda"}), http.StatusOK)
	<-calls
	<-calls // a retry
	require.Eventually(t, func() bool { return len(env.s.deliveries.Attempts(wh)) >= 3 }, 10*time.Second, 5*time.Millisecond)

	page := dashClient{env: env}.page("/_dashboard/merchants/" + env.m.ID + "/webhooks")
	assert.Contains(t, page, wh)
	assert.Contains(t, page, "<code>verification</code>")
	assert.Contains(t, page, "HTTP 200")
	assert.Contains(t, page, "<code>charge.created</code>")
	assert.Contains(t, page, "HTTP 503")
	assert.NotContains(t, page, "hook-secret", "a webhook's password is never shown")
	ev := env.s.Events(env.m.ID)[0]
	assert.Contains(t, page, ev.ID, "an attempt names its event")
	link := "/_dashboard/merchants/" + env.m.ID + "/transactions?id=" + ev.Transaction.ID
	assert.Contains(t, page, `href="`+link+`"`, "and links to its transaction")
	one := dashClient{env: env}.page(link)
	assert.Equal(t, 1, strings.Count(one, `class="transaction"`))
	assert.Contains(t, one, `id="ev-`+ev.ID+`"`)
}

// BenchmarkScaleDashboard measures the dashboard's transaction page over
// HTTP in stores of 10,000 and 1,000,000 charges: the newest page, a page
// deep in the list and a page of one status. Its cost is the page's, not
// the store's.
//
//	go test -run XXX -bench ScaleDashboard -benchtime 200x ./internal/refserver/
func BenchmarkScaleDashboard(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		st := newScaleStore(b, n)
		client := &http.Client{}
		base := st.srv.URL + "/_dashboard/merchants/" + st.m.ID + "/transactions"
		for _, q := range []struct{ name, query string }{
			{"newest", ""}, {"deep", fmt.Sprintf("?offset=%d", n/2)}, {"failed", "?type=charge&status=failed"},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, q.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					res, err := client.Get(base + q.query)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						b.Fatalf("status %d", res.StatusCode)
					}
				}
			})
		}
		client.CloseIdleConnections()
		st.close()
	}
}

// TestDashboardWhileWriting reads every page while charges are created and
// paid: run with -race, it checks that what the pages read outside the
// merchant's lock (the event log, the owned records' lists) is safe.
func TestDashboardWhileWriting(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fillDashboard(t, env)
	d := dashClient{env: env}
	done := make(chan struct{})
	go func() {
		// Asserts where a check can fail: FailNow must not run outside the
		// test's goroutine (env.post and obj require only an answer in JSON).
		defer close(done)
		for range 60 {
			r := env.post("/charges", map[string]any{"method": "store", "amount": 5, "description": "x"})
			if !assert.Equal(t, http.StatusOK, r.status) {
				return
			}
			_, err := env.s.PayCharge(env.m.ID, r.obj(t)["id"].(string))
			assert.NoError(t, err)
			cu, err := env.s.CreateCustomer(env.m.ID, openpay.CustomerRequest{Name: "Luis"})
			assert.NoError(t, err)
			r = env.post("/customers/"+cu.ID+"/cards", validCard("4242424242424242"))
			assert.Equal(t, http.StatusOK, r.status)
		}
	}()
	for {
		select {
		case <-done:
			assert.Contains(t, d.page("/_dashboard/merchants/"+env.m.ID+"/transactions"), "charge.succeeded")
			return
		default:
		}
		for _, p := range []string{"/", "/transactions", "/webhooks"} {
			d.page("/_dashboard/merchants/" + env.m.ID + p)
		}
	}
}

// TestDashboardHistoryWithoutEvent: a change that emits no event (a 3-D
// Secure pre-authorization completed) still ends the history.
func TestDashboardHistoryWithoutEvent(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "5454545454545454")
	id := requireOK(t, env.post("/charges", cardCharge(card, "redirect_url", "https://shop.example/back", "capture", false)),
		http.StatusOK)["id"].(string)
	env.clock.Advance(time.Minute)
	tr, err := env.s.CompleteCharge(env.m.ID, id)
	require.NoError(t, err)
	require.Equal(t, openpay.TransactionStatusInProgress, tr.Status)
	page := dashClient{env: env}.page("/_dashboard/merchants/" + env.m.ID + "/transactions?id=" + id)
	assert.Contains(t, page, `<code>charge.created</code> → <span class="status">charge_pending</span>`)
	assert.Contains(t, page, `2026-03-10 12:01:00 -06:00 <span class="muted">(no event)</span> → <span class="status">in_progress</span>`)
}
