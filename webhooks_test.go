package openpay_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
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
