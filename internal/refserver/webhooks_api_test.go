package refserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/delivery"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// received is one request a receiver got.
type received struct {
	user, password string
	basic          bool
	event          openpay.WebhookEvent
	raw            map[string]any
}

// receiver is a webhook URL for tests: it records every POST and answers
// with what answer says (200 when answer is nil).
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	answer func(n int, ev openpay.WebhookEvent) int // n counts requests from 1

	mu   sync.Mutex
	got  []received
	more chan struct{} // signalled after each request
}

func newReceiver(t *testing.T, answer func(n int, ev openpay.WebhookEvent) int) *receiver {
	rc := &receiver{t: t, answer: answer, more: make(chan struct{}, 1000)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var got received
		got.user, got.password, got.basic = r.BasicAuth()
		assert.NoError(t, json.Unmarshal(body, &got.event), "body %s", body)
		assert.NoError(t, json.Unmarshal(body, &got.raw))
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		rc.mu.Lock()
		rc.got = append(rc.got, got)
		n := len(rc.got)
		rc.mu.Unlock()
		status := http.StatusOK
		if rc.answer != nil {
			status = rc.answer(n, got.event)
		}
		w.WriteHeader(status)
		rc.more <- struct{}{}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// requests returns what the receiver got so far.
func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// waitFor waits until the receiver has got n requests in all.
func (rc *receiver) waitFor(n int) []received {
	rc.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if got := rc.requests(); len(got) >= n {
			return got
		}
		select {
		case <-rc.more:
		case <-deadline:
			rc.t.Fatalf("the receiver got %d requests, want %d", len(rc.requests()), n)
		}
	}
}

// only answers 200 to the verification event and what status says to the
// rest.
func only(status int) func(int, openpay.WebhookEvent) int {
	return func(_ int, ev openpay.WebhookEvent) int {
		if ev.Type == openpay.EventTypeVerification {
			return http.StatusOK
		}
		return status
	}
}

func webhookBody(url string, types ...string) map[string]any {
	return map[string]any{"url": url, "user": "juanito", "password": "passjuanito", "event_types": types}
}

func TestWebhookCreateGetListDelete(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	rc := newReceiver(t, nil)

	r := env.post("/webhooks", webhookBody(rc.srv.URL+"/hook", "charge.succeeded", "charge.created", "charge.succeeded"))
	o := requireOK(t, r, http.StatusCreated)
	assert.ElementsMatch(t, []string{"id", "url", "user", "event_types", "status"}, keysOf(o))
	assert.Regexp(t, `^w[a-z0-9]{19}$`, o["id"])
	assert.Equal(t, rc.srv.URL+"/hook", o["url"])
	assert.Equal(t, "juanito", o["user"])
	assert.Equal(t, []any{"charge.succeeded", "charge.created"}, o["event_types"], "a type sent twice is kept once")
	assert.Equal(t, "verified", o["status"], "the URL answered the verification event with 200")
	assert.NotContains(t, string(r.body), "passjuanito")
	first := o["id"].(string)

	// The verification event: Basic credentials, an 8-character code, no
	// transaction.
	got := rc.waitFor(1)
	require.Len(t, got, 1)
	v := got[0]
	assert.True(t, v.basic)
	assert.Equal(t, "juanito", v.user)
	assert.Equal(t, "passjuanito", v.password)
	assert.Equal(t, openpay.EventTypeVerification, v.event.Type)
	assert.Regexp(t, `^[A-Za-z0-9]{8}$`, v.event.VerificationCode)
	assert.Nil(t, v.event.Transaction)
	assert.Equal(t, env.s.Now(), v.event.EventDate.In(gatewayZone))
	assert.ElementsMatch(t, []string{"type", "event_date", "verification_code"}, keysOf(v.raw))

	g := requireOK(t, env.get("/webhooks/"+first), http.StatusOK)
	assert.Equal(t, o, g)

	env.clock.Advance(time.Minute)
	second := requireOK(t, env.post("/webhooks", map[string]any{"url": rc.srv.URL, "event_types": []string{"payout.created"}}),
		http.StatusCreated)
	assert.NotContains(t, second, "user", "no user was given")
	list := env.get("/webhooks").arr(t)
	assert.Equal(t, []string{second["id"].(string), first}, ids(list), "newest first")
	for _, w := range list {
		assert.NotContains(t, w, "password")
	}

	require.Equal(t, http.StatusNoContent, env.del("/webhooks/"+first).status)
	requireError(t, env.get("/webhooks/"+first), 1005)
	requireError(t, env.del("/webhooks/"+first), 1005)
	assert.Equal(t, []string{second["id"].(string)}, ids(env.get("/webhooks").arr(t)))

	// Another merchant sees none of them.
	other := env.do(http.MethodGet, "/v1/"+env.other.ID+"/webhooks", env.other.PrivateKey, nil)
	assert.Empty(t, other.arr(t))
	requireError(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/webhooks/"+second["id"].(string), env.other.PrivateKey, nil), 1005)
	// The public key may not manage webhooks.
	requireError(t, env.do(http.MethodGet, env.mp("/webhooks"), env.m.PublicKey, nil), 1010)
}

func TestWebhookVerifyWithTheCode(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	rc := newReceiver(t, func(int, openpay.WebhookEvent) int { return http.StatusInternalServerError })

	o := requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)
	assert.Equal(t, "unverified", o["status"], "the URL answered the verification event with 500")
	id := o["id"].(string)
	code := rc.waitFor(1)[0].event.VerificationCode
	require.Len(t, code, 8)

	wrong := "A" + code[1:]
	if wrong == code {
		wrong = "B" + code[1:]
	}
	desc := requireError(t, env.post("/webhooks/"+id+"/verify/"+wrong, nil), 1003)
	assert.Contains(t, desc, "verification code")
	assert.Equal(t, "unverified", env.get("/webhooks/" + id).obj(t)["status"])
	requireError(t, env.post("/webhooks/wnothere00000000000/verify/"+code, nil), 1005)

	r := env.post("/webhooks/"+id+"/verify/"+code, nil)
	require.Equal(t, http.StatusNoContent, r.status, "body %s", r.body)
	assert.Empty(t, r.body)
	assert.Equal(t, "verified", env.get("/webhooks/" + id).obj(t)["status"])
	// Again with the same code: still 204.
	require.Equal(t, http.StatusNoContent, env.post("/webhooks/"+id+"/verify/"+code, nil).status)

	// An unreachable URL leaves the webhook unverified, and creation succeeds.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	o = requireOK(t, env.post("/webhooks", webhookBody(dead.URL, "charge.succeeded")), http.StatusCreated)
	assert.Equal(t, "unverified", o["status"])
}

func TestWebhookValidation(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	valid := webhookBody("http://127.0.0.1:1/hook", "charge.succeeded")
	for _, tc := range []struct {
		body any
		code int
		desc string
	}{
		{`[]`, 1001, ""},
		{`{"url":`, 1001, ""},
		{with(valid, "url", nil), 1001, "'url'"},
		{with(valid, "event_types", nil), 1001, "'event_types'"},
		{with(valid, "event_types", "charge.succeeded"), 1001, "'event_types'"},
		{with(valid, "url", 12), 1001, "'url'"},
		{with(valid, "url", " "), 1001, "'url'"},
		{with(valid, "url", "ftp://example.com/hook"), 1003, "'url'"},
		{with(valid, "url", "hook"), 1003, "'url'"},
		{with(valid, "url", "http://example.com/"+strings.Repeat("a", maxWebhookURL)), 1003, "'url'"},
		{with(valid, "event_types", []string{}), 1003, "'event_types'"},
		{with(valid, "event_types", []string{"charge.succeeded", "charge.teleported"}), 1003, "charge.teleported"},
		{with(valid, "user", strings.Repeat("u", maxWebhookCredential+1)), 1003, "'user'"},
		{with(valid, "password", strings.Repeat("p", maxWebhookCredential+1)), 1003, "'password'"},
	} {
		desc := requireError(t, env.post("/webhooks", tc.body), tc.code)
		assert.Contains(t, desc, tc.desc, "%v", tc.body)
	}
	assert.Empty(t, env.get("/webhooks").arr(t), "no refused webhook was stored")

	// Production endpoints must be https on a domain name.
	prod := newTestEnv(t, Options{Production: true})
	for _, u := range []string{"http://hooks.example.com/x", "https://127.0.0.1/x", "https://[::1]/x"} {
		desc := requireError(t, prod.post("/webhooks", with(valid, "url", u)), 1003)
		assert.Contains(t, desc, "https", u)
	}
}

// chargeOnce makes a completed card charge of 100 and answers its id.
func chargeOnce(t *testing.T, env *testEnv) string {
	t.Helper()
	o := requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 100, "description": "x",
		"card": validCard("4111111111111111")}), http.StatusOK)
	return o["id"].(string)
}

