package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// countingTransport counts the requests that pass through it, by method,
// and the answers 409 (an order_id sent while another request had taken
// it). It records each POST by its order_id: which worker sent it and
// what came back, so that a 409 names the sends of its order_id.
type countingTransport struct {
	gets, posts, conflicts atomic.Int64
	inner                  http.RoundTripper

	mu    sync.Mutex
	sends map[string][]string // order_id -> "worker: answer" of each POST
}

// worker is the RoundTripper of one worker's client.
func (c *countingTransport) worker(name string) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) { return c.roundTrip(name, r) })
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (c *countingTransport) roundTrip(worker string, r *http.Request) (*http.Response, error) {
	order := ""
	switch r.Method {
	case http.MethodGet:
		c.gets.Add(1)
	case http.MethodPost:
		c.posts.Add(1)
		if r.GetBody != nil {
			if b, err := r.GetBody(); err == nil {
				var body struct {
					OrderID string `json:"order_id"`
				}
				_ = json.NewDecoder(b).Decode(&body)
				b.Close()
				order = body.OrderID
			}
		}
	}
	resp, err := c.inner.RoundTrip(r)
	if order != "" {
		answer := ""
		if err != nil {
			answer = "error " + err.Error()
		} else {
			answer = resp.Status
		}
		c.mu.Lock()
		if c.sends == nil {
			c.sends = map[string][]string{}
		}
		c.sends[order] = append(c.sends[order], worker+": "+answer)
		c.mu.Unlock()
	}
	if err == nil && resp.StatusCode == http.StatusConflict {
		c.conflicts.Add(1)
	}
	return resp, err
}

// resent lists the order_ids sent more than once, with their sends.
func (c *countingTransport) resent() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for order, sends := range c.sends {
		if len(sends) > 1 {
			fmt.Fprintf(&b, "%s: %s\n", order, strings.Join(sends, "; "))
		}
	}
	return b.String()
}

// Workers of four journals (four connection pools, as four processes
// would have) drain the same attempts at once: each attempt is taken by
// one of them at a time. Two workers holding one attempt would both find
// nothing and both send it, and one would meet the other's order_id (409);
// none does. When the gateway answers every call (the usual case), each
// attempt costs exactly one lookup and one re-send; a call the machine's
// load makes fail legitimately leaves its attempt for a later take.
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
		inner := http.DefaultTransport.(*http.Transport).Clone()
		inner.MaxIdleConnsPerHost = 64
		t.Cleanup(inner.CloseIdleConnections)
		counted := countingTransport{inner: inner}
		var logs syncBuffer // the workers' records, shown when the test fails
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(logs.String())
			}
		})
		var wg sync.WaitGroup
		var taken atomic.Int64
		for w := range 4 {
			c := newClient(t, srv.URL, openpay.WithHTTPClient(&http.Client{Transport: counted.worker(fmt.Sprint("worker ", w))}))
			j, err := Open(ctx, e.open(t), c, Options{Now: clk.now, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
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
		if counted.conflicts.Load() != 0 {
			t.Fatalf("%d re-sends met another's order_id: two workers held one attempt (taken %d, %d lookups, %d re-sends for %d attempts); the order_ids sent more than once:\n%s",
				counted.conflicts.Load(), taken.Load(), counted.gets.Load(), counted.posts.Load(), n, counted.resent())
		}
		if taken.Load() < n || counted.gets.Load() < n || counted.posts.Load() < n {
			t.Fatalf("taken %d, %d lookups, %d re-sends; want at least %d of each", taken.Load(), counted.gets.Load(), counted.posts.Load(), n)
		}
		if taken.Load() != n {
			t.Logf("taken %d times for %d attempts (%d lookups, %d re-sends): some calls failed and were taken again", taken.Load(), n, counted.gets.Load(), counted.posts.Load())
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

// syncBuffer is a buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
