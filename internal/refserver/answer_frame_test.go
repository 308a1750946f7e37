package refserver

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/answer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oldTxAnswer is a transaction's answer as the handlers wrote it before
// they kept it in the call (call.answerTx): the record's snapshot, boxed,
// encoded by answer.Append. edit changes the snapshot as the handler did
// (a transfer's store and CLABE).
func oldTxAnswer(t *testing.T, env *testEnv, id string, edit func(*openpay.Transaction)) []byte {
	t.Helper()
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	rec := m.txByID(id)
	require.NotNil(t, rec, id)
	w := rec.snapshot()
	m.mu.Unlock()
	if edit != nil {
		edit(&w)
	}
	data, ok, err := answer.Append(nil, any(w))
	require.True(t, ok)
	require.NoError(t, err)
	return data
}

// A transaction's answer kept in the call is, byte for byte, the answer the
// boxed snapshot gave, for every kind and state a charge or a transfer is
// created in, and for GET charge of each.
func TestTransactionAnswerKeptInTheCallIsTheSnapshotsBytes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	card := storedCard(t, env, "", "4111111111111111")
	customer := map[string]any{"name": "Juan", "email": "juan@example.com"}
	inline := validCard("4242424242424242")
	acct := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com", "requires_account": true}), env.created())["id"].(string)
	cuCard := storedCard(t, env, "/customers/"+acct, "5555555555554444")
	charges := []struct {
		name, path string
		body       map[string]any
		status     openpay.TransactionStatus
	}{
		{"stored card, completed", "/charges", cardCharge(card, "order_id", "o-1", "amount", 100.5, "device_session_id", "s"), openpay.TransactionStatusCompleted},
		{"inline card, completed", "/charges", map[string]any{"method": "card", "card": inline, "amount": 12.3, "description": "inline",
			"metadata": map[string]any{"b": "2", "a": "1"}}, openpay.TransactionStatusCompleted},
		{"pre-authorization", "/charges", cardCharge(card, "capture", false), openpay.TransactionStatusInProgress},
		{"3-D Secure", "/charges", cardCharge(card, "use_3d_secure", true, "redirect_url", "https://shop.example/back"), openpay.TransactionStatusChargePending},
		{"redirect with customer", "/charges", map[string]any{"method": "card", "amount": 100, "description": "terminal", "confirm": false,
			"redirect_url": "https://shop.example/back", "customer": customer}, openpay.TransactionStatusChargePending},
		{"ivr", "/charges", map[string]any{"method": "card", "confirm": "ivr", "amount": 100, "description": "IVR", "customer": customer}, openpay.TransactionStatusChargePending},
		{"alipay", "/charges", map[string]any{"method": "alipay", "amount": 2000, "description": "Alipay", "redirect_url": "https://shop.example/back"}, openpay.TransactionStatusChargePending},
		{"store", "/charges", map[string]any{"method": "store", "amount": 100, "description": "tienda"}, openpay.TransactionStatusInProgress},
		{"bank", "/charges", map[string]any{"method": "bank_account", "amount": 100, "description": "banco"}, openpay.TransactionStatusInProgress},
		{"customer's card, credited to its account", "/customers/" + acct + "/charges", cardCharge(cuCard, "order_id", "o-2"), openpay.TransactionStatusCompleted},
	}
	for _, ch := range charges {
		r := env.post(ch.path, ch.body)
		o := requireOK(t, r, http.StatusOK)
		require.Equal(t, string(ch.status), o["status"], ch.name)
		id := o["id"].(string)
		want := oldTxAnswer(t, env, id, nil)
		assert.Equal(t, string(want), string(r.body), "POST: %s", ch.name)
		assert.Equal(t, string(want), string(env.get("/charges/"+id).body), "GET: %s", ch.name)
	}

	// A transfer's answer carries the paying customer's store and CLABE.
	to := requireOK(t, env.post("/customers", map[string]any{"name": "Beto", "email": "beto@example.com", "requires_account": true}), env.created())["id"].(string)
	r := env.post("/customers/"+acct+"/transfers", map[string]any{"customer_id": to, "amount": 10.25, "description": "renta", "order_id": "t-1"})
	o := requireOK(t, r, http.StatusOK)
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	from := m.customers.get(acct)
	ref, clabe := from.storeRef, from.clabe
	m.mu.Unlock()
	want := oldTxAnswer(t, env, o["id"].(string), func(w *openpay.Transaction) {
		w.Store = &openpay.StoreReference{Reference: ref, BarcodeURL: barcodeURL(env.srv.URL, ref)}
		w.CLABE = clabe
	})
	assert.Equal(t, string(want), string(r.body), "POST transfer")
	assert.Contains(t, string(r.body), `"clabe":"`+clabe+`"`)
}

