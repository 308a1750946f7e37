package openpay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One Go type per idea: a Colombian shop's IVA is an Amount, a checkout's
// expiration a time.Time, and the SDK writes the wire forms the gateway
// takes (iva a decimal string, the expiration a wall-clock minute of the
// account's zone).

// bodyRecorder forwards every request to next and keeps the bodies sent.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (r *bodyRecorder) proxy(t *testing.T, target string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		if len(b) > 0 {
			var m map[string]any
			if json.Unmarshal(b, &m) == nil {
				r.mu.Lock()
				r.bodies = append(r.bodies, m)
				r.mu.Unlock()
			}
		}
		out, err := http.NewRequest(req.Method, target+req.URL.RequestURI(), bytes.NewReader(b))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = req.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (r *bodyRecorder) last() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bodies) == 0 {
		return nil
	}
	return r.bodies[len(r.bodies)-1]
}

// TestColombianIVAIsAnAmount: a Colombian shop sends its IVA as an Amount
// on a card charge, a PSE charge and a payment link; the gateway gets the
// decimal string its clients send, the link echoes the IVA, read back as
// an Amount, and the charge that pays the link is booked once. An IVA
// with three decimals fails before anything is sent.
func TestColombianIVAIsAnAmount(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic(), openpaytest.WithCountry(openpay.CountryColombia))
	var rec bodyRecorder
	proxy := rec.proxy(t, srv.URL)
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(openpay.CountryColombia),
		openpay.WithBaseURL(proxy.URL), openpay.WithDefaultClientIP("198.51.100.4"))
	require.NoError(t, err)
	ctx := context.Background()

	iva := openpay.MustAmount("1596.64")
	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: openpay.CardDetails{HolderName: "Juan Pérez", CardNumber: openpaytest.CardVisa,
		CVV2: openpaytest.CVV(openpaytest.CardVisa), ExpirationMonth: "12", ExpirationYear: futureYear()},
		Amount: openpay.MustAmount("10000"), IVA: iva, Description: "Pedido 1", OrderID: "pedido-1"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	assert.Equal(t, "1596.64", rec.last()["iva"], "the gateway takes the iva as a decimal string")

	pse, err := c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("119000"), IVA: openpay.MustAmount("19000"),
		Description: "Pedido 2", OrderID: "pedido-2", RedirectURL: "https://tienda.example/vuelta",
		Customer: &openpay.ChargeCustomer{Name: "Camila", Email: "camila@example.co",
			CustomerAddress: &openpay.ColombianAddress{Department: "Antioquia", City: "Medellín", Additional: "Carrera 43A # 10-52"}}})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusChargePending, pse.Status)
	assert.Equal(t, "19000", rec.last()["iva"])

	co, err := c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("10000"), Description: "Enlace", OrderID: "enlace-1", IVA: iva})
	require.NoError(t, err)
	assert.Equal(t, "1596.64", rec.last()["iva"])
	assert.True(t, iva.Equal(co.IVA), "echoed as an Amount: %s", co.IVA)
	got, err := c.Checkouts.GetByOrderID(ctx, "enlace-1")
	require.NoError(t, err)
	assert.True(t, iva.Equal(got.IVA), "read back: %s", got.IVA)
	paid, err := srv.PayCheckout(co.ID, openpaytest.CardMastercard)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusCompleted, paid.Status)
	var orders int
	for tx, err := range c.Charges.List(ctx, &openpay.TransactionListParams{OrderID: "enlace-1"}) {
		require.NoError(t, err)
		assert.Equal(t, openpay.TransactionStatusCompleted, tx.Status)
		orders++
	}
	assert.Equal(t, 1, orders, "one charge for the link's order_id")

	var computed openpay.Amount // 19 % of 10000.01, say, computed with more precision
	require.NoError(t, json.Unmarshal([]byte("1900.0019"), &computed))
	sent := len(rec.bodies)
	_, err = c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("10000.01"), IVA: computed,
		Description: "Pedido 3", OrderID: "pedido-3", RedirectURL: "/"})
	assert.ErrorIs(t, err, openpay.ErrAmountPrecision)
	assert.Equal(t, sent, len(rec.bodies), "nothing sent")
	_, err = c.Charges.GetByOrderID(ctx, "pedido-3")
	assert.ErrorIs(t, err, openpay.ErrNotFound)
}

