package refserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/openpay-go/openpay/internal/refserver/idgen"

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
	assert.Same(t, card(a).card, card(b).card, "the same card data: one wire form")
	assert.NotSame(t, card(b).card, card(c).card)
	assert.Equal(t, "Luis Dos", card(c).card.HolderName)
	assert.Equal(t, "Ana Uno", card(d).card.HolderName)
	assert.Equal(t, "Ana Uno", card(a).card.HolderName, "a shared wire form is never changed")
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
	assert.Same(t, m.txList[0].card, ev.tx.card, "the charged card's wire form is shared")
}

// TestStoredChargesKeepOneObjectEach: a merchant charges a stored card
// 5,000 times in process, each charge with its own order_id and
// description, and a customer's card once; each charge reads back whole
// (its id, order_id, description, customer and authorization, from the
// store and from its event), and what the store keeps per charge is one
// heap object at most (the record; its strings are in the shared arena
// of compact.Text, the event's id and date in place), where it kept five
// (the record and four strings: id, order_id, description, authorization;
// the event's id).
func TestStoredChargesKeepOneObjectEach(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	m, err := s.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
	do := func(method, path, body string) map[string]any {
		t.Helper()
		req := httptest.NewRequest(method, "/v1/"+m.ID+path, strings.NewReader(body))
		authorize(req, m.PrivateKey)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
		var o map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &o))
		return o
	}
	card := do(http.MethodPost, "/cards", `{"holder_name":"Ana","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}`)["id"].(string)
	cu := do(http.MethodPost, "/customers", `{"name":"Ana","email":"ana@example.com"}`)["id"].(string)
	k := do(http.MethodPost, "/customers/"+cu+"/cards", `{"holder_name":"Ana","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}`)["id"].(string)
	first := do(http.MethodPost, "/customers/"+cu+"/charges", fmt.Sprintf(`{"method":"card","source_id":%q,"amount":5,"description":"Del cliente","order_id":"cu-1"}`, k))
	const n = 5000
	_, objects0, _ := liveHeap()
	sampled := []int{0, 1, n / 2, n - 1}
	ids := make(map[int]string, len(sampled))
	for _, i := range sampled {
		ids[i] = ""
	}
	for i := range n {
		o := do(http.MethodPost, "/charges", fmt.Sprintf(`{"method":"card","source_id":%q,"amount":10.5,"description":"Pedido %d","order_id":"ord-%d"}`, card, i, i))
		if _, ok := ids[i]; ok {
			ids[i] = o["id"].(string)
		}
	}
	_, objects1, _ := liveHeap()
	perCharge := (float64(objects1) - float64(objects0)) / n
	assert.LessOrEqual(t, perCharge, 1.2, "heap objects kept per stored charge")

	// The books: every charge as it was made.
	for _, i := range sampled {
		o := do(http.MethodGet, "/charges/"+ids[i], "")
		assert.Equal(t, ids[i], o["id"])
		assert.Equal(t, fmt.Sprint("ord-", i), o["order_id"])
		assert.Equal(t, fmt.Sprint("Pedido ", i), o["description"])
		assert.Regexp(t, `^\d{6}$`, o["authorization"])
		assert.Nil(t, o["customer_id"])
	}
	got := do(http.MethodGet, "/customers/"+cu+"/charges/"+first["id"].(string), "")
	assert.Equal(t, cu, got["customer_id"])
	assert.Equal(t, "cu-1", got["order_id"])
	assert.Equal(t, "Del cliente", got["description"])
	assert.Equal(t, first["authorization"], got["authorization"])
	evs := s.Events(m.ID)
	require.Len(t, evs, n+1)
	last := evs[n]
	assert.True(t, idgen.Valid(last.ID) && strings.HasPrefix(last.ID, "ev"), last.ID)
	assert.Equal(t, ids[n-1], last.Transaction.ID)
	assert.Equal(t, fmt.Sprint("ord-", n-1), last.Transaction.OrderID)
	lastCharge := do(http.MethodGet, "/charges/"+ids[n-1], "")
	created, err := time.Parse(time.RFC3339, lastCharge["creation_date"].(string))
	require.NoError(t, err)
	assert.True(t, created.Equal(last.Date), "the event's date is its charge's creation_date: %v, %v", last.Date, created)
	assert.Equal(t, cu, evs[0].Transaction.CustomerID)
	assert.Equal(t, first["authorization"], evs[0].Transaction.Authorization)
}
