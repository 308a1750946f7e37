package refserver

import "net/http"

// registerFees registers fees charged from a customer's balance to the merchant, and their refunds.
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerFees(r *routeTable) {
	r.add("listFees", http.MethodGet, "/v1/{merchant_id}/fees", http.StatusOK, notImplemented)
	r.add("createFee", http.MethodPost, "/v1/{merchant_id}/fees", http.StatusOK, notImplemented)
	r.add("getFee", http.MethodGet, "/v1/{merchant_id}/fees/{fee_id}", http.StatusOK, notImplemented)
	r.add("refundFee", http.MethodPost, "/v1/{merchant_id}/fees/{fee_id}/refund", http.StatusOK, notImplemented)
}
