package openpay

// End-to-end tests of the client core (send, the transport, the retry
// policy, error decoding and redaction) against httptest servers that
// misbehave on purpose: refused dials, dropped connections, bodies cut
// short, HTML from a proxy, Retry-After headers asking for an hour.
//
// Every client built by newHarness logs at debug level into a buffer, and
// every call made through the harness has its error printed in every fmt
// form: both are checked for secrets (the key, its Basic encoding, the card
// number, the security code), so each scenario below is also a redaction
// test.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/h2non/gock.v1"
)

const (
	tpMerchant  = "mzdtln0bmtms6o3kck8f"
	tpKey       = "sk_e568c42a6c384b7ab02cd47d2e407cab"
	tpCard      = "4111111111111111"
	tpOrderID   = "oid-00052"
	tpRequestID = "1981cdb8-19cb-4bad-8256-e95d58bc035c"
	chargesPath = "/v1/" + tpMerchant + "/charges"
	chargePath  = chargesPath + "/tr6cxbcefzatd10guvvw"

	// tpTx is a charge as the gateway returns it.
	tpTx = `{"id":"tr6cxbcefzatd10guvvw","amount":100.00,"authorization":"801585","method":"card",` +
		`"operation_type":"in","transaction_type":"charge","status":"completed","currency":"MXN",` +
		`"creation_date":"2024-03-09T12:00:00-06:00","description":"Order 42","order_id":"oid-00052"}`
	// scriptDate is the scripted gateway's Date header: the moment tpTx
	// was created.
	scriptDate = "Sat, 09 Mar 2024 18:00:00 GMT"
	// dupOrder is the gateway's answer to a second charge with an order_id.
	dupOrder = `{"category":"request","error_code":1006,"description":"The order_id has already been processed",` +
		`"http_code":409,"request_id":"1981cdb8-19cb-4bad-8256-e95d58bc035c","fraud_rules":[]}`
	err1000 = `{"category":"internal","error_code":1000,"description":"Internal server error, contact support","http_code":500,"request_id":"r-1000"}`
	err1004 = `{"category":"internal","error_code":1004,"description":"Service unavailable","http_code":"503","request_id":"r-1004"}`
	err1001 = `{"category":"request","error_code":1001,"description":"cvv2 length must be 3 or 4","http_code":"500","request_id":"r-1001"}`
	// A proxy's page, not the gateway's.
	badGatewayPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n" +
		"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)

var tpBasic = base64.StdEncoding.EncodeToString([]byte(tpKey + ":"))

// cardBody is a charge with an inline card and no order_id: it cannot be
// reconciled, so it must never be repeated once it may have arrived.
func cardBody() map[string]any {
	return map[string]any{
		"method": "card", "amount": 100, "description": "Order 42", "device_session_id": "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f",
		"card": map[string]any{"card_number": tpCard, "holder_name": "Juan Perez Ramirez",
			"expiration_year": "30", "expiration_month": "12", "cvv2": "123"},
	}
}

// orderBody is the same charge carrying an order_id.
func orderBody() map[string]any {
	b := cardBody()
	b["order_id"] = tpOrderID
	return b
}

// forbidden are the strings that must appear in no log record and no error.
var forbidden = []string{
	tpKey, tpBasic, tpCard, `"cvv2":"123"`, `\"cvv2\":\"123\"`, "4111 1111 1111 1111", "4111-1111-1111-1111",
	tpKey[:12],   // the beginning of the key
	tpBasic[:16], // and of its encoding
	tpCard[:8],   // more of the card number than a receipt shows
	"q-secret",   // a query string value: paths are shown, queries never
}

func assertNoSecrets(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range forbidden {
		assert.NotContains(t, text, s, "%s shows a secret", where)
	}
}

// errorText prints err in every way a program might.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("%v|%+v|%#v|%s|%q", err, err, err, err, err)
}

// ---- the misbehaving server ----

// seenRequest is one request as the server received it.
type seenRequest struct {
	Method, Path, RawQuery, RequestURI, Body string
	Header                                   http.Header
}

// step answers one request.
type step func(w http.ResponseWriter, r *http.Request)

// scriptServer answers the n-th request with the n-th step (the last step
// answers every request after that) and records every request.
type scriptServer struct {
	*httptest.Server
	mu    sync.Mutex
	steps []step
	seen  []seenRequest
	// arrived receives the number of each request when it has been read.
	arrived chan int
}

func newScriptServer(t *testing.T, steps ...step) *scriptServer {
	require.NotEmpty(t, steps)
	s := &scriptServer{steps: steps, arrived: make(chan int, 4096)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *scriptServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.RequestURI, string(body), r.Header.Clone()})
	n := len(s.seen)
	st := s.steps[min(n, len(s.steps))-1]
	s.mu.Unlock()
	s.arrived <- n
	r.Body = io.NopCloser(bytes.NewReader(body)) // for a step that echoes it
	// The scripted gateway's clock stands at tpTx's creation, as the
	// gateway's Date header and the transactions it makes agree; a step
	// may set another.
	w.Header().Set("Date", scriptDate)
	st(w, r)
}

func (s *scriptServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.seen)
}

func (s *scriptServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.seen...)
}

// reply answers with a status, a body and header pairs (Content-Type is
// application/json unless given).
func reply(status int, body string, header ...string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func okReply(body string) step { return reply(http.StatusOK, body) }

func htmlPage(status int, page string) step {
	return reply(status, page, "Content-Type", "text/html; charset=utf-8")
}

// drop closes the connection after reading the request, without answering:
// the request reached the server, and its outcome is unknown to the client.
func drop() step {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// cutBody announces a body of `announced` bytes, sends only `sent`, then
// closes the connection.
func cutBody(status, announced int, sent string) step {
	return func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			status, http.StatusText(status), announced, sent)
		buf.Flush()
	}
}

// hang answers nothing until the client gives up.
func hang() step {
	return func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
}

// ---- the client under test ----

// fastPolicy retries quickly, so that the suite stays fast.
func fastPolicy(maxRetries int) RetryPolicy {
	return RetryPolicy{MaxRetries: maxRetries, WaitMin: time.Millisecond, WaitMax: 2 * time.Millisecond, RetryAfterMax: 5 * time.Millisecond}
}

// logSink collects the client's debug records and signals each attempt.
type logSink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	json    slog.Handler
	attempt chan struct{}
}

func newLogSink() *logSink {
	s := &logSink{attempt: make(chan struct{}, 1024)}
	s.json = slog.NewJSONHandler(lockedWriter{s}, &slog.HandlerOptions{Level: slog.LevelDebug})
	return s
}

type lockedWriter struct{ s *logSink }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.buf.Write(p)
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *logSink) Enabled(ctx context.Context, l slog.Level) bool { return s.json.Enabled(ctx, l) }
func (s *logSink) WithAttrs([]slog.Attr) slog.Handler             { return s }
func (s *logSink) WithGroup(string) slog.Handler                  { return s }
func (s *logSink) Handle(ctx context.Context, r slog.Record) error {
	err := s.json.Handle(ctx, r)
	select {
	case s.attempt <- struct{}{}:
	default:
	}
	return err
}

type harness struct {
	t    *testing.T
	c    *Client
	logs *logSink
}

