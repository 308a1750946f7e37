package refserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/openpay-go/openpay/tests/internal/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// api calls the reference server's API over HTTP as the merchant, as the
// gateway's wire has it, and decodes the JSON object it answers with
// status want.
func api(t *testing.T, srv *openpaytest.Server, method, path string, body any, want int) map[string]any {
	t.Helper()
	var payload bytes.Buffer
	if body != nil {
		require.NoError(t, json.NewEncoder(&payload).Encode(body))
	}
	req, err := http.NewRequest(method, srv.URL+"/v1/"+srv.MerchantID+path, &payload)
	require.NoError(t, err)
	req.SetBasicAuth(srv.PrivateKey, "")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", "203.0.113.7")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	require.Equal(t, want, res.StatusCode, "%s %s: %v", method, path, out)
	return out
}

// TestBrowserPSEPage: in headless Chromium, the payer of a Colombian PSE
// charge opens the bank page, approves or rejects, and lands on the
// shop's return page with the charge id; the API shows the outcome. It
// runs on a server in memory and on one with a data directory, as the
// reference server's own tests run both ways.
func TestBrowserPSEPage(t *testing.T) {
	browser := webtest.Browser(t)
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><p id="back">back for %s</p>`, r.URL.Query().Get("id"))
	}))
	t.Cleanup(shop.Close)
	for _, where := range []string{"in memory", "with a data directory"} {
		t.Run(where, func(t *testing.T) {
			opts := []openpaytest.Option{openpaytest.WithCountry(openpay.CountryColombia)}
			if where != "in memory" {
				opts = append(opts, openpaytest.WithDataDir(t.TempDir()))
			}
			srv := openpaytest.NewServer(t, opts...)
			for _, tc := range []struct{ button, status string }{{"approve", "completed"}, {"fail", "failed"}} {
				t.Run(tc.button, func(t *testing.T) {
					o := api(t, srv, http.MethodPost, "/charges", map[string]any{"method": "bank_account", "amount": 10000,
						"currency": "COP", "description": "Cargo inicial", "iva": "1900", "redirect_url": shop.URL + "/return",
						"customer": map[string]any{"name": "Cliente Colombia", "last_name": "Vazquez Juarez",
							"email": "juan.vazquez@empresa.co", "phone_number": "4448936475", "requires_account": false,
							"customer_address": map[string]any{"department": "Antioquia", "city": "Medellín",
								"additional": "Avenida 7m bis #174-25"}}}, http.StatusOK)
					id, pageURL := o["id"].(string), o["payment_method"].(map[string]any)["url"].(string)
					tab := webtest.Tab(t, browser, pageURL)
					webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID(tc.button)))
					assert.Contains(t, webtest.Eval[string](t, tab, "document.getElementById('amount').textContent"), "COP")
					webtest.Do(t, tab, chromedp.Click(chromedp.ID(tc.button)))
					webtest.Do(t, tab, chromedp.WaitVisible(chromedp.ID("back")))
					back, err := chromedp.Run(tab, chromedp.Text(chromedp.ID("back")))
					require.NoError(t, err)
					assert.Equal(t, "back for "+id, back)
					assert.Equal(t, "/return", webtest.Eval[string](t, tab, "location.pathname"))
					require.Equal(t, tc.status, api(t, srv, http.MethodGet, "/charges/"+id, nil, http.StatusOK)["status"])
				})
			}
		})
	}
}
