package openpay

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseClientIP(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"203.0.113.7":                    "203.0.113.7",
		" 203.0.113.7 ":                  "203.0.113.7",
		"203.0.113.7:52814":              "203.0.113.7", // http.Request.RemoteAddr
		"203.0.113.7:0":                  "203.0.113.7",
		"2001:DB8::1":                    "2001:db8::1",
		"[2001:db8::1]:443":              "2001:db8::1",
		"[2001:db8::1]":                  "2001:db8::1",
		"::ffff:203.0.113.9":             "203.0.113.9",
		"[::ffff:203.0.113.9]:80":        "203.0.113.9",
		"[fe80::1%eth0]:8080":            "fe80::1", // a zone names our interface, not the payer
		"fe80::1%eth0":                   "fe80::1",
		"2001:db8:0:0:0:0:0:2":           "2001:db8::2",
		"[2001:db8:0:0:0:0:0:2]:1":       "2001:db8::2",
		"\t198.51.100.23:65535\t":        "198.51.100.23",
		"[::ffff:198.51.100.1%zone]:443": "198.51.100.1",
	} {
		got, err := parseClientIP(in)
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
	}
	long := "shop.example" + strings.Repeat("x", 200)
	for _, bad := range []string{
		"", " ", "localhost", "localhost:80", "shop.example", "203.0.113.300", "203.0.113.7:", "203.0.113.7:99999",
		"203.0.113.7:+80", "203.0.113.7:http", "[203.0.113.7]", "[203.0.113.7]:80", "[2001:db8::1]:", "[2001:db8::1",
		"2001:db8::1]", "[]", "[]:80", "2001:db8::1:443x", "203.0.113.7, 10.0.0.1", "203.0.113.7\r\nX-Evil: 1",
		"unknown", "_hidden", "1.2.3.4%eth0", long,
	} {
		_, err := parseClientIP(bad)
		require.ErrorIs(t, err, ErrInvalidClientIP, "%q", bad)
		assert.Contains(t, err.Error(), "client IP")
		assert.Less(t, len(err.Error()), 130, "only a short prefix of the value is quoted")
		assert.NotContains(t, err.Error(), "\n")
	}
}