// newHarness builds a client for base with the realistic key, a debug
// logger and fast retries; opts come after those and may replace them. The
// per-attempt timeout is far above what any answer here takes, so that a
// busy machine (-race, 10 MB hostile bodies) cannot turn an answer into a
// timeout; tests of hanging servers end them with their context.
func newHarness(t *testing.T, base string, opts ...Option) *harness {
	logs := newLogSink()
	all := append([]Option{WithBaseURL(base), WithRetryPolicy(fastPolicy(2)), WithTimeout(30 * time.Second),
		WithLogger(slog.New(logs))}, opts...)
	c, err := New(tpMerchant, tpKey, all...)
	require.NoError(t, err)
	t.Cleanup(func() {
		c.CloseIdleConnections()
		assertNoSecrets(t, "debug log", logs.String())
	})
	return &harness{t: t, c: c, logs: logs}
}

// call sends r (its url relative to the base URL) and checks its error
// for secrets.
func (h *harness) call(ctx context.Context, r apiRequest, out any, opts ...CallOption) error {
	h.t.Helper()
	r.url = h.c.baseURL + r.url
	r.opts = opts
	err := h.c.send(ctx, r, out)
	assertNoSecrets(h.t, "error", errorText(err))
	return err
}

func (h *harness) get(path string, out any) error {
	h.t.Helper()
	return h.call(context.Background(), apiRequest{method: http.MethodGet, url: path, query: url.Values{"q": {"q-secret"}}}, out)
}

// post sends a card charge; reconcilable says whether it carries an order_id.
func (h *harness) post(reconcilable bool, out any) error {
	h.t.Helper()
	body := cardBody()
	if reconcilable {
		body = orderBody()
	}
	return h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: body, reconcilable: reconcilable}, out)
}

type txOut struct {
	ID string `json:"id"`
}

// refusingDialer refuses the first `refuse` dials as a closed port does,
// then dials for real.
type refusingDialer struct {
	refuse int32
	dials  atomic.Int32
}

func (d *refusingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.dials.Add(1) <= d.refuse {
		return nil, &net.OpError{Op: "dial", Net: network, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *refusingDialer) client(t *testing.T) *http.Client {
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// ---- nothing reached the server ----

func TestDialRefusedThenSuccess(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodPost, http.MethodPut} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, okReply(tpTx))
			d := &refusingDialer{refuse: 1}
			h := newHarness(t, srv.URL, WithHTTPClient(d.client(t)))
			var out txOut
			err := h.call(context.Background(), apiRequest{method: method, url: chargesPath, body: cardBody()}, &out)
			require.NoError(t, err, "a request that never left may be sent again, order_id or not")
			assert.Equal(t, "tr6cxbcefzatd10guvvw", out.ID)
			assert.Equal(t, 1, srv.count(), "the server served exactly one request")
			assert.Equal(t, int32(2), d.dials.Load())
		})
	}
}

func TestDialAlwaysRefused(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		for _, maxRetries := range []int{0, 1, 2, 3} {
			t.Run(method+" "+strconv.Itoa(maxRetries), func(t *testing.T) {
				t.Parallel()
				srv := newScriptServer(t, okReply(tpTx))
				d := &refusingDialer{refuse: 1000}
				h := newHarness(t, srv.URL, WithHTTPClient(d.client(t)), WithRetryPolicy(fastPolicy(maxRetries)))
				r := apiRequest{method: method, url: chargePath}
				if method != http.MethodDelete {
					r.url, r.body = chargesPath, cardBody()
				}
				err := h.call(context.Background(), r, nil)
				var te *TransportError
				require.ErrorAs(t, err, &te)
				assert.Equal(t, 1+maxRetries, te.Attempts)
				assert.False(t, te.MayHaveReached)
				assert.NotErrorIs(t, err, ErrOutcomeUnknown, "the gateway certainly saw nothing")
				assert.ErrorIs(t, err, syscall.ECONNREFUSED)
				assert.Equal(t, method, te.Method)
				assert.Equal(t, r.url, te.Path)
				assert.Equal(t, 0, srv.count())
				assert.Equal(t, int32(1+maxRetries), d.dials.Load())
			})
		}
	}
}

// The same with the kernel's own refusal: a port with no listener.
func TestClosedPort(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	h := newHarness(t, "http://"+addr)
	err = h.post(false, nil)
	var te *TransportError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, 3, te.Attempts)
	assert.False(t, te.MayHaveReached)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
}

// A TLS handshake that fails is a failure before anything was sent. A
// certificate that is not trusted will not become trusted: no retry. A
// handshake cut by the peer may be retried, even for a POST.
func TestTLSFailures(t *testing.T) {
	t.Parallel()
	t.Run("untrusted certificate", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		var conns atomic.Int32
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshake is expected
		srv.StartTLS()
		t.Cleanup(srv.Close)
		hc := &http.Client{Transport: &http.Transport{}}
		h := newHarness(t, srv.URL, WithHTTPClient(hc))
		err := h.post(false, nil)
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 1, te.Attempts)
		assert.False(t, te.MayHaveReached)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		assert.Equal(t, int32(1), conns.Load())
	})
	t.Run("handshake cut", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { l.Close() })
		var accepted atomic.Int32
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				c.Close()
			}
		}()
		h := newHarness(t, "https://"+l.Addr().String())
		err = h.post(false, nil)
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 3, te.Attempts)
		assert.False(t, te.MayHaveReached)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		assert.Equal(t, int32(3), accepted.Load())
	})
}

// ---- which server errors are retried ----

func TestServerErrorRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		method       string
		reconcilable bool
		maxRetries   int
		steps        []step
		requests     int
		status       int // of the final *Error; 0 for success
		code         Code
	}{
		{"GET 500/1000 then 503/1004 then 200", "GET", false, 2,
			[]step{reply(500, err1000), reply(503, err1004), okReply(tpTx)}, 3, 0, 0},
		{"GET 500 with 1004", "GET", false, 2,
			[]step{reply(500, `{"category":"internal","error_code":1004,"description":"Service unavailable","http_code":500}`), okReply(tpTx)}, 2, 0, 0},
		{"GET 502 HTML, 504, 429, then 200", "GET", false, 3,
			[]step{htmlPage(502, badGatewayPage), reply(504, ``), reply(429, ``), okReply(tpTx)}, 4, 0, 0},
		{"DELETE 503 then 204", "DELETE", false, 2,
			[]step{reply(503, err1004), reply(204, ``)}, 2, 0, 0},
		{"GET 500 with another code", "GET", false, 2,
			[]step{reply(500, err1001), okReply(tpTx)}, 1, 500, ErrBadRequest},
		{"GET 500 HTML", "GET", false, 2,
			[]step{htmlPage(500, "<html><body>Internal Server Error</body></html>"), okReply(tpTx)}, 1, 500, 0},
		{"GET 500 empty", "GET", false, 2,
			[]step{reply(500, ``), okReply(tpTx)}, 1, 500, 0},
		{"GET 501", "GET", false, 2,
			[]step{reply(501, ``), okReply(tpTx)}, 1, 501, 0},
		{"GET 503 until the retries are spent", "GET", false, 2,
			[]step{reply(503, err1004)}, 3, 503, ErrServiceUnavailable},
		{"POST 500/1000 without order_id", "POST", false, 2,
			[]step{reply(500, err1000), okReply(tpTx)}, 1, 500, ErrInternalServer},
		{"POST 503/1004 without order_id", "POST", false, 2,
			[]step{reply(503, err1004), okReply(tpTx)}, 1, 503, ErrServiceUnavailable},
		{"POST 502 HTML without order_id", "POST", false, 2,
			[]step{htmlPage(502, badGatewayPage), okReply(tpTx)}, 1, 502, 0},
		{"POST 500/1000, 503, 502 with order_id", "POST", true, 3,
			[]step{reply(500, err1000), reply(503, err1004), htmlPage(502, badGatewayPage), okReply(tpTx)}, 4, 0, 0},
		{"PUT 503 without order_id", "PUT", false, 2,
			[]step{reply(503, err1004), okReply(tpTx)}, 1, 503, ErrServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, tt.steps...)
			h := newHarness(t, srv.URL, WithRetryPolicy(fastPolicy(tt.maxRetries)))
			r := apiRequest{method: tt.method, url: chargePath, reconcilable: tt.reconcilable}
			if tt.method == "POST" || tt.method == "PUT" {
				r.url, r.body = chargesPath, cardBody()
			}
			var out any = new(txOut)
			if tt.method == "DELETE" {
				out = nil // a delete is answered with no body
			}
			err := h.call(context.Background(), r, out)
			assert.Equal(t, tt.requests, srv.count(), "requests served")
			if tt.status == 0 {
				require.NoError(t, err)
				return
			}
			var oe *Error
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tt.status, oe.HTTPStatus)
			assert.Equal(t, tt.code, oe.Code)
		})
	}
}

// ---- Retry-After ----

func TestRetryAfterCapped(t *testing.T) {
	t.Parallel()
	inAnHour := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"seconds", []step{reply(429, ``, "Retry-After", "3600"), reply(503, err1004, "Retry-After", "3600"), okReply(tpTx)}},
		{"HTTP date", []step{reply(429, ``, "Retry-After", inAnHour), reply(503, err1004, "Retry-After", inAnHour), okReply(tpTx)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, tt.steps...)
			h := newHarness(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 2, WaitMax: time.Millisecond, RetryAfterMax: 20 * time.Millisecond}))
			ctx, cancel := context.WithTimeout(context.Background(), hangBound)
			defer cancel()
			var out txOut
			err := h.call(ctx, apiRequest{method: http.MethodGet, url: chargePath}, &out)
			require.NoError(t, err, "the hour asked for is capped at RetryAfterMax")
			assert.NoError(t, ctx.Err(), "the context's deadline did not fire")
			assert.Equal(t, 3, srv.count())
		})
	}
	// Below the cap, the server's wait is honoured: with an exponential
	// backoff of at most 1ms, only Retry-After can make the call last.
	t.Run("honoured", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(503, err1004, "Retry-After", "1"), okReply(tpTx))
		h := newHarness(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 1, WaitMax: time.Millisecond, RetryAfterMax: 150 * time.Millisecond}))
		start := time.Now()
		require.NoError(t, h.get(chargePath, nil))
		assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
		assert.Equal(t, 2, srv.count())
	})
}

// ---- client errors are final ----

func TestClientErrorsNeverRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status   int
		category Category
		code     Code
		desc     string
		fraud    []string
	}{
		{400, CategoryRequest, ErrBadRequest, "holder_name is required", nil},
		{401, CategoryRequest, ErrUnauthorized, "The api key or merchant id are invalid", nil},
		{402, CategoryGateway, ErrCardFraud, "The card was declined by the anti-fraud system",
			[]string{"Billing <> BIN Country for VISA/MC", "Monto excesivo por tarjeta"}},
		{403, CategoryRequest, ErrPublicKeyNotAllowed, "This operation requires the private key", nil},
		{404, CategoryRequest, ErrNotFound, "The requested resource doesn't exist", nil},
		{409, CategoryRequest, ErrDuplicateOrderID, "The order_id has already been processed", []string{}},
		{412, CategoryGateway, ErrCardNotSupportedOnline, "The card is not supported on online transactions", nil},
		{413, CategoryRequest, ErrRequestTooLarge, "Request entity too large", nil},
		{422, CategoryRequest, ErrInvalidParameter, "The card charge is on a final status", nil},
		{423, CategoryRequest, ErrAccountDeactivated, "The account is deactivated", nil},
	}
	calls := []struct {
		method       string
		reconcilable bool
	}{{"GET", false}, {"DELETE", false}, {"POST", false}, {"POST", true}, {"PUT", false}}
	for i, tt := range tests {
		for _, call := range calls {
			t.Run(fmt.Sprintf("%d %s reconcilable=%v", tt.status, call.method, call.reconcilable), func(t *testing.T) {
				t.Parallel()
				// http_code is a number in the samples and a string in the
				// field table: both decode.
				var httpCode any = tt.status
				if i%2 == 1 {
					httpCode = strconv.Itoa(tt.status)
				}
				body, err := json.Marshal(map[string]any{"category": tt.category, "error_code": int(tt.code), "description": tt.desc,
					"http_code": httpCode, "request_id": tpRequestID, "fraud_rules": tt.fraud})
				require.NoError(t, err)
				srv := newScriptServer(t, reply(tt.status, string(body)), okReply(tpTx))
				h := newHarness(t, srv.URL, WithRetryPolicy(fastPolicy(3)))
				r := apiRequest{method: call.method, url: chargePath, reconcilable: call.reconcilable}
				if call.method == "POST" {
					r.url, r.body = chargesPath, orderBody()
				}
				err = h.call(context.Background(), r, nil)
				if tt.code == ErrDuplicateOrderID && call.reconcilable {
					// Never retried, but looked up by order_id (issue 31).
					assert.Equal(t, 2, srv.count(), "one attempt, then the lookup")
				} else {
					assert.Equal(t, 1, srv.count(), "a 4xx is final")
				}
				var oe *Error
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, &Error{Category: tt.category, Code: tt.code, Description: tt.desc, HTTPStatus: tt.status,
					RequestID: tpRequestID, FraudRules: tt.fraud, Method: call.method, Path: r.url}, oe)
				assert.ErrorIs(t, err, tt.code)
				assert.ErrorIs(t, err, tt.category)
			})
		}
	}

	t.Run("the gateway's 1006 as it sends it", func(t *testing.T) {
		t.Parallel()
		// Since issue 31 a 1006 is always looked up: here no holder is
		// found among the charges, so another kind of transaction holds the
		// order_id, and the conflict carries the gateway's error.
		srv := newScriptServer(t, reply(409, dupOrder), okReply("[]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		err := h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true,
			want: txExpectation{orderID: tpOrderID, amount: MustAmount("100.00"), method: TransactionMethodCard}}, &tx)
		assert.Equal(t, 2, srv.count(), "the answer, then the lookup")
		var conflict *OrderConflictError
		require.ErrorAs(t, err, &conflict)
		assert.Nil(t, conflict.Existing)
		assert.ErrorIs(t, err, ErrDuplicateOrderID)
		assert.ErrorIs(t, err, CategoryRequest)
		assert.NotErrorIs(t, err, CategoryGateway)
		var oe *Error
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, 409, oe.HTTPStatus)
		assert.Equal(t, tpRequestID, oe.RequestID)
		assert.Equal(t, "The order_id has already been processed", oe.Description)
		assert.Empty(t, oe.FraudRules)
	})
	t.Run("request id from the header when the body has none", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(404, `{"category":"request","error_code":1005,"description":"The requested resource doesn't exist","http_code":"404"}`,
			"X-Request-Id", "hdr-77"))
		h := newHarness(t, srv.URL)
		var oe *Error
		require.ErrorAs(t, h.get(chargePath, nil), &oe)
		assert.Equal(t, "hdr-77", oe.RequestID)
		assert.Equal(t, ErrNotFound, oe.Code)
	})
	t.Run("429 for a POST without order_id", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(429, ``, "Retry-After", "0"), okReply(tpTx))
		h := newHarness(t, srv.URL)
		var oe *Error
		require.ErrorAs(t, h.post(false, nil), &oe)
		assert.Equal(t, 429, oe.HTTPStatus)
		assert.Equal(t, 1, srv.count())
	})
	t.Run("429 for a POST with order_id", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(429, ``, "Retry-After", "0"), okReply(tpTx))
		h := newHarness(t, srv.URL)
		require.NoError(t, h.post(true, nil))
		assert.Equal(t, 2, srv.count())
	})
	t.Run("a redirect is not followed", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(307, ``, "Location", "/elsewhere"), okReply(tpTx))
		h := newHarness(t, srv.URL)
		var oe *Error
		require.ErrorAs(t, h.post(false, nil), &oe)
		assert.Equal(t, 307, oe.HTTPStatus)
		assert.Equal(t, 1, srv.count(), "following it would send the charge again")
	})
}

