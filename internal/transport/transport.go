// Package transport sends the SDK's HTTP requests: retries with
// go-retryablehttp under a policy written for payments, a record of every
// attempt (could it have reached the server?), debug logging without secrets,
// and a connection pool sized for concurrent callers.
//
// It knows nothing about resources; the openpay package builds requests and
// decodes responses. Nothing above it knows about retries.
package transport

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	retryablehttp "github.com/hashicorp/go-retryablehttp"
)

// Policy decides how failed attempts are retried.
type Policy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// WaitMin is the base of the exponential backoff.
	WaitMin time.Duration
	// WaitMax caps the backoff between two attempts.
	WaitMax time.Duration
	// RetryAfterMax caps how long a Retry-After header can make us wait
	// (zero: WaitMax).
	RetryAfterMax time.Duration
}

// DefaultPolicy is a small policy: a payment call should fail fast enough
// for its caller to decide what to do.
var DefaultPolicy = Policy{
	MaxRetries:    2,
	WaitMin:       250 * time.Millisecond,
	WaitMax:       4 * time.Second,
	RetryAfterMax: 10 * time.Second,
}

// errorRunes bounds the text of a failure in a log record.
const errorRunes = 300

// MaxResponseBytes bounds how much of a response body is read.
const MaxResponseBytes = 16 << 20

// Config builds a Transport.
type Config struct {
	// HTTPClient sends each attempt. Its Transport, Timeout (per attempt)
	// and CheckRedirect-free behaviour are used; nil gives a client from
	// NewHTTPTransport with Timeout.
	HTTPClient *http.Client
	// Timeout bounds one attempt when HTTPClient is nil or has no timeout.
	Timeout time.Duration
	Policy  Policy
	// Logger receives one debug record per attempt and per retry; nil
	// discards them. Records hold the method, the path (as DisplayPath
	// shows it, never the query), status, attempt number and timings: no
	// header, no body.
	Logger *slog.Logger
}

// Transport sends requests with retries. It is safe for concurrent use.
type Transport struct {
	rc     *retryablehttp.Client
	pool   *http.Transport // nil when the caller brought their own client
	logger *slog.Logger
}

// Request is one logical call.
type Request struct {
	Method string
	URL    string
	// Header is owned by the request from now on: it is sent as it is,
	// not copied, and must not be changed by the caller afterwards.
	Header http.Header
	// Body is sent identically on every attempt.
	Body []byte
	// Reconcilable marks a request that changes state but can be retried
	// after an unknown outcome, because its caller can find out whether an
	// earlier attempt took effect (a transaction with an order_id).
	Reconcilable bool
}

// Attempt describes one try of a Request.
type Attempt struct {
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Err is the failure of this attempt, nil when a response was read.
	Err error
	// MayHaveReached is false only when the request certainly never left
	// this process (no connection was established): a dial, DNS or TLS
	// handshake failure.
	MayHaveReached bool
}

// Response is the final answer to a Request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Attempts lists every attempt in order; the last one produced this
	// response.
	Attempts []Attempt
}

// EarlierMayHaveActed reports whether an attempt before the final one may
// have been carried out by the server, in which case the final answer (a
// duplicate order_id, a used token, a decline) may be about the request's
// own earlier attempt rather than the request itself.
func (r *Response) EarlierMayHaveActed() bool {
	for _, a := range r.Attempts[:len(r.Attempts)-1] {
		if a.MayHaveActed() {
			return true
		}
	}
	return false
}

// MayHaveActed reports whether the server may have carried out the request
// in this attempt: it may have received it and no complete answer came
// back, or it answered with a success or any server error (see
// StatusMayHaveActed).
func (a Attempt) MayHaveActed() bool {
	if a.Err != nil {
		return a.MayHaveReached
	}
	return StatusMayHaveActed(a.Status)
}

// ChangesState reports whether a request with this method may change
// something at the server: anything but a read (GET, HEAD). Whether such a
// request may be repeated, and whether a lost answer leaves its outcome
// unknown, both follow from it.
func ChangesState(method string) bool {
	return method != "" && method != http.MethodGet && method != http.MethodHead
}

// StatusMayHaveActed reports whether a server that answered a
// state-changing request with this status may have carried it out: a
// success, or any server error. No 5xx proves that nothing was done: a
// 502 or 504 comes from a proxy that may have passed the request on, a 500
// from a server that failed part way, and a 503 (the gateway's 1004, or a
// proxy's page) may be answered by a front after the gateway behind it
// acted. Only a 4xx, the gateway refusing the request, says it did nothing.
func StatusMayHaveActed(status int) bool {
	return status >= 500 || status >= 200 && status <= 299
}

