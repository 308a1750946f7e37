package refserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
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

// BenchmarkHeapPerRequest reports what each POST endpoint of
// benchEndpoints keeps on the live heap per request: heapRequests requests
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
		if !strings.HasPrefix(ep.name, "Post") {
			continue
		}
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
