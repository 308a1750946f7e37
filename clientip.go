package openpay

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ErrInvalidClientIP matches the error of a payer IP address that is not an
// IPv4 or IPv6 address ([WithClientIP], [WithDefaultClientIP]) and of a
// request whose client address cannot be told with confidence ([ClientIP]).
var ErrInvalidClientIP = errors.New("openpay: invalid client IP address")

// parseClientIP checks a payer address given by the caller and returns it as
// it goes in X-Forwarded-For. It takes what servers and proxies hand out:
// "ip", and "ip:port", "[v6]:port" or "[v6]" as in http.Request.RemoteAddr.
func parseClientIP(ip string) (string, error) {
	a, ok := parseAddr(ip)
	if !ok {
		// A short prefix only: the value may be anything the caller got
		// from a request.
		return "", fmt.Errorf("%w: %.45q is not an IPv4 or IPv6 address", ErrInvalidClientIP, ip)
	}
	return a.String(), nil
}

// parseAddr reads an IP address written alone ("ip") or with a port
// ("ip:port", "[v6]:port", "[v6]"). The port and any IPv6 zone are dropped,
// as they say nothing about the device, and an IPv4-mapped IPv6 address
// becomes the IPv4 address, so that one device always gives one string.
func parseAddr(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, perr := netip.ParseAddrPort(s)
		switch {
		case perr == nil:
			a = ap.Addr()
		case len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']':
			if a, err = netip.ParseAddr(s[1 : len(s)-1]); err != nil || !a.Is6() {
				return netip.Addr{}, false
			}
		default:
			return netip.Addr{}, false
		}
	}
	return a.WithZone("").Unmap(), true
}

// ClientIP returns the IP address of the client that sent r, ready for a
// charge's ClientIP field; in a checkout handler that is the payer's
// device.
//
// With no trustedProxies it is the address of the connection's peer
// (r.RemoteAddr without its port) and forwarding headers are ignored:
// anyone can write them. Behind reverse proxies or load balancers, pass the
// address ranges they connect from; list only proxies that record their
// client in X-Forwarded-For or in the standard Forwarded header (RFC 7239,
// its for= parameters). When the peer is one of them, ClientIP reads the addresses
// the proxies recorded from the nearest hop backwards, skips those that are
// trusted proxies too, and returns the first one that is not. Entries
// further left were written by the client, or by proxies nobody vouches for,
// and are never used. When every hop is a trusted proxy the farthest one is
// returned; a trusted peer that sent neither header is itself the client.
//
// Rather than guess, it fails with an error matching [ErrInvalidClientIP]
// when the address it would return is missing, malformed, "unknown" or an
// obfuscated identifier, when RemoteAddr holds no IP address (a Unix
// socket), and when a request carries both headers and they name different
// clients: one of them was then written by someone else, and ClientIP cannot
// tell which. Have the proxies write one header, or both alike.
func ClientIP(r *http.Request, trustedProxies ...netip.Prefix) (string, error) {
	if r == nil {
		return "", fmt.Errorf("%w: no request", ErrInvalidClientIP)
	}
	peer, ok := parseAddr(r.RemoteAddr)
	if !ok {
		return "", fmt.Errorf("%w: the connection's address %.45q is not an IP address", ErrInvalidClientIP, r.RemoteAddr)
	}
	trusted := trustedSet(trustedProxies)
	if !trusted.contains(peer) {
		return peer.String(), nil
	}
	xff, hasXFF := headerLines(r.Header, "X-Forwarded-For")
	fwd, hasFwd := headerLines(r.Header, "Forwarded")
	var fromXFF, fromFwd netip.Addr
	var err error
	if hasXFF {
		if fromXFF, err = trusted.client(xForwardedFor(xff), parseAddr); err != nil {
			return "", fmt.Errorf("%w: X-Forwarded-For: %w", ErrInvalidClientIP, err)
		}
	}
	if hasFwd {
		if fromFwd, err = trusted.client(forwardedFor(fwd), parseForwardedNode); err != nil {
			return "", fmt.Errorf("%w: Forwarded: %w", ErrInvalidClientIP, err)
		}
	}
	switch {
	case hasXFF && hasFwd && fromXFF != fromFwd:
		return "", fmt.Errorf("%w: X-Forwarded-For and Forwarded name different clients", ErrInvalidClientIP)
	case hasXFF:
		return fromXFF.String(), nil
	case hasFwd:
		return fromFwd.String(), nil
	}
	return peer.String(), nil
}

// WithClientIPFrom is [WithClientIP] with the address [ClientIP] finds in
// r. When ClientIP fails, the call fails with its error before sending.
func WithClientIPFrom(r *http.Request, trustedProxies ...netip.Prefix) CallOption {
	ip, err := ClientIP(r, trustedProxies...)
	if err != nil {
		return CallOption{err: err}
	}
	return WithClientIP(ip)
}

// proxySet is the caller's trusted proxy ranges.
type proxySet []netip.Prefix

