package refserver

import "net/http"

// registerTransfers registers transfers between two customers with an account (the out and in transactions, moved atomically under the merchant lock).
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerTransfers(r *routeTable) {
	r.add("listTransfers", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/transfers", http.StatusOK, notImplemented)
	r.add("createTransfer", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/transfers", http.StatusOK, notImplemented)
	r.add("getTransfer", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/transfers/{transaction_id}", http.StatusOK, notImplemented)
}
