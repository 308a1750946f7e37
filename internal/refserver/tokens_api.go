package refserver

import "net/http"

// registerTokens registers card tokens.
func (s *Server) registerTokens(r *routeTable) {
	r.add("createToken", http.MethodPost, "/v1/{merchant_id}/tokens", http.StatusOK, notImplemented).allowPublicKey()
	r.add("getToken", http.MethodGet, "/v1/{merchant_id}/tokens/{token_id}", http.StatusOK, notImplemented)
	r.add("getTokenPoints", http.MethodGet, "/v1/{merchant_id}/tokens/{token_id}/points", http.StatusOK, notImplemented)
}
