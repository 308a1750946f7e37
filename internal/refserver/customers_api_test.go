package refserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateCustomerWithAndWithoutAccount(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	address := map[string]any{"line1": "Calle 10", "line2": "col. san pablo", "line3": "entre la 1 y la 2",
		"state": "Queretaro", "city": "Queretaro", "postal_code": "76000", "country_code": "MX"}
	o := requireOK(t, env.post("/customers", map[string]any{"name": "Rodrigo", "last_name": "Velazco Perez",
		"email": "rodrigo@payments.example", "phone_number": "4425667045", "external_id": "cliente1",
		"requires_account": true, "address": address}), http.StatusOK)
	assert.Regexp(t, `^a[a-z0-9]{19}$`, o["id"])
	assert.Equal(t, "Rodrigo", o["name"])
	assert.Equal(t, "Velazco Perez", o["last_name"])
	assert.Equal(t, "rodrigo@payments.example", o["email"])
	assert.Equal(t, "4425667045", o["phone_number"])
	assert.Equal(t, "cliente1", o["external_id"])
	assert.Equal(t, "active", o["status"])
	assert.Equal(t, address, o["address"])
	assert.Equal(t, "2026-03-10T12:00:00-06:00", o["creation_date"])
	account, _ := o["clabe"].(string)
	assert.True(t, clabe.Valid(account), "clabe %q", account)
	store, ok := o["store"].(map[string]any)
	require.True(t, ok, "store reference: %s", o)
	ref, _ := store["reference"].(string)
	require.NotEmpty(t, ref)
	assert.Equal(t, env.srv.URL+"/barcode/"+ref+"?width=1&height=45&text=false", store["barcode_url"])
	// The barcode of the reference is served.
	img := env.do(http.MethodGet, strings.TrimPrefix(store["barcode_url"].(string), env.srv.URL), "", nil)
	assert.Equal(t, http.StatusOK, img.status)
	assert.Equal(t, "image/png", img.header.Get("Content-Type"))
	// The balance starts at zero, which the wire form leaves out.
	_, has := o["balance"]
	assert.False(t, has)
	assert.Equal(t, "0.00", balanceOf(t, env, o["id"].(string)))

	plain := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)
	assert.Equal(t, []string{"address", "clabe", "creation_date", "email", "external_id", "id", "last_name", "name",
		"phone_number", "status"}, keysOf(plain))
	assertNull(t, plain, "address", "clabe", "external_id", "last_name", "phone_number")
	// A customer without an account has no balance.
	_, cs, err := env.s.Balances(env.m.ID)
	require.NoError(t, err)
	assert.NotContains(t, cs, plain["id"])

	// The customer's balance shows once it is funded.
	fund(t, env, o["id"].(string), "103.50")
	got := requireOK(t, env.get("/customers/"+o["id"].(string)), http.StatusOK)
	assert.Equal(t, 103.5, got["balance"])
	assert.Equal(t, account, got["clabe"])
}

func TestCreateCustomerErrors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	long := strings.Repeat("x", 101)
	ok := map[string]any{"name": "Ana", "email": "ana@example.com"}
	cases := []struct {
		name  string
		body  any
		code  int
		field string
	}{
		{"not JSON", "{", 1001, ""},
		{"an array", "[]", 1001, ""},
		{"empty body", "", 1001, ""},
		{"name missing", with(ok, "name", nil), 1001, "name"},
		{"email missing", with(ok, "email", nil), 1001, "email"},
		{"name null", `{"name":null,"email":"a@b.co"}`, 1001, "name"},
		{"name blank", with(ok, "name", "  "), 1001, "name"},
		{"name a number", with(ok, "name", 5), 1001, "name"},
		{"requires_account a string", with(ok, "requires_account", "yes"), 1001, "requires_account"},
		{"address not an object", with(ok, "address", "Calle 10"), 1001, "address"},
		{"address incomplete", with(ok, "address", map[string]any{"line1": "x"}), 1001, "address.postal_code"},
		{"address country", with(ok, "address", map[string]any{"line1": "x", "postal_code": "1", "state": "s", "city": "c", "country_code": "MEX"}), 1001, "address.country_code"},
		{"email malformed", with(ok, "email", "not-an-address"), 1001, "not-an-address"}, // the gateway names the value
		{"name too long", with(ok, "name", long), 1003, "name"},
		{"last_name too long", with(ok, "last_name", long), 1003, "last_name"},
		{"phone too long", with(ok, "phone_number", long), 1003, "phone_number"},
		{"email too long", with(ok, "email", long+"@example.com"), 1003, "email"},
		{"external_id too long", with(ok, "external_id", long), 1003, "external_id"},
		{"external_id blank", with(ok, "external_id", ""), 1001, "external_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			desc := requireError(t, env.post("/customers", c.body), c.code)
			if c.field != "" {
				assert.Contains(t, desc, "'"+c.field+"'")
			}
		})
	}
	// external_id is unique among the merchant's customers: 2003; another
	// merchant may use it.
	requireOK(t, env.post("/customers", with(ok, "external_id", "e-1")), http.StatusOK)
	requireError(t, env.post("/customers", with(ok, "external_id", "e-1", "name", "Otra")), 2003)
	requireOK(t, env.do(http.MethodPost, "/v1/"+env.other.ID+"/customers", env.other.PrivateKey, with(ok, "external_id", "e-1")), http.StatusOK)
	// Credentials.
	requireError(t, env.do(http.MethodPost, env.mp("/customers"), env.m.PublicKey, ok), 1010)
	requireError(t, env.do(http.MethodPost, env.mp("/customers"), "", ok), 1002)
	requireError(t, env.do(http.MethodGet, env.mp("/customers"), env.other.PrivateKey, nil), 1002)
	// Too large a body.
	small := newTestEnv(t, Options{MaxBodyBytes: 64})
	requireError(t, small.post("/customers", with(ok, "last_name", strings.Repeat("y", 100))), 1009)
}

