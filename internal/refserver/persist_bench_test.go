package refserver

import (
	"flag"
	"fmt"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// persistBench starts the data directory of a benchmark's server: a fresh
// one in b.TempDir(), holding the server's state.
func persistBench(b *testing.B, s *Server) {
	b.Helper()
	if _, err := s.OpenData(b.TempDir()); err != nil {
		b.Fatal(err)
	}
	if err := s.SaveData(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDataPostCharge measures card charges to a stored card (the
// request of PostChargeStoredCard, 16 clients) on a server in memory and
// on one with a data directory, in alternating rounds of ratioRound
// requests as BenchmarkEndpointRatios does, and reports each side's
// requests per second and "ratio", the data directory's throughput as a
// fraction of memory's.
func BenchmarkDataPostCharge(b *testing.B) {
	mem, data := newBenchEnv(b), newBenchEnv(b)
	persistBench(b, data.s)
	sides := []struct {
		env    *benchEnv
		rq     benchRequest
		client *http.Client
		next   atomic.Int64
		took   time.Duration
	}{{env: mem, client: newBenchClient()}, {env: data, client: newBenchClient()}}
	for i := range sides {
		sides[i].rq = benchEndpoints[0].setup(b, sides[i].env)
	}
	b.ResetTimer()
	for round, done := 0, 0; done < b.N; round++ {
		n := int64(min(ratioRound, b.N-done))
		for k := range 2 {
			side := &sides[(k+round)%2]
			base := side.env.srv.URL + "/v1/" + side.env.m.ID
			start := time.Now()
			if failed := fire(side.client, base, side.env.m.PrivateKey, side.rq, &side.next, side.next.Load()+n); failed > 0 {
				b.Fatalf("%d requests failed", failed)
			}
			side.took += time.Since(start)
		}
		done += int(n)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/sides[0].took.Seconds(), "memory-req/s")
	b.ReportMetric(float64(b.N)/sides[1].took.Seconds(), "data-req/s")
	b.ReportMetric(sides[0].took.Seconds()/sides[1].took.Seconds(), "ratio")
}

// dataScale is the number of charges BenchmarkDataScaleCreateCharges
// stores before it measures.
var dataScale = flag.Int("data-scale", 100_000, "charges stored before BenchmarkDataScaleCreateCharges measures")

// BenchmarkDataScaleCreateCharges measures card charges to a stored card
// (16 clients) on a server with a data directory whose merchant holds n
// charges already (written by SaveData before the timer starts): a
// request writes what it changed, so its cost does not grow with n.
func BenchmarkDataScaleCreateCharges(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
	}{{"empty", 1}, {fmt.Sprintf("n=%d", *dataScale), *dataScale}} {
		b.Run(c.name, func(b *testing.B) {
			st := newScaleStore(b, c.n)
			defer st.close()
			persistBench(b, st.s)
			runtime.GC()
			rq := benchRequest{http.MethodPost, "/charges", storedChargeBody(st.card)}
			var next atomic.Int64
			next.Store(int64(c.n) + 1) // order_ids the fill did not use
			client := newBenchClient()
			base := st.srv.URL + "/v1/" + st.m.ID
			b.ResetTimer()
			start := time.Now()
			if failed := fire(client, base, st.m.PrivateKey, rq, &next, next.Load()+int64(b.N)); failed > 0 {
				b.Fatalf("%d requests failed", failed)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}
