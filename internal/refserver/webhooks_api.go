package refserver

import "net/http"

// registerWebhooks registers webhooks (create 201, verification, get, delete, list) and the delivery of events: register the delivery queue with s.onEvent and its stop function with s.onClose.
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerWebhooks(r *routeTable) {
	r.add("listWebhooks", http.MethodGet, "/v1/{merchant_id}/webhooks", http.StatusOK, notImplemented)
	r.add("createWebhook", http.MethodPost, "/v1/{merchant_id}/webhooks", http.StatusCreated, notImplemented)
	r.add("getWebhook", http.MethodGet, "/v1/{merchant_id}/webhooks/{webhook_id}", http.StatusOK, notImplemented)
	r.add("deleteWebhook", http.MethodDelete, "/v1/{merchant_id}/webhooks/{webhook_id}", http.StatusNoContent, notImplemented)
	r.add("verifyWebhook", http.MethodPost, "/v1/{merchant_id}/webhooks/{webhook_id}/verify/{verification_code}", http.StatusNoContent, notImplemented)
}
