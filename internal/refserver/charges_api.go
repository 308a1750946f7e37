package refserver

import "net/http"

// chargeKind tells the charge variants apart.
type chargeKind string

// registerCharges registers charges at merchant, customer and group scope.
func (s *Server) registerCharges(r *routeTable) {
	r.add("listCharges", http.MethodGet, "/v1/{merchant_id}/charges", http.StatusOK, notImplemented)
	r.add("createCharge", http.MethodPost, "/v1/{merchant_id}/charges", http.StatusOK, notImplemented).needsClientIP()
	r.add("getCharge", http.MethodGet, "/v1/{merchant_id}/charges/{transaction_id}", http.StatusOK, notImplemented)
	r.add("captureCharge", http.MethodPost, "/v1/{merchant_id}/charges/{transaction_id}/capture", http.StatusOK, notImplemented)
	r.add("refundCharge", http.MethodPost, "/v1/{merchant_id}/charges/{transaction_id}/refund", http.StatusOK, notImplemented)
	r.add("cancelCharge", http.MethodPost, "/v1/{merchant_id}/charges/{transaction_id}/cancel", http.StatusOK, notImplemented)
	r.add("listCustomerCharges", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/charges", http.StatusOK, notImplemented)
	r.add("createCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges", http.StatusOK, notImplemented).needsClientIP()
	r.add("getCustomerCharge", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}", http.StatusOK, notImplemented)
	r.add("captureCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/capture", http.StatusOK, notImplemented)
	r.add("refundCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/refund", http.StatusOK, notImplemented)
	r.add("cancelCustomerCharge", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/cancel", http.StatusOK, notImplemented)
	r.add("createGroupMerchantCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/charges", http.StatusOK, notImplemented).needsClientIP()
	r.add("captureGroupMerchantCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/charges/{transaction_id}/capture", http.StatusOK, notImplemented)
	r.add("refundGroupMerchantCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/charges/{transaction_id}/refund", http.StatusOK, notImplemented)
}
