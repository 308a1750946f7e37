package eventwire

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBodyIsTheGatewaysShape(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.FixedZone("", -6*3600))
	ev := Event{ID: "ev1", MerchantID: "m1", Type: openpay.EventTypeChargeSucceeded, Date: at,
		Transaction: openpay.Transaction{ID: "tr1", Status: openpay.TransactionStatusCompleted, Amount: openpay.MustAmount("10.50")}}
	w := ev.Wire()
	assert.Equal(t, openpay.EventTypeChargeSucceeded, w.Type)
	assert.True(t, at.Equal(w.EventDate))
	require.NotNil(t, w.Transaction)
	assert.Equal(t, "tr1", w.Transaction.ID)
	w.Transaction.ID = "changed"
	assert.Equal(t, "tr1", ev.Transaction.ID, "the wire form is a copy")

	body, err := ev.Body()
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, "charge.succeeded", got["type"])
	tx := got["transaction"].(map[string]any)
	assert.Equal(t, "tr1", tx["id"])
	assert.Equal(t, 10.5, tx["amount"])
	assert.Contains(t, tx, "error_message", "a member the gateway sends as null is there")
	assert.Nil(t, tx["error_message"])
}
