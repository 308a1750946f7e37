package openpay

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
)

// WebhooksService registers the URLs that receive the merchant's events
// (Client.Webhooks). Events arrive as [WebhookEvent] JSON bodies.
type WebhooksService struct{ s scope }

// Create registers a webhook. The gateway delivers a verification event to
// the URL at once: a URL that answers it with 2xx makes the webhook
// verified immediately; otherwise it stays unverified until [WebhooksService.Verify] is
// called with the code from that event. The password is never returned.
// User and Password are optional and strongly advised: see [WebhookHandler].
func (ws *WebhooksService) Create(ctx context.Context, req WebhookRequest, opts ...CallOption) (*Webhook, error) {
	return call[Webhook](ctx, scopeOf(ws), apiRequest{opts: opts, method: http.MethodPost, body: req}, "webhooks")
}

// Get returns a webhook.
func (ws *WebhooksService) Get(ctx context.Context, webhookID string, opts ...CallOption) (*Webhook, error) {
	return call[Webhook](ctx, scopeOf(ws), apiRequest{opts: opts, method: http.MethodGet}, "webhooks", webhookID)
}

// List returns every webhook of the merchant, the same *Webhook that Create
// and Get return. The gateway does not page webhooks, so there is no
// iterator: the answer is the whole list.
func (ws *WebhooksService) List(ctx context.Context, opts ...CallOption) ([]*Webhook, error) {
	out, err := call[[]*Webhook](ctx, scopeOf(ws), apiRequest{opts: opts, method: http.MethodGet}, "webhooks")
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// Delete removes a webhook.
func (ws *WebhooksService) Delete(ctx context.Context, webhookID string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(ws), http.MethodDelete, opts, "webhooks", webhookID)
}

// Verify marks a webhook verified with the code its URL received in the
// verification event.
func (ws *WebhooksService) Verify(ctx context.Context, webhookID, verificationCode string, opts ...CallOption) error {
	return callNoContent(ctx, scopeOf(ws), http.MethodPost, opts, "webhooks", webhookID, "verify", verificationCode)
}

// maxEventBytes bounds an event delivery's body.
const maxEventBytes = 1 << 20

// WebhookOption configures the handler [WebhookHandler] builds.
type WebhookOption func(*webhookSettings)

type webhookSettings struct {
	logger *slog.Logger
}

// WithWebhookLogger sends the handler's records to l instead of
// slog.Default(): one at Error level for each event whose handle panicked,
// with the event type (when it is one the SDK knows), the kind of panic
// and the functions it went through. A record never carries the event's
// body, card data or credentials, nor the value passed to panic, unless that
// value is a Go runtime error (such as a nil pointer dereference), whose
// text holds no data. A nil l keeps slog.Default().
func WithWebhookLogger(l *slog.Logger) WebhookOption {
	return func(s *webhookSettings) {
		if l != nil {
			s.logger = l
		}
	}
}

// errNoHandle refuses to build a webhook handler without a function to
// call.
var errNoHandle = errors.New("openpay: WebhookHandler needs a handle function (nil given)")

// errHandlePanicked is what a delivery whose handle panicked failed with.
var errHandlePanicked = errors.New("openpay: webhook handle panicked")

