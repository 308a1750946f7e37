package openpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/openpay-go/openpay/internal/transport"
)

// CallOption adjusts one call. Build one with [WithClientIP].
type CallOption struct {
	// clientIP is the X-Forwarded-For value, ready to send.
	clientIP []string
	err      error
}

// WithClientIP sets the payer device's IP address (IPv4 or IPv6), sent in
// the X-Forwarded-For header that the gateway requires on charge creation
// for its anti-fraud checks. Pass the address of the payer's browser or
// app, not the server's. An invalid address fails the call before sending.
func WithClientIP(ip string) CallOption {
	a, err := parseClientIP(ip)
	if err != nil {
		return CallOption{err: err}
	}
	return CallOption{clientIP: []string{a}}
}

var jsonMediaType = []string{"application/json"}

// apiRequest is one call as the services describe it.
type apiRequest struct {
	method string
	// url is the base URL followed by the path, built with buildURL so
	// that every id is checked and escaped; the query goes in query.
	url   string
	query url.Values
	body  any
	// needsClientIP: charge creation, which must carry X-Forwarded-For.
	needsClientIP bool
	// publicKeyOK: creating a card or a token, the only calls a public
	// key may make (and the store lookup, which sends no key).
	publicKeyOK bool
	// noAuth: the call needs no credentials (the store lookup); the key is
	// not sent where it is not needed.
	noAuth bool
	// reconcilable: a state-changing request carrying an order_id, which
	// the transport may retry after an unknown outcome because reconcile
	// can find out whether an earlier attempt took effect.
	reconcilable bool
	// want describes the transaction a reconcilable request creates: when
	// its final attempt meets a duplicate order_id after an earlier
	// attempt may have reached the gateway, the transaction is looked up
	// by order_id and returned if it is this request's own (reconcileTx).
	want txExpectation
}

// send performs r and decodes a 2xx body into out (when out is not nil and
// the body is not empty). Any other status yields an *Error; no usable
// response yields a *TransportError.
func (c *Client) send(ctx context.Context, r apiRequest, out any, opts ...CallOption) error {
	if ctx == nil {
		return errors.New("openpay: nil context")
	}
	path := transport.DisplayPath(strings.TrimPrefix(r.url, c.baseURL)) // for messages: never the host or query
	if c.public && !r.publicKeyOK {
		return &Error{
			Category:    CategoryRequest,
			Code:        ErrPublicKeyNotAllowed,
			Description: "not sent: a public key may only create cards and tokens; use the private key, on a server",
			Method:      r.method,
			Path:        path,
		}
	}
	var clientIP []string
	for _, o := range opts {
		if o.err != nil {
			return o.err
		}
		if o.clientIP != nil {
			clientIP = o.clientIP
		}
	}
	// The value slices are shared by every request of the client: nothing
	// below writes into them.
	header := make(http.Header, 5)
	header["Accept"] = jsonMediaType
	header["Content-Type"] = jsonMediaType
	header["User-Agent"] = c.userAgentValue
	if !r.noAuth {
		header["Authorization"] = c.authValue
	}
	if r.needsClientIP {
		if clientIP == nil {
			clientIP = c.clientIP
		}
		if clientIP == nil {
			return ErrClientIPRequired
		}
		header["X-Forwarded-For"] = clientIP
	}
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(wireForm(r.body)); err != nil {
			return fmt.Errorf("openpay: %s %s: encoding request: %w", r.method, path, err)
		}
	}
	u := r.url
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	resp, err := c.tr.Do(ctx, &transport.Request{
		Method:       r.method,
		URL:          u,
		Header:       header,
		Body:         body,
		Reconcilable: r.reconcilable,
	})
	if err != nil {
		var te *transport.Error
		if errors.As(err, &te) {
			return &TransportError{Method: r.method, Path: path, Attempts: len(te.Attempts), MayHaveReached: te.MayHaveReached(), Err: te.Err}
		}
		return err
	}
	if resp.Status < 200 || resp.Status > 299 {
		e := decodeError(r.method, path, resp, c.secrets)
		if e.Code == ErrDuplicateOrderID && r.reconcilable && resp.EarlierMayHaveReached() {
			return c.reconcileTx(ctx, r.url, r.want, e, out)
		}
		return e
	}
	if out == nil || resp.Status == http.StatusNoContent || len(bytes.TrimSpace(resp.Body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return fmt.Errorf("openpay: %s %s: decoding response: %w", r.method, path, redactError(err, c.secrets))
	}
	return nil
}

// buildURL appends to base the path made of the prefix's segments, then
// the parts (fixed names and caller-supplied ids), escaped. Each segment
// must be 1 to 45 characters, cannot be "." or "..", and cannot contain
// '/', '?', '#', '%', '\\' or control characters: an id can never change
// which resource a request addresses.
func buildURL(base string, prefix, parts []string) (string, error) {
	n := len(base)
	for _, seg := range [2][]string{prefix, parts} {
		for _, s := range seg {
			if s == "" || len(s) > 45 || s == "." || s == ".." || strings.ContainsFunc(s, badPathRune) {
				// The segment is not echoed: a mistaken argument could be a
				// card number or a key.
				return "", errors.New("openpay: invalid id: ids are 1 to 45 characters without '/', '?', '#', '%' or control characters")
			}
			n += 1 + len(s)
		}
	}
	var b strings.Builder
	b.Grow(n + 8)
	b.WriteString(base)
	for _, seg := range [2][]string{prefix, parts} {
		for _, s := range seg {
			b.WriteByte('/')
			b.WriteString(url.PathEscape(s))
		}
	}
	return b.String(), nil
}

func badPathRune(r rune) bool {
	return r < ' ' || r == 0x7f || r == '/' || r == '?' || r == '#' || r == '%' || r == '\\'
}
