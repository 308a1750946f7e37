package openpay_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhookHandler(t *testing.T) {
	t.Parallel()
	var got []*openpay.WebhookEvent
	fail := false
	h := openpay.WebhookHandler("juanito", "passjuanito", func(_ context.Context, ev *openpay.WebhookEvent) error {
		if fail {
			return errors.New("database down")
		}
		got = append(got, ev)
		return nil
	})
	post := func(user, pass, method, body string) int {
		r := httptest.NewRequest(method, "/hooks/openpay", strings.NewReader(body))
		if user != "" {
			r.SetBasicAuth(user, pass)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	charge := `{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1","amount":100.5,"status":"completed"}}`
	assert.Equal(t, http.StatusOK, post("juanito", "passjuanito", "POST", charge))
	require.Len(t, got, 1)
	assert.Equal(t, openpay.EventTypeChargeSucceeded, got[0].Type)
	assert.Equal(t, "tr1", got[0].Transaction.ID)
	assert.True(t, got[0].Transaction.Amount.Equal(openpay.MustAmount("100.50")))

	// Verification events and unknown types pass through.
	assert.Equal(t, http.StatusOK, post("juanito", "passjuanito", "POST", `{"type":"verification","event_date":"2024-03-09T10:00:00-06:00","verification_code":"Ab3dEf9h"}`))
	assert.Equal(t, "Ab3dEf9h", got[1].VerificationCode)
	assert.Equal(t, http.StatusOK, post("juanito", "passjuanito", "POST", `{"type":"order.payment.received","event_date":"2024-03-09T10:00:00-06:00"}`))
	assert.Equal(t, openpay.EventType("order.payment.received"), got[2].Type)

	// Wrong or missing credentials, wrong method, bad body.
	assert.Equal(t, http.StatusUnauthorized, post("juanito", "wrong", "POST", charge))
	assert.Equal(t, http.StatusUnauthorized, post("other", "passjuanito", "POST", charge))
	assert.Equal(t, http.StatusUnauthorized, post("", "", "POST", charge))
	assert.Equal(t, http.StatusMethodNotAllowed, post("juanito", "passjuanito", "GET", ""))
	assert.Equal(t, http.StatusBadRequest, post("juanito", "passjuanito", "POST", `{"type":`))
	assert.Equal(t, http.StatusBadRequest, post("juanito", "passjuanito", "POST", `{}`))
	assert.Equal(t, http.StatusBadRequest, post("juanito", "passjuanito", "POST", `{"type":"x","pad":"`+strings.Repeat("a", 2<<20)+`"}`))
	assert.Len(t, got, 3, "rejected deliveries never reach the handler")

	// A handler error asks the gateway to deliver again.
	fail = true
	assert.Equal(t, http.StatusInternalServerError, post("juanito", "passjuanito", "POST", charge))
}

// A handler for a webhook registered without credentials takes deliveries
// without an Authorization header, and refuses any request that has one.
func TestWebhookHandlerWithoutCredentials(t *testing.T) {
	t.Parallel()
	calls := 0
	h := openpay.WebhookHandler("", "", func(context.Context, *openpay.WebhookEvent) error {
		calls++
		return nil
	})
	charge := `{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr1","amount":100,"status":"completed"}}`
	for _, tc := range []struct {
		name, authorization string
		want                int
	}{
		{"no credentials", "", http.StatusOK},
		{"basic credentials", "Basic dTpw", http.StatusUnauthorized},
		{"empty basic credentials", "Basic Og==", http.StatusUnauthorized},
		{"other scheme", "Bearer x", http.StatusUnauthorized},
		{"empty header", " ", http.StatusUnauthorized},
	} {
		r := httptest.NewRequest(http.MethodPost, "/hooks/openpay", strings.NewReader(charge))
		if tc.authorization != "" {
			r.Header.Set("Authorization", tc.authorization)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, tc.want, w.Code, tc.name)
	}
	assert.Equal(t, 1, calls)
}

// A webhook created without user and password through the SDK is verified
// by a receiver built with WebhookHandler("", "", h) and receives its events;
// a webhook with credentials at the same URL is refused by it.
func TestWebhookWithoutCredentialsIsDelivered(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	rc := newReceiver(t, "", "")

	wh, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.srv.URL,
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)
	assert.Equal(t, openpay.WebhookStatusVerified, wh.Status)
	assert.Len(t, rc.waitFor(t, openpay.EventTypeVerification).VerificationCode, 8)

	ch, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa),
		Amount: openpay.MustAmount("75"), Description: "no credentials"})
	require.NoError(t, err)
	ev := rc.waitFor(t, openpay.EventTypeChargeSucceeded)
	require.NotNil(t, ev.Transaction)
	assert.Equal(t, ch.ID, ev.Transaction.ID)

	with, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.srv.URL, User: "u", Password: "p",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)
	assert.Equal(t, openpay.WebhookStatusUnverified, with.Status, "credentials the handler does not expect are refused")
}
