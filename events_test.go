package openpay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWebhookEventPayload(t *testing.T) {
	t.Parallel()
	tx := func(typ string) string {
		return `,"transaction":{"id":"tr1","transaction_type":"` + typ + `","amount":10,"status":"completed"}`
	}
	for _, tt := range []struct {
		name, body string
		want       openpay.EventPayload
	}{
		{"verification", `{"type":"verification","event_date":"2026-03-10T12:00:00-06:00","verification_code":"Ab3dEf9h"}`,
			&openpay.VerificationEvent{Code: "Ab3dEf9h"}},
		{"charge", `{"type":"charge.succeeded","event_date":"2026-03-10T12:00:00-06:00"` + tx("charge") + `}`, &openpay.ChargeEvent{}},
		{"rescored charge", `{"type":"charge.rescored.to.decline","event_date":"2026-03-10T12:00:00-06:00"` + tx("charge") + `}`, &openpay.ChargeEvent{}},
		{"expired PSE charge", `{"type":"transaction.expired","event_date":"2026-03-10T12:00:00-05:00"` + tx("charge") + `}`, &openpay.ChargeEvent{}},
		{"chargeback", `{"type":"chargeback.accepted","event_date":"2026-03-10T12:00:00-06:00"` + tx("charge") + `}`, &openpay.ChargebackEvent{}},
		{"subscription charge", `{"type":"subscription.charge.failed","event_date":"2026-03-10T12:00:00-06:00"` + tx("charge") + `}`, &openpay.SubscriptionChargeEvent{}},
		{"bank receipt", `{"type":"spei.received","event_date":"2026-03-10T12:00:00-06:00"` + tx("charge") + `}`, &openpay.BankReceiptEvent{}},
		{"payout", `{"type":"payout.failed","event_date":"2026-03-10T12:00:00-06:00"` + tx("payout") + `}`, &openpay.PayoutEvent{}},
		{"transfer", `{"type":"transfer.succeeded","event_date":"2026-03-10T12:00:00-06:00"` + tx("transfer") + `}`, &openpay.TransferEvent{}},
		{"fee", `{"type":"fee.succeeded","event_date":"2026-03-10T12:00:00-06:00"` + tx("fee") + `}`, &openpay.FeeEvent{}},
		{"fee refund", `{"type":"fee.refund.succeeded","event_date":"2026-03-10T12:00:00-06:00"` + tx("refund") + `}`, &openpay.FeeRefundEvent{}},
		// What cannot be typed stays readable, body and all.
		{"order event", `{"type":"order.created","event_date":"2026-03-10T12:00:00-06:00","order":{"id":"o1"}}`, &openpay.UnknownEvent{}},
		{"new type", `{"type":"charge.teleported","event_date":"2026-03-10T12:00:00-06:00"` + tx("charge") + `}`, &openpay.UnknownEvent{}},
		{"payout type carrying a charge", `{"type":"payout.created","event_date":"2026-03-10T12:00:00-06:00"` + tx("charge") + `}`, &openpay.UnknownEvent{}},
		{"charge type without a transaction", `{"type":"charge.failed","event_date":"2026-03-10T12:00:00-06:00"}`, &openpay.UnknownEvent{}},
		{"verification without a code", `{"type":"verification","event_date":"2026-03-10T12:00:00-06:00"}`, &openpay.UnknownEvent{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ev openpay.WebhookEvent
			require.NoError(t, json.Unmarshal([]byte(tt.body), &ev))
			assert.JSONEq(t, tt.body, string(ev.Raw))
			got := ev.Payload()
			require.IsType(t, tt.want, got)
			switch p := got.(type) {
			case *openpay.VerificationEvent:
				assert.Equal(t, tt.want, p)
			case *openpay.UnknownEvent:
				assert.Equal(t, ev.Type, p.Type)
				assert.Equal(t, ev.Raw, p.Raw)
				assert.Equal(t, ev.Transaction, p.Transaction)
			default:
				// Every typed kind holds the event's transaction.
				b, err := json.Marshal(p)
				require.NoError(t, err)
				assert.Contains(t, string(b), `"id":"tr1"`)
			}
		})
	}
	// Raw is never sent.
	b, err := json.Marshal(openpay.WebhookEvent{Type: openpay.EventTypeVerification, VerificationCode: "Ab3dEf9h", Raw: json.RawMessage(`{"x":1}`)})
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"x"`)
}

// The handler hands over the body as delivered, for types it cannot type.
func TestWebhookHandlerKeepsTheBody(t *testing.T) {
	t.Parallel()
	body := `{"type":"order.completed","event_date":"2026-03-10T12:00:00-06:00","order":{"id":"o1","status":"completed"}}`
	var got openpay.EventPayload
	h := webhookHandler(t, "", "", func(_ context.Context, ev *openpay.WebhookEvent) error {
		got = ev.Payload()
		return nil
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body)))
	require.Equal(t, http.StatusOK, rec.Code)
	u, ok := got.(*openpay.UnknownEvent)
	require.True(t, ok)
	assert.Equal(t, openpay.EventType("order.completed"), u.Type)
	assert.JSONEq(t, body, string(u.Raw))
}
