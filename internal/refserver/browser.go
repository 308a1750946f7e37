package refserver

import (
	"net/http"
	"strconv"

	"github.com/openpay-go/openpay/internal/refserver/httpedge"
	"github.com/openpay-go/openpay/internal/web"
)

// Browsers: the CORS rules and what marks a request from a browser are
// package httpedge's (its doc gives them); the routes open to browsers
// are marked with allowPublicKey or fromBrowser (routes.go).

// preflight answers a CORS preflight for a route open to browsers and
// reports whether it did. Preflights for other routes are left to the
// router, which answers them 405 without CORS headers.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodOptions || !httpedge.FromBrowser(r) {
		return false
	}
	method := httpedge.Header(r.Header, "Access-Control-Request-Method")
	rt, _, _ := s.routes.match(method, r.URL, nil)
	if method == "" || rt == nil || !rt.browser {
		return false
	}
	h := w.Header()
	httpedge.AllowOrigin(h, r)
	h.Set("Access-Control-Allow-Methods", rt.method+", OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
	h.Set("Access-Control-Max-Age", strconv.Itoa(httpedge.CORSMaxAge))
	w.WriteHeader(http.StatusNoContent)
	return true
}

// serveWeb answers the requests for the server's web content (the browser
// library, the dashboard and the hosted payment pages, package web) and
// reports whether it did. None takes an API path; the dashboard checks its
// own credentials (dashboard.go).
func (s *Server) serveWeb(w http.ResponseWriter, r *http.Request) bool {
	if web.ServeLibrary(w, r) {
		return true
	}
	if s.dash != nil && s.dash.Handles(r.URL.Path) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
		}
		s.dash.ServeHTTP(w, r)
		return true
	}
	if !s.pages.Handles(r.URL.Path) {
		return false
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
	}
	s.pages.ServeHTTP(w, r)
	return true
}
