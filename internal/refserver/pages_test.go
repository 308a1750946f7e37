package refserver

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hosted pages over HTTP, as a payer's browser drives them: GET the
// page at payment_method.url, POST its form, follow the 303 back to the
// shop; then the charge, its events and a webhook delivery over the API.

const banner = "Openpay reference server — not the real gateway"

// pageResp is a page's answer.
type pageResp struct {
	status   int
	location string
	body     string
	header   http.Header
}

// browse sends a page request without following redirects; form nil sends
// a GET.
func browse(t *testing.T, env *testEnv, rawURL string, form url.Values) pageResp {
	t.Helper()
	if strings.HasPrefix(rawURL, "/") {
		rawURL = env.srv.URL + rawURL
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var res *http.Response
	var err error
	if form == nil {
		res, err = client.Get(rawURL)
	} else {
		res, err = client.PostForm(rawURL, form)
	}
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if res.StatusCode != http.StatusSeeOther {
		assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
		assert.Contains(t, string(data), banner, "every page says it is the reference server")
	}
	return pageResp{status: res.StatusCode, location: res.Header.Get("Location"), body: string(data), header: res.Header}
}

var tokenRE = regexp.MustCompile(`name="token" value="([^"]+)"`)

// token is the form token of a page.
func (p pageResp) token(t *testing.T) string {
	t.Helper()
	m := tokenRE.FindStringSubmatch(p.body)
	require.NotNil(t, m, "no form token in %s", p.body)
	return m[1]
}

// hookedEnv is a test server whose main merchant has a webhook for the
// charge events, already verified.
func hookedEnv(t *testing.T) (*testEnv, *receiver) {
	env := newTestEnv(t, Options{})
	rc := newReceiver(t, nil)
	requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded", "charge.failed", "charge.cancelled")), http.StatusCreated)
	rc.waitFor(1)
	return env, rc
}

// assertOutcome checks the charge over the API, its last event and the
// webhook delivered for it (the receiver's next request).
func assertOutcome(t *testing.T, env *testEnv, rc *receiver, id string, status openpay.TransactionStatus, event openpay.EventType, errMsg string) {
	t.Helper()
	o := requireOK(t, env.get("/charges/"+id), http.StatusOK)
	assert.Equal(t, string(status), o["status"])
	if errMsg != "" {
		assert.Equal(t, errMsg, o["error_message"])
	}
	evs := env.s.Events(env.m.ID)
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	assert.Equal(t, event, last.Type)
	assert.Equal(t, id, last.Transaction.ID)
	got := rc.waitFor(2)
	assert.Equal(t, event, got[1].event.Type)
	if assert.NotNil(t, got[1].event.Transaction) {
		assert.Equal(t, id, got[1].event.Transaction.ID)
		assert.Equal(t, status, got[1].event.Transaction.Status)
	}
}

func redirectCharge(t *testing.T, env *testEnv, back string) (id, pageURL string) {
	t.Helper()
	customer := map[string]any{"name": "Juan", "last_name": "Vazquez", "email": "juan@example.com", "phone_number": "4423456723"}
	o := requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 100, "description": "terminal", "confirm": false,
		"redirect_url": back, "customer": customer}), http.StatusOK)
	return o["id"].(string), o["payment_method"].(map[string]any)["url"].(string)
}

func cardForm(token, number string) url.Values {
	return url.Values{"token": {token}, "holder_name": {"Juan Perez"}, "card_number": {number},
		"expiration_month": {"12"}, "expiration_year": {"30"}, "cvv2": {"123"}}
}

