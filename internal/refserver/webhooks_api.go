package refserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/answer"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Webhooks (/v1/{merchant_id}/webhooks): the URLs that receive a merchant's
// events, and the delivery of those events.
//
// Rules, from facts.md where it speaks, chosen where it does not:
//
//   - create: url (not blank) and event_types required (1001). url an absolute http or
//     https URL of at most maxWebhookURL characters; in production mode it
//     must be https on a domain name, not an IP address (the gateway's rule
//     for real endpoints). event_types holds at least one type, each one of
//     the types the gateway emits (1003 naming the field otherwise); a type
//     sent twice is kept once. user and password are optional (at most
//     maxWebhookCredential characters each) and are sent with every
//     delivery as HTTP Basic credentials; the password is never answered.
//   - creation answers 201 after the verification event has been sent to the
//     url: a POST of {"type":"verification","event_date",
//     "verification_code"} with the webhook's credentials and a
//     verifyTimeout deadline. A 2xx answer makes the webhook verified at
//     once; any other answer, a timeout or a connection failure leaves it
//     unverified, and the creation still succeeds.
//   - verify (POST .../verify/{code}) with the code of that event marks the
//     webhook verified and answers 204; a wrong code answers 1003 and
//     changes nothing. Verifying a verified webhook with its code answers
//     204 again.
//   - get answers the webhook; list answers every webhook of the merchant,
//     newest first, not paged (the gateway's list is a plain array); delete
//     removes it (204) together with the deliveries still pending for it,
//     and the id then answers 1005.
//
// Delivery. Every event the server records (see emit) is delivered to each
// verified webhook of the merchant that subscribed to its type: a POST with
// the JSON body {"type","event_date","transaction"} and the webhook's Basic
// credentials. An unverified webhook receives nothing but the verification
// event until it is verified. A delivery that does not get a 2xx answer
// (or that times out, deliveryTimeout) is tried again after a delay that
// starts at Options.WebhookRetryDelay and doubles up to maxRetryDelay, at
// most maxDeliveryAttempts times in all; then it is dropped. The gateway
// retries without a stated bound; the bound keeps a forgotten receiver from
// costing a long-running server forever. So a receiver sees duplicates
// exactly as with the gateway, and events for one webhook are first tried
// in the order they happened (a retried event comes later, out of order).
// Delays run on the wall clock, not the server's clock: they pace real
// network calls. Close cancels deliveries in flight, drops the pending
// ones and waits for the delivering goroutines to end.
//
// Each webhook has its own queue and its own delivering goroutine, so a
// slow or dead receiver delays only its own deliveries; a webhook's
// deliveries go out one at a time, in order. A queue holds at most
// Options.WebhookQueueLimit pending deliveries (DefaultWebhookQueueLimit),
// counting those waiting for a retry, so a receiver that is down costs
// bounded memory however many events happen: an event that finds its
// webhook's queue full is dropped for that webhook, counted (see
// Server.WebhookDeliveryStats) and logged as a warning once each time the
// queue fills up. The gateway states no such bound; a test server must not
// grow without one.

// Limits the server sets on webhook values and deliveries (see above).
const (
	maxWebhookURL        = 2000
	maxWebhookCredential = 100
	verifyTimeout        = 5 * time.Second
	deliveryTimeout      = 10 * time.Second
	defaultRetryDelay    = 500 * time.Millisecond
	maxRetryDelay        = 30 * time.Second
	maxDeliveryAttempts  = 8
)

// DefaultWebhookQueueLimit is the number of deliveries a webhook's queue
// holds (waiting retries included) unless Options.WebhookQueueLimit says
// otherwise; an event past it is dropped for that webhook. A thousand
// events cover any burst a test makes at a receiver that is merely slow.
const DefaultWebhookQueueLimit = 1000

// WebhookDeliveryStats is the state of one webhook's deliveries.
type WebhookDeliveryStats struct {
	// Pending counts the deliveries queued, in flight or waiting for a
	// retry; it never exceeds the queue limit.
	Pending int
	// Dropped counts the events dropped because the queue was full.
	Dropped int64
	// GivenUp counts the deliveries dropped after their last failed
	// attempt.
	GivenUp int64
}

