package refserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fee(customerID string, kv ...any) map[string]any {
	return with(map[string]any{"customer_id": customerID, "amount": 12.5, "description": "Cobro de comisión"}, kv...)
}

func TestFeeAndItsRefund(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "100.00")

	o := requireOK(t, env.post("/fees", fee(cu, "order_id", "oid-1245")), http.StatusOK)
	id := o["id"].(string)
	for k, v := range map[string]any{"amount": 12.5, "method": "customer", "operation_type": "out", "transaction_type": "fee",
		"status": "completed", "currency": "MXN", "order_id": "oid-1245", "customer_id": cu,
		"description": "Cobro de comisión", "creation_date": "2026-03-10T12:00:00-06:00"} {
		assert.Equal(t, v, o[k], k)
	}
	assert.Equal(t, "87.50", balanceOf(t, env, cu))
	assert.Equal(t, "12.50", balanceOf(t, env, ""))
	assert.Equal(t, o, requireOK(t, env.get("/fees/"+id), http.StatusOK))

	env.clock.Advance(time.Hour)
	r := requireOK(t, env.post("/fees/"+id+"/refund", map[string]any{"description": "fee refund"}), http.StatusOK)
	rid := r["id"].(string)
	assert.NotEqual(t, id, rid)
	for k, v := range map[string]any{"amount": 12.5, "method": "customer", "operation_type": "in", "transaction_type": "refund",
		"status": "completed", "currency": "MXN", "customer_id": cu, "description": "fee refund", "conciliated": true,
		"creation_date": "2026-03-10T13:00:00-06:00", "operation_date": "2026-03-10T13:00:00-06:00"} {
		assert.Equal(t, v, r[k], k)
	}
	assertNull(t, r, "order_id")
	assert.Equal(t, "100.00", balanceOf(t, env, cu))
	assert.Equal(t, "0.00", balanceOf(t, env, ""))
	// The fee now shows the refund; a second refund is refused.
	got := requireOK(t, env.get("/fees/"+id), http.StatusOK)
	assert.Equal(t, "refunded", got["status"])
	assert.Equal(t, r, got["refund"])
	desc := requireError(t, env.post("/fees/"+id+"/refund", nil), 1003)
	assert.Contains(t, desc, "refunded")
	assert.Equal(t, "100.00", balanceOf(t, env, cu))

	// Without a body the refund gets a description of its own.
	id2 := requireOK(t, env.post("/fees", fee(cu, "amount", 1)), 200)["id"].(string)
	r = requireOK(t, env.post("/fees/"+id2+"/refund", nil), http.StatusOK)
	assert.Equal(t, "Refund of fee "+id2, r["description"])
	// The refund is read through its fee.
	requireError(t, env.get("/fees/"+r["id"].(string)), 1005)

	var got2 []string
	for _, ev := range env.s.Events(env.m.ID) {
		if strings.HasPrefix(string(ev.Type), "fee.") {
			got2 = append(got2, string(ev.Type)+" "+ev.Transaction.ID)
		}
	}
	assert.Equal(t, []string{"fee.succeeded " + id, "fee.refund.succeeded " + rid, "fee.succeeded " + id2,
		"fee.refund.succeeded " + r["id"].(string)}, got2)
}

