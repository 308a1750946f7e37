package refserver

import (
	"context"
	"encoding/json"
	"log/slog"
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

// newHungReceiver answers the verification event and never answers any
// other delivery until the test ends.
func newHungReceiver(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev openpay.WebhookEvent
		_ = json.NewDecoder(r.Body).Decode(&ev)
		if ev.Type == openpay.EventTypeVerification {
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for handlers
	return srv
}

// A receiver that never answers holds one delivery in flight; the queue
// stops at its limit and the rest is dropped, counted and
// logged once.
func TestWebhookQueueIsBoundedWhenReceiverHangs(t *testing.T) {
	t.Parallel()
	const limit, events = 5, 40
	var mu sync.Mutex
	var logs strings.Builder
	env := newTestEnv(t, Options{WebhookQueueLimit: limit,
		Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	hung := newHungReceiver(t)
	id := requireOK(t, env.post("/webhooks", webhookBody(hung.URL, "charge.succeeded")), http.StatusCreated)["id"].(string)
	for range events {
		chargeOnce(t, env)
	}
	st := env.s.WebhookDeliveryStats(id)
	assert.Equal(t, limit, st.Pending, "the queue (the delivery in flight included) is full, never fuller")
	assert.Equal(t, int64(events-limit), st.Dropped)
	assert.Zero(t, st.GivenUp)

	mu.Lock()
	out := logs.String()
	mu.Unlock()
	assert.Equal(t, 1, strings.Count(out, "webhook queue full"), "one warning per overflow, not one per event: %s", out)
	assert.Contains(t, out, id)
	assert.NotContains(t, out, hung.URL)
}

// A receiver that refuses connections makes every delivery fail at once:
// the failed ones waiting for their retry count against the limit, so
// retries do not grow the queue either, and every event ends dropped or
// given up.
func TestWebhookQueueIsBoundedWhenReceiverIsDown(t *testing.T) {
	t.Parallel()
	const limit, events = 5, 40
	env := newTestEnv(t, Options{WebhookQueueLimit: limit, WebhookRetryDelay: 20 * time.Millisecond})
	rc := newReceiver(t, nil)
	id := requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)["id"].(string)
	rc.srv.Close() // verified; now down
	for range events {
		chargeOnce(t, env)
		assert.LessOrEqual(t, env.s.WebhookDeliveryStats(id).Pending, limit)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, env.s.WaitForDeliveries(ctx))
	st := env.s.WebhookDeliveryStats(id)
	assert.Zero(t, st.Pending)
	assert.Equal(t, int64(events), st.Dropped+st.GivenUp)
	assert.Positive(t, st.Dropped, "the queue filled up")
}

// A webhook whose receiver hangs delays nobody else's deliveries.
func TestWebhooksDeliverIndependently(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	hung := newHungReceiver(t)
	requireOK(t, env.post("/webhooks", webhookBody(hung.URL, "charge.succeeded")), http.StatusCreated)
	rc := newReceiver(t, nil)
	requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)
	const events = 5
	for range events {
		chargeOnce(t, env)
	}
	got := rc.waitFor(1 + events)
	for _, g := range got[1:] {
		assert.Equal(t, openpay.EventTypeChargeSucceeded, g.event.Type)
	}
}

func TestWebhookDeliveryStatsOfUnknownWebhook(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	assert.Equal(t, WebhookDeliveryStats{}, env.s.WebhookDeliveryStats("wnosuchwebhook000000"))
	require.NotNil(t, env.s.deliveries)
}
