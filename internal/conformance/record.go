package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/openpay-go/openpay"
)

// RecorderConfig configures a [Recorder].
type RecorderConfig struct {
	// Upstream is the base URL requests are forwarded to (see
	// [CheckUpstream]).
	Upstream string
	// AllowUpstream accepts an upstream that is not a sandbox host of the
	// gateway. Production hosts are refused whatever it says.
	AllowUpstream bool
	// Country is the merchant's country, written in the header for the
	// replay. Empty: the sandbox host's country, else Mexico. A country
	// that contradicts the sandbox host is an error.
	Country openpay.Country
	// Out receives the cassette, one line per exchange, each written in one
	// call before the answer goes back to the client.
	Out io.Writer
	// Client sends the requests upstream; nil means a client with a
	// two-minute timeout. Redirects are never followed: they are answers.
	Client *http.Client
	// Log, when not nil, receives a line for each request the upstream
	// did not answer (the client got a 502, nothing was recorded).
	Log io.Writer
}

// maxBody caps the bodies the recorder holds in memory, both ways.
const maxBody = 16 << 20

// Recorder is a reverse proxy that forwards each request unchanged to the
// upstream, hands its answer back unchanged, and appends the exchange,
// scrubbed, to a cassette. It is safe for concurrent use; exchanges are
// written and numbered in the order their requests arrived, whatever the
// order of the answers (an exchange waits for those that started before it).
type Recorder struct {
	upstream *url.URL
	client   *http.Client
	ops      *operations
	log      io.Writer

	mu      sync.Mutex
	out     io.Writer
	tickets int               // requests taken, in order of arrival
	next    int               // the ticket to write next
	pending map[int]*Exchange // finished, waiting for earlier tickets; nil: nothing to write
	seq     int               // exchanges written
	failed  int               // requests the upstream did not answer
	err     error
}

// NewRecorder checks the upstream and writes the cassette's header.
func NewRecorder(cfg RecorderConfig) (*Recorder, error) {
	u, country, err := CheckUpstream(cfg.Upstream, cfg.AllowUpstream, cfg.Country)
	if err != nil {
		return nil, err
	}
	client := cfg.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r := &Recorder{upstream: u, client: &c, ops: newOperations(), out: cfg.Out, log: cfg.Log, pending: map[int]*Exchange{}, next: 1}
	h := Header{Format: Format, Country: string(country), Upstream: u.String(), Recorded: time.Now().UTC().Truncate(time.Second)}
	if err := writeLine(cfg.Out, h); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close releases what the recorder holds. It does not close Out.
func (r *Recorder) Close() { r.ops.close() }

// Count returns how many exchanges were written.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// Pending returns how many requests the recorder holds: in flight, or
// answered and waiting for an earlier one before they are written.
func (r *Recorder) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tickets - (r.next - 1)
}

// Failed returns how many requests the upstream did not answer (their
// clients got a 502 and nothing was recorded).
func (r *Recorder) Failed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Err returns the first error met writing the cassette; after it the
// recorder answers 502 rather than forward requests it cannot record.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// hopHeaders are not forwarded either way; Accept-Encoding is left to the
// upstream client so that answers arrive decoded and are recorded as text.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Accept-Encoding", "Content-Length"}

// WebhookPath is where the recorder receives webhook deliveries: register
// a webhook whose URL is the recorder's base URL, this path and any name of
// yours (http://127.0.0.1:8080/_recorder/webhooks/shop), and each delivery
// the upstream sends there is recorded as an exchange of operation
// OperationWebhook and answered 200. A replay receives the deliveries of
// the target at a receiver of its own and compares them.
const WebhookPath = "/_recorder/webhooks/"

// OperationWebhook is the operation of a recorded webhook delivery.
const OperationWebhook = "webhookDelivery"

// ServeHTTP forwards one request and records it, or records a webhook
// delivery (WebhookPath) and answers it.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if err := r.Err(); err != nil {
		http.Error(w, "openpay-refserver record: the cassette cannot be written", http.StatusBadGateway)
		return
	}
	ticket := r.take()
	var recorded *Exchange
	defer func() { r.done(ticket, recorded) }()
	started := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "openpay-refserver record: request body unreadable or too large", http.StatusBadRequest)
		return
	}
	if strings.HasPrefix(req.URL.Path, WebhookPath) {
		// A delivery the upstream sent: recorded (the Basic credentials,
		// as every header, are not kept) and answered 200.
		recorded = &Exchange{Operation: OperationWebhook, Method: req.Method, Path: scrubText(req.URL.EscapedPath()), Auth: "none",
			Status: http.StatusOK, Started: started.UTC()}
		recorded.setRequest(body, &notes{})
		w.WriteHeader(http.StatusOK)
		return
	}
	target := *r.upstream
	target.Path, target.RawPath = req.URL.Path, req.URL.RawPath
	target.RawQuery = req.URL.RawQuery
	out, err := http.NewRequestWithContext(req.Context(), req.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "openpay-refserver record: bad request", http.StatusBadRequest)
		return
	}
	out.Header = req.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := r.client.Do(out)
	if err != nil {
		// The upstream gave no answer: there is nothing to record.
		// Not the *url.Error's text: it quotes the URL, query and all.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		r.fail(req, "did not answer: "+err.Error())
		http.Error(w, "openpay-refserver record: the upstream did not answer", http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	resp.Body.Close()
	if err != nil || len(answer) > maxBody {
		r.fail(req, "answered with a body unreadable or too large")
		http.Error(w, "openpay-refserver record: the upstream's answer was unreadable or too large", http.StatusBadGateway)
		return
	}
	elapsed := time.Since(started)

	recorded = r.exchange(req, body, resp, answer, started, elapsed)

	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	for _, h := range hopHeaders {
		w.Header().Del(h)
	}
	w.Header().Del("Content-Encoding")
	w.WriteHeader(resp.StatusCode)
	w.Write(answer) //nolint:errcheck // the client went away; the exchange is recorded
}

// take hands out the next ticket: the place of a request in the cassette.
func (r *Recorder) take() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tickets++
	return r.tickets
}