// trustedSet normalises the ranges as parseAddr normalises addresses, so
// that "::ffff:10.0.0.0/104" covers 10.0.0.1; invalid ranges cover nothing.
func trustedSet(ps []netip.Prefix) proxySet {
	out := make(proxySet, 0, len(ps))
	for _, p := range ps {
		if !p.IsValid() {
			continue
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		out = append(out, p)
	}
	return out
}

func (ps proxySet) contains(a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// client walks hops (a forwarding header's entries, the farthest first)
// from the right: each entry was written by the hop to its right, which is
// a trusted proxy as long as the walk goes on, so the first entry that is
// not a trusted proxy is the client. An entry that is not an address stops
// the walk with an error: nothing to its left can be vouched for.
func (ps proxySet) client(hops []string, parse func(string) (netip.Addr, bool)) (netip.Addr, error) {
	var a netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		var ok bool
		if a, ok = parse(hops[i]); !ok {
			return netip.Addr{}, fmt.Errorf("entry %.45q is not a usable address", hops[i])
		}
		if !ps.contains(a) {
			return a, nil
		}
	}
	return a, nil
}

// headerLines returns a header's lines (a proxy may add a line rather than
// extend the last one) and reports whether they hold anything.
func headerLines(h http.Header, name string) ([]string, bool) {
	lines := h.Values(name)
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return lines, true
		}
	}
	return nil, false
}

// xForwardedFor returns the entries of X-Forwarded-For, client first. An
// empty entry stays, as an entry that is not an address.
func xForwardedFor(lines []string) []string {
	var hops []string
	for _, l := range lines {
		hops = append(hops, strings.Split(l, ",")...)
	}
	return hops
}

// forwardedFor returns the for= value of each element of a Forwarded header
// (RFC 7239), client first. An element without one gives "". A line that
// does not parse gives one "" for all of it, so the walk stops with an error
// if it gets there: past a quoting mistake, nothing says where the elements
// of that line begin. Lines are read one by one, since a quoted string
// cannot run from one into the next. Empty elements are skipped, as RFC 9110
// lists allow them.
func forwardedFor(lines []string) []string {
	var hops []string
	for _, l := range lines {
		hops = append(hops, forwardedLine(l)...)
	}
	return hops
}

func forwardedLine(line string) []string {
	var hops []string
	p := forwardedParser{s: line}
	for {
		p.skipSpace()
		if p.done() {
			return hops
		}
		if p.peek() == ',' {
			p.i++
			continue
		}
		node, ok := p.element()
		if !ok {
			return []string{""}
		}
		hops = append(hops, node)
	}
}

// forwardedParser reads the Forwarded grammar: elements separated by
// commas, each a list of name=value pairs separated by semicolons, a value
// being a token or a quoted string.
type forwardedParser struct {
	s string
	i int
}

func (p *forwardedParser) done() bool { return p.i >= len(p.s) }
func (p *forwardedParser) peek() byte { return p.s[p.i] }

func (p *forwardedParser) skipSpace() {
	for !p.done() && (p.peek() == ' ' || p.peek() == '\t') {
		p.i++
	}
}

// element reads one element up to its closing comma (consumed) or the end,
// and returns its for= value ("" when it has none). ok is false on a syntax
// error or a repeated for=.
func (p *forwardedParser) element() (node string, ok bool) {
	seenFor := false
	for {
		p.skipSpace()
		name := p.token(false)
		p.skipSpace()
		if name == "" || p.done() || p.peek() != '=' {
			return "", false
		}
		p.i++
		p.skipSpace()
		value, ok := p.value()
		if !ok {
			return "", false
		}
		if strings.EqualFold(name, "for") {
			if seenFor {
				return "", false
			}
			seenFor, node = true, value
		}
		p.skipSpace()
		if p.done() {
			return node, true
		}
		switch p.peek() {
		case ';':
			p.i++
		case ',':
			p.i++
			return node, true
		default:
			return "", false
		}
	}
}

// value reads a token or a quoted string.
func (p *forwardedParser) value() (string, bool) {
	if p.done() {
		return "", false
	}
	if p.peek() != '"' {
		// Also ':' and brackets, which some proxies leave unquoted around
		// an IPv6 address or a port; nothing else changes meaning.
		t := p.token(true)
		return t, t != ""
	}
	p.i++
	var b strings.Builder
	for !p.done() {
		c := p.peek()
		p.i++
		switch c {
		case '"':
			return b.String(), true
		case '\\':
			if p.done() {
				return "", false
			}
			c = p.peek()
			p.i++
		}
		b.WriteByte(c)
	}
	return "", false // unterminated
}

// token reads RFC 9110 token characters; lenient also takes ':', '[' and ']'.
func (p *forwardedParser) token(lenient bool) string {
	start := p.i
	for !p.done() {
		c := p.peek()
		if !isTokenChar(c) && !(lenient && (c == ':' || c == '[' || c == ']')) {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// parseForwardedNode reads a for= node: an address with an optional port,
// which RFC 7239 may obfuscate ("_abc") without hiding the address. The
// node "unknown" and obfuscated nodes hide the address, so they are not
// usable.
func parseForwardedNode(node string) (netip.Addr, bool) {
	if i := strings.LastIndexByte(node, ':'); i >= 0 && i+1 < len(node) && node[i+1] == '_' {
		node = node[:i]
	}
	return parseAddr(node)
}