// TestPageCardForm: the card page of a redirect charge; the test-card
// table decides; a 3-D Secure card passes the challenge first.
func TestPageCardForm(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, number, challenge string
		status                  openpay.TransactionStatus
		event                   openpay.EventType
		errMsg                  string
	}{
		{"approved", "4111111111111111", "", openpay.TransactionStatusCompleted, openpay.EventTypeChargeSucceeded, ""},
		{"approved with spaces", "4242 4242 4242 4242", "", openpay.TransactionStatusCompleted, openpay.EventTypeChargeSucceeded, ""},
		{"3001 declined", "4000000000030017", "", openpay.TransactionStatusFailed, openpay.EventTypeChargeFailed, "The card was declined"},
		{"3002 expired", "4000000000000069", "", openpay.TransactionStatusFailed, openpay.EventTypeChargeFailed, "The card has expired"},
		{"3003 funds", "4444444444444448", "", openpay.TransactionStatusFailed, openpay.EventTypeChargeFailed, "The card doesn't have sufficient funds"},
		{"3005 fraud", "4000000000030058", "", openpay.TransactionStatusFailed, openpay.EventTypeChargeFailed, "Fraud risk detected by anti-fraud system"},
		{"3-D Secure approved", "5454545454545454", "approve", openpay.TransactionStatusCompleted, openpay.EventTypeChargeSucceeded, ""},
		{"3-D Secure failed", "5454545454545454", "fail", openpay.TransactionStatusFailed, openpay.EventTypeChargeFailed, "The card was declined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, rc := hookedEnv(t)
			id, pageURL := redirectCharge(t, env, "https://shop.example/back?wc-api=openpay")
			page := browse(t, env, pageURL, nil)
			require.Equal(t, http.StatusOK, page.status)
			for _, el := range []string{`id="holder_name"`, `id="card_number"`, `id="expiration_month"`, `id="expiration_year"`, `id="cvv2"`, `id="pay"`} {
				assert.Contains(t, page.body, el)
			}
			res := browse(t, env, pageURL, cardForm(page.token(t), tc.number))
			require.Equal(t, http.StatusSeeOther, res.status, res.body)
			if tc.challenge != "" {
				require.Contains(t, res.location, "/charges/"+id+"/redirect/?challenge=")
				assert.Equal(t, "charge_pending", requireOK(t, env.get("/charges/"+id), http.StatusOK)["status"])
				ch := browse(t, env, res.location, nil)
				require.Equal(t, http.StatusOK, ch.status)
				assert.Contains(t, ch.body, `id="approve"`)
				assert.Contains(t, ch.body, `id="fail"`)
				res = browse(t, env, strings.SplitN(res.location, "?", 2)[0], url.Values{"token": {ch.token(t)}, "action": {tc.challenge}})
				require.Equal(t, http.StatusSeeOther, res.status, res.body)
			}
			assert.Equal(t, "https://shop.example/back?wc-api=openpay&id="+id, res.location)
			assertOutcome(t, env, rc, id, tc.status, tc.event, tc.errMsg)
			card := requireOK(t, env.get("/charges/"+id), http.StatusOK)["card"].(map[string]any)
			assert.NotContains(t, card["card_number"], "1111111111", "the card shows masked")
		})
	}
}

// TestPageCardFormInvalidCard: card data the card rules refuse show the
// form again with the reason; the charge waits on.
func TestPageCardFormInvalidCard(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id, pageURL := redirectCharge(t, env, "/")
	page := browse(t, env, pageURL, nil)
	for number, msg := range map[string]string{"4111111111111112": "verification digit", "": "16 or 19 digits"} {
		res := browse(t, env, pageURL, cardForm(page.token(t), number))
		assert.Equal(t, http.StatusUnprocessableEntity, res.status)
		assert.Contains(t, res.body, msg)
		assert.Contains(t, res.body, `value="Juan Perez"`, "the holder is kept")
		assert.NotContains(t, res.body, `value="123"`, "the cvv is never sent back")
	}
	assert.Equal(t, "charge_pending", requireOK(t, env.get("/charges/"+id), http.StatusOK)["status"])
	// A relative redirect_url gets the id as well.
	res := browse(t, env, pageURL, cardForm(page.token(t), "4111111111111111"))
	assert.Equal(t, "/?id="+id, res.location)
}

