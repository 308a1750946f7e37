package openpay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// benchChargeJSON is the documented "get a charge" response, served by the
// benchmark server.
func benchChargeJSON(b *testing.B) []byte {
	body, err := os.ReadFile("../shared/spec/examples/charges--get-a-charge.json")
	if err != nil {
		// Fall back to a compact charge so the benchmark runs anywhere.
		body = []byte(`{"id":"tr6cxbcefzatd10guvvw","amount":100.0,"authorization":"801585","method":"card",` +
			`"operation_type":"in","transaction_type":"charge","status":"completed","currency":"MXN",` +
			`"creation_date":"2014-05-26T11:56:25-05:00","description":"Cargo inicial","order_id":"oid-00052"}`)
	}
	return body
}

func benchServer(b *testing.B) *httptest.Server {
	body := benchChargeJSON(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkGet compares a GET of a charge through the SDK's core (request
// building, retry transport, decoding into Transaction) with the same call
// written by hand with net/http and encoding/json, in one run.
func BenchmarkGet(b *testing.B) {
	srv := benchServer(b)
	path := "/v1/mzdtln0bmtms6o3kck8f/charges/tr6cxbcefzatd10guvvw"

	b.Run("sdk", func(b *testing.B) {
		c, err := New("mzdtln0bmtms6o3kck8f", "sk_e568c42a6c384b7ab02cd47d2e407cab", WithBaseURL(srv.URL))
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			var tx Transaction
			p, err := buildPath([]string{"v1", c.merchantID}, []string{"charges", "tr6cxbcefzatd10guvvw"})
			if err != nil {
				b.Fatal(err)
			}
			if err := c.send(ctx, apiRequest{method: http.MethodGet, path: p}, &tx); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("handwritten", func(b *testing.B) {
		// The same work by hand: a client with the same per-attempt timeout,
		// the same headers, and a decode into the same type.
		hc := &http.Client{Timeout: DefaultTimeout}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.SetBasicAuth("sk_e568c42a6c384b7ab02cd47d2e407cab", "")
			req.Header.Set("Accept", "application/json")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("User-Agent", "handwritten/1.0")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(fmt.Sprint(resp.StatusCode, err))
			}
			var tx Transaction
			if err := json.Unmarshal(data, &tx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