func TestWebhookDeliversSubscribedEvents(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	rc := newReceiver(t, nil)
	requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded", "charge.refunded")), http.StatusCreated)
	// An unverified webhook subscribed to everything gets nothing.
	silent := newReceiver(t, func(int, openpay.WebhookEvent) int { return http.StatusGone })
	requireOK(t, env.post("/webhooks", webhookBody(silent.srv.URL, "charge.created", "charge.succeeded")), http.StatusCreated)

	id := chargeOnce(t, env)
	requireOK(t, env.post("/charges/"+id+"/refund", map[string]any{"amount": 40}), http.StatusOK)

	got := rc.waitFor(3)[1:]
	require.Len(t, got, 2)
	assert.Equal(t, openpay.EventTypeChargeSucceeded, got[0].event.Type)
	assert.Equal(t, openpay.EventTypeChargeRefunded, got[1].event.Type)
	for _, g := range got {
		assert.Equal(t, "juanito", g.user)
		assert.Equal(t, "passjuanito", g.password)
		assert.ElementsMatch(t, []string{"type", "event_date", "transaction"}, keysOf(g.raw))
		require.NotNil(t, g.event.Transaction)
		assert.Equal(t, id, g.event.Transaction.ID)
		assert.NotContains(t, g.raw["transaction"].(map[string]any)["card"].(map[string]any)["card_number"], "11111111")
		// The event's transaction has the keys of an answer, null ones too.
		assertNull(t, g.raw["transaction"].(map[string]any), "order_id", "error_message")
	}
	assert.Equal(t, "completed", string(got[0].event.Transaction.Status))
	require.NotNil(t, got[1].event.Transaction.Refund, "the refunded event shows the charge with its refund")

	// The events match the server's log, which the webhook saw a subset of.
	var want []openpay.EventType
	for _, ev := range env.s.Events(env.m.ID) {
		if ev.Type == openpay.EventTypeChargeSucceeded || ev.Type == openpay.EventTypeChargeRefunded {
			want = append(want, ev.Type)
		}
	}
	assert.Equal(t, []openpay.EventType{got[0].event.Type, got[1].event.Type}, want)
	assert.Len(t, silent.requests(), 1, "only the verification event reached the unverified webhook")
}