// ---- the context ends during a backoff wait ----

// hangBound is how long a test waits for what should happen promptly: far
// longer than any scheduling delay on a busy machine, far shorter than the
// hour-long retry waits the tests set up, so only a call that waits such a
// backoff out, or a real hang or leak, reaches it.
const hangBound = 30 * time.Second

// returnsBeforeHangBound runs call and returns its error, failing the test if
// call has not returned within hangBound.
func returnsBeforeHangBound(t *testing.T, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangBound):
		t.Fatalf("the call had not returned after %v: it waited for the retry instead of ending with its context", hangBound)
		return nil
	}
}

func TestContextEndsDuringBackoff(t *testing.T) {
	t.Parallel()
	// The server asks for an hour, and the policy allows it: the only way
	// out of the wait is the context. Were the context ignored, the call
	// would wait the hour (caught by returnsBeforeHangBound); were
	// Retry-After ignored, the 1ms backoff would lead to the second
	// request and a success.
	hour := RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: time.Millisecond, RetryAfterMax: 2 * time.Hour}

	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(503, err1004, "Retry-After", "3600"), okReply(tpTx))
		h := newHarness(t, srv.URL, WithRetryPolicy(hour))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			<-srv.arrived
			<-h.logs.attempt // the client has the 503 and is about to wait
			cancel()
		}()
		err := returnsBeforeHangBound(t, func() error {
			return h.c.send(ctx, apiRequest{method: http.MethodGet, url: h.c.baseURL + chargePath}, nil)
		})
		assert.ErrorIs(t, err, context.Canceled)
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 1, te.Attempts)
		assertNoSecrets(t, "error", errorText(err))
		time.Sleep(50 * time.Millisecond) // room for a stray attempt to show
		assert.Equal(t, 1, srv.count(), "no attempt after the cancel")
	})

	t.Run("deadline", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(503, err1004, "Retry-After", "3600"), okReply(tpTx))
		h := newHarness(t, srv.URL, WithRetryPolicy(hour))
		// Long enough for the first attempt to be answered on a busy
		// machine, so that the deadline falls in the wait.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err := returnsBeforeHangBound(t, func() error {
			return h.c.send(ctx, apiRequest{method: http.MethodGet, url: h.c.baseURL + chargePath}, nil)
		})
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 1, te.Attempts)
		assertNoSecrets(t, "error", errorText(err))
		time.Sleep(50 * time.Millisecond) // room for a stray attempt to show
		assert.Equal(t, 1, srv.count(), "no attempt after the deadline")
	})

	// Cancelled while the POST is at the server: it may have been
	// processed, so the outcome is unknown, and the reason is kept.
	t.Run("cancel in flight", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, hang(), okReply(tpTx))
		h := newHarness(t, srv.URL, WithRetryPolicy(hour))
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-srv.arrived
			cancel()
		}()
		err := h.call(ctx, apiRequest{method: http.MethodPost, url: chargesPath, body: cardBody()}, nil)
		assert.ErrorIs(t, err, context.Canceled)
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.Equal(t, 1, srv.count())
	})

	t.Run("already ended", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, okReply(tpTx))
		h := newHarness(t, srv.URL)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var info ResponseInfo
		err := h.call(ctx, apiRequest{method: http.MethodPost, url: chargesPath, body: cardBody()}, nil, WithResponseInfo(&info))
		assert.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		assert.Equal(t, 0, srv.count())
		// Nothing was sent, and the error says so instead of counting an
		// attempt.
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Zero(t, te.Attempts)
		assert.Zero(t, info.Attempts)
		assert.Equal(t, "openpay: POST "+chargesPath+": not sent: context canceled", err.Error())

		// A read likewise.
		err = h.call(ctx, apiRequest{method: http.MethodGet, url: chargePath}, nil)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Contains(t, err.Error(), "not sent")
		assert.NotContains(t, err.Error(), "attempt")
		assert.Equal(t, 0, srv.count())
	})
}

// ---- the connection drops after the server read the request ----

func TestDroppedConnection(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodPost, http.MethodPut} {
		t.Run(method+" without order_id", func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, drop(), okReply(tpTx))
			h := newHarness(t, srv.URL)
			err := h.call(context.Background(), apiRequest{method: method, url: chargesPath, body: cardBody()}, nil)
			assert.Equal(t, 1, srv.count(), "never repeated: the first may have been processed")
			var te *TransportError
			require.ErrorAs(t, err, &te)
			assert.True(t, te.MayHaveReached)
			assert.Equal(t, 1, te.Attempts)
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.Contains(t, err.Error(), "outcome unknown")
		})
	}
	for _, tt := range []struct {
		name         string
		method       string
		reconcilable bool
		last         step
	}{
		{"POST with order_id", http.MethodPost, true, okReply(tpTx)},
		{"GET", http.MethodGet, false, okReply(tpTx)},
		{"DELETE", http.MethodDelete, false, reply(204, ``)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, drop(), tt.last)
			h := newHarness(t, srv.URL)
			r := apiRequest{method: tt.method, url: chargePath, reconcilable: tt.reconcilable}
			if tt.method == http.MethodPost {
				r.url, r.body = chargesPath, orderBody()
			}
			require.NoError(t, h.call(context.Background(), r, nil))
			assert.Equal(t, 2, srv.count())
		})
	}
	t.Run("GET dropped every time", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, drop())
		h := newHarness(t, srv.URL)
		err := h.get(chargePath, nil)
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Equal(t, 3, te.Attempts)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a read changes nothing")
		assert.Equal(t, 3, srv.count())
	})
}

