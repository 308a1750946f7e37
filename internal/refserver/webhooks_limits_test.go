package refserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/openpay-go/openpay/internal/refserver/delivery"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A merchant has at most MaxWebhooksPerMerchant webhooks: the next one is
// refused with 1003 and nothing is made; another merchant is not
// concerned, and a deletion makes room.
func TestWebhooksPerMerchantAreBounded(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	rc := newReceiver(t, nil)
	var first string
	for i := range MaxWebhooksPerMerchant {
		o := requireOK(t, env.post("/webhooks", webhookBody(fmt.Sprint(rc.srv.URL, "/", i), "charge.succeeded")), http.StatusCreated)
		if i == 0 {
			first = o["id"].(string)
		}
	}
	desc := requireError(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), 1003)
	assert.Contains(t, desc, fmt.Sprint(MaxWebhooksPerMerchant))
	assert.Len(t, env.get("/webhooks").arr(t), MaxWebhooksPerMerchant)

	requireOK(t, env.do(http.MethodPost, "/v1/"+env.other.ID+"/webhooks", env.other.PrivateKey,
		webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)
	requireOK(t, env.do(http.MethodDelete, env.mp("/webhooks/"+first), env.m.PrivateKey, nil), http.StatusNoContent)
	requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)
}

// As many webhooks as a merchant may have, all on a receiver that stopped:
// a bounded run of charges all succeed, the goroutines stay within the
// senders' pool (plus the HTTP machinery), and the deliveries pending
// across the server never pass their bound. Not parallel, and without
// newTestEnv (whose tests also run in parallel with a data directory):
// it counts the process's goroutines.
func TestManyWebhooksOnAStoppedReceiver(t *testing.T) {
	s := New(Options{Clock: NewFakeClock(testStart), WebhookRetryDelay: 10 * time.Millisecond})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close)
	m, err := s.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
	env := &testEnv{t: t, s: s, srv: srv, m: m}
	before := runtime.NumGoroutine()

	rc := newReceiver(t, nil)
	ids := make([]string, 0, MaxWebhooksPerMerchant)
	for i := range MaxWebhooksPerMerchant {
		o := requireOK(t, env.post("/webhooks", webhookBody(fmt.Sprint(rc.srv.URL, "/", i), "charge.succeeded")), http.StatusCreated)
		require.Equal(t, "verified", o["status"])
		ids = append(ids, o["id"].(string))
	}
	rc.srv.Close() // verified; now down

	const charges = 300 // each fans out to every webhook: 30,000 deliveries, three times the bound
	most, made := 0, 0
	for range charges {
		if r := env.post("/charges", map[string]any{"method": "card", "amount": 100, "description": "x",
			"card": validCard("4111111111111111")}); r.status == http.StatusOK {
			made++
		}
		most = max(most, runtime.NumGoroutine()-before)
		pending := 0
		for _, id := range ids {
			pending += s.WebhookDeliveryStats(id).Pending
		}
		require.LessOrEqual(t, pending, delivery.DefaultTotal)
	}
	t.Logf("%d charges made; at most %d goroutines added", made, most)
	assert.Equal(t, charges, made, "every charge made")
	// The senders, the retry timers that are firing, and the test's own
	// connections; one goroutine per webhook would pass it.
	assert.LessOrEqual(t, most, delivery.DefaultSenders+MaxWebhooksPerMerchant/3,
		"goroutines added at most while deliveries fail")
	var dropped int64
	for _, id := range ids {
		dropped += s.WebhookDeliveryStats(id).Dropped
	}
	assert.Positive(t, dropped, "the server-wide bound was reached")
}

// In production a webhook's host must be public: localhost names are
// refused at creation (and any loopback address again when delivering,
// see package delivery).
func TestProductionRefusesLocalWebhookHosts(t *testing.T) {
	t.Parallel()
	prod := newTestEnv(t, Options{Production: true})
	for _, u := range []string{"https://localhost:8443/x", "https://hooks.localhost/x", "https://LOCALHOST./x"} {
		desc := requireError(t, prod.post("/webhooks", webhookBody(u, "charge.succeeded")), 1003)
		assert.Contains(t, desc, "public host", u)
	}
	assert.Empty(t, prod.get("/webhooks").arr(t))
}

// A delivery that gets no answer is logged, and shown on the dashboard,
// in the delivery package's words, never with the network's message
// (addresses and ports: a port scanner's report).
func TestWebhookAttemptLogShowsClasses(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{WebhookRetryDelay: time.Hour})
	rc := newReceiver(t, nil)
	id := requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)["id"].(string)
	rc.srv.Close()
	chargeOnce(t, env)
	require.Eventually(t, func() bool { return len(env.s.deliveries.Attempts(id)) > 1 }, 10*time.Second, time.Millisecond)
	a := env.s.deliveries.Attempts(id)[1]
	assert.Equal(t, delivery.ErrRefused, a.Err)
	page := dashClient{env: env}.page("/_dashboard/merchants/" + env.m.ID + "/webhooks")
	assert.Contains(t, page, delivery.ErrRefused)
	// The network's words, as a net.OpError writes them ("dial tcp
	// 127.0.0.1:4242: connect: connection refused"); each is a phrase no
	// drawn id can hold ("tcp" alone can be in one, as in ev...btcpun...).
	for _, raw := range []string{"dial ", "dial tcp", "connect:", "tcp "} {
		assert.NotContains(t, page, raw)
	}
}
