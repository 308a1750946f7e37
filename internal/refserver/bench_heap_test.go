package refserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
)

// heapRequests is the number of requests BenchmarkHeapPerRequest sends to
// each endpoint: the count of one BenchmarkEndpointRatios run
// (-test.benchtime 5000x), below the event log's bound (maxEventsKept), so
// that every event the requests make is kept, as it is in that run.
const heapRequests = 5000

// liveHeap returns the live heap after two collections: the bytes
// allocated, the objects, and the scannable bytes the collector's mark
// phase reads (runtime/metrics /gc/scan/heap:bytes).
func liveHeap() (bytes, objects, scan uint64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	sample := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(sample)
	return ms.HeapAlloc, ms.HeapObjects, sample[0].Value.Uint64()
}

// BenchmarkHeapPerRequest reports what each endpoint of benchEndpoints
// keeps on the live heap per request: heapRequests requests
// answered in process (as BenchmarkHandlers), the live heap before and
// after, divided by their number. "B/req" is the heap, "objects/req" the
// heap objects (each one the collector visits) and "scan-B/req" the bytes
// the collector scans for pointers. The yardstick keeps nothing; over HTTP
// the collector marks what the server keeps on every cycle of
// BenchmarkEndpointRatios.
//
//	go test -run XXX -bench HeapPerRequest -benchtime 1x ./internal/refserver/
func BenchmarkHeapPerRequest(b *testing.B) {
	for _, ep := range benchEndpoints {
		b.Run(ep.name, func(b *testing.B) {
			for b.Loop() {
				env := newBenchEnv(b)
				rq := ep.setup(b, env)
				prefix := "/v1/" + env.m.ID
				heap0, objects0, scan0 := liveHeap()
				for i := range heapRequests {
					var body io.Reader
					if rq.body != nil {
						body = bytes.NewReader(rq.body(int64(i + 1)))
					}
					req := httptest.NewRequest(rq.method, prefix+rq.path, body)
					authorize(req, env.m.PrivateKey)
					rec := httptest.NewRecorder()
					env.s.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%s %s: %d %s", rq.method, rq.path, rec.Code, rec.Body)
					}
				}
				heap1, objects1, scan1 := liveHeap()
				runtime.KeepAlive(env)
				b.ReportMetric((float64(heap1)-float64(heap0))/heapRequests, "B/req")
				b.ReportMetric((float64(objects1)-float64(objects0))/heapRequests, "objects/req")
				b.ReportMetric((float64(scan1)-float64(scan0))/heapRequests, "scan-B/req")
			}
		})
	}
}

// gcCPU returns the CPU time the collector took so far, less what its
// workers took of otherwise idle processors, and the process's total
// less its idle time, as the runtime estimates them (runtime/metrics
// /cpu/classes), and the number of completed collections.
func gcCPU() (gc, total float64, cycles uint64) {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/gc/mark/idle:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"}, {Name: "/cpu/classes/idle:cpu-seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Float64() - s[1].Value.Float64(), s[2].Value.Float64() - s[3].Value.Float64() - s[1].Value.Float64(), s[4].Value.Uint64()
}

// BenchmarkEndpointGC measures the collector's share of the process's CPU
// while b.N requests of each endpoint of benchEndpoints go over HTTP (16
// clients, as BenchmarkEndpoints) to the reference server ("server") and
// to its yardstick ("minimal"), each side in a run of its own: "gc-cpu-%"
// is the collector's share of the CPU time (client and server share the
// process), "gc-µs/req" its CPU time per request and "gc/kreq" the
// collections per thousand requests. What the server keeps per request
// (BenchmarkHeapPerRequest) is heap the collector marks again on every
// cycle; the yardstick keeps nothing.
//
//	go test -run XXX -bench EndpointGC -benchtime 5000x ./internal/refserver/
func BenchmarkEndpointGC(b *testing.B) {
	measure := func(b *testing.B, base, key string, rq benchRequest) {
		client := newBenchClient()
		defer client.CloseIdleConnections()
		var next atomic.Int64
		runtime.GC()
		gc0, total0, cycles0 := gcCPU()
		b.ResetTimer()
		failed := fire(client, base, key, rq, &next, int64(b.N))
		b.StopTimer()
		runtime.GC() // closes the cycle the runtime's CPU estimates count to
		gc1, total1, cycles1 := gcCPU()
		if failed > 0 {
			b.Fatalf("%d of %d requests failed", failed, b.N)
		}
		b.ReportMetric(100*(gc1-gc0)/(total1-total0), "gc-cpu-%")
		b.ReportMetric((gc1-gc0)*1e6/float64(b.N), "gc-µs/req")
		b.ReportMetric(float64(cycles1-cycles0-1)*1000/float64(b.N), "gc/kreq")
	}
	bothSides(b, measure)
}

// bothSides calls measure for each endpoint of benchEndpoints, on the
// reference server with one merchant over HTTP ("server") and then on its
// yardstick ("minimal", which answers the server's sample answer), with
// the endpoint's request. Both sides get the same request bytes: the
// yardstick is sent the server's merchant id and key, which it ignores.
func bothSides(b *testing.B, measure func(b *testing.B, base, key string, rq benchRequest)) {
	for _, ep := range benchEndpoints {
		var answer []byte
		var rq benchRequest
		var path, key string
		b.Run(ep.name+"/server", func(b *testing.B) {
			env := newBenchEnv(b)
			path, key = "/v1/"+env.m.ID, env.m.PrivateKey
			rq = ep.setup(b, env)
			answer = sample(b, env.srv.URL+path, key, rq)
			measure(b, env.srv.URL+path, key, rq)
		})
		b.Run(ep.name+"/minimal", func(b *testing.B) {
			if answer == nil {
				b.Skip("the server's run gave no sample answer")
			}
			srv := httptest.NewServer(ep.minimal(answer))
			defer srv.Close()
			measure(b, srv.URL+path, key, rq)
		})
	}
}
