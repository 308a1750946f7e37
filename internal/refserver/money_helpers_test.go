package refserver

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/require"
)

// Helpers of the tests of customers, bank accounts, payouts, transfers and
// fees. They speak raw HTTP and JSON like the other tests of the server.

// Valid CLABEs for the tests (18 digits, good check digit). clabeIXE is the
// one of the gateway's bank-account example.
const (
	clabeIXE      = "032180000118359719"
	clabeBancomer = "012180012324246161"
	clabeBanamex  = "002180000000000559"
	clabeUnlisted = "722180000000000017" // a bank code the server's catalogue lacks
)

// createCustomerHTTP creates a customer of the main merchant through the
// API and returns its id.
func createCustomerHTTP(t *testing.T, env *testEnv, name string, account bool) string {
	t.Helper()
	body := map[string]any{"name": name, "email": strings.ToLower(name) + "@example.com"}
	if account {
		body["requires_account"] = true
	}
	return requireOK(t, env.post("/customers", body), env.created())["id"].(string)
}

// fund credits a customer's balance ("" for the merchant's) with a
// simulated bank transfer.
func fund(t *testing.T, env *testEnv, customerID, amount string) {
	t.Helper()
	_, err := env.s.ReceiveSPEI(env.m.ID, customerID, openpay.MustAmount(amount), "")
	require.NoError(t, err)
}

// balanceOf reads a customer's balance ("" for the merchant's) from the
// store.
func balanceOf(t *testing.T, env *testEnv, customerID string) string {
	t.Helper()
	mb, cs, err := env.s.Balances(env.m.ID)
	require.NoError(t, err)
	if customerID == "" {
		return mb.String()
	}
	b, ok := cs[customerID]
	require.True(t, ok, "customer %s has no account", customerID)
	return b.String()
}

// del sends a DELETE with the main merchant's private key.
func (e *testEnv) del(path string) resp {
	e.t.Helper()
	return e.do(http.MethodDelete, e.mp(path), e.m.PrivateKey, nil)
}

// put sends a PUT with the main merchant's private key.
func (e *testEnv) put(path string, body any) resp {
	e.t.Helper()
	return e.do(http.MethodPut, e.mp(path), e.m.PrivateKey, body)
}

// sim calls a simulation control of the main merchant.
func (e *testEnv) sim(path string, body any) resp {
	e.t.Helper()
	return e.do(http.MethodPost, "/_simulate/"+e.m.ID+path, e.m.PrivateKey, body)
}

// deactivateCustomer deactivates a customer's account.
func deactivateCustomer(env *testEnv, customerID string) {
	require.NoError(env.t, env.s.SetCustomerAccountActive(env.m.ID, customerID, false))
}

// setMerchantStatus sets the main merchant's status.
func setMerchantStatus(env *testEnv, st openpay.MerchantStatus) {
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.status = st
	m.mark(recMerchant, selfID)
}

// ids returns the "id" member of each object of a list.
func ids(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, o := range list {
		out[i], _ = o["id"].(string)
	}
	return out
}

// keysOf returns the sorted member names of an object.
func keysOf(o map[string]any) []string { return slices.Sorted(maps.Keys(o)) }