// Error is returned when no usable response arrived.
type Error struct {
	Method string
	// Path is the URL path as DisplayPath shows it; the query string is
	// never kept.
	Path     string
	Attempts []Attempt
	// Err is the last failure, unwrapped from net/url's error (whose text
	// repeats the full URL).
	Err error
}

func (e *Error) Error() string {
	if len(e.Attempts) == 0 {
		return fmt.Sprintf("%s %s not sent: %v", e.Method, e.Path, e.Err)
	}
	return fmt.Sprintf("%s %s failed after %d attempt(s): %v", e.Method, e.Path, len(e.Attempts), e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// MayHaveReached reports whether any attempt may have reached the server.
func (e *Error) MayHaveReached() bool { return mayHaveReached(e.Attempts) }

func mayHaveReached(as []Attempt) bool {
	for _, a := range as {
		if a.MayHaveReached {
			return true
		}
	}
	return false
}

// NewHTTPTransport returns the tuned connection pool the SDK uses by
// default: many idle connections per host (Go's default of 2 serialises
// concurrent callers through new TLS handshakes), TLS 1.2 or later, and
// bounded dial and handshake times.
func NewHTTPTransport() *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
}

// New builds a Transport.
func New(cfg Config) *Transport {
	t := &Transport{logger: cfg.Logger}
	if t.logger == nil {
		t.logger = slog.New(slog.DiscardHandler)
	}
	var base http.RoundTripper
	timeout := cfg.Timeout
	if cfg.HTTPClient != nil {
		base = cfg.HTTPClient.Transport
		if cfg.HTTPClient.Timeout > 0 {
			timeout = cfg.HTTPClient.Timeout
		}
	}
	if base == nil {
		t.pool = NewHTTPTransport()
		base = t.pool
	}
	// The client below is private to the retry loop. Its RoundTripper has
	// no CloseIdleConnections method on purpose: go-retryablehttp closes
	// the idle connections of its client whenever a call gives up, which
	// would empty the shared pool under every other concurrent caller.
	hc := &http.Client{
		Transport: &attemptRecorder{base: base, logger: t.logger},
		Timeout:   timeout,
		// A payment API never redirects; following one could replay a POST.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	p := cfg.Policy
	t.rc = &retryablehttp.Client{
		HTTPClient:   hc,
		Logger:       nil, // it would log full URLs
		RetryWaitMin: p.WaitMin,
		RetryWaitMax: p.WaitMax,
		RetryMax:     max(p.MaxRetries, 0),
		CheckRetry:   t.checkRetry,
		Backoff:      backoff(cmp.Or(p.RetryAfterMax, p.WaitMax)),
		// Hand the final response back untouched: the default handler
		// discards the body, which holds the gateway's error object.
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	return t
}

// Logger returns the logger the transport writes to (never nil).
func (t *Transport) Logger() *slog.Logger { return t.logger }

// CloseIdleConnections closes the idle connections of the SDK's own pool.
func (t *Transport) CloseIdleConnections() {
	if t.pool != nil {
		t.pool.CloseIdleConnections()
	}
}

// callState follows one Request through its attempts. Attempts run one
// after another on the caller's goroutine, so it needs no lock.
type callState struct {
	id           uint64 // unique within the process (CallOf)
	maxAttempts  int
	method       string
	path         string
	idempotent   bool
	reconcilable bool
	// traced: the request changes state (anything but a read), so each
	// attempt records whether it obtained a connection.
	traced   bool
	attempts []Attempt
	// body is the final response's body, read by readResponse.
	body     []byte
	haveBody bool
	// buf backs attempts for the usual few attempts.
	buf [4]Attempt
	// connected records whether the current attempt obtained a
	// connection; trace sets it. Only requests that change state are
	// traced: for them it decides whether an attempt may be repeated.
	connected atomic.Bool
	trace     httptrace.ClientTrace
}

func (s *callState) gotConn(httptrace.GotConnInfo) { s.connected.Store(true) }

// readResponse is the response handler: it reads the body of a response
// that will not be retried, inside the retry loop, so that a body cut
// short counts as a failed attempt.
func (s *callState) readResponse(resp *http.Response) error {
	b, err := readBody(resp)
	if err != nil {
		s.last().Err = err
		return err
	}
	s.body, s.haveBody = b, true
	return nil
}

type callStateKey struct{}

func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(callStateKey{}).(*callState)
	return st
}

func (s *callState) last() *Attempt { return &s.attempts[len(s.attempts)-1] }

// callIDs numbers the calls of every Transport of the process.
var callIDs atomic.Uint64

// CallOf tells, for the request of an attempt that Do sends, which call it
// belongs to: the call's id (the same for all its attempts, unique within
// the process), the attempt's number (1 for the first) and the most
// attempts the policy allows. ok is false for a request Do did not send.
// The base RoundTripper reads it from its request's context; the test kit
// (openpaytest) uses it to count a call's retries as one call.
func CallOf(ctx context.Context) (id uint64, attempt, most int, ok bool) {
	st := stateOf(ctx)
	if st == nil {
		return 0, 0, 0, false
	}
	return st.id, len(st.attempts) + 1, st.maxAttempts, true
}

// Do sends req, retrying under the policy. It returns a Response for any
// HTTP status; an error means no usable response arrived and is an *Error.
func (t *Transport) Do(ctx context.Context, req *Request) (*Response, error) {
	st := &callState{
		id:           callIDs.Add(1),
		maxAttempts:  t.rc.RetryMax + 1,
		method:       req.Method,
		idempotent:   req.Method == http.MethodGet || req.Method == http.MethodHead || req.Method == http.MethodDelete,
		reconcilable: req.Reconcilable,
		traced:       ChangesState(req.Method),
	}
	st.attempts = st.buf[:0]
	ctx = context.WithValue(ctx, callStateKey{}, st)
	if st.traced {
		// One trace for all attempts: they run one after another, and
		// each resets connected before it starts.
		st.trace.GotConn = st.gotConn
		ctx = httptrace.WithClientTrace(ctx, &st.trace)
	}
	var body any
	if req.Body != nil {
		body = req.Body
	}
	rreq, err := retryablehttp.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return nil, &Error{Method: req.Method, Path: DisplayPath(pathOf(req.URL)), Err: errors.New("malformed request")}
	}
	st.path = DisplayPath(rreq.URL.Path)
	if req.Header != nil {
		// The caller hands the header over; it is not copied.
		rreq.Header = req.Header
	}
	rreq.SetResponseHandler(st.readResponse)

	resp, err := t.rc.Do(rreq)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		// err is the last attempt's failure, or the context's when it
		// ended during a backoff wait.
		return nil, &Error{Method: st.method, Path: st.path, Attempts: st.attempts, Err: unwrapURLError(err)}
	}
	if !st.haveBody {
		// The final response has a retryable status and the retries are
		// spent: the response handler did not run for it.
		if st.body, err = readBody(resp); err != nil {
			st.last().Err = err
			return nil, &Error{Method: st.method, Path: st.path, Attempts: st.attempts, Err: err}
		}
	}
	resp.Body.Close()
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: st.body, Attempts: st.attempts}, nil
}

