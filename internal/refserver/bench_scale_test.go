package refserver

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The scale benchmarks: a merchant holding a large number of charges.
// Filling the store goes through the store directly (the same functions a
// card charge over HTTP ends in, under the merchant's lock), not over HTTP,
// so that a million charges take seconds; what is measured then goes over
// HTTP.

// scaleSpan is the time the stored charges spread over, whatever their
// number, so that a day's filter matches the same share of them at every
// scale.
const scaleSpan = 30 * 24 * time.Hour

// scaleStore is a server with one merchant holding n charges.
type scaleStore struct {
	s     *Server
	srv   *httptest.Server
	m     MerchantConfig
	card  string
	n     int
	start time.Time // the first charge's creation time
}

// newScaleStore fills a store with n charges to one stored card, one every
// scaleSpan/n: order_id "ord-<i>", amounts 1.00 to 1000.00 in turn, and one
// in a hundred to a declined card (status failed). The clock ends at the
// last charge.
func newScaleStore(tb testing.TB, n int) *scaleStore {
	tb.Helper()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, gatewayZone)
	clock := NewFakeClock(start)
	s := New(Options{Clock: clock})
	srv := httptest.NewServer(s)
	m, err := s.AddMerchant(MerchantConfig{})
	if err != nil {
		tb.Fatal(err)
	}
	cardID := func(number string) string {
		res, err := postJSON(srv.URL+"/v1/"+m.ID+"/cards", m.PrivateKey, validCard(number))
		if err != nil {
			tb.Fatal(err)
		}
		var card struct{ ID string }
		if err := json.Unmarshal(res, &card); err != nil || card.ID == "" {
			tb.Fatalf("card: %s", res)
		}
		return card.ID
	}
	good, declined := cardID("4111111111111111"), cardID("4000000000030017")
	step := scaleSpan / time.Duration(n)
	sm := s.merchantByID(m.ID)
	for i := range n {
		source := good
		if i%100 == 99 {
			source = declined
		}
		// Each charge gets its own amount, description and order_id
		// values, as decoding a request over HTTP gives.
		req := &chargeRequest{kind: kindCard, amount: openpay.MustAmount(fmt.Sprintf("%d.00", i%1000+1)),
			currency: openpay.CurrencyMXN, description: fmt.Sprintf("Order %d", i), orderID: fmt.Sprintf("ord-%d", i),
			capture: true, sourceID: source, country: countryrules.Mexico}
		sm.mu.Lock()
		t := s.newChargeTx(sm, nil, req)
		_, e := s.chargeCard(sm, sm.storedCards(), nil, req, t, "")
		sm.mu.Unlock()
		if e != nil && source == good {
			tb.Fatalf("charge %d: %v", i, e)
		}
		clock.Advance(step)
	}
	clock.Advance(-step)
	runtime.GC() // the fill's garbage is not the measured requests' to collect
	return &scaleStore{s: s, srv: srv, m: m, card: good, n: n, start: start}
}

func (st *scaleStore) close() {
	st.srv.Close()
	st.s.Close()
}

// day is the date, in the gateway's zone, of the charge at fraction f of
// the store (0 the oldest, 1 the newest).
func (st *scaleStore) day(f float64) string {
	return st.start.Add(time.Duration(f * float64(scaleSpan))).Format("2006-01-02")
}

// scaleFilters are the charge list queries measured at each scale.
func (st *scaleStore) scaleFilters() []struct{ name, query string } {
	return []struct{ name, query string }{
		{"none", ""},
		{"offset-half", fmt.Sprintf("offset=%d", st.n/2)},
		{"order_id", fmt.Sprintf("order_id=ord-%d", st.n/2)},
		{"order_id-missing", "order_id=nope"},
		{"creation-day", "creation=" + st.day(0.5)},
		{"creation-gte-none", "creation[gte]=2027-01-01"},
		{"creation-lte-oldest", "creation[lte]=" + st.day(0)},
		{"status-completed", "status=COMPLETED"},
		{"status-failed", "status=FAILED"},
		{"status-refunded-none", "status=REFUNDED"},
		{"amount", "amount=500"},
		{"amount-gte", "amount[gte]=900"},
		{"amount-gte-none", "amount[gte]=5000"},
	}
}

// get lists the merchant's charges with the query and fails the benchmark
// unless the answer is 200.
func (st *scaleStore) get(tb testing.TB, client *http.Client, query string) {
	req, _ := http.NewRequest(http.MethodGet, st.srv.URL+"/v1/"+st.m.ID+"/charges?"+query, nil)
	req.SetBasicAuth(st.m.PrivateKey, "")
	res, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		tb.Fatalf("GET charges?%s: %d", query, res.StatusCode)
	}
}

// BenchmarkScaleListCharges measures each charge list filter, one client
// at a time, with 10k and 1M stored charges. cpu-µs/op is the process's CPU
// time per request (client and server), which a busy machine inflates less
// than the wall time.
//
//	go test -run XXX -bench ScaleListCharges -benchtime 2000x ./internal/refserver/
func BenchmarkScaleListCharges(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		st := newScaleStore(b, n)
		client := &http.Client{}
		for _, f := range st.scaleFilters() {
			b.Run(fmt.Sprintf("n=%d/%s", n, f.name), func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					st.get(b, client, f.query)
				}
				b.ReportMetric(float64(processCPU()-cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
			})
		}
		client.CloseIdleConnections()
		st.close()
	}
}

