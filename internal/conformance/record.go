package conformance

import (
	"bytes"
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
}

// maxBody caps the bodies the recorder holds in memory, both ways.
const maxBody = 16 << 20

// Recorder is a reverse proxy that forwards each request unchanged to the
// upstream, hands its answer back unchanged, and appends the exchange,
// scrubbed, to a cassette. It is safe for concurrent use; exchanges are
// numbered in the order their answers arrived.
type Recorder struct {
	upstream *url.URL
	client   *http.Client
	ops      *operations

	mu  sync.Mutex
	out io.Writer
	seq int
	err error
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
	r := &Recorder{upstream: u, client: &c, ops: newOperations(), out: cfg.Out}
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

// ServeHTTP forwards one request and records it.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if err := r.Err(); err != nil {
		http.Error(w, "openpay-refserver record: the cassette cannot be written", http.StatusBadGateway)
		return
	}
	started := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "openpay-refserver record: request body unreadable or too large", http.StatusBadRequest)
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
		http.Error(w, "openpay-refserver record: the upstream did not answer", http.StatusBadGateway)
		return
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	resp.Body.Close()
	if err != nil || len(answer) > maxBody {
		http.Error(w, "openpay-refserver record: the upstream's answer was unreadable or too large", http.StatusBadGateway)
		return
	}
	elapsed := time.Since(started)

	r.record(req, body, resp, answer, started, elapsed)

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

// record appends one exchange to the cassette.
func (r *Recorder) record(req *http.Request, body []byte, resp *http.Response, answer []byte, started time.Time, elapsed time.Duration) {
	op, _ := r.ops.lookup(req.Method, req.URL.EscapedPath())
	e := Exchange{
		Operation:  op,
		Method:     req.Method,
		Path:       scrubText(req.URL.EscapedPath()),
		Query:      scrubText(req.URL.RawQuery),
		Auth:       authKind(req),
		ClientIP:   req.Header.Get("X-Forwarded-For") != "",
		Status:     resp.StatusCode,
		Started:    started.UTC(),
		DurationMS: float64(elapsed.Microseconds()) / 1000,
	}
	if len(body) > 0 {
		if v, cards, ok := scrubJSON(body); ok {
			e.Request, e.Cards = v, cards
		} else {
			e.RequestText = scrubText(string(body))
		}
	}
	if v, _, ok := scrubJSON(answer); ok {
		e.Response = v
	} else if len(answer) > 0 {
		e.ResponseType = resp.Header.Get("Content-Type")
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.seq++
	e.Seq = r.seq
	line, err := marshalLine(e)
	if err == nil {
		line, err = withholdSecrets(e, line)
	}
	if err == nil {
		_, err = r.out.Write(line)
	}
	r.err = err
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
	e.Path, e.Query, e.Request, e.RequestText, e.Response, e.Cards = Scrubbed, "", nil, "", nil, nil
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
