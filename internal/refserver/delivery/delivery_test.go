package delivery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
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

// waitIdle waits until no delivery is in flight or waiting for a sender.
func waitIdle(t *testing.T, q *Queue) {
	t.Helper()
	require.Eventually(t, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.idle == q.senders && len(q.ready) == 0
	}, 10*time.Second, time.Millisecond)
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
	waitIdle(t, q) // the delivery in flight ends (Close would stop the log itself)
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

// An attempt that got no answer says why in the package's words, never
// the network's message (which names addresses and ports).
func TestAttemptError(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://user:secret@10.0.0.5:22/x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: err}}
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{wrap(os.NewSyscallError("connect", syscall.ECONNREFUSED)), ErrRefused},
		{wrap(os.NewSyscallError("read", syscall.ECONNRESET)), ErrReset},
		{wrap(&net.DNSError{Err: "no such host", Name: "hooks.example", IsNotFound: true}), ErrNoHost},
		{wrap(context.DeadlineExceeded), ErrTimeout},
		{wrap(errNotAllowed), ErrNotAllowed},
		{wrap(errors.New("SSH-2.0-OpenSSH_9.6 malformed HTTP response")), ErrNoHTTP},
	} {
		assert.Equal(t, tc.want, attemptError(tc.err), "%v", tc.err)
	}
}

// A receiver that redirects gets a failed attempt recorded with its
// status: neither a 307 (which would send the body and the credentials
// again) nor a 302 (which would turn into a GET with the credentials) is
// followed to the other server.
func TestNoRedirectFollowed(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(other.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusTemporaryRedirect
		if r.URL.Path == "/302" {
			code = http.StatusFound
		}
		http.Redirect(w, r, other.URL+"/stolen", code)
	}))
	t.Cleanup(redirecting.Close)
	q, _ := newQueue(t, Limits{})
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusFound} {
		wh := fmt.Sprint("wh", code)
		q.Enqueue(to(wh, fmt.Sprint(redirecting.URL, "/", code), 1))
		require.Eventually(t, func() bool { return len(q.Attempts(wh)) > 0 }, 10*time.Second, time.Millisecond)
		a := q.Attempts(wh)[0]
		assert.Equal(t, code, a.Status)
		assert.Equal(t, ErrRedirect, a.Err)
		assert.False(t, a.OK())
	}
	assert.Zero(t, hits.Load(), "the redirect's target was never called")
}

// With PublicOnly, a delivery to a loopback address is refused at the dial,
// whatever the URL names: the receiver never sees it.
func TestPublicOnlyDialsPublicAddressesOnly(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(rc.Close)
	q := New(Config{PublicOnly: true, RetryDelay: time.Hour})
	t.Cleanup(q.Close)
	_, port, _ := net.SplitHostPort(rc.Listener.Addr().String())
	for _, u := range []string{rc.URL, "http://localhost:" + port} {
		a := q.Verify(context.Background(), Target{WebhookID: "wh", URL: u}, []byte(`{}`))
		assert.Equal(t, ErrNotAllowed, a.Err, u)
		assert.Zero(t, a.Status)
	}
	assert.Zero(t, hits.Load())

	open := New(Config{})
	t.Cleanup(open.Close)
	assert.True(t, open.Verify(context.Background(), Target{WebhookID: "wh", URL: rc.URL}, []byte(`{}`)).OK(),
		"without PublicOnly, loopback is fine")
}

func TestPublicHost(t *testing.T) {
	t.Parallel()
	for host, public := range map[string]bool{
		"localhost": false, "LOCALHOST.": false, "hooks.localhost": false,
		"127.0.0.1": false, "::1": false, "[::1]": false, "10.1.2.3": false, "172.16.0.1": false,
		"192.168.1.1": false, "169.254.169.254": false, "fe80::1": false, "0.0.0.0": false, "::": false,
		"::ffff:127.0.0.1": false, "fd00::1": false,
		"8.8.8.8": true, "2001:4860:4860::8888": true,
		"hooks.invalid": true, // not resolved: the dialer judges the address
	} {
		assert.Equal(t, public, PublicHost(context.Background(), host), host)
	}
}

// However many webhooks have deliveries pending, the queue holds at most
// Limits.Total (the rest dropped and counted against their webhooks), and
// at most Limits.Senders deliveries are in flight at once, from as many
// goroutines.
func TestTotalAndSendersBounded(t *testing.T) {
	const total, senders, webhooks = 7, 2, 20
	var inFlight, most atomic.Int32
	release := make(chan struct{})
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(rc.Close)
	t.Cleanup(func() { close(release) })
	before := runtime.NumGoroutine()
	q, _ := newQueue(t, Limits{PerWebhook: 3, Total: total, Senders: senders})
	var dropped int64
	for i := range webhooks {
		for n := range 3 {
			q.Enqueue(to(fmt.Sprint("wh", i), rc.URL, n))
			q.mu.Lock()
			assert.LessOrEqual(t, len(q.pending), total)
			q.mu.Unlock()
		}
	}
	for i := range webhooks {
		st := q.Stats(fmt.Sprint("wh", i))
		dropped += st.Dropped
	}
	assert.Equal(t, int64(webhooks*3-total), dropped, "every delivery past the total is dropped and counted")
	require.Eventually(t, func() bool { return inFlight.Load() == senders }, 10*time.Second, time.Millisecond)
	// The receiver's handlers (one per request in flight) and the senders
	// are all the goroutines added, with a margin for the HTTP machinery.
	assert.LessOrEqual(t, runtime.NumGoroutine()-before, senders*6+4)
	assert.LessOrEqual(t, most.Load(), int32(senders))
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

// One owner whose receivers are down fills its own share only: another
// owner's deliveries are still taken, and an owner's count goes back down
// as its deliveries are done with (delivered or forgotten).
func TestPerOwnerBounded(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(down.Close)
	t.Cleanup(func() { close(hang) })
	up := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(up.Close)
	q := New(Config{Limits: Limits{PerWebhook: 5, PerOwner: 8, Total: 20}, RetryDelay: time.Millisecond})
	t.Cleanup(q.Close)
	for i := range 4 { // 4 webhooks x 5 = 20 wanted, 8 taken
		for n := range 5 {
			d := to(fmt.Sprint("a", i), down.URL, n)
			d.Owner = "A"
			q.Enqueue(d)
		}
	}
	q.mu.Lock()
	assert.Equal(t, 8, q.owners["A"])
	q.mu.Unlock()
	var droppedA int64
	for i := range 4 {
		droppedA += q.Stats(fmt.Sprint("a", i)).Dropped
	}
	assert.Equal(t, int64(12), droppedA, "A's deliveries past its share are dropped and counted")

	for n := range 5 {
		d := to("b", up.URL, n)
		d.Owner = "B"
		_, ok := q.Enqueue(d)
		assert.True(t, ok, "B's delivery %d is taken while A's share is full", n)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	require.Eventually(t, func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.owners["B"] == 0
	}, 10*time.Second, time.Millisecond, "B's delivered deliveries no longer count")
	for i := range 4 {
		q.Forget(fmt.Sprint("a", i))
	}
	require.NoError(t, q.Wait(ctx))
	q.mu.Lock()
	assert.Empty(t, q.owners, "forgotten deliveries no longer count")
	q.mu.Unlock()
}
