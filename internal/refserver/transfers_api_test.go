package refserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func transfer(to string, kv ...any) map[string]any {
	return with(map[string]any{"customer_id": to, "amount": 12.5, "description": "Transferencia entre cuentas"}, kv...)
}

func TestTransferBetweenCustomers(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	from := createCustomerHTTP(t, env, "Paga", true)
	to := createCustomerHTTP(t, env, "Cobra", true)
	fund(t, env, from, "100.00")
	fromObj := requireOK(t, env.get("/customers/"+from), 200)

	o := requireOK(t, env.post("/customers/"+from+"/transfers", transfer(to, "order_id", "oid-1245")), http.StatusOK)
	id := o["id"].(string)
	assert.Regexp(t, `^tr[a-z0-9]{18}$`, id)
	for k, v := range map[string]any{"amount": 12.5, "method": "customer", "operation_type": "out", "transaction_type": "transfer",
		"status": "completed", "currency": "MXN", "order_id": "oid-1245", "customer_id": from,
		"description": "Transferencia entre cuentas", "creation_date": "2026-03-10T12:00:00-06:00"} {
		assert.Equal(t, v, o[k], k)
	}
	// The answer carries the paying customer's store reference and CLABE.
	assert.Equal(t, fromObj["clabe"], o["clabe"])
	assert.Equal(t, fromObj["store"], o["store"])
	assert.Equal(t, "87.50", balanceOf(t, env, from))
	assert.Equal(t, "12.50", balanceOf(t, env, to))

	// Each side reads its own transaction under the same id.
	out := requireOK(t, env.get("/customers/"+from+"/transfers/"+id), http.StatusOK)
	assert.Equal(t, "out", out["operation_type"])
	assert.Equal(t, "oid-1245", out["order_id"])
	assert.NotContains(t, out, "clabe")
	assert.NotContains(t, out, "store")
	in := requireOK(t, env.get("/customers/"+to+"/transfers/"+id), http.StatusOK)
	assert.Equal(t, id, in["id"])
	assert.Equal(t, "in", in["operation_type"])
	assert.Equal(t, to, in["customer_id"])
	assertNull(t, in, "order_id")
	assert.Equal(t, 12.5, in["amount"])
	third := createCustomerHTTP(t, env, "Otro", true)
	requireError(t, env.get("/customers/"+third+"/transfers/"+id), 1005)
	requireError(t, env.get("/customers/"+from+"/transfers/trnothere"), 1005)
	requireError(t, env.get("/customers/anothere/transfers/"+id), 1005)

	// The receiving customer can send it on; lists show both directions.
	env.clock.Advance(24 * time.Hour)
	back := requireOK(t, env.post("/customers/"+to+"/transfers", transfer(from, "amount", 2.5)), http.StatusOK)["id"].(string)
	assert.Equal(t, "10.00", balanceOf(t, env, to))
	assert.Equal(t, "90.00", balanceOf(t, env, from))
	list := env.get("/customers/" + to + "/transfers").arr(t)
	require.Len(t, list, 2)
	assert.Equal(t, []string{back, id}, ids(list))
	assert.Equal(t, "out", list[0]["operation_type"])
	assert.Equal(t, "in", list[1]["operation_type"])
	assert.Equal(t, []string{back}, ids(env.get("/customers/"+from+"/transfers?"+url.Values{"amount": {"2.50"}}.Encode()).arr(t)))
	assert.Equal(t, []string{id}, ids(env.get("/customers/"+from+"/transfers?order_id=oid-1245").arr(t)))
	assert.Equal(t, []string{id}, ids(env.get("/customers/"+from+"/transfers?creation=2026-03-10").arr(t)))
	assert.Equal(t, []string{back}, ids(env.get("/customers/"+from+"/transfers?"+url.Values{"amount[lte]": {"3"}}.Encode()).arr(t)))
	assert.Len(t, env.get("/customers/"+from+"/transfers?status=COMPLETED").arr(t), 2)
	assert.Len(t, env.get("/customers/"+from+"/transfers?limit=1&offset=1").arr(t), 1)
	assert.Empty(t, env.get("/customers/"+third+"/transfers").arr(t))
	requireError(t, env.get("/customers/"+from+"/transfers?status=nope"), 1003)
	requireError(t, env.get("/customers/anothere/transfers"), 1005)
	// Transfers are not charges, payouts or fees.
	requireError(t, env.get("/customers/"+from+"/charges/"+id), 1005)
	requireError(t, env.get("/payouts/"+id), 1005)
	requireError(t, env.get("/fees/"+id), 1005)

	// One event per transfer, with the out side.
	var evs []Event
	for _, ev := range env.s.Events(env.m.ID) {
		if ev.Type == openpay.EventTypeTransferSucceeded {
			evs = append(evs, ev)
		}
	}
	require.Len(t, evs, 2)
	assert.Equal(t, from, evs[0].Transaction.CustomerID)
	assert.Equal(t, openpay.OperationTypeOut, evs[0].Transaction.OperationType)
}