var errBodyTooLarge = fmt.Errorf("response body larger than %d bytes", MaxResponseBytes)

// readBody reads a whole body, at most MaxResponseBytes, and closes it.
// When the length is announced the buffer is allocated once, at that size.
func readBody(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	cl := resp.ContentLength
	if cl < 0 || cl > MaxResponseBytes {
		// No usable length (a chunked answer): io.ReadAll grows its
		// buffer with less waste than appending would. One byte past the
		// limit tells a body that is too large.
		b, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
		if err != nil {
			return nil, fmt.Errorf("reading response body: %w", err)
		}
		if len(b) > MaxResponseBytes {
			return nil, errBodyTooLarge
		}
		return b, nil
	}
	b := make([]byte, 0, int(cl)+1) // +1 so that the final read sees EOF without growing
	for {
		if len(b) == cap(b) {
			if len(b) > MaxResponseBytes {
				return nil, errBodyTooLarge
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := resp.Body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading response body: %w", err)
		}
	}
	if len(b) > MaxResponseBytes {
		return nil, errBodyTooLarge
	}
	return b, nil
}

// attemptRecorder wraps the real RoundTripper, recording for each attempt
// whether a connection was obtained (after which the request may have
// reached the server) and logging it.
type attemptRecorder struct {
	base   http.RoundTripper
	logger *slog.Logger
}

func (a *attemptRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	st := stateOf(req.Context())
	// Reads are not traced (see callState.connected) and count as
	// possibly reached whatever happened.
	traced := st != nil && st.traced
	if err := req.Context().Err(); err != nil {
		// The context ended before this attempt began: nothing is sent,
		// and no attempt is counted.
		return nil, err
	}
	if traced {
		st.connected.Store(false)
	}
	start := time.Now()
	resp, err := a.base.RoundTrip(req)
	at := Attempt{Err: err, MayHaveReached: resp != nil || !traced || st.connected.Load()}
	if resp != nil {
		at.Status = resp.StatusCode
	}
	n := 1
	if st != nil {
		st.attempts = append(st.attempts, at)
		n = len(st.attempts)
	}
	if a.logger.Enabled(req.Context(), slog.LevelDebug) {
		attrs := []slog.Attr{
			slog.String("method", req.Method),
			slog.String("path", DisplayPath(req.URL.Path)),
			slog.Int("attempt", n),
			slog.Duration("elapsed", time.Since(start)),
		}
		if resp != nil {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		} else {
			// net/http quotes a malformed response line in its error, so
			// the text is the server's as much as ours.
			attrs = append(attrs, slog.String("error", Excerpt(unwrapURLError(err).Error(), errorRunes)),
				slog.Bool("may_have_reached", at.MayHaveReached))
		}
		a.logger.LogAttrs(req.Context(), slog.LevelDebug, "openpay: attempt", attrs...)
	}
	return resp, err
}

// checkRetry applies the retry policy and logs, at Warn, each retry it
// decides: a production logger shows that a call needed more than one try.
func (t *Transport) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	retry, cerr := checkRetry(ctx, resp, err)
	st := stateOf(ctx)
	// The policy is asked after the last attempt too; only a retry that
	// the retry budget allows is one.
	if retry && st != nil && len(st.attempts) <= t.rc.RetryMax && t.logger.Enabled(ctx, slog.LevelWarn) {
		at := st.last()
		attrs := []slog.Attr{slog.String("method", st.method), slog.String("path", st.path), slog.Int("attempt", len(st.attempts))}
		if at.Status != 0 {
			attrs = append(attrs, slog.Int("status", at.Status))
		}
		if at.Err != nil {
			attrs = append(attrs, slog.String("error", Excerpt(unwrapURLError(at.Err).Error(), errorRunes)), slog.Bool("may_have_reached", at.MayHaveReached))
		}
		t.logger.LogAttrs(ctx, slog.LevelWarn, "openpay: retrying", attrs...)
	}
	return retry, cerr
}

