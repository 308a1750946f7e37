package refserver

import "net/http"

// registerStores registers the convenience-store search (no credentials; SearchStores in stores.go does the work).
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerStores(r *routeTable) {
	r.add("listStores", http.MethodGet, "/stores", http.StatusOK, notImplemented).noAuth()
}
