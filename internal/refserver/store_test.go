package refserver

import (
	"sync"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The extension points the resource files use: per-merchant state of their
// own, event hooks, close hooks.

func TestExtStateIsPerMerchantAndPerType(t *testing.T) {
	t.Parallel()
	type planState struct{ n int }
	type hookState struct{ s string }
	a := newMerchant(MerchantConfig{ID: "ma"}, testStart)
	b := newMerchant(MerchantConfig{ID: "mb"}, testStart)
	inits := 0
	get := func(m *merchant) *planState {
		return extState(m, func() *planState { inits++; return &planState{} })
	}
	get(a).n = 7
	assert.Equal(t, 7, get(a).n)
	assert.Equal(t, 0, get(b).n)
	assert.Equal(t, 2, inits, "one state per merchant, created once")
	extState(a, func() *hookState { return &hookState{s: "x"} })
	assert.Equal(t, 7, get(a).n, "another type does not disturb the first")
	assert.Equal(t, "x", extState(a, func() *hookState { return nil }).s)
}

func TestEventHooksAndLog(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	var mu sync.Mutex
	var seen []openpay.EventType
	env.s.onEvent(func(m *merchant, ev *loggedEvent) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, ev.typ)
		assert.Equal(t, env.m.ID, m.id)
	})
	r := env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x"})
	requireOK(t, r, 200)
	id := r.obj(t)["id"].(string)
	_, err := env.s.PayCharge(env.m.ID, id)
	require.NoError(t, err)
	mu.Lock()
	assert.Equal(t, []openpay.EventType{openpay.EventTypeChargeCreated, openpay.EventTypeChargeSucceeded}, seen)
	mu.Unlock()
	evs := env.s.Events(env.m.ID)
	require.Len(t, evs, 2)
	assert.Equal(t, id, evs[1].Transaction.ID)
	assert.Equal(t, openpay.TransactionStatusCompleted, evs[1].Transaction.Status)
	assert.Equal(t, openpay.TransactionStatusInProgress, evs[0].Transaction.Status, "an event keeps the transaction as it stood")
	w := evs[1].Wire()
	assert.Equal(t, openpay.EventTypeChargeSucceeded, w.Type)
	assert.Equal(t, id, w.Transaction.ID)
	assert.Empty(t, env.s.Events(env.other.ID))
	assert.Nil(t, env.s.Events("mnobody"))
}

func TestCloseHooksRunOnceInReverseOrder(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	var order []int
	s.onClose(func() { order = append(order, 1) })
	s.onClose(func() { order = append(order, 2) })
	s.Close()
	s.Close()
	assert.Equal(t, []int{2, 1}, order)
}

func TestAddMerchantAndGroup(t *testing.T) {
	t.Parallel()
	seed := int64(7)
	s := New(Options{IDSeed: &seed})
	m, err := s.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
	assert.Regexp(t, `^m[a-z0-9]{19}$`, m.ID)
	assert.Regexp(t, `^sk_[0-9a-f]{32}$`, m.PrivateKey)
	assert.Regexp(t, `^pk_[0-9a-f]{32}$`, m.PublicKey)
	assert.True(t, clabe.Valid(m.CLABE))
	// Deterministic: the same seed gives the same merchant.
	s2 := New(Options{IDSeed: &seed})
	m2, err := s2.AddMerchant(MerchantConfig{})
	require.NoError(t, err)
	assert.Equal(t, m, m2)

	_, err = s.AddMerchant(MerchantConfig{ID: m.ID})
	assert.Error(t, err, "duplicate id")
	_, err = s.AddMerchant(MerchantConfig{PrivateKey: m.PrivateKey})
	assert.Error(t, err, "key reused")
	_, err = s.AddMerchant(MerchantConfig{PrivateKey: "sk_same", PublicKey: "sk_same"})
	assert.Error(t, err, "private equals public")
	_, err = s.AddMerchant(MerchantConfig{ID: "groups"})
	assert.Error(t, err)
	_, err = s.AddMerchant(MerchantConfig{Balance: openpay.MustAmount("-1")})
	assert.Error(t, err)
	given, err := s.AddMerchant(MerchantConfig{ID: "mexzhpxok3houd5lbvz1", PrivateKey: "sk_given", PublicKey: "pk_given",
		Balance: openpay.MustAmount("100.50")})
	require.NoError(t, err)
	assert.Equal(t, "sk_given", given.PrivateKey)
	bal, _, err := s.Balances(given.ID)
	require.NoError(t, err)
	assert.Equal(t, "100.50", bal.String())

	g, err := s.AddGroup(GroupConfig{MerchantIDs: []string{m.ID}})
	require.NoError(t, err)
	_, err = s.AddGroup(GroupConfig{ID: g.ID})
	assert.Error(t, err)
	_, err = s.AddGroup(GroupConfig{ID: m.ID})
	assert.Error(t, err, "a merchant's id")
	_, err = s.AddGroup(GroupConfig{MerchantIDs: []string{"mnobody"}})
	assert.Error(t, err)
	cu, err := s.CreateGroupCustomer(g.ID, openpay.CustomerRequest{Name: "G", Email: "g@example.com", ExternalID: "e1"})
	require.NoError(t, err)
	assert.Regexp(t, `^a[a-z0-9]{19}$`, cu.ID)
	_, err = s.CreateGroupCustomer(g.ID, openpay.CustomerRequest{Name: "G", Email: "g@example.com", ExternalID: "e1"})
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, openpay.ErrExternalIDExists, e.Code)
	_, err = s.CreateGroupCustomer(g.ID, openpay.CustomerRequest{Name: "H", Email: "h@example.com", RequiresAccount: true})
	require.ErrorAs(t, err, &e)
	assert.Equal(t, openpay.ErrInvalidParameter, e.Code, "as the group customer API answers")
}
