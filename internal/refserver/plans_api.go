package refserver

import "net/http"

// registerPlans registers subscription plans, and the list of a plan's subscriptions.
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerPlans(r *routeTable) {
	r.add("listPlans", http.MethodGet, "/v1/{merchant_id}/plans", http.StatusOK, notImplemented)
	r.add("createPlan", http.MethodPost, "/v1/{merchant_id}/plans", http.StatusOK, notImplemented)
	r.add("getPlan", http.MethodGet, "/v1/{merchant_id}/plans/{plan_id}", http.StatusOK, notImplemented)
	r.add("updatePlan", http.MethodPut, "/v1/{merchant_id}/plans/{plan_id}", http.StatusOK, notImplemented)
	r.add("deletePlan", http.MethodDelete, "/v1/{merchant_id}/plans/{plan_id}", http.StatusNoContent, notImplemented)
	r.add("listPlanSubscriptions", http.MethodGet, "/v1/{merchant_id}/plans/{plan_id}/subscriptions", http.StatusOK, notImplemented)
}