func TestWebhookRetriesUntil2xx(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{WebhookRetryDelay: 5 * time.Millisecond})
	// The verification (request 1) succeeds; the event fails twice, then
	// succeeds: the receiver sees it three times.
	rc := newReceiver(t, func(n int, _ openpay.WebhookEvent) int {
		if n == 2 || n == 3 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)
	id := chargeOnce(t, env)
	got := rc.waitFor(4)
	for _, g := range got[1:] {
		assert.Equal(t, openpay.EventTypeChargeSucceeded, g.event.Type)
		assert.Equal(t, id, g.event.Transaction.ID)
	}
	assert.Equal(t, got[1].raw, got[3].raw, "a retry sends the same event")
	// No fifth request: the third attempt succeeded. (Give a stray retry
	// the time to show up.)
	time.Sleep(100 * time.Millisecond)
	assert.Len(t, rc.requests(), 4)
}

func TestWebhookRetriesAreBounded(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{WebhookRetryDelay: time.Millisecond})
	rc := newReceiver(t, only(http.StatusInternalServerError))
	requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)
	chargeOnce(t, env)
	rc.waitFor(1 + delivery.MaxAttempts)
	time.Sleep(300 * time.Millisecond) // the last delay is 2^6 ms
	assert.Len(t, rc.requests(), 1+delivery.MaxAttempts)
}

func TestDeletedWebhookGetsNothingMore(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{WebhookRetryDelay: 20 * time.Millisecond})
	rc := newReceiver(t, only(http.StatusInternalServerError))
	id := requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)["id"].(string)
	chargeOnce(t, env)
	rc.waitFor(2) // the verification and the first, failed, delivery
	require.Equal(t, http.StatusNoContent, env.del("/webhooks/"+id).status)
	n := len(rc.requests())
	chargeOnce(t, env)
	time.Sleep(300 * time.Millisecond) // several retry delays
	assert.LessOrEqual(t, len(rc.requests()), n+1, "at most the retry already under way when the webhook was deleted")
}

func TestCloseStopsAHungDelivery(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	inside := make(chan struct{}, 1)
	release := make(chan struct{})
	defer close(release)
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev openpay.WebhookEvent
		_ = json.NewDecoder(r.Body).Decode(&ev)
		if ev.Type == openpay.EventTypeVerification {
			return
		}
		select {
		case inside <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	requireOK(t, env.post("/webhooks", webhookBody(hung.URL, "charge.succeeded")), http.StatusCreated)
	chargeOnce(t, env)
	select {
	case <-inside:
	case <-time.After(10 * time.Second):
		t.Fatal("the delivery never arrived")
	}
	closed := make(chan struct{})
	go func() { env.s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(delivery.Timeout / 2):
		t.Fatal("Close waited for the hung receiver")
	}
	// After Close, events are recorded and not delivered (nothing to wait for).
	chargeOnce(t, env)
	env.s.Close()
}

// The delivery log names the webhook and the answer, never the URL, the
// credentials or the event.
func TestWebhookLogsNoSecrets(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logs strings.Builder
	env := newTestEnv(t, Options{WebhookRetryDelay: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	rc := newReceiver(t, func(n int, _ openpay.WebhookEvent) int {
		if n == 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	id := requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL+"/secret-path", "charge.succeeded")), http.StatusCreated)["id"].(string)
	chargeOnce(t, env)
	rc.waitFor(3)
	env.s.Close() // no delivery logs after this
	mu.Lock()
	defer mu.Unlock()
	out := logs.String()
	assert.Contains(t, out, id)
	assert.Contains(t, out, "status=500")
	for _, secret := range []string{"passjuanito", "juanito", "secret-path", rc.srv.URL, "4111111111111111"} {
		assert.NotContains(t, out, secret)
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
