package refserver

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// A shape allowance lets the server's answer differ from a documented
// example at one JSON path ("card.address"; "[]" stands for the elements of
// a list), for a reason the case gives. Its first character says how:
//
//	-path  the example has the key, the answer does not
//	+path  the answer has the key, the example does not
//	~path  one side has null where the other has a value: the two
//	       objects differ in data, not in shape (an id of another object,
//	       a status further on)
//
// Every allowance must be used: one that no longer applies fails the test.
type shapeCheck struct {
	allow map[string]string
	used  map[string]bool
	diffs []string
}

func newShapeCheck(allow map[string]string) *shapeCheck {
	return &shapeCheck{allow: allow, used: map[string]bool{}}
}

func (c *shapeCheck) allowed(how byte, path string) bool {
	k := string(how) + path
	if _, ok := c.allow[k]; ok {
		c.used[k] = true
		return true
	}
	return false
}

// compare records where ours, the server's answer, differs in shape from
// example: a key of one missing from the other, or a value of another JSON
// type (null is a type of its own: an omitted key is not a null one, and a
// null is neither a string nor an object). Objects and lists are compared
// member by member.
func (c *shapeCheck) compare(example, ours any, path string) {
	ek, ok := jsonKind(example), jsonKind(ours)
	name := path[strings.LastIndexByte(path, '.')+1:]
	if looseFields[name] && (ek == "number" || ek == "string") && (ok == "number" || ok == "string") {
		return
	}
	if ek != ok {
		if (ek == "null" || ok == "null") && c.allowed('~', path) {
			return
		}
		c.diffs = append(c.diffs, path+": example has "+ek+", server answers "+ok)
		return
	}
	switch e := example.(type) {
	case map[string]any:
		o := ours.(map[string]any)
		for k, ev := range e {
			if ov, has := o[k]; has {
				c.compare(ev, ov, join(path, k))
			} else if !c.allowed('-', join(path, k)) {
				c.diffs = append(c.diffs, join(path, k)+": missing from the answer")
			}
		}
		for k := range o {
			if _, has := e[k]; !has && !c.allowed('+', join(path, k)) {
				c.diffs = append(c.diffs, join(path, k)+": not in the example")
			}
		}
	case []any:
		o := ours.([]any)
		if len(e) > 0 && len(o) == 0 {
			c.diffs = append(c.diffs, path+": the answer is an empty list")
		}
		compared := len(e) == 0
		for _, ov := range o {
			if ev := matchingElement(e, ov); ev != nil {
				c.compare(ev, ov, path+"[]")
				compared = true
			}
		}
		if !compared {
			c.diffs = append(c.diffs, path+": no element of the answer is of a kind the example shows")
		}
	}
}

// result is the differences and the allowances that were not needed.
func (c *shapeCheck) result() []string {
	out := c.diffs
	for k, why := range c.allow {
		if !c.used[k] {
			out = append(out, "allowance "+k+" ("+why+") is not needed: remove it")
		}
	}
	sort.Strings(out)
	return out
}

// sameShape compares the server's answer with a documented example (see
// shapeCheck) and returns the differences.
func sameShape(example, ours any, allow map[string]string) []string {
	c := newShapeCheck(allow)
	c.compare(example, ours, "")
	return c.result()
}

