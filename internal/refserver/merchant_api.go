package refserver

import "net/http"

// registerMerchant registers the merchant object.
func (s *Server) registerMerchant(r *routeTable) {
	r.add("getMerchant", http.MethodGet, "/v1/{merchant_id}", http.StatusOK, s.getMerchant)
}

// getMerchant answers the merchant object: its balance, CLABE and status.
func (s *Server) getMerchant(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	return c.m.wire(), nil
}
