package refserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gp is the path of the main group followed by rest.
func (e *testEnv) gp(rest string) string { return "/v1/groups/" + e.g.ID + rest }

// gdo sends a request on the main group's path with the group's key.
func (e *testEnv) gdo(method, rest string, body any, headers ...string) resp {
	e.t.Helper()
	return e.do(method, e.gp(rest), e.g.PrivateKey, body, headers...)
}

// gmp is the path of the main merchant through the main group.
func (e *testEnv) gmp(rest string) string { return e.gp("/merchants/" + e.m.ID + rest) }

// groupCustomer creates a customer of the main group and returns its id.
func groupCustomer(t *testing.T, env *testEnv, name string, kv ...any) string {
	t.Helper()
	body := with(map[string]any{"name": name, "email": "cliente@example.com"}, kv...)
	return requireOK(t, env.gdo(http.MethodPost, "/customers", body), http.StatusOK)["id"].(string)
}

// groupCard stores a card on a customer of the main group and returns its
// id.
func groupCard(t *testing.T, env *testEnv, customerID, number string) string {
	t.Helper()
	return requireOK(t, env.gdo(http.MethodPost, "/customers/"+customerID+"/cards", validCard(number)), http.StatusOK)["id"].(string)
}

func TestGroupCustomersCRUD(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	address := map[string]any{"line1": "Av 5 de Febrero 1", "postal_code": "76000", "state": "Querétaro", "city": "Querétaro", "country_code": "MX"}
	o := requireOK(t, env.gdo(http.MethodPost, "/customers", map[string]any{"name": "Ana", "last_name": "López", "email": "ana@example.com",
		"phone_number": "4421234567", "external_id": "g-1", "address": address}), http.StatusOK)
	id := o["id"].(string)
	assert.Regexp(t, `^a[a-z0-9]{19}$`, id)
	assert.Equal(t, "Ana", o["name"])
	assert.Equal(t, "g-1", o["external_id"])
	assert.Equal(t, "active", o["status"])
	assert.NotEmpty(t, o["creation_date"])
	assert.NotContains(t, o, "balance")
	assertNull(t, o, "clabe")

	got := requireOK(t, env.gdo(http.MethodGet, "/customers/"+id, nil), http.StatusOK)
	assert.Equal(t, o, got)

	// external_id is unique within the group...
	requireError(t, env.gdo(http.MethodPost, "/customers", map[string]any{"name": "Otra", "email": "otra@example.com", "external_id": "g-1"}), 2003)
	// ...and the group's customers are apart from the merchant's, both ways.
	mine := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com", "external_id": "g-1"}), http.StatusOK)["id"].(string)
	requireError(t, env.get("/customers/"+id), 1005)
	requireError(t, env.gdo(http.MethodGet, "/customers/"+mine, nil), 1005)

	// Update replaces the data; external_id cannot change.
	upd := requireOK(t, env.gdo(http.MethodPut, "/customers/"+id, map[string]any{"name": "Ana María", "email": "ana.maria@example.com", "external_id": "g-1"}), http.StatusOK)
	assert.Equal(t, "Ana María", upd["name"])
	assertNull(t, upd, "last_name", "address") // a member left out is cleared
	requireError(t, env.gdo(http.MethodPut, "/customers/"+id, map[string]any{"name": "Ana", "email": "ana@example.com", "external_id": "g-2"}), 1003)
	requireError(t, env.gdo(http.MethodPut, "/customers/"+id, map[string]any{"name": "Ana", "email": "ana@example.com", "requires_account": true}), 1003)
	requireError(t, env.gdo(http.MethodPut, "/customers/"+id, map[string]any{"email": "ana@example.com"}), 1001)
	requireError(t, env.gdo(http.MethodPut, "/customers/cnothere", map[string]any{"name": "Ana", "email": "ana@example.com"}), 1005)
	assert.Equal(t, "Ana María", requireOK(t, env.gdo(http.MethodGet, "/customers/"+id, nil), http.StatusOK)["name"])

	// Creation errors, as at merchant scope.
	for _, c := range []struct {
		body map[string]any
		code int
	}{
		{map[string]any{"email": "x@example.com"}, 1001},
		{map[string]any{"name": "X"}, 1001},
		{map[string]any{"name": "X", "email": "not an address"}, 1001},
		{map[string]any{"name": "X", "email": "x@example.com", "external_id": ""}, 1001},
		{map[string]any{"name": "X", "email": "x@example.com", "address": map[string]any{"line1": "x"}}, 1001},
		{map[string]any{"name": 5, "email": "x@example.com"}, 1001},
		// No merchant of a group could fund an account of the group's.
		{map[string]any{"name": "X", "email": "x@example.com", "requires_account": true}, 1003},
	} {
		requireError(t, env.gdo(http.MethodPost, "/customers", c.body), c.code)
	}
	requireError(t, env.gdo(http.MethodPost, "/customers", "not json"), 1001)

	// Delete: 204, then gone; its external_id is free again.
	requireOK(t, env.gdo(http.MethodDelete, "/customers/"+id, nil), http.StatusNoContent)
	requireError(t, env.gdo(http.MethodGet, "/customers/"+id, nil), 1005)
	requireError(t, env.gdo(http.MethodDelete, "/customers/"+id, nil), 1005)
	requireOK(t, env.gdo(http.MethodPost, "/customers", map[string]any{"name": "Nueva", "email": "n@example.com", "external_id": "g-1"}), http.StatusOK)
	// The merchant's customer with the same external_id was never touched.
	assert.Equal(t, "g-1", requireOK(t, env.get("/customers/"+mine), http.StatusOK)["external_id"])
}

