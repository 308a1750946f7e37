package refserver

import (
	"net/http"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInlineCardChargesShareTheCardsWireForm charges the same card data
// sent inline twice, then another holder's, then the first again: each
// charge's card is what was sent, masked, and charges with the same card
// share one wire form (as charges to a stored card do), where each kept a
// copy of its own before.
func TestInlineCardChargesShareTheCardsWireForm(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	charge := func(holder string) map[string]any {
		t.Helper()
		card := validCard("4111111111111111")
		card["holder_name"] = holder
		o := requireOK(t, env.post("/charges", map[string]any{"method": "card", "card": card, "amount": 10, "description": "x"}), http.StatusOK)
		require.Equal(t, "completed", o["status"])
		c := o["card"].(map[string]any)
		assert.Equal(t, holder, c["holder_name"])
		assert.Equal(t, "411111XXXXXX1111", c["card_number"])
		assert.NotContains(t, c, "id", "card data sent inline has no id")
		return o
	}
	a, b, c, d := charge("Ana Uno"), charge("Ana Uno"), charge("Luis Dos"), charge("Ana Uno")
	assert.Equal(t, a["card"], d["card"])
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	card := func(o map[string]any) *tx { return m.txByID(o["id"].(string)) }
	assert.Same(t, card(a).t.Card, card(b).t.Card, "the same card data: one wire form")
	assert.NotSame(t, card(b).t.Card, card(c).t.Card)
	assert.Equal(t, "Luis Dos", card(c).t.Card.HolderName)
	assert.Equal(t, "Ana Uno", card(d).t.Card.HolderName)
	assert.Equal(t, "Ana Uno", card(a).t.Card.HolderName, "a shared wire form is never changed")
}

// TestEventLogRecordsStayCompact checks what the event log keeps per event:
// a record of fixed size, and for a plain card charge nothing else but its
// id (no rare part, no bookkeeping), where it kept a whole
// openpay.Transaction (about 480 bytes) before.
func TestEventLogRecordsStayCompact(t *testing.T) {
	t.Parallel()
	assert.LessOrEqual(t, unsafe.Sizeof(loggedEvent{}), uintptr(200))
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	requireOK(t, env.post("/charges", cardCharge(card, "order_id", "ev-2")), http.StatusOK)
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	require.Equal(t, 1, m.events.Len())
	ev := m.events.At(0)
	assert.Nil(t, ev.tx.x, "a plain card charge has no rare part")
	assert.Nil(t, ev.tx.later)
	assert.Same(t, m.txList[0].t.Card, ev.tx.t.Card, "the charged card's wire form is shared")
}