// BenchmarkScaleCreateCharges measures charge creation over HTTP (16
// clients, as BenchmarkServerPostCharges) into an empty store, into a store
// of 1M charges, and into that store while one more client loops a
// filtered list of charges (the SDK's order_id reconciliation, and a
// creation[gte] filter that matches nothing). 300,000 requests per case
// take several collections of the 1M store's heap, so that the figure is
// the steady state rather than where the collector's cycle happens to fall.
//
//	go test -run XXX -bench '^BenchmarkScaleCreateCharges$' -benchtime 300000x ./internal/refserver/
func BenchmarkScaleCreateCharges(b *testing.B) {
	cases := []struct {
		name  string
		n     int
		query string // the list a 17th client loops, "" none
	}{
		{"empty", 0, ""},
		{"n=1000000", 1_000_000, ""},
		{"n=1000000/list-order_id", 1_000_000, "order_id=ord-500000"},
		{"n=1000000/list-creation-gte-none", 1_000_000, "creation[gte]=2027-01-01"},
	}
	for _, c := range cases {
		// Each case gets a store of its own: a case adds b.N charges, which
		// the next would otherwise measure on top of its n.
		st := newScaleStore(b, max(c.n, 1))
		b.Run(c.name, func(b *testing.B) {
			stop := make(chan struct{})
			var lists atomic.Int64
			var wg sync.WaitGroup
			if c.query != "" {
				wg.Add(1)
				go func() {
					defer wg.Done()
					client := &http.Client{}
					defer client.CloseIdleConnections()
					for {
						select {
						case <-stop:
							return
						default:
						}
						st.get(b, client, c.query)
						lists.Add(1)
					}
				}()
			}
			prefix := fmt.Sprintf("%s-%d", c.name, time.Now().UnixNano())
			runClients(b, st.srv.URL+"/v1/"+st.m.ID, st.m.PrivateKey, benchRequest{method: http.MethodPost, path: "/charges", body: func(i int64) []byte {
				return []byte(fmt.Sprintf(`{"method":"card","source_id":%q,"amount":100.50,"currency":"MXN","description":"Order %d","order_id":"%s-%d","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`,
					st.card, i, prefix, i))
			}})
			close(stop)
			wg.Wait()
			if c.query != "" {
				b.ReportMetric(float64(lists.Load())/float64(b.N), "lists/charge")
			}
		})
		st.close()
	}
}

// scaleHeapProfile names the file BenchmarkScaleHeapPerCharge writes the
// heap profile to while the 1M charges are stored (-test.memprofile is
// written after the benchmark, when they are gone).
var scaleHeapProfile = flag.String("scale-heap-profile", "", "write the heap profile with the charges of BenchmarkScaleHeapPerCharge stored to this file")

// BenchmarkScaleHeapPerCharge reports the live heap each stored charge
// costs: the heap after a collection with 1M charges stored, less the
// heap of the same server with one, divided by the difference.
//
//	go test -run XXX -bench ScaleHeapPerCharge -benchtime 1x ./internal/refserver/
//	go test -run XXX -bench ScaleHeapPerCharge -benchtime 1x ./internal/refserver/ -args -scale-heap-profile heap.out
//	go tool pprof -sample_index=inuse_space -top heap.out
func BenchmarkScaleHeapPerCharge(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		heap, objects, scan := liveHeapPerCharge(b, n)
		b.ReportMetric(heap, "B/charge")
		b.ReportMetric(objects, "objects/charge")
		b.ReportMetric(scan, "scan-B/charge")
	}
}

// liveHeapPerCharge measures the live heap per stored charge with n
// charges: its bytes, its objects (each one the collector visits) and the
// bytes the collector scans for pointers (liveHeap).
func liveHeapPerCharge(tb testing.TB, n int) (heap, objects, scan float64) {
	if *scaleHeapProfile != "" {
		runtime.MemProfileRate = 4096
		defer func() { runtime.MemProfileRate = 512 * 1024 }()
	}
	small := newScaleStore(tb, 1)
	heap0, objects0, scan0 := liveHeap()
	big := newScaleStore(tb, n+1)
	heap1, objects1, scan1 := liveHeap()
	if *scaleHeapProfile != "" {
		f, err := os.Create(*scaleHeapProfile)
		require.NoError(tb, err)
		require.NoError(tb, pprof.Lookup("heap").WriteTo(f, 0))
		require.NoError(tb, f.Close())
	}
	runtime.KeepAlive(small)
	small.close()
	big.close()
	per := func(after, before uint64) float64 { return (float64(after) - float64(before)) / float64(n) }
	return per(heap1, heap0), per(objects1, objects0), per(scan1, scan0)
}

// TestScaleStore runs the scale benchmarks' fill and every one of their
// filters on a small store, so that a change that breaks the fill (it calls
// the charge functions directly, not over HTTP) fails here and not only
// when someone next runs the benchmarks.
func TestScaleStore(t *testing.T) {
	t.Parallel()
	st := newScaleStore(t, 300)
	defer st.close()
	page := func(query string) []openpay.Transaction {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, st.srv.URL+"/v1/"+st.m.ID+"/charges?"+query, nil)
		require.NoError(t, err)
		req.SetBasicAuth(st.m.PrivateKey, "")
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer r.Body.Close()
		res, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		var txs []openpay.Transaction
		require.NoError(t, json.Unmarshal(res, &txs), "%s", res)
		return txs
	}
	got := page("order_id=ord-150")
	require.Len(t, got, 1)
	assert.Equal(t, "Order 150", got[0].Description)
	assert.Equal(t, "151.00", got[0].Amount.String())
	assert.Len(t, page("status=FAILED&limit=100"), 3, "one in a hundred is declined")
	for _, f := range st.scaleFilters() {
		st.get(t, http.DefaultClient, f.query)
	}
}
