package openpay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// sentRequest is a request as it left the SDK.
type sentRequest struct {
	method, path string
	header       http.Header
	body         map[string]any
}

// recorder is a transport that keeps every request the SDK sends, then
// sends it with base.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	sent []sentRequest
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	s := sentRequest{method: req.Method, path: req.URL.Path, header: req.Header.Clone()}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(b))
		if len(b) > 0 {
			if err := json.Unmarshal(b, &s.body); err != nil {
				return nil, err
			}
		}
	}
	r.mu.Lock()
	r.sent = append(r.sent, s)
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

// posts returns the POST requests sent so far.
func (r *recorder) posts() []sentRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []sentRequest
	for _, s := range r.sent {
		if s.method == http.MethodPost {
			out = append(out, s)
		}
	}
	return out
}

// recordedClient is a client of srv's merchant whose requests rec keeps.
func recordedClient(t *testing.T, srv *openpaytest.Server, opts ...openpay.Option) (*openpay.Client, *recorder) {
	t.Helper()
	rec := &recorder{base: srv.HTTPClient().Transport}
	c, err := srv.Client(append([]openpay.Option{openpay.WithHTTPClient(&http.Client{Transport: rec})}, opts...)...)
	require.NoError(t, err)
	return c, rec
}

// TestVariantsCarryTheirMethodWithoutAField is a merchant's sequence with
// every charge and payout variant built without a method (the types have no
// field for it): the SDK writes the variant's method (and a redirect or IVR
// charge's confirm, a PSE charge's currency), and the server's books hold
// each transaction with the method of its variant.
func TestVariantsCarryTheirMethodWithoutAField(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t, openpaytest.WithMerchantBalance(openpay.MustAmount("10000")))
	c, rec := recordedClient(t, srv)
	payer := &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"}
	card, err := c.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	const ip = "203.0.113.7"

	for _, tt := range []struct {
		name   string
		req    openpay.ChargeRequest
		wire   map[string]any // the members the SDK writes
		method openpay.TransactionMethod
		pm     openpay.PaymentInstructionsType // "" when the charge completes at once
	}{
		{"card", openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("10"), Description: "d", OrderID: "fixed-card", ClientIP: ip},
			map[string]any{"method": "card"}, openpay.TransactionMethodCard, ""},
		{"inline card", openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("11"), Description: "d", OrderID: "fixed-inline", ClientIP: ip},
			map[string]any{"method": "card"}, openpay.TransactionMethodCard, ""},
		{"redirect", openpay.RedirectCharge{Amount: openpay.MustAmount("12"), Description: "d", OrderID: "fixed-redirect", RedirectURL: "https://shop.example/r", Customer: payer, ClientIP: ip},
			map[string]any{"method": "card", "confirm": false}, openpay.TransactionMethodCard, openpay.PaymentInstructionsTypeRedirect},
		{"store", openpay.StoreCharge{Amount: openpay.MustAmount("13"), Description: "d", OrderID: "fixed-store", Customer: payer, ClientIP: ip},
			map[string]any{"method": "store"}, openpay.TransactionMethodStore, openpay.PaymentInstructionsTypeStore},
		{"bank", openpay.BankCharge{Amount: openpay.MustAmount("14"), Description: "d", OrderID: "fixed-bank", Customer: payer, ClientIP: ip},
			map[string]any{"method": "bank_account"}, openpay.TransactionMethodBankAccount, openpay.PaymentInstructionsTypeBankTransfer},
		{"alipay", openpay.AlipayCharge{Amount: openpay.MustAmount("15"), Description: "d", OrderID: "fixed-alipay", RedirectURL: "https://shop.example/a", Customer: payer, ClientIP: ip},
			map[string]any{"method": "alipay"}, openpay.TransactionMethodAlipay, openpay.PaymentInstructionsTypeRedirect},
		{"ivr", openpay.IVRCharge{Amount: openpay.MustAmount("16"), Description: "d", OrderID: "fixed-ivr", Customer: payer, ClientIP: ip},
			map[string]any{"method": "card", "confirm": "ivr"}, openpay.TransactionMethodCard, openpay.PaymentInstructionsTypeIVR},
	} {
		before := len(rec.posts())
		ch, err := c.Charges.Create(ctx, tt.req)
		require.NoError(t, err, tt.name)
		sent := rec.posts()[before:]
		require.Len(t, sent, 1, "%s: one request", tt.name)
		for k, v := range tt.wire {
			assert.Equal(t, v, sent[0].body[k], "%s: the SDK writes %s", tt.name, k)
		}
		assert.Equal(t, []string{ip}, sent[0].header.Values("X-Forwarded-For"), tt.name)
		assert.NotContains(t, sent[0].body, "client_ip", "%s: the payer's address goes in the header only", tt.name)

		// The server's books: the charge, read back, by its method.
		got, err := c.Charges.GetByOrderID(ctx, ch.OrderID)
		require.NoError(t, err, tt.name)
		assert.Equal(t, ch.ID, got.ID, tt.name)
		assert.Equal(t, tt.method, got.Method, tt.name)
		assert.Equal(t, openpay.TransactionTypeCharge, got.TransactionType, tt.name)
		if tt.pm != "" && assert.NotNil(t, got.PaymentMethod, tt.name) {
			assert.Equal(t, tt.pm, got.PaymentMethod.Type, tt.name)
		}
	}

	// Payouts: the merchant's balance pays each, to the variant's method.
	acct := openpay.BankAccountRequest{CLABE: "012298026516924616", HolderName: "Mi empresa"}
	cust, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com", RequiresAccount: true})
	require.NoError(t, err)
	stored, err := c.Customer(cust.ID).BankAccounts.Create(ctx, acct)
	require.NoError(t, err)
	payoutCard, err := c.Customer(cust.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	require.True(t, payoutCard.AllowsPayouts)
	for _, tt := range []struct {
		name     string
		req      openpay.PayoutRequest
		customer bool
		method   openpay.TransactionMethod
	}{
		{"bank account", openpay.BankAccountPayout{DestinationID: stored.ID, Amount: openpay.MustAmount("1"), Description: "d", OrderID: "fixed-po-1"}, true, openpay.TransactionMethodBankAccount},
		{"inline bank account", openpay.InlineBankAccountPayout{BankAccount: acct, Amount: openpay.MustAmount("2"), Description: "d", OrderID: "fixed-po-2"}, false, openpay.TransactionMethodBankAccount},
		{"card", openpay.CardPayout{DestinationID: payoutCard.ID, Amount: openpay.MustAmount("3"), Description: "d", OrderID: "fixed-po-3"}, true, openpay.TransactionMethodCard},
		{"inline card", openpay.InlineCardPayout{Card: openpay.PayoutCardDetails{CardNumber: openpaytest.CardVisa, HolderName: "Juan", BankCode: "002"},
			Amount: openpay.MustAmount("4"), Description: "d", OrderID: "fixed-po-4"}, false, openpay.TransactionMethodCard},
	} {
		payouts := c.Payouts
		if tt.customer {
			_, err := srv.ReceiveSPEI(cust.ID, openpay.MustAmount("10"))
			require.NoError(t, err)
			payouts = c.Customer(cust.ID).Payouts
		}
		before := len(rec.posts())
		po, err := payouts.Create(ctx, tt.req)
		require.NoError(t, err, tt.name)
		sent := rec.posts()[before:]
		require.Len(t, sent, 1, tt.name)
		assert.Equal(t, string(tt.method), sent[0].body["method"], "%s: the SDK writes the method", tt.name)
		got, err := payouts.Get(ctx, po.ID)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.method, got.Method, tt.name)
		assert.Equal(t, openpay.TransactionTypePayout, got.TransactionType, tt.name)
	}

	// PSE (Colombia): bank_account, in COP, the one currency the SDK writes.
	co := openpaytest.NewServer(t, openpaytest.WithCountry(openpay.CountryColombia))
	cc, corec := recordedClient(t, co)
	ch, err := cc.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("10000"), Description: "Pedido 7", OrderID: "fixed-pse",
		RedirectURL: "/", ClientIP: ip, Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.co",
			CustomerAddress: &openpay.ColombianAddress{Department: "Antioquia", City: "Medellín", Additional: "Calle 10 # 43-12"}}})
	require.NoError(t, err)
	sent := corec.posts()
	require.Len(t, sent, 1)
	assert.Equal(t, "bank_account", sent[0].body["method"])
	assert.Equal(t, "COP", sent[0].body["currency"])
	got, err := cc.Charges.GetByOrderID(ctx, "fixed-pse")
	require.NoError(t, err)
	assert.Equal(t, ch.ID, got.ID)
	assert.Equal(t, openpay.TransactionMethodBankAccount, got.Method)
	assert.Equal(t, openpay.CurrencyCOP, got.Currency)
}

