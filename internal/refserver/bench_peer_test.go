package refserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
)

// peerURLEnv names the environment variable that gives the base URL of the
// stateful peer BenchmarkPeerPostCharge compares the server with: a
// Stripe-shaped stateful emulator (localstripe: `python3 -m localstripe
// --port 8420 --from-scratch`, then OPENPAY_BENCH_PEER_URL=http://localhost:8420).
const peerURLEnv = "OPENPAY_BENCH_PEER_URL"

// BenchmarkPeerPostCharge measures POST charge with a stored card on the
// reference server against the same operation on a stateful peer
// emulator (a charge of a customer's stored card, which the peer records),
// in alternating rounds of ratioRound requests from benchClients clients
// each, as BenchmarkEndpointRatios does. "ratio" is the server's throughput
// as a multiple of the peer's (peer time / server time). It is skipped
// unless peerURLEnv names the peer.
//
//	OPENPAY_BENCH_PEER_URL=http://localhost:8420 go test ./internal/refserver -run '^$' -bench PeerPostCharge -benchtime 2000x
func BenchmarkPeerPostCharge(b *testing.B) {
	peer := os.Getenv(peerURLEnv)
	if peer == "" {
		b.Skip(peerURLEnv + " names no peer")
	}
	const peerKey = "sk_test_openpaybench"
	env := newBenchEnv(b)
	rq := benchEndpoints[0].setup(b, env) // PostChargeStoredCard
	customer := peerPost(b, peer+"/v1/customers", peerKey, map[string]any{"email": "juan@example.com",
		"source": map[string]any{"object": "card", "number": "4242424242424242", "exp_month": 12, "exp_year": 2030, "cvc": "123"}})
	sides := [2]ratioSide{
		{base: env.srv.URL + "/v1/" + env.m.ID, key: env.m.PrivateKey, rq: rq},
		{base: peer, key: peerKey, rq: benchRequest{http.MethodPost, "/v1/charges", func(i int64) []byte {
			return fmt.Appendf(nil, `{"amount":10050,"currency":"mxn","customer":%q,"description":"Order %d","metadata":{"order_id":"bench-%d"}}`,
				customer, i, i)
		}}},
	}
	alternate(b, &sides)
	server, other := sides[0].took, sides[1].took
	b.ReportMetric(float64(server.Nanoseconds())/float64(b.N), "server-ns/req")
	b.ReportMetric(float64(other.Nanoseconds())/float64(b.N), "peer-ns/req")
	b.ReportMetric(float64(other)/float64(server), "ratio")
}

// peerPost posts body as JSON to the peer and returns the id of what it
// made.
func peerPost(b *testing.B, url, key string, body any) string {
	b.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	req.SetBasicAuth(key, "")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	var o struct{ ID string }
	if res.StatusCode != http.StatusOK || json.Unmarshal(answer, &o) != nil || o.ID == "" {
		b.Fatalf("POST %s: %d %s", url, res.StatusCode, answer)
	}
	return o.ID
}
