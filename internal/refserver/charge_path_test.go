package refserver

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tickingClock moves one second forward at every reading: a charge that
// read the clock twice would show it.
type tickingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *tickingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

// TestChargePathMerchantSequence is a merchant's day of card charges on a
// clock that ticks at every reading: charges to card data and to a stored
// card, an order_id sent twice, a declined card and its retry, a
// pre-authorization and its partial capture; then the books. A card charge
// decided at once is created, operated and announced at one instant (the
// gateway's charge example has creation_date equal to operation_date),
// however the clock moves while the server works on it; each event keeps
// the charge as it stood; each order_id names one charge; the lists by
// status and the balance agree with the charges.
func TestChargePathMerchantSequence(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{Clock: &tickingClock{now: testStart}})
	cardID := requireOK(t, env.post("/cards", validCard("4111111111111111")), env.created())["id"].(string)
	charge := func(orderID, amount string, extra map[string]any) resp {
		body := map[string]any{"method": "card", "amount": amount, "description": "order " + orderID, "order_id": orderID}
		if extra == nil {
			extra = map[string]any{"card": validCard("4111111111111111")}
		}
		for k, v := range extra {
			body[k] = v
		}
		return env.post("/charges", body)
	}

	inline := requireOK(t, charge("o-1", "100.50", nil), http.StatusOK)
	stored := requireOK(t, charge("o-2", "200.00", map[string]any{"source_id": cardID}), http.StatusOK)
	for _, c := range []map[string]any{inline, stored} {
		assert.Equal(t, "completed", c["status"])
		assert.Equal(t, c["creation_date"], c["operation_date"], "a charge decided at once is operated when created")
		assert.NotEmpty(t, c["authorization"])
	}
	requireError(t, charge("o-1", "5.00", nil), int(openpay.ErrDuplicateOrderID))
	requireError(t, charge("o-3", "30.00", map[string]any{"card": validCard("4000000000030017")}), int(openpay.ErrCardDeclined))
	requireError(t, charge("o-3", "30.00", nil), int(openpay.ErrDuplicateOrderID)) // the declined charge keeps its order_id
	preauth := requireOK(t, charge("o-4", "80.00", map[string]any{"source_id": cardID, "capture": false}), http.StatusOK)
	assert.Equal(t, "in_progress", preauth["status"])
	assert.Equal(t, preauth["creation_date"], preauth["operation_date"])
	captured := requireOK(t, env.post("/charges/"+preauth["id"].(string)+"/capture", map[string]any{"amount": "50.00"}), http.StatusOK)
	assert.Equal(t, "completed", captured["status"])
	assert.Equal(t, 50.0, captured["amount"])

	// The events, in order, each with the charge as it stood then.
	evs := env.s.Events(env.m.ID)
	require.Len(t, evs, 5)
	want := []struct {
		typ     openpay.EventType
		orderID string
		status  openpay.TransactionStatus
	}{
		{openpay.EventTypeChargeSucceeded, "o-1", openpay.TransactionStatusCompleted},
		{openpay.EventTypeChargeSucceeded, "o-2", openpay.TransactionStatusCompleted},
		{openpay.EventTypeChargeFailed, "o-3", openpay.TransactionStatusFailed},
		{openpay.EventTypeChargeCreated, "o-4", openpay.TransactionStatusInProgress},
		{openpay.EventTypeChargeSucceeded, "o-4", openpay.TransactionStatusCompleted},
	}
	for i, w := range want {
		ev := evs[i]
		assert.Equal(t, w.typ, ev.Type, "event %d", i)
		assert.Equal(t, w.orderID, ev.Transaction.OrderID, "event %d", i)
		assert.Equal(t, w.status, ev.Transaction.Status, "event %d", i)
		if i < 4 { // announced when made
			assert.True(t, ev.Date.Equal(ev.Transaction.CreationDate), "event %d dated %s, its charge created %s", i, ev.Date, ev.Transaction.CreationDate)
		}
	}
	assert.Equal(t, "80.00", evs[3].Transaction.Amount.String(), "the pre-authorization's event keeps its authorized amount")
	assert.Equal(t, "50.00", evs[4].Transaction.Amount.String())
	assert.Equal(t, evs[0].Transaction.ID, inline["id"])

	// The books: one charge per order_id, the lists by status, the balance.
	for _, o := range []string{"o-1", "o-2", "o-3", "o-4"} {
		assert.Len(t, requireList(t, env.get("/charges?order_id="+o)), 1, o)
	}
	assert.Len(t, requireList(t, env.get("/charges?status=COMPLETED")), 3)
	failed := requireList(t, env.get("/charges?status=FAILED"))
	require.Len(t, failed, 1)
	assert.Equal(t, "o-3", failed[0]["order_id"])
	assert.Empty(t, requireList(t, env.get("/charges?status=IN_PROGRESS")))
	assert.Len(t, requireList(t, env.get("/charges")), 4)
	balance, _, err := env.s.Balances(env.m.ID)
	require.NoError(t, err)
	assert.Equal(t, "350.50", balance.String())
}
