package delivery

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/openpay-go/openpay"
)

// Timings and bounds of deliveries (see the package doc).
const (
	// Timeout bounds one attempt.
	Timeout = 10 * time.Second
	// VerifyTimeout bounds the verification event's one attempt.
	VerifyTimeout = 5 * time.Second
	// DefaultRetryDelay is the first retry's delay unless Config.RetryDelay
	// says otherwise.
	DefaultRetryDelay = 500 * time.Millisecond
	// MaxRetryDelay caps the delay between two attempts.
	MaxRetryDelay = 30 * time.Second
	// MaxAttempts bounds the attempts of one delivery. The gateway retries
	// without a stated bound; the bound keeps a forgotten receiver from
	// costing a long-running server forever.
	MaxAttempts = 8
	// DefaultPerWebhook is Limits.PerWebhook unless set: a thousand events
	// cover any burst a test makes at a receiver that is merely slow.
	DefaultPerWebhook = 1000
	// MaxAttemptsLogged bounds each webhook's attempt log: the dashboard
	// shows the latest attempts, and a receiver that is down for long must
	// not grow it without end.
	MaxAttemptsLogged = 50
)

// Config configures a Queue.
type Config struct {
	// Client sends the deliveries; nil means a client with Timeout.
	Client *http.Client
	// Logger receives the queue's warnings and debug records (never a URL,
	// a credential or a body); nil discards them.
	Logger *slog.Logger
	// Limits bounds what the queue holds.
	Limits Limits
	// RetryDelay is the delay before the second attempt
	// (DefaultRetryDelay when zero); each later one doubles it.
	RetryDelay time.Duration
	// Changed, when set, is told that the record of the owner's delivery
	// seq changed (see the package doc): it is called with no lock of the
	// queue held, and must not call back into the queue's Enqueue.
	Changed func(owner string, seq uint64)
}

// Limits bounds what a Queue holds.
type Limits struct {
	// PerWebhook is the most deliveries pending for one webhook, in flight
	// and waiting for a retry included (DefaultPerWebhook when zero).
	PerWebhook int
}

// Target is where one webhook's deliveries go.
type Target struct {
	WebhookID string
	URL       string
	// User and Password are sent as HTTP Basic credentials when either is
	// set.
	User, Password string
}

// Event names what a delivery carries, for the attempt log (the body, the
// gateway's event, has no event id).
type Event struct {
	ID, TransactionID string
	Type              openpay.EventType
}

// Delivery is one event on its way to one webhook.
type Delivery struct {
	// Owner is whose delivery it is (the server's merchant id): Pending
	// lists, and Changed names, deliveries by owner.
	Owner string
	To    Target
	Event Event
	// Body is sent as it is; the queue never changes it, and deliveries may
	// share it.
	Body []byte
	// Attempts counts the attempts made so far.
	Attempts int
}

// Stats is the state of one webhook's deliveries.
type Stats struct {
	// Pending counts the deliveries queued, in flight or waiting for a
	// retry; it never exceeds the queue limit.
	Pending int
	// Dropped counts the events dropped because the queue was full.
	Dropped int64
	// GivenUp counts the deliveries dropped after their last failed
	// attempt.
	GivenUp int64
}

// Attempt is one POST to a webhook's URL and what came of it.
type Attempt struct {
	At    time.Time // wall clock: attempts are real network calls
	Event Event     // the verification event has no id
	N     int       // 1 for the first attempt
	// Status is the receiver's HTTP status, 0 when it did not answer; Err
	// then says why, without the URL.
	Status int
	Err    string
}

// OK reports whether the receiver accepted the delivery (2xx).
func (a Attempt) OK() bool { return a.Status >= 200 && a.Status < 300 }

// entry is a delivery the queue holds, by seq.
type entry struct {
	Delivery
	seq uint64
}

// outbox is the queue of one webhook. A goroutine drains it while it holds
// deliveries; none runs while it is empty.
type outbox struct {
	queue   []*entry
	running bool
	// pending counts the deliveries queued, in flight or waiting for a
	// retry: what the limit bounds.
	pending int
	full    bool // the last event found the queue full (the drop is logged once)
	dropped int64
	givenUp int64
}

