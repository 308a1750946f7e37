package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The end-to-end behaviour of retries is tested in package openpay
// (transport_test.go there) against misbehaving servers; the tables here
// pin the pieces: the decision, the wait, and the parsing they rely on.

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 3, 9, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 120 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"0", 0, true},
		{"3600", time.Hour, true},
		{"99999999999", 24 * time.Hour, true}, // an absurd value is bounded before any cap
		{"Sat, 09 Mar 2024 12:00:30 GMT", 30 * time.Second, true},
		{"Saturday, 09-Mar-24 12:01:00 GMT", time.Minute, true}, // RFC 850
		{"Sat Mar  9 12:00:05 2024", 5 * time.Second, true},     // ANSI C
		{"Sat, 09 Mar 2024 11:00:00 GMT", 0, true},              // in the past: no wait
		{"-1", 0, false},
		{"-3600", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"", 0, false},
		{"  ", 0, false},
		{"9223372036854775808", 0, false}, // overflows int64
	}
	for _, tt := range tests {
		got, ok := retryAfter(tt.in, now)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}

func respWith(status int, retryAfter string) *http.Response {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &http.Response{StatusCode: status, Header: h, Body: http.NoBody}
}

func TestBackoffRetryAfter(t *testing.T) {
	t.Parallel()
	const capAt = 20 * time.Millisecond
	b := backoff(capAt)
	minW, maxW := time.Millisecond, 4*time.Millisecond

	// Honoured on 429 and 503, up to the cap.
	for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
		assert.Equal(t, capAt, b(minW, maxW, 0, respWith(status, "3600")), "%d seconds form", status)
		date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		assert.Equal(t, capAt, b(minW, maxW, 0, respWith(status, date)), "%d date form", status)
		assert.Equal(t, time.Duration(0), b(minW, maxW, 0, respWith(status, "0")), "%d zero", status)
	}
	// Below the cap the server's value is used as it is.
	long := backoff(time.Minute)
	assert.Equal(t, 2*time.Second, long(minW, maxW, 0, respWith(http.StatusTooManyRequests, "2")))
	date := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	got := long(minW, maxW, 0, respWith(http.StatusServiceUnavailable, date))
	// Honoured, not capped or ignored (at most maxW); the lower bound leaves
	// room for a slow machine between the date and the call.
	assert.Greater(t, got, 10*time.Second, "HTTP date about 30s ahead")
	assert.LessOrEqual(t, got, 30*time.Second)

	// Ignored on other statuses, and when negative or garbage: the
	// exponential backoff applies instead.
	for _, resp := range []*http.Response{
		respWith(http.StatusBadGateway, "3600"),
		respWith(http.StatusInternalServerError, "3600"),
		respWith(http.StatusGatewayTimeout, "3600"),
		respWith(http.StatusTooManyRequests, "-5"),
		respWith(http.StatusTooManyRequests, "soon"),
		respWith(http.StatusServiceUnavailable, "1.5"),
		respWith(http.StatusServiceUnavailable, ""),
		nil, // a transport error
	} {
		for range 50 {
			d := long(minW, maxW, 3, resp)
			assert.GreaterOrEqual(t, d, time.Duration(0))
			assert.LessOrEqual(t, d, maxW)
		}
	}
}

func TestBackoffFullJitter(t *testing.T) {
	t.Parallel()
	b := backoff(time.Minute)
	minW, maxW := 10*time.Millisecond, 300*time.Millisecond
	for attempt, ceiling := range []time.Duration{10, 20, 40, 80, 160, 300, 300, 300} {
		ceiling *= time.Millisecond
		lo, hi := time.Duration(1<<62), time.Duration(-1)
		for range 2000 {
			d := b(minW, maxW, attempt, nil)
			lo, hi = min(lo, d), max(hi, d)
		}
		// Every wait lies in [0, ceiling], and the waits spread over that
		// range rather than clustering at the ceiling (plain exponential)
		// or half of it (equal jitter).
		assert.GreaterOrEqual(t, lo, time.Duration(0), "attempt %d", attempt)
		assert.LessOrEqual(t, hi, ceiling, "attempt %d", attempt)
		assert.Less(t, lo, ceiling/10, "attempt %d: some waits are short", attempt)
		assert.Greater(t, hi, ceiling*9/10, "attempt %d: some waits reach the ceiling", attempt)
	}
	// No wait at all when the policy asks for none.
	assert.Equal(t, time.Duration(0), b(0, 0, 5, nil))
	// The ceiling stays WaitMax however many retries a policy allows.
	for _, attempt := range []int{29, 30, 40, 63, 64, 1000} {
		hi := time.Duration(0)
		for range 200 {
			d := b(20*time.Second, time.Minute, attempt, nil)
			require.GreaterOrEqual(t, d, time.Duration(0), "attempt %d", attempt)
			require.LessOrEqual(t, d, time.Minute, "attempt %d", attempt)
			hi = max(hi, d)
		}
		assert.Greater(t, hi, 30*time.Second, "attempt %d: the ceiling did not collapse", attempt)
	}
}

func TestErrorCodeOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want int
	}{
		{`{"category":"internal","error_code":1000,"description":"x","http_code":500}`, 1000},
		{`{"error_code" : 1004 }`, 1004},
		{"{\n  \"error_code\":\n\t1004\n}", 1004},
		{`{"error_code":"1000"}`, 1000},
		{`{"error_code": " 1004"}`, 1004},
		{`{"error_code":1000.0}`, 1000},
		{`{"error_code":1006,"error_code":1000}`, 1006}, // the first one counts
		{`{"category":"internal","description":"no code"}`, 0},
		{`{"error_code":null}`, 0},
		{`{"error_code":-1000}`, 0},
		{`{"error_code":}`, 0},
		{`{"error_code"`, 0},
		{`{"errorcode":1000}`, 0},
		{`<html>error_code: 1000</html>`, 0},
		{`null`, 0},
		{``, 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, errorCodeOf([]byte(tt.body)), "%s", tt.body)
	}
	// A number too large for an int is no retryable code.
	assert.NotContains(t, []int{1000, 1004}, errorCodeOf([]byte(`{"error_code":10000000000000000000001000}`)))
}

// peekErrorCode reads part of the body: whoever reads the response next
// must still get all of it.
func TestPeekErrorCodeRestoresBody(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"error_code":1000,"description":"Internal server error"}`,
		`{"description":"` + strings.Repeat("x", 100<<10) + `","error_code":1000}`, // beyond the peek
		``,
	} {
		closed := false
		resp := &http.Response{StatusCode: 500, Body: readCloser{strings.NewReader(body), func() { closed = true }}}
		code := peekErrorCode(resp)
		if len(body) < 64<<10 && body != "" {
			assert.Equal(t, 1000, code)
		} else {
			assert.Equal(t, 0, code, "a code beyond the peeked part is not seen")
		}
		rest, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Equal(t, body, string(rest))
		require.NoError(t, resp.Body.Close())
		assert.True(t, closed, "closing reaches the original body")
	}
}

type readCloser struct {
	io.Reader
	close func()
}

func (r readCloser) Close() error { r.close(); return nil }

// stateCtx is the context of a call whose last attempt is described by
// reached, as Do and attemptRecorder would have built it.
func stateCtx(method string, reconcilable, reached bool) context.Context {
	st := &callState{
		method:       method,
		idempotent:   method == http.MethodGet || method == http.MethodHead || method == http.MethodDelete,
		reconcilable: reconcilable,
	}
	st.attempts = append(st.buf[:0], Attempt{MayHaveReached: reached})
	return context.WithValue(context.Background(), callStateKey{}, st)
}

func TestCheckRetryStatuses(t *testing.T) {
	t.Parallel()
	const (
		c1000 = `{"category":"internal","error_code":1000,"description":"Internal server error","http_code":500}`
		c1004 = `{"category":"internal","error_code":1004,"description":"Service unavailable","http_code":"503"}`
		c1001 = `{"category":"request","error_code":1001,"description":"bad","http_code":500}`
		c1006 = `{"category":"request","error_code":1006,"description":"The order_id has already been processed","http_code":409}`
	)
	// retry: whether a request that may be repeated (a read, a delete, or
	// a reconcilable request) is retried on this response. A request that
	// changes state and cannot be reconciled never is: the response proves
	// it reached the server.
	statuses := []struct {
		status int
		body   string
		retry  bool
	}{
		{200, `{}`, false}, {201, `{}`, false}, {204, ``, false}, {302, ``, false}, {307, ``, false},
		{400, c1001, false}, {401, ``, false}, {402, ``, false}, {403, ``, false}, {404, ``, false},
		{409, c1006, false}, {412, ``, false}, {413, ``, false}, {422, ``, false}, {423, ``, false},
		{429, ``, true},
		{500, c1000, true}, {500, c1004, true}, {500, `{"error_code":"1000"}`, true},
		{500, c1001, false}, {500, `<html>Internal Server Error</html>`, false}, {500, ``, false},
		{501, ``, false},
		{502, `<html>Bad Gateway</html>`, true}, {503, c1004, true}, {503, ``, true}, {504, ``, true},
		{505, ``, false},
	}
	methods := []struct {
		method       string
		reconcilable bool
		repeatable   bool
	}{
		{"GET", false, true}, {"HEAD", false, true}, {"DELETE", false, true},
		{"POST", false, false}, {"PUT", false, false}, {"PATCH", false, false},
		{"POST", true, true}, {"PUT", true, true},
	}
	for _, m := range methods {
		for _, s := range statuses {
			resp := &http.Response{StatusCode: s.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(s.body))}
			retry, err := checkRetry(stateCtx(m.method, m.reconcilable, true), resp, nil)
			assert.NoError(t, err)
			assert.Equal(t, s.retry && m.repeatable, retry, "%s reconcilable=%v %d %s", m.method, m.reconcilable, s.status, s.body)
		}
	}
}

func TestCheckRetryErrors(t *testing.T) {
	t.Parallel()
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/m/charges",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	reset := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/m/charges", Err: io.ErrUnexpectedEOF}
	badCert := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/", Err: x509.UnknownAuthorityError{}}
	badHost := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/", Err: x509.HostnameError{Certificate: &x509.Certificate{}, Host: "x"}}
	badVerify := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/", Err: &tls.CertificateVerificationError{Err: errors.New("expired")}}
	tooLarge := fmt.Errorf("reading: %w", errBodyTooLarge)

	tests := []struct {
		name         string
		method       string
		reconcilable bool
		reached      bool
		err          error
		retry        bool
	}{
		// Nothing reached the server: any request may be repeated.
		{"refused GET", "GET", false, false, refused, true},
		{"refused POST", "POST", false, false, refused, true},
		{"refused PUT", "PUT", false, false, refused, true},
		{"refused reconcilable POST", "POST", true, false, refused, true},
		// The request may have reached it.
		{"dropped GET", "GET", false, true, reset, true},
		{"dropped DELETE", "DELETE", false, true, reset, true},
		{"dropped POST", "POST", false, true, reset, false},
		{"dropped PUT", "PUT", false, true, reset, false},
		{"dropped PATCH", "PATCH", false, true, reset, false},
		{"dropped reconcilable POST", "POST", true, true, reset, true},
		// Retrying cannot help.
		{"unknown authority GET", "GET", false, false, badCert, false},
		{"wrong host POST", "POST", false, false, badHost, false},
		{"failed verification GET", "GET", false, false, badVerify, false},
		{"body too large GET", "GET", false, true, tooLarge, false},
		{"body too large reconcilable POST", "POST", true, true, tooLarge, false},
	}
	for _, tt := range tests {
		retry, err := checkRetry(stateCtx(tt.method, tt.reconcilable, tt.reached), nil, tt.err)
		assert.NoError(t, err, tt.name)
		assert.Equal(t, tt.retry, retry, tt.name)
	}

	// An ended context stops the retries, whatever the failure, and is
	// the reason given.
	for _, method := range []string{"GET", "POST"} {
		ctx, cancel := context.WithCancel(stateCtx(method, true, false))
		cancel()
		retry, err := checkRetry(ctx, respWith(503, ""), nil)
		assert.False(t, retry)
		assert.ErrorIs(t, err, context.Canceled)
		retry, err = checkRetry(ctx, nil, refused)
		assert.False(t, retry)
		assert.ErrorIs(t, err, context.Canceled)
	}
}

// countingServer counts requests and new connections.
type countingServer struct {
	*httptest.Server
	requests, conns atomic.Int32
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		io.Copy(io.Discard, r.Body)
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

var quickPolicy = Policy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: 2 * time.Millisecond, RetryAfterMax: 5 * time.Millisecond}

// go-retryablehttp closes its client's idle connections whenever a call
// gives up; with a shared pool that would cut every other caller's
// connections. A failed call must leave the pool alone.
func TestGivingUpKeepsThePool(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{}`)
	})
	tr := New(Config{Timeout: 5 * time.Second, Policy: quickPolicy})
	t.Cleanup(tr.CloseIdleConnections)
	ctx := context.Background()

	resp, err := tr.Do(ctx, &Request{Method: "GET", URL: srv.URL + "/ok"})
	require.NoError(t, err)
	assert.Equal(t, 200, resp.Status)
	resp, err = tr.Do(ctx, &Request{Method: "GET", URL: srv.URL + "/fail"})
	require.NoError(t, err)
	assert.Equal(t, 503, resp.Status)
	assert.Len(t, resp.Attempts, 3)
	resp, err = tr.Do(ctx, &Request{Method: "GET", URL: srv.URL + "/ok"})
	require.NoError(t, err)
	assert.Equal(t, 200, resp.Status)

	assert.Equal(t, int32(5), srv.requests.Load())
	assert.Equal(t, int32(1), srv.conns.Load(), "every attempt used the one pooled connection")

	tr.CloseIdleConnections()
	_, err = tr.Do(ctx, &Request{Method: "GET", URL: srv.URL + "/ok"})
	require.NoError(t, err)
	assert.Equal(t, int32(2), srv.conns.Load(), "CloseIdleConnections does empty the SDK's own pool")
}

