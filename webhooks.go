package openpay

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
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

// List returns every webhook of the merchant.
func (ws *WebhooksService) List(ctx context.Context, opts ...CallOption) ([]Webhook, error) {
	out, err := call[[]Webhook](ctx, scopeOf(ws), apiRequest{opts: opts, method: http.MethodGet}, "webhooks")
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

// WebhookHandler returns the http.Handler of a webhook URL. It accepts the
// gateway's event deliveries (POST, JSON [WebhookEvent]) sent with HTTP Basic
// credentials equal to user and password (compared in constant time; other
// requests get 401), decodes the event and calls handle. A nil error
// answers 200, which ends the gateway's retries; an error answers 500, so the
// gateway delivers the event again later.
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
func WebhookHandler(user, password string, handle func(ctx context.Context, ev *WebhookEvent) error) http.Handler {
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
		if err := handle(r.Context(), &ev); err != nil {
			http.Error(w, "event not processed", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
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
