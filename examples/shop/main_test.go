package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShopDemo(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Regexp(t, `webhook \S+ verified`, text)
	assert.Regexp(t, `order (\S+), attempt \S+-1: declined \(The card was declined\) -> order unpaid\n`, text)
	assert.Regexp(t, `ship the order" order=(\S+)-1\n`, text)
	assert.Regexp(t, `order \S+, attempt \S+-2: paid -> order paid\n`, text)
	assert.Regexp(t, `order \S+: refunded 100\.00 of 250\.00 -> refunded\n`, text)
	assert.Regexp(t, `order \S+: pay 180\.50 at a store with reference \S+\n`, text)
	assert.Regexp(t, `order \S+-2 is paid: the webhook said so\n`, text)
	assert.Regexp(t, `today so far: \d{4}-\d\d-\d\d: gateway 2 charges 430\.50, shop 2 orders 430\.50, in agreement\n`, text)
	assert.NotContains(t, text, "4111111111111111", "card numbers never show")
}

// TestShopServes starts the shop as `go run ./examples/shop` does, creates
// an order through its API and stops it as Ctrl-C does.
func TestShopServes(t *testing.T) {
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	t.Setenv("OPENPAY_PRIVATE_KEY", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	found := make(chan string, 1)
	out := &watchWriter{found: found}
	served := make(chan error, 1)
	go func() { served <- serve(ctx, out, "127.0.0.1:0") }()

	var base string
	select {
	case base = <-found:
	case err := <-served:
		t.Fatalf("serve ended: %v\n%s", err, out.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("the shop did not start:\n%s", out.String())
	}
	resp, err := http.PostForm(base, url.Values{"description": {"mug"}, "total": {"99.90"}, "name": {"Ana"}, "email": {"ana@example.com"}})
	require.NoError(t, err)
	var o Order
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&o))
	resp.Body.Close()
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, OrderUnpaid, o.Status)
	assertAmount(t, "99.90", o.Total, "total")

	cancel()
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the shop did not stop")
	}
	text := out.String()
	assert.Regexp(t, `webhook \S+ verified`, text)
	assert.Regexp(t, `nightly job: \d{4}-\d\d-\d\d: gateway 0 charges 0(\.00)?, shop 0 orders 0(\.00)?, in agreement`, text)
}

// watchWriter keeps what the shop prints and sends the API's URL on found
// once the URL and the first nightly report are printed.
type watchWriter struct {
	mu    sync.Mutex
	b     strings.Builder
	found chan string
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	text := w.b.String()
	if m := regexp.MustCompile(`API is at (\S+)`).FindStringSubmatch(text); m != nil && w.found != nil && strings.Contains(text, "nightly job:") {
		w.found <- m[1]
		w.found = nil
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
