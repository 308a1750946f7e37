package httpedge

import (
	"crypto/tls"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBasicAuthUser checks that the server reads the API key from the
// Authorization header exactly as net/http's BasicAuth does, without
// allocating for a key of usual length.
func TestBasicAuthUser(t *testing.T) {
	long := strings.Repeat("k", 200)
	for _, h := range []string{
		"", "Basic", "Basic ", "basic c2tfMTIzOg==", "BASIC c2tfMTIzOg==", "Basic c2tfMTIzOg==",
		"Basic c2tfMTIz", "Basic c2tfMTIzOnB3", "Basic !!!!", "Bearer c2tfMTIzOg==", "Basic Og==",
		"Basic " + base64.StdEncoding.EncodeToString([]byte(long+":")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("sk_ñ:x:y")),
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if h != "" {
			r.Header.Set("Authorization", h)
		}
		wantUser, _, wantOK := r.BasicAuth()
		var buf [96]byte
		user, ok := BasicAuthUser(r, buf[:])
		assert.Equal(t, wantOK, ok, h)
		if wantOK {
			assert.Equal(t, wantUser, string(user), h)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth("sk_e568c42a6c384b7ab02cd47d2e407cab", "")
	var buf [96]byte
	assert.Zero(t, testing.AllocsPerRun(100, func() { BasicAuthUser(r, buf[:]) }))
}

func TestBrowserAndOrigin(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	assert.False(t, FromBrowser(r))
	h := http.Header{}
	AllowOrigin(h, r)
	assert.Equal(t, "Origin", h.Get("Vary"))
	assert.Empty(t, h.Get("Access-Control-Allow-Origin"), "no Origin, no CORS")

	r.Header.Set("Origin", "https://shop.example")
	assert.True(t, FromBrowser(r))
	h = http.Header{}
	AllowOrigin(h, r)
	assert.Equal(t, "https://shop.example", h.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "true", h.Get("Access-Control-Allow-Credentials"))

	r.Header.Set("Origin", "null")
	h = http.Header{}
	AllowOrigin(h, r)
	assert.Equal(t, "null", h.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, h.Get("Access-Control-Allow-Credentials"), "the opaque origin never gets credentials")
}

// TestVaryOnlyWhereACacheMayStore: Vary names Origin on the answers to
// GET, HEAD and the preflight, added to a Vary already there without
// touching the value the answers share, and not on the answers to the
// methods no cache stores, with or without Origin.
func TestVaryOnlyWhereACacheMayStore(t *testing.T) {
	for _, origin := range []string{"", "https://shop.example"} {
		for method, want := range map[string][]string{
			http.MethodGet: {"Origin"}, http.MethodHead: {"Origin"}, http.MethodOptions: {"Origin"},
			http.MethodPost: nil, http.MethodPut: nil, http.MethodPatch: nil, http.MethodDelete: nil,
		} {
			r := httptest.NewRequest(method, "/", nil)
			if origin != "" {
				r.Header.Set("Origin", origin)
			}
			h := http.Header{}
			AllowOrigin(h, r)
			assert.Equal(t, want, h.Values("Vary"), "%s, Origin %q", method, origin)
			assert.Equal(t, origin, h.Get("Access-Control-Allow-Origin"), "%s: CORS whatever the method", method)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	h := http.Header{"Vary": {"Accept"}}
	AllowOrigin(h, r)
	assert.Equal(t, []string{"Accept", "Origin"}, h.Values("Vary"))
	h = http.Header{}
	AllowOrigin(h, r)
	h.Add("Vary", "Accept-Language")
	assert.Equal(t, []string{"Origin", "Accept-Language"}, h.Values("Vary"))
	h = http.Header{}
	AllowOrigin(h, r)
	assert.Equal(t, []string{"Origin"}, h.Values("Vary"), "the shared value stays as it was")
	assert.Zero(t, testing.AllocsPerRun(100, func() { delete(h, "Vary"); AllowOrigin(h, r) }), "the shared value")
}

func TestLoopbackHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:8080": true, "127.0.0.1": true, "127.0.0.1:80": true, "[::1]:443": true, "::1": true,
		"": false, ":8080": false, "0.0.0.0:80": false, "example.com": false, "10.0.0.1:80": false,
	} {
		assert.Equal(t, want, LoopbackHost(host), host)
	}
}

func TestRebased(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "http://127.0.0.1:9000/paynet-pdf/m1/ref?x=1", Rebased("http://127.0.0.1:8000/paynet-pdf/m1/ref?x=1", "http://127.0.0.1:9000"))
	assert.Equal(t, "https://api.example/v1", Rebased("http://old:1/v1", "https://api.example/ignored/path"))
	assert.Equal(t, "", Rebased("", "http://x"))
	assert.Equal(t, "/relative", Rebased("/relative", "http://x"), "not absolute: unchanged")
	assert.Equal(t, "http://a/b", Rebased("http://a/b", "nohost"), "a base without a host: unchanged")
}

// TestHeaderIsGet: Header reads a canonical key as http.Header.Get does,
// without allocating or canonicalizing.
func TestHeaderIsGet(t *testing.T) {
	h := http.Header{"Origin": {"https://a.example", "https://b.example"}, "Authorization": {}, "x-lower": {"v"}}
	for _, key := range []string{"Origin", "Authorization", "Access-Control-Request-Method", "X-Lower"} {
		assert.Equal(t, h.Get(key), Header(h, key), key)
	}
	assert.Equal(t, "", Header(nil, "Origin"))
	assert.Zero(t, testing.AllocsPerRun(100, func() { Header(h, "Origin") }))
}

// The base URL is the request's scheme and Host, localhost for a Host no
// URL can hold; the one last built is given again without being built.
func TestLastBaseURL(t *testing.T) {
	var l LastBaseURL
	req := func(host string, secure bool) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		if secure {
			r.TLS = &tls.ConnectionState{}
		}
		return r
	}
	for _, tt := range []struct {
		host string
		tls  bool
		want string
	}{
		{"127.0.0.1:8080", false, "http://127.0.0.1:8080"},
		{"127.0.0.1:8080", true, "https://127.0.0.1:8080"},
		{"shop.example", true, "https://shop.example"},
		{"", false, "http://localhost"},
		{"evil.example/path", false, "http://localhost"},
		{"a b", true, "https://localhost"},
		{"user@host", false, "http://localhost"},
		{"127.0.0.1:8080", false, "http://127.0.0.1:8080"},
	} {
		assert.Equal(t, tt.want, l.Of(req(tt.host, tt.tls)), "%q tls %v", tt.host, tt.tls)
	}
	r := req("127.0.0.1:9090", false)
	assert.Equal(t, "http://127.0.0.1:9090", l.Of(r))
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { l.Of(r) }), "the last one is not built again")
}

