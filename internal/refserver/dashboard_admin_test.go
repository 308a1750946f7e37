package refserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a server with an admin key, the loopback dashboard's whole-server
// reset asks for that key: a loopback viewer may be one parallel worker of
// many, whose merchants the reset would erase.
func TestDashboardResetTakesTheAdminKey(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{AdminKey: "admin-secret-key"})
	charge := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 150, "description": "tienda"}), http.StatusOK)["id"].(string)
	d := dashClient{env: env}
	overview := d.page("/_dashboard/")
	require.Contains(t, overview, `id="reset"`)
	assert.Contains(t, overview, `id="admin_key"`, "the reset form asks for the admin key")
	token := d.token()
	kept := func() bool {
		m := env.s.merchantByID(env.m.ID)
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.txByID(charge) != nil
	}
	for _, key := range []string{"", "wrong"} {
		r := d.press("/_dashboard/reset", token, "admin_key", key)
		assert.Equal(t, http.StatusConflict, r.status, "key %q", key)
		assert.Contains(t, string(r.body), "admin key")
		assert.NotContains(t, string(r.body), "admin-secret-key")
		assert.True(t, kept(), "key %q: nothing was reset", key)
	}
	r := d.press("/_dashboard/reset", token, "admin_key", "admin-secret-key")
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	assert.False(t, kept(), "the reset with the admin key erased the charge")

	// Without an admin key the form asks for none.
	plain := newTestEnv(t, Options{})
	assert.NotContains(t, dashClient{env: plain}.page("/_dashboard/"), `id="admin_key"`)
}