func TestResponseBodyBound(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		size    int
		chunked bool
		ok      bool
	}{
		{"at the bound", MaxResponseBytes, false, true},
		{"over the bound, length announced", MaxResponseBytes + 1, false, false},
		{"over the bound, chunked", MaxResponseBytes + 1, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			chunk := bytes.Repeat([]byte("x"), 64<<10)
			srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if !tt.chunked {
					w.Header().Set("Content-Length", fmt.Sprint(tt.size))
				}
				for left := tt.size; left > 0; left -= len(chunk) {
					w.Write(chunk[:min(left, len(chunk))])
					if tt.chunked {
						w.(http.Flusher).Flush()
					}
				}
			})
			tr := New(Config{Timeout: 10 * time.Second, Policy: quickPolicy})
			t.Cleanup(tr.CloseIdleConnections)
			resp, err := tr.Do(context.Background(), &Request{Method: "GET", URL: srv.URL + "/big"})
			if tt.ok {
				require.NoError(t, err)
				assert.Len(t, resp.Body, tt.size)
				return
			}
			var te *Error
			require.ErrorAs(t, err, &te)
			assert.ErrorIs(t, err, errBodyTooLarge)
			assert.Equal(t, int32(1), srv.requests.Load(), "a body that is too large is not fetched again")
			assert.Len(t, te.Attempts, 1)
		})
	}
}

