package refserver

import "net/http"

// registerCustomers registers customers of a merchant: create, get, update, delete, list (with the external_id filter). The customer record and a creation helper (newCustomer) are in store.go.
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerCustomers(r *routeTable) {
	r.add("listCustomers", http.MethodGet, "/v1/{merchant_id}/customers", http.StatusOK, notImplemented)
	r.add("createCustomer", http.MethodPost, "/v1/{merchant_id}/customers", http.StatusOK, notImplemented)
	r.add("getCustomer", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}", http.StatusOK, notImplemented)
	r.add("updateCustomer", http.MethodPut, "/v1/{merchant_id}/customers/{customer_id}", http.StatusOK, notImplemented)
	r.add("deleteCustomer", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}", http.StatusNoContent, notImplemented)
}