func TestListGroupCustomers(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	var created []string
	for i, name := range []string{"Uno", "Dos", "Tres", "Cuatro", "Cinco"} {
		var kv []any
		if i%2 == 0 {
			kv = []any{"external_id", "ext-" + name}
		}
		created = append(created, groupCustomer(t, env, name, kv...))
		env.clock.Advance(24 * time.Hour)
	}
	createCustomerHTTP(t, env, "DelComercio", false) // the merchant's: never in the group's list
	list := func(q string) []string {
		t.Helper()
		r := env.gdo(http.MethodGet, "/customers"+q, nil)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		return ids(r.arr(t))
	}
	newestFirst := []string{created[4], created[3], created[2], created[1], created[0]}
	assert.Equal(t, newestFirst, list(""))
	assert.Equal(t, newestFirst[1:3], list("?offset=1&limit=2"))
	assert.Equal(t, []string{created[2]}, list("?external_id=ext-Tres"))
	assert.Empty(t, list("?external_id=ext-Dos"))
	assert.Equal(t, []string{created[1]}, list("?creation=2026-03-11"))
	assert.Equal(t, []string{created[4], created[3]}, list("?"+url.Values{"creation[gte]": {"2026-03-13"}}.Encode()))
	assert.Equal(t, []string{created[1], created[0]}, list("?"+url.Values{"creation[lte]": {"2026-03-11"}}.Encode()))
	requireOK(t, env.gdo(http.MethodDelete, "/customers/"+created[3], nil), http.StatusNoContent)
	assert.Equal(t, []string{created[4], created[2], created[1], created[0]}, list(""))
	for i := 0; i < 8; i++ {
		groupCustomer(t, env, "Más")
	}
	assert.Len(t, list(""), 10, "the default page is ten")
	assert.Len(t, list("?limit=100"), 12)
	assert.Len(t, list("?limit=101"), 12, "a limit above 100 is taken as 100")
	for _, q := range []string{"limit=0", "offset=-1", "limit=x", "creation=2026-13-01", "creation%5Bgte%5D=ayer"} {
		requireError(t, env.gdo(http.MethodGet, "/customers?"+q, nil), 1003)
	}
}