// TestCheckoutExpirationIsATime: a checkout's expiration is a time.Time;
// the SDK writes it as the minute of the client's country, whatever the
// zone the caller's time is in, and the server books that minute.
func TestCheckoutExpirationIsATime(t *testing.T) {
	t.Parallel()
	for _, country := range []openpay.Country{openpay.CountryMexico, openpay.CountryColombia, openpay.CountryPeru} {
		t.Run(string(country), func(t *testing.T) {
			t.Parallel()
			srv := openpaytest.NewServer(t, openpaytest.Deterministic(), openpaytest.WithCountry(country))
			var rec bodyRecorder
			proxy := rec.proxy(t, srv.URL)
			c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(country), openpay.WithBaseURL(proxy.URL))
			require.NoError(t, err)
			ctx := context.Background()

			// 2026-01-07 16:30:45 UTC, given in Tokyo's zone.
			deadline := time.Date(2026, 1, 8, 1, 30, 45, 0, time.FixedZone("JST", 9*3600))
			co, err := c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("100"), Description: "Link",
				OrderID: "link-1", ExpirationDate: deadline})
			require.NoError(t, err)
			local := deadline.In(country.Location())
			assert.Equal(t, local.Format("2006-01-02 15:04"), rec.last()["expiration_date"], "a wall-clock minute of %s", country)
			assert.True(t, co.ExpirationDate.Equal(deadline.Truncate(time.Minute)), "the server booked %v for %v", co.ExpirationDate, deadline)
			_, offset := co.ExpirationDate.Zone()
			_, want := local.Zone()
			assert.Equal(t, want, offset, "echoed in the account's zone")

			later := deadline.Add(24 * time.Hour)
			upd, err := c.Checkouts.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{ExpirationDate: later})
			require.NoError(t, err)
			assert.True(t, upd.ExpirationDate.Equal(later.Truncate(time.Minute)), "updated to %v", upd.ExpirationDate)
			got, err := c.Checkouts.Get(ctx, co.ID)
			require.NoError(t, err)
			assert.True(t, got.ExpirationDate.Equal(later.Truncate(time.Minute)))
			assert.False(t, got.CreationDate.IsZero(), "a creation time read as a time.Time")
			assert.True(t, got.CreationDate.Before(got.ExpirationDate), "created %v", got.CreationDate)
		})
	}
}

// TestTransactionMethodBankIsBankAccount: the interface's "bank" and the
// answers' "bank_account" are one idea, one constant.
func TestTransactionMethodBankIsBankAccount(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"bank", "bank_account"} {
		var tx openpay.Transaction
		require.NoError(t, json.Unmarshal([]byte(`{"id":"tr1","method":"`+in+`"}`), &tx))
		assert.Equal(t, openpay.TransactionMethodBankAccount, tx.Method, in)
		assert.True(t, tx.Method.Valid())
	}
	var tx openpay.Transaction
	require.NoError(t, json.Unmarshal([]byte(`{"id":"tr1","method":"crypto"}`), &tx))
	assert.Equal(t, openpay.TransactionMethod("crypto"), tx.Method, "a method added later is kept")
	assert.False(t, tx.Method.Valid())
}

// TestSuccessfulChargePrintsNoError: a completed charge printed with %v or
// %+v (as a log line does) shows its error fields empty, not "error 0".
func TestSuccessfulChargePrintsNoError(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ch, err := k.c.Charges.Create(context.Background(), openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa),
		Amount: openpay.MustAmount("100"), Description: "Order 1", OrderID: "order-1"})
	require.NoError(t, err)
	require.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	plus := fmt.Sprintf("%+v", *ch)
	assert.Contains(t, plus, "ErrorCode: ErrorMessage: ")
	for _, s := range []string{plus, fmt.Sprintf("%v", *ch), fmt.Sprint(ch.ErrorCode)} {
		assert.NotContains(t, s, "error 0")
		assert.NotContains(t, s, "(0)")
	}
	assert.Equal(t, "0", ch.ErrorCode.String())
}