// matchingElement picks the element of an example list to compare an
// element of the answer with. Transactions are compared with one of the
// same method (a list of charges mixes card and bank charges), the one that
// also shares most of type, direction and status; nil when the example
// shows none of that method (its own example covers it). Anything else is
// compared with the first.
func matchingElement(example []any, ours any) any {
	if len(example) == 0 {
		return nil
	}
	o, ok := ours.(map[string]any)
	if !ok || o["method"] == nil {
		return example[0]
	}
	var best any
	bestScore := -1
	for _, e := range example {
		em, ok := e.(map[string]any)
		if !ok || em["method"] != o["method"] {
			continue
		}
		score := 0
		for _, k := range []string{"transaction_type", "operation_type", "status"} {
			if em[k] == o[k] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = e, score
		}
	}
	return best
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// shapeCase is a documented example and the server's answer of the same
// kind.
type shapeCase struct {
	file  string
	ours  resp              // the answer as the server sent it
	pick  func(v any) any   // the part of the answer the example shows; nil: all of it
	allow map[string]string // see shapeCheck
}

// noAnswer are the documented examples that no answer of the server can
// match, and why.
var noAnswer = map[string]string{
	"payments--summary-payouts.json":          "the payout-summary operation lies outside the interface (openapi.yaml has no path for it)",
	"payments--summary-payout-object.json":    "the payout-summary operation lies outside the interface (openapi.yaml has no path for it)",
	"common_objects--paymentplan-object.json": "a part of card-charge requests (payment_plan); no answer carries it",
}

// TestAnswersHaveTheKeysOfTheDocumentedExamples builds, for every documented
// example of the gateway, the same kind of object through the API and
// compares the two: every key of the example is in the answer with the same
// JSON type, null keys included, and every key of the answer is in the
// example, but for the allowances each case gives with its reason.
func TestAnswersHaveTheKeysOfTheDocumentedExamples(t *testing.T) {
	t.Parallel()
	var cases []shapeCase
	for _, build := range []func(*testing.T) []shapeCase{cardAndChargeShapes, moneyShapes, recurringShapes, otherShapes} {
		cases = append(cases, build(t)...)
	}
	entries, err := os.ReadDir(examplesDir)
	require.NoError(t, err)
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.file] = true
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		_, none := noAnswer[e.Name()]
		assert.True(t, covered[e.Name()] != none, "%s: needs exactly one of a shape case or a noAnswer reason", e.Name())
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(examplesDir, c.file))
			require.NoError(t, err)
			var example, ours any
			require.NoError(t, json.Unmarshal(data, &example))
			require.Equal(t, "application/json", c.ours.header.Get("Content-Type"), "%s", c.ours.body)
			require.NoError(t, json.Unmarshal(c.ours.body, &ours))
			if c.pick != nil {
				ours = c.pick(ours)
			}
			assert.Empty(t, sameShape(example, ours, c.allow), "%s: %s", c.file, c.ours.body)
		})
	}
}

