package openpaytest_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A handler that fails once sees the event again, quickly with
// WithWebhookRetryDelay.
func TestWebhookRetryReachesTheHandler(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithWebhookRetryDelay(5*time.Millisecond))
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.1"))
	require.NoError(t, err)
	var mu sync.Mutex
	var seen []error
	done := make(chan struct{})
	h := openpay.WebhookHandler("u", "p", func(_ context.Context, ev *openpay.WebhookEvent) error {
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
		if len(seen) == 2 {
			close(done)
		}
		return err
	})
	rc := httptest.NewServer(h)
	defer rc.Close()
	ctx := context.Background()
	_, err = c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.URL, User: "u", Password: "p",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)
	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: openpay.CardDetails{HolderName: "Ana",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Amount: openpay.MustAmount("10"), Description: "retried event"})
	require.NoError(t, err)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the event was not delivered again")
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2)
	assert.Error(t, seen[0])
	assert.NoError(t, seen[1])
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
}

// An https receiver is reached with a client that trusts its certificate.
func TestWebhookClientReachesHTTPS(t *testing.T) {
	t.Parallel()
	rc := httptest.NewTLSServer(openpay.WebhookHandler("u", "p", func(context.Context, *openpay.WebhookEvent) error { return nil }))
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
	rc := httptest.NewServer(openpay.WebhookHandler("u", "p", func(context.Context, *openpay.WebhookEvent) error { return nil }))
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