// The status written first is the one remembered; a body without a status
// is a 200.
func TestStatusWriter(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := &StatusWriter{ResponseWriter: rec}
	_, _ = w.Write([]byte("x"))
	w.WriteHeader(http.StatusTeapot)
	assert.Equal(t, http.StatusOK, w.Status)
	w = &StatusWriter{ResponseWriter: httptest.NewRecorder()}
	w.WriteHeader(http.StatusNotFound)
	w.WriteHeader(http.StatusOK)
	assert.Equal(t, http.StatusNotFound, w.Status)
}

// A log shows the standard methods, and "other" for anything else.
func TestLogMethod(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "PATCH", LogMethod(http.MethodPatch))
	assert.Equal(t, "other", LogMethod("4111111111111111"))
	assert.Equal(t, "other", LogMethod("get"))
}

// BenchmarkBasicAuthUser reads a merchant's private key from a request,
// as every authenticated request does.
func BenchmarkBasicAuthUser(b *testing.B) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.SetBasicAuth("sk_e568c42a6c384b7ab02cd47d2e407cab", "")
	var buf [96]byte
	b.ReportAllocs()
	for b.Loop() {
		BasicAuthUser(r, buf[:])
	}
}

// ForwardedFor tells a missing or blank X-Forwarded-For from one whose
// first entry is not an IP address.
func TestForwardedFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		header    string
		given, ip bool
	}{
		{"", false, false}, {"  ", false, false}, {"203.0.113.7", true, true}, {" 203.0.113.7 , 10.0.0.1", true, true},
		{"2001:db8::1", true, true}, {"not-an-ip", true, false}, {"10.0.0.1:80", true, false}, {", 203.0.113.7", true, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		if c.header != "" {
			r.Header.Set("X-Forwarded-For", c.header)
		}
		given, ip := ForwardedFor(r)
		assert.Equal(t, [2]bool{c.given, c.ip}, [2]bool{given, ip}, "%q", c.header)
	}
}
