package refserver

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"slices"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/delivery"
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
//     for real endpoints), whose name is not localhost nor resolves to an
//     address that is not public (delivery.PublicHost: loopback, private,
//     link-local, unspecified; looked up out of the reset gate), and
//     deliveries dial public addresses only (delivery.Config.PublicOnly),
//     so that a name that resolves otherwise later is refused then.
//     A merchant has at most MaxWebhooksPerMerchant webhooks (1003 past
//     it). event_types holds at least one type, each one of
//     the types the gateway emits (1003 naming the field otherwise); a type
//     sent twice is kept once. user and password are optional (at most
//     maxWebhookCredential characters each) and are sent with every
//     delivery as HTTP Basic credentials; the password is never answered.
//   - creation answers 201 after the verification event has been sent to the
//     url: a POST of {"type":"verification","event_date",
//     "verification_code"} with the webhook's credentials and a
//     delivery.VerifyTimeout deadline. A 2xx answer makes the webhook
//     verified at once; any other answer, a timeout or a connection failure
//     leaves it unverified, and the creation still succeeds.
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
// event until it is verified. Package delivery queues, sends and retries
// (its package doc says how: at most delivery.MaxAttempts attempts with a
// doubling delay, one queue per webhook bounded by
// Options.WebhookQueueLimit, delivery.DefaultTotal pending across the
// server, delivery.DefaultSenders sent at once, no redirect followed,
// duplicates possible as with the gateway); Close cancels deliveries in
// flight and drops the pending ones. An event's fan-out (deliverEvent)
// runs under the merchant's lock and only enqueues: the sending is the
// queue's senders', and the verification event is sent out of the reset
// gate and the merchant's lock.

// Limits the server sets on webhook values (see above).
const (
	maxWebhookURL        = 2000
	maxWebhookCredential = 100
)

// MaxWebhooksPerMerchant is the most webhooks a merchant may have; a
// creation past it answers 1003. The gateway states no bound (facts.md
// has none); a merchant's integration registers one URL or a few, and a
// test suite that makes one per test without a reset stays far below a
// hundred, while the bound caps what an event costs: its fan-out is at
// most this many enqueues under the merchant's lock.
const MaxWebhooksPerMerchant = 100

// DefaultWebhookQueueLimit is the number of deliveries a webhook's queue
// holds (waiting retries included) unless Options.WebhookQueueLimit says
// otherwise; an event past it is dropped for that webhook.
const DefaultWebhookQueueLimit = delivery.DefaultPerWebhook

// WebhookDeliveryStats is the state of one webhook's deliveries.
type WebhookDeliveryStats = delivery.Stats

// registerWebhooks registers webhooks (create 201, verification, get, delete,
// list) and the delivery of events.
func (s *Server) registerWebhooks(r *routeTable) {
	s.deliveries = delivery.New(delivery.Config{Client: s.opts.HTTPClient, PublicOnly: s.opts.Production, Logger: s.log,
		Limits: delivery.Limits{PerWebhook: s.opts.WebhookQueueLimit}, RetryDelay: s.opts.WebhookRetryDelay,
		Changed: s.markDelivery})
	s.onEvent(s.deliverEvent)
	s.onClose(s.deliveries.Close)
	s.onMerchantReset(s.forgetWebhooks)
	r.add("listWebhooks", http.MethodGet, "/v1/{merchant_id}/webhooks", http.StatusOK, s.listWebhooks)
	r.add("createWebhook", http.MethodPost, "/v1/{merchant_id}/webhooks", http.StatusCreated, s.createWebhook)
	r.add("getWebhook", http.MethodGet, "/v1/{merchant_id}/webhooks/{webhook_id}", http.StatusOK, s.getWebhook)
	r.add("deleteWebhook", http.MethodDelete, "/v1/{merchant_id}/webhooks/{webhook_id}", http.StatusNoContent, s.deleteWebhook)
	r.add("verifyWebhook", http.MethodPost, "/v1/{merchant_id}/webhooks/{webhook_id}/verify/{verification_code}", http.StatusNoContent, s.verifyWebhook)
}

