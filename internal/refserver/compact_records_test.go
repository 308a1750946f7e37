package refserver

import (
	"net/http"
	"testing"
	"unsafe"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameStorage reports whether b starts right where a ends in memory: the
// two strings are parts of one allocation.
func sameStorage(a, b string) bool {
	return len(a) > 0 && len(b) > 0 && uintptr(unsafe.Pointer(unsafe.StringData(a)))+uintptr(len(a)) == uintptr(unsafe.Pointer(unsafe.StringData(b)))
}

// TestStoredCardsStayCompact stores a merchant's cards and a customer's as a
// merchant does, and checks what each keeps: a record of at most 128 bytes
// (256 before: five strings and an outcome of its own for what the number
// tells, the expiry as two strings), the profile of the number shared by
// the cards with the same one, and the id, masked number and holder in one
// allocation. The answers show the card as before.
func TestStoredCardsStayCompact(t *testing.T) {
	t.Parallel()
	assert.LessOrEqual(t, unsafe.Sizeof(card{}), uintptr(128))
	env := newTestEnv(t, Options{})
	cu := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), env.created())["id"].(string)
	body := validCard("4532015112830366")
	body["holder_name"], body["expiration_month"], body["expiration_year"] = "Ana Uno", "7", "2031"
	a := requireOK(t, env.post("/cards", body), env.created())
	b := requireOK(t, env.post("/customers/"+cu+"/cards", validCard("4916338506082832")), env.created())
	debit := requireOK(t, env.post("/cards", validCard("5062100000000002")), env.created())
	assert.Equal(t, "453201XXXXXX0366", a["card_number"])
	assert.Equal(t, "Ana Uno", a["holder_name"])
	assert.Equal(t, "07", a["expiration_month"])
	assert.Equal(t, "31", a["expiration_year"])
	assert.Equal(t, "visa", a["brand"])
	assert.Equal(t, "credit", a["type"])
	assert.Equal(t, "DESCONOCIDO", a["bank_name"])
	assert.Equal(t, false, a["allows_payouts"])
	assert.Equal(t, cu, b["customer_id"])
	assert.Equal(t, "carnet", debit["brand"])
	assert.Equal(t, "debit", debit["type"])
	assert.Equal(t, true, debit["allows_payouts"])
	assert.Equal(t, "AZTECA", debit["bank_name"])

	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	cards := m.storedCards()
	ka, kb, kd := cards.get(a["id"].(string)), cards.get(b["id"].(string)), cards.get(debit["id"].(string))
	require.NotNil(t, ka)
	require.NotNil(t, kb)
	require.NotNil(t, kd)
	assert.Same(t, ka.prof, kb.prof, "two Visa cards that are not test cards: one profile")
	assert.NotSame(t, ka.prof, kd.prof)
	if !withDataDir(t) { // cards read back from disk keep their strings apart
		assert.True(t, sameStorage(ka.id, ka.masked), "the id and the masked number in one allocation")
		assert.True(t, sameStorage(ka.masked, ka.holder), "the masked number and the holder in one allocation")
	}
	assert.Equal(t, "Ana Uno", ka.holder)
	assert.Equal(t, "453201XXXXXX0366", ka.masked)
	assert.Equal(t, cu, kb.customerID)
}