func TestGroupCustomerCards(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := groupCustomer(t, env, "Ana")
	other := groupCustomer(t, env, "Luis")
	base := "/customers/" + cu + "/cards"

	o := requireOK(t, env.gdo(http.MethodPost, base, validCard("4111111111111111")), http.StatusOK)
	id := o["id"].(string)
	assert.Regexp(t, `^k[a-z0-9]{19}$`, id)
	assert.Equal(t, "411111XXXXXX1111", o["card_number"])
	assert.Equal(t, cu, o["customer_id"])
	assert.Equal(t, "visa", o["brand"])
	assert.NotContains(t, string(env.gdo(http.MethodGet, base+"/"+id, nil).body), "4111111111111111")
	assert.NotContains(t, o, "cvv2")
	assert.Equal(t, o, requireOK(t, env.gdo(http.MethodGet, base+"/"+id, nil), http.StatusOK))

	// The card is visible only at its customer's scope in the group.
	requireError(t, env.gdo(http.MethodGet, "/customers/"+other+"/cards/"+id, nil), 1005)
	requireError(t, env.get("/cards/"+id), 1005)
	mc := newCustomer(t, env, false)
	merchantCard := storedCard(t, env, "/customers/"+mc, "5555555555554444")
	requireError(t, env.gdo(http.MethodGet, base+"/"+merchantCard, nil), 1005)
	requireError(t, env.gdo(http.MethodGet, "/customers/"+mc+"/cards", nil), 1005)
	requireError(t, env.gdo(http.MethodGet, "/customers/cnothere/cards", nil), 1005)
	requireError(t, env.gdo(http.MethodPost, "/customers/cnothere/cards", validCard("4242424242424242")), 1005)

	// The rules of stored cards.
	expired := with(validCard("4242424242424242"), "expiration_month", "01", "expiration_year", "26")
	for _, c := range []struct {
		body map[string]any
		code int
	}{
		{validCard("4111111111111111"), 2002},
		{validCard("4111111111111112"), 2004},
		{expired, 2005},
		{with(validCard("4242424242424242"), "cvv2", nil), 2006},
		{with(validCard("4242424242424242"), "cvv2", "12"), 2009},
		{with(validCard("4242424242424242"), "card_number", nil), 1001},
		{with(validCard("4242424242424242"), "expiration_month", "13"), 1003},
		{with(validCard("4242424242424242"), "holder_name", 7), 1001},
	} {
		requireError(t, env.gdo(http.MethodPost, base, c.body), c.code)
	}
	// The same number on another customer of the group is fine.
	requireOK(t, env.gdo(http.MethodPost, "/customers/"+other+"/cards", validCard("4111111111111111")), http.StatusOK)

	// List, newest first, only this customer's.
	env.clock.Advance(24 * time.Hour)
	second := groupCard(t, env, cu, "343434343434343")
	r := env.gdo(http.MethodGet, base, nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, []string{second, id}, ids(r.arr(t)))
	assert.Equal(t, []string{second}, ids(env.gdo(http.MethodGet, base+"?creation=2026-03-11", nil).arr(t)))
	assert.Equal(t, []string{id}, ids(env.gdo(http.MethodGet, base+"?offset=1", nil).arr(t)))
	requireError(t, env.gdo(http.MethodGet, base+"?limit=0", nil), 1003)

	// Update: merchant_id names the group's merchant that uses the card.
	requireError(t, env.gdo(http.MethodPut, base+"/"+id, map[string]any{"holder_name": "Ana López"}), 1001)
	requireError(t, env.gdo(http.MethodPut, base+"/"+id, map[string]any{"holder_name": "Ana López", "merchant_id": env.other.ID}), 1003)
	requireError(t, env.gdo(http.MethodPut, base+"/"+id, map[string]any{"merchant_id": env.m.ID, "cvv2": "1"}), 2009)
	requireError(t, env.gdo(http.MethodPut, base+"/"+id, map[string]any{"merchant_id": env.m.ID, "expiration_year": "25"}), 2005)
	requireError(t, env.gdo(http.MethodPut, base+"/knothere", map[string]any{"merchant_id": env.m.ID}), 1005)
	upd := requireOK(t, env.gdo(http.MethodPut, base+"/"+id, map[string]any{"holder_name": "Ana López", "merchant_id": env.m.ID,
		"expiration_month": "6", "expiration_year": "31"}), http.StatusOK)
	assert.Empty(t, upd)
	got := requireOK(t, env.gdo(http.MethodGet, base+"/"+id, nil), http.StatusOK)
	assert.Equal(t, "Ana López", got["holder_name"])
	assert.Equal(t, "06", got["expiration_month"])
	assert.Equal(t, "31", got["expiration_year"])

	// Delete.
	requireOK(t, env.gdo(http.MethodDelete, base+"/"+id, nil), http.StatusNoContent)
	requireError(t, env.gdo(http.MethodGet, base+"/"+id, nil), 1005)
	requireError(t, env.gdo(http.MethodDelete, base+"/"+id, nil), 1005)
	assert.Equal(t, []string{second}, ids(env.gdo(http.MethodGet, base, nil).arr(t)))
	// Once deleted, the number can be stored again.
	requireOK(t, env.gdo(http.MethodPost, base, validCard("4111111111111111")), http.StatusOK)
}