// WebhookHandler returns the http.Handler of a webhook URL. It accepts the
// gateway's event deliveries (POST, JSON [WebhookEvent]) sent with HTTP Basic
// credentials equal to user and password (compared in constant time; other
// requests get 401), decodes the event and calls handle. A nil error
// answers 200, which ends the gateway's retries; an error answers 500, so the
// gateway delivers the event again later. A handle that panics is treated
// as one that failed: the delivery is answered 500 and the panic is logged
// (see [WithWebhookLogger]); the handler goes on serving. It fails only
// when handle is nil.
//
//	h, err := openpay.WebhookHandler(user, password, openpay.Deduplicate(events, handle))
//	if err != nil {
//		return err
//	}
//	http.Handle("/openpay/events", h)
//
// Credentials are optional when a webhook is registered, and strongly
// advised: the gateway signs nothing, so they are all that tells its
// deliveries from anyone else's POST. For a webhook registered without them,
// pass "" for both: the gateway then sends no Authorization header, and the
// handler accepts only requests without one. A request that carries
// credentials anyway gets 401, so that a handler left without credentials
// cannot quietly serve a webhook registered with them (the webhook stays
// unverified instead). Beware of credentials read from configuration that is
// not set: empty strings turn the check off.
//
// The gateway retries until it sees a 2xx, so the same event can arrive more
// than once: wrap handle with [Deduplicate] (and still keep it safe to run
// twice: see there), and re-read the transaction from the API before acting
// on it rather than trusting the body. Event types the SDK does not know are
// passed through unchanged, and not every event carries a transaction:
// check Transaction for nil, or use [WebhookEvent.Payload], which types
// each kind of event and keeps the body of the others. The verification event sent when the webhook
// is created arrives like any other (Type EventTypeVerification, with a
// VerificationCode and no Transaction); answering it 2xx is what verifies
// the webhook.
func WebhookHandler(user, password string, handle func(ctx context.Context, ev *WebhookEvent) error, opts ...WebhookOption) (http.Handler, error) {
	if handle == nil {
		return nil, errNoHandle
	}
	var set webhookSettings
	for _, o := range opts {
		if o != nil {
			o(&set)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if !deliveryAuthorized(r, user, password) {
			w.Header().Set("WWW-Authenticate", `Basic realm="openpay webhook"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		var ev WebhookEvent
		dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxEventBytes))
		if err := dec.Decode(&ev); err != nil || ev.Type == "" {
			http.Error(w, "malformed event", http.StatusBadRequest)
			return
		}
		if err := callHandle(r.Context(), handle, &ev, set.logger); err != nil {
			http.Error(w, "event not processed", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}), nil
}

// callHandle calls handle, turning a panic into errHandlePanicked after
// logging it to logger (slog.Default() when nil). The record says where
// the panic happened and what kind it was, never what the event or the
// panic's value held.
func callHandle(ctx context.Context, handle func(ctx context.Context, ev *WebhookEvent) error, ev *WebhookEvent, logger *slog.Logger) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if logger == nil {
			logger = slog.Default()
		}
		eventType := "unknown"
		if ev.Type.Valid() {
			eventType = string(ev.Type)
		}
		logger.LogAttrs(ctx, slog.LevelError, "openpay: webhook handle panicked; answered 500, so the gateway delivers the event again",
			slog.String("event_type", eventType), slog.String("panic", panicKind(p)), slog.String("stack", panicStack()))
		err = errHandlePanicked
	}()
	return handle(ctx, ev)
}

// panicKind describes a panic's value without showing it: the text of a
// runtime error (a nil dereference, an index out of range), which holds no
// data, else only the value's type, since a value passed to panic may be
// anything the program held, card data included.
func panicKind(p any) string {
	if re, ok := p.(runtime.Error); ok {
		return re.Error()
	}
	return fmt.Sprintf("a value of type %T", p)
}

// panicStack lists the functions a panic unwound, innermost first, as
// "function file:line" lines: the frames between runtime.gopanic and
// callHandle, without the argument values a stack trace would print.
func panicStack() string {
	var pcs [48]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs[:])])
	var b strings.Builder
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			inPanic = true
		case strings.HasSuffix(f.Function, "/openpay.callHandle"):
			more = false
		case inPanic:
			fmt.Fprintf(&b, "%s %s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			return b.String()
		}
	}
}

// deliveryAuthorized reports whether r carries the webhook's credentials,
// or none when the webhook has none.
func deliveryAuthorized(r *http.Request, user, password string) bool {
	if user == "" && password == "" {
		return len(r.Header.Values("Authorization")) == 0
	}
	u, p, ok := r.BasicAuth()
	// Both comparisons always run, so timing says nothing about which one
	// failed.
	userOK := subtle.ConstantTimeCompare([]byte(u), []byte(user))
	passOK := subtle.ConstantTimeCompare([]byte(p), []byte(password))
	return ok && userOK&passOK == 1
}
