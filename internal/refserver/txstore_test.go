package refserver

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChargesAndTransfersStoredInTurnAreEachFound is a merchant's day of
// charges and transfers stored one after the other (merchant.addTx, its
// indexes, the order_id rule, the events and their ids): every order_id is
// taken once, whichever kind took it; every transaction is read by its id,
// a transfer from both of its customers; the balances add up to the cent;
// and a restart from the data directory finds all of it again (the indexes
// rebuilt from the records).
func TestChargesAndTransfersStoredInTurnAreEachFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := openPersistEnv(t, dir, nil, testStart)
	from := createCustomerHTTP(t, env, "Paga", true)
	to := createCustomerHTTP(t, env, "Cobra", true)
	fund(t, env, from, "1000.00")
	card := storedCard(t, env, "", "4111111111111111")
	const rounds = 40
	var charges, transfers []string
	for i := range rounds {
		c := requireOK(t, env.post("/charges", cardCharge(card, "order_id", fmt.Sprintf("c-%d", i), "amount", 10.01)), http.StatusOK)
		charges = append(charges, c["id"].(string))
		tr := requireOK(t, env.post("/customers/"+from+"/transfers", transfer(to, "order_id", fmt.Sprintf("t-%d", i), "amount", 1.37)), http.StatusOK)
		transfers = append(transfers, tr["id"].(string))
		assert.Equal(t, tr["creation_date"], c["creation_date"], "the fake clock stands still")
		// An order_id is the merchant's, whichever kind of transaction took it.
		requireError(t, env.post("/charges", cardCharge(card, "order_id", fmt.Sprintf("t-%d", i))), int(openpay.ErrDuplicateOrderID))
		requireError(t, env.post("/customers/"+from+"/transfers", transfer(to, "order_id", fmt.Sprintf("c-%d", i))), int(openpay.ErrDuplicateOrderID))
		requireError(t, env.post("/customers/"+from+"/transfers", transfer(to, "order_id", fmt.Sprintf("t-%d", i))), int(openpay.ErrDuplicateOrderID))
	}
	check := func(env *testEnv) {
		t.Helper()
		seen := map[string]bool{}
		for i := range rounds {
			c := requireOK(t, env.get("/charges/"+charges[i]), http.StatusOK)
			assert.Equal(t, fmt.Sprintf("c-%d", i), c["order_id"])
			assert.Equal(t, "charge", c["transaction_type"])
			out := requireOK(t, env.get("/customers/"+from+"/transfers/"+transfers[i]), http.StatusOK)
			assert.Equal(t, []any{"out", from, fmt.Sprintf("t-%d", i), 1.37}, []any{out["operation_type"], out["customer_id"], out["order_id"], out["amount"]})
			in := requireOK(t, env.get("/customers/"+to+"/transfers/"+transfers[i]), http.StatusOK)
			assert.Equal(t, []any{"in", to, nil, 1.37}, []any{in["operation_type"], in["customer_id"], in["order_id"], in["amount"]})
			// The merchant's transaction of a transfer's id is its out side.
			requireError(t, env.get("/charges/"+transfers[i]), 1005)
			assert.Equal(t, []string{transfers[i]}, ids(env.get("/customers/"+from+"/transfers?order_id="+fmt.Sprintf("t-%d", i)).arr(t)))
			assert.Equal(t, []string{charges[i]}, ids(env.get("/charges?order_id="+fmt.Sprintf("c-%d", i)).arr(t)))
			seen[charges[i]], seen[transfers[i]] = true, true
		}
		assert.Len(t, seen, 2*rounds, "every id drawn once")
		assert.Len(t, env.get("/customers/"+from+"/transfers?limit=100").arr(t), rounds)
		assert.Len(t, env.get("/customers/"+to+"/transfers?limit=100").arr(t), rounds)
		assert.Equal(t, "945.20", balanceOf(t, env, from)) // 1000 - 40 * 1.37
		assert.Equal(t, "54.80", balanceOf(t, env, to))
		// One event per transaction, each with its own id, dated when its
		// transaction was made.
		var evIDs []string
		for _, ev := range env.s.Events(env.m.ID) {
			if ev.Type == openpay.EventTypeTransferSucceeded || ev.Type == openpay.EventTypeChargeSucceeded {
				evIDs = append(evIDs, ev.ID)
				assert.True(t, ev.Date.Equal(ev.Transaction.CreationDate), "%s dated %v, its transaction %v", ev.Type, ev.Date, ev.Transaction.CreationDate)
				if ev.Type == openpay.EventTypeTransferSucceeded {
					assert.Equal(t, openpay.OperationTypeOut, ev.Transaction.OperationType)
				}
			}
		}
		require.Len(t, evIDs, 2*rounds)
		for _, id := range evIDs {
			assert.False(t, seen[id], "an event's id is not a transaction's")
			seen[id] = true
		}
		assert.Len(t, seen, 4*rounds)
	}
	check(env)
	balances := func(env *testEnv) string {
		mb, cs, err := env.s.Balances(env.m.ID)
		require.NoError(t, err)
		return fmt.Sprint(mb, cs[from], cs[to])
	}
	before := balances(env)
	require.NoError(t, env.s.SaveData())
	env.s.Close()
	restarted := openPersistEnv(t, dir, env, testStart)
	check(restarted)
	assert.Equal(t, before, balances(restarted))
	// The rule holds across the restart, and new records go on from there.
	requireError(t, restarted.post("/charges", cardCharge(card, "order_id", "t-3")), int(openpay.ErrDuplicateOrderID))
	tr := requireOK(t, restarted.post("/customers/"+to+"/transfers", transfer(from, "order_id", "back", "amount", 4.8)), http.StatusOK)["id"].(string)
	assert.Equal(t, "back", requireOK(t, restarted.get("/customers/"+to+"/transfers/"+tr), http.StatusOK)["order_id"])
	assert.Nil(t, requireOK(t, restarted.get("/customers/"+from+"/transfers/"+tr), http.StatusOK)["order_id"])
	assert.Equal(t, "50.00", balanceOf(t, restarted, to))
}