// TestStoredCustomersStayCompact creates customers as a merchant does, with
// and without an account, then changes one and deletes another: each keeps
// a record of at most 112 bytes (224 before), its text in one allocation
// with its id, and an account part only with requires_account; the
// answers, the external_id rule and the books are as before.
func TestStoredCustomersStayCompact(t *testing.T) {
	t.Parallel()
	assert.LessOrEqual(t, unsafe.Sizeof(customer{}), uintptr(112))
	env := newTestEnv(t, Options{})
	plain := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "last_name": "Uno", "email": "ana@example.com",
		"phone_number": "5512345678", "external_id": "ext-1"}), env.created())
	acct := requireOK(t, env.post("/customers", map[string]any{"name": "Luis", "email": "luis@example.com", "requires_account": true}), env.created())
	assert.Equal(t, "Ana", plain["name"])
	assert.Equal(t, "Uno", plain["last_name"])
	assert.Equal(t, "ana@example.com", plain["email"])
	assert.Equal(t, "5512345678", plain["phone_number"])
	assert.Equal(t, "ext-1", plain["external_id"])
	assert.Equal(t, "active", plain["status"])
	assert.Nil(t, plain["clabe"])
	assert.NotContains(t, plain, "store")
	assert.NotEmpty(t, acct["clabe"])
	assert.NotNil(t, acct["store"])
	requireError(t, env.post("/customers", map[string]any{"name": "Otra", "email": "otra@example.com", "external_id": "ext-1"}), 2003)

	id := plain["id"].(string)
	changed := requireOK(t, env.put("/customers/"+id, map[string]any{"name": "Ana María", "email": "am@example.com"}), http.StatusOK)
	assert.Equal(t, "Ana María", changed["name"])
	assert.Equal(t, "am@example.com", changed["email"])
	assert.Nil(t, changed["last_name"], "a member left out is cleared")
	assert.Equal(t, "ext-1", changed["external_id"], "external_id stays")
	got := requireOK(t, env.get("/customers/"+id), http.StatusOK)
	assert.Equal(t, changed, got)

	m := env.s.merchantByID(env.m.ID)
	func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		cu, ca := m.customers.lookup(id), m.customers.lookup(acct["id"].(string))
		assert.Nil(t, cu.customerAccount, "no account part without requires_account")
		require.NotNil(t, ca.customerAccount)
		if !withDataDir(t) {
			assert.True(t, sameStorage(ca.id(), ca.Name()), "the id and the text in one allocation")
		}
		assert.Equal(t, "ext-1", cu.ExternalID())
	}()
	// The account's books: money in, then the customer cannot be deleted.
	_, err := env.s.ReceiveSPEI(env.m.ID, acct["id"].(string), openpay.MustAmount("50.00"), "")
	require.NoError(t, err)
	assert.Equal(t, "50.00", customerBalance(t, env, acct["id"].(string)))
	requireError(t, env.del("/customers/"+acct["id"].(string)), 1003)
	require.Equal(t, http.StatusNoContent, env.del("/customers/"+id).status)
	requireError(t, env.get("/customers/"+id), 1005)
	// Its external_id is free again.
	requireOK(t, env.post("/customers", map[string]any{"name": "Otra", "email": "otra@example.com", "external_id": "ext-1"}), env.created())
}

// TestStoredCardChargesFollowTheCardsChanges charges a stored card, changes
// its holder and expiry, and charges it again twice: each charge records
// the card as it stood when charged, the two after the change share one
// wire form, and the first keeps the old one.
func TestStoredCardChargesFollowTheCardsChanges(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	first := requireOK(t, env.post("/charges", cardCharge(card, "order_id", "o-1")), http.StatusOK)
	requireOK(t, env.put("/cards/"+card, map[string]any{"holder_name": "Juana Perez", "expiration_month": "03", "expiration_year": "33"}), http.StatusOK)
	second := requireOK(t, env.post("/charges", cardCharge(card, "order_id", "o-2")), http.StatusOK)
	third := requireOK(t, env.post("/charges", cardCharge(card, "order_id", "o-3")), http.StatusOK)
	for _, o := range []map[string]any{first, second, third} {
		assert.Equal(t, "completed", o["status"])
		assert.Equal(t, card, o["card"].(map[string]any)["id"])
	}
	assert.Equal(t, "Juan Perez", first["card"].(map[string]any)["holder_name"])
	assert.Equal(t, "12", first["card"].(map[string]any)["expiration_month"])
	assert.Equal(t, "Juana Perez", second["card"].(map[string]any)["holder_name"])
	assert.Equal(t, "03", second["card"].(map[string]any)["expiration_month"])
	assert.Equal(t, "33", second["card"].(map[string]any)["expiration_year"])
	assert.Equal(t, second["card"], third["card"])
	// Read back, each charge still shows its card as it stood.
	assert.Equal(t, first["card"], requireOK(t, env.get("/charges/"+first["id"].(string)), http.StatusOK)["card"])
	assert.Equal(t, second["card"], requireOK(t, env.get("/charges/"+second["id"].(string)), http.StatusOK)["card"])

	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	t1, t2, t3 := m.txByID(first["id"].(string)), m.txByID(second["id"].(string)), m.txByID(third["id"].(string))
	assert.Same(t, t2.card, t3.card, "charges to an unchanged card share its wire form")
	assert.NotSame(t, t1.card, t2.card)
	assert.Equal(t, "Juan Perez", t1.card.HolderName, "a shared wire form is never changed")
}