// A charge with an order_id whose first attempt was dropped is retried;
// when the retry meets 1006 the SDK looks the charge up by order_id and
// returns it if it is this request's own.
func TestReconciliation(t *testing.T) {
	t.Parallel()
	want := txExpectation{orderID: tpOrderID, amount: MustAmount("100.00"), method: TransactionMethodCard, txType: TransactionTypeCharge}
	t.Run("found", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, drop(), reply(409, dupOrder), okReply("["+tpTx+"]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		err := h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true, want: want}, &tx)
		require.NoError(t, err)
		assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
		reqs := srv.requests()
		require.Len(t, reqs, 3)
		assert.Equal(t, http.MethodGet, reqs[2].Method)
		assert.Equal(t, chargesPath, reqs[2].Path)
		q, err := url.ParseQuery(reqs[2].RawQuery)
		require.NoError(t, err)
		assert.Equal(t, tpOrderID, q.Get("order_id"))
	})
	t.Run("someone else's", func(t *testing.T) {
		t.Parallel()
		other := strings.Replace(tpTx, `"amount":100.00`, `"amount":250.00`, 1)
		srv := newScriptServer(t, drop(), reply(409, dupOrder), okReply("["+other+"]"))
		h := newHarness(t, srv.URL)
		var tx Transaction
		err := h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(), reconcilable: true, want: want}, &tx)
		var ce *OrderConflictError
		require.ErrorAs(t, err, &ce)
		require.NotNil(t, ce.Existing)
		assert.Equal(t, "250.00", ce.Existing.Amount.String())
		assert.ErrorIs(t, err, ErrDuplicateOrderID)
		assert.Empty(t, tx.ID)
		assert.Equal(t, 3, srv.count())
	})
}

// ---- every attempt sends the same bytes ----

// recordingTransport sees each request as the client sends it.
type recordingTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

func TestSameBytesEveryAttempt(t *testing.T) {
	t.Parallel()
	srv := newScriptServer(t, reply(503, err1004), reply(503, err1004), okReply(tpTx))
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	rec := &recordingTransport{base: base}
	h := newHarness(t, srv.URL, WithHTTPClient(&http.Client{Transport: rec}), WithUserAgent("shop/2.1"))
	r := apiRequest{method: http.MethodPost, url: chargesPath, query: url.Values{"q": {"q-secret"}, "b": {"x y"}},
		body: orderBody(), reconcilable: true, needsClientIP: true}
	var out txOut
	require.NoError(t, h.call(context.Background(), r, &out, WithClientIP("203.0.113.7")))
	assert.Equal(t, "tr6cxbcefzatd10guvvw", out.ID)

	reqs := srv.requests()
	require.Len(t, reqs, 3)
	wantBody, err := json.Marshal(orderBody())
	require.NoError(t, err)
	type shape struct {
		Method, Path, RawQuery, Body                                       string
		Authorization, ContentType, UserAgent, ForwardedFor, ContentLength []string
	}
	shapeOf := func(s seenRequest) shape {
		return shape{s.Method, s.Path, s.RawQuery, s.Body, s.Header["Authorization"], s.Header["Content-Type"],
			s.Header["User-Agent"], s.Header["X-Forwarded-For"], s.Header["Content-Length"]}
	}
	first := shapeOf(reqs[0])
	assert.Equal(t, shape{
		Method: "POST", Path: chargesPath, RawQuery: "b=x+y&q=q-secret", Body: string(wantBody),
		Authorization: []string{"Basic " + tpBasic}, ContentType: []string{"application/json"},
		UserAgent:    []string{"shop/2.1 openpay-go/" + Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"},
		ForwardedFor: []string{"203.0.113.7"}, ContentLength: []string{strconv.Itoa(len(wantBody))},
	}, first)
	for i, s := range reqs {
		assert.Equal(t, first, shapeOf(s), "attempt %d", i+1)
		for _, name := range []string{"Idempotency-Key", "X-Idempotency-Key"} {
			assert.NotContains(t, s.Header, name, "attempt %d", i+1)
		}
		assert.NotContains(t, s.RequestURI, tpKey)
		assert.NotContains(t, s.RequestURI, "@")
	}
	// What the client handed to the HTTP transport: credentials only in the
	// header, nothing that lets net/http replay a POST on its own.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	require.Len(t, rec.reqs, 3)
	for _, req := range rec.reqs {
		assert.Nil(t, req.URL.User)
		assert.NotContains(t, req.URL.String(), tpKey)
		assert.NotContains(t, req.URL.String(), tpBasic)
		assert.Empty(t, req.Header.Values("Idempotency-Key"))
		assert.Empty(t, req.Header.Values("X-Idempotency-Key"))
	}
}

// ---- attempts follow the policy ----

func TestAttemptsFollowPolicy(t *testing.T) {
	t.Parallel()
	for _, maxRetries := range []int{0, 1, 2, 3} {
		t.Run(strconv.Itoa(maxRetries), func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, reply(503, err1004))
			h := newHarness(t, srv.URL, WithRetryPolicy(fastPolicy(maxRetries)))
			err := h.get(chargePath, nil)
			var oe *Error
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, 503, oe.HTTPStatus)
			assert.Equal(t, ErrServiceUnavailable, oe.Code)
			assert.Equal(t, "r-1004", oe.RequestID)
			assert.Equal(t, 1+maxRetries, srv.count())
		})
	}
}

// ---- bodies that are not the error object ----

