package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReturnURL(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"https://shop.example/back", "https://shop.example/back?id=tr1"},
		{"https://shop.example/?wc-api=openpay", "https://shop.example/?wc-api=openpay&id=tr1"},
		{"https://shop.example/back?", "https://shop.example/back?id=tr1"},
		{"https://shop.example/back?a=1&", "https://shop.example/back?a=1&id=tr1"},
		{"https://shop.example/back#top", "https://shop.example/back?id=tr1#top"},
		{"/", "/?id=tr1"},
		{"shop.example/back", "shop.example/back?id=tr1"},
		{"", ""},
		// Nothing but http(s) or a relative URL is ever a way back, even
		// when a data directory holds one from before the API refused them.
		{"javascript:alert(document.domain)//", ""},
		{"JavaScript:alert(1)", ""},
		{"data:text/html,<script>alert(1)</script>", ""},
		{"file:///etc/passwd", ""},
		{"http:/no-host", ""},
		{"https://shop.example/a b", ""},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, returnURL(tc.in, "tr1"), tc.in)
	}
}

func TestRoute(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path     string
		pg       page
		mid, cid string
	}{
		{"/v1/m1/charges/tr1/card_capture", pageCard, "m1", "tr1"},
		{"/v1/m1/charges/tr1/redirect/", pageRedirect, "m1", "tr1"},
		{"/v1/m1/charges/tr1/redirect", pageRedirect, "m1", "tr1"},
		{"/paynet-pdf/m1/transaction/tr1", pageStoreReceipt, "m1", "tr1"},
		{"/spei-pdf/m1/tr1", pageBankReceipt, "m1", "tr1"},
		{"/v1/m1/charges/tr1", pageNone, "", ""},
		{"/v1/m1/charges/tr1/capture", pageNone, "", ""},
		{"/v1/m1/charges//card_capture", pageNone, "", ""},
		{"/v1/m1/charges/tr1/card_capture/", pageNone, "", ""},
		{"/spei-pdf/m1", pageNone, "", ""},
		{"/checkout/m1/c1", pageCheckout, "m1", "c1"},
		{"/checkout/m1/", pageNone, "", ""},
		{"/checkout/m1/c1/pay", pageNone, "", ""},
		{"/v1/m1/charges/tr1/redirect/x/y", pageNone, "", ""},
		{"/v1/m1/customers/c1/charges/tr1/redirect/", pageNone, "", ""},
		{"/", pageNone, "", ""},
		{"", pageNone, "", ""},
		{"v1/m1/charges/tr1/card_capture", pageCard, "m1", "tr1"},
		{"/v1/m1/charges/tr1/redirectx", pageNone, "", ""},
		{"/v1/m1/charges/tr1/xredirect", pageNone, "", ""},
		{"/v1/m1/charges/tr1/card_capturex", pageNone, "", ""},
		{"/v2/m1/charges/tr1/redirect", pageNone, "", ""},
		{"/checkoutx/m1/c1", pageNone, "", ""},
		{"/spei-pdfx/m1/tr1", pageNone, "", ""},
		{"/paynet-pdf/m1/transactionx/tr1", pageNone, "", ""},
	}
	for _, tc := range cases {
		pg, mid, cid := routePage(tc.path)
		assert.Equal(t, tc.pg, pg, tc.path)
		assert.Equal(t, tc.mid, mid, tc.path)
		assert.Equal(t, tc.cid, cid, tc.path)
	}
}

// TestHandlesDoesNotAllocate: every API request asks whether it is a page's.
func TestHandlesDoesNotAllocate(t *testing.T) {
	p := &Pages{}
	assert.Zero(t, testing.AllocsPerRun(100, func() { p.Handles("/v1/m1/customers/c1/transfers") }), "Handles allocates")
}

// stuck is a backend whose one charge refuses every change, as when the
// charge moved on between the page and the form.
type stuck struct{ ch PageCharge }

func (b *stuck) Charge(_, id string) (PageCharge, error) {
	if id != b.ch.Transaction.ID {
		return PageCharge{}, ErrNoCharge
	}
	return b.ch, nil
}
func (b *stuck) EnterCard(string, string, PayerCard) (CardOutcome, error) {
	return CardOutcome{}, assert.AnError
}
func (b *stuck) CompleteCharge(string, string) error           { return assert.AnError }
func (b *stuck) FailCharge(string, string, openpay.Code) error { return assert.AnError }
func (b *stuck) CancelCharge(string, string) error             { return assert.AnError }
func (b *stuck) StoreNetworks(string, openpay.Amount) []string { return nil }

// TestRefusedChange: a change the backend refuses answers 409 with the
// charge's page, never a 5xx.
func TestRefusedChange(t *testing.T) {
	t.Parallel()
	b := &stuck{ch: PageCharge{Kind: KindAlipay, RedirectURL: "/back", Transaction: openpay.Transaction{ID: "tr1", Status: openpay.TransactionStatusChargePending}}}
	p, err := NewPages(b)
	require.NoError(t, err)
	form := "token=" + p.token(stepAlipay, "m1", "tr1") + "&action=pay"
	req := httptest.NewRequest(http.MethodPost, "/v1/m1/charges/tr1/redirect/", strings.NewReader(form))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusConflict, rec.Code)
	assert.Contains(t, rec.Body.String(), "not the real gateway")
	assert.Contains(t, rec.Body.String(), `href="/back?id=tr1"`)
}

// TestTokensDiffer: a token is bound to its step and charge, and to the
// Pages that issued it.
func TestTokensDiffer(t *testing.T) {
	t.Parallel()
	p, err := NewPages(&stuck{})
	require.NoError(t, err)
	q, err := NewPages(&stuck{})
	require.NoError(t, err)
	tok := p.token(stepCard, "m1", "tr1")
	assert.True(t, p.tokenOK(tok, stepCard, "m1", "tr1"))
	assert.False(t, p.tokenOK(tok, stepChallenge, "m1", "tr1"))
	assert.False(t, p.tokenOK(tok, stepCard, "m1", "tr2"))
	assert.False(t, p.tokenOK(tok, stepCard, "m2", "tr1"))
	assert.False(t, q.tokenOK(tok, stepCard, "m1", "tr1"))
}