func TestCreateTransferErrors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	from := createCustomerHTTP(t, env, "Paga", true)
	to := createCustomerHTTP(t, env, "Cobra", true)
	plain := createCustomerHTTP(t, env, "Plain", false)
	fund(t, env, from, "20.00")
	requireOK(t, env.post("/customers/"+from+"/transfers", transfer(to, "order_id", "taken", "amount", 1.01)), 200)
	path := "/customers/" + from + "/transfers"
	for _, c := range []struct {
		name  string
		path  string
		body  any
		code  int
		field string
	}{
		{"not JSON", path, "x", 1001, ""},
		{"customer_id missing", path, transfer(to, "customer_id", nil), 1001, "customer_id"},
		{"customer_id a number", path, transfer(to, "customer_id", 5), 1001, "customer_id"},
		{"customer_id too long", path, transfer(strings.Repeat("a", 46)), 1003, "customer_id"},
		{"amount missing", path, transfer(to, "amount", nil), 1001, "amount"},
		{"description missing", path, transfer(to, "description", nil), 1001, "description"},
		{"amount one peso", path, transfer(to, "amount", 1), 1003, "amount"},
		{"amount below", path, transfer(to, "amount", 0.5), 1003, "amount"},
		{"amount three decimals", path, transfer(to, "amount", 2.001), 1003, "amount"},
		{"description too long", path, transfer(to, "description", strings.Repeat("d", 251)), 1003, "description"},
		{"order_id too long", path, transfer(to, "order_id", strings.Repeat("o", 101)), 1003, "order_id"},
		{"receiver unknown", path, transfer("anothere"), 1005, "anothere"},
		{"payer unknown", "/customers/anothere/transfers", transfer(to), 1005, "anothere"},
		{"to itself", path, transfer(from), 1003, "customer_id"},
		{"receiver has no account", path, transfer(plain), 1003, "customer_id"},
		{"payer has no account", "/customers/" + plain + "/transfers", transfer(to), 1003, plain},
		{"order_id taken", path, transfer(to, "order_id", "taken"), 1006, ""},
		{"payer short", path, transfer(to, "amount", 19), 4001, "customer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			desc := requireError(t, env.post(c.path, c.body), c.code)
			if c.field != "" {
				assert.Contains(t, desc, c.field)
			}
		})
	}
	assert.Equal(t, "18.99", balanceOf(t, env, from))
	assert.Equal(t, "1.01", balanceOf(t, env, to))
	requireOK(t, env.post(path, transfer(to, "amount", 18.99)), 200)
	assert.Equal(t, "0.00", balanceOf(t, env, from))

	// A deactivated payer or receiver, a deactivated merchant: 1008.
	fund(t, env, to, "10")
	other := createCustomerHTTP(t, env, "Otro", true)
	deactivateCustomer(env, other)
	requireError(t, env.post("/customers/"+to+"/transfers", transfer(other, "amount", 2)), 1008)
	requireError(t, env.post("/customers/"+other+"/transfers", transfer(to, "amount", 2)), 1008)
	setMerchantStatus(env, openpay.MerchantStatusDeleted)
	requireError(t, env.post("/customers/"+to+"/transfers", transfer(from, "amount", 2)), 1008)
	assert.Equal(t, "30.00", balanceOf(t, env, to))
	// A deleted receiver is not found.
	setMerchantStatus(env, openpay.MerchantStatusActive)
	requireOK(t, env.del("/customers/"+plain), http.StatusNoContent)
	requireError(t, env.post("/customers/"+to+"/transfers", transfer(plain, "amount", 2)), 1005)
	requireError(t, env.do(http.MethodPost, env.mp(path), env.m.PublicKey, transfer(to)), 1010)
}

// The transfer's answer carries the paying customer's barcode address at
// the base URL the request came by, as the customer's own answer does: the
// address is kept between transfers, and built again when a request comes
// by another host.
func TestTransferBarcodeFollowsTheBaseURL(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	from := createCustomerHTTP(t, env, "Paga", true)
	to := createCustomerHTTP(t, env, "Cobra", true)
	fund(t, env, from, "100.00")
	serve := func(method, host, path string, body any) map[string]any {
		t.Helper()
		var rd io.Reader
		if body != nil {
			data, err := json.Marshal(body)
			require.NoError(t, err)
			rd = bytes.NewReader(data)
		}
		req := httptest.NewRequest(method, "http://"+host+env.mp(path), rd)
		req.SetBasicAuth(env.m.PrivateKey, "")
		rec := httptest.NewRecorder()
		env.s.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var o map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &o))
		return o
	}
	for i, host := range []string{"shop-a.example", "shop-a.example", "shop-b.example:8443", "shop-a.example"} {
		o := serve(http.MethodPost, host, "/customers/"+from+"/transfers", transfer(to, "amount", 1.5+float64(i)))
		cu := serve(http.MethodGet, host, "/customers/"+from, nil)
		store := o["store"].(map[string]any)
		assert.Equal(t, cu["store"], store, host)
		assert.Equal(t, "http://"+host+"/barcode/"+store["reference"].(string)+"?width=1&height=45&text=false", store["barcode_url"], host)
	}
	assert.Equal(t, "88.00", balanceOf(t, env, from))
	assert.Equal(t, "12.00", balanceOf(t, env, to))
}

// A customer's barcode address, once built for a base URL, is given again
// without being built. Not parallel: AllocsPerRun counts the whole
// process's allocations.
func TestBarcodeAtBuildsOncePerBaseURL(t *testing.T) {
	a := &customerAccount{storeRef: "1010101010101010"}
	first := a.barcodeAt("http://shop-a.example")
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if a.barcodeAt("http://shop-a.example") != first {
			t.Error("the address changed")
		}
	}))
	assert.Equal(t, "http://shop-b.example/barcode/1010101010101010?width=1&height=45&text=false", a.barcodeAt("http://shop-b.example"))
}