// Queue delivers events to webhooks. See the package doc.
type Queue struct {
	cfg    Config
	log    *slog.Logger
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // delivering goroutines and retry timers

	mu      sync.Mutex
	closed  bool
	outbox  map[string]*outbox       // by webhook id
	retries map[*time.Timer]struct{} // retry timers not fired yet
	// attempts is each webhook's latest attempts, oldest first, at most
	// MaxAttemptsLogged (by webhook id; dropped with the webhook).
	attempts map[string][]Attempt
	// pending holds every delivery accepted and not yet done with (queued,
	// in flight or waiting for a retry), by seq.
	pending map[uint64]*entry
	lastSeq uint64
	// restored are the deliveries Restore took back, queued by Resume.
	restored []*entry
	// idle, when not nil, is closed (and set to nil) once nothing is
	// pending or the queue closes: Wait's callers wait on it.
	idle chan struct{}
}

// New returns an empty queue.
func New(cfg Config) *Queue {
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: Timeout}
	}
	if cfg.Limits.PerWebhook <= 0 {
		cfg.Limits.PerWebhook = DefaultPerWebhook
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	q := &Queue{cfg: cfg, log: cfg.Logger,
		outbox: make(map[string]*outbox), retries: make(map[*time.Timer]struct{}),
		attempts: make(map[string][]Attempt), pending: make(map[uint64]*entry)}
	if q.log == nil {
		q.log = slog.New(slog.DiscardHandler)
	}
	q.ctx, q.cancel = context.WithCancel(context.Background())
	return q
}

// Enqueue adds d to its webhook's outbox and reports the seq it got, or ok
// false when it was dropped: the outbox was full (counted) or the queue is
// closed. It calls nothing of the caller's.
func (q *Queue) Enqueue(d Delivery) (seq uint64, ok bool) {
	e := &entry{Delivery: d}
	if !q.enqueue(e, false) {
		return 0, false
	}
	return e.seq, true
}

// enqueue adds a delivery to its webhook's outbox and starts the outbox's
// goroutine when none runs, and reports whether it did. A new delivery that
// finds the outbox full is dropped and counted; a retry is still counted in
// pending, so it always has its place. A retry finds no outbox when its
// webhook has been forgotten since, and is dropped.
func (q *Queue) enqueue(e *entry, retry bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	id := e.To.WebhookID
	ob := q.outbox[id]
	if ob == nil {
		if retry {
			return false
		}
		ob = &outbox{}
		q.outbox[id] = ob
	}
	if !retry && ob.pending >= q.cfg.Limits.PerWebhook {
		ob.dropped++
		if !ob.full {
			ob.full = true
			q.log.Warn("webhook queue full, events dropped", "webhook", id,
				"limit", q.cfg.Limits.PerWebhook, "dropped", ob.dropped)
		}
		return false
	}
	if !retry {
		ob.full = false
		ob.pending++
		if e.seq == 0 {
			q.lastSeq++
			e.seq = q.lastSeq
		}
		q.pending[e.seq] = e
	}
	ob.queue = append(ob.queue, e)
	if !ob.running {
		ob.running = true
		q.wg.Add(1)
		go q.drain(id, ob)
	}
	return true
}

// drain delivers an outbox's deliveries in order until it is empty, the
// webhook is forgotten or the queue closes.
func (q *Queue) drain(webhookID string, ob *outbox) {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		if q.closed || q.outbox[webhookID] != ob || len(ob.queue) == 0 {
			ob.running = false
			q.mu.Unlock()
			return
		}
		e := ob.queue[0]
		ob.queue[0] = nil
		ob.queue = ob.queue[1:]
		e.Attempts++ // under q.mu: Record reads it
		n := e.Attempts
		q.mu.Unlock()

		a := q.send(q.ctx, e.To, e.Event, n, e.Body, Timeout)
		q.mu.Lock()
		if !q.closed && q.outbox[webhookID] == ob { // not forgotten meanwhile
			q.recordAttempt(webhookID, a)
		}
		if a.OK() {
			ob.pending--
			delete(q.pending, e.seq)
			q.wake()
			q.mu.Unlock()
		} else {
			q.mu.Unlock()
			q.retryLater(ob, e)
		}
		q.changed(e)
	}
}