func TestOpaqueErrorBodies(t *testing.T) {
	t.Parallel()
	bigPage := "<html><body>" + strings.Repeat("<p>upstream timed out while reading response header</p>\n", 2000) + "</body></html>"
	tests := []struct {
		name     string
		step     step
		status   int
		requests int
		contains string
	}{
		{"502 HTML page", htmlPage(502, badGatewayPage), 502, 2, "502 Bad Gateway"},
		{"500 empty", reply(500, ``), 500, 1, "empty response body"},
		{"400 truncated JSON", reply(400, `{"category":"request","error_code":1001,"descr`), 400, 1, `{"category":"request"`},
		{"404 another JSON shape", reply(404, `{"timestamp":"2024-03-09T12:00:00Z","status":404,"error":"Not Found","path":"/v1/x"}`), 404, 1, `"error":"Not Found"`},
		{"503 large page", htmlPage(503, bigPage), 503, 2, "upstream timed out"},
		{"401 plain text", reply(401, "Unauthorized\n", "Content-Type", "text/plain"), 401, 1, "Unauthorized"},
		{"422 JSON array", reply(422, `[1,2,3]`), 422, 1, "[1,2,3]"},
		{"400 invalid UTF-8", reply(400, "bad \xff\xfe body"), 400, 1, "bad ?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, tt.step)
			h := newHarness(t, srv.URL, WithRetryPolicy(fastPolicy(1)))
			err := h.get(chargePath, nil)
			var oe *Error
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tt.status, oe.HTTPStatus)
			assert.Equal(t, Code(0), oe.Code)
			assert.Equal(t, Category(""), oe.Category)
			assert.Contains(t, oe.Description, tt.contains)
			assert.LessOrEqual(t, utf8.RuneCountInString(oe.Description), 300, "a short excerpt")
			assert.True(t, utf8.ValidString(oe.Description))
			assert.Equal(t, tt.requests, srv.count())
			assert.Contains(t, err.Error(), "HTTP "+strconv.Itoa(tt.status))
		})
	}

	t.Run("200 truncated", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, okReply(`{"id":"tr6cxbcefzatd10guvvw","amount":10`))
		h := newHarness(t, srv.URL)
		var out txOut
		var err error
		require.NotPanics(t, func() { err = h.get(chargePath, &out) })
		var oe *Error
		require.ErrorAs(t, err, &oe, "a typed error with the status")
		assert.Equal(t, 200, oe.HTTPStatus)
		assert.Contains(t, oe.Description, "not the expected JSON")
		assert.Contains(t, oe.Description, `{"id":"tr6cxbcefzatd10guvvw","amount":10`)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a read changes nothing")
		assert.Equal(t, 1, srv.count())
	})

	t.Run("body cut, GET", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, cutBody(200, len(tpTx), tpTx[:40]), okReply(tpTx))
		h := newHarness(t, srv.URL)
		var out txOut
		require.NoError(t, h.get(chargePath, &out))
		assert.Equal(t, "tr6cxbcefzatd10guvvw", out.ID)
		assert.Equal(t, 2, srv.count())
	})
	t.Run("body cut, POST without order_id", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, cutBody(200, len(tpTx), tpTx[:40]), okReply(tpTx))
		h := newHarness(t, srv.URL)
		err := h.post(false, nil)
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.True(t, te.MayHaveReached)
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		assert.Equal(t, 1, srv.count())
	})
	t.Run("error body cut, GET", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, cutBody(404, len(err1001)+50, err1001))
		h := newHarness(t, srv.URL)
		var te *TransportError
		require.ErrorAs(t, h.get(chargePath, nil), &te)
		assert.Equal(t, 3, te.Attempts, "a cut body is no answer: the read is tried again")
		assert.Equal(t, 3, srv.count())
	})
}

// ---- failures leave nothing behind ----

// Not parallel: it counts the process's goroutines.
func TestFailuresLeaveNothingBehind(t *testing.T) {
	var (
		mu     sync.Mutex
		states = map[net.Conn]http.ConnState{}
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/v1/" + tpMerchant + "/unavailable":
			reply(503, err1004)(w, r)
		case "/v1/" + tpMerchant + "/drop":
			drop()(w, r)
		default:
			htmlPage(502, badGatewayPage)(w, r)
		}
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		mu.Lock()
		states[c] = s
		mu.Unlock()
	}
	srv.Start()
	t.Cleanup(srv.Close)
	countStates := func() map[http.ConnState]int {
		mu.Lock()
		defer mu.Unlock()
		n := map[http.ConnState]int{}
		for _, s := range states {
			n[s]++
		}
		return n
	}
	// eventually polls cond for up to hangBound: closing connections and
	// ending goroutines can lag on a busy machine, a leak never ends.
	eventually := func(cond func() bool) bool {
		for deadline := time.Now().Add(hangBound); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if cond() {
				return true
			}
		}
		return cond()
	}

	runtime.GC()
	baseline := runtime.NumGoroutine()

	// The SDK's own pool, so that CloseIdleConnections reaches it.
	noRetry, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL), WithRetryPolicy(fastPolicy(0)))
	require.NoError(t, err)
	retry, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL), WithRetryPolicy(RetryPolicy{MaxRetries: 1}))
	require.NoError(t, err)

	const calls, workers = 1000, 8
	var failed atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			for i := w; i < calls; i += workers {
				var err error
				switch i % 4 {
				case 0: // 503, no retries
					err = noRetry.send(ctx, apiRequest{method: http.MethodGet, url: noRetry.baseURL + "/v1/" + tpMerchant + "/unavailable"}, nil)
				case 1: // dropped, a read: retried once
					err = retry.send(ctx, apiRequest{method: http.MethodGet, url: retry.baseURL + "/v1/" + tpMerchant + "/drop"}, nil)
				case 2: // dropped, a charge: outcome unknown
					err = retry.send(ctx, apiRequest{method: http.MethodPost, url: retry.baseURL + "/v1/" + tpMerchant + "/drop", body: cardBody()}, nil)
				case 3: // a proxy's page, for a charge
					err = retry.send(ctx, apiRequest{method: http.MethodPost, url: retry.baseURL + chargesPath, body: cardBody()}, nil)
				}
				if err != nil {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(calls), failed.Load(), "every call failed")

	assert.True(t, eventually(func() bool { return countStates()[http.StateActive] == 0 }),
		"no server connection is left active: %v", countStates())
	noRetry.CloseIdleConnections()
	retry.CloseIdleConnections()
	assert.True(t, eventually(func() bool {
		n := countStates()
		return n[http.StateNew] == 0 && n[http.StateActive] == 0 && n[http.StateIdle] == 0
	}), "every connection is closed once the client closes its idle ones: %v", countStates())

	var now int
	assert.True(t, eventually(func() bool {
		now = runtime.NumGoroutine()
		return now <= baseline+3
	}), "goroutines: %d before, %d after", baseline, now)
}

// ---- secrets ----

