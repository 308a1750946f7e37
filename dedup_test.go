package openpay_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeEvent reads an event body as WebhookHandler does.
func decodeEvent(t *testing.T, body string) *openpay.WebhookEvent {
	t.Helper()
	var ev openpay.WebhookEvent
	require.NoError(t, json.Unmarshal([]byte(body), &ev))
	return &ev
}

func TestEventKey(t *testing.T) {
	t.Parallel()
	base := `{"type":"charge.refunded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1","status":"refunded","refund":{"id":"trr1"}}}`
	key, ok := openpay.EventKey(decodeEvent(t, base))
	require.True(t, ok)
	assert.Regexp(t, `^[0-9a-f]{64}$`, key)

	// Another delivery of the same event, written differently, has the
	// same key.
	for _, same := range []string{
		base,
		`{"transaction":{"refund":{"id":"trr1"},"id":"tr1","status":"refunded"},"event_date":"2024-03-09T16:00:00Z","type":"charge.refunded"}`,
		`{"type":"charge.refunded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1","status":"refunded","amount":100,"refund":{"id":"trr1","amount":50}},"extra":1}`,
	} {
		k, ok := openpay.EventKey(decodeEvent(t, same))
		require.True(t, ok)
		assert.Equal(t, key, k, same)
	}

	// Events that differ in any part of the key have different keys.
	keys := map[string]string{key: base}
	for _, other := range []string{
		`{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1","refund":{"id":"trr1"}}}`,
		`{"type":"charge.refunded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr2","refund":{"id":"trr1"}}}`,
		`{"type":"charge.refunded","event_date":"2024-03-09T10:00:01-06:00","transaction":{"id":"tr1","refund":{"id":"trr1"}}}`,
		`{"type":"charge.refunded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1","refund":{"id":"trr2"}}}`,
		`{"type":"charge.refunded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1"}}`,
		// Length-prefixed parts: moving characters between parts changes the key.
		`{"type":"charge.refunded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr","refund":{"id":"1trr1"}}}`,
		`{"type":"verification","event_date":"2024-03-09T10:00:00-06:00","verification_code":"Ab3dEf9h"}`,
		`{"type":"verification","event_date":"2024-03-09T10:00:00-06:00","verification_code":"Ab3dEf9i"}`,
	} {
		k, ok := openpay.EventKey(decodeEvent(t, other))
		require.True(t, ok, other)
		prev, dup := keys[k]
		assert.False(t, dup, "%s has the key of %s", other, prev)
		keys[k] = other
	}

	// A verification event is its code, whatever the date.
	v1, _ := openpay.EventKey(decodeEvent(t, `{"type":"verification","event_date":"2024-03-09T10:00:00-06:00","verification_code":"Ab3dEf9h"}`))
	v2, _ := openpay.EventKey(decodeEvent(t, `{"type":"verification","event_date":"2024-03-09T10:05:00-06:00","verification_code":"Ab3dEf9h"}`))
	assert.Equal(t, v1, v2)

	// Events that cannot be told apart have no key.
	for _, none := range []string{
		`{"type":"order.payment.received","event_date":"2024-03-09T10:00:00-06:00"}`,
		`{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"status":"completed"}}`,
		`{"type":"verification","event_date":"2024-03-09T10:00:00-06:00"}`,
		`{"type":"charge.succeeded","verification_code":"Ab3dEf9h"}`,
	} {
		_, ok := openpay.EventKey(decodeEvent(t, none))
		assert.False(t, ok, none)
	}
	_, ok = openpay.EventKey(nil)
	assert.False(t, ok)
}

// failingStore is an EventStore whose calls fail on demand.
type failingStore struct {
	openpay.MemoryEventStore
	seenErr, rememberErr error
}

func (s *failingStore) Seen(ctx context.Context, key string) (bool, error) {
	if s.seenErr != nil {
		return false, s.seenErr
	}
	return s.MemoryEventStore.Seen(ctx, key)
}

func (s *failingStore) Remember(ctx context.Context, key string) error {
	if s.rememberErr != nil {
		return s.rememberErr
	}
	return s.MemoryEventStore.Remember(ctx, key)
}

func TestDeduplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	charge := `{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1","status":"completed"}}`
	refund := `{"type":"charge.refunded","event_date":"2024-03-09T11:00:00-06:00","transaction":{"id":"tr1","status":"refunded"}}`
	keyless := `{"type":"order.created","event_date":"2024-03-09T10:00:00-06:00"}`

	store := &failingStore{}
	var handled []string
	fail := errors.New("database down")
	var handleErr error
	h := openpay.Deduplicate(store, func(_ context.Context, ev *openpay.WebhookEvent) error {
		handled = append(handled, string(ev.Type))
		return handleErr
	})

	// A failed event is not recorded: its next delivery is processed.
	handleErr = fail
	assert.ErrorIs(t, h(ctx, decodeEvent(t, charge)), fail)
	assert.Equal(t, 0, store.Len())
	handleErr = nil
	require.NoError(t, h(ctx, decodeEvent(t, charge)))
	assert.Equal(t, 1, store.Len())
	// Later deliveries of it succeed without processing it again.
	require.NoError(t, h(ctx, decodeEvent(t, charge)))
	require.NoError(t, h(ctx, decodeEvent(t, charge)))
	assert.Equal(t, []string{"charge.succeeded", "charge.succeeded"}, handled)

	// Another event about the same transaction is processed.
	require.NoError(t, h(ctx, decodeEvent(t, refund)))
	// Events without a key are always processed.
	require.NoError(t, h(ctx, decodeEvent(t, keyless)))
	require.NoError(t, h(ctx, decodeEvent(t, keyless)))
	assert.Equal(t, []string{"charge.succeeded", "charge.succeeded", "charge.refunded", "order.created", "order.created"}, handled)
	handled = nil

	// The store fails to answer: the event is refused, to be delivered
	// again, and not processed.
	store.seenErr = errors.New("cache unreachable")
	other := `{"type":"charge.succeeded","event_date":"2024-03-09T12:00:00-06:00","transaction":{"id":"tr2"}}`
	err := h(ctx, decodeEvent(t, other))
	assert.ErrorIs(t, err, store.seenErr)
	assert.Empty(t, handled)
	store.seenErr = nil

	// The store fails to record a processed event: it was processed, so
	// the delivery succeeds.
	store.rememberErr = errors.New("cache full")
	require.NoError(t, h(ctx, decodeEvent(t, other)))
	assert.Equal(t, []string{"charge.succeeded"}, handled)
}

// A delivery that arrives while the same event is still being processed is
// refused (the gateway retries it), not taken for done: if the first
// attempt then fails, the retry is processed.
func TestDeduplicateEventInProgress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ev := `{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1"}}`
	entered, release := make(chan struct{}), make(chan error)
	var calls atomic.Int32
	h := openpay.Deduplicate(openpay.NewMemoryEventStore(10), func(context.Context, *openpay.WebhookEvent) error {
		if calls.Add(1) == 1 {
			close(entered)
			return <-release
		}
		return nil
	})
	first := make(chan error)
	go func() { first <- h(ctx, decodeEvent(t, ev)) }()
	<-entered
	assert.Error(t, h(ctx, decodeEvent(t, ev)), "a second delivery during the first is refused")
	fail := errors.New("timeout writing the order")
	release <- fail
	assert.ErrorIs(t, <-first, fail)
	require.NoError(t, h(ctx, decodeEvent(t, ev)), "the retry after the failure is processed")
	require.NoError(t, h(ctx, decodeEvent(t, ev)))
	assert.Equal(t, int32(2), calls.Load())
}

// Deliveries of many events, each sent several times at once and retried
// until answered with success as the gateway does, process every event
// exactly once (run with -race).
func TestDeduplicateConcurrent(t *testing.T) {
	t.Parallel()
	const events, copies = 40, 6
	var mu sync.Mutex
	count := map[string]int{}
	store := openpay.NewMemoryEventStore(1000)
	h := webhookHandler(t, "u", "p", openpay.Deduplicate(store, func(_ context.Context, ev *openpay.WebhookEvent) error {
		mu.Lock()
		defer mu.Unlock()
		count[ev.Transaction.ID]++
		return nil
	}))
	var wg sync.WaitGroup
	for i := range events {
		body := fmt.Sprintf(`{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr%d"}}`, i)
		for range copies {
			wg.Go(func() {
				for attempt := 0; ; attempt++ {
					r := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
					r.SetBasicAuth("u", "p")
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code == http.StatusOK {
						return
					}
					if !assert.Equal(t, http.StatusInternalServerError, w.Code) || !assert.Less(t, attempt, 10000) {
						return
					}
					time.Sleep(time.Millisecond)
				}
			})
		}
	}
	wg.Wait()
	assert.Len(t, count, events)
	for id, n := range count {
		assert.Equal(t, 1, n, id)
	}
	assert.Equal(t, events, store.Len())
}

// The store keeps the latest keys up to its capacity and forgets the
// oldest first; its size never grows past the capacity.
func TestMemoryEventStoreBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openpay.NewMemoryEventStore(3)
	for i := range 10 {
		require.NoError(t, s.Remember(ctx, fmt.Sprint("k", i)))
		assert.LessOrEqual(t, s.Len(), 3)
	}
	assert.Equal(t, 3, s.Len())
	for i := range 10 {
		seen, err := s.Seen(ctx, fmt.Sprint("k", i))
		require.NoError(t, err)
		assert.Equal(t, i >= 7, seen, "k%d", i)
	}
	// Remembering a kept key again evicts nothing.
	require.NoError(t, s.Remember(ctx, "k9"))
	seen, _ := s.Seen(ctx, "k7")
	assert.True(t, seen)

	// The default capacity, also of the zero value.
	for _, d := range []*openpay.MemoryEventStore{openpay.NewMemoryEventStore(0), {}} {
		for i := range 10001 {
			require.NoError(t, d.Remember(ctx, fmt.Sprint(i)))
		}
		assert.Equal(t, 10000, d.Len())
		seen, _ := d.Seen(ctx, "0")
		assert.False(t, seen)
		seen, _ = d.Seen(ctx, "1")
		assert.True(t, seen)
	}
}

// Keys remembered from many goroutines at once stay within the bound.
func TestMemoryEventStoreConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openpay.NewMemoryEventStore(50)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				key := fmt.Sprint(g, "-", i%120)
				_ = s.Remember(ctx, key)
				_, _ = s.Seen(ctx, key)
				assert.LessOrEqual(t, s.Len(), 50)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, 50, s.Len())
}
