package refserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
)

// benchClients is the number of concurrent clients of the throughput
// benchmarks.
const benchClients = 16

// runClients sends b.N POST requests from benchClients goroutines, each
// with its own body from body(i), and reports requests per second.
func runClients(b *testing.B, url, key string, body func(i int64) []byte) {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 2 * benchClients, MaxIdleConnsPerHost: 2 * benchClients}}
	defer client.CloseIdleConnections()
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range benchClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body(i)))
				req.SetBasicAuth(key, "")
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Forwarded-For", "203.0.113.7")
				res, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d requests failed", n, b.N)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
}

// BenchmarkServerPostCharges measures POST /v1/{merchant_id}/charges on the
// reference server over HTTP: card charges to a stored card, each with its
// own order_id, from 16 concurrent clients (one merchant, so every charge
// goes through the same merchant lock).
func BenchmarkServerPostCharges(b *testing.B) {
	s := New(Options{})
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	m, err := s.AddMerchant(MerchantConfig{})
	if err != nil {
		b.Fatal(err)
	}
	res, err := postJSON(srv.URL+"/v1/"+m.ID+"/cards", m.PrivateKey, validCard("4111111111111111"))
	if err != nil {
		b.Fatal(err)
	}
	var card struct{ ID string }
	if err := json.Unmarshal(res, &card); err != nil || card.ID == "" {
		b.Fatalf("card: %s", res)
	}
	runClients(b, srv.URL+"/v1/"+m.ID+"/charges", m.PrivateKey, func(i int64) []byte {
		return []byte(fmt.Sprintf(`{"method":"card","source_id":%q,"amount":100.50,"currency":"MXN","description":"Order %d","order_id":"bench-%d","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`,
			card.ID, i, i))
	})
}

// BenchmarkMinimalJSONHandlerPostCharges is the yardstick: a minimal
// net/http handler that decodes the same request into the wire type and
// answers a fixed transaction, no validation, no state, no auth check.
func BenchmarkMinimalJSONHandlerPostCharges(b *testing.B) {
	answer := openpay.Transaction{ID: "trzjaozcik8msyqshka4", Amount: openpay.MustAmount("100.50"), Authorization: "801585",
		Method: "card", OperationType: "in", TransactionType: "charge", Status: "completed", Currency: "MXN",
		CreationDate: testStart, OperationDate: testStart, Description: "Order", OrderID: "bench",
		Card: &openpay.Card{ID: "kqgykn96i7bcs1wwhvgw", Type: "debit", Brand: "visa", CardNumber: "411111XXXXXX1111",
			HolderName: "Juan Perez", ExpirationYear: "30", ExpirationMonth: "12", AllowsCharges: true, AllowsPayouts: true,
			CreationDate: testStart, BankName: "BANAMEX", BankCode: "002"}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openpay.CardCharge
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	runClients(b, srv.URL+"/v1/m/charges", "sk_x", func(i int64) []byte {
		return []byte(fmt.Sprintf(`{"method":"card","source_id":"kqgykn96i7bcs1wwhvgw","amount":100.50,"currency":"MXN","description":"Order %d","order_id":"bench-%d","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`,
			i, i))
	})
}

func postJSON(url, key string, body any) ([]byte, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(key, "")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}