// refusingDialer refuses the first `refuse` dials, then dials for real.
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

func TestAttemptRecords(t *testing.T) {
	t.Parallel()
	t.Run("refused, then answered", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
		d := &refusingDialer{refuse: 1}
		hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
		t.Cleanup(hc.CloseIdleConnections)
		tr := New(Config{HTTPClient: hc, Policy: quickPolicy})
		resp, err := tr.Do(context.Background(), &Request{Method: "POST", URL: srv.URL + "/v1/m/charges", Body: []byte(`{}`)})
		require.NoError(t, err)
		require.Len(t, resp.Attempts, 2)
		assert.Error(t, resp.Attempts[0].Err)
		assert.False(t, resp.Attempts[0].MayHaveReached)
		assert.Equal(t, 0, resp.Attempts[0].Status)
		assert.NoError(t, resp.Attempts[1].Err)
		assert.True(t, resp.Attempts[1].MayHaveReached)
		assert.Equal(t, 200, resp.Attempts[1].Status)
		assert.False(t, resp.EarlierMayHaveActed())
		assert.Equal(t, int32(1), srv.requests.Load())
	})
	// A delete changes state too: whether it may have arrived is known
	// the same way.
	t.Run("delete refused", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {})
		d := &refusingDialer{refuse: 100}
		hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
		tr := New(Config{HTTPClient: hc, Policy: quickPolicy})
		_, err := tr.Do(context.Background(), &Request{Method: "DELETE", URL: srv.URL + "/v1/m/customers/c1"})
		var te *Error
		require.ErrorAs(t, err, &te)
		require.Len(t, te.Attempts, 3)
		assert.False(t, te.MayHaveReached())
		assert.Equal(t, int32(0), srv.requests.Load())
	})
	t.Run("dropped after the request was read", func(t *testing.T) {
		t.Parallel()
		srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		tr := New(Config{Timeout: 5 * time.Second, Policy: quickPolicy})
		t.Cleanup(tr.CloseIdleConnections)
		_, err := tr.Do(context.Background(), &Request{Method: "POST", URL: srv.URL + "/v1/m/charges?x=1", Body: []byte(`{}`)})
		var te *Error
		require.ErrorAs(t, err, &te)
		require.Len(t, te.Attempts, 1)
		assert.True(t, te.Attempts[0].MayHaveReached)
		assert.True(t, te.MayHaveReached())
		assert.Equal(t, "/v1/m/charges", te.Path)
		assert.NotContains(t, err.Error(), "x=1", "no query, no URL in the message")
		assert.NotContains(t, err.Error(), srv.Listener.Addr().String())
		assert.Equal(t, int32(1), srv.requests.Load())
	})
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestDebugLog(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{}`)
	})
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d := &refusingDialer{refuse: 1}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	t.Cleanup(hc.CloseIdleConnections)
	tr := New(Config{HTTPClient: hc, Policy: quickPolicy, Logger: logger})
	header := http.Header{"Authorization": {"Basic " + testBasic}, "Content-Type": {"application/json"}}
	_, err := tr.Do(context.Background(), &Request{Method: "GET", URL: srv.URL + "/v1/m/charges?order_id=q-secret", Header: header})
	require.NoError(t, err)

	var records, retries []map[string]any
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		if rec["msg"] == "openpay: retrying" {
			retries = append(retries, rec)
			continue
		}
		records = append(records, rec)
	}
	// Each retry is also a Warn record, so that a production logger shows it.
	require.Len(t, retries, 2, "two retries: after the refused dial and after the 503")
	for i, rec := range retries {
		assert.Equal(t, "WARN", rec["level"])
		assert.Equal(t, "/v1/m/charges", rec["path"])
		assert.Equal(t, float64(i+1), rec["attempt"], "the attempt that failed")
	}
	assert.Contains(t, retries[0]["error"], "connection refused")
	assert.Equal(t, float64(503), retries[1]["status"])
	require.Len(t, records, 3, "one record per attempt: refused, 503, 200")
	for i, rec := range records {
		assert.Equal(t, "DEBUG", rec["level"])
		assert.Equal(t, "GET", rec["method"])
		assert.Equal(t, "/v1/m/charges", rec["path"])
		assert.Equal(t, float64(i+1), rec["attempt"])
	}
	assert.Contains(t, records[0]["error"], "connection refused")
	assert.Equal(t, float64(503), records[1]["status"])
	assert.Equal(t, float64(200), records[2]["status"])
	for _, secret := range []string{"q-secret", testBasic, "Authorization", srv.URL} {
		assert.NotContains(t, logs.String(), secret)
	}
}

// Which attempts may have been carried out: what decides whether a final
// answer may concern the request's own earlier attempt.
func TestAttemptMayHaveActed(t *testing.T) {
	t.Parallel()
	cut := errors.New("reading response body: unexpected EOF")
	for _, tt := range []struct {
		name string
		a    Attempt
		want bool
	}{
		{"refused before connecting", Attempt{Err: cut, MayHaveReached: false}, false},
		{"dropped after connecting", Attempt{Err: cut, MayHaveReached: true}, true},
		{"body cut short", Attempt{Status: 200, Err: cut, MayHaveReached: true}, true},
		{"500", Attempt{Status: 500, MayHaveReached: true}, true},
		{"502 from a proxy", Attempt{Status: 502, MayHaveReached: true}, true},
		{"504 from a proxy", Attempt{Status: 504, MayHaveReached: true}, true},
		// A 503 may come from a front after the gateway acted (issue 31).
		{"503 unavailable", Attempt{Status: 503, MayHaveReached: true}, true},
		{"429 rate limited", Attempt{Status: 429, MayHaveReached: true}, false},
		{"409 answered", Attempt{Status: 409, MayHaveReached: true}, false},
		{"200 answered", Attempt{Status: 200, MayHaveReached: true}, true},
	} {
		assert.Equal(t, tt.want, tt.a.MayHaveActed(), tt.name)
	}
	r := &Response{Attempts: []Attempt{{Status: 429, MayHaveReached: true}, {Status: 409, MayHaveReached: true}}}
	assert.False(t, r.EarlierMayHaveActed(), "a 429 refused before doing anything")
	r = &Response{Attempts: []Attempt{{Status: 503, MayHaveReached: true}, {Status: 409, MayHaveReached: true}}}
	assert.True(t, r.EarlierMayHaveActed(), "a 503 may hide a request carried out")
	r = &Response{Attempts: []Attempt{{Status: 504, MayHaveReached: true}, {Status: 409, MayHaveReached: true}}}
	assert.True(t, r.EarlierMayHaveActed(), "a 504 may hide a request carried out")
}

// A retry is logged only when it happens: the policy is also asked after
// the last attempt, when the budget is spent.
func TestRetryRecordsOnlyForRetries(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	var logs syncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tr := New(Config{Policy: quickPolicy, Logger: logger})
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := tr.Do(context.Background(), &Request{Method: "GET", URL: srv.URL + "/v1/m/charges"})
	require.NoError(t, err)
	require.Equal(t, quickPolicy.MaxRetries+1, len(resp.Attempts))
	assert.Equal(t, quickPolicy.MaxRetries, strings.Count(logs.String(), `"msg":"openpay: retrying"`), logs.String())
}
