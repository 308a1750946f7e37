package delivery

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// changes records what Config.Changed is told.
type changes struct {
	mu   sync.Mutex
	seqs []uint64
}

func (c *changes) changed(owner string, seq uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if owner != "m1" {
		panic("changed: owner " + owner)
	}
	c.seqs = append(c.seqs, seq)
}

func (c *changes) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seqs)
}

// newQueue returns a queue with fast retries that reports its changes.
func newQueue(t *testing.T, limits Limits) (*Queue, *changes) {
	t.Helper()
	ch := &changes{}
	q := New(Config{Limits: limits, RetryDelay: time.Millisecond, Changed: ch.changed})
	t.Cleanup(q.Close)
	return q, ch
}

// to returns a delivery of event n of owner m1 to the webhook wh at url.
func to(wh, url string, n int) Delivery {
	return Delivery{Owner: "m1", To: Target{WebhookID: wh, URL: url, User: "u", Password: "p"},
		Body: fmt.Appendf(nil, `{"n":%d}`, n)}
}

// A delivery refused until its third attempt is tried three times with its
// credentials and the same body, each attempt logged and reported to
// Changed; done with, it has no record.
func TestRetriedUntil2xx(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var mu sync.Mutex
	var bodies []string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, user+":"+pass+" "+string(body))
		mu.Unlock()
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(rc.Close)
	q, ch := newQueue(t, Limits{})
	seq, ok := q.Enqueue(to("wh1", rc.URL, 1))
	require.True(t, ok)
	assert.Equal(t, uint64(1), seq)
	assert.Equal(t, []uint64{1}, q.Pending("m1"))
	require.Eventually(t, func() bool { return ch.count() == 3 }, 10*time.Second, time.Millisecond)
	mu.Lock()
	assert.Equal(t, []string{`u:p {"n":1}`, `u:p {"n":1}`, `u:p {"n":1}`}, bodies)
	mu.Unlock()
	log := q.Attempts("wh1")
	require.Len(t, log, 3)
	assert.Equal(t, []int{503, 503, 200}, []int{log[0].Status, log[1].Status, log[2].Status})
	assert.Equal(t, 3, log[2].N)
	_, ok = q.Record("m1", seq)
	assert.False(t, ok, "done with")
	assert.Empty(t, q.Pending("m1"))
	assert.Equal(t, Stats{}, q.Stats("wh1"))
}

// A receiver that always fails gets MaxAttempts attempts, then the
// delivery is given up.
func TestGivenUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(rc.Close)
	q, _ := newQueue(t, Limits{})
	q.Enqueue(to("wh1", rc.URL, 1))
	require.Eventually(t, func() bool { return q.Stats("wh1").GivenUp == 1 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, int32(MaxAttempts), calls.Load())
	assert.Zero(t, q.Stats("wh1").Pending)
}

// The per-webhook limit counts what is in flight; the rest is dropped and
// counted, and another webhook is not affected.
func TestPerWebhookLimit(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(rc.Close)
	t.Cleanup(func() { close(release) })
	q, _ := newQueue(t, Limits{PerWebhook: 2})
	for i := range 5 {
		q.Enqueue(to("wh1", rc.URL, i))
	}
	_, ok := q.Enqueue(to("wh2", rc.URL, 0))
	assert.True(t, ok, "another webhook has its own queue")
	assert.Equal(t, Stats{Pending: 2, Dropped: 3}, q.Stats("wh1"))
}

func TestAttemptLogBounded(t *testing.T) {
	t.Parallel()
	q := New(Config{})
	defer q.Close()
	for i := range MaxAttemptsLogged + 7 {
		q.Log("wh1", Attempt{N: i})
	}
	log := q.Attempts("wh1")
	require.Len(t, log, MaxAttemptsLogged)
	assert.Equal(t, 7, log[0].N, "the oldest are dropped")
	assert.Equal(t, MaxAttemptsLogged+6, log[len(log)-1].N)
	q.Forget("wh1")
	assert.Empty(t, q.Attempts("wh1"), "dropped with the webhook")
}