func TestGroupCustomerCardFromToken(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := groupCustomer(t, env, "Ana")
	base := "/customers/" + cu + "/cards"
	// A token of a merchant of the group is stored and consumed.
	tok := requireOK(t, env.post("/tokens", validCard("5555555555554444")), http.StatusOK)["id"].(string)
	o := requireOK(t, env.gdo(http.MethodPost, base, map[string]any{"token_id": tok, "device_session_id": "s"}), http.StatusOK)
	assert.Equal(t, "555555XXXXXX4444", o["card_number"])
	assert.Equal(t, cu, o["customer_id"])
	desc := requireError(t, env.gdo(http.MethodPost, "/customers/"+groupCustomer(t, env, "Luis")+"/cards",
		map[string]any{"token_id": tok, "device_session_id": "s"}), 1003)
	assert.Contains(t, desc, "used")
	// A token refused for a duplicate card is not consumed.
	dup := requireOK(t, env.post("/tokens", validCard("5555555555554444")), http.StatusOK)["id"].(string)
	requireError(t, env.gdo(http.MethodPost, base, map[string]any{"token_id": dup}), 2002)
	requireOK(t, env.post("/customers/"+newCustomer(t, env, false)+"/cards", map[string]any{"token_id": dup}), http.StatusOK)
	// A token of a merchant outside the group, or of nobody, is not found.
	foreign := requireOK(t, env.do(http.MethodPost, "/v1/"+env.other.ID+"/tokens", env.other.PublicKey, validCard("4242424242424242")), http.StatusOK)["id"].(string)
	requireError(t, env.gdo(http.MethodPost, base, map[string]any{"token_id": foreign}), 1005)
	requireError(t, env.gdo(http.MethodPost, base, map[string]any{"token_id": "knothere"}), 1005)
	requireError(t, env.gdo(http.MethodPost, base, map[string]any{"token_id": ""}), 1001)
	// The token is still usable by its own merchant.
	requireOK(t, env.do(http.MethodPost, "/v1/"+env.other.ID+"/cards", env.other.PrivateKey, map[string]any{"token_id": foreign}), http.StatusOK)
}