// TestChargeVariantsHaveNoFixedField: what a variant fixes is not a field a
// merchant could set to something else, and a webhook read back has no
// password (the gateway never returns it).
func TestChargeVariantsHaveNoFixedField(t *testing.T) {
	t.Parallel()
	for _, v := range []any{openpay.CardCharge{}, openpay.InlineCardCharge{}, openpay.RedirectCharge{}, openpay.StoreCharge{},
		openpay.BankCharge{}, openpay.PSECharge{}, openpay.AlipayCharge{}, openpay.IVRCharge{},
		openpay.BankAccountPayout{}, openpay.InlineBankAccountPayout{}, openpay.CardPayout{}, openpay.InlineCardPayout{}} {
		typ := reflect.TypeOf(v)
		for _, name := range []string{"Method", "Confirm"} {
			_, ok := typ.FieldByName(name)
			assert.False(t, ok, "%s.%s: the SDK writes it", typ.Name(), name)
		}
	}
	_, ok := reflect.TypeOf(openpay.PSECharge{}).FieldByName("Currency")
	assert.False(t, ok, "PSECharge.Currency: PSE is COP only, which the SDK writes")
	_, ok = reflect.TypeOf(openpay.Webhook{}).FieldByName("Password")
	assert.False(t, ok, "Webhook.Password: never returned")
	_, ok = reflect.TypeOf(openpay.WebhookRequest{}).FieldByName("Password")
	assert.True(t, ok, "WebhookRequest.Password: the merchant sets the credential")
}

