package openpay

import (
	"context"
	"net/http"
)

// WebhooksService registers the URLs that receive the merchant's events
// (Client.Webhooks). Events arrive as [WebhookEvent] JSON bodies.
type WebhooksService struct{ s scope }

// Create registers a webhook. The gateway delivers a verification event to
// the URL at once: a URL that answers it with 2xx makes the webhook
// verified immediately; otherwise it stays unverified until [WebhooksService.Verify] is
// called with the code from that event. The password is never returned.
func (ws *WebhooksService) Create(ctx context.Context, req WebhookRequest) (*Webhook, error) {
	return call[Webhook](ctx, ws.s, apiRequest{method: http.MethodPost, body: req}, "webhooks")
}

// Get returns a webhook.
func (ws *WebhooksService) Get(ctx context.Context, webhookID string) (*Webhook, error) {
	return call[Webhook](ctx, ws.s, apiRequest{method: http.MethodGet}, "webhooks", webhookID)
}

// List returns every webhook of the merchant.
func (ws *WebhooksService) List(ctx context.Context) ([]Webhook, error) {
	out, err := call[[]Webhook](ctx, ws.s, apiRequest{method: http.MethodGet}, "webhooks")
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// Delete removes a webhook.
func (ws *WebhooksService) Delete(ctx context.Context, webhookID string) error {
	return callNoContent(ctx, ws.s, http.MethodDelete, "webhooks", webhookID)
}

// Verify marks a webhook verified with the code its URL received in the
// verification event.
func (ws *WebhooksService) Verify(ctx context.Context, webhookID, verificationCode string) error {
	return callNoContent(ctx, ws.s, http.MethodPost, "webhooks", webhookID, "verify", verificationCode)
}
