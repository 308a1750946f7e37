package refserver

import "net/http"

// registerSubscriptions registers subscriptions of a customer (also through a merchant group), charged on schedule when the clock advances (see onClockAdvance).
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerSubscriptions(r *routeTable) {
	r.add("listSubscriptions", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, notImplemented)
	r.add("createSubscription", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, notImplemented)
	r.add("getSubscription", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, notImplemented)
	r.add("updateSubscription", http.MethodPut, "/v1/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, notImplemented)
	r.add("deleteSubscription", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusNoContent, notImplemented)
	r.add("listGroupMerchantSubscriptions", http.MethodGet, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, notImplemented)
	r.add("createGroupMerchantSubscription", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, notImplemented)
	r.add("getGroupMerchantSubscription", http.MethodGet, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, notImplemented)
	r.add("updateGroupMerchantSubscription", http.MethodPut, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, notImplemented)
	r.add("deleteGroupMerchantSubscription", http.MethodDelete, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusNoContent, notImplemented)
}