func TestGetAndUpdateCustomer(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	o := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "last_name": "Ruiz", "email": "ana@example.com",
		"phone_number": "4421234567", "external_id": "ext-7", "requires_account": true,
		"address": map[string]any{"line1": "a", "postal_code": "1", "state": "s", "city": "c", "country_code": "MX"}}), http.StatusOK)
	id := o["id"].(string)
	assert.Equal(t, o, requireOK(t, env.get("/customers/"+id), http.StatusOK))
	requireError(t, env.get("/customers/anothere"), 1005)
	// Another merchant does not see it.
	requireError(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/customers/"+id, env.other.PrivateKey, nil), 1005)

	// Update replaces the data: what is not sent is cleared; the account,
	// external_id and creation date stay.
	u := requireOK(t, env.put("/customers/"+id, map[string]any{"name": "Ana María", "email": "ana.maria@example.com",
		"external_id": "ext-7", "requires_account": true}), http.StatusOK)
	assert.Equal(t, "Ana María", u["name"])
	assert.Equal(t, "ana.maria@example.com", u["email"])
	assertNull(t, u, "last_name", "phone_number", "address")
	assert.Equal(t, "ext-7", u["external_id"])
	assert.Equal(t, o["clabe"], u["clabe"])
	assert.Equal(t, o["store"], u["store"])
	assert.Equal(t, o["creation_date"], u["creation_date"])
	assert.Equal(t, u, requireOK(t, env.get("/customers/"+id), http.StatusOK))

	ok := map[string]any{"name": "Ana", "email": "ana@example.com"}
	for _, c := range []struct {
		body  any
		code  int
		field string
	}{
		{with(ok, "external_id", "ext-8"), 1003, "external_id"},
		{with(ok, "requires_account", false), 1003, "requires_account"},
		{with(ok, "email", nil), 1001, "email"},
		{with(ok, "name", ""), 1001, "name"},
		{with(ok, "email", "x"), 1001, "email"},
		{with(ok, "phone_number", 44), 1001, "phone_number"},
		{with(ok, "external_id", 1), 1001, "external_id"},
		{"nothing", 1001, ""},
	} {
		desc := requireError(t, env.put("/customers/"+id, c.body), c.code)
		assert.Contains(t, desc, c.field)
	}
	requireError(t, env.put("/customers/anothere", ok), 1005)
}

func TestDeleteCustomer(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	id := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com",
		"external_id": "ext-1", "requires_account": true}), http.StatusOK)["id"].(string)

	// A balance above zero refuses the deletion.
	fund(t, env, id, "50.00")
	desc := requireError(t, env.del("/customers/"+id), 1003)
	assert.Contains(t, desc, "balance")
	requireOK(t, env.get("/customers/"+id), http.StatusOK)

	// So does a payout in progress, whose money would come back to the
	// customer; once it has settled the customer can go.
	acct := requireOK(t, env.post("/customers/"+id+"/bankaccounts", map[string]any{"holder_name": "Ana", "clabe": clabeIXE}), 200)["id"].(string)
	payout := requireOK(t, env.post("/customers/"+id+"/payouts", map[string]any{"method": "bank_account",
		"destination_id": acct, "amount": 50, "description": "all of it"}), 200)["id"].(string)
	assert.Equal(t, "0.00", balanceOf(t, env, id))
	desc = requireError(t, env.del("/customers/"+id), 1003)
	assert.Contains(t, desc, payout)
	_, err := env.s.SettlePayout(env.m.ID, payout)
	require.NoError(t, err)

	r := env.del("/customers/" + id)
	requireOK(t, r, http.StatusNoContent)
	requireError(t, env.get("/customers/"+id), 1005)
	requireError(t, env.del("/customers/"+id), 1005)
	requireError(t, env.put("/customers/"+id, map[string]any{"name": "a", "email": "a@b.co"}), 1005)
	requireError(t, env.get("/customers/"+id+"/bankaccounts"), 1005)
	requireError(t, env.get("/customers/"+id+"/payouts/"+payout), 1005)
	assert.Empty(t, env.get("/customers?external_id=ext-1").arr(t))
	// The external_id is free again; the payout stays at merchant scope.
	again := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com", "external_id": "ext-1"}), 200)["id"]
	byExt := env.get("/customers?external_id=ext-1").arr(t)
	require.Len(t, byExt, 1)
	assert.Equal(t, again, byExt[0]["id"])
	assert.Equal(t, "completed", requireOK(t, env.get("/payouts/"+payout), 200)["status"])

	// A customer without an account goes at once.
	plain := createCustomerHTTP(t, env, "Luis", false)
	requireOK(t, env.del("/customers/"+plain), http.StatusNoContent)
	requireError(t, env.del("/customers/anothere"), 1005)
}

