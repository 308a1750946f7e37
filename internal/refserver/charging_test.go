package refserver

import (
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chargeStoredCard charges a stored card from inside the server, as a
// subscription's period does: a completed charge, a recorded decline, and
// nothing for a card that is not the customer's.
func TestChargeStoredCardFromInside(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	good := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	bad := storedCard(t, env, "/customers/"+cu, "4000000000030108")
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	cust := m.customers.get(cu)
	cards := m.storedCards()
	okTx, e := env.s.chargeStoredCard(m, cards, cust, good, openpay.MustAmount("99.90"), "", "plan period 1")
	require.Nil(t, e)
	ok := okTx.snapshot()
	failedTx, declined := env.s.chargeStoredCard(m, cards, cust, bad, openpay.MustAmount("99.90"), "", "plan period 1")
	noTx, missing := env.s.chargeStoredCard(m, cards, nil, good, openpay.MustAmount("1"), "", "x")
	m.mu.Unlock()
	assert.Equal(t, openpay.TransactionStatusCompleted, ok.Status)
	assert.Equal(t, cu, ok.CustomerID)
	assert.Equal(t, openpay.CurrencyMXN, ok.Currency)
	require.NotNil(t, declined)
	assert.Equal(t, openpay.ErrCardRestricted, declined.Code)
	require.NotNil(t, failedTx, "a decline is recorded")
	assert.Equal(t, openpay.TransactionStatusFailed, failedTx.snapshot().Status)
	require.NotNil(t, missing, "a customer's card is not the merchant's")
	assert.Equal(t, openpay.ErrNotFound, missing.Code)
	assert.Nil(t, noTx, "nothing is recorded for a card that does not exist")
	list := env.get("/customers/" + cu + "/charges").arr(t)
	require.Len(t, list, 2)
	assert.Equal(t, "failed", list[0]["status"])
	assert.Equal(t, "99.9", balance(t, env))
}