// member returns a pick of the answer's member at a dotted path.
func member(path string) func(any) any {
	return func(v any) any {
		for _, k := range strings.Split(path, ".") {
			if list, ok := v.([]any); ok && len(list) > 0 {
				v = list[0]
			}
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
}

// okResp requires a 2xx answer with the wanted status and returns it.
func okResp(t *testing.T, r resp, status int) resp {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	return r
}

// idOf is the id of an answer.
func idOf(t *testing.T, r resp) string {
	t.Helper()
	id, _ := r.obj(t)["id"].(string)
	require.NotEmpty(t, id, "%s", r.body)
	return id
}

func cardAndChargeShapes(t *testing.T) []shapeCase {
	env := newTestEnv(t, Options{})
	cu := newCustomer(t, env, false)
	address := map[string]any{"line1": "Av 5 de Febrero", "line2": "Roble 207", "line3": "col carrillo",
		"state": "Queretaro", "city": "Querétaro", "postal_code": "76900", "country_code": "MX"}
	customer := map[string]any{"name": "Juan", "last_name": "Vazquez Juarez", "email": "juan.vazquez@empresa.com.mx", "phone_number": "4423456723"}
	cards := "/customers/" + cu + "/cards"

	plainCard := okResp(t, env.post(cards, validCard("4111111111111111")), 200)
	card := idOf(t, plainCard)
	// The points card is another customer's, so that the list of charges
	// holds the plain card's only.
	pointsCards := "/customers/" + newCustomer(t, env, false) + "/cards"
	pointsCard := okResp(t, env.post(pointsCards, with(validCard("5105105105105100"), "address", address)), 200)
	tokenID := idOf(t, okResp(t, env.post("/tokens", validCard("4242424242424242")), 200))
	fromToken := okResp(t, env.post(cards, map[string]any{"token_id": tokenID, "device_session_id": "x"}), 200)
	token := okResp(t, env.post("/tokens", with(validCard("4111111111111111"), "address", address)), 200)
	storedCard(t, env, "", "5555555555554444")

	charges := "/customers/" + cu + "/charges"
	byCard := okResp(t, env.post(charges, cardCharge(card, "order_id", "oid-00051")), 200)
	redirect := okResp(t, env.post("/charges", map[string]any{"method": "card", "amount": 100, "description": "terminal",
		"confirm": false, "redirect_url": "https://shop.example/back", "customer": customer}), 200)
	store := okResp(t, env.post(charges, map[string]any{"method": "store", "amount": 100,
		"description": "Cargo con tienda", "order_id": "oid-00053"}), 200)
	bank := okResp(t, env.post(charges, map[string]any{"method": "bank_account", "amount": 100,
		"description": "Cargo con banco", "order_id": "oid-00055"}), 200)
	alipay := okResp(t, env.post("/charges", map[string]any{"method": "alipay", "amount": 2000, "description": "Cargo Alipay",
		"redirect_url": "https://shop.example/back"}), 200)
	ivr := okResp(t, env.post("/charges", map[string]any{"method": "card", "confirm": "ivr", "amount": 100, "description": "IVR Charge",
		"order_id": "ord-323", "customer": customer}), 200)
	preauth := idOf(t, okResp(t, env.post(charges, cardCharge(card, "capture", false)), 200))
	captured := okResp(t, env.post(charges+"/"+preauth+"/capture", nil), 200)
	toRefund := idOf(t, okResp(t, env.post(charges, cardCharge(card, "order_id", "oid-00052")), 200))
	refunded := okResp(t, env.post(charges+"/"+toRefund+"/refund", map[string]any{"description": "devolucion"}), 200)
	withPoints := okResp(t, env.post(strings.TrimSuffix(pointsCards, "/cards")+"/charges",
		cardCharge(idOf(t, pointsCard), "use_card_points", "MIXED")), 200)
	declined := env.post("/charges", map[string]any{"method": "card", "amount": 100, "description": "x",
		"card": validCard("4000000000030058")})
	require.Equal(t, http.StatusPaymentRequired, declined.status, "%s", declined.body)

	var (
		// A card inside a transaction carries no id, creation date or
		// customer in the gateway's examples; the server's cards are the
		// stored ones, with all three.
		txCard = map[string]string{
			"+card.id":            "the charge was made with a stored card, which has an id",
			"+card.creation_date": "the charge was made with a stored card, which has a creation date",
			"+card.customer_id":   "the charge was made with a customer's card",
		}
		// The token examples disagree with the token object example.
		tokenOp = map[string]string{
			"+card.points_card":   "the operation examples leave points_card out; the token object example sends false",
			"~card.creation_date": "the operation examples show creation_date null, the object example a date, which the server sends",
		}
	)
	return []shapeCase{
		{file: "cards--card-object.json", ours: pointsCard},
		{file: "cards--create-a-card.json", ours: plainCard},
		{file: "cards--get-a-card.json", ours: okResp(t, env.get(cards+"/"+card), 200)},
		{file: "cards--create-a-card-with-token.json", ours: fromToken},
		{file: "cards--list-of-cards.json", ours: okResp(t, env.get("/cards"), 200), allow: map[string]string{
			"+[].customer_id": "the server lists merchant-level cards, whose customer_id is null (api-spec.md 2.2); the example has no owner key at all",
		}},
		{file: "cards--card-points.json", ours: okResp(t, env.get(pointsCards+"/"+idOf(t, pointsCard)+"/points"), 200)},
		{file: "cards--updating-a-card.json", ours: okResp(t, env.put(cards+"/"+card, map[string]any{"holder_name": "Juan Perez Ramirez"}), 200)},
		{file: "tokens--create-a-new-token.json", ours: token, allow: tokenOp},
		{file: "tokens--get-a-token.json", ours: okResp(t, env.get("/tokens/"+idOf(t, token)), 200), allow: tokenOp},
		{file: "tokens--token-object.json", ours: token},
		{file: "charges--with-a-card-id-or-token.json", ours: byCard, allow: map[string]string{
			"+customer_id": "the example's charge is at merchant level; the server's is at customer scope",
		}},
		{file: "charges--with-redirect.json", ours: redirect, allow: map[string]string{
			"+order_id":         "this example alone lacks order_id; the others, the wallet charge's among them, send null",
			"+customer.address": "this echo of the payer lacks address; the IVR example's echo sends null",
		}},
		{file: "charges--charge-via-store.json", ours: store},
		{file: "charges--charge-via-bank.json", ours: bank, allow: map[string]string{
			"+due_date": "the interface gives bank charges a due date; the example has none",
		}},
		{file: "charges--with-alipay.json", ours: alipay},
		{file: "charges--charge-with-ivr.json", ours: ivr},
		{file: "charges--confirming-a-charge.json", ours: captured, allow: txCard},
		{file: "charges--refunding-a-charge.json", ours: refunded, allow: txCard},
		{file: "charges--get-a-charge.json", ours: okResp(t, env.get(charges+"/"+toRefund), 200), allow: txCard},
		{file: "charges--list-of-charges.json", ours: okResp(t, env.get(charges), 200), allow: map[string]string{
			"+[].card.id":            "the charges were made with a stored card, which has an id",
			"+[].card.creation_date": "the charges were made with a stored card, which has a creation date",
			"+[].card.customer_id":   "the charges were made with a customer's card",
			"+[].refund":             "one charge was refunded",
			"+[].due_date":           "the interface gives bank charges a due date; the example has none",
			"~[].order_id":           "the example's card charge was sent without order_id, the server's with one",
		}},
		{file: "common_objects--cardpoints-object.json", ours: withPoints, pick: member("card_points")},
		{file: "merchant--request-a-merchant-object.json", ours: okResp(t, env.get(""), 200)},
		{file: "merchant--merchant-object.json", ours: okResp(t, env.get(""), 200), allow: map[string]string{
			"-creationDate":  "a camel-case typo of this one example; every other object has creation_date",
			"+creation_date": "the same typo",
		}},
		{file: "errors--error-object.json", ours: declined},
	}
}

func moneyShapes(t *testing.T) []shapeCase {
	env := newTestEnv(t, Options{})
	address := map[string]any{"line1": "Calle 10", "line2": "col. san pablo", "line3": "entre la calle 1 y la 2",
		"state": "Queretaro", "city": "Queretaro", "postal_code": "76000", "country_code": "MX"}
	created := okResp(t, env.post("/customers", map[string]any{"name": "customer name", "email": "customer_email@me.com",
		"requires_account": true}), 200)
	cu := idOf(t, created)
	full := idOf(t, okResp(t, env.post("/customers", map[string]any{"name": "Rodrigo", "last_name": "Velazco Perez",
		"email": "rodrigo.velazco@payments.com", "phone_number": "4425667045", "external_id": "cliente1",
		"requires_account": true, "address": address}), 200))
	fund(t, env, full, "103")
	fullGot := okResp(t, env.get("/customers/"+full), 200)
	updated := okResp(t, env.put("/customers/"+cu, map[string]any{"name": "customer name", "email": "customer_email@me.com",
		"phone_number": "44209087654", "address": address}), 200)
	got := okResp(t, env.get("/customers/"+cu), 200) // before its balance is funded, as in the example

	bankPath := "/customers/" + cu + "/bankaccounts"
	named := okResp(t, env.post(bankPath, map[string]any{"holder_name": "Juan Hernández Sánchez", "alias": "Cuenta principal", "clabe": clabeIXE}), 200)
	plain := okResp(t, env.post(bankPath, map[string]any{"holder_name": "Juan Hernández Sánchez", "clabe": clabeBancomer}), 200)
	account := idOf(t, plain)

	fund(t, env, cu, "1000")
	other := createCustomerHTTP(t, env, "Otro", true)
	payouts := "/customers/" + cu + "/payouts"
	payoutByID := okResp(t, env.post(payouts, bankPayout(account, "order_id", "oid-00021")), 200)
	payoutInline := okResp(t, env.post(payouts, inlineBankPayout("order_id", "oid-1110011")), 200)
	_, err := env.s.SettlePayout(env.m.ID, idOf(t, payoutInline))
	require.NoError(t, err)
	toCancel := idOf(t, okResp(t, env.post(payouts, inlineBankPayout("order_id", "oid-00025")), 200))
	cancelled := okResp(t, env.del(payouts+"/"+toCancel), 200)

	transfers := "/customers/" + cu + "/transfers"
	tr := okResp(t, env.post(transfers, transfer(other, "order_id", "oid-1245")), 200)
	okResp(t, env.post("/customers/"+other+"/transfers", transfer(cu, "amount", 2)), 200)

	feeAnswer := okResp(t, env.post("/fees", fee(cu, "order_id", "oid-1367")), 200)
	okResp(t, env.post("/fees", fee(other, "amount", 1, "order_id", "oid-1366")), 200)

	var (
		// The create, get and update examples leave out the status (the
		// customer object example has it), which the server always sends.
		customerOp = map[string]string{"+status": "the customer object example shows it; the operation examples leave it out"}
		// Transfers and fees carry operation_date (the interface's
		// transaction has it "in most responses"); their examples lack it.
		noOperationDate = map[string]string{"+operation_date": "the server sends it on every transaction; this example lacks it"}
	)
	return []shapeCase{
		{file: "customers--create-a-new-customer.json", ours: created, allow: customerOp},
		{file: "customers--customer-object.json", ours: fullGot},
		{file: "customers--get-an-existing-customer.json", ours: got, allow: customerOp},
		{file: "customers--update-a-customer.json", ours: updated, allow: customerOp},
		{file: "common_objects--address-object.json", ours: fullGot, pick: member("address")},
		{file: "common_objects--store-object.json", ours: fullGot, pick: member("store"), allow: map[string]string{
			"-paybin_reference":   "a customer's store reference carries only reference and barcode_url, as the customer examples show",
			"-barcode_paybin_url": "a customer's store reference carries only reference and barcode_url, as the customer examples show",
		}},
		{file: "bank_accounts--bank-account-object.json", ours: plain},
		{file: "bank_accounts--create-a-bank-account.json", ours: named},
		{file: "bank_accounts--get-a-bank-account.json", ours: okResp(t, env.get(bankPath+"/"+idOf(t, named)), 200)},
		{file: "bank_accounts--list-of-bank-accounts.json", ours: okResp(t, env.get(bankPath), 200), allow: map[string]string{
			"~[].alias": "one of the server's accounts was given an alias",
		}},
		{file: "payments--payout-to-a-registered-id.json", ours: payoutByID, allow: noOperationDate},
		{file: "payments--payment-to-a-bank-account.json", ours: payoutInline},
		{file: "payments--get-a-payout.json", ours: okResp(t, env.get(payouts+"/"+idOf(t, payoutInline)), 200)},
		{file: "payments--cancel-a-payout.json", ours: cancelled},
		{file: "payments--list-of-payouts.json", ours: okResp(t, env.get(payouts), 200), allow: map[string]string{
			"+[].bank_account.id": "one payout went to a registered account, whose id it shows",
			"~[].authorization":   "the example's payouts are all completed; the server's list has some in progress",
		}},
		{file: "payments--payout-detail.json", ours: okResp(t, env.sim("/spei", map[string]any{"amount": 700}), 200),
			pick: func(v any) any { return []any{v} }, allow: map[string]string{
				"+[].bank_account.alias": "the payer's account of an incoming transfer lacks alias in this example alone",
			}},
		{file: "transfers--transfers-between-customers.json", ours: tr, allow: noOperationDate},
		{file: "transfers--get-a-transfer.json", ours: okResp(t, env.get(transfers+"/"+idOf(t, tr)), 200), allow: noOperationDate},
		{file: "transfers--list-of-transfers.json", ours: okResp(t, env.get(transfers), 200), allow: map[string]string{
			"+[].operation_date": "the server sends it on every transaction; this example lacks it",
		}},
		{file: "fees--charging-a-fee.json", ours: feeAnswer, allow: noOperationDate},
		{file: "fees--fee-list.json", ours: okResp(t, env.get("/fees"), 200), allow: map[string]string{
			"+[].operation_date": "the server sends it on every transaction; this example lacks it",
		}},
		{file: "fees--refund-fee.json", ours: okResp(t, env.post("/fees/"+idOf(t, feeAnswer)+"/refund", map[string]any{"description": "fee refund"}), 200)},
	}
}

func recurringShapes(t *testing.T) []shapeCase {
	env := newTestEnv(t, Options{})
	plan := okResp(t, env.post("/plans", planBody()), 200)
	planID := idOf(t, plan)
	newPlan(t, env, "name", "Curso de aleman", "trial_days", 60)
	updated := okResp(t, env.put("/plans/"+planID, map[string]any{"name": "Curso de aleman", "trial_days": 60}), 200)

	cu := newCustomer(t, env, false)
	card := storedCard(t, env, "/customers/"+cu, "4111111111111111")
	created := okResp(t, env.post(subPath(cu), map[string]any{"plan_id": planID, "source_id": card}), 200)
	subID := idOf(t, created)
	update := okResp(t, env.put(subPath(cu, "/", subID), map[string]any{"trial_end_date": "2026-05-11"}), 200)
	okResp(t, env.post(subPath(cu), map[string]any{"plan_id": planID, "card": inlineCard("343434343434343")}), 200)

	// The subscription's card is the stored card, as the card API shows it:
	// with its id, creation date and customer, which the create, get,
	// update and list examples leave out (the object example has the last
	// two).
	subCard := map[string]string{
		"+card.id":            "the subscription charges a stored card, which has an id",
		"+card.creation_date": "the subscription charges a stored card, which has a creation date",
		"+card.customer_id":   "the subscription charges the customer's card",
	}
	return []shapeCase{
		{file: "plans--create-a-new-plan.json", ours: plan},
		{file: "plans--get-a-plan.json", ours: okResp(t, env.get("/plans/"+planID), 200)},
		{file: "plans--plan-object.json", ours: plan},
		{file: "plans--update-existing-plans.json", ours: updated},
		{file: "plans--plan-list.json", ours: okResp(t, env.get("/plans"), 200)},
		{file: "subscriptions--create-a-new-subscription.json", ours: created, allow: subCard},
		{file: "subscriptions--get-a-subscription.json", ours: okResp(t, env.get(subPath(cu, "/", subID)), 200), allow: subCard},
		{file: "subscriptions--subscription-object.json", ours: created, allow: map[string]string{
			"+card.id":          "the subscription charges a stored card, which has an id",
			"+card.address":     "the object example's card alone lacks address; the other subscription examples send null",
			"~card.customer_id": "the example's card belongs to no customer; the server's is the customer's",
		}},
		{file: "subscriptions--updating-a-subscription.json", ours: update, allow: subCard},
		{file: "subscriptions--subscription-list.json", ours: okResp(t, env.get(subPath(cu)), 200), allow: map[string]string{
			"+[].card.id":            "the subscription charges a stored card, which has an id",
			"+[].card.creation_date": "the subscription charges a stored card, which has a creation date",
			"+[].card.customer_id":   "the subscription charges the customer's card",
		}},
	}
}

func otherShapes(t *testing.T) []shapeCase {
	env := newTestEnv(t, Options{})
	stores := env.do(http.MethodGet, storeQuery("20.618171", "-100.421865", "5", "100"), "", nil)
	require.Equal(t, http.StatusOK, stores.status, "body: %s", stores.body)
	first := func(v any) any {
		list, _ := v.([]any)
		require.NotEmpty(t, list)
		return list[0]
	}

	rc := newReceiver(t, nil)
	hook := okResp(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded", "charge.refunded")), http.StatusCreated)
	okResp(t, env.post("/webhooks", map[string]any{"url": rc.srv.URL, "event_types": []string{"payout.created"}}), http.StatusCreated)
	return []shapeCase{
		{file: "stores--get-list-of-shops-by-location.json", ours: stores},
		{file: "stores--store-object.json", ours: stores, pick: first},
		{file: "common_objects--object-geolocation.json", ours: stores, pick: member("geolocation")},
		{file: "common_objects--object-paynetchain.json", ours: stores, pick: member("paynet_chain")},
		{file: "webhooks--webhook-object.json", ours: hook, allow: map[string]string{
			"-password": "write-only: the gateway never returns it (openapi.yaml), nor does the server",
		}},
		{file: "webhooks--webhook-creation.json", ours: hook},
		{file: "webhooks--get-a-webhook.json", ours: okResp(t, env.get("/webhooks/"+idOf(t, hook)), 200)},
		{file: "webhooks--webhook-list.json", ours: okResp(t, env.get("/webhooks"), 200), allow: map[string]string{
			"+[].user": "one of the server's webhooks was created with a user; the example's have none",
		}},
	}
}

// TestSameShapeCanFail keeps the comparison honest: a missing key, a null
// for a value, a value of another type, a key the example lacks and an
// allowance not needed are all differences.
func TestSameShapeCanFail(t *testing.T) {
	t.Parallel()
	ex := map[string]any{"amount": 100.0, "status": "completed", "card": map[string]any{"brand": "visa"},
		"error_message": nil, "conciliated": false, "list": []any{map[string]any{"a": 1.0}}}
	good := func() map[string]any {
		return map[string]any{"amount": 5.0, "status": "x", "card": map[string]any{"brand": "mc"},
			"error_message": nil, "conciliated": true, "list": []any{map[string]any{"a": 2.0}}}
	}
	change := func(k string, v any) map[string]any {
		o := good()
		if v == nil && k[0] == '-' {
			delete(o, k[1:])
			return o
		}
		o[k] = v
		return o
	}
	assert.Empty(t, sameShape(ex, good(), nil))
	for name, ours := range map[string]map[string]any{
		"a null key left out":      change("-error_message", nil),
		"a false key left out":     change("-conciliated", nil),
		"a string for a null":      change("error_message", "declined"),
		"a null for a string":      change("status", nil),
		"a string for a number":    change("amount", "5"),
		"a nested type":            change("card", map[string]any{"brand": 1.0}),
		"a nested key left out":    change("card", map[string]any{}),
		"a key the example lacks":  change("new", 1.0),
		"an empty list":            change("list", []any{}),
		"a list element's type":    change("list", []any{map[string]any{"a": "2"}}),
		"an object for a null key": change("error_message", map[string]any{}),
	} {
		assert.NotEmpty(t, sameShape(ex, ours, nil), name)
	}
	assert.Empty(t, sameShape(ex, change("new", 1.0), map[string]string{"+new": "why"}))
	assert.Empty(t, sameShape(ex, change("-conciliated", nil), map[string]string{"-conciliated": "why"}))
	assert.Empty(t, sameShape(ex, change("status", nil), map[string]string{"~status": "why"}))
	assert.NotEmpty(t, sameShape(ex, change("status", 1.0), map[string]string{"~status": "why"}), "~ only excuses a null")
	assert.NotEmpty(t, sameShape(ex, good(), map[string]string{"+new": "why"}), "an allowance not needed")
	assert.Empty(t, sameShape(ex, change("list", []any{map[string]any{"a": 2.0, "b": 1.0}}), map[string]string{"+list[].b": "why"}))
}