// registerWebhooks registers webhooks (create 201, verification, get, delete,
// list) and the delivery of events.
func (s *Server) registerWebhooks(r *routeTable) {
	d := newDispatcher(s)
	s.dispatch = d
	s.onEvent(d.event)
	s.onClose(d.close)
	r.add("listWebhooks", http.MethodGet, "/v1/{merchant_id}/webhooks", http.StatusOK, s.listWebhooks)
	r.add("createWebhook", http.MethodPost, "/v1/{merchant_id}/webhooks", http.StatusCreated, d.createWebhook)
	r.add("getWebhook", http.MethodGet, "/v1/{merchant_id}/webhooks/{webhook_id}", http.StatusOK, s.getWebhook)
	r.add("deleteWebhook", http.MethodDelete, "/v1/{merchant_id}/webhooks/{webhook_id}", http.StatusNoContent, d.deleteWebhook)
	r.add("verifyWebhook", http.MethodPost, "/v1/{merchant_id}/webhooks/{webhook_id}/verify/{verification_code}", http.StatusNoContent, s.verifyWebhook)
}

// webhook is a registered webhook. w never holds the password.
type webhook struct {
	w        openpay.Webhook
	password string
	code     string // the verification code sent on creation
}

// webhookState is a merchant's webhooks.
type webhookState struct {
	byID map[string]*webhook
	list []*webhook // creation order
}

func newWebhookState() *webhookState { return &webhookState{byID: make(map[string]*webhook)} }

// webhooksOf returns the merchant's webhooks. The caller holds m.mu.
func webhooksOf(m *merchant) *webhookState { return extState(m, newWebhookState) }

// scopeWebhook returns the webhook the path names, or 1005. The caller holds
// c.m.mu.
func (c *call) scopeWebhook() (*webhook, *Error) {
	id := c.param("webhook_id")
	wh := webhooksOf(c.m).byID[id]
	if wh == nil {
		return nil, errNotFound("webhook", id)
	}
	return wh, nil
}

// createWebhook registers a webhook and sends it the verification event.
func (d *dispatcher) createWebhook(c *call) (any, *Error) {
	s := d.s
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.WebhookRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	v.Required(f, "url", "event_types")
	v.NonEmpty("url", req.URL)
	v.MaxLen("url", req.URL, maxWebhookURL)
	v.AbsoluteURL("url", req.URL)
	if s.Production() {
		if u, err := url.Parse(req.URL); err == nil && (u.Scheme != "https" || net.ParseIP(u.Hostname()) != nil) {
			v.Failf(openpay.ErrInvalidParameter, "The field 'url' must be an https URL on a domain name")
		}
	}
	v.MaxLen("user", req.User, maxWebhookCredential)
	v.MaxLen("password", req.Password, maxWebhookCredential)
	if f.Has("event_types") && len(req.EventTypes) == 0 {
		v.Failf(openpay.ErrInvalidParameter, "The field 'event_types' must hold at least one event type")
	}
	for _, t := range req.EventTypes {
		if !t.Valid() || !c.m.country.hasEvent(t) {
			v.Failf(openpay.ErrInvalidParameter, "The field 'event_types' holds an unknown event type '%s'", truncateForMessage(string(t)))
			break
		}
	}
	if v.Err != nil {
		return nil, v.Err
	}
	var types []openpay.EventType
	for _, t := range req.EventTypes {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	wh := &webhook{
		w: openpay.Webhook{
			ID: s.ids.NewID(idgen.KindWebhook), URL: req.URL, User: req.User, EventTypes: types,
			Status: openpay.WebhookStatusUnverified,
		},
		password: req.Password,
		code:     s.ids.VerificationCode(),
	}
	c.m.mu.Lock()
	ws := webhooksOf(c.m)
	ws.byID[wh.w.ID] = wh
	ws.list = append(ws.list, wh)
	c.m.mark(recWebhook, wh.w.ID)
	target := wh.target()
	c.m.mu.Unlock()

	// The verification event goes out without the merchant's lock held: a
	// slow URL delays this answer only.
	body, err := json.Marshal(openpay.WebhookEvent{
		Type: openpay.EventTypeVerification, EventDate: s.nowFor(c.m), VerificationCode: wh.code,
	})
	// (Encoding a struct of strings and a time cannot fail; were it to, the
	// webhook would simply stay unverified.)
	var a deliveryAttempt
	if err == nil {
		a = d.send(c.r.Context(), target, attemptOf{eventType: openpay.EventTypeVerification, n: 1}, body, verifyTimeout)
	}

	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if webhooksOf(c.m).byID[wh.w.ID] == wh { // not deleted meanwhile
		if err == nil {
			d.logAttempt(wh.w.ID, a)
		}
		if a.ok() {
			wh.w.Status = openpay.WebhookStatusVerified
			c.m.mark(recWebhook, wh.w.ID)
		}
	}
	return wh.wire(), nil
}

// wire returns the webhook's answer (a copy: its event types are not shared).
// The caller holds the merchant's lock.
func (wh *webhook) wire() openpay.Webhook {
	w := wh.w
	w.EventTypes = slices.Clone(w.EventTypes)
	return w
}

// target returns where and how the webhook's deliveries go. The caller holds
// the merchant's lock.
func (wh *webhook) target() deliveryTarget {
	return deliveryTarget{webhookID: wh.w.ID, url: wh.w.URL, user: wh.w.User, password: wh.password}
}

// getWebhook answers a webhook.
func (s *Server) getWebhook(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	wh, e := c.scopeWebhook()
	if e != nil {
		return nil, e
	}
	return wh.wire(), nil
}

// listWebhooks answers every webhook of the merchant, newest first.
func (s *Server) listWebhooks(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	list := webhooksOf(c.m).list
	out := make([]openpay.Webhook, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, list[i].wire())
	}
	return out, nil
}

