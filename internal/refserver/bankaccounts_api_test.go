package refserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBankAccountLifecycle(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := createCustomerHTTP(t, env, "Juan", false)
	path := "/customers/" + cu + "/bankaccounts"
	o := requireOK(t, env.post(path, map[string]any{"holder_name": "Juan Hernández Sánchez", "alias": "Cuenta principal",
		"clabe": clabeIXE}), http.StatusOK)
	assert.Regexp(t, `^b[a-z0-9]{19}$`, o["id"])
	assert.Equal(t, "032XXXXXXXXXX59719", o["clabe"])
	assert.Equal(t, "032", o["bank_code"])
	assert.Equal(t, "IXE", o["bank_name"])
	assert.Equal(t, "Cuenta principal", o["alias"])
	assert.Equal(t, "Juan Hernández Sánchez", o["holder_name"])
	assert.Equal(t, "2026-03-10T12:00:00-06:00", o["creation_date"])
	assert.Equal(t, []string{"alias", "bank_code", "bank_name", "clabe", "creation_date", "holder_name", "id"}, keysOf(o))
	assert.NotContains(t, string(env.get(path).body), clabeIXE, "the full CLABE is never shown")
	id := o["id"].(string)
	assert.Equal(t, o, requireOK(t, env.get(path+"/"+id), http.StatusOK))

	// No alias: null. A bank the catalogue lacks: its code, name unknown.
	env.clock.Advance(time.Hour)
	u := requireOK(t, env.post(path, map[string]any{"holder_name": "Juan", "clabe": clabeUnlisted}), http.StatusOK)
	assertNull(t, u, "alias")
	assert.Equal(t, "722", u["bank_code"])
	assert.Equal(t, clabe.UnknownBankName, u["bank_name"])
	env.clock.Advance(time.Hour)
	b := requireOK(t, env.post(path, map[string]any{"holder_name": "Juan", "clabe": clabeBancomer}), http.StatusOK)
	assert.Equal(t, "BANCOMER", b["bank_name"])

	list := env.get(path).arr(t)
	assert.Equal(t, []string{b["id"].(string), u["id"].(string), id}, ids(list))
	assert.Equal(t, []string{u["id"].(string)}, ids(env.get(path+"?offset=1&limit=1").arr(t)))
	requireError(t, env.get(path+"?limit=0"), 1003)
	assert.Len(t, env.get(path+"?limit=101").arr(t), 3, "a limit above 100 is taken as 100")

	// The same CLABE twice on the customer: 2001; on another customer it is fine.
	requireError(t, env.post(path, map[string]any{"holder_name": "Otro", "clabe": clabeIXE}), 2001)
	other := createCustomerHTTP(t, env, "Otro", true)
	requireOK(t, env.post("/customers/"+other+"/bankaccounts", map[string]any{"holder_name": "Otro", "clabe": clabeIXE}), http.StatusOK)
	// Another customer's account is not found at this customer's scope.
	requireError(t, env.get("/customers/"+other+"/bankaccounts/"+id), 1005)
	requireError(t, env.del("/customers/"+other+"/bankaccounts/"+id), 1005)

	// Delete: 204, then gone; the CLABE may be registered again.
	requireOK(t, env.del(path+"/"+id), http.StatusNoContent)
	requireError(t, env.get(path+"/"+id), 1005)
	requireError(t, env.del(path+"/"+id), 1005)
	assert.NotContains(t, ids(env.get(path).arr(t)), id)
	requireOK(t, env.post(path, map[string]any{"holder_name": "Juan", "clabe": clabeIXE}), http.StatusOK)

	// Unknown customer, unknown account.
	requireError(t, env.post("/customers/anothere/bankaccounts", map[string]any{"holder_name": "J", "clabe": clabeIXE}), 1005)
	requireError(t, env.get("/customers/anothere/bankaccounts"), 1005)
	requireError(t, env.get(path+"/bnothere"), 1005)
}