// Servers that echo what they received, through every path that turns a
// response into an error.
func TestSecretsNeverShown(t *testing.T) {
	t.Parallel()
	echoed := "card_number " + tpCard + ", " + `"cvv2":"123"` + ", Authorization: Basic " + tpBasic + ", key " + tpKey
	echoJSON, err := json.Marshal(map[string]any{"category": "request", "error_code": 1001,
		"description": "Invalid request " + echoed, "http_code": "400", "request_id": "r-echo"})
	require.NoError(t, err)
	sent, err := json.Marshal(cardBody())
	require.NoError(t, err)
	quoted, err := json.Marshal(string(sent)) // the request body inside a JSON string
	require.NoError(t, err)
	echoPage := "<html><body><h1>400 Bad Request</h1><pre>POST " + chargesPath + " HTTP/1.1\r\nAuthorization: Basic " + tpBasic +
		"\r\n\r\n" + string(sent) + "</pre><p>" + echoed + "</p></body></html>"

	steps := map[string][]step{
		"gateway error echoing":    {reply(400, string(echoJSON))},
		"401 with the key":         {reply(401, `{"category":"request","error_code":1002,"description":"The api key `+tpKey+` or merchant id are invalid","http_code":401}`)},
		"HTML echoing the request": {htmlPage(400, echoPage)},
		"truncated JSON, quoted":   {reply(400, `{"category":"request","description":"bad body `+string(quoted))},
		"JSON of another shape":    {reply(404, `{"request":`+string(sent)+`,"headers":{"Authorization":["Basic `+tpBasic+`"]}}`)},
		"dropped":                  {drop()},
		"cut":                      {cutBody(200, 900, `{"echo":"`+echoed)},
		"503 then 200":             {reply(503, string(echoJSON)), okReply(tpTx)},
		"200 truncated echo":       {okReply(`{"card_number":"` + tpCard + `","cvv2":"123"`)},
	}
	for name, st := range steps {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, st...)
			h := newHarness(t, srv.URL)
			// Each call is checked by the harness: the error in every fmt
			// form, and at cleanup the debug log.
			for _, reconcilable := range []bool{false, true} {
				h.post(reconcilable, nil)
			}
			h.get(chargePath, nil)
			h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: cardBody(), needsClientIP: true}, nil,
				WithClientIP("2001:db8::1"))
			assert.NotEmpty(t, h.logs.String(), "the debug log was written")
			var oe *Error
			if errors.As(h.get(chargePath, nil), &oe) {
				// Fields read one by one, as a program might log them.
				assertNoSecrets(t, "error fields", fmt.Sprint(oe.Description, oe.RequestID, oe.FraudRules, oe.Path))
			}
		})
	}

	// Indentation collapses to single spaces in an excerpt, which brings
	// text from far into the body into view; wherever a key or a card
	// number sits, none of it shows.
	t.Run("indented pages", func(t *testing.T) {
		t.Parallel()
		var pages []step
		for indent := 1500; indent < 1700; indent += 5 {
			for _, secret := range []string{"api key " + tpKey, "card " + tpCard} {
				pages = append(pages, htmlPage(502, "<html>"+strings.Repeat(" ", indent)+"<p>"+secret+"</p>"+strings.Repeat("\n  <br>", 400)))
			}
		}
		srv := newScriptServer(t, pages...)
		h := newHarness(t, srv.URL, WithRetryPolicy(fastPolicy(0)))
		for range pages {
			var oe *Error
			require.ErrorAs(t, h.get(chargePath, nil), &oe)
			assert.Equal(t, 502, oe.HTTPStatus)
		}
		assert.Equal(t, len(pages), srv.count())
	})

	t.Run("refused dials and an ended context", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(503, err1004, "Retry-After", "3600"))
		d := &refusingDialer{refuse: 1000}
		h := newHarness(t, srv.URL, WithHTTPClient(d.client(t)))
		h.post(false, nil)
		h2 := newHarness(t, srv.URL, WithRetryPolicy(RetryPolicy{MaxRetries: 1, RetryAfterMax: time.Hour}))
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		assert.ErrorIs(t, h2.call(ctx, apiRequest{method: http.MethodGet, url: chargePath, query: url.Values{"q": {"q-secret"}}}, nil),
			context.DeadlineExceeded)
	})

	t.Run("the client itself", func(t *testing.T) {
		t.Parallel()
		for _, key := range []string{tpKey, "pk_" + tpKey[3:]} {
			c, err := New(tpMerchant, key)
			require.NoError(t, err)
			var out bytes.Buffer
			fmt.Fprintf(&out, "%v %+v %#v %s", c, c, c, c)
			slog.New(slog.NewTextHandler(&out, nil)).Info("client", "c", c)
			slog.New(slog.NewJSONHandler(&out, nil)).Info("client", "c", c)
			assertNoSecrets(t, "printed client", out.String())
			assert.NotContains(t, out.String(), key[3:], "not even without its prefix")
			assert.Contains(t, out.String(), tpMerchant)
		}
	})
}

// ---- refused before sending ----

func TestRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	t.Run("public key", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, okReply(tpTx))
		pk := "pk_" + tpKey[3:]
		c, err := New(tpMerchant, pk, WithBaseURL(srv.URL))
		require.NoError(t, err)
		err = c.send(context.Background(), apiRequest{method: http.MethodPost, url: c.baseURL + chargesPath, body: cardBody()}, nil)
		assert.ErrorIs(t, err, ErrPublicKeyNotAllowed)
		var oe *Error
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, 0, oe.HTTPStatus, "not sent")
		assert.NotContains(t, err.Error(), pk)
		assert.Equal(t, 0, srv.count())

		// Creating a token is what a public key is for.
		tokens := "/v1/" + tpMerchant + "/tokens"
		require.NoError(t, c.send(context.Background(), apiRequest{method: http.MethodPost, url: c.baseURL + tokens, body: cardBody(), publicKeyOK: true}, nil))
		reqs := srv.requests()
		require.Len(t, reqs, 1)
		assert.Equal(t, tokens, reqs[0].Path)
		assert.Equal(t, "Basic "+base64.StdEncoding.EncodeToString([]byte(pk+":")), reqs[0].Header.Get("Authorization"))
	})

	t.Run("client IP", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, okReply(tpTx))
		h := newHarness(t, srv.URL)
		charge := apiRequest{method: http.MethodPost, url: chargesPath, body: cardBody(), needsClientIP: true}

		assert.ErrorIs(t, h.call(context.Background(), charge, nil), ErrClientIPRequired)
		for _, bad := range []string{"", "203.0.113.300", "not-an-ip", "203.0.113.7, 10.0.0.1", "[203.0.113.7]:80", "203.0.113.7\r\nX-Evil: 1"} {
			err := h.call(context.Background(), charge, nil, WithClientIP(bad))
			require.Error(t, err, "%q", bad)
			assert.Contains(t, err.Error(), "client IP")
		}
		assert.Equal(t, 0, srv.count(), "nothing was sent")

		for in, want := range map[string]string{
			"203.0.113.7":          "203.0.113.7",
			" 198.51.100.23 ":      "198.51.100.23",
			"2001:DB8::1":          "2001:db8::1",
			"2001:db8:0:0:0:0:0:2": "2001:db8::2",
			"::ffff:203.0.113.9":   "203.0.113.9",
			"198.51.100.24:52814":  "198.51.100.24", // http.Request.RemoteAddr
			"[2001:db8::3]:443":    "2001:db8::3",
		} {
			before := srv.count()
			require.NoError(t, h.call(context.Background(), charge, nil, WithClientIP(in)))
			reqs := srv.requests()
			require.Len(t, reqs, before+1)
			assert.Equal(t, []string{want}, reqs[before].Header.Values("X-Forwarded-For"), "%q", in)
		}

		// The client's default, and a call's own address over it.
		hd := newHarness(t, srv.URL, WithDefaultClientIP("192.0.2.1"))
		before := srv.count()
		require.NoError(t, hd.call(context.Background(), charge, nil))
		require.NoError(t, hd.call(context.Background(), charge, nil, WithClientIP("192.0.2.2")))
		// Calls that need no address send none.
		require.NoError(t, hd.get(chargePath, nil))
		reqs := srv.requests()[before:]
		require.Len(t, reqs, 3)
		assert.Equal(t, "192.0.2.1", reqs[0].Header.Get("X-Forwarded-For"))
		assert.Equal(t, "192.0.2.2", reqs[1].Header.Get("X-Forwarded-For"))
		assert.Empty(t, reqs[2].Header.Values("X-Forwarded-For"))

		_, err := New(tpMerchant, tpKey, WithDefaultClientIP("999.1.1.1"))
		assert.Error(t, err)
	})
}

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	_, err := New(tpMerchant, tpKey, WithProduction(), WithBaseURL("http://api.openpay.mx"))
	assert.ErrorContains(t, err, "https")
	c, err := New(tpMerchant, tpKey, WithProduction())
	require.NoError(t, err)
	assert.Equal(t, "https://api.openpay.mx", c.baseURL)
	_, err = New(tpMerchant, tpKey, WithProduction(), WithBaseURL("https://proxy.example:8443/openpay/"))
	assert.NoError(t, err)
	// The SDK adds /v1 itself: a base URL that ends with it would make
	// every path /v1/v1/... and every call a 404.
	for _, base := range []string{"https://sandbox-api.openpay.mx/v1", "https://sandbox-api.openpay.mx/v1/", "http://127.0.0.1:8080/openpay/v1"} {
		_, err := New(tpMerchant, tpKey, WithBaseURL(base))
		require.Error(t, err, "base %q", base)
		assert.ErrorContains(t, err, "/v1")
	}
	_, err = New(tpMerchant, tpKey, WithBaseURL("https://sandbox-api.openpay.mx/v1"))
	assert.EqualError(t, err, "openpay: base URL must stop before the API version: the SDK adds /v1 to every path (use https://sandbox-api.openpay.mx)")
	_, err = New(tpMerchant, tpKey, WithBaseURL("https://proxy.example/v10"))
	assert.NoError(t, err, "only a last segment of exactly v1 is refused")

	for _, id := range []string{"", "mzdtln0bmtms6o3kck8f/../x", "has space", "mzdtln0bmtms6o3kck8f?x=1", strings.Repeat("m", 46), "m\u00e9rchant"} {
		_, err := New(id, tpKey)
		require.Error(t, err, "merchant id %q", id)
		assert.NotContains(t, err.Error(), tpKey)
	}
	for _, key := range []string{"", tpKey + " ", " " + tpKey, tpKey + ":", tpKey + "\n", "sk_ñ" + tpKey[4:], strings.Repeat("k", 201)} {
		_, err := New(tpMerchant, key)
		require.Error(t, err, "key %q", key)
		if key != "" {
			assert.NotContains(t, err.Error(), strings.TrimSpace(key))
			assert.NotContains(t, err.Error(), tpKey[3:20])
		}
	}
	for _, base := range []string{"ftp://x", "//x", "http://", "http://" + tpKey + "@api.example", "https://api.example/?k=" + tpKey} {
		_, err := New(tpMerchant, tpKey, WithBaseURL(base))
		require.Error(t, err, "base %q", base)
		assert.NotContains(t, err.Error(), tpKey)
	}
}