// deletionRecorder is a resource state that listens for customer deletions,
// as the subscriptions state does.
type deletionRecorder struct{ deleted []string }

func (d *deletionRecorder) customerDeleted(s *Server, m *merchant, customerID string) {
	d.deleted = append(d.deleted, customerID)
	// The listener runs under the merchant's lock and may emit events.
	s.emit(m, openpay.EventTypeSubscriptionChargeFailed, newTx("", openpay.Transaction{CustomerID: customerID}))
}

func TestDeleteCustomerNotifiesTheResourcesThatListen(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	rec := extState(m, func() *deletionRecorder { return &deletionRecorder{} })
	m.mu.Unlock()
	a, b := createCustomerHTTP(t, env, "Ana", true), createCustomerHTTP(t, env, "Luis", false)
	requireOK(t, env.del("/customers/"+b), http.StatusNoContent)
	fund(t, env, a, "1")
	requireError(t, env.del("/customers/"+a), 1003)
	m.mu.Lock()
	got := append([]string(nil), rec.deleted...)
	m.mu.Unlock()
	assert.Equal(t, []string{b}, got, "only a customer actually deleted is announced")
	evs := env.s.Events(env.m.ID)
	require.NotEmpty(t, evs)
	assert.Equal(t, b, evs[0].Transaction.CustomerID)
}

func TestListCustomers(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	var created []string
	for i, name := range []string{"Uno", "Dos", "Tres", "Cuatro", "Cinco"} {
		body := map[string]any{"name": name, "email": strings.ToLower(name) + "@example.com"}
		if i%2 == 0 {
			body["external_id"] = "ext-" + name
		}
		created = append(created, requireOK(t, env.post("/customers", body), 200)["id"].(string))
		env.clock.Advance(24 * time.Hour)
	}
	newestFirst := []string{created[4], created[3], created[2], created[1], created[0]}
	assert.Equal(t, newestFirst, ids(env.get("/customers").arr(t)))
	assert.Equal(t, newestFirst[1:3], ids(env.get("/customers?offset=1&limit=2").arr(t)))
	assert.Equal(t, []string{created[2]}, ids(env.get("/customers?external_id=ext-Tres").arr(t)))
	assert.Empty(t, env.get("/customers?external_id=ext-Dos").arr(t))
	// Creation filters, by day in the gateway's zone.
	assert.Equal(t, []string{created[1]}, ids(env.get("/customers?creation=2026-03-11").arr(t)))
	assert.Equal(t, []string{created[4], created[3]}, ids(env.get("/customers?"+url.Values{"creation[gte]": {"2026-03-13"}}.Encode()).arr(t)))
	assert.Equal(t, []string{created[1], created[0]}, ids(env.get("/customers?"+url.Values{"creation[lte]": {"2026-03-11"}}.Encode()).arr(t)))
	// Deleted customers are not listed; another merchant's never are.
	requireOK(t, env.del("/customers/"+created[3]), http.StatusNoContent)
	assert.Equal(t, []string{created[4], created[2], created[1], created[0]}, ids(env.get("/customers").arr(t)))
	assert.Empty(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/customers", env.other.PrivateKey, nil).arr(t))
	// The default page is ten.
	for i := 0; i < 12; i++ {
		createCustomerHTTP(t, env, "More", false)
	}
	assert.Len(t, env.get("/customers").arr(t), 10)
	assert.Len(t, env.get("/customers?limit=100").arr(t), 16)
	for _, q := range []string{"limit=0", "offset=-1", "limit=x", "creation=2026-13-01", "creation%5Bgte%5D=yesterday"} {
		requireError(t, env.get("/customers?"+q), 1003)
	}
}