// checkRetry is the retry policy (see the package openpay documentation
// for the rules as a table).
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	st := stateOf(ctx)
	if st == nil || len(st.attempts) == 0 {
		return false, err
	}
	// A request that changes state may be repeated only when it certainly
	// did not reach the server, or when its caller can reconcile.
	repeatable := st.idempotent || st.reconcilable
	if err != nil {
		if !transient(err) {
			return false, nil
		}
		return repeatable || !st.last().MayHaveReached, nil
	}
	if !repeatable {
		return false, nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true, nil
	case http.StatusInternalServerError:
		// Only the gateway's own "try again" codes: 1000 internal error and
		// 1004 service unavailable. Any other 500 is left alone.
		code := peekErrorCode(resp)
		return code == 1000 || code == 1004, nil
	}
	return false, nil
}

// transient reports whether a transport failure is worth another attempt:
// not a certificate problem, a malformed URL or a body we refused to read.
func transient(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verify           *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname),
		errors.As(err, &invalid), errors.As(err, &verify):
		return false
	case errors.Is(err, errBodyTooLarge):
		return false
	}
	return true
}

// peekErrorCode reads the error_code of a JSON error body and puts the
// body back for whoever reads the response next.
func peekErrorCode(resp *http.Response) int {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	if err != nil {
		return 0
	}
	return errorCodeOf(b)
}

// errorCodeOf extracts error_code from an error body without a full decode
// (the openpay package owns the error type); 0 when absent.
func errorCodeOf(b []byte) int {
	i := bytes.Index(b, []byte(`"error_code"`))
	if i < 0 {
		return 0
	}
	rest := bytes.TrimLeft(b[i+len(`"error_code"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return 0
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n\"")
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(string(rest[:end]))
	return n
}

// backoff returns full-jitter exponential backoff (a random wait between
// zero and the exponential ceiling, which spreads retries of many clients
// apart), honouring Retry-After on 429 and 503 up to retryAfterMax.
func backoff(retryAfterMax time.Duration) retryablehttp.Backoff {
	return func(minWait, maxWait time.Duration, attemptNum int, resp *http.Response) time.Duration {
		if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
			if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
				return min(d, retryAfterMax)
			}
		}
		ceiling := maxWait
		if attemptNum < 63 && minWait <= maxWait>>attemptNum {
			// Compared before shifting: minWait<<attemptNum can overflow.
			ceiling = minWait << attemptNum
		}
		if ceiling <= 0 {
			return 0
		}
		return rand.N(ceiling + 1)
	}
}

// retryAfter parses a Retry-After value: seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		if s > int64(24*time.Hour/time.Second) {
			s = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// unwrapURLError drops net/url's wrapper, whose message repeats the whole
// URL including any query string.
func unwrapURLError(err error) error {
	var ue *url.Error
	for errors.As(err, &ue) {
		err = ue.Err
	}
	return err
}

func pathOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Path
	}
	return ""
}
