package openpay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/openpay-go/openpay"
)

// The benchmarks compare the SDK with the same call written by hand with
// net/http and encoding/json, in one run, against a local server answering
// the documented charge JSON. BENCHMARKS.md has the command and figures.

func benchChargeJSON(b *testing.B) []byte {
	body, err := os.ReadFile("testdata/examples/charges--get-a-charge.json")
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func benchServer(b *testing.B) *httptest.Server {
	body := benchChargeJSON(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func benchClient(b *testing.B, srv *httptest.Server, opts ...openpay.Option) *openpay.Client {
	c, err := openpay.New(testMerchant, testKey, append([]openpay.Option{openpay.WithBaseURL(srv.URL)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// handwritten does one call the way a careful program would without the
// SDK: a client with the same per-attempt timeout, the same headers, and a
// decode into the same type.
func handwritten(ctx context.Context, hc *http.Client, method, url string, body []byte) (*openpay.Transaction, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(testKey, "")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "handwritten/1.0")
	if method == http.MethodPost {
		req.Header.Set("X-Forwarded-For", "203.0.113.7")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %v", resp.StatusCode, err)
	}
	var tx openpay.Transaction
	return &tx, json.Unmarshal(data, &tx)
}

func benchCharge() openpay.CardCharge {
	return openpay.CardCharge{SourceID: "kqgykn96i7bcs1wwhvgw", Amount: openpay.MustAmount("100.00"),
		Description: "Cargo inicial a mi cuenta", OrderID: "oid-00052", DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}
}

// BenchmarkChargesGet: Charges.Get through the SDK and by hand.
func BenchmarkChargesGet(b *testing.B) {
	srv := benchServer(b)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, srv)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Charges.Get(ctx, "tr6cxbcefzatd10guvvw"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		hc := &http.Client{Timeout: openpay.DefaultTimeout}
		url := srv.URL + "/v1/" + testMerchant + "/charges/tr6cxbcefzatd10guvvw"
		b.ReportAllocs()
		for b.Loop() {
			if _, err := handwritten(ctx, hc, http.MethodGet, url, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkChargesCreate: Charges.Create (a card charge with an order_id,
// so the SDK traces the connection for safe retries) through the SDK and by
// hand.
func BenchmarkChargesCreate(b *testing.B) {
	srv := benchServer(b)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, srv)
		ip := openpay.WithClientIP("203.0.113.7")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Charges.Create(ctx, benchCharge(), ip); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		hc := &http.Client{Timeout: openpay.DefaultTimeout}
		url := srv.URL + "/v1/" + testMerchant + "/charges"
		b.ReportAllocs()
		for b.Loop() {
			body, err := json.Marshal(benchCharge())
			if err != nil {
				b.Fatal(err)
			}
			body = append([]byte(`{"method":"card",`), body[1:]...)
			if _, err := handwritten(ctx, hc, http.MethodPost, url, body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkConcurrentGet: 64 concurrent callers sharing one client. The
// SDK's default pool against a client tuned by hand with 64 idle
// connections per host (Go's default of 2 makes concurrent callers open and
// close connections all the time).
func BenchmarkConcurrentGet(b *testing.B) {
	srv := benchServer(b)
	ctx := context.Background()
	run := func(b *testing.B, c *openpay.Client) {
		b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Charges.Get(ctx, "tr6cxbcefzatd10guvvw"); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("sdk-default", func(b *testing.B) {
		run(b, benchClient(b, srv))
	})
	b.Run("tuned-64", func(b *testing.B) {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns = 64
		tr.MaxIdleConnsPerHost = 64
		b.Cleanup(tr.CloseIdleConnections)
		run(b, benchClient(b, srv, openpay.WithHTTPClient(&http.Client{Transport: tr, Timeout: openpay.DefaultTimeout})))
	})
	b.Run("go-default-2", func(b *testing.B) {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		b.Cleanup(tr.CloseIdleConnections)
		run(b, benchClient(b, srv, openpay.WithHTTPClient(&http.Client{Transport: tr, Timeout: openpay.DefaultTimeout})))
	})
}

// benchPageJSON is a page of 100 charges: the documented charge, 100 times.
func benchPageJSON(b *testing.B) []byte {
	one := bytes.TrimSpace(benchChargeJSON(b))
	page := []byte{'['}
	for i := range 100 {
		if i > 0 {
			page = append(page, ',')
		}
		page = append(page, one...)
	}
	return append(page, ']')
}

// BenchmarkChargesListPage: Charges.ListPage of 100 charges through the SDK
// and by hand, against an answer with its Content-Length (as the reference
// server sends) and one sent chunked, with no length.
func BenchmarkChargesListPage(b *testing.B) {
	page := benchPageJSON(b)
	ctx := context.Background()
	for _, withLength := range []bool{true, false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if withLength {
				w.Header().Set("Content-Length", strconv.Itoa(len(page)))
			}
			w.Write(page)
		}))
		suffix := ""
		if !withLength {
			suffix = "-chunked"
		}
		b.Run("sdk"+suffix, func(b *testing.B) {
			c := benchClient(b, srv)
			params := &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: 100}}
			b.ReportAllocs()
			for b.Loop() {
				got, err := c.Charges.ListPage(ctx, params)
				if err != nil || len(got) != 100 {
					b.Fatal(len(got), err)
				}
			}
		})
		b.Run("handwritten"+suffix, func(b *testing.B) {
			hc := &http.Client{Timeout: openpay.DefaultTimeout}
			url := srv.URL + "/v1/" + testMerchant + "/charges?limit=100"
			b.ReportAllocs()
			for b.Loop() {
				got, err := handwrittenPage(ctx, hc, url)
				if err != nil || len(got) != 100 {
					b.Fatal(len(got), err)
				}
			}
		})
		srv.Close()
	}
}

// handwrittenPage is handwritten for a GET of a list page.
func handwrittenPage(ctx context.Context, hc *http.Client, url string) ([]openpay.Transaction, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(testKey, "")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "handwritten/1.0")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %v", resp.StatusCode, err)
	}
	var page []openpay.Transaction
	return page, json.Unmarshal(data, &page)
}