func TestClientIP(t *testing.T) {
	t.Parallel()
	lb := netip.MustParsePrefix("10.0.0.0/8")
	edge := netip.MustParsePrefix("2001:db8:ffff::/48")
	cdn := netip.MustParsePrefix("198.51.100.0/24")
	type header struct{ name, value string }
	for _, tc := range []struct {
		name    string
		remote  string
		headers []header
		trusted []netip.Prefix
		want    string // "" for an error
	}{
		{name: "direct", remote: "203.0.113.7:52814", want: "203.0.113.7"},
		{name: "direct IPv6", remote: "[2001:db8::7]:52814", want: "2001:db8::7"},
		{name: "RemoteAddr without port", remote: "203.0.113.7", want: "203.0.113.7"},
		{name: "no proxies trusted: headers ignored", remote: "203.0.113.7:1",
			headers: []header{{"X-Forwarded-For", "192.0.2.1"}, {"Forwarded", "for=192.0.2.2"}}, want: "203.0.113.7"},
		{name: "spoof: untrusted peer's X-Forwarded-For ignored", remote: "203.0.113.7:1", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "192.0.2.1"}}, want: "203.0.113.7"},
		{name: "spoof: untrusted peer's Forwarded ignored", remote: "203.0.113.7:1", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", "for=192.0.2.1"}}, want: "203.0.113.7"},
		{name: "spoof: untrusted peer claiming a trusted address", remote: "203.0.113.7:1", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "10.0.0.9"}}, want: "203.0.113.7"},
		{name: "one proxy", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "203.0.113.7"}}, want: "203.0.113.7"},
		{name: "spoof: client-written entries left of the proxy's are skipped", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "192.0.2.66, 10.0.0.5, 203.0.113.7"}}, want: "203.0.113.7"},
		{name: "spoof: garbage left of the client is never read", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "not-an-ip, 203.0.113.7"}}, want: "203.0.113.7"},
		{name: "chain of trusted proxies", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb, cdn},
			headers: []header{{"X-Forwarded-For", "192.0.2.66, 203.0.113.7, 198.51.100.9, 10.1.2.3"}}, want: "203.0.113.7"},
		{name: "every hop trusted: the farthest", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "10.9.9.9, 10.1.2.3"}}, want: "10.9.9.9"},
		{name: "trusted peer without headers is the client", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb}, want: "10.0.0.2"},
		{name: "blank header counts as absent", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", " "}}, want: "10.0.0.2"},
		{name: "several header lines", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "192.0.2.66"}, {"X-Forwarded-For", "203.0.113.7, 10.3.3.3"}}, want: "203.0.113.7"},
		{name: "entries with ports and brackets", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb, edge},
			headers: []header{{"X-Forwarded-For", "[2001:db8::7]:4711, [2001:db8:ffff::1]:80, 10.0.0.3:8080"}}, want: "2001:db8::7"},
		{name: "IPv4-mapped peer in an IPv4 range", remote: "[::ffff:10.0.0.2]:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "203.0.113.7"}}, want: "203.0.113.7"},
		{name: "IPv4-mapped range", remote: "10.0.0.2:3000", trusted: []netip.Prefix{netip.MustParsePrefix("::ffff:10.0.0.0/104")},
			headers: []header{{"X-Forwarded-For", "::ffff:203.0.113.7"}}, want: "203.0.113.7"},
		{name: "zero prefix trusts nothing", remote: "10.0.0.2:3000", trusted: []netip.Prefix{{}},
			headers: []header{{"X-Forwarded-For", "192.0.2.1"}}, want: "10.0.0.2"},
		{name: "malformed entry where the client should be", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "203.0.113.7, bogus"}}},
		{name: "empty entry where the client should be", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "203.0.113.7,"}}},
		{name: "host name is not an address", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "shop.example"}}},

		{name: "Forwarded", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", "for=203.0.113.7;proto=https;by=10.0.0.2"}}, want: "203.0.113.7"},
		{name: "Forwarded, case and spaces", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `For="203.0.113.7" ; Proto=https ,  for=10.0.0.4`}}, want: "203.0.113.7"},
		{name: "Forwarded quoted [v6]:port", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for="[2001:db8:cafe::17]:4711"`}}, want: "2001:db8:cafe::17"},
		{name: "Forwarded quoted [v6]", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for="[2001:db8:cafe::17]"`}}, want: "2001:db8:cafe::17"},
		{name: "Forwarded obfuscated port keeps the address", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for="203.0.113.7:_p1"`}}, want: "203.0.113.7"},
		{name: "Forwarded unquoted IPv6 tolerated", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for=[2001:db8::7]:4711`}}, want: "2001:db8::7"},
		{name: "Forwarded escaped quote in another parameter", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for=203.0.113.7;x="a\"b,c"`}}, want: "203.0.113.7"},
		{name: "Forwarded chain", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb, cdn},
			headers: []header{{"Forwarded", `for=192.0.2.66, for=203.0.113.7, for="198.51.100.3:443";by=x, for=10.0.0.7`}}, want: "203.0.113.7"},
		{name: "spoof: Forwarded quoting trick left of the proxy's element", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for="10.0.0.8, for=192.0.2.66", for=203.0.113.7`}}, want: "203.0.113.7"},
		{name: "Forwarded empty elements skipped", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `, for=203.0.113.7,, `}}, want: "203.0.113.7"},
		{name: "Forwarded broken line left of the proxy's own line", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for="192.0.2.66`}, {"Forwarded", "for=203.0.113.7"}}, want: "203.0.113.7"},
		{name: "Forwarded unknown where the client should be", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", "for=unknown"}}},
		{name: "Forwarded obfuscated node", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for=_hidden, for=10.0.0.9`}}},
		{name: "Forwarded element without for", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", "proto=https"}}},
		{name: "Forwarded unterminated quote", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for=203.0.113.7, for="10.0.0.9`}}},
		{name: "Forwarded for twice in one element", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for=192.0.2.66;for=203.0.113.7`}}},
		{name: "Forwarded missing value", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `for=`}}},
		{name: "Forwarded garbage", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"Forwarded", `203.0.113.7`}}},

		{name: "both headers agree", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "203.0.113.7"}, {"Forwarded", "for=203.0.113.7"}}, want: "203.0.113.7"},
		{name: "spoof: Forwarded added by the client beside the proxy's X-Forwarded-For", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "203.0.113.7"}, {"Forwarded", "for=192.0.2.66"}}},
		{name: "spoof: X-Forwarded-For added by the client beside the proxy's Forwarded", remote: "10.0.0.2:3000", trusted: []netip.Prefix{lb},
			headers: []header{{"X-Forwarded-For", "192.0.2.66"}, {"Forwarded", "for=203.0.113.7"}}},

		{name: "empty RemoteAddr", remote: ""},
		{name: "Unix socket peer", remote: "@", trusted: []netip.Prefix{lb}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/checkout", nil)
			r.RemoteAddr = tc.remote
			for _, h := range tc.headers {
				r.Header.Add(h.name, h.value)
			}
			got, err := ClientIP(r, tc.trusted...)
			if tc.want == "" {
				assert.ErrorIs(t, err, ErrInvalidClientIP, "got %q", got)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}

	_, err := ClientIP(nil)
	assert.ErrorIs(t, err, ErrInvalidClientIP)
}

// WithClientIPFrom sends what ClientIP finds, and fails the call before
// sending when it finds nothing usable.
func TestWithClientIPFrom(t *testing.T) {
	t.Parallel()
	srv := newScriptServer(t, okReply(tpTx), okReply(tpTx))
	h := newHarness(t, srv.URL)
	charge := apiRequest{method: http.MethodPost, url: chargesPath, body: cardBody(), needsClientIP: true}
	proxy := netip.MustParsePrefix("10.0.0.0/8")

	r := httptest.NewRequest(http.MethodPost, "/checkout", nil)
	r.RemoteAddr = "10.0.0.2:3000"
	r.Header.Set("X-Forwarded-For", "192.0.2.66, 203.0.113.7")
	require.NoError(t, h.call(context.Background(), charge, nil, WithClientIPFrom(r, proxy)))
	require.NoError(t, h.call(context.Background(), charge, nil, WithClientIPFrom(r)), "no proxy trusted: the peer")
	reqs := srv.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"203.0.113.7"}, reqs[0].Header.Values("X-Forwarded-For"))
	assert.Equal(t, []string{"10.0.0.2"}, reqs[1].Header.Values("X-Forwarded-For"))

	r.Header.Set("X-Forwarded-For", "203.0.113.7, unknown")
	err := h.call(context.Background(), charge, nil, WithClientIPFrom(r, proxy))
	assert.ErrorIs(t, err, ErrInvalidClientIP)
	assert.Len(t, srv.requests(), 2, "nothing sent")
}
