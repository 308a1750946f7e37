package refserver

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// examplesDir holds the gateway's documented response examples: the module's
// copy of the shared spec folder's examples, so every clone has them.
const examplesDir = "../../testdata/examples"

// looseFields are the members the facts say real responses send as either a
// number or a string.
var looseFields = map[string]bool{"remaining_points": true, "remaining_mxn": true, "http_code": true, "payments": true}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "?"
}

// isZeroJSON reports whether a value is what an omitted member decodes to
// (null, false, 0, ""): the wire types leave zero values out, which a
// client reads back the same.
func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	}
	return false
}

// sameShape compares the server's answer with a documented example: every
// member of the example that is not a zero value is present with the same
// JSON type (objects and arrays compared recursively); every member of the
// answer is one the example has. Members listed in extra (dotted paths) may
// be absent from either side; each case says why. It returns the
// differences.
func sameShape(example, ours any, path string, extra map[string]bool) []string {
	var diffs []string
	ek, ok := jsonKind(example), jsonKind(ours)
	name := path[max(0, lastDot(path)):]
	if looseFields[name] && (ek == "number" || ek == "string") && (ok == "number" || ok == "string") {
		return nil
	}
	if ek != ok {
		return []string{path + ": example has " + ek + ", server answers " + ok}
	}
	switch e := example.(type) {
	case map[string]any:
		o := ours.(map[string]any)
		for k, ev := range e {
			ov, has := o[k]
			if !has {
				if !isZeroJSON(ev) && !extra[join(path, k)] {
					diffs = append(diffs, join(path, k)+": missing from the answer")
				}
				continue
			}
			if ev == nil {
				continue
			}
			diffs = append(diffs, sameShape(ev, ov, join(path, k), extra)...)
		}
		for k := range o {
			if _, has := e[k]; !has && !extra[join(path, k)] {
				diffs = append(diffs, join(path, k)+": not in the example")
			}
		}
	case []any:
		o := ours.([]any)
		if len(e) > 0 && len(o) > 0 {
			for _, ov := range o {
				if ev := matchingElement(e, ov); ev != nil {
					diffs = append(diffs, sameShape(ev, ov, path+"[]", extra)...)
				}
			}
		}
	}
	sort.Strings(diffs)
	return diffs
}

// matchingElement picks the element of an example list to compare an
// element of the answer with: for transactions the one with the same
// method (a list of charges mixes card and bank charges), nil when the
// example shows none of that method (its own example covers it); else the
// first.
func matchingElement(example []any, ours any) any {
	o, ok := ours.(map[string]any)
	if !ok || o["method"] == nil {
		return example[0]
	}
	for _, e := range example {
		if em, ok := e.(map[string]any); ok && em["method"] == o["method"] {
			return e
		}
	}
	return nil
}