func TestGroupMerchantCustomerCharges(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := groupCustomer(t, env, "Ana")
	card := groupCard(t, env, cu, "4111111111111111")
	charges := env.gmp("/customers/" + cu + "/charges")
	do := func(path string, body any) resp {
		t.Helper()
		return env.do(http.MethodPost, path, env.g.PrivateKey, body)
	}

	// A pre-authorization, captured in part, then refunded in part.
	o := requireOK(t, do(charges, cardCharge(card, "amount", 300, "capture", false, "order_id", "g-order-1")), http.StatusOK)
	id := o["id"].(string)
	assert.Equal(t, "in_progress", o["status"])
	assert.Equal(t, cu, o["customer_id"])
	assert.Equal(t, card, o["card"].(map[string]any)["id"])
	assert.Equal(t, "411111XXXXXX1111", o["card"].(map[string]any)["card_number"])
	assert.Equal(t, "0", balance(t, env))
	o = requireOK(t, do(charges+"/"+id+"/capture", map[string]any{"amount": 200}), http.StatusOK)
	assert.Equal(t, "completed", o["status"])
	assert.Equal(t, 200.0, o["amount"])
	assert.Equal(t, "200", balance(t, env), "the merchant that charged is credited")
	requireError(t, do(charges+"/"+id+"/capture", nil), 1003)
	o = requireOK(t, do(charges+"/"+id+"/refund", map[string]any{"amount": 50, "description": "devolución"}), http.StatusOK)
	assert.Equal(t, "refunded", o["status"])
	assert.Equal(t, 50.0, o["refund"].(map[string]any)["amount"])
	assert.Equal(t, "150", balance(t, env))
	requireError(t, do(charges+"/"+id+"/refund", map[string]any{"amount": 151}), 1003)

	// The charge is the merchant's: listed and read on its own paths.
	listed := env.get("/charges").arr(t)
	require.Len(t, listed, 1)
	assert.Equal(t, id, listed[0]["id"])
	assert.Equal(t, cu, listed[0]["customer_id"])
	requireOK(t, env.get("/charges/"+id), http.StatusOK)
	// order_id is unique across the merchant, whichever path used it.
	requireError(t, env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x", "order_id": "g-order-1"}), 1006)
	requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 10, "description": "x", "order_id": "m-order-1"}), http.StatusOK)
	requireError(t, do(charges, cardCharge(card, "order_id", "m-order-1")), 1006)

	// A full refund of a charge captured at once.
	full := requireOK(t, do(charges, cardCharge(card, "amount", 80)), http.StatusOK)
	assert.Equal(t, "completed", full["status"])
	assert.Equal(t, "230", balance(t, env))
	requireOK(t, do(charges+"/"+full["id"].(string)+"/refund", nil), http.StatusOK)
	assert.Equal(t, "150", balance(t, env))
	// Refunding an uncaptured pre-authorization voids it.
	pre := requireOK(t, do(charges, cardCharge(card, "capture", false)), http.StatusOK)["id"].(string)
	assert.Equal(t, "cancelled", requireOK(t, do(charges+"/"+pre+"/refund", nil), http.StatusOK)["status"])

	// Other variants work at this scope too; the customer object is not taken.
	store := requireOK(t, do(charges, map[string]any{"method": "store", "amount": 100, "description": "tienda"}), http.StatusOK)
	assert.Equal(t, "in_progress", store["status"])
	assert.Equal(t, "store", store["payment_method"].(map[string]any)["type"])
	inline := requireOK(t, do(charges, map[string]any{"method": "card", "amount": 10, "description": "x", "card": validCard("5555555555554444")}), http.StatusOK)
	assert.Equal(t, "completed", inline["status"])
	tok := requireOK(t, env.post("/tokens", validCard("4242424242424242")), http.StatusOK)["id"].(string)
	assert.Equal(t, "completed", requireOK(t, do(charges, cardCharge(tok)), http.StatusOK)["status"])

	// Declines are recorded and answered as at merchant scope.
	declined := groupCard(t, env, cu, "4000000000030017")
	requireError(t, do(charges, cardCharge(declined, "order_id", "g-declined")), 3001)
	requireError(t, do(charges, cardCharge(declined, "order_id", "g-declined")), 1006)

	// Cards and charges of other scopes are not found here.
	merchantCard := storedCard(t, env, "", "5555555555554444")
	requireError(t, do(charges, cardCharge(merchantCard)), 1005)
	other := groupCustomer(t, env, "Luis")
	otherCard := groupCard(t, env, other, "5555555555554444")
	requireError(t, do(charges, cardCharge(otherCard)), 1005)
	requireError(t, do(env.gmp("/customers/"+other+"/charges/"+id+"/refund"), nil), 1005)
	requireError(t, do(env.gmp("/customers/"+other+"/charges/"+id+"/capture"), nil), 1005)
	requireError(t, do(charges+"/trnothere/capture", nil), 1005)
	mc := newCustomer(t, env, false)
	requireError(t, do(env.gmp("/customers/"+mc+"/charges"), cardCharge(card)), 1005)
	requireError(t, do(env.gmp("/customers/cnothere/charges"), cardCharge(card)), 1005)
	// A deleted card charges nothing.
	requireOK(t, env.gdo(http.MethodDelete, "/customers/"+cu+"/cards/"+card, nil), http.StatusNoContent)
	requireError(t, do(charges, cardCharge(card)), 1005)

	// Validation as at customer scope.
	requireError(t, do(charges, map[string]any{"method": "card", "amount": 10}), 1001)
	requireError(t, do(charges, map[string]any{"method": "card", "source_id": otherCard, "amount": 1.001, "description": "x"}), 1003)
	requireError(t, do(charges, "[]"), 1001)
}

