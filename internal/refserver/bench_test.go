package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
)

// benchClients is the number of concurrent clients of the throughput
// benchmarks.
const benchClients = 16

// benchRequest is one request of a throughput benchmark: i numbers it from
// 1, so that bodies can carry their own order_id.
type benchRequest struct {
	method, path string
	body         func(i int64) []byte // nil for a GET
}

// newBenchClient returns a client with enough idle connections for
// benchClients.
func newBenchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
}

// fire sends the requests of rq numbered next+1 .. end from benchClients
// goroutines and returns how many failed (an error or a status other than
// 200).
func fire(client *http.Client, base, key string, rq benchRequest, next *atomic.Int64, end int64) int64 {
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > end {
					return
				}
				var body io.Reader
				if rq.body != nil {
					body = bytes.NewReader(rq.body(i))
				}
				req, _ := http.NewRequest(rq.method, base+rq.path, body)
				authorize(req, key)
				res, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return failed.Load()
}

// authorize sets the headers of a benchmark request: the key, and for a
// request with a body its type and the payer's address.
func authorize(req *http.Request, key string) {
	req.SetBasicAuth(key, "")
	if req.Body != nil && req.Body != http.NoBody {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", "203.0.113.7")
	}
}

// runClients sends b.N requests from benchClients goroutines and reports
// requests per second. Every answer must be 200.
func runClients(b *testing.B, base, key string, rq benchRequest) {
	b.Helper()
	client := newBenchClient()
	defer client.CloseIdleConnections()
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	failed := fire(client, base, key, rq, &next, int64(b.N))
	elapsed := time.Since(start)
	b.StopTimer()
	if failed > 0 {
		b.Fatalf("%d of %d requests failed", failed, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

// benchEndpoint is one endpoint measured against its yardstick.
type benchEndpoint struct {
	name string
	// setup prepares the merchant's state and returns the request.
	setup func(b *testing.B, env *benchEnv) benchRequest
	// minimal is the yardstick's handler: it decodes the request into the
	// wire type and answers the fixed answer.
	minimal func(answer []byte) http.HandlerFunc
}

// benchEnv is a reference server with one merchant, served over HTTP.
type benchEnv struct {
	s   *Server
	srv *httptest.Server
	m   MerchantConfig
}

// newBenchEnv starts a reference server with one merchant over HTTP; both
// stop when the benchmark ends.
func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	s := New(Options{})
	b.Cleanup(s.Close)
	srv := serveLabeled(s, "server")
	b.Cleanup(srv.Close)
	m, err := s.AddMerchant(MerchantConfig{})
	if err != nil {
		b.Fatal(err)
	}
	return &benchEnv{s: s, srv: srv, m: m}
}

func (e *benchEnv) post(b *testing.B, path string, body any) map[string]any {
	b.Helper()
	res, err := postJSON(e.srv.URL+"/v1/"+e.m.ID+path, e.m.PrivateKey, body)
	if err != nil {
		b.Fatal(err)
	}
	var o map[string]any
	if err := json.Unmarshal(res, &o); err != nil || o["id"] == nil {
		b.Fatalf("POST %s: %s", path, res)
	}
	return o
}

// minimalHandler decodes the body (when there is one) into a fresh Req
// and encodes answer, decoded once into Resp, as a plain net/http handler
// would: no auth, validation or state.
func minimalHandler[Req, Resp any](answer []byte) http.HandlerFunc {
	var fixed Resp
	if err := json.Unmarshal(answer, &fixed); err != nil {
		panic(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			var req Req
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, "bad json", http.StatusBadRequest)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(fixed)
	}
}

func storedChargeBody(source string) func(i int64) []byte {
	return func(i int64) []byte {
		return fmt.Appendf(nil, `{"method":"card","source_id":%q,"amount":100.50,"currency":"MXN","description":"Order %d","order_id":"bench-%d","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`,
			source, i, i)
	}
}

func inlineChargeBody(i int64) []byte {
	return fmt.Appendf(nil, `{"method":"card","card":{"holder_name":"Juan Perez","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"},"amount":100.50,"currency":"MXN","description":"Order %d","order_id":"bench-%d","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`,
		i, i)
}

var benchEndpoints = []benchEndpoint{
	{
		name: "PostChargeStoredCard",
		setup: func(b *testing.B, env *benchEnv) benchRequest {
			card := env.post(b, "/cards", validCard("4111111111111111"))["id"].(string)
			return benchRequest{http.MethodPost, "/charges", storedChargeBody(card)}
		},
		minimal: minimalHandler[openpay.CardCharge, openpay.Transaction],
	},
	{
		name: "PostChargeInlineCard",
		setup: func(b *testing.B, env *benchEnv) benchRequest {
			return benchRequest{http.MethodPost, "/charges", inlineChargeBody}
		},
		minimal: minimalHandler[openpay.InlineCardCharge, openpay.Transaction],
	},
	{
		name: "GetCharge",
		setup: func(b *testing.B, env *benchEnv) benchRequest {
			id := env.post(b, "/charges", json.RawMessage(inlineChargeBody(0)))["id"].(string)
			return benchRequest{http.MethodGet, "/charges/" + id, nil}
		},
		minimal: minimalHandler[struct{}, openpay.Transaction],
	},
	{
		name: "ListCharges100",
		setup: func(b *testing.B, env *benchEnv) benchRequest {
			for i := range int64(100) {
				env.post(b, "/charges", json.RawMessage(inlineChargeBody(-1-i)))
			}
			return benchRequest{http.MethodGet, "/charges?limit=100", nil}
		},
		minimal: minimalHandler[struct{}, []openpay.Transaction],
	},
	{
		name: "PostCustomer",
		setup: func(b *testing.B, env *benchEnv) benchRequest {
			return benchRequest{http.MethodPost, "/customers", func(i int64) []byte {
				return fmt.Appendf(nil, `{"name":"Juan %d","last_name":"Perez","email":"juan%d@example.com","phone_number":"5512345678"}`, i, i)
			}}
		},
		minimal: minimalHandler[openpay.CustomerRequest, openpay.Customer],
	},
	{
		name: "PostCard",
		setup: func(b *testing.B, env *benchEnv) benchRequest {
			return benchRequest{http.MethodPost, "/cards", func(int64) []byte {
				return []byte(`{"holder_name":"Juan Perez","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}`)
			}}
		},
		minimal: minimalHandler[openpay.CardDetails, openpay.Card],
	},
	{
		name: "PostTransfer",
		setup: func(b *testing.B, env *benchEnv) benchRequest {
			from := env.post(b, "/customers", map[string]any{"name": "Paga", "email": "paga@example.com", "requires_account": true})["id"].(string)
			to := env.post(b, "/customers", map[string]any{"name": "Cobra", "email": "cobra@example.com", "requires_account": true})["id"].(string)
			if _, err := env.s.ReceiveSPEI(env.m.ID, from, openpay.MustAmount("1000000000"), ""); err != nil {
				b.Fatal(err)
			}
			return benchRequest{http.MethodPost, "/customers/" + from + "/transfers", func(i int64) []byte {
				return fmt.Appendf(nil, `{"customer_id":%q,"amount":1.50,"description":"Transferencia %d","order_id":"bench-%d"}`, to, i, i)
			}}
		},
		minimal: minimalHandler[openpay.TransferRequest, openpay.Transaction],
	},
}

// BenchmarkEndpoints measures each endpoint of benchEndpoints on the
// reference server over HTTP ("server") and its yardstick ("minimal"), a
// plain net/http handler that decodes the same request into the wire type
// and encodes the server's own answer to it, fixed, with no auth,
// validation or state. 16 concurrent clients, one merchant.
func BenchmarkEndpoints(b *testing.B) {
	bothSides(b, runClients)
}

// sample makes one request of rq (numbered 0) and returns its answer.
func sample(b *testing.B, base, key string, rq benchRequest) []byte {
	b.Helper()
	var body io.Reader
	if rq.body != nil {
		body = bytes.NewReader(rq.body(0))
	}
	req, _ := http.NewRequest(rq.method, base+rq.path, body)
	req.SetBasicAuth(key, "")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		b.Fatalf("%s %s: %d %s", rq.method, rq.path, res.StatusCode, data)
	}
	return data
}

func postJSON(url, key string, body any) ([]byte, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(key, "")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

// ratioRound is the number of requests each side sends in one round of
// BenchmarkEndpointRatios.
const ratioRound = 200

// ratioSide is one side of a comparison in alternating rounds: where its
// requests go, and the wall and process CPU time they took.
type ratioSide struct {
	base, key string
	rq        benchRequest
	next      atomic.Int64
	took, cpu time.Duration
}

// sideNames are the values of the "side" profile label of the two sides
// of alternate: sides[0] is the server, sides[1] its yardstick.
var sideNames = [2]string{"server", "minimal"}

// serveLabeled serves h over HTTP from goroutines labeled side=name for
// the CPU profiler: the server's connections inherit the label, as the
// client goroutines of alternate and their transports' connections do. A
// profile of BenchmarkEndpointRatios then splits by side, in the same run:
//
//	go tool pprof -tagfocus side=server -top -cum refserver.test cpu.prof
func serveLabeled(h http.Handler, name string) (srv *httptest.Server) {
	pprof.Do(context.Background(), pprof.Labels("side", name), func(context.Context) {
		srv = httptest.NewServer(h)
	})
	return srv
}

// alternate sends b.N requests of its own to each side, in alternating
// rounds of ratioRound requests (the first side first in one round, the
// other first in the next), each from benchClients clients, so that a
// change in the machine's load during the run weighs on both sides alike.
func alternate(b *testing.B, sides *[2]ratioSide) {
	b.Helper()
	clients := [2]*http.Client{newBenchClient(), newBenchClient()}
	defer clients[0].CloseIdleConnections()
	defer clients[1].CloseIdleConnections()
	b.ResetTimer()
	for round, done := 0, 0; done < b.N; round++ {
		n := int64(min(ratioRound, b.N-done))
		for k := range 2 {
			i := (k + round) % 2
			side := &sides[i]
			start, cpu := time.Now(), processCPU()
			var failed int64
			pprof.Do(context.Background(), pprof.Labels("side", sideNames[i]), func(context.Context) {
				failed = fire(clients[i], side.base, side.key, side.rq, &side.next, side.next.Load()+n)
			})
			if failed > 0 {
				b.Fatalf("%d requests to %s failed", failed, side.base)
			}
			side.took += time.Since(start)
			side.cpu += processCPU() - cpu
		}
		done += int(n)
	}
	b.StopTimer()
}

// BenchmarkEndpointRatios measures each endpoint of benchEndpoints against
// its yardstick in alternating rounds of ratioRound requests (the server
// first in one round, the yardstick first in the next), so that a change in
// the machine's load during the run weighs on both sides alike. b.N
// requests go to each side, the same bytes to both: the yardstick is sent
// the server's merchant id in the path and its key, which it ignores. It
// reports the wall time per request of each side, "ratio", the server's
// throughput as a fraction of the yardstick's (yardstick time / server
// time; issue 38's target is 0.95), and "cpu-ratio", the
// same with the process's CPU time (client and server share the process),
// which a busy machine disturbs less than wall time.
func BenchmarkEndpointRatios(b *testing.B) {
	for _, ep := range benchEndpoints {
		b.Run(ep.name, func(b *testing.B) {
			env := newBenchEnv(b)
			srv, m := env.srv, env.m
			rq := ep.setup(b, env)
			yardstick := serveLabeled(ep.minimal(sample(b, srv.URL+"/v1/"+m.ID, m.PrivateKey, rq)), "minimal")
			defer yardstick.Close()
			sides := [2]ratioSide{
				{base: srv.URL + "/v1/" + m.ID, key: m.PrivateKey, rq: rq},
				{base: yardstick.URL + "/v1/" + m.ID, key: m.PrivateKey, rq: rq},
			}
			alternate(b, &sides)
			server, yard := sides[0].took, sides[1].took
			b.ReportMetric(float64(server.Nanoseconds())/float64(b.N), "server-ns/req")
			b.ReportMetric(float64(yard.Nanoseconds())/float64(b.N), "minimal-ns/req")
			b.ReportMetric(float64(yard)/float64(server), "ratio")
			b.ReportMetric(float64(sides[1].cpu)/float64(sides[0].cpu), "cpu-ratio")
		})
	}
}

// BenchmarkHandlers measures the handlers of benchEndpoints without the
// network: each request is built in process and answered into a recorder,
// by the reference server ("server") and by the yardstick ("minimal", sent
// the same path and key). It
// shows what the server's own work costs per request, which the network's
// share hides in BenchmarkEndpointRatios.
func BenchmarkHandlers(b *testing.B) {
	for _, ep := range benchEndpoints {
		var answer []byte
		var rq benchRequest
		var prefix, key string
		serve := func(b *testing.B, h http.Handler, prefix, key string) {
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				var body io.Reader
				if rq.body != nil {
					body = bytes.NewReader(rq.body(int64(i + 1)))
				}
				req := httptest.NewRequest(rq.method, prefix+rq.path, body)
				authorize(req, key)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s %s: %d %s", rq.method, rq.path, rec.Code, rec.Body)
				}
			}
		}
		b.Run(ep.name+"/server", func(b *testing.B) {
			env := newBenchEnv(b)
			rq = ep.setup(b, env)
			prefix, key = "/v1/"+env.m.ID, env.m.PrivateKey
			answer = sample(b, env.srv.URL+prefix, key, rq)
			serve(b, env.s, prefix, key)
		})
		b.Run(ep.name+"/minimal", func(b *testing.B) {
			if answer == nil {
				b.Skip("the server's run gave no sample answer")
			}
			serve(b, ep.minimal(answer), prefix, key)
		})
	}
}