// An attempt that ends after its webhook was forgotten does not bring the
// webhook's log back; Forget returns the seqs it dropped.
func TestForgetDuringAttempt(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
	}))
	t.Cleanup(rc.Close)
	q, _ := newQueue(t, Limits{})
	q.Log("wh1", Attempt{Event: Event{Type: openpay.EventTypeVerification}, N: 1, Status: 200})
	s1, _ := q.Enqueue(to("wh1", rc.URL, 1))
	s2, _ := q.Enqueue(to("wh1", rc.URL, 2))
	<-arrived
	assert.Equal(t, []uint64{s1, s2}, q.Forget("wh1"))
	close(release)
	q.wg.Wait() // the delivery in flight ends (Close would stop the log itself)
	assert.Empty(t, q.Attempts("wh1"))
	assert.Empty(t, q.Pending("m1"))
}

// What Restore takes back, Resume queues: a delivery with a target goes
// out with its attempts counted on; one without (its webhook is gone) is
// dropped and reported to Changed. Seqs go on after the restored ones.
func TestRestoreResume(t *testing.T) {
	t.Parallel()
	got := make(chan string, 2)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- string(body)
	}))
	t.Cleanup(rc.Close)
	q, ch := newQueue(t, Limits{})
	d := to("wh1", rc.URL, 7)
	d.Attempts = 2
	q.Restore(7, d)
	q.Restore(9, Delivery{Owner: "m1", To: Target{WebhookID: "gone"}, Body: []byte(`{}`)})
	assert.Empty(t, q.Pending("m1"), "nothing is pending before Resume")
	q.Resume()
	assert.Equal(t, `{"n":7}`, <-got)
	require.Eventually(t, func() bool { return ch.count() == 2 }, 10*time.Second, time.Millisecond)
	ch.mu.Lock()
	assert.ElementsMatch(t, []uint64{7, 9}, ch.seqs)
	ch.mu.Unlock()
	assert.Equal(t, 3, q.Attempts("wh1")[0].N, "attempts go on from the restored count")
	seq, _ := q.Enqueue(to("wh1", rc.URL, 10))
	assert.Equal(t, uint64(10), seq)
}

// Reset drops what is pending and the counters; Close drops everything
// after it.
func TestResetAndClose(t *testing.T) {
	t.Parallel()
	q, _ := newQueue(t, Limits{PerWebhook: 1})
	q.Enqueue(to("wh1", "http://127.0.0.1:1/", 1))
	q.Enqueue(to("wh1", "http://127.0.0.1:1/", 2))
	q.Reset()
	assert.Equal(t, Stats{}, q.Stats("wh1"))
	assert.Empty(t, q.Pending("m1"))
	q.Close()
	_, ok := q.Enqueue(to("wh1", "http://127.0.0.1:1/", 3))
	assert.False(t, ok)
}

func TestAttemptError(t *testing.T) {
	t.Parallel()
	err := &url.Error{Op: "Post", URL: "https://user:secret@hooks.example/x", Err: fmt.Errorf("dial tcp: connection refused")}
	assert.Equal(t, "dial tcp: connection refused", attemptError(err))
}

// Wait returns once every delivery is done with: answered 2xx after
// retries, given up, or forgotten; it returns at once when nothing is
// pending, and with ctx's error when ctx ends first.
func TestWait(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var calls atomic.Int32
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // each delivery is retried once
		}
	}))
	t.Cleanup(ok.Close)
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })

	q, _ := newQueue(t, Limits{})
	require.NoError(t, q.Wait(ctx), "nothing pending")
	for i := range 3 {
		q.Enqueue(to("wh1", ok.URL, i))
	}
	require.NoError(t, q.Wait(ctx))
	assert.Equal(t, int32(6), calls.Load(), "every delivery was answered 2xx, its retry included, before Wait returned")
	assert.Empty(t, q.Pending("m1"))

	// A receiver that never answers keeps Wait waiting until ctx ends.
	q.Enqueue(to("wh2", hang.URL, 1))
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, q.Wait(short), context.DeadlineExceeded)

	// Forgetting the webhook releases the waiter.
	done := make(chan error, 1)
	go func() { done <- q.Wait(ctx) }()
	q.Forget("wh2")
	require.NoError(t, <-done)

	// So do a given-up delivery, Reset and Close.
	q.Enqueue(to("wh3", "http://127.0.0.1:1/", 1))
	require.NoError(t, q.Wait(ctx))
	assert.Equal(t, int64(1), q.Stats("wh3").GivenUp)
	q.Enqueue(to("wh2", hang.URL, 2))
	go func() { done <- q.Wait(ctx) }()
	q.Reset()
	require.NoError(t, <-done)
	q.Enqueue(to("wh2", hang.URL, 3))
	go func() { done <- q.Wait(ctx) }()
	q.Close()
	require.NoError(t, <-done)
}
