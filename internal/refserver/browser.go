package refserver

import (
	"net/http"
	"strconv"

	"github.com/openpay-go/openpay/internal/web"
)

// Browsers. The gateway's browser library (Openpay.js) calls a few routes
// straight from the payer's browser, on the shop's origin, with the public
// key: XHR with an Authorization header, Content-Type application/json and
// withCredentials. Those routes (marked with allowPublicKey or fromBrowser)
// answer the CORS preflight and reflect the request's Origin with
// credentials allowed; every other route sends no CORS header, so a browser
// keeps their answers from scripts, and their preflight gets the usual 405.
//
// A request that carries an Origin header comes from a browser (servers and
// the SDK send none); with the private key it is refused with 1010, as
// section 5 of the specification says: the private key must never reach a
// browser.
//
// The browser library the server hands out and the hosted payment pages
// (package web) are served from the same handler, ahead of the API routes.

// corsMaxAge is how long a browser may cache a preflight answer (seconds).
const corsMaxAge = 600

// fromBrowser reports whether the request came from browser script.
func fromBrowser(r *http.Request) bool { return r.Header.Get("Origin") != "" }

// allowOrigin lets the request's origin read the answer, with credentials.
// The opaque origin "null" (sandboxed frames, file: pages, data: URLs,
// redirects across origins) is one any page can take, so it is let read
// the answer to its own request only: never with credentials.
func allowOrigin(h http.Header, r *http.Request) {
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	h.Set("Access-Control-Allow-Origin", origin)
	if origin != "null" {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
}

// preflight answers a CORS preflight for a route open to browsers and
// reports whether it did. Preflights for other routes are left to the
// router, which answers them 405 without CORS headers.
func (s *Server) preflight(w http.ResponseWriter, r *http.Request) bool {
	method := r.Header.Get("Access-Control-Request-Method")
	if r.Method != http.MethodOptions || !fromBrowser(r) || method == "" {
		return false
	}
	rt, _, _ := s.routes.match(method, r.URL, nil)
	if rt == nil || !rt.browser {
		return false
	}
	h := w.Header()
	allowOrigin(h, r)
	h.Set("Access-Control-Allow-Methods", rt.method+", OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
	h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
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