// deleteWebhook removes a webhook and drops its pending deliveries.
func (d *dispatcher) deleteWebhook(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	wh, e := c.scopeWebhook()
	if e != nil {
		return nil, e
	}
	ws := webhooksOf(c.m)
	delete(ws.byID, wh.w.ID)
	ws.list = slices.DeleteFunc(ws.list, func(x *webhook) bool { return x == wh })
	c.m.mark(recWebhook, wh.w.ID)
	d.forget(c.m, wh.w.ID)
	return nil, nil
}

// verifyWebhook marks a webhook verified when the path carries its code.
func (s *Server) verifyWebhook(c *call) (any, *Error) {
	code := c.param("verification_code")
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	wh, e := c.scopeWebhook()
	if e != nil {
		return nil, e
	}
	if subtle.ConstantTimeCompare([]byte(code), []byte(wh.code)) != 1 {
		return nil, errorf(openpay.ErrInvalidParameter, "The verification code is not the one sent to the webhook's URL")
	}
	wh.w.Status = openpay.WebhookStatusVerified
	c.m.mark(recWebhook, wh.w.ID)
	return nil, nil
}

// deliveryTarget is where one webhook's deliveries go.
type deliveryTarget struct {
	webhookID, url, user, password string
}

// delivery is one event on its way to one webhook.
type delivery struct {
	to         deliveryTarget
	event      *Event // what the body carries (the attempt log names it)
	body       []byte
	attempts   int // attempts made so far
	merchantID string
	// seq numbers the deliveries the dispatcher accepted (from 1): the key
	// of the delivery's record in the data directory.
	seq uint64
}

// attemptOf names what an attempt delivered, for the attempt log.
type attemptOf struct {
	eventID, transactionID string
	eventType              openpay.EventType
	n                      int // 1 for the first attempt
}

// maxAttemptsLogged bounds each webhook's attempt log: the dashboard shows
// the latest attempts, and a receiver that is down for long must not grow
// it without end.
const maxAttemptsLogged = 50

// deliveryAttempt is one POST to a webhook's URL and what came of it.
type deliveryAttempt struct {
	at        time.Time // wall clock: attempts are real network calls
	eventID   string    // "" for the verification event
	txID      string    // the transaction the event is about
	eventType openpay.EventType
	n         int
	status    int    // the receiver's HTTP status, 0 when it did not answer
	err       string // why there was no answer
}

// outbox is the queue of one webhook. A goroutine drains it while it holds
// deliveries; none runs while it is empty.
type outbox struct {
	queue   []*delivery
	running bool
	// pending counts the deliveries queued, in flight or waiting for a
	// retry: what the limit bounds.
	pending int
	full    bool // the last event found the queue full (the drop is logged once)
	dropped int64
	givenUp int64
}

