package openpaytest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLooseBodiesOnTheBusyEndpointsKeepTheBooks is a merchant whose
// plug-in writes the loose forms the gateway takes (numbers as strings,
// card data as numbers, booleans as strings, enums in lower case) on the
// endpoints whose bodies the reference server decodes with generated code:
// customers, a card, charges to a stored card and with card data, a
// transfer. The answers, the refusals and the books come out as with the
// canonical forms: one transaction per order_id, balances to the cent.
func TestLooseBodiesOnTheBusyEndpointsKeepTheBooks(t *testing.T) {
	srv := openpaytest.NewServer(t)
	base, key := srv.URL+"/v1/"+srv.MerchantID, srv.PrivateKey
	post := func(path, body string) (int, map[string]any) {
		return call(t, http.MethodPost, base+path, key, json.RawMessage(body))
	}
	requireOK := func(status int, out map[string]any) map[string]any {
		t.Helper()
		require.Equal(t, http.StatusOK, status, "%v", out)
		return out
	}

	ana := requireOK(post("/customers", `{"name":"Ana","email":"ana@example.com","requires_account":"true",`+
		`"address":{"line1":"Calle 1","city":"Querétaro","state":"Qro","postal_code":"76000","country_code":"MX"}}`))
	bea := requireOK(post("/customers", `{"name":"Bea","email":"bea@example.com","requires_account":true}`))
	assert.Equal(t, "Querétaro", ana["address"].(map[string]any)["city"])
	_, err := srv.ReceiveSPEI(ana["id"].(string), openpay.MustAmount("500.00"))
	require.NoError(t, err)

	card := requireOK(post("/cards", `{"holder_name":"Juan Pérez","card_number":4111111111111111,"cvv2":123,`+
		`"expiration_month":12,"expiration_year":30,"device_session_id":"dev-1"}`))
	assert.Equal(t, "411111XXXXXX1111", card["card_number"])
	assert.Equal(t, "12", card["expiration_month"])

	before := srv.Balance()
	stored := requireOK(post("/charges", `{"method":"CARD","source_id":"`+card["id"].(string)+`","amount":"100.50",`+
		`"currency":"mxn","capture":"true","use_card_points":false,"order_id":8576,"description":"Pedido 8576",`+
		`"device_session_id":"dev-1"}`))
	assert.Equal(t, "completed", stored["status"])
	assert.Equal(t, 100.50, stored["amount"])
	assert.Equal(t, "MXN", stored["currency"])
	assert.Equal(t, "8576", stored["order_id"])

	// The same order_id, as a string this time: the gateway's 1006.
	status, again := post("/charges", `{"method":"card","source_id":"`+card["id"].(string)+`","amount":100.50,`+
		`"order_id":"8576","description":"Pedido 8576"}`)
	assert.Equal(t, http.StatusConflict, status)
	assert.EqualValues(t, openpay.ErrDuplicateOrderID, again["error_code"])

	inline := requireOK(post("/charges", `{"method":"card","amount":20,"description":"Pedido 2","order_id":"o-2",`+
		`"card":{"holder_name":"Eva","card_number":"5555555555554444","cvv2":"321","expiration_month":"1","expiration_year":"31"},`+
		`"customer":{"name":"Eva","email":"eva@example.com"},"device_session_id":"dev-2"}`))
	assert.Equal(t, "completed", inline["status"])

	// Refused as before, naming the member (nested ones by their path).
	for body, want := range map[string]struct {
		status int
		code   openpay.Code
		desc   string
	}{
		`{"method":"card","source_id":"` + card["id"].(string) + `","amount":"12.345","description":"x"}`:                                                                                              {http.StatusUnprocessableEntity, openpay.ErrInvalidParameter, "The field 'amount' must have at most two decimal places"},
		`{"method":"card","source_id":"` + card["id"].(string) + `","amount":1,"description":"x","capture":"maybe"}`:                                                                                   {http.StatusBadRequest, openpay.ErrBadRequest, "The field 'capture' has the wrong type: it must be true or false"},
		`{"method":"card","amount":1,"description":"x","card":{"holder_name":"Eva","card_number":"5555555555554444","cvv2":true,"expiration_month":"1","expiration_year":"31"}}`:                       {http.StatusBadRequest, openpay.ErrBadRequest, "The field 'card.cvv2' must be a string"},
		`{"method":"card","amount":1,"description":"x","card":{"holder_name":"Eva","card_number":"5555555555554444","cvv2":"321","expiration_month":"1","expiration_year":"31","address":{"city":5}}}`: {http.StatusBadRequest, openpay.ErrBadRequest, "The field 'card.address.city' must be a string"},
	} {
		status, out := post("/charges", body)
		assert.Equal(t, want.status, status, body)
		assert.EqualValues(t, want.code, out["error_code"], body)
		assert.Equal(t, want.desc, out["description"], body)
	}

	transfer := requireOK(post("/customers/"+ana["id"].(string)+"/transfers",
		`{"customer_id":"`+bea["id"].(string)+`","amount":"5.25","description":"Pago","order_id":77}`))
	assert.Equal(t, "77", transfer["order_id"])

	// The books: the customers' balances to the cent, the merchant's grown
	// by the two charges, one card charge per order_id.
	fromBalance, ok := srv.CustomerBalance(ana["id"].(string))
	require.True(t, ok)
	toBalance, ok := srv.CustomerBalance(bea["id"].(string))
	require.True(t, ok)
	assert.Equal(t, "494.75", fromBalance.String())
	assert.Equal(t, "5.25", toBalance.String())
	assert.Equal(t, "120.50", srv.Balance().Sub(before).String(), "the two charges")
	req, err := http.NewRequest(http.MethodGet, base+"/charges", nil)
	require.NoError(t, err)
	req.SetBasicAuth(key, "")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var charges []map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&charges))
	orders := map[any]int{}
	for _, c := range charges {
		if c["method"] == "card" {
			orders[c["order_id"]]++
		}
	}
	assert.Equal(t, map[any]int{"8576": 1, "o-2": 1}, orders, "the refused requests left nothing")
}