// changed tells Config.Changed that e's record changed. The caller holds
// no queue lock.
func (q *Queue) changed(e *entry) {
	if q.cfg.Changed != nil {
		q.cfg.Changed(e.Owner, e.seq)
	}
}

// retryLater queues a failed delivery again after its back-off delay, unless
// it has used all its attempts.
func (q *Queue) retryLater(ob *outbox, e *entry) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.outbox[e.To.WebhookID] != ob {
		return
	}
	if e.Attempts >= MaxAttempts {
		ob.pending--
		delete(q.pending, e.seq)
		q.wake()
		ob.givenUp++
		q.log.Debug("webhook delivery dropped", "webhook", e.To.WebhookID, "attempts", e.Attempts)
		return
	}
	var t *time.Timer
	q.wg.Add(1)
	t = time.AfterFunc(q.retryDelay(e.Attempts), func() {
		defer q.wg.Done()
		q.mu.Lock()
		_, pending := q.retries[t]
		delete(q.retries, t)
		q.mu.Unlock()
		if pending {
			q.enqueue(e, true)
		}
	})
	q.retries[t] = struct{}{}
}

// retryDelay is the wait before the attempt after the n-th: the base delay,
// doubled for each earlier retry, capped at MaxRetryDelay.
func (q *Queue) retryDelay(n int) time.Duration {
	delay := q.cfg.RetryDelay
	for i := 1; i < n && delay < MaxRetryDelay; i++ {
		delay *= 2
	}
	return min(delay, MaxRetryDelay)
}

// Stats returns the state of a webhook's deliveries (zero when it has none
// queued yet, or has been forgotten).
func (q *Queue) Stats(webhookID string) Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	ob := q.outbox[webhookID]
	if ob == nil {
		return Stats{}
	}
	return Stats{Pending: ob.pending, Dropped: ob.dropped, GivenUp: ob.givenUp}
}

// Forget drops a deleted webhook's pending deliveries, counters and attempt
// log (a delivery in flight completes, unrecorded), and returns the seqs of
// the deliveries it dropped, whose records the caller removes.
func (q *Queue) Forget(webhookID string) (seqs []uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.outbox, webhookID)
	delete(q.attempts, webhookID)
	for seq, e := range q.pending {
		if e.To.WebhookID == webhookID {
			delete(q.pending, seq)
			seqs = append(seqs, seq)
		}
	}
	q.wake()
	slices.Sort(seqs)
	return seqs
}

// Log adds an attempt made apart from the queue (the verification event's,
// see Verify) to its webhook's log. The caller makes sure the webhook still
// exists: a forgotten webhook's log must not come back.
func (q *Queue) Log(webhookID string, a Attempt) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.recordAttempt(webhookID, a)
	}
}

// recordAttempt adds an attempt to its webhook's log, dropping the oldest
// past MaxAttemptsLogged. The caller holds q.mu.
func (q *Queue) recordAttempt(webhookID string, a Attempt) {
	log := q.attempts[webhookID]
	if len(log) >= MaxAttemptsLogged {
		log = append(log[:0:0], log[len(log)-MaxAttemptsLogged+1:]...)
	}
	q.attempts[webhookID] = append(log, a)
}

// Attempts returns a copy of a webhook's attempt log, oldest first.
func (q *Queue) Attempts(webhookID string) []Attempt {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.attempts[webhookID])
}

// Verify sends a webhook's verification event (body), once, within
// VerifyTimeout or until ctx ends, and returns the attempt; it neither
// queues nor logs it (see Log).
func (q *Queue) Verify(ctx context.Context, to Target, body []byte) Attempt {
	return q.send(ctx, to, Event{Type: openpay.EventTypeVerification}, 1, body, VerifyTimeout)
}