// dispatcher delivers events to webhooks. Its lock is taken under merchants'
// locks (event runs while the emitter holds one) and never the other way
// round: nothing holding d.mu takes a merchant's lock.
type dispatcher struct {
	s      *Server
	limit  int             // pending deliveries per webhook
	ctx    context.Context // cancelled by close
	cancel context.CancelFunc
	wg     sync.WaitGroup // delivering goroutines and retry timers

	mu      sync.Mutex
	closed  bool
	outbox  map[string]*outbox       // by webhook id
	retries map[*time.Timer]struct{} // retry timers not fired yet
	// attempts is each webhook's latest attempts, oldest first, at most
	// maxAttemptsLogged (by webhook id; dropped with the webhook).
	attempts map[string][]deliveryAttempt
	// pending holds every delivery accepted and not yet done with (queued,
	// in flight or waiting for a retry), by seq: what the data directory
	// keeps of deliveries (persist_kinds.go).
	pending map[uint64]*delivery
	lastSeq uint64
	// restored are the pending deliveries read from a data directory,
	// queued by resume once persistence runs.
	restored []*delivery
}

func newDispatcher(s *Server) *dispatcher {
	ctx, cancel := context.WithCancel(context.Background())
	limit := s.opts.WebhookQueueLimit
	if limit <= 0 {
		limit = DefaultWebhookQueueLimit
	}
	return &dispatcher{
		s: s, limit: limit, ctx: ctx, cancel: cancel,
		outbox: make(map[string]*outbox), retries: make(map[*time.Timer]struct{}),
		attempts: make(map[string][]deliveryAttempt), pending: make(map[uint64]*delivery),
	}
}

// event queues ev for every verified webhook of its merchant subscribed to
// its type. It runs under the merchant's lock (see emit) and only queues.
// ev is the logged event, never changed: deliveries share it.
func (d *dispatcher) event(ev *Event) {
	m := d.s.merchantByID(ev.MerchantID)
	if m == nil {
		return
	}
	var body []byte
	for _, wh := range webhooksOf(m).list {
		if wh.w.Status != openpay.WebhookStatusVerified || !slices.Contains(wh.w.EventTypes, ev.Type) {
			continue
		}
		if body == nil {
			wire := ev.Wire()
			var err error
			if body, err = json.Marshal(wire); err != nil {
				d.s.log.Warn("webhook event not encoded", "event", ev.ID, "error", err.Error())
				return
			}
			body = answer.AddWireKeys(body, wire)
		}
		if dl := (&delivery{to: wh.target(), event: ev, body: body, merchantID: m.id}); d.enqueue(dl, false) {
			m.mark(recDelivery, deliveryKeyOf(dl.seq))
		}
	}
}

// markDelivery marks a delivery's record changed (its attempts counted, or
// done with) from a delivering goroutine, which holds no merchant's lock:
// the next request's flush writes it (see persist.go). The caller holds no
// dispatcher lock.
func (d *dispatcher) markDelivery(dl *delivery) {
	if st := d.s.data; st != nil {
		if m := d.s.merchantByID(dl.merchantID); m != nil {
			st.mark(dirtyRef{owner{m: m}, recDelivery, deliveryKeyOf(dl.seq)})
		}
	}
}

// resume queues the deliveries a data directory held, once persistence
// runs (their marks must reach the store). One whose webhook is gone, or
// that finds its queue full, is dropped and its record removed.
func (d *dispatcher) resume() {
	d.mu.Lock()
	restored := d.restored
	d.restored = nil
	d.mu.Unlock()
	for _, dl := range restored {
		if dl.to.url == "" || !d.enqueue(dl, false) {
			d.markDelivery(dl)
		}
	}
}

// enqueue adds a delivery to its webhook's outbox and starts the outbox's
// goroutine when none runs, and reports whether it did. A new event that
// finds the outbox full is dropped and counted; a retry is still counted in
// pending, so it always has its place. A retry finds no outbox when its
// webhook has been deleted since, and is dropped.
func (d *dispatcher) enqueue(dl *delivery, retry bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	ob := d.outbox[dl.to.webhookID]
	if ob == nil {
		if retry {
			return false
		}
		ob = &outbox{}
		d.outbox[dl.to.webhookID] = ob
	}
	if !retry && ob.pending >= d.limit {
		ob.dropped++
		if !ob.full {
			ob.full = true
			d.s.log.Warn("webhook queue full, events dropped", "webhook", dl.to.webhookID,
				"limit", d.limit, "dropped", ob.dropped)
		}
		return false
	}
	if !retry {
		ob.full = false
		ob.pending++
		if dl.seq == 0 {
			d.lastSeq++
			dl.seq = d.lastSeq
		}
		d.pending[dl.seq] = dl
	}
	ob.queue = append(ob.queue, dl)
	if !ob.running {
		ob.running = true
		d.wg.Add(1)
		go d.drain(dl.to.webhookID, ob)
	}
	return true
}