// The gateway's group API creates, captures and refunds charges but does not
// read, list or cancel them, and has no points balance of a group
// customer's card (the vendor SDKs have none of these at group scope): on
// existing resources those paths answer what any path the gateway lacks
// answers, the unknown path (1005) or, where the path exists for another
// method, 405 naming the methods it has.
func TestGroupAPILacksMerchantOnlyOperations(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := groupCustomer(t, env, "Ana")
	card := groupCard(t, env, cu, "4111111111111111")
	charge := func(path string, body any) string {
		t.Helper()
		return requireOK(t, env.do(http.MethodPost, path, env.g.PrivateKey, body), http.StatusOK)["id"].(string)
	}
	mch := charge(env.gmp("/charges"), map[string]any{"method": "card", "card": inlineCard("4111111111111111"), "amount": 10,
		"description": "x", "capture": false})
	cch := charge(env.gmp("/customers/"+cu+"/charges"), cardCharge(card, "capture", false))
	for _, tt := range []struct {
		method, path string
		allow        string // "" for the unknown path
	}{
		{http.MethodGet, env.gmp("/charges"), "POST"},
		{http.MethodGet, env.gmp("/charges/" + mch), ""},
		{http.MethodPost, env.gmp("/charges/" + mch + "/cancel"), ""},
		{http.MethodGet, env.gmp("/customers/" + cu + "/charges"), "POST"},
		{http.MethodGet, env.gmp("/customers/" + cu + "/charges/" + cch), ""},
		{http.MethodPost, env.gmp("/customers/" + cu + "/charges/" + cch + "/cancel"), ""},
		{http.MethodGet, env.gp("/customers/" + cu + "/cards/" + card + "/points"), ""},
	} {
		r := env.do(tt.method, tt.path, env.g.PrivateKey, nil)
		if tt.allow == "" {
			assert.Equal(t, descNoSuchPath, requireError(t, r, 1005), "%s %s", tt.method, tt.path)
			continue
		}
		requireErrorStatus(t, r, int(MethodNotAllowedCode), http.StatusMethodNotAllowed, "request")
		assert.Equal(t, tt.allow, r.header.Get("Allow"), "%s %s", tt.method, tt.path)
	}
	// Nothing was cancelled: both pre-authorizations still wait for capture.
	for _, id := range []string{mch, cch} {
		assert.Equal(t, "in_progress", requireOK(t, env.get("/charges/"+id), http.StatusOK)["status"], id)
	}
}

func TestGroupMerchantCustomerChargeStrictNeedsClientIP(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{Strict: true})
	cu := groupCustomer(t, env, "Ana")
	card := groupCard(t, env, cu, "4111111111111111")
	path := env.gmp("/customers/" + cu + "/charges")
	body := cardCharge(card, "order_id", "o-1", "device_session_id", "s")
	requireError(t, env.do(http.MethodPost, path, env.g.PrivateKey, body), 1001)
	requireError(t, env.do(http.MethodPost, path, env.g.PrivateKey, body, "X-Forwarded-For", "not-an-ip"), 1003)
	o := requireOK(t, env.do(http.MethodPost, path, env.g.PrivateKey, body, "X-Forwarded-For", "198.51.100.7"), http.StatusOK)
	assert.Equal(t, "completed", o["status"])
}