// send POSTs one delivery and returns the attempt: what the receiver
// answered, or why it did not.
func (q *Queue) send(ctx context.Context, to Target, ev Event, n int, body []byte, timeout time.Duration) Attempt {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A delivery outlives the request that caused it only through q.ctx;
	// Close cancels both kinds.
	stop := context.AfterFunc(q.ctx, cancel)
	defer stop()
	a := Attempt{At: time.Now(), Event: ev, N: n}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to.URL, bytes.NewReader(body))
	if err != nil {
		a.Err = "the URL cannot be requested"
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "openpay-refserver")
	if to.User != "" || to.Password != "" {
		req.SetBasicAuth(to.User, to.Password)
	}
	res, err := q.cfg.Client.Do(req)
	if err != nil {
		q.log.Debug("webhook delivery failed", "webhook", to.WebhookID, "error", "no answer")
		a.Err = attemptError(err)
		return a
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	a.Status = res.StatusCode
	q.log.Debug("webhook delivery", "webhook", to.WebhookID, "status", res.StatusCode)
	return a
}

// attemptError says why a delivery got no answer, without the URL (which
// may carry credentials in its user part).
func attemptError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer before the timeout"
	}
	if errors.Is(err, context.Canceled) {
		return "cancelled (the server is closing or the request ended)"
	}
	return err.Error()
}

// Close cancels deliveries in flight, drops pending ones and retry timers,
// and waits for every delivering goroutine to end.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.dropPending()
	q.wake()
	q.mu.Unlock()
	q.cancel()
	q.wg.Wait()
}

// Reset drops every pending delivery and retry timer; deliveries in flight
// complete, and their goroutines end when they find their outbox gone. The
// counters start again from zero. The caller replaces the records of the
// pending deliveries itself (the server saves its reset state wholesale).
func (q *Queue) Reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.dropPending()
	clear(q.pending)
	q.restored = nil
	q.wake()
}

// Wait returns nil once no delivery is pending (queued, in flight or
// waiting for a retry; see Stats) or the queue is closed, and ctx's error
// if ctx ends first. A delivery is done with when its receiver has
// answered 2xx, or when it is given up or forgotten. A delivery enqueued
// before Wait is called is waited for; one enqueued while Wait waits may
// be too.
func (q *Queue) Wait(ctx context.Context) error {
	for {
		q.mu.Lock()
		if q.closed || len(q.pending) == 0 {
			q.mu.Unlock()
			return nil
		}
		if q.idle == nil {
			q.idle = make(chan struct{})
		}
		idle := q.idle
		q.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wake releases Wait's callers when nothing is pending any more or the
// queue is closed. The caller holds q.mu.
func (q *Queue) wake() {
	if q.idle != nil && (q.closed || len(q.pending) == 0) {
		close(q.idle)
		q.idle = nil
	}
}

// dropPending drops the outboxes, the attempt logs and the retry timers.
// The caller holds q.mu.
func (q *Queue) dropPending() {
	for t := range q.retries {
		if t.Stop() {
			q.wg.Done() // its function will never run
		}
	}
	clear(q.retries)
	clear(q.outbox)
	clear(q.attempts)
}

// Pending returns the seqs of the owner's pending deliveries, in order.
func (q *Queue) Pending(owner string) []uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []uint64
	for seq, e := range q.pending {
		if e.Owner == owner {
			out = append(out, seq)
		}
	}
	slices.Sort(out)
	return out
}

// Record returns the owner's pending delivery seq, false when it is done
// with.
func (q *Queue) Record(owner string, seq uint64) (Delivery, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e := q.pending[seq]
	if e == nil || e.Owner != owner {
		return Delivery{}, false
	}
	return e.Delivery, true
}

// Restore takes back a pending delivery a data directory held, under its
// seq, for Resume to queue; one whose webhook is gone has no To.URL (Resume
// drops it).
func (q *Queue) Restore(seq uint64, d Delivery) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lastSeq = max(q.lastSeq, seq)
	q.restored = append(q.restored, &entry{Delivery: d, seq: seq})
}

// Resume queues what Restore took back, once the caller persists the
// changes Changed reports. One whose webhook is gone, or that finds its
// queue full, is dropped, and Changed told.
func (q *Queue) Resume() {
	q.mu.Lock()
	restored := q.restored
	q.restored = nil
	q.mu.Unlock()
	for _, e := range restored {
		if e.To.URL == "" || !q.enqueue(e, false) {
			q.changed(e)
		}
	}
}