// TestPageThreeDSecure: the challenge of a card charge made with a 3-D
// Secure card or use_3d_secure.
func TestPageThreeDSecure(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, number, action string
		extra                []any
		status               openpay.TransactionStatus
		event                openpay.EventType
	}{
		{"test card approved", "5454545454545454", "approve", nil, openpay.TransactionStatusCompleted, openpay.EventTypeChargeSucceeded},
		{"test card failed", "5454545454545454", "fail", nil, openpay.TransactionStatusFailed, openpay.EventTypeChargeFailed},
		{"use_3d_secure approved", "4111111111111111", "approve", []any{"use_3d_secure", true}, openpay.TransactionStatusCompleted, openpay.EventTypeChargeSucceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, rc := hookedEnv(t)
			card := storedCard(t, env, "", tc.number)
			o := requireOK(t, env.post("/charges", cardCharge(card, append([]any{"redirect_url", "https://shop.example/back"}, tc.extra...)...)), http.StatusOK)
			id, pageURL := o["id"].(string), o["payment_method"].(map[string]any)["url"].(string)
			page := browse(t, env, pageURL, nil)
			require.Equal(t, http.StatusOK, page.status)
			res := browse(t, env, pageURL, url.Values{"token": {page.token(t)}, "action": {tc.action}})
			require.Equal(t, http.StatusSeeOther, res.status, res.body)
			assert.Equal(t, "https://shop.example/back?id="+id, res.location)
			assertOutcome(t, env, rc, id, tc.status, tc.event, "")
		})
	}
	// capture false: a pre-authorization once authenticated, as with the
	// complete control.
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "5454545454545454")
	o := requireOK(t, env.post("/charges", cardCharge(card, "redirect_url", "https://shop.example/back", "capture", false)), http.StatusOK)
	pageURL := o["payment_method"].(map[string]any)["url"].(string)
	page := browse(t, env, pageURL, nil)
	require.Equal(t, http.StatusSeeOther, browse(t, env, pageURL, url.Values{"token": {page.token(t)}, "action": {"approve"}}).status)
	assert.Equal(t, "in_progress", requireOK(t, env.get("/charges/"+o["id"].(string)), http.StatusOK)["status"])
}

// TestPageAlipay: pay completes, cancel cancels.
func TestPageAlipay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		action string
		status openpay.TransactionStatus
		event  openpay.EventType
	}{
		{"pay", openpay.TransactionStatusCompleted, openpay.EventTypeChargeSucceeded},
		{"cancel", openpay.TransactionStatusCancelled, openpay.EventTypeChargeCancelled},
	}
	for _, tc := range cases {
		t.Run(tc.action, func(t *testing.T) {
			t.Parallel()
			env, rc := hookedEnv(t)
			o := requireOK(t, env.post("/charges", map[string]any{"method": "alipay", "amount": 2000, "description": "Cargo Alipay",
				"redirect_url": "https://shop.example/back#done"}), http.StatusOK)
			id, pageURL := o["id"].(string), o["payment_method"].(map[string]any)["url"].(string)
			page := browse(t, env, pageURL, nil)
			require.Equal(t, http.StatusOK, page.status)
			assert.Contains(t, page.body, `id="pay"`)
			assert.Contains(t, page.body, `id="cancel"`)
			res := browse(t, env, pageURL, url.Values{"token": {page.token(t)}, "action": {tc.action}})
			require.Equal(t, http.StatusSeeOther, res.status, res.body)
			assert.Equal(t, "https://shop.example/back?id="+id+"#done", res.location)
			assertOutcome(t, env, rc, id, tc.status, tc.event, "")
		})
	}
}