// drain delivers an outbox's deliveries in order until it is empty, the
// webhook is deleted or the dispatcher closes.
func (d *dispatcher) drain(webhookID string, ob *outbox) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if d.closed || d.outbox[webhookID] != ob || len(ob.queue) == 0 {
			ob.running = false
			d.mu.Unlock()
			return
		}
		dl := ob.queue[0]
		ob.queue[0] = nil
		ob.queue = ob.queue[1:]
		d.mu.Unlock()

		d.mu.Lock()
		dl.attempts++ // under d.mu: record reads it for the data directory
		what := attemptOf{eventID: dl.event.ID, transactionID: dl.event.Transaction.ID, eventType: dl.event.Type, n: dl.attempts}
		d.mu.Unlock()
		a := d.send(d.ctx, dl.to, what, dl.body, deliveryTimeout)
		d.mu.Lock()
		if !d.closed && d.outbox[webhookID] == ob { // not deleted meanwhile
			d.recordAttempt(webhookID, a)
		}
		if a.ok() {
			ob.pending--
			delete(d.pending, dl.seq)
			d.mu.Unlock()
		} else {
			d.mu.Unlock()
			d.retryLater(ob, dl)
		}
		d.markDelivery(dl)
	}
}

// retryLater queues a failed delivery again after its back-off delay, unless
// it has used all its attempts.
func (d *dispatcher) retryLater(ob *outbox, dl *delivery) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.outbox[dl.to.webhookID] != ob {
		return
	}
	if dl.attempts >= maxDeliveryAttempts {
		ob.pending--
		delete(d.pending, dl.seq)
		ob.givenUp++
		d.s.log.Debug("webhook delivery dropped", "webhook", dl.to.webhookID, "attempts", dl.attempts)
		return
	}
	var t *time.Timer
	d.wg.Add(1)
	t = time.AfterFunc(d.retryDelay(dl.attempts), func() {
		defer d.wg.Done()
		d.mu.Lock()
		_, pending := d.retries[t]
		delete(d.retries, t)
		d.mu.Unlock()
		if pending {
			d.enqueue(dl, true)
		}
	})
	d.retries[t] = struct{}{}
}

// retryDelay is the wait before the attempt after the n-th: the base delay,
// doubled for each earlier retry, capped at maxRetryDelay.
func (d *dispatcher) retryDelay(n int) time.Duration {
	delay := d.s.opts.WebhookRetryDelay
	if delay <= 0 {
		delay = defaultRetryDelay
	}
	for i := 1; i < n && delay < maxRetryDelay; i++ {
		delay *= 2
	}
	return min(delay, maxRetryDelay)
}

// stats returns the state of a webhook's deliveries (zero when it has none
// queued yet, or has been deleted).
func (d *dispatcher) stats(webhookID string) WebhookDeliveryStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	ob := d.outbox[webhookID]
	if ob == nil {
		return WebhookDeliveryStats{}
	}
	return WebhookDeliveryStats{Pending: ob.pending, Dropped: ob.dropped, GivenUp: ob.givenUp}
}

// WebhookDeliveryStats returns the state of a webhook's deliveries: how
// many are pending and how many were dropped (a full queue) or given up
// (every attempt failed). It is zero for an unknown or deleted webhook.
func (s *Server) WebhookDeliveryStats(webhookID string) WebhookDeliveryStats {
	return s.dispatch.stats(webhookID)
}

// forget drops a deleted webhook's pending deliveries (a delivery in flight
// completes) and marks their records (the caller holds m.mu, the
// webhook's merchant's).
func (d *dispatcher) forget(m *merchant, webhookID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.outbox, webhookID)
	delete(d.attempts, webhookID)
	for seq, dl := range d.pending {
		if dl.to.webhookID == webhookID {
			delete(d.pending, seq)
			m.mark(recDelivery, deliveryKeyOf(seq))
		}
	}
}

// logAttempt records an attempt in its webhook's log. The caller makes
// sure the webhook still exists (a deleted one's log is dropped, and must
// not come back).
func (d *dispatcher) logAttempt(webhookID string, a deliveryAttempt) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.recordAttempt(webhookID, a)
	}
}

