package delivery

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// What an attempt's Err says: a small fixed vocabulary, so that the
// attempt log tells a merchant what to fix without showing the network's
// own messages (addresses, ports, the answers of whatever listens there:
// a webhook must not be a port scanner's report).
const (
	ErrTimeout    = "timeout"
	ErrRefused    = "connection refused"
	ErrReset      = "connection reset"
	ErrNoHost     = "host not found"
	ErrNotAllowed = "address not allowed"
	ErrTLS        = "TLS handshake failed"
	ErrNoHTTP     = "no HTTP answer"
	ErrCancelled  = "cancelled"
	ErrBadURL     = "the URL cannot be requested"
	ErrRedirect   = "redirect not followed"
)

// errNotAllowed refuses a connection to an address that is not public.
var errNotAllowed = errors.New("delivery: address not allowed")

// attemptError says in the package's vocabulary why a delivery got no
// answer.
func attemptError(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.Is(err, errNotAllowed):
		return ErrNotAllowed
	case errors.Is(err, context.Canceled):
		return ErrCancelled
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return ErrTimeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return ErrRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return ErrReset
	case errors.As(err, &dnsErr):
		return ErrNoHost
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr),
		errors.As(err, &recErr):
		return ErrTLS
	}
	return ErrNoHTTP
}

// PublicAddr reports whether a webhook may be delivered to ip when only
// public addresses are allowed: not loopback, private, link-local,
// unspecified or multicast (an IPv4 address written as IPv6 is judged as
// IPv4).
func PublicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() &&
		!ip.IsLinkLocalMulticast() && !ip.IsInterfaceLocalMulticast() && !ip.IsMulticast() &&
		!ip.IsUnspecified()
}

// PublicHost reports whether host (a URL's host name, without port) may
// receive deliveries when only public addresses are allowed: false when it
// is an address that is not public, a name under "localhost", or a name
// that resolves to such an address. A name that cannot be resolved (within
// ctx) is not refused here: the queue's dialer judges the address it
// dials.
func PublicHost(ctx context.Context, host string) bool {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return PublicAddr(ip)
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return false
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return true
	}
	for _, ip := range ips {
		if !PublicAddr(ip) {
			return false
		}
	}
	return true
}

// newClient returns the queue's copy of client (nil: one with Timeout),
// which follows no redirect, and with publicOnly dials public addresses
// only, with no proxy.
func newClient(client *http.Client, publicOnly bool) *http.Client {
	c := &http.Client{Timeout: Timeout}
	if client != nil {
		*c = *client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if publicOnly {
		base, ok := c.Transport.(*http.Transport)
		if !ok {
			base = http.DefaultTransport.(*http.Transport)
		}
		t := base.Clone()
		t.Proxy = nil // a proxy would dial for us, unchecked
		t.DialTLSContext = nil
		t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
			Control: func(_, address string, _ syscall.RawConn) error {
				if ap, err := netip.ParseAddrPort(address); err != nil || !PublicAddr(ap.Addr()) {
					return errNotAllowed
				}
				return nil
			}}).DialContext
		c.Transport = t
	}
	return c
}
