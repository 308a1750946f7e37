package journal

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// countingTransport counts the requests that pass through it, by method.
type countingTransport struct {
	gets, posts atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	switch r.Method {
	case http.MethodGet:
		c.gets.Add(1)
	case http.MethodPost:
		c.posts.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Workers of four journals (four connection pools, as four processes
// would have) drain the same attempts at once: each attempt is taken by
// one of them, once (one lookup and one re-send per attempt).
func TestWorkersNeverShareAnAttempt(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		srv := openpaytest.NewServer(t, openpaytest.WithMerchant(testMerchant, testPrivate, testPublic))
		p := newPayer(t, newClient(t, srv.URL))
		ctx := context.Background()
		clk := &clock{}
		first, err := Open(ctx, e.open(t), newClient(t, srv.URL), Options{Now: clk.now})
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		for i := range n {
			a, err := chargeAttempt(p.charge("share-"+strconv.Itoa(i), "15.00"))
			if err != nil {
				t.Fatal(err)
			}
			if claimed, _, err := first.claim(ctx, &a); err != nil || !claimed {
				t.Fatalf("claim: %v, %v", claimed, err)
			}
		}
		clk.advance(2 * time.Minute) // the claimants died; past the settle window
		var counted countingTransport
		var wg sync.WaitGroup
		var taken atomic.Int64
		for range 4 {
			c := newClient(t, srv.URL, openpay.WithHTTPClient(&http.Client{Transport: &counted}))
			j, err := Open(ctx, e.open(t), c, Options{Now: clk.now})
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				k, err := (&Worker{Journal: j, Batch: 8}).Drain(ctx)
				if err != nil {
					t.Error(err)
				}
				taken.Add(int64(k))
			})
		}
		wg.Wait()
		if taken.Load() != n || counted.gets.Load() != n || counted.posts.Load() != n {
			t.Fatalf("taken %d, %d lookups, %d re-sends; want %d of each", taken.Load(), counted.gets.Load(), counted.posts.Load(), n)
		}
		if c, err := first.Counts(ctx); err != nil || c != (Counts{Settled: n}) {
			t.Fatalf("counts %+v, %v", c, err)
		}
		all := chargesOf(t, newClient(t, srv.URL))
		for i := range n {
			if got := len(all["share-"+strconv.Itoa(i)]); got != 1 {
				t.Fatalf("share-%d: %d charges", i, got)
			}
		}
	})
}
