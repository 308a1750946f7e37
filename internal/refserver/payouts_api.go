package refserver

import "net/http"

// registerPayouts registers payouts at merchant and customer scope (bank account by id or inline, card), cancellation while in_progress, and the simulation controls that settle or fail a payout.
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerPayouts(r *routeTable) {
	r.add("listPayouts", http.MethodGet, "/v1/{merchant_id}/payouts", http.StatusOK, notImplemented)
	r.add("createPayout", http.MethodPost, "/v1/{merchant_id}/payouts", http.StatusOK, notImplemented)
	r.add("getPayout", http.MethodGet, "/v1/{merchant_id}/payouts/{transaction_id}", http.StatusOK, notImplemented)
	r.add("cancelPayout", http.MethodDelete, "/v1/{merchant_id}/payouts/{transaction_id}", http.StatusOK, notImplemented)
	r.add("listCustomerPayouts", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/payouts", http.StatusOK, notImplemented)
	r.add("createCustomerPayout", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/payouts", http.StatusOK, notImplemented)
	r.add("getCustomerPayout", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/payouts/{transaction_id}", http.StatusOK, notImplemented)
	r.add("cancelCustomerPayout", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/payouts/{transaction_id}", http.StatusOK, notImplemented)
}