func TestGroupPathsAuthentication(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := groupCustomer(t, env, "Ana")
	card := groupCard(t, env, cu, "4111111111111111")
	paths := []struct{ method, path string }{
		{http.MethodGet, env.gp("/customers")},
		{http.MethodPost, env.gp("/customers")},
		{http.MethodGet, env.gp("/customers/" + cu)},
		{http.MethodPut, env.gp("/customers/" + cu)},
		{http.MethodDelete, env.gp("/customers/" + cu)},
		{http.MethodGet, env.gp("/customers/" + cu + "/cards")},
		{http.MethodPost, env.gp("/customers/" + cu + "/cards")},
		{http.MethodGet, env.gp("/customers/" + cu + "/cards/" + card)},
		{http.MethodPut, env.gp("/customers/" + cu + "/cards/" + card)},
		{http.MethodDelete, env.gp("/customers/" + cu + "/cards/" + card)},
		{http.MethodPost, env.gmp("/customers/" + cu + "/charges")},
		{http.MethodPost, env.gmp("/customers/" + cu + "/charges/trx/capture")},
		{http.MethodPost, env.gmp("/customers/" + cu + "/charges/trx/refund")},
	}
	for _, p := range paths {
		for _, key := range []string{"", "sk_wrong", env.m.PrivateKey, env.m.PublicKey, env.other.PrivateKey} {
			requireError(t, env.do(p.method, p.path, key, "{}"), 1002)
		}
		// An unknown group, with the group's key.
		requireError(t, env.do(p.method, "/v1/groups/gnothere"+p.path[len(env.gp("")):], env.g.PrivateKey, "{}"), 1002)
	}
	// A merchant outside the group, or unknown, cannot be charged through it.
	for _, mid := range []string{env.other.ID, "mnosuchmerchant0000"} {
		path := env.gp("/merchants/" + mid + "/customers/" + cu + "/charges")
		requireError(t, env.do(http.MethodPost, path, env.g.PrivateKey, cardCharge(card)), 1002)
		requireError(t, env.do(http.MethodPost, path+"/trx/refund", env.g.PrivateKey, nil), 1002)
	}
	// Another group's key does not open this group.
	g2, err := env.s.AddGroup(GroupConfig{MerchantIDs: []string{env.m.ID}})
	require.NoError(t, err)
	requireError(t, env.do(http.MethodGet, env.gp("/customers/"+cu), g2.PrivateKey, nil), 1002)
	// Nor do its customers belong to that other group.
	requireError(t, env.do(http.MethodGet, "/v1/groups/"+g2.ID+"/customers/"+cu, g2.PrivateKey, nil), 1005)
	// The group's key does not open the merchant's own paths.
	requireError(t, env.do(http.MethodGet, env.mp("/customers"), env.g.PrivateKey, nil), 1002)
	// Nothing was changed by the refused requests.
	requireOK(t, env.gdo(http.MethodGet, "/customers/"+cu+"/cards/"+card, nil), http.StatusOK)
	assert.Empty(t, env.get("/charges").arr(t))
}