// recordAttempt adds an attempt to its webhook's log, dropping the oldest
// past maxAttemptsLogged. The caller holds d.mu.
func (d *dispatcher) recordAttempt(webhookID string, a deliveryAttempt) {
	log := d.attempts[webhookID]
	if len(log) >= maxAttemptsLogged {
		log = append(log[:0:0], log[len(log)-maxAttemptsLogged+1:]...)
	}
	d.attempts[webhookID] = append(log, a)
}

// attemptLog returns a copy of a webhook's attempt log, oldest first.
func (d *dispatcher) attemptLog(webhookID string) []deliveryAttempt {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.attempts[webhookID])
}

// ok reports whether the receiver accepted the delivery (2xx).
func (a deliveryAttempt) ok() bool { return a.status >= 200 && a.status < 300 }

// send POSTs one delivery and returns the attempt: what the receiver
// answered, or why it did not.
func (d *dispatcher) send(ctx context.Context, to deliveryTarget, what attemptOf, body []byte, timeout time.Duration) deliveryAttempt {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// A delivery outlives the request that caused it only through d.ctx;
	// close cancels both kinds.
	stop := context.AfterFunc(d.ctx, cancel)
	defer stop()
	a := deliveryAttempt{at: time.Now(), eventID: what.eventID, txID: what.transactionID, eventType: what.eventType, n: what.n}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to.url, bytes.NewReader(body))
	if err != nil {
		a.err = "the URL cannot be requested"
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "openpay-refserver")
	if to.user != "" || to.password != "" {
		req.SetBasicAuth(to.user, to.password)
	}
	res, err := d.s.client.Do(req)
	if err != nil {
		d.s.log.Debug("webhook delivery failed", "webhook", to.webhookID, "error", "no answer")
		a.err = attemptError(err)
		return a
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	a.status = res.StatusCode
	d.s.log.Debug("webhook delivery", "webhook", to.webhookID, "status", res.StatusCode)
	return a
}

// close cancels deliveries in flight, drops pending ones and retry timers,
// and waits for every delivering goroutine to end.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	d.dropPending()
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
}

// reset drops every pending delivery and retry timer (Reset); deliveries in
// flight complete, and their goroutines end when they find their outbox
// gone. The counters start again from zero.
func (d *dispatcher) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dropPending()
	// Their records go with the rest of the state (Reset saves the new
	// state wholesale).
	clear(d.pending)
	d.restored = nil
}

// dropPending drops the pending deliveries, the attempt logs and the retry
// timers. The caller holds d.mu.
func (d *dispatcher) dropPending() {
	for t := range d.retries {
		if t.Stop() {
			d.wg.Done() // its function will never run
		}
	}
	clear(d.retries)
	clear(d.outbox)
	clear(d.attempts)
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

// pendingOf returns the seqs of a merchant's pending deliveries, in order.
func (d *dispatcher) pendingOf(merchantID string) []uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []uint64
	for seq, dl := range d.pending {
		if dl.merchantID == merchantID {
			out = append(out, seq)
		}
	}
	slices.Sort(out)
	return out
}

// record returns the persisted form of a merchant's pending delivery,
// false when it is done with.
func (d *dispatcher) record(merchantID string, seq uint64) (any, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	dl := d.pending[seq]
	if dl == nil || dl.merchantID != merchantID {
		return nil, false
	}
	return deliveryRecord{WebhookID: dl.to.webhookID, Body: dl.body, Attempts: dl.attempts,
		EventID: dl.event.ID, EventType: dl.event.Type, TransactionID: dl.event.Transaction.ID}, true
}

// restore takes back a pending delivery read from a data directory, for
// resume to queue; its webhook's record is loaded already. A delivery
// whose webhook is gone keeps no target (resume drops it).
func (d *dispatcher) restore(m *merchant, seq uint64, r deliveryRecord) {
	dl := &delivery{body: r.Body, attempts: r.Attempts, merchantID: m.id, seq: seq,
		to:    deliveryTarget{webhookID: r.WebhookID},
		event: &Event{ID: r.EventID, Type: r.EventType, Transaction: openpay.Transaction{ID: r.TransactionID}}}
	if wh := webhooksOf(m).byID[r.WebhookID]; wh != nil {
		dl.to = wh.target()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lastSeq = max(d.lastSeq, seq)
	d.restored = append(d.restored, dl)
}