// fail counts a request the upstream did not answer and says so on Log.
func (r *Recorder) fail(req *http.Request, what string) {
	r.mu.Lock()
	r.failed++
	r.mu.Unlock()
	if r.log != nil {
		// The message never carries the query or a body: they may hold
		// secrets; the path is scrubbed.
		fmt.Fprintf(r.log, "openpay-refserver record: %s %s: the upstream %s; the client got 502 and nothing was recorded\n",
			req.Method, scrubText(req.URL.EscapedPath()), scrubText(what))
	}
}

// exchange builds the scrubbed exchange of a request and its answer.
func (r *Recorder) exchange(req *http.Request, body []byte, resp *http.Response, answer []byte, started time.Time, elapsed time.Duration) *Exchange {
	op, _ := r.ops.lookup(req.Method, req.URL.EscapedPath())
	var n notes
	e := &Exchange{
		Operation:  op,
		Method:     req.Method,
		Path:       scrubText(req.URL.EscapedPath()),
		Query:      scrubQuery(req.URL.RawQuery, &n),
		Auth:       authKind(req),
		ClientIP:   req.Header.Get("X-Forwarded-For") != "",
		Status:     resp.StatusCode,
		Started:    started.UTC(),
		DurationMS: float64(elapsed.Microseconds()) / 1000,
	}
	if resp.StatusCode == http.StatusUnauthorized && e.Auth != "none" {
		e.Credential = credentialRefused
	}
	e.setRequest(body, &n)
	if v, _, ok := scrubJSON(answer); ok {
		e.Response = v
	} else if len(answer) > 0 {
		e.ResponseType = resp.Header.Get("Content-Type")
	}
	return e
}

// setRequest sets the request body, scrubbed, and the notes of what was
// scrubbed from it and from the query (n).
func (e *Exchange) setRequest(body []byte, n *notes) {
	if len(body) > 0 {
		if v, bn, ok := scrubJSON(body); ok {
			e.Request = v
			for p, c := range bn.cards {
				n.card(p, c)
			}
			for p, c := range bn.codes {
				n.code(p, c)
			}
			for p, c := range bn.clabes {
				n.clabe(p, c)
			}
		} else {
			e.RequestText = scrubText(string(body))
		}
	}
	e.Cards, e.Codes, e.Clabes = n.cards, n.codes, n.clabes
}

// credentialRefused is Exchange.Credential for a key the upstream refused.
const credentialRefused = "refused"

// done files a finished ticket (e nil: nothing to write) and writes every
// exchange whose earlier tickets are all done, in ticket order.
func (r *Recorder) done(ticket int, e *Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending[ticket] = e
	for {
		e, ok := r.pending[r.next]
		if !ok {
			return
		}
		delete(r.pending, r.next)
		r.next++
		if e == nil || r.err != nil {
			continue
		}
		r.seq++
		e.Seq = r.seq
		line, err := marshalLine(e)
		if err == nil {
			line, err = withholdSecrets(*e, line)
		}
		if err == nil {
			_, err = r.out.Write(line)
		}
		r.err = err
	}
}

// withholdSecrets scans a line before it is written. Scrubbing should leave
// nothing to find; if the scan finds something all the same, the exchange
// is written without its path, query and bodies, and says why.
func withholdSecrets(e Exchange, line []byte) ([]byte, error) {
	found, err := Scan(bytes.NewReader(line))
	if err != nil || len(found) == 0 {
		return line, err
	}
	kinds := make([]string, 0, len(found))
	for _, f := range found {
		kinds = append(kinds, f.Kind+" at "+f.Path)
	}
	e.Withheld = "the scan found " + strings.Join(kinds, ", ")
	e.Path, e.Query, e.Request, e.RequestText, e.Response, e.Cards, e.Codes, e.Clabes = Scrubbed, "", nil, "", nil, nil, nil, nil
	return marshalLine(e)
}

// authKind tells which kind of key a request carried, from the key's
// prefix: the gateway's public keys start with pk_.
func authKind(req *http.Request) string {
	h := req.Header.Get("Authorization")
	if h == "" {
		return "none"
	}
	// Any other scheme than Basic is taken for a private key.
	user, _, _ := req.BasicAuth()
	if strings.HasPrefix(user, "pk_") {
		return "public"
	}
	return "private"
}
