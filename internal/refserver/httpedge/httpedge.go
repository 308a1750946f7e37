// Package httpedge holds what the reference server reads from requests
// and writes to answers at the HTTP level, apart from the API: the API key
// of the Basic credentials, whether a request comes from a browser and the
// CORS headers that let it read an answer, loopback hosts, and URLs moved
// to another base.
//
// The gateway's browser library (Openpay.js) calls a few routes
// straight from the payer's browser, on the shop's origin, with the public
// key: XHR with an Authorization header, Content-Type application/json and
// withCredentials. Those routes (the server marks them: allowPublicKey,
// fromBrowser in its routes.go)
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
//
// It reads charge creation's X-Forwarded-For header ([ForwardedFor]), whose
// rule the server applies in strict mode.
//
// It also holds the request's frame the server wraps around its API: the
// writer that remembers the status written ([StatusWriter]), the method
// as a log shows it ([LogMethod]), and the base URL a client reached the
// server at ([LastBaseURL]).
//
// Contract: every function is pure but for the headers it is given to
// set and the one URL a LastBaseURL remembers, and none allocates on the
// request path where its doc says so ([BasicAuthUser], [LastBaseURL.Of]
// for the Host it last saw). The package does not own which routes are
// open to browsers, nor what a key authenticates: the server decides both.
package httpedge

import (
	"bytes"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"unsafe"
)

// CORSMaxAge is how long a browser may cache a preflight answer (seconds).
const CORSMaxAge = 600

// FromBrowser reports whether the request came from browser script.
func FromBrowser(r *http.Request) bool { return Header(r.Header, "Origin") != "" }

// Header is h.Get(key) for a key in canonical form ("Origin"), read
// without putting the key in canonical form again (net/http stores the
// request's header keys in that form).
func Header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// AllowOrigin lets the request's origin read the answer, with credentials.
// The opaque origin "null" (sandboxed frames, file: pages, data: URLs,
// redirects across origins) is one any page can take, so it is let read
// the answer to its own request only: never with credentials.
//
// The answer names Origin in Vary, so that a cache never hands an answer
// made for one origin (or for a server, without CORS headers) to another,
// unless the request's method is one whose answers no cache stores
// (unstorable): the server's answers to POST, PUT, PATCH and DELETE carry
// no explicit freshness, so Vary would tell a cache about an answer it may
// not keep. Answers to GET and HEAD (which a cache may store without being
// told, RFC 9111 section 4.2.2) and to the preflight keep it.
func AllowOrigin(h http.Header, r *http.Request) {
	if !unstorable(r.Method) {
		if len(h["Vary"]) == 0 {
			h["Vary"] = varyOrigin
		} else {
			h["Vary"] = append(h["Vary"], "Origin")
		}
	}
	origin := Header(r.Header, "Origin")
	if origin == "" {
		return
	}
	h.Set("Access-Control-Allow-Origin", origin)
	if origin != "null" {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
}

// varyOrigin is the Vary of AllowOrigin's answers, one shared value that
// net/http only reads (its cap is its length: an append copies it).
var varyOrigin = []string{"Origin"}

// unstorable reports whether no cache stores the server's answers to
// requests of method: a cache stores an answer to POST or PATCH only when
// it carries explicit freshness (Cache-Control max-age, Expires) and a
// Content-Location, which the server's answers never do, and never an
// answer to PUT or DELETE (RFC 9110 sections 9.3.3 to 9.3.5, RFC 5789
// section 2, RFC 9111 section 3).
func unstorable(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// BasicAuthUser returns the user name of the request's HTTP Basic
// credentials (the API key; the password is empty), as r.BasicAuth reads
// them, decoded into buf when it is large enough so that checking a key
// allocates nothing.
func BasicAuthUser(r *http.Request, buf []byte) ([]byte, bool) {
	const prefix = "Basic "
	auth := Header(r.Header, "Authorization")
	if len(auth) < len(prefix) || (auth[:len(prefix)] != prefix && !strings.EqualFold(auth[:len(prefix)], prefix)) {
		return nil, false
	}
	enc := auth[len(prefix):]
	if base64.StdEncoding.DecodedLen(len(enc)) > len(buf) {
		user, _, ok := r.BasicAuth()
		return []byte(user), ok
	}
	// Decode only reads its source: a view of the header's bytes spares a
	// copy of them.
	n, err := base64.StdEncoding.Decode(buf, unsafe.Slice(unsafe.StringData(enc), len(enc)))
	if err != nil {
		return nil, false
	}
	i := bytes.IndexByte(buf[:n], ':')
	return buf[:max(i, 0)], i >= 0
}

// ForwardedFor reads the X-Forwarded-For header as charge creation's rule
// does: whether it is given (not blank), and whether its first entry is an
// IP address (the payer's).
func ForwardedFor(r *http.Request) (given, ip bool) {
	v := r.Header.Get("X-Forwarded-For")
	if strings.TrimSpace(v) == "" {
		return false, false
	}
	first, _, _ := strings.Cut(v, ",")
	return true, net.ParseIP(strings.TrimSpace(first)) != nil
}

// LoopbackHost reports whether a host, with or without its port, is
// localhost or a loopback IP address (an empty host, which listens on
// every interface, is not).
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Rebased is u with the scheme and host of base; u unchanged when either
// is not an absolute URL.
func Rebased(u, base string) string {
	if u == "" {
		return u
	}
	old, err1 := url.Parse(u)
	to, err2 := url.Parse(base)
	if err1 != nil || err2 != nil || old.Host == "" || to.Host == "" {
		return u
	}
	old.Scheme, old.Host = to.Scheme, to.Host
	return old.String()
}

// StatusWriter is a ResponseWriter that remembers the status written, so
// that the server's recovery knows whether it may still answer, and its log
// what was answered.
type StatusWriter struct {
	http.ResponseWriter
	Status int
}

// WriteHeader writes the status, remembering the first one.
func (w *StatusWriter) WriteHeader(code int) {
	if w.Status == 0 {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write writes to the answer's body, which is a 200 when no status was
// written.
func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// LogMethod is the request method as a log shows it: a standard method,
// or "other" (a method is free text a client could fill with anything).
func LogMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// LastBaseURL remembers the base URL last built from a request
// ([LastBaseURL.Of]). Its zero value is ready; it is safe for concurrent
// use.
type LastBaseURL struct{ last atomic.Pointer[baseURL] }

// baseURL is a base URL and the request's scheme and Host it was built
// from.
type baseURL struct {
	https bool
	host  string // the request's Host, as sent
	url   string
}

// Of returns the absolute URL a client reached the server at by r:
// http or https (by r.TLS) and r's Host, localhost when the Host is empty
// or holds what no host may (a slash, ?, #, @, a space). Clients reach a
// server by one address, as a rule: the last URL built is kept and given
// again, without being built, to requests with the same scheme and Host.
func (l *LastBaseURL) Of(r *http.Request) string {
	https := r.TLS != nil
	if b := l.last.Load(); b != nil && b.host == r.Host && b.https == https {
		return b.url
	}
	scheme, host := "http", r.Host
	if https {
		scheme = "https"
	}
	if host == "" || strings.ContainsAny(host, "/?#@ ") {
		host = "localhost"
	}
	b := &baseURL{https: https, host: r.Host, url: scheme + "://" + host}
	l.last.Store(b)
	return b.url
}
