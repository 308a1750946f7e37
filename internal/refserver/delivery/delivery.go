package delivery

import (
	"bytes"
	"container/heap"
	"context"
	"io"
	"log/slog"
	"net/http"
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
	// DefaultTotal is Limits.Total unless set: ten webhooks' full queues,
	// a few megabytes of bodies, whatever the number of webhooks.
	DefaultTotal = 10 * DefaultPerWebhook
	// DefaultPerOwner is Limits.PerOwner unless set: a quarter of the
	// total, so that one merchant whose receivers are down cannot take
	// the whole server's room from the others.
	DefaultPerOwner = DefaultTotal / 4
	// DefaultSenders is Limits.Senders unless set: the deliveries in
	// flight at once, and so the goroutines and outbound connections the
	// queue uses. Sixteen receivers that hang at once still leave the
	// others served within an attempt's Timeout.
	DefaultSenders = 16
)

// Config configures a Queue.
type Config struct {
	// Client sends the deliveries; nil means a client with Timeout. The
	// queue uses a copy that follows no redirect, and with PublicOnly one
	// whose connections are made by the queue's own dialer (the client's
	// transport must then be nil or an *http.Transport, whose dialing and
	// proxy settings are replaced).
	Client *http.Client
	// PublicOnly refuses every connection to an address that is not
	// public (see [PublicAddr]), checked on the address dialed, after name
	// resolution: a name that resolved to a public address when the
	// webhook was made and to a private one since is refused too.
	PublicOnly bool
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

// Limits bounds what a Queue holds and the work it does at once.
type Limits struct {
	// PerWebhook is the most deliveries pending for one webhook, in flight
	// and waiting for a retry included (DefaultPerWebhook when zero).
	PerWebhook int
	// Total is the most deliveries pending across every webhook
	// (DefaultTotal when zero).
	Total int
	// PerOwner is the most deliveries pending for one owner (a merchant)
	// across its webhooks (DefaultPerOwner when zero, at most Total).
	PerOwner int
	// Senders is the number of deliveries in flight at once, each sent by
	// one of a fixed pool of goroutines (DefaultSenders when zero).
	Senders int
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
	// Status is the receiver's HTTP status, 0 when it did not answer. Err
	// then says why, in one of the words of the package's vocabulary
	// (ErrTimeout, ErrRefused, ...), never the network's own message;
	// with a 3xx status it is ErrRedirect.
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

// outbox is the queue of one webhook. While it holds a delivery to try
// and none of its own is in flight, it waits in Queue.ready for a sender.
type outbox struct {
	id    string // the webhook's
	queue []*entry
	// busy: the outbox is in Queue.ready or a sender is trying one of its
	// deliveries (one at a time per webhook).
	busy bool
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
	client *http.Client // cfg.Client's copy (see Config.Client)
	log    *slog.Logger
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the senders

	mu     sync.Mutex
	work   sync.Cond // on mu: signalled when ready grows or the queue closes
	closed bool
	outbox map[string]*outbox // by webhook id
	// ready are the outboxes waiting for a sender, oldest first.
	ready []*outbox
	// senders counts the sending goroutines started (at most
	// Limits.Senders: started as work comes, ended by Close), idle those
	// waiting for work.
	senders, idle int
	fullTotal     bool // the last event found every queue's total full (logged once)
	// retries are the failed deliveries waiting for their next attempt,
	// a heap by due time; one timer (retryTimer, set for retryAt) moves
	// those due back to their outboxes, so that waiting retries cost no
	// goroutine and firing ones at most one.
	retries    retryHeap
	retryTimer *time.Timer
	retryAt    time.Time // zero: the timer is not set
	// attempts is each webhook's latest attempts, oldest first, at most
	// MaxAttemptsLogged (by webhook id; dropped with the webhook).
	attempts map[string][]Attempt
	// pending holds every delivery accepted and not yet done with (queued,
	// in flight or waiting for a retry), by seq: at most Limits.Total.
	pending map[uint64]*entry
	// owners counts the pending deliveries of each owner: at most
	// Limits.PerOwner (owners with none are not kept).
	owners  map[string]int
	lastSeq uint64
	// restored are the deliveries Restore took back, queued by Resume.
	restored []*entry
	// drained, when not nil, is closed (and set to nil) once nothing is
	// pending or the queue closes: Wait's callers wait on it.
	drained chan struct{}
}

// New returns an empty queue.
func New(cfg Config) *Queue {
	if cfg.Limits.PerWebhook <= 0 {
		cfg.Limits.PerWebhook = DefaultPerWebhook
	}
	if cfg.Limits.Total <= 0 {
		cfg.Limits.Total = DefaultTotal
	}
	if cfg.Limits.PerOwner <= 0 {
		cfg.Limits.PerOwner = DefaultPerOwner
	}
	cfg.Limits.PerOwner = min(cfg.Limits.PerOwner, cfg.Limits.Total)
	if cfg.Limits.Senders <= 0 {
		cfg.Limits.Senders = DefaultSenders
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	q := &Queue{cfg: cfg, client: newClient(cfg.Client, cfg.PublicOnly), log: cfg.Logger,
		outbox:   make(map[string]*outbox),
		attempts: make(map[string][]Attempt), pending: make(map[uint64]*entry), owners: make(map[string]int)}
	q.work.L = &q.mu
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
	if !q.enqueue(e) {
		return 0, false
	}
	return e.seq, true
}

// enqueue adds a new delivery to its webhook's outbox, which then waits
// for a sender unless it already does or has a delivery in flight, and
// reports whether it did. A delivery that finds the outbox or the queue's
// total full is dropped and counted (a retry keeps its place: it is still
// counted in pending). Nothing here blocks or starts more than one
// goroutine: it runs under the caller's locks.
func (q *Queue) enqueue(e *entry) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	id := e.To.WebhookID
	ob := q.outbox[id]
	if ob == nil {
		ob = &outbox{id: id}
		q.outbox[id] = ob
	}
	if !q.room(ob, e.Owner) {
		return false
	}
	ob.full, q.fullTotal = false, false
	ob.pending++
	if e.seq == 0 {
		q.lastSeq++
		e.seq = q.lastSeq
	}
	q.pending[e.seq] = e
	q.owners[e.Owner]++
	q.push(ob, e)
	return true
}

// push appends e to ob's queue and puts ob in line for a sender unless it
// is already. The caller holds q.mu.
func (q *Queue) push(ob *outbox, e *entry) {
	ob.queue = append(ob.queue, e)
	if !ob.busy {
		q.makeReady(ob)
	}
}

// room reports whether a new delivery fits in ob, in its owner's share
// and in the queue's total; when not, it counts the drop against ob and
// logs the first of a run. The
// caller holds q.mu.
func (q *Queue) room(ob *outbox, owner string) bool {
	var full string
	var limit int
	var warned *bool // a warning was logged for this run of drops
	switch {
	case ob.pending >= q.cfg.Limits.PerWebhook:
		full, limit, warned = "webhook queue full", q.cfg.Limits.PerWebhook, &ob.full
	case len(q.pending) >= q.cfg.Limits.Total:
		full, limit, warned = "webhook deliveries pending across the server at their limit", q.cfg.Limits.Total, &q.fullTotal
	case q.owners[owner] >= q.cfg.Limits.PerOwner:
		full, limit, warned = "webhook deliveries pending for one merchant at their limit", q.cfg.Limits.PerOwner, &ob.full
	default:
		return true
	}
	ob.dropped++
	if !*warned {
		*warned = true
		q.log.Warn(full+", events dropped", "webhook", ob.id, "limit", limit, "dropped", ob.dropped)
	}
	return false
}

// done takes e out of the pending deliveries, if it is still there (a
// Forget or Reset may have taken it meanwhile), and releases Wait's
// callers when nothing is left. The caller holds q.mu.
func (q *Queue) done(e *entry) {
	if q.pending[e.seq] == e {
		delete(q.pending, e.seq)
		q.release(e.Owner)
	}
	q.wake()
}

// release counts one delivery of owner as no longer pending. The caller
// holds q.mu.
func (q *Queue) release(owner string) {
	if n := q.owners[owner] - 1; n > 0 {
		q.owners[owner] = n
	} else {
		delete(q.owners, owner)
	}
}

// makeReady puts ob in line for a sender, and wakes an idle sender or
// starts one while fewer than Limits.Senders run. The caller holds q.mu.
func (q *Queue) makeReady(ob *outbox) {
	ob.busy = true
	q.ready = append(q.ready, ob)
	switch {
	case q.idle > 0:
		q.work.Signal()
	case q.senders < q.cfg.Limits.Senders:
		q.senders++
		q.wg.Add(1)
		go q.sender()
	}
}

// sender is one of the pool's goroutines: it takes the outbox first in
// line, tries its first delivery, and puts the outbox back in line while it
// holds more, until the queue closes.
func (q *Queue) sender() {
	defer q.wg.Done()
	q.mu.Lock()
	for {
		for !q.closed && len(q.ready) == 0 {
			q.idle++
			q.work.Wait()
			q.idle--
		}
		if q.closed {
			q.mu.Unlock()
			return
		}
		ob := q.ready[0]
		q.ready[0] = nil
		q.ready = q.ready[1:]
		if q.outbox[ob.id] != ob || len(ob.queue) == 0 { // forgotten or reset meanwhile
			ob.busy = false
			continue
		}
		e := ob.queue[0]
		ob.queue[0] = nil
		ob.queue = ob.queue[1:]
		e.Attempts++ // under q.mu: Record reads it
		n := e.Attempts
		q.mu.Unlock()

		a := q.send(q.ctx, e.To, e.Event, n, e.Body, Timeout)

		q.mu.Lock()
		current := !q.closed && q.outbox[ob.id] == ob // not forgotten meanwhile
		if current {
			q.recordAttempt(ob.id, a)
		}
		switch {
		case a.OK():
			ob.pending--
			q.done(e)
		case current:
			q.retryLater(ob, e)
		}
		if current && len(ob.queue) > 0 {
			q.ready = append(q.ready, ob) // behind the others: one delivery per turn
		} else {
			ob.busy = false
		}
		q.mu.Unlock()
		q.changed(e)
		q.mu.Lock()
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
// it has used all its attempts. The caller holds q.mu, and ob is current.
func (q *Queue) retryLater(ob *outbox, e *entry) {
	if e.Attempts >= MaxAttempts {
		ob.pending--
		q.done(e)
		ob.givenUp++
		q.log.Debug("webhook delivery dropped", "webhook", e.To.WebhookID, "attempts", e.Attempts)
		return
	}
	due := time.Now().Add(q.retryDelay(e.Attempts))
	heap.Push(&q.retries, retry{due: due, ob: ob, e: e})
	if q.retryAt.IsZero() || due.Before(q.retryAt) {
		q.armRetries(due)
	}
}

// armRetries sets the retry timer for due. The caller holds q.mu.
func (q *Queue) armRetries(due time.Time) {
	q.retryAt = due
	if q.retryTimer == nil {
		q.retryTimer = time.AfterFunc(time.Until(due), q.fireRetries)
	} else {
		q.retryTimer.Reset(time.Until(due))
	}
}

// fireRetries puts the retries that are due back in their outboxes (those
// of a webhook forgotten or reset since are gone with it) and sets the
// timer for the next one.
func (q *Queue) fireRetries() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.retryAt = time.Time{}
	now := time.Now()
	for len(q.retries) > 0 && !q.retries[0].due.After(now) {
		r := heap.Pop(&q.retries).(retry)
		if q.outbox[r.ob.id] == r.ob {
			q.push(r.ob, r.e)
		}
	}
	if len(q.retries) > 0 {
		q.armRetries(q.retries[0].due)
	}
}

// retry is a failed delivery waiting for its next attempt.
type retry struct {
	due time.Time
	ob  *outbox
	e   *entry
}

// retryHeap orders the waiting retries by due time (container/heap).
type retryHeap []retry

func (h retryHeap) Len() int           { return len(h) }
func (h retryHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h retryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *retryHeap) Push(x any)        { *h = append(*h, x.(retry)) }
func (h *retryHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = retry{}
	*h = old[:len(old)-1]
	return r
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
			q.release(e.Owner)
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
		a.Err = ErrBadURL
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "openpay-refserver")
	if to.User != "" || to.Password != "" {
		req.SetBasicAuth(to.User, to.Password)
	}
	res, err := q.client.Do(req)
	if err != nil {
		q.log.Debug("webhook delivery failed", "webhook", to.WebhookID, "error", "no answer")
		a.Err = attemptError(err)
		return a
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	a.Status = res.StatusCode
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		a.Err = ErrRedirect
	}
	q.log.Debug("webhook delivery", "webhook", to.WebhookID, "status", res.StatusCode)
	return a
}

// Close cancels deliveries in flight, drops pending ones and retry timers,
// and waits for every delivering goroutine to end.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.dropPending()
	q.wake()
	q.work.Broadcast()
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
	clear(q.owners)
	q.restored = nil
	q.wake()
}

// Wait returns nil once no delivery is pending (queued, in flight or
// waiting for a retry; see Stats) or the queue is closed, and ctx's error
// if ctx ends first. A delivery is done with when its receiver has
// answered 2xx, or when it is given up or forgotten. A delivery enqueued
// before Wait is called is waited for; one enqueued while Wait waits may
// be too.
func (q *Queue) Wait(ctx context.Context) error { return q.WaitFor(ctx, "") }

// WaitFor is Wait for the deliveries of one owner (a merchant); "" waits
// for every owner's.
func (q *Queue) WaitFor(ctx context.Context, owner string) error {
	for {
		q.mu.Lock()
		if q.closed || owner == "" && len(q.pending) == 0 || owner != "" && q.owners[owner] == 0 {
			q.mu.Unlock()
			return nil
		}
		if q.drained == nil {
			q.drained = make(chan struct{})
		}
		drained := q.drained
		q.mu.Unlock()
		select {
		case <-drained:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// PendingFor counts the pending deliveries of owner.
func (q *Queue) PendingFor(owner string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.owners[owner]
}

// wake releases the callers of Wait and WaitFor, which look again whether
// what they wait for is done: when a delivery is done with, nothing is
// pending any more, or the queue is closed. The caller holds q.mu.
func (q *Queue) wake() {
	if q.drained != nil {
		close(q.drained)
		q.drained = nil
	}
}

// dropPending drops the outboxes, the attempt logs and the retry timers.
// The caller holds q.mu.
func (q *Queue) dropPending() {
	if q.retryTimer != nil {
		q.retryTimer.Stop()
	}
	clear(q.retries)
	q.retries, q.retryAt = q.retries[:0], time.Time{}
	clear(q.outbox)
	clear(q.ready)
	q.ready = q.ready[:0]
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
		if e.To.URL == "" || !q.enqueue(e) {
			q.changed(e)
		}
	}
}