// ---- a canned exchange, with gock ----

// Not parallel: gock's mocks are global.
func TestRequestShapeWithGock(t *testing.T) {
	gock.CleanUnmatchedRequest()
	t.Cleanup(gock.OffAll)
	hc := &http.Client{}
	gock.InterceptClient(hc) // before New, which takes hc's transport
	t.Cleanup(func() { gock.RestoreClient(hc) })
	const base = "https://sandbox-api.openpay.test"
	h := newHarness(t, base, WithHTTPClient(hc), WithRetryPolicy(fastPolicy(2)))

	noIdempotencyKey := func(req *http.Request, _ *gock.Request) (bool, error) {
		return req.Header.Get("Idempotency-Key") == "" && req.Header.Get("X-Idempotency-Key") == "", nil
	}
	gock.New(base).
		Post(chargesPath).
		MatchHeader("Authorization", "^"+regexp.QuoteMeta("Basic "+tpBasic)+"$").
		MatchType("json"). // gock compares the body's type literally
		MatchHeader("Accept", "^application/json$").
		MatchHeader("X-Forwarded-For", `^203\.0\.113\.7$`).
		MatchHeader("User-Agent", "^openpay-go/"+regexp.QuoteMeta(Version)+" ").
		AddMatcher(noIdempotencyKey).
		JSON(orderBody()).
		Reply(200).
		BodyString(tpTx)
	gock.New(base).
		Get(chargesPath).
		MatchParam("order_id", "^"+tpOrderID+"$").
		MatchParam("limit", "^10$").
		AddMatcher(noIdempotencyKey).
		Reply(200).
		BodyString("[" + tpTx + "]")
	gock.New(base).
		Get(chargePath).
		Reply(409).
		BodyString(dupOrder)

	var tx Transaction
	require.NoError(t, h.call(context.Background(), apiRequest{method: http.MethodPost, url: chargesPath, body: orderBody(),
		reconcilable: true, needsClientIP: true}, &tx, WithClientIP("203.0.113.7")))
	assert.Equal(t, "tr6cxbcefzatd10guvvw", tx.ID)
	assert.Equal(t, "100.00", tx.Amount.String())

	var page []Transaction
	require.NoError(t, h.call(context.Background(), apiRequest{method: http.MethodGet, url: chargesPath,
		query: url.Values{"order_id": {tpOrderID}, "limit": {"10"}}}, &page))
	require.Len(t, page, 1)
	assert.Equal(t, tpOrderID, page[0].OrderID)

	err := h.call(context.Background(), apiRequest{method: http.MethodGet, url: chargePath}, nil)
	var oe *Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, &Error{Category: CategoryRequest, Code: ErrDuplicateOrderID, Description: "The order_id has already been processed",
		HTTPStatus: 409, RequestID: tpRequestID, FraudRules: []string{}, Method: "GET", Path: chargePath}, oe)

	assert.True(t, gock.IsDone(), "every canned exchange happened")
	assert.False(t, gock.HasUnmatchedRequest(), "no request differed from its canned shape")
}

// An error shows the whole path requested, a base URL's own path included,
// so that a proxy prefix or a doubled segment is visible.
func TestErrorShowsPathRequested(t *testing.T) {
	t.Parallel()
	srv := newScriptServer(t, reply(404, `{"category":"request","error_code":1005,"description":"not found","http_code":404}`))
	h := newHarness(t, srv.URL+"/openpay")
	err := h.call(context.Background(), apiRequest{method: http.MethodGet, url: chargePath}, nil)
	var oe *Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "/openpay"+chargePath, oe.Path)
	assert.Contains(t, err.Error(), "GET /openpay"+chargePath+":")
	assert.Equal(t, "/openpay"+chargePath, srv.requests()[0].Path)
}

// rtFunc answers requests without a network (package openpay_test has
// its own roundTripFunc).
type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A 1002 from a sandbox host says that production keys need
// WithProduction; elsewhere the gateway's text stands alone.
func TestUnauthorizedOnSandboxSaysSo(t *testing.T) {
	t.Parallel()
	unauthorized := rtFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 401, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
			Body: io.NopCloser(strings.NewReader(`{"category":"request","error_code":1002,"description":"The api key or merchant id are invalid","http_code":401}`))}, nil
	})
	hint := "this client talks to the sandbox; production keys need WithProduction"
	for _, tc := range []struct {
		opts []Option
		hint bool
	}{
		{nil, true},
		{[]Option{WithCountry(CountryColombia)}, true},
		{[]Option{WithProduction()}, false},
		{[]Option{WithBaseURL("https://proxy.example")}, false},
	} {
		c, err := New(tpMerchant, tpKey, append(tc.opts, WithHTTPClient(&http.Client{Transport: unauthorized}))...)
		require.NoError(t, err)
		_, err = c.Charges.Get(context.Background(), "tr0000000000000000000")
		require.ErrorIs(t, err, ErrUnauthorized)
		if tc.hint {
			assert.Contains(t, err.Error(), hint, "%s", c)
		} else {
			assert.NotContains(t, err.Error(), "WithProduction", "%s", c)
		}
	}
}
