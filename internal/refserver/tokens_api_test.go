package refserver

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenList(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	numbers := []string{"4111111111111111", "5555555555554444", "345678000000007"}
	var made []string
	for _, n := range numbers {
		made = append(made, requireOK(t, env.post("/tokens", validCard(n)), http.StatusOK)["id"].(string))
		env.clock.Advance(24 * time.Hour)
	}
	// A consumed token is still listed.
	requireOK(t, env.post("/cards", map[string]any{"token_id": made[0], "device_session_id": "s"}), http.StatusOK)

	r := env.get("/tokens")
	assert.Equal(t, []string{made[2], made[1], made[0]}, ids(listOK(t, r)))
	for _, n := range numbers {
		assert.False(t, bytes.Contains(r.body, []byte(n)), "the list shows a full card number")
	}
	// No security code member (a drawn id may hold the letters "cvv").
	assert.NotContains(t, string(r.body), `"cvv2":`)
	assert.NotContains(t, string(r.body), `"cvv":`)
	list := r.arr(t)
	assert.Equal(t, requireOK(t, env.get("/tokens/"+made[1]), http.StatusOK), list[1], "listed as a read shows it")
	assert.Equal(t, "555555XXXXXX4444", list[1]["card"].(map[string]any)["card_number"])

	assert.Equal(t, []string{made[1]}, ids(listOK(t, env.get("/tokens?offset=1&limit=1"))))
	assert.Equal(t, []string{made[1]}, ids(listOK(t, env.get("/tokens?creation=2026-03-11"))))
	assert.Equal(t, []string{made[2], made[1]}, ids(listOK(t, env.get("/tokens?creation[gte]=2026-03-11"))))
	requireError(t, env.get("/tokens?limit=0"), 1003)
	requireError(t, env.get("/tokens?creation=yesterday"), 1003)
	// Another merchant's list is its own; the public key may not list.
	assert.Empty(t, listOK(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/tokens", env.other.PrivateKey, nil)))
	requireError(t, env.do(http.MethodGet, env.mp("/tokens"), env.m.PublicKey, nil), 1010)
	require.Len(t, list, 3)
}
