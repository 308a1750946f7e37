package refserver

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
)

// BenchmarkWebhookSlowReceiver records b.N events (simulated SPEI
// payments, no HTTP on the emitting side) for one webhook whose receiver
// takes a second per delivery ("slow") or refuses connections ("down"),
// then reports what stays queued, what was dropped and the live heap
// grown since the start. "none" registers no webhook: its heap is what the
// events and transactions themselves cost, the baseline of the other two. Run it with -benchtime 15000x to repeat the
// issue's measurement (15,000 events).
func BenchmarkWebhookSlowReceiver(b *testing.B) {
	for _, mode := range []string{"none", "slow", "down"} {
		b.Run(mode, func(b *testing.B) {
			env := newBenchEnv(b)
			s, m := env.s, env.m
			release := make(chan struct{})
			rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.ContentLength > 0 && r.ContentLength < 200 { // the verification event
					return
				}
				select {
				case <-time.After(time.Second):
				case <-release:
				}
			}))
			defer rc.Close()
			defer close(release)
			var id string
			if mode != "none" {
				id = env.post(b, "/webhooks", map[string]any{"url": rc.URL, "event_types": []string{"spei.received"}})["id"].(string)
			}
			if mode == "down" {
				rc.CloseClientConnections()
				rc.Listener.Close()
			}
			amount := openpay.MustAmount("10")
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := s.ReceiveSPEI(m.ID, "", amount, ""); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			st := s.WebhookDeliveryStats(id)
			b.ReportMetric(float64(st.Pending), "pending")
			b.ReportMetric(float64(st.Dropped), "dropped")
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1024, "heap-KB")
		})
	}
}
