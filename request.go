package openpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/openpay-go/openpay/internal/transport"
)

// CallOption adjusts one call: every service method takes any number of
// them. Build one with [WithClientIP], [WithHeader] or [WithResponseInfo].
type CallOption struct {
	// clientIP is the X-Forwarded-For value, ready to send.
	clientIP []string
	info     *ResponseInfo
	header   http.Header // added to the request's headers (WithHeader)
	err      error
}

// ResponseInfo describes how the gateway answered a call. Ask for it with
// [WithResponseInfo]; the SDK fills it before the call returns, whether the
// call succeeded or failed. For a list iterator it describes the page
// fetched last.
type ResponseInfo struct {
	// HTTPStatus is the status of the final answer; 0 when none arrived or
	// nothing was sent. For a Reconciled call it is the status of the
	// answer the result stands for: 200 for the transaction made, the
	// decline's status (402, 412) for a failed one.
	HTTPStatus int
	// RequestID is the gateway's identifier of the final answer, for its
	// support: the request_id of an error body, else the X-Request-Id
	// header; empty when the answer carried none.
	RequestID string
	// Attempts is how many times the request was sent (0: refused before
	// sending).
	Attempts int
	// Reconciled reports that the call's result was settled by looking its
	// transaction up by order_id after the outcome was left unclear (a lost
	// answer, a server error): the result is that transaction, or the
	// decline it records, not the final answer itself.
	Reconciled bool
	// Header holds the headers of the final answer, as received; nil when
	// none arrived, and for a Reconciled call (whose result is a lookup's,
	// not the final answer's).
	Header http.Header
}

// WithResponseInfo makes the call fill info with how the gateway answered:
//
//	var info openpay.ResponseInfo
//	ch, err := c.Charges.Get(ctx, id, openpay.WithResponseInfo(&info))
//	log.Printf("status %d, request %s, %d attempt(s)", info.HTTPStatus, info.RequestID, info.Attempts)
//
// A nil info is ignored.
func WithResponseInfo(info *ResponseInfo) CallOption { return CallOption{info: info} }

// WithClientIP sets the payer device's IP address (IPv4 or IPv6, with or
// without a port as in http.Request.RemoteAddr), sent in the
// X-Forwarded-For header that the gateway requires on charge creation for
// its anti-fraud checks. A charge request's ClientIP field says the same
// where the request is built; WithClientIP overrides it for one call. Pass the address of the payer's browser or app,
// not the server's: [WithClientIPFrom] finds it in the payer's request. An
// invalid address fails the call before sending, with an error matching
// [ErrInvalidClientIP].
func WithClientIP(ip string) CallOption {
	a, err := parseClientIP(ip)
	if err != nil {
		return CallOption{err: err}
	}
	return CallOption{clientIP: []string{a}}
}

var jsonMediaType = []string{"application/json"}

// fixedBody is a request body together with the members its variant fixes
// (a charge's method, a redirect charge's confirm), which the variant's Go
// type has no field for (x-openpay-sdk-writes in openapi.yaml). members is
// their JSON text, written before the body's own members.
type fixedBody struct {
	members string
	body    any
}

// MarshalJSON writes the fixed members, then the body's own as
// json.Marshal writes them (card data masked).
func (b fixedBody) MarshalJSON() ([]byte, error) {
	inner, err := json.Marshal(b.body)
	if err != nil {
		return nil, err
	}
	if len(inner) < 2 || inner[0] != '{' {
		return nil, fmt.Errorf("openpay: a %T is not a JSON object", b.body)
	}
	out := make([]byte, 0, len(b.members)+len(inner)+1)
	out = append(append(out, '{'), b.members...)
	if inner[1] != '}' {
		out = append(out, ',')
	}
	return append(out, inner[1:]...), nil
}

// wire is the body as the gateway must receive it, card data in clear.
func (b fixedBody) wire() any { return fixedBody{b.members, wireForm(b.body)} }

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
	// clientIP is the payer's address the request itself carries (a
	// charge's ClientIP), as the caller wrote it.
	clientIP string
	// publicKeyOK: creating a card or a token, the only calls a public
	// key may make (and the store lookup, which sends no key).
	publicKeyOK bool
	// noAuth: the call needs no credentials (the store lookup); the key is
	// not sent where it is not needed.
	noAuth bool
	// reconcilable: a state-changing request whose outcome the SDK can
	// settle (one carrying an order_id, or a refund), which the transport
	// may therefore retry after an unknown outcome.
	reconcilable bool
	// want describes the transaction a request carrying an order_id
	// creates: when its outcome is left open (an unknown outcome, a
	// duplicate order_id), the transaction is looked up by order_id and
	// returned if it is this request's own (reconcileTx).
	want txExpectation
	// merchantURL is the collection of want's transactions at the
	// merchant's scope, for a request made at a customer's: the holder of
	// an order_id may be another customer's.
	merchantURL string
	// refund describes a refund, which is never re-sent once it may have
	// reached the gateway: a read back of what it refunds settles it when
	// its outcome is left open (settleRefund).
	refund *refundCheck
	// opts are the caller's options for this call.
	opts []CallOption
}

