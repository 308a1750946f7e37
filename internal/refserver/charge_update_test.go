package refserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestChargeUpdate(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	id := requireOK(t, env.post("/charges", cardCharge(card, "order_id", "oid-1")), http.StatusOK)["id"].(string)
	other := requireOK(t, env.post("/charges", cardCharge(card, "order_id", "oid-2")), http.StatusOK)["id"].(string)

	// Only the members sent change; the answer is the charge, and reads agree.
	o := requireOK(t, env.put("/charges/"+id, map[string]any{"description": "Pedido 77"}), http.StatusOK)
	assert.Equal(t, "Pedido 77", o["description"])
	assert.Equal(t, "oid-1", o["order_id"])
	assert.Equal(t, "completed", o["status"])
	o = requireOK(t, env.put("/charges/"+id, map[string]any{"order_id": "pedido-77"}), http.StatusOK)
	assert.Equal(t, "pedido-77", o["order_id"])
	assert.Equal(t, "Pedido 77", o["description"])
	assert.Equal(t, o, requireOK(t, env.get("/charges/"+id), http.StatusOK))

	// The order_id index follows: the list finds the new one, the old one
	// is free again, another transaction's is refused.
	assert.Equal(t, []string{id}, ids(env.get("/charges?order_id=pedido-77").arr(t)))
	assert.Empty(t, env.get("/charges?order_id=oid-1").arr(t))
	requireOK(t, env.post("/charges", cardCharge(card, "order_id", "oid-1")), http.StatusOK)
	requireError(t, env.put("/charges/"+id, map[string]any{"order_id": "oid-2"}), 1006)
	requireOK(t, env.put("/charges/"+id, map[string]any{"order_id": "pedido-77"}), http.StatusOK) // its own: unchanged
	requireOK(t, env.put("/charges/"+other, map[string]any{}), http.StatusOK)

	// Limits of charge creation.
	requireError(t, env.put("/charges/"+id, map[string]any{"order_id": ""}), 1001)
	requireError(t, env.put("/charges/"+id, map[string]any{"order_id": strings.Repeat("x", 101)}), 1003)
	requireError(t, env.put("/charges/"+id, map[string]any{"description": strings.Repeat("x", 251)}), 1003)
	requireError(t, env.put("/charges/trnothere", map[string]any{"description": "x"}), 1005)

	// A customer's charge, at its own path and at the merchant's (the path
	// the PrestaShop module uses); not at another customer's.
	cu := createCustomerHTTP(t, env, "Ana", false)
	ccard := storedCard(t, env, "/customers/"+cu, "4242424242424242")
	cid := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(ccard)), http.StatusOK)["id"].(string)
	assert.Equal(t, "a", requireOK(t, env.put("/customers/"+cu+"/charges/"+cid, map[string]any{"description": "a"}), http.StatusOK)["description"])
	assert.Equal(t, "b", requireOK(t, env.put("/charges/"+cid, map[string]any{"description": "b"}), http.StatusOK)["description"])
	stranger := createCustomerHTTP(t, env, "Luis", false)
	requireError(t, env.put("/customers/"+stranger+"/charges/"+cid, map[string]any{"description": "c"}), 1005)
}