// TestGroupCustomerDeletionReachesEveryMerchant: deleting a group's
// customer tells the resource states of each merchant of the group, as the
// merchant deletion tells its merchant's.
func TestGroupCustomerDeletionReachesEveryMerchant(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	third, err := env.s.AddMerchant(MerchantConfig{Name: "Third merchant"})
	require.NoError(t, err)
	g, err := env.s.AddGroup(GroupConfig{MerchantIDs: []string{env.m.ID, third.ID}})
	require.NoError(t, err)
	recorders := map[string]*deletionRecorder{}
	for _, id := range []string{env.m.ID, third.ID, env.other.ID} {
		m := env.s.merchantByID(id)
		m.mu.Lock()
		recorders[id] = extState(m, func() *deletionRecorder { return &deletionRecorder{} })
		m.mu.Unlock()
	}
	gpath := "/v1/groups/" + g.ID + "/customers"
	cu := requireOK(t, env.do(http.MethodPost, gpath, g.PrivateKey, map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)["id"].(string)
	requireOK(t, env.do(http.MethodDelete, gpath+"/"+cu, g.PrivateKey, nil), http.StatusNoContent)
	deleted := func(id string) []string {
		m := env.s.merchantByID(id)
		m.mu.Lock()
		defer m.mu.Unlock()
		return append([]string(nil), recorders[id].deleted...)
	}
	assert.Equal(t, []string{cu}, deleted(env.m.ID))
	assert.Equal(t, []string{cu}, deleted(third.ID))
	assert.Empty(t, deleted(env.other.ID), "a merchant outside the group is not told")
}

// TestGroupWithoutMerchants: a group's customers and cards need no merchant.
func TestGroupWithoutMerchants(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	g, err := env.s.AddGroup(GroupConfig{})
	require.NoError(t, err)
	base := "/v1/groups/" + g.ID + "/customers"
	cu := requireOK(t, env.do(http.MethodPost, base, g.PrivateKey, map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)["id"].(string)
	k := requireOK(t, env.do(http.MethodPost, base+"/"+cu+"/cards", g.PrivateKey, validCard("4111111111111111")), http.StatusOK)["id"].(string)
	requireError(t, env.do(http.MethodPost, base+"/"+cu+"/cards", g.PrivateKey, map[string]any{"token_id": "knothere"}), 1005)
	requireError(t, env.do(http.MethodPut, base+"/"+cu+"/cards/"+k, g.PrivateKey, map[string]any{"merchant_id": env.m.ID}), 1003)
	requireOK(t, env.do(http.MethodDelete, base+"/"+cu, g.PrivateKey, nil), http.StatusNoContent)
}

// TestGroupCardsArePerServer: two servers with a group of the same id keep
// their groups' cards apart.
func TestGroupCardsArePerServer(t *testing.T) {
	t.Parallel()
	a, b := newTestEnv(t, Options{}), newTestEnv(t, Options{})
	var customers [2]string
	for i, env := range []*testEnv{a, b} {
		g, err := env.s.AddGroup(GroupConfig{ID: "gsameid", PrivateKey: "sk_samegroupkey"})
		require.NoError(t, err)
		customers[i] = requireOK(t, env.do(http.MethodPost, "/v1/groups/"+g.ID+"/customers", g.PrivateKey,
			map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)["id"].(string)
	}
	k := requireOK(t, a.do(http.MethodPost, "/v1/groups/gsameid/customers/"+customers[0]+"/cards", "sk_samegroupkey", validCard("4111111111111111")), http.StatusOK)["id"].(string)
	r := b.do(http.MethodGet, "/v1/groups/gsameid/customers/"+customers[1]+"/cards", "sk_samegroupkey", nil)
	require.Equal(t, http.StatusOK, r.status)
	assert.Empty(t, r.arr(t))
	requireError(t, b.do(http.MethodGet, "/v1/groups/gsameid/customers/"+customers[1]+"/cards/"+k, "sk_samegroupkey", nil), 1005)
}

// TestGroupConcurrentUse runs group and merchant operations on the same
// merchant at once: under -race this checks the locking (group before
// merchant), and the totals check that nothing is lost.
func TestGroupConcurrentUse(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := groupCustomer(t, env, "Ana")
	card := groupCard(t, env, cu, "4111111111111111")
	merchantCard := storedCard(t, env, "", "5555555555554444")
	const n = 10
	var wg sync.WaitGroup
	errs := make(chan string, 5*n)
	check := func(r resp, what string) {
		if r.status != http.StatusOK {
			errs <- fmt.Sprintf("%s: %d %s", what, r.status, r.body)
		}
	}
	for i := 0; i < n; i++ {
		wg.Add(5)
		go func() {
			defer wg.Done()
			check(env.do(http.MethodPost, env.gmp("/customers/"+cu+"/charges"), env.g.PrivateKey, cardCharge(card, "amount", 10)), "group charge")
		}()
		go func() {
			defer wg.Done()
			check(env.do(http.MethodPost, env.mp("/charges"), env.m.PrivateKey, cardCharge(merchantCard, "amount", 1)), "merchant charge")
		}()
		go func() {
			defer wg.Done()
			check(env.gdo(http.MethodPost, "/customers", map[string]any{"name": "Otro", "email": "o@example.com"}), "group customer")
		}()
		go func() {
			defer wg.Done()
			check(env.gdo(http.MethodPost, "/customers/"+cu+"/cards", validCard(luhnComplete(fmt.Sprintf("41111111111%04d", i)))), "group card")
		}()
		go func() {
			defer wg.Done()
			tok := env.post("/tokens", validCard("4242424242424242"))
			check(tok, "token")
			if tok.status == http.StatusOK {
				check(env.gdo(http.MethodPost, "/customers/"+cu+"/cards", map[string]any{"token_id": tok.obj(t)["id"]}), "group card from token")
			}
		}()
	}
	wg.Wait()
	close(errs)
	var failures []string
	for e := range errs {
		failures = append(failures, e)
	}
	// The tokens all hold one number: the first stored, the others are
	// duplicates (2002) and stay unused.
	dups := 0
	for _, f := range failures {
		if strings.HasPrefix(f, "group card from token: 409") {
			dups++
			continue
		}
		t.Error(f)
	}
	assert.Equal(t, n-1, dups)
	assert.Equal(t, fmt.Sprint(n*10+n*1), balance(t, env))
	assert.Len(t, env.get("/charges?limit=100").arr(t), 2*n)
	cards := env.gdo(http.MethodGet, "/customers/"+cu+"/cards?limit=100", nil).arr(t)
	assert.Len(t, cards, 1+n+1)
}

// luhnComplete appends the check digit that makes prefix a valid card
// number.
func luhnComplete(prefix string) string {
	for d := '0'; d <= '9'; d++ {
		if cardnum.LuhnValid(prefix + string(d)) {
			return prefix + string(d)
		}
	}
	panic("no check digit for " + prefix)
}