// send performs r and decodes a 2xx body into out (see answer). Any other
// status, or a 2xx answer that is not the expected object, yields an
// *Error; no response yields a *TransportError. A reconcilable request
// whose outcome is left open is settled by reconcileTx, or settleRefund.
func (c *Client) send(ctx context.Context, r apiRequest, out any) error {
	var (
		info     *ResponseInfo
		clientIP []string
		optErr   error
	)
	for _, o := range r.opts {
		if o.info != nil {
			info = o.info
		}
		if o.clientIP != nil {
			clientIP = o.clientIP
		}
		if optErr == nil {
			optErr = o.err
		}
	}
	if info != nil {
		*info = ResponseInfo{}
	}
	if ctx == nil {
		return invalidArgument("openpay: nil context")
	}
	path := c.displayPath(r.url)
	if c.public && !r.publicKeyOK {
		return &Error{
			Category:    CategoryRequest,
			Code:        ErrPublicKeyNotAllowed,
			Description: "not sent: a public key may only create cards and tokens; use the private key, on a server",
			Method:      r.method,
			Path:        path,
		}
	}
	if optErr != nil {
		return optErr
	}
	if r.needsClientIP {
		if r.clientIP != "" {
			a, err := parseClientIP(r.clientIP)
			if err != nil {
				return err
			}
			if clientIP == nil {
				clientIP = []string{a}
			}
		}
		if clientIP == nil {
			clientIP = c.clientIP
		}
		if clientIP == nil {
			return ErrClientIPRequired
		}
	}
	resp, err := c.roundTrip(ctx, r, path, clientIP, out)
	if info != nil {
		var te *TransportError
		if errors.As(err, &te) && resp == nil {
			info.Attempts = te.Attempts
		} else if resp != nil {
			info.HTTPStatus, info.Attempts = resp.Status, len(resp.Attempts)
			info.RequestID = headerRequestID(resp, c.secrets)
			info.Header = resp.Header.Clone()
			var e *Error
			if errors.As(err, &e) && e.RequestID != "" {
				info.RequestID = e.RequestID
			}
		}
	}
	if (r.reconcilable || r.refund != nil) && (needsReconciling(err, resp) || r.refund != nil && r.refund.url != "" && errors.Is(err, ErrInvalidParameter)) {
		var status int
		if r.refund != nil {
			status, err = c.settleRefund(ctx, r, path, err, resp, out)
		} else {
			status, err = c.reconcileTx(ctx, r, path, err, resp, out)
		}
		if info != nil && status != 0 {
			info.HTTPStatus, info.Reconciled, info.Header = status, true, nil
		}
		return err
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		c.tr.Logger().LogAttrs(ctx, slog.LevelWarn, "openpay: outcome unknown",
			slog.String("method", r.method), slog.String("path", path), slog.String("error", err.Error()))
	}
	return err
}

// displayPath is the path of u, a URL below the base URL, as messages and
// logs show it: the whole path requested (a base URL's own path included),
// never the scheme, the host or the query.
func (c *Client) displayPath(u string) string {
	return transport.DisplayPath(strings.TrimPrefix(u, c.origin))
}

// roundTrip sends r with its retries and reads the final answer into out
// (see answer). resp is the final response, nil when none came (the error
// is then a *TransportError) or when the request could not be encoded.
func (c *Client) roundTrip(ctx context.Context, r apiRequest, path string, clientIP []string, out any) (*transport.Response, error) {
	// The value slices are shared by every request of the client: nothing
	// below writes into them.
	header := make(http.Header, 5)
	header["Accept"] = jsonMediaType
	header["Content-Type"] = jsonMediaType
	header["User-Agent"] = c.userAgentValue
	if !r.noAuth {
		header["Authorization"] = c.authValue
	}
	if clientIP != nil {
		header["X-Forwarded-For"] = clientIP
	}
	for _, o := range r.opts {
		for k, v := range o.header {
			header[k] = append(header[k], v...)
		}
	}
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(wireForm(r.body)); err != nil {
			return nil, fmt.Errorf("openpay: %s %s: encoding request: %w", r.method, path, err)
		}
	}
	if err := checkUTF8(r.method, path, body, r.query); err != nil {
		return nil, err
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
		if !errors.As(err, &te) {
			return nil, err
		}
		return nil, &TransportError{Method: r.method, Path: path, Attempts: len(te.Attempts), MayHaveReached: te.MayHaveReached(), Err: te.Err}
	}
	return resp, c.answer(r.method, path, resp, out)
}

// answer reads a response: a 2xx body decoded into out, or an *Error. Only
// calls that expect no body (out == nil: deletes, verification) may be
// answered with an empty one (or any JSON); any other 2xx answer must be
// the JSON of the expected object, with its id, or the call fails with an
// *Error carrying the status, the request id and an excerpt of the body. Such a failure on
// a call that changes state matches ErrOutcomeUnknown: the gateway may have
// acted.
func (c *Client) answer(method, path string, resp *transport.Response, out any) error {
	if resp.Status < 200 || resp.Status > 299 {
		e := decodeError(method, path, resp, c.secrets)
		if c.sandbox && e.Code == ErrUnauthorized {
			e.hint = "this client talks to the sandbox; production keys need WithProduction"
		}
		return e
	}
	b := bytes.TrimSpace(resp.Body)
	if out == nil {
		// Nothing to read, but a body that is not JSON (a proxy's page)
		// is not the gateway's answer.
		if len(b) == 0 || json.Valid(b) {
			return nil
		}
		return unusableAnswer(method, path, resp, "not JSON", c.secrets)
	}
	var why string
	var cause error
	switch {
	case len(b) == 0:
		why = "empty body"
	case bytes.Equal(b, []byte("null")):
		why = "null body"
	default:
		if err := json.Unmarshal(b, out); err != nil {
			// encoding/json quotes a value it could not decode, whole.
			cause = redactError(err, c.secrets)
			why = "not the expected JSON: " + cause.Error()
		} else if missingID(out) {
			why = "the object has no id"
		}
	}
	if why == "" {
		return nil
	}
	e := unusableAnswer(method, path, resp, why, c.secrets)
	e.cause = cause
	return e
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
				return "", ErrInvalidID
			}
			if !utf8.ValidString(s) {
				return "", &invalidUTF8Error{where: "an id"}
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