func TestCreateBankAccountErrors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	path := "/customers/" + createCustomerHTTP(t, env, "Juan", false) + "/bankaccounts"
	ok := map[string]any{"holder_name": "Juan", "clabe": clabeIXE}
	badCheck := clabeIXE[:17] + "0"
	for _, c := range []struct {
		name  string
		body  any
		code  int
		field string
	}{
		{"not JSON", "nope", 1001, ""},
		{"holder missing", with(ok, "holder_name", nil), 1001, "holder_name"},
		{"clabe missing", with(ok, "clabe", nil), 1001, "clabe"},
		{"holder blank", with(ok, "holder_name", " "), 1001, "holder_name"},
		{"clabe a number", with(ok, "clabe", 32180000118359719), 1001, "clabe"},
		{"holder too long", with(ok, "holder_name", strings.Repeat("h", 81)), 1003, "holder_name"},
		{"alias too long", with(ok, "alias", strings.Repeat("a", 46)), 1003, "alias"},
		{"clabe too long", with(ok, "clabe", strings.Repeat("1", 46)), 1003, "clabe"},
		{"clabe check digit", with(ok, "clabe", badCheck), 1003, "clabe"},
		{"clabe short", with(ok, "clabe", clabeIXE[:17]), 1001, "clabe"},
		{"clabe letters", with(ok, "clabe", "03218000011835971A"), 1001, "clabe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			desc := requireError(t, env.post(path, c.body), c.code)
			if c.field != "" {
				assert.Contains(t, desc, "'"+c.field+"'")
			}
			assert.NotContains(t, desc, badCheck)
		})
	}
	requireError(t, env.do(http.MethodPost, env.mp(path), env.m.PublicKey, ok), 1010)
	require.Empty(t, env.get(path).arr(t), "no failed request stored anything")
}

func TestMerchantBankAccounts(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "100.00")
	cu := createCustomerHTTP(t, env, "Juan", false)
	custAcct := requireOK(t, env.post("/customers/"+cu+"/bankaccounts", map[string]any{"holder_name": "Juan", "clabe": clabeIXE}), http.StatusOK)["id"].(string)

	// The merchant's own accounts: the same rules and answer as a customer's;
	// the CLABE of a customer's account is the merchant's to register too.
	o := requireOK(t, env.post("/bankaccounts", map[string]any{"holder_name": "Mi empresa", "clabe": clabeIXE}), http.StatusOK)
	assert.Equal(t, []string{"alias", "bank_code", "bank_name", "clabe", "creation_date", "holder_name", "id"}, keysOf(o))
	assert.Equal(t, "032XXXXXXXXXX59719", o["clabe"])
	id := o["id"].(string)
	assert.Equal(t, o, requireOK(t, env.get("/bankaccounts/"+id), http.StatusOK))
	requireError(t, env.post("/bankaccounts", map[string]any{"holder_name": "Mi empresa", "clabe": clabeIXE}), 2001)
	requireError(t, env.post("/bankaccounts", map[string]any{"holder_name": "Mi empresa"}), 1001)
	env.clock.Advance(time.Hour)
	second := requireOK(t, env.post("/bankaccounts", map[string]any{"holder_name": "Mi empresa", "clabe": clabeBancomer}), http.StatusOK)["id"].(string)

	// Each scope sees its own accounts only.
	assert.Equal(t, []string{second, id}, ids(env.get("/bankaccounts").arr(t)))
	assert.Equal(t, []string{custAcct}, ids(env.get("/customers/"+cu+"/bankaccounts").arr(t)))
	requireError(t, env.get("/bankaccounts/"+custAcct), 1005)
	requireError(t, env.get("/customers/"+cu+"/bankaccounts/"+id), 1005)
	requireError(t, env.del("/bankaccounts/"+custAcct), 1005)

	// A payout from the merchant's balance may go to its own account; a
	// customer's balance may not pay into it.
	p := requireOK(t, env.post("/payouts", bankPayout(id)), http.StatusOK)
	assert.Equal(t, id, p["bank_account"].(map[string]any)["id"])
	requireError(t, env.post("/customers/"+cu+"/payouts", bankPayout(id)), 1005)

	requireOK(t, env.del("/bankaccounts/"+id), http.StatusNoContent)
	requireError(t, env.get("/bankaccounts/"+id), 1005)
	assert.Equal(t, []string{second}, ids(env.get("/bankaccounts").arr(t)))
	requireError(t, env.post("/payouts", bankPayout(id)), 1005)
}