// TestPageBadInput: unknown charges, wrong tokens, charges already final,
// pages of the wrong kind: an HTML error page with a 4xx status, and the
// charge unchanged.
func TestPageBadInput(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id, cardURL := redirectCharge(t, env, "https://shop.example/back")
	o := requireOK(t, env.post("/charges", map[string]any{"method": "alipay", "amount": 100, "description": "a", "redirect_url": "https://shop.example/back"}), http.StatusOK)
	alipayID, alipayURL := o["id"].(string), o["payment_method"].(map[string]any)["url"].(string)
	cardToken := browse(t, env, cardURL, nil).token(t)
	alipayToken := browse(t, env, alipayURL, nil).token(t)
	base := "/v1/" + env.m.ID + "/charges/"

	cases := []struct {
		name   string
		url    string
		form   url.Values
		status int
	}{
		{"unknown charge", base + "tr0000000000000000000/card_capture", nil, http.StatusNotFound},
		{"another merchant's charge", "/v1/" + env.other.ID + "/charges/" + id + "/card_capture", nil, http.StatusNotFound},
		{"no token", cardURL, cardForm("", "4111111111111111"), http.StatusForbidden},
		{"another charge's token", cardURL, cardForm(alipayToken, "4111111111111111"), http.StatusForbidden},
		{"the card token on the challenge", base + id + "/redirect/", url.Values{"token": {cardToken}, "action": {"approve"}}, http.StatusForbidden},
		{"challenge before the card", base + id + "/redirect/", nil, http.StatusForbidden},
		{"challenge with a forged token", base + id + "/redirect/?challenge=x", nil, http.StatusForbidden},
		{"card form of an alipay charge", base + alipayID + "/card_capture", nil, http.StatusNotFound},
		{"unknown action", alipayURL, url.Values{"token": {alipayToken}, "action": {"approve"}}, http.StatusBadRequest},
		{"store receipt of a redirect charge", "/paynet-pdf/" + env.m.ID + "/transaction/" + id, nil, http.StatusNotFound},
		{"bank receipt of an alipay charge", "/spei-pdf/" + env.m.ID + "/" + alipayID, nil, http.StatusNotFound},
	}
	for _, tc := range cases {
		res := browse(t, env, tc.url, tc.form)
		assert.Equal(t, tc.status, res.status, tc.name)
		assert.Contains(t, res.body, `id="message"`, tc.name)
	}
	req, err := http.NewRequest(http.MethodPut, env.srv.URL+cardURL[len(env.srv.URL):], nil)
	require.NoError(t, err)
	res, err := env.srv.Client().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	assert.Equal(t, "charge_pending", requireOK(t, env.get("/charges/"+id), http.StatusOK)["status"])
	assert.Equal(t, "charge_pending", requireOK(t, env.get("/charges/"+alipayID), http.StatusOK)["status"])

	// Already final: the page says so and offers the way back; a form
	// posted now is a conflict and changes nothing.
	_, err = env.s.FailCharge(env.m.ID, id, 0)
	require.NoError(t, err)
	page := browse(t, env, cardURL, nil)
	assert.Equal(t, http.StatusOK, page.status)
	assert.Contains(t, page.body, `data-status="failed" id="status">not paid: it failed</strong>`)
	assert.Contains(t, page.body, `id="return" href="https://shop.example/back?id=`+id+`"`)
	res2 := browse(t, env, cardURL, cardForm(cardToken, "4111111111111111"))
	assert.Equal(t, http.StatusConflict, res2.status)
	assert.Equal(t, "failed", requireOK(t, env.get("/charges/"+id), http.StatusOK)["status"])
	_, err = env.s.CompleteCharge(env.m.ID, alipayID)
	require.NoError(t, err)
	res2 = browse(t, env, alipayURL, url.Values{"token": {alipayToken}, "action": {"cancel"}})
	assert.Equal(t, http.StatusConflict, res2.status)
	assert.Equal(t, "completed", requireOK(t, env.get("/charges/"+alipayID), http.StatusOK)["status"])
}

