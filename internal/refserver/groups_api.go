package refserver

import "net/http"

// registerGroups registers a merchant group's own customers and their cards, and charges of those customers at a merchant of the group (group.customers in store.go; take the group's lock before a merchant's). Group merchant-level charges, captures and refunds are served by charges_api.go.
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerGroups(r *routeTable) {
	r.add("listGroupCustomers", http.MethodGet, "/v1/groups/{group_id}/customers", http.StatusOK, notImplemented)
	r.add("createGroupCustomer", http.MethodPost, "/v1/groups/{group_id}/customers", http.StatusOK, notImplemented)
	r.add("getGroupCustomer", http.MethodGet, "/v1/groups/{group_id}/customers/{customer_id}", http.StatusOK, notImplemented)
	r.add("updateGroupCustomer", http.MethodPut, "/v1/groups/{group_id}/customers/{customer_id}", http.StatusOK, notImplemented)
	r.add("deleteGroupCustomer", http.MethodDelete, "/v1/groups/{group_id}/customers/{customer_id}", http.StatusNoContent, notImplemented)
	r.add("listGroupCustomerCards", http.MethodGet, "/v1/groups/{group_id}/customers/{customer_id}/cards", http.StatusOK, notImplemented)
	r.add("createGroupCustomerCard", http.MethodPost, "/v1/groups/{group_id}/customers/{customer_id}/cards", http.StatusOK, notImplemented)
	r.add("getGroupCustomerCard", http.MethodGet, "/v1/groups/{group_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, notImplemented)
	r.add("updateGroupCustomerCard", http.MethodPut, "/v1/groups/{group_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, notImplemented)
	r.add("deleteGroupCustomerCard", http.MethodDelete, "/v1/groups/{group_id}/customers/{customer_id}/cards/{card_id}", http.StatusNoContent, notImplemented)
	r.add("createGroupMerchantCustomerCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/charges", http.StatusOK, notImplemented).needsClientIP()
	r.add("captureGroupMerchantCustomerCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/capture", http.StatusOK, notImplemented)
	r.add("refundGroupMerchantCustomerCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/refund", http.StatusOK, notImplemented)
}