func lastDot(p string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '.' {
			return i + 1
		}
	}
	return 0
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// TestResponsesHaveTheShapeOfTheDocumentedExamples builds, for each
// documented example of the resources of this server, the same kind of
// object through the API, and compares their shapes.
func TestResponsesHaveTheShapeOfTheDocumentedExamples(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	address := map[string]any{"line1": "Av 5 de Febrero", "line2": "Roble 207", "line3": "col carrillo",
		"state": "Queretaro", "city": "Querétaro", "postal_code": "76900", "country_code": "MX"}
	customer := map[string]any{"name": "Juan", "last_name": "Vazquez Juarez", "email": "juan.vazquez@empresa.com.mx", "phone_number": "4423456723"}

	customerCard := requireOK(t, env.post("/customers/"+cu+"/cards", with(validCard("4111111111111111"), "address", address)), 200)
	pointsCard := requireOK(t, env.post("/customers/"+cu+"/cards", with(validCard("5105105105105100"), "address", address)), 200)
	tokenID := requireOK(t, env.post("/tokens", validCard("4242424242424242")), 200)["id"].(string)
	fromToken := requireOK(t, env.post("/customers/"+cu+"/cards", map[string]any{"token_id": tokenID, "device_session_id": "x"}), 200)
	token := requireOK(t, env.post("/tokens", with(validCard("4111111111111111"), "address", address)), 200)
	merchantCard := storedCard(t, env, "", "5555555555554444")

	byCard := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(customerCard["id"].(string), "order_id", "oid-00051")), 200)
	redirect := requireOK(t, env.post("/charges", map[string]any{"method": "card", "amount": 100, "description": "terminal",
		"confirm": false, "redirect_url": "https://shop.example/back", "customer": customer}), 200)
	store := requireOK(t, env.post("/customers/"+cu+"/charges", map[string]any{"method": "store", "amount": 100,
		"description": "Cargo con tienda", "order_id": "oid-00053"}), 200)
	bank := requireOK(t, env.post("/customers/"+cu+"/charges", map[string]any{"method": "bank_account", "amount": 100,
		"description": "Cargo con banco", "order_id": "oid-00055"}), 200)
	alipay := requireOK(t, env.post("/charges", map[string]any{"method": "alipay", "amount": 2000, "description": "Cargo Alipay",
		"redirect_url": "https://shop.example/back"}), 200)
	ivr := requireOK(t, env.post("/charges", map[string]any{"method": "card", "confirm": "ivr", "amount": 100, "description": "IVR Charge",
		"order_id": "ord-323", "customer": customer}), 200)
	preauth := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(customerCard["id"].(string), "capture", false)), 200)
	captured := requireOK(t, env.post("/customers/"+cu+"/charges/"+preauth["id"].(string)+"/capture", nil), 200)
	toRefund := requireOK(t, env.post("/customers/"+cu+"/charges", cardCharge(customerCard["id"].(string), "order_id", "oid-00052")), 200)
	refunded := requireOK(t, env.post("/customers/"+cu+"/charges/"+toRefund["id"].(string)+"/refund", map[string]any{"description": "devolucion"}), 200)
	gotRefunded := requireOK(t, env.get("/customers/"+cu+"/charges/"+toRefund["id"].(string)), 200)
	var charges []any
	require.NoError(t, json.Unmarshal(env.get("/customers/"+cu+"/charges").body, &charges))
	var cards []any
	require.NoError(t, json.Unmarshal(env.get("/cards").body, &cards))
	require.NotEmpty(t, merchantCard)
	var points []any
	require.NoError(t, json.Unmarshal(env.get("/customers/"+cu+"/cards/"+pointsCard["id"].(string)+"/points").body, &points))
	update := requireOK(t, env.do(http.MethodPut, env.mp("/customers/"+cu+"/cards/"+customerCard["id"].(string)), env.m.PrivateKey,
		map[string]any{"holder_name": "Juan Perez Ramirez"}), 200)
	merchant := requireOK(t, env.get(""), 200)
	errObj := env.get("/charges/trnothere").obj(t)

	// Members the server sends that an example lacks, and why.
	var (
		// The example of a card object shows a customer card without
		// points programme; ours have one only on the points test card.
		cardExtras = map[string]bool{"points_card": true, "address": true}
		// Charges at customer scope carry customer_id; a 3-D Secure or
		// pre-authorized charge may carry nothing more.
		chargeExtras = map[string]bool{"customer_id": true}
		// The gateway's redirect and IVR examples show the customer with
		// clabe and external_id null; ours are simply absent.
		none = map[string]bool{}
	)
	cases := []struct {
		file  string
		ours  any
		extra map[string]bool
	}{
		{"cards--card-object.json", pointsCard, cardExtras},
		{"cards--create-a-card.json", customerCard, cardExtras},
		{"cards--get-a-card.json", requireOK(t, env.get("/customers/"+cu+"/cards/"+customerCard["id"].(string)), 200), cardExtras},
		{"cards--create-a-card-with-token.json", fromToken, cardExtras},
		{"cards--list-of-cards.json", cards, none},
		{"cards--card-points.json", points, none},
		{"cards--updating-a-card.json", update, none},
		{"tokens--create-a-new-token.json", token, none},
		{"tokens--get-a-token.json", requireOK(t, env.get("/tokens/"+token["id"].(string)), 200), none},
		{"tokens--token-object.json", token, none},
		{"charges--with-a-card-id-or-token.json", byCard, chargeExtras},
		{"charges--with-redirect.json", redirect, none},
		{"charges--charge-via-store.json", store, none},
		// The specification gives bank charges a due_date; the example has none.
		{"charges--charge-via-bank.json", bank, map[string]bool{"due_date": true}},
		{"charges--with-alipay.json", alipay, none},
		{"charges--charge-with-ivr.json", ivr, none},
		{"charges--confirming-a-charge.json", captured, map[string]bool{"card.id": true, "card.creation_date": true, "card.customer_id": true}},
		{"charges--refunding-a-charge.json", refunded, map[string]bool{"card.id": true, "card.creation_date": true, "card.customer_id": true}},
		{"charges--get-a-charge.json", gotRefunded, map[string]bool{"card.id": true, "card.creation_date": true, "card.customer_id": true}},
		{"charges--list-of-charges.json", charges, map[string]bool{"[].card.id": true, "[].card.creation_date": true,
			"[].card.customer_id": true, "[].card.address": true, "[].refund": true, "[].due_date": true,
			"[].payment_method.paybin_reference": true, "[].payment_method.reference": true, "[].payment_method.barcode_url": true,
			"[].payment_method.barcode_paybin_url": true}},
		{"merchant--request-a-merchant-object.json", merchant, none},
		// fraud_rules only come with anti-fraud declines.
		{"errors--error-object.json", errObj, map[string]bool{"fraud_rules": true}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(examplesDir, c.file))
			require.NoError(t, err)
			var example any
			require.NoError(t, json.Unmarshal(data, &example))
			// Compare the decoded forms: the server's answer re-encoded.
			b, err := json.Marshal(c.ours)
			require.NoError(t, err)
			var ours any
			require.NoError(t, json.Unmarshal(b, &ours))
			diffs := sameShape(example, ours, "", c.extra)
			assert.Empty(t, diffs, "%s: %s", c.file, b)
		})
	}
}

// TestSameShapeCanFail keeps the comparison honest.
func TestSameShapeCanFail(t *testing.T) {
	t.Parallel()
	ex := map[string]any{"amount": 100.0, "status": "completed", "card": map[string]any{"brand": "visa"}, "error_message": nil, "conciliated": false}
	assert.Empty(t, sameShape(ex, map[string]any{"amount": 5.0, "status": "x", "card": map[string]any{"brand": "mc"}}, "", nil))
	assert.NotEmpty(t, sameShape(ex, map[string]any{"amount": "5", "status": "x", "card": map[string]any{"brand": "mc"}}, "", nil))
	assert.NotEmpty(t, sameShape(ex, map[string]any{"amount": 5.0, "card": map[string]any{"brand": "mc"}}, "", nil))
	assert.NotEmpty(t, sameShape(ex, map[string]any{"amount": 5.0, "status": "x", "card": map[string]any{"brand": 1.0}}, "", nil))
	assert.NotEmpty(t, sameShape(ex, map[string]any{"amount": 5.0, "status": "x", "card": map[string]any{"brand": "v"}, "new": 1.0}, "", nil))
	assert.Empty(t, sameShape(ex, map[string]any{"amount": 5.0, "status": "x", "card": map[string]any{"brand": "v"}, "new": 1.0}, "", map[string]bool{"new": true}))
}
