package refserver

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSPEIReceiptSimulation(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Ana", true)

	o := requireOK(t, env.sim("/customers/"+cu+"/spei", map[string]any{"amount": 700, "description": "pago de renta"}), http.StatusOK)
	for k, v := range map[string]any{"amount": 700.0, "method": "bank_account", "operation_type": "in", "transaction_type": "charge",
		"status": "completed", "conciliated": true, "currency": "MXN", "customer_id": cu, "description": "pago de renta",
		"creation_date": "2026-03-10T12:00:00-06:00", "operation_date": "2026-03-10T12:00:00-06:00"} {
		assert.Equal(t, v, o[k], k)
	}
	assert.NotEmpty(t, o["authorization"])
	ba := o["bank_account"].(map[string]any)
	assert.Regexp(t, `^002X{10}[0-9]{5}$`, ba["clabe"])
	assert.Equal(t, "Banamex", ba["bank_name"])
	assert.Equal(t, senderRFC, ba["rfc"])
	assert.Equal(t, "700.00", balanceOf(t, env, cu))
	// It is one of the customer's charges, and cannot be refunded as a card charge.
	id := o["id"].(string)
	assert.Equal(t, o, requireOK(t, env.get("/customers/"+cu+"/charges/"+id), 200))
	requireError(t, env.post("/customers/"+cu+"/charges/"+id+"/refund", nil), 1003)

	// Into the merchant's balance, with the default description.
	o = requireOK(t, env.sim("/spei", map[string]any{"amount": 12.34}), http.StatusOK)
	assert.NotContains(t, o, "customer_id")
	assert.Equal(t, "SPEI transfer received", o["description"])
	assert.Equal(t, "12.34", balanceOf(t, env, ""))

	// Errors.
	plain := createCustomerHTTP(t, env, "Plain", false)
	requireError(t, env.sim("/spei", "{"), 1001)
	requireError(t, env.sim("/spei", map[string]any{}), 1001)
	requireError(t, env.sim("/spei", map[string]any{"amount": "diez"}), 1001)
	requireError(t, env.sim("/spei", map[string]any{"amount": 0}), 1003)
	requireError(t, env.sim("/spei", map[string]any{"amount": 1.001}), 1003)
	requireError(t, env.sim("/spei", map[string]any{"amount": 1, "description": strings.Repeat("d", 251)}), 1003)
	requireError(t, env.sim("/customers/anothere/spei", map[string]any{"amount": 1}), 1005)
	requireError(t, env.sim("/customers/"+plain+"/spei", map[string]any{"amount": 1}), 1003)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/spei", env.m.PublicKey, map[string]any{"amount": 1}), 1010)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/spei", "", map[string]any{"amount": 1}), 1002)
	deactivateCustomer(env, cu)
	requireError(t, env.sim("/customers/"+cu+"/spei", map[string]any{"amount": 1}), 1008)
	setMerchantStatus(env, openpay.MerchantStatusDeleted)
	requireError(t, env.sim("/spei", map[string]any{"amount": 1}), 1008)
	_, err := env.s.ReceiveSPEI("mnosuchmerchant", "", openpay.MustAmount("1"), "")
	assert.Equal(t, openpay.ErrNotFound, err.(*Error).Code)
	assert.Equal(t, "700.00", balanceOf(t, env, cu))
	assert.Equal(t, "12.34", balanceOf(t, env, ""))

	var got []string
	for _, ev := range env.s.Events(env.m.ID) {
		got = append(got, string(ev.Type))
	}
	assert.Equal(t, []string{"spei.received", "spei.received"}, got)
}

// TestMoneyMovementsLeaveNoCardDataInTheLog runs the money routes with card
// numbers in bodies, paths and queries, with the logger at debug level.
func TestMoneyMovementsLeaveNoCardDataInTheLog(t *testing.T) {
	t.Parallel()
	var logs syncBuf
	env := newTestEnv(t, Options{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	const number = "5555555555554444"
	fund(t, env, "", "100")
	requireOK(t, env.post("/payouts", inlineCardPayout(number)), 200)
	requireError(t, env.post("/payouts", inlineCardPayout("5555555555554445")), 2004)
	requireError(t, env.get("/payouts/"+number), 1005)
	requireError(t, env.get("/customers/"+number+"/transfers"), 1005)
	requireError(t, env.post("/fees", fee(number)), 1005)
	assert.Empty(t, env.get("/payouts?order_id="+number).arr(t))
	requireError(t, env.post("/customers/x/bankaccounts", map[string]any{"holder_name": "x", "clabe": clabeIXE}), 1005)
	out := logs.String()
	require.Contains(t, out, `"operation":"createPayout"`)
	for _, secret := range []string{number, "5555555555554445", clabeIXE, env.m.PrivateKey} {
		assert.NotContains(t, out, secret)
	}
}

func TestCustomerAccountDeactivationControl(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Ines", true)
	store := map[string]any{"method": "store", "amount": 10, "description": "x"}
	o := requireOK(t, env.sim("/customers/"+cu+"/deactivate", nil), http.StatusOK)
	assert.Equal(t, cu, o["id"])
	requireError(t, env.post("/customers/"+cu+"/charges", store), 1008)
	requireOK(t, env.sim("/customers/"+cu+"/reactivate", nil), http.StatusOK)
	requireOK(t, env.post("/customers/"+cu+"/charges", store), http.StatusOK)
	requireError(t, env.sim("/customers/anotthere/deactivate", nil), 1005)
	requireError(t, env.do(http.MethodPost, "/_simulate/"+env.m.ID+"/customers/"+cu+"/deactivate", env.other.PrivateKey, nil), 1002)
}
