package refserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/require"
)

// FuzzMoneyRoutes sends arbitrary requests to the routes of customers, bank
// accounts, payouts, transfers, fees and their simulation controls, on a
// server with customers, balances, a bank account, a fee and a payout in
// place. Whatever the input: no panic, no 5xx, a JSON answer, and
// afterwards no balance below zero unless a chargeback took it there (the
// one movement allowed to).
func FuzzMoneyRoutes(f *testing.F) {
	seed := int64(2)
	s := New(Options{IDSeed: &seed, Clock: NewFakeClock(testStart)})
	m, err := s.AddMerchant(MerchantConfig{ID: "mfuzzmoney0000000001", PrivateKey: "sk_money", PublicKey: "pk_money",
		Balance: openpay.MustAmount("1000")})
	require.NoError(f, err)
	a, err := s.CreateCustomer(m.ID, openpayCustomer("Ana", true))
	require.NoError(f, err)
	b, err := s.CreateCustomer(m.ID, openpayCustomer("Beto", true))
	require.NoError(f, err)
	p, err := s.CreateCustomer(m.ID, openpayCustomer("Plain", false))
	require.NoError(f, err)
	for _, id := range []string{a.ID, b.ID} {
		_, err := s.ReceiveSPEI(m.ID, id, openpay.MustAmount("500"), "")
		require.NoError(f, err)
	}
	call := func(method, path, body string) map[string]any {
		req := httptest.NewRequest(method, "/v1/"+m.ID+path, strings.NewReader(body))
		req.SetBasicAuth("sk_money", "")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		var o map[string]any
		require.NoError(f, json.Unmarshal(rec.Body.Bytes(), &o), rec.Body.String())
		require.Equal(f, http.StatusOK, rec.Code, rec.Body.String())
		return o
	}
	acct := call("POST", "/customers/"+a.ID+"/bankaccounts", `{"holder_name":"Ana","clabe":"`+clabeIXE+`"}`)["id"].(string)
	fee := call("POST", "/fees", `{"customer_id":"`+a.ID+`","amount":5,"description":"f"}`)["id"].(string)
	payout := call("POST", "/customers/"+a.ID+"/payouts", `{"method":"bank_account","destination_id":"`+acct+`","amount":5,"description":"p"}`)["id"].(string)
	mm := s.merchantByID(m.ID)

	for _, c := range []struct {
		method, path, body string
		key                byte
	}{
		{"POST", "/customers", `{"name":"x","email":"x@y.co","requires_account":true,"external_id":"e"}`, 1},
		{"POST", "/customers", `{"name":1,"email":null,"address":{"line1":[]}}`, 1},
		{"PUT", "/customers/" + a.ID, `{"name":"x","email":"x@y.co","external_id":"z"}`, 1},
		{"DELETE", "/customers/" + p.ID, "", 1},
		{"DELETE", "/customers/" + a.ID, "", 1},
		{"GET", "/customers?external_id=e&limit=100&creation[gte]=2026-01-01", "", 1},
		{"POST", "/customers/" + b.ID + "/bankaccounts", `{"holder_name":"b","clabe":"` + clabeBanamex + `","alias":"x"}`, 1},
		{"POST", "/customers/" + b.ID + "/bankaccounts", `{"holder_name":"b","clabe":123}`, 1},
		{"DELETE", "/customers/" + a.ID + "/bankaccounts/" + acct, "", 1},
		{"POST", "/payouts", `{"method":"bank_account","destination_id":"` + acct + `","amount":1e400,"description":"d"}`, 1},
		{"POST", "/payouts", `{"method":"card","card":{"card_number":5555555555554444,"holder_name":"h","bank_code":"602"},"amount":9.99,"description":"d","order_id":"o1"}`, 1},
		{"POST", "/customers/" + a.ID + "/payouts", `{"method":"bank_account","bank_account":{"clabe":"` + clabeBancomer + `","holder_name":"h"},"amount":-0,"description":"d"}`, 1},
		{"DELETE", "/customers/" + a.ID + "/payouts/" + payout, "", 1},
		{"DELETE", "/payouts/" + payout, "", 2},
		{"GET", "/payouts?payout_type=ALL&status=IN_PROGRESS&amount[gte]=0.01", "", 1},
		{"POST", "/customers/" + a.ID + "/transfers", `{"customer_id":"` + b.ID + `","amount":1.01,"description":"t","order_id":"o2"}`, 1},
		{"POST", "/customers/" + b.ID + "/transfers", `{"customer_id":"` + b.ID + `","amount":2,"description":"t"}`, 1},
		{"GET", "/customers/" + b.ID + "/transfers?offset=1", "", 1},
		{"POST", "/fees", `{"customer_id":"` + p.ID + `","amount":1,"description":"f"}`, 1},
		{"POST", "/fees/" + fee + "/refund", `{"description":"r"}`, 1},
		{"POST", "/fees/" + fee + "/refund", ``, 0},
		{"GET", "/fees?order_id=x&amount=5", "", 1},
		{"POST", "/_simulate/" + m.ID + "/payouts/" + payout + "/fail", `{"error_message":"no"}`, 1},
		{"POST", "/_simulate/" + m.ID + "/payouts/" + payout + "/settle", ``, 1},
		{"POST", "/_simulate/" + m.ID + "/customers/" + b.ID + "/spei", `{"amount":0.01}`, 1},
		{"POST", "/_simulate/" + m.ID + "/spei", `{"amount":"1","description":7}`, 1},
	} {
		f.Add(c.method, c.path, c.body, c.key)
	}
	f.Fuzz(func(t *testing.T, method, path, body string, key byte) {
		if method == "" || strings.ContainsAny(method, " \t\r\n") {
			method = http.MethodGet
		}
		full := path
		if !strings.HasPrefix(path, "/_simulate/") {
			full = "/v1/" + m.ID + path
		}
		u, err := url.ParseRequestURI(full)
		if err != nil {
			return
		}
		req := &http.Request{Method: method, URL: u, Header: http.Header{}, Host: "example.com",
			Body: http.NoBody, ContentLength: int64(len(body))}
		if body != "" {
			req.Body = readCloser{strings.NewReader(body)}
		}
		switch key % 3 {
		case 1:
			req.SetBasicAuth("sk_money", "")
		case 2:
			req.SetBasicAuth("pk_money", "")
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		res := rec.Result()
		require.Less(t, res.StatusCode, 500, "5xx answer %s", rec.Body.String())
		if ct := res.Header.Get("Content-Type"); ct == "application/json" {
			require.True(t, json.Valid(rec.Body.Bytes()), "invalid JSON: %q", rec.Body.String())
		} else if rec.Body.Len() > 0 {
			require.Equal(t, "image/png", ct)
		}
		v := audit(mm)
		mm.mu.Lock()
		disputed := false
		for _, t := range mm.txList {
			disputed = disputed || (t.later != nil && t.later.chargeback != "") || t.status() == openpay.TransactionStatusChargebackAccepted
		}
		mm.mu.Unlock()
		if disputed {
			return
		}
		require.GreaterOrEqual(t, v.merchant.Cmp(openpay.Amount{}), 0, "merchant balance %s", v.merchant)
		for id, bal := range v.customers {
			require.GreaterOrEqual(t, bal.Cmp(openpay.Amount{}), 0, "customer %s balance %s", id, bal)
		}
	})
}