// TestPageReceipts: the printable receipts of store and bank charges at the
// gateway's dashboard paths, on the server's host.
func TestPageReceipts(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	o := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 150, "description": "tienda"}), http.StatusOK)
	pm := o["payment_method"].(map[string]any)
	page := browse(t, env, "/paynet-pdf/"+env.m.ID+"/transaction/"+o["id"].(string), nil)
	require.Equal(t, http.StatusOK, page.status)
	assert.Contains(t, page.body, `<dd id="reference">`+pm["reference"].(string)+`</dd>`)
	assert.Contains(t, page.body, `<img id="barcode" src="`+strings.ReplaceAll(pm["barcode_url"].(string), "&", "&amp;")+`"`)
	assert.Contains(t, page.body, `id="amount">150.00 MXN</dd>`)
	assert.Contains(t, page.body, `id="due_date"`)
	assert.Contains(t, page.body, "<li>7-ELEVEN</li>")
	assert.Contains(t, page.body, "@media print")
	img, err := env.srv.Client().Get(pm["barcode_url"].(string))
	require.NoError(t, err)
	img.Body.Close()
	assert.Equal(t, http.StatusOK, img.StatusCode, "the receipt's barcode image is served")
	o = requireOK(t, env.post("/charges", map[string]any{"method": "bank_account", "amount": 150, "description": "banco"}), http.StatusOK)
	pm = o["payment_method"].(map[string]any)
	page = browse(t, env, "/spei-pdf/"+env.m.ID+"/"+o["id"].(string), nil)
	require.Equal(t, http.StatusOK, page.status)
	for _, k := range []string{"clabe", "bank", "agreement", "name"} {
		assert.Contains(t, page.body, `<dd id="`+k+`">`+pm[k].(string)+`</dd>`, k)
	}
}

// TestPagesLeaveAPIPathsAlone: no path of an API route or simulation
// control is taken by the pages, which the server consults first.
func TestPagesLeaveAPIPathsAlone(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	for _, rt := range s.routes.routes {
		concrete := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(rt.pattern, "x1")
		assert.False(t, s.pages.Handles(concrete), "%s %s", rt.operationID, concrete)
	}
}

// TestPageCustomerScopeAndFraudEmail: a customer's 3-D Secure charge has
// its page at the merchant's address; a redirect charge whose payer has the
// anti-fraud e-mail is declined with 3005 whatever the card, as a card
// charge would be.
func TestPageCustomerScopeAndFraudEmail(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)["id"].(string)
	card := storedCard(t, env, "/customers/"+cu, "5454545454545454")
	o := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(card, "redirect_url", "https://shop.example/back")), http.StatusOK)
	id, pageURL := o["id"].(string), o["payment_method"].(map[string]any)["url"].(string)
	page := browse(t, env, pageURL, nil)
	require.Equal(t, http.StatusOK, page.status)
	res := browse(t, env, pageURL, url.Values{"token": {page.token(t)}, "action": {"approve"}})
	assert.Equal(t, "https://shop.example/back?id="+id, res.location)
	assert.Equal(t, "completed", requireOK(t, env.get("/customers/"+cu+"/charges/"+id), http.StatusOK)["status"])

	customer := map[string]any{"name": "Juan", "email": cardnum.FraudEmail}
	o = requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 100, "description": "terminal", "confirm": false,
		"redirect_url": "https://shop.example/back", "customer": customer}), http.StatusOK)
	id, pageURL = o["id"].(string), o["payment_method"].(map[string]any)["url"].(string)
	page = browse(t, env, pageURL, nil)
	res = browse(t, env, pageURL, cardForm(page.token(t), "4111111111111111"))
	assert.Equal(t, "https://shop.example/back?id="+id, res.location)
	o = requireOK(t, env.get("/charges/"+id), http.StatusOK)
	assert.Equal(t, "failed", o["status"])
	assert.Equal(t, "Fraud risk detected by anti-fraud system", o["error_message"])
}