// A request's body is read into storage its call lends and takes back,
// cleared, once the request is answered (call.release, reqbody.Body.Done):
// nothing the server keeps may be a view of it. A merchant's records made
// from bodies (a customer with its address, a customer's card, a charge
// with metadata and an order_id, a plan) read back as they were answered
// after many other requests have gone through the same storage, and the
// order_id still finds its charge.
func TestRequestBodiesAreNotKeptAfterTheirRequest(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	address := map[string]any{"line1": "Calle 10", "line2": "col. san pablo", "line3": "entre la 1 y la 2",
		"state": "Queretaro", "city": "Queretaro", "postal_code": "76000", "country_code": "MX"}
	cu := env.post("/customers", map[string]any{"name": "Rodrigo", "last_name": "Velazco Perez",
		"email": "rodrigo@payments.example", "phone_number": "4425667045", "external_id": "cliente1",
		"address": address})
	cuID := requireOK(t, cu, env.created())["id"].(string)
	card := env.post("/customers/"+cuID+"/cards", with(validCard("4111111111111111"), "holder_name", "Rodrigo Velazco"))
	cardID := requireOK(t, card, env.created())["id"].(string)
	charge := env.post("/customers/"+cuID+"/charges", cardCharge(cardID, "order_id", "pedido-guardado", "description", "Cargo guardado",
		"metadata", map[string]any{"clave": "valor", "otra_clave": "otro valor"}))
	chargeID := requireOK(t, charge, http.StatusOK)["id"].(string)
	plan := env.post("/plans", planBody("name", "Plan guardado"))
	planID := requireOK(t, plan, http.StatusOK)["id"].(string)

	// Other bodies of every size through the calls' storage.
	for i := range 40 {
		requireOK(t, env.post("/customers", map[string]any{"name": fmt.Sprintf("Otro%03d", i), "last_name": "XXXXXXXX XXXXX",
			"email": fmt.Sprintf("otro%03d@payments.example", i), "phone_number": "9999999999", "external_id": fmt.Sprintf("otro%d", i),
			"address": with(address, "line1", "ZZZZZZZZ", "city", "YYYYYYYYY")}), env.created())
		requireOK(t, env.post("/charges", map[string]any{"method": "card", "card": validCard("5555555555554444"), "amount": 10,
			"description": "Otro cargo", "order_id": fmt.Sprintf("otro-pedido-%d", i),
			"metadata": map[string]any{"xxxxx": "yyyyy", "zzzzzzzzzz": "wwwwwwwwww"}}), http.StatusOK)
	}

	assert.JSONEq(t, string(cu.body), string(env.get("/customers/"+cuID).body), "the customer")
	assert.JSONEq(t, string(card.body), string(env.get("/customers/"+cuID+"/cards/"+cardID).body), "the card")
	assert.JSONEq(t, string(charge.body), string(env.get("/charges/"+chargeID).body), "the charge")
	assert.JSONEq(t, string(plan.body), string(env.get("/plans/"+planID).body), "the plan")
	found := env.get("/charges?order_id=pedido-guardado").arr(t)
	require.Len(t, found, 1)
	assert.Equal(t, chargeID, found[0]["id"])
}

// Calls are reused from request to request (call.release): requests in
// flight at once each get their own. Sixteen clients create customers and
// charges with their own names, descriptions and order_ids, and send
// requests that fail: every answer is its own request's, every request id
// differs, and an error's request_id is its answer's X-Request-Id.
func TestConcurrentRequestsKeepTheirOwnCall(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	var mu sync.Mutex
	ids := map[string]bool{}
	seen := func(r resp) {
		id := r.header.Get("X-Request-Id")
		mu.Lock()
		defer mu.Unlock()
		assert.False(t, ids[id], "request id %s given twice", id)
		ids[id] = true
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				name := fmt.Sprintf("Cliente %d-%d", g, i)
				r := env.post("/customers", map[string]any{"name": name, "email": fmt.Sprintf("c%d.%d@example.com", g, i)})
				seen(r)
				if assert.Equal(t, env.created(), r.status) {
					assert.Equal(t, name, r.obj(t)["name"])
				}
				order := fmt.Sprintf("pedido-%d-%d", g, i)
				r = env.post("/charges", map[string]any{"method": "card", "card": validCard("4111111111111111"), "amount": 10 + i,
					"description": "Cargo de " + name, "order_id": order})
				seen(r)
				if assert.Equal(t, http.StatusOK, r.status) {
					o := r.obj(t)
					assert.Equal(t, order, o["order_id"])
					assert.Equal(t, "Cargo de "+name, o["description"])
				}
				r = env.post("/charges", map[string]any{"method": "card", "amount": "nada", "description": name})
				seen(r)
				if assert.Equal(t, http.StatusBadRequest, r.status) {
					assert.Equal(t, r.header.Get("X-Request-Id"), r.obj(t)["request_id"])
				}
			}
		}()
	}
	wg.Wait()
	assert.Len(t, ids, 16*20*3)
}
