package openpay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webhookHandler builds a webhook handler, failing the test if it cannot.
func webhookHandler(t testing.TB, user, password string, handle func(context.Context, *openpay.WebhookEvent) error, opts ...openpay.WebhookOption) http.Handler {
	t.Helper()
	h, err := openpay.WebhookHandler(user, password, handle, opts...)
	require.NoError(t, err)
	return h
}

func TestWebhookHandler(t *testing.T) {
	t.Parallel()
	var got []*openpay.WebhookEvent
	fail := false
	h := webhookHandler(t, "juanito", "passjuanito", func(_ context.Context, ev *openpay.WebhookEvent) error {
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
	h := webhookHandler(t, "", "", func(context.Context, *openpay.WebhookEvent) error {
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

// WebhookHandler refuses to be built without a function to call, rather
// than panic at the first delivery; so does it for Deduplicate(store, nil).
func TestWebhookHandlerNeedsHandle(t *testing.T) {
	t.Parallel()
	h, err := openpay.WebhookHandler("u", "p", nil)
	assert.Nil(t, h)
	require.EqualError(t, err, "openpay: WebhookHandler needs a handle function (nil given)")
	h, err = openpay.WebhookHandler("u", "p", openpay.Deduplicate(nil, nil))
	assert.Nil(t, h)
	assert.Error(t, err)
	h, err = openpay.WebhookHandler("u", "p", func(context.Context, *openpay.WebhookEvent) error { return nil }, nil, openpay.WithWebhookLogger(nil))
	require.NoError(t, err, "nil options are ignored")
	assert.NotNil(t, h)
}

// A handle that panics is answered 500, so that the gateway delivers the
// event again, and logged without the event's body, card data, the panic's
// value or credentials; the handler keeps serving. Deduplicate records
// nothing for it and keeps no key in flight, so the next delivery is
// processed.
func TestWebhookHandlePanics(t *testing.T) {
	t.Parallel()
	const (
		card   = "4111111111111111"
		secret = "s3cr3t-hook-pass"
	)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	var calls atomic.Int32
	store := openpay.NewMemoryEventStore(10)
	panicWith := []any{
		"card " + card,     // a value the program held
		errors.New(secret), // an error with data in its text
		nil,                // a nil dereference: a runtime error
	}
	h := webhookHandler(t, "hook", secret, openpay.Deduplicate(store, func(_ context.Context, ev *openpay.WebhookEvent) error {
		n := int(calls.Add(1))
		if n <= len(panicWith) {
			if p := panicWith[n-1]; p != nil {
				panic(p)
			}
			var tx *openpay.Transaction
			_ = tx.ID // panics
		}
		return nil
	}), openpay.WithWebhookLogger(logger))
	body := `{"type":"charge.succeeded","event_date":"2024-03-09T10:00:00-06:00","transaction":{"id":"tr-panic-1","amount":10,` +
		`"status":"completed","description":"Pedido secreto","card":{"card_number":"` + card + `","holder_name":"Ana Secreta"}}}`
	deliver := func() int {
		r := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
		r.SetBasicAuth("hook", secret)
		w := httptest.NewRecorder()
		require.NotPanics(t, func() { h.ServeHTTP(w, r) })
		return w.Code
	}
	for i := range panicWith {
		assert.Equal(t, http.StatusInternalServerError, deliver(), "delivery %d", i+1)
	}
	assert.Zero(t, store.Len(), "an event whose handle panicked is not recorded")
	assert.Equal(t, http.StatusOK, deliver(), "the next delivery is processed, not refused as in progress")
	assert.Equal(t, http.StatusOK, deliver(), "and then deduplicated")
	assert.Equal(t, int32(4), calls.Load())
	assert.Equal(t, 1, store.Len())

	var records []map[string]any
	for line := range strings.Lines(logs.String()) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		records = append(records, rec)
	}
	require.Len(t, records, 3, logs.String())
	for _, rec := range records {
		assert.Equal(t, "ERROR", rec["level"])
		assert.Equal(t, "charge.succeeded", rec["event_type"])
		assert.Contains(t, rec["stack"], "openpay_test.TestWebhookHandlePanics", "the stack names the function that panicked")
		assert.NotContains(t, rec["stack"], "gopanic")
	}
	assert.Equal(t, "a value of type string", records[0]["panic"])
	assert.Equal(t, "a value of type *errors.errorString", records[1]["panic"])
	assert.Contains(t, records[2]["panic"], "nil pointer dereference")
	for _, leak := range []string{card, "411111", "1111\"", secret, "Pedido secreto", "Ana Secreta", "tr-panic-1", "aG9vazp"} {
		assert.NotContains(t, logs.String(), leak)
	}
}

// Without WithWebhookLogger the record goes to slog.Default().
func TestWebhookHandlePanicLogsToDefault(t *testing.T) {
	// Not parallel: it replaces the default logger.
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	h := webhookHandler(t, "", "", func(context.Context, *openpay.WebhookEvent) error { panic("boom") })
	r := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(`{"type":"some.new.type","event_date":"2024-03-09T10:00:00-06:00"}`))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Contains(t, logs.String(), "openpay: webhook handle panicked")
	assert.Contains(t, logs.String(), "event_type=unknown", "a type the SDK does not know is not echoed")
	assert.NotContains(t, logs.String(), "boom")
}
