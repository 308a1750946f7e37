package openpaytest_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitCtx bounds a wait for deliveries in a test.
func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// webhookHandler builds a webhook handler, failing the test if it cannot.
func webhookHandler(t testing.TB, user, password string, handle func(context.Context, *openpay.WebhookEvent) error, opts ...openpay.WebhookOption) http.Handler {
	t.Helper()
	h, err := openpay.WebhookHandler(user, password, handle, opts...)
	require.NoError(t, err)
	return h
}

// chargeWithEvent registers hookURL (credentials u and p) for
// charge.succeeded, then makes a card charge, whose event goes there.
func chargeWithEvent(t *testing.T, c *openpay.Client, hookURL, description string) *openpay.Transaction {
	t.Helper()
	ctx := context.Background()
	_, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: hookURL, User: "u", Password: "p",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)
	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: openpay.CardDetails{HolderName: "Ana",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Amount: openpay.MustAmount("10"), Description: description})
	require.NoError(t, err)
	return ch
}

// A handler that fails once sees the event again, quickly with
// WithWebhookRetryDelay.
func TestWebhookRetryReachesTheHandler(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithWebhookRetryDelay(5*time.Millisecond))
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.1"))
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []error
	h := webhookHandler(t, "u", "p", func(_ context.Context, ev *openpay.WebhookEvent) error {
		if ev.Type != openpay.EventTypeChargeSucceeded {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		var err error
		if len(seen) == 0 {
			err = errors.New("database down")
		}
		seen = append(seen, err)
		return err
	})
	rc := httptest.NewServer(h)
	defer rc.Close()
	ch := chargeWithEvent(t, c, rc.URL, "retried event")
	require.NoError(t, srv.WaitForDeliveries(waitCtx(t)))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2)
	assert.Error(t, seen[0])
	assert.NoError(t, seen[1])
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
}

// A handle that panics on the first delivery of an event is answered 500:
// the reference server delivers the event again, and Deduplicate processes
// that delivery, since it recorded nothing for the one that panicked.
func TestWebhookHandlePanicIsDeliveredAgain(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithWebhookRetryDelay(5*time.Millisecond))
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.1"))
	require.NoError(t, err)
	var calls atomic.Int32
	paid := make(chan string, 10)
	store := openpay.NewMemoryEventStore(100)
	h := webhookHandler(t, "u", "p", openpay.Deduplicate(store, func(_ context.Context, ev *openpay.WebhookEvent) error {
		if ev.Type != openpay.EventTypeChargeSucceeded {
			return nil
		}
		if calls.Add(1) == 1 {
			_ = ev.Transaction.Refund.ID // a bug: a charge has no refund, a nil dereference
		}
		paid <- ev.Transaction.ID
		return nil
	}), openpay.WithWebhookLogger(slog.New(slog.DiscardHandler))) // the record is checked in the SDK's tests
	var mu sync.Mutex
	var statuses []int
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r) // a panic would reach net/http, which drops the connection
		mu.Lock()
		statuses = append(statuses, rec.Code)
		mu.Unlock()
		w.WriteHeader(rec.Code)
	}))
	defer rc.Close()
	ch := chargeWithEvent(t, c, rc.URL, "handler bug")
	require.NoError(t, srv.WaitForDeliveries(waitCtx(t)))
	require.Len(t, paid, 1, "delivered again after the panic")
	assert.Equal(t, ch.ID, <-paid)
	assert.Equal(t, int32(2), calls.Load())
	mu.Lock()
	assert.Contains(t, statuses, http.StatusInternalServerError, "the panic was answered 500: %v", statuses)
	mu.Unlock()
	assert.GreaterOrEqual(t, store.Len(), 1, "the event handled is recorded")
}

// An https receiver is reached with a client that trusts its certificate.
func TestWebhookClientReachesHTTPS(t *testing.T) {
	t.Parallel()
	rc := httptest.NewTLSServer(webhookHandler(t, "u", "p", func(context.Context, *openpay.WebhookEvent) error { return nil }))
	defer rc.Close()
	req := openpay.WebhookRequest{URL: rc.URL, User: "u", Password: "p", EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}}
	ctx := context.Background()
	for _, tc := range []struct {
		opts []openpaytest.Option
		want openpay.WebhookStatus
	}{
		{nil, openpay.WebhookStatusUnverified}, // the default client does not trust the test certificate
		{[]openpaytest.Option{openpaytest.WithWebhookClient(rc.Client())}, openpay.WebhookStatusVerified},
	} {
		srv := openpaytest.NewServer(t, tc.opts...)
		c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
		require.NoError(t, err)
		wh, err := c.Webhooks.Create(ctx, req)
		require.NoError(t, err)
		assert.Equal(t, tc.want, wh.Status)
	}
}

// A receiver that is down loses the events past the queue limit, and the
// test can see how many.
func TestWebhookDeliveryStatsCountDrops(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithWebhookQueueLimit(2), openpaytest.WithWebhookRetryDelay(time.Minute))
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.1"))
	require.NoError(t, err)
	rc := httptest.NewServer(webhookHandler(t, "u", "p", func(context.Context, *openpay.WebhookEvent) error { return nil }))
	ctx := context.Background()
	wh, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.URL, User: "u", Password: "p",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)
	require.Equal(t, openpay.WebhookStatusVerified, wh.Status)
	rc.Close() // down from now on
	for range 5 {
		_, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: openpay.CardDetails{HolderName: "Ana",
			CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
			Amount: openpay.MustAmount("10"), Description: "lost event"})
		require.NoError(t, err)
	}
	// The first two fail and wait a minute for their retry, holding the
	// queue: the other three are dropped.
	assert.Equal(t, openpaytest.WebhookDeliveryStats{Pending: 2, Dropped: 3}, srv.WebhookDeliveryStats(wh.ID))
}

// WaitForDeliveries returns once every event recorded before it has been
// handled by the receiver, retries included; with nothing pending it
// returns at once, and a receiver that is down holds it until its context
// ends.
func TestWaitForDeliveries(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithWebhookRetryDelay(time.Millisecond))
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.1"))
	require.NoError(t, err)
	require.NoError(t, srv.WaitForDeliveries(t.Context()), "nothing pending")

	var handled atomic.Int32
	var failed atomic.Bool
	h := webhookHandler(t, "u", "p", func(_ context.Context, ev *openpay.WebhookEvent) error {
		if ev.Type != openpay.EventTypeChargeSucceeded {
			return nil
		}
		if !failed.Swap(true) {
			return errors.New("first delivery refused") // one delivery needs its retry
		}
		handled.Add(1)
		return nil
	})
	rc := httptest.NewServer(h)
	defer rc.Close()
	chargeWithEvent(t, c, rc.URL, "event 1")
	for range 4 {
		_, err := c.Charges.Create(t.Context(), openpay.InlineCardCharge{Card: openpay.CardDetails{HolderName: "Ana",
			CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
			Amount: openpay.MustAmount("10"), Description: "another event"})
		require.NoError(t, err)
	}
	require.NoError(t, srv.WaitForDeliveries(waitCtx(t)))
	assert.Equal(t, int32(5), handled.Load(), "every event handled when the wait ends")

	// A receiver that is down keeps its delivery pending.
	rc.Close()
	chargeWithEvent(t, c, rc.URL, "event to nowhere")
	short, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, srv.WaitForDeliveries(short), context.DeadlineExceeded)
	require.NoError(t, srv.Reset())
	require.NoError(t, srv.WaitForDeliveries(t.Context()), "Reset drops what was pending")
}
