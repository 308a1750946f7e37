package refserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay/internal/web/webtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserPSEPage: in headless Chromium, the payer of a Colombian PSE
// charge opens the bank page, approves or rejects, and lands on the
// shop's return page with the charge id; the API shows the outcome.
func TestBrowserPSEPage(t *testing.T) {
	browser := webtest.Browser(t)
	env := countryEnv(t, "CO")
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><p id="back">back for %s</p>`, r.URL.Query().Get("id"))
	}))
	t.Cleanup(shop.Close)
	for _, tc := range []struct{ button, status string }{{"approve", "completed"}, {"fail", "failed"}} {
		t.Run(tc.button, func(t *testing.T) {
			o := requireOK(t, env.post("/charges", pseBody("redirect_url", shop.URL+"/return")), http.StatusOK)
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
			require.Equal(t, tc.status, requireOK(t, env.get("/charges/"+id), http.StatusOK)["status"])
		})
	}
}