// forgetWebhooks drops the pending deliveries of a merchant that a
// per-merchant reset replaced: its webhooks are gone with it. (The reset
// then rewrites a data directory whole, so the seqs are not recorded.)
func (s *Server) forgetWebhooks(old *merchant) {
	old.mu.Lock()
	defer old.mu.Unlock()
	for _, wh := range webhooksOf(old).list {
		s.deliveries.Forget(wh.w.ID)
	}
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
func webhooksOf(m *merchant) *webhookState { m.webhooked = true; return extState(m, newWebhookState) }

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
func (s *Server) createWebhook(c *call) (any, *Error) {
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
	var host string // in production, the host name to look up
	if s.Production() && v.Err == nil {
		if u, err := url.Parse(req.URL); err == nil && (u.Scheme != "https" || net.ParseIP(u.Hostname()) != nil) {
			v.Failf(openpay.ErrInvalidParameter, "The field 'url' must be an https URL on a domain name")
		} else if err == nil {
			host = u.Hostname()
		}
	}
	v.MaxLen("user", req.User, maxWebhookCredential)
	v.MaxLen("password", req.Password, maxWebhookCredential)
	if f.Has("event_types") && len(req.EventTypes) == 0 {
		v.Failf(openpay.ErrInvalidParameter, "The field 'event_types' must hold at least one event type")
	}
	for _, t := range req.EventTypes {
		if !t.Valid() || !c.m.country.HasEvent(t) {
			v.Failf(openpay.ErrInvalidParameter, "The field 'event_types' holds an unknown event type '%s'", truncateForMessage(string(t)))
			break
		}
	}
	if v.Err != nil {
		return nil, v.Err
	}
	if host != "" {
		// The lookup is a network call: out of the reset gate. Nothing is
		// made yet, so a reset meanwhile changes nothing here.
		public := true
		if _, e := c.outsideGate(func() {
			ctx, cancel := context.WithTimeout(c.r.Context(), delivery.VerifyTimeout)
			defer cancel()
			public = delivery.PublicHost(ctx, host)
		}); e != nil {
			return nil, e
		}
		if !public {
			return nil, errorf(openpay.ErrInvalidParameter, "The field 'url' must be on a public host (not loopback, private or link-local)")
		}
	}
	var types []openpay.EventType
	for _, t := range req.EventTypes {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	c.m.mu.Lock()
	ws := webhooksOf(c.m)
	if len(ws.list) >= MaxWebhooksPerMerchant {
		c.m.mu.Unlock()
		return nil, errorf(openpay.ErrInvalidParameter,
			"The merchant already has %d webhooks, the most it may have: delete one to add another", MaxWebhooksPerMerchant)
	}
	wh := &webhook{
		w: openpay.Webhook{
			ID: s.ids.NewID(idgen.KindWebhook), URL: req.URL, User: req.User, EventTypes: types,
			Status: openpay.WebhookStatusUnverified,
		},
		password: req.Password,
		code:     s.ids.VerificationCode(),
	}
	ws.byID[wh.w.ID] = wh
	ws.list = append(ws.list, wh)
	c.m.mark(recWebhook, wh.w.ID)
	target := wh.target()
	c.m.mu.Unlock()

	// The verification event goes out without the merchant's lock held
	// and out of the reset gate: a slow URL delays this answer only.
	body, err := json.Marshal(openpay.WebhookEvent{
		Type: openpay.EventTypeVerification, EventDate: s.nowFor(c.m), VerificationCode: wh.code,
	})
	// (Encoding a struct of strings and a time cannot fail; were it to, the
	// webhook would simply stay unverified.)
	var a delivery.Attempt
	current, e := c.outsideGate(func() {
		if err == nil {
			a = s.deliveries.Verify(c.r.Context(), target, body)
		}
	})
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if current && webhooksOf(c.m).byID[wh.w.ID] == wh { // neither reset nor deleted meanwhile
		if err == nil {
			s.deliveries.Log(wh.w.ID, a)
		}
		if a.OK() {
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
func (wh *webhook) target() delivery.Target {
	return delivery.Target{WebhookID: wh.w.ID, URL: wh.w.URL, User: wh.w.User, Password: wh.password}
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
func (s *Server) deleteWebhook(c *call) (any, *Error) {
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
	for _, seq := range s.deliveries.Forget(wh.w.ID) {
		c.m.mark(recDelivery, deliveryKeyOf(seq))
	}
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

// deliverEvent queues ev, an event of m's, for every verified webhook of m
// subscribed to its type. It runs under the merchant's lock (see emit) and
// only queues: the queue calls nothing back. Deliveries share the body.
func (s *Server) deliverEvent(m *merchant, ev *loggedEvent) {
	if !m.webhooked { // no webhook yet: an event costs no lookup
		return
	}
	var body []byte
	for _, wh := range webhooksOf(m).list {
		if wh.w.Status != openpay.WebhookStatusVerified || !slices.Contains(wh.w.EventTypes, ev.typ) {
			continue
		}
		if body == nil {
			var err error
			if body, err = ev.event(m.id).Body(); err != nil {
				s.log.Warn("webhook event not encoded", "event", ev.id.String(), "error", err.Error())
				return
			}
		}
		d := delivery.Delivery{Owner: m.id, To: wh.target(), Body: body,
			Event: delivery.Event{ID: ev.id.String(), TransactionID: ev.tx.id(), Type: ev.typ}}
		if seq, ok := s.deliveries.Enqueue(d); ok {
			m.mark(recDelivery, deliveryKeyOf(seq))
		}
	}
}

// markDelivery marks a delivery's record changed (its attempts counted, or
// done with): the queue calls it from its goroutines, which hold no
// merchant's lock, and the next request's flush writes it (see persist.go).
func (s *Server) markDelivery(merchantID string, seq uint64) {
	if st := s.data; st != nil {
		if m := s.merchantByID(merchantID); m != nil {
			st.Mark(dirtyRef{Owner: owner{m: m}, Kind: recDelivery, ID: deliveryKeyOf(seq)})
		}
	}
}

// WebhookDeliveryStats returns the state of a webhook's deliveries: how
// many are pending and how many were dropped (a full queue) or given up
// (every attempt failed). It is zero for an unknown or deleted webhook.
func (s *Server) WebhookDeliveryStats(webhookID string) WebhookDeliveryStats {
	return s.deliveries.Stats(webhookID)
}

// WaitForDeliveries returns once no webhook delivery of any merchant is
// pending (see delivery.Queue.Wait), or with ctx's error.
func (s *Server) WaitForDeliveries(ctx context.Context) error {
	return s.deliveries.Wait(ctx)
}