func TestFeeErrors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Ana", true)
	plain := createCustomerHTTP(t, env, "Plain", false)
	fund(t, env, cu, "10.00")
	requireOK(t, env.post("/fees", fee(cu, "order_id", "taken", "amount", 1)), 200)
	for _, c := range []struct {
		name  string
		body  any
		code  int
		field string
	}{
		{"not JSON", "[1]", 1001, ""},
		{"customer_id missing", fee(cu, "customer_id", nil), 1001, "customer_id"},
		{"amount missing", fee(cu, "amount", nil), 1001, "amount"},
		{"description missing", fee(cu, "description", nil), 1001, "description"},
		{"amount a string not a number", fee(cu, "amount", "uno"), 1001, "amount"},
		{"customer_id too long", fee(strings.Repeat("c", 46)), 1003, "customer_id"},
		{"amount zero", fee(cu, "amount", 0), 1003, "amount"},
		{"amount three decimals", fee(cu, "amount", 0.125), 1003, "amount"},
		{"description too long", fee(cu, "description", strings.Repeat("d", 251)), 1003, "description"},
		{"order_id too long", fee(cu, "order_id", strings.Repeat("o", 101)), 1003, "order_id"},
		{"customer unknown", fee("anothere"), 1005, "anothere"},
		{"customer without account", fee(plain), 1003, "customer_id"},
		{"order_id taken", fee(cu, "order_id", "taken"), 1006, ""},
		{"customer short", fee(cu, "amount", 9.01), 4001, "customer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			desc := requireError(t, env.post("/fees", c.body), c.code)
			if c.field != "" {
				assert.Contains(t, desc, c.field)
			}
		})
	}
	assert.Equal(t, "9.00", balanceOf(t, env, cu))
	assert.Equal(t, "1.00", balanceOf(t, env, ""))

	// Refund errors: unknown fee, a bad body, a merchant that has spent
	// the fee, deactivated accounts.
	id := requireOK(t, env.post("/fees", fee(cu, "amount", 5)), 200)["id"].(string)
	requireError(t, env.post("/fees/trnothere/refund", nil), 1005)
	requireError(t, env.post("/fees/"+id+"/refund", "{"), 1001)
	requireError(t, env.post("/fees/"+id+"/refund", map[string]any{"description": 1}), 1001)
	requireError(t, env.post("/fees/"+id+"/refund", map[string]any{"description": strings.Repeat("d", 251)}), 1003)
	requireOK(t, env.post("/payouts", inlineBankPayout("amount", 5.5)), 200)
	desc := requireError(t, env.post("/fees/"+id+"/refund", nil), 4001)
	assert.Contains(t, desc, "merchant")
	fund(t, env, "", "10")
	deactivateCustomer(env, cu)
	requireError(t, env.post("/fees/"+id+"/refund", nil), 1008)
	requireError(t, env.post("/fees", fee(cu, "amount", 1)), 1008)
	setMerchantStatus(env, openpay.MerchantStatusDeleted)
	other := createCustomerHTTP(t, env, "Otro", true)
	requireError(t, env.post("/fees", fee(other, "amount", 1)), 1008)
	// A charge is not a fee.
	setMerchantStatus(env, openpay.MerchantStatusActive)
	charge := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x"}), 200)["id"].(string)
	requireError(t, env.get("/fees/"+charge), 1005)
	requireError(t, env.post("/fees/"+charge+"/refund", nil), 1005)
	requireError(t, env.do(http.MethodPost, env.mp("/fees"), env.m.PublicKey, fee(cu)), 1010)
	requireError(t, env.do(http.MethodGet, env.mp("/fees"), "", nil), 1002)
}

func TestListFees(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	a, b := createCustomerHTTP(t, env, "Ana", true), createCustomerHTTP(t, env, "Beto", true)
	fund(t, env, a, "100")
	fund(t, env, b, "100")
	var fees []string
	for i, c := range []string{a, b, a} {
		fees = append(fees, requireOK(t, env.post("/fees", fee(c, "amount", 10*(i+1), "order_id", "f-"+c[:3]+string(rune('0'+i)))), 200)["id"].(string))
		env.clock.Advance(24 * time.Hour)
	}
	requireOK(t, env.post("/fees/"+fees[1]+"/refund", nil), 200)
	assert.Equal(t, []string{fees[2], fees[1], fees[0]}, ids(env.get("/fees").arr(t)), "fees only, newest first")
	assert.Equal(t, []string{fees[1]}, ids(env.get("/fees?status=REFUNDED").arr(t)))
	assert.Equal(t, []string{fees[2], fees[0]}, ids(env.get("/fees?status=COMPLETED").arr(t)))
	assert.Equal(t, []string{fees[2]}, ids(env.get("/fees?"+url.Values{"amount[gte]": {"25"}}.Encode()).arr(t)))
	assert.Equal(t, []string{fees[0]}, ids(env.get("/fees?creation=2026-03-10").arr(t)))
	assert.Equal(t, []string{fees[1]}, ids(env.get("/fees?offset=1&limit=1").arr(t)))
	assert.Equal(t, []string{fees[0]}, ids(env.get("/fees?order_id=f-"+a[:3]+"0").arr(t)))
	assert.Len(t, env.get("/fees?limit=1000").arr(t), 3, "a limit above 100 is taken as 100")
	require.Empty(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/fees", env.other.PrivateKey, nil).arr(t))
}
