package refserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eventTransaction returns the "transaction" member of the body a webhook
// delivery of ev carries, decoded.
func eventTransaction(t *testing.T, ev Event) map[string]any {
	t.Helper()
	body, err := ev.Body()
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(body, &wire))
	tx, ok := wire["transaction"].(map[string]any)
	require.True(t, ok, "%s", body)
	return tx
}

// TestEventKeepsTheTransactionAsItStood follows two charges through later
// changes, a card charge with metadata (a record with a rare part) that is
// refunded and a store charge that is paid, and checks that each event's
// transaction, as a webhook delivers it, is the charge's answer at the
// time of the event, member for member (those sent as null included):
// the log keeps a frozen copy of the record, which the changes that came
// after must not reach.
func TestEventKeepsTheTransactionAsItStood(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	charged := requireOK(t, env.post("/charges", cardCharge(card, "order_id", "ev-1", "metadata", map[string]any{"k": "v"})), http.StatusOK)
	refunded := requireOK(t, env.post("/charges/"+charged["id"].(string)+"/refund", nil), http.StatusOK)
	require.NotNil(t, refunded["refund"])
	store := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x"}), http.StatusOK)
	_, err := env.s.PayCharge(env.m.ID, store["id"].(string))
	require.NoError(t, err)
	paid := requireOK(t, env.get("/charges/"+store["id"].(string)), http.StatusOK)

	evs := env.s.Events(env.m.ID)
	var types []openpay.EventType
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	require.Equal(t, []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeRefunded,
		openpay.EventTypeChargeCreated, openpay.EventTypeChargeSucceeded}, types)
	assert.Equal(t, charged, eventTransaction(t, evs[0]), "charge.succeeded: the charge as created, no refund")
	assert.Equal(t, refunded, eventTransaction(t, evs[1]))
	assert.Equal(t, store, eventTransaction(t, evs[2]), "charge.created: the store charge unpaid")
	assert.Equal(t, paid, eventTransaction(t, evs[3]))
	assert.Nil(t, evs[0].Transaction.Refund)
	assert.Equal(t, openpay.TransactionStatusInProgress, evs[2].Transaction.Status)
}