// TestWebhookAnswersCarryNoPassword registers a webhook with a password, as
// a merchant does, and reads the server's raw answers: no answer carries the
// password, while each delivery is still sent with it.
func TestWebhookAnswersCarryNoPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t)
	c, err := srv.Client()
	require.NoError(t, err)
	var mu sync.Mutex
	var creds []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		mu.Lock()
		creds = append(creds, u+":"+p)
		mu.Unlock()
	}))
	t.Cleanup(hook.Close)
	const secret = "s3cret-hook-pass"
	wh, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: hook.URL, User: "shop", Password: secret,
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)

	for _, path := range []string{"/webhooks", "/webhooks/" + wh.ID} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/"+srv.MerchantID+path, nil)
		require.NoError(t, err)
		req.SetBasicAuth(srv.PrivateKey, "")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode, string(b))
		assert.NotContains(t, string(b), "password", path)
		assert.NotContains(t, string(b), secret, path)
	}

	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("10"),
		Description: "d", ClientIP: "203.0.113.7"})
	require.NoError(t, err)
	require.NoError(t, srv.WaitForDeliveries(ctx))
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, creds)
	for _, cr := range creds {
		assert.Equal(t, "shop:"+secret, cr, "deliveries still carry the credential")
	}
}

// TestChargeClientIPIsPartOfTheRequest is a merchant's sequence with the
// payer's address given where the charge is built: without one (and no
// client-wide default) the charge is refused before anything leaves, and
// the books hold nothing; with it, the charge is made once, its address in
// X-Forwarded-For. The client-wide default still serves a charge without
// one, a charge's own address wins over it, and WithClientIP over both.
func TestChargeClientIPIsPartOfTheRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t)
	c, rec := recordedClient(t, srv)
	balance := srv.Balance()
	charge := openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("25.00"), Description: "Order 42", OrderID: "ip-42"}

	_, err := c.Charges.Create(ctx, charge)
	require.ErrorIs(t, err, openpay.ErrClientIPRequired)
	var oe *openpay.Error
	assert.False(t, errors.As(err, &oe), "not the gateway's answer")
	id, key, err := srv.AddGroup(srv.MerchantID)
	require.NoError(t, err)
	group, err := openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithHTTPClient(&http.Client{Transport: rec}))
	require.NoError(t, err)
	_, err = group.Group(id).Merchant(srv.MerchantID).Charges.Create(ctx, charge)
	require.ErrorIs(t, err, openpay.ErrClientIPRequired, "through a merchant group too")
	bad := charge
	bad.ClientIP = "not-an-address"
	_, err = c.Charges.Create(ctx, bad)
	require.ErrorIs(t, err, openpay.ErrInvalidClientIP)
	assert.Empty(t, rec.posts(), "nothing was sent")
	_, err = c.Charges.GetByOrderID(ctx, "ip-42")
	require.ErrorIs(t, err, openpay.ErrNotFound, "the books hold no charge")
	assert.Equal(t, balance, srv.Balance())

	charge.ClientIP = "203.0.113.7:51234" // as in http.Request.RemoteAddr
	ch, err := c.Charges.Create(ctx, charge)
	require.NoError(t, err)
	sent := rec.posts()
	require.Len(t, sent, 1, "made once")
	assert.Equal(t, []string{"203.0.113.7"}, sent[0].header.Values("X-Forwarded-For"))
	assert.NotContains(t, sent[0].body, "client_ip")
	n := 0
	for tx, err := range c.Charges.List(ctx, &openpay.TransactionListParams{OrderID: "ip-42"}) {
		require.NoError(t, err)
		assert.Equal(t, ch.ID, tx.ID)
		n++
	}
	assert.Equal(t, 1, n, "one transaction for the order")
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)

	// The client-wide default, the charge's own address, the call option.
	dc, drec := recordedClient(t, srv, openpay.WithDefaultClientIP("198.51.100.4"))
	for _, tt := range []struct {
		name string
		ip   string
		opts []openpay.CallOption
		want string
	}{
		{"client default", "", nil, "198.51.100.4"},
		{"the charge's own", "2001:db8::7", nil, "2001:db8::7"},
		{"the call's option", "2001:db8::7", []openpay.CallOption{openpay.WithClientIP("192.0.2.9")}, "192.0.2.9"},
	} {
		before := len(drec.posts())
		_, err := dc.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("5"),
			Description: tt.name, ClientIP: tt.ip}, tt.opts...)
		require.NoError(t, err, tt.name)
		sent := drec.posts()[before:]
		require.Len(t, sent, 1, tt.name)
		assert.Equal(t, []string{tt.want}, sent[0].header.Values("X-Forwarded-For"), tt.name)
	}
}
