package refserver

import (
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/internal/openapidoc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The loose forms of reqbody/lenient.go, over raw HTTP. Each accepted case is run on
// two servers that are twins (same id seed, same fake clock, same base URL,
// same setup): one gets the canonical body, the other the loose one, and
// both answers, and the stored object read back, must be the same JSON.

// looseTwin starts a server whose ids and answers repeat from one twin to
// the other.
func looseTwin(t *testing.T) *testEnv {
	seed := int64(11)
	return newTestEnv(t, Options{IDSeed: &seed, BaseURL: "http://refserver.test"})
}

// looseSetup creates, in a fixed order, what the cases refer to, and
// returns the ids by placeholder ("{card}" and so on).
func looseSetup(t *testing.T, env *testEnv) *strings.Replacer {
	t.Helper()
	ids := map[string]string{}
	ids["card"] = storedCard(t, env, "", "5105105105105100") // has a points programme
	fund(t, env, "", "1000.00")
	cu := createCustomerHTTP(t, env, "Ana", true)
	ids["customer"] = cu
	fund(t, env, cu, "500.00")
	ids["other"] = createCustomerHTTP(t, env, "Bea", true)
	ids["bank"] = requireOK(t, env.post("/customers/"+cu+"/bankaccounts",
		map[string]any{"holder_name": "Ana", "clabe": clabeBancomer}), http.StatusOK)["id"].(string)
	ids["custcard"] = storedCard(t, env, "/customers/"+cu, "4111111111111111")
	ids["custcard2"] = storedCard(t, env, "/customers/"+cu, "5555555555554444")
	ids["plan"] = newPlan(t, env)
	ids["sub"] = requireOK(t, env.post("/customers/"+cu+"/subscriptions",
		map[string]any{"plan_id": ids["plan"], "source_id": ids["custcard"]}), http.StatusOK)["id"].(string)
	ids["preauth"] = requireOK(t, env.post("/charges", cardCharge(ids["card"], "capture", false)), http.StatusOK)["id"].(string)
	ids["charge"] = requireOK(t, env.post("/charges", cardCharge(ids["card"])), http.StatusOK)["id"].(string)
	ids["checkout"] = requireOK(t, env.post("/checkouts", map[string]any{"amount": 10, "description": "Link"}), http.StatusOK)["id"].(string)
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(ids)) {
		pairs = append(pairs, "{"+k+"}", ids[k])
	}
	return strings.NewReplacer(pairs...)
}

// looseCase is one accepted loose form: loose must be read as canonical.
type looseCase struct {
	rule, name       string // rule: its name in reqbody/lenient.go and openapi.yaml
	method, path     string // under the main merchant; placeholders of looseSetup
	canonical, loose string // JSON bodies
	read             string // the stored object to compare, "{id}" the answer's id
}

const (
	chargeBody = `"method":"card","source_id":"{card}","description":"Cargo","order_id":"o1"`
	planFields = `"name":"Curso","retry_times":2,"status_after_retry":"cancelled","trial_days":30`
	storeBody  = `"method":"store","amount":20,"description":"Tienda"`
)

var looseCases = []looseCase{
	// number-strings
	{"number-strings", "charge amount", "POST", "/charges",
		`{` + chargeBody + `,"amount":493}`, `{` + chargeBody + `,"amount":"493.00"}`, "/charges/{id}"},
	{"number-strings", "capture amount", "POST", "/charges/{preauth}/capture",
		`{"amount":50}`, `{"amount":"50.00"}`, "/charges/{preauth}"},
	{"number-strings", "refund amount", "POST", "/charges/{charge}/refund",
		`{"amount":10}`, `{"amount":"10"}`, "/charges/{charge}"},
	{"number-strings", "payout amount", "POST", "/customers/{customer}/payouts",
		`{"method":"bank_account","destination_id":"{bank}","amount":10.5,"description":"Retiro"}`,
		`{"method":"bank_account","destination_id":"{bank}","amount":"10.50","description":"Retiro"}`,
		"/customers/{customer}/payouts/{id}"},
	{"number-strings", "transfer amount", "POST", "/customers/{customer}/transfers",
		`{"customer_id":"{other}","amount":5.25,"description":"Pago"}`,
		`{"customer_id":"{other}","amount":"5.25","description":"Pago"}`, "/customers/{customer}/transfers/{id}"},
	{"number-strings", "fee amount", "POST", "/fees",
		`{"customer_id":"{customer}","amount":1.5,"description":"Comision"}`,
		`{"customer_id":"{customer}","amount":"1.50","description":"Comision"}`, "/fees/{id}"},
	{"number-strings", "plan amount and integers", "POST", "/plans",
		`{"name":"Curso","amount":150,"repeat_every":1,"repeat_unit":"month","retry_times":2,"status_after_retry":"cancelled","trial_days":30}`,
		`{"name":"Curso","amount":"150.00","repeat_every":"1","repeat_unit":"month","retry_times":"2","status_after_retry":"cancelled","trial_days":"30"}`,
		"/plans/{id}"},
	{"number-strings", "plan update trial_days", "PUT", "/plans/{plan}", `{"trial_days":5}`, `{"trial_days":"5"}`, "/plans/{plan}"},
	{"number-strings", "payment plan payments", "POST", "/charges",
		`{` + chargeBody + `,"amount":900,"payment_plan":{"payments":6}}`,
		`{` + chargeBody + `,"amount":900,"payment_plan":{"payments":"6"}}`, "/charges/{id}"},

	// integral-numbers
	{"integral-numbers", "plan integers", "POST", "/plans",
		`{"amount":150,"repeat_every":1,"repeat_unit":"month",` + planFields + `}`,
		`{"amount":150,"repeat_every":1.0,"repeat_unit":"month","name":"Curso","retry_times":2e0,"status_after_retry":"cancelled","trial_days":"30.0"}`,
		"/plans/{id}"},
	{"integral-numbers", "payment plan payments", "POST", "/charges",
		`{` + chargeBody + `,"amount":900,"payment_plan":{"payments":6}}`,
		`{` + chargeBody + `,"amount":900,"payment_plan":{"payments":6.0}}`, "/charges/{id}"},

	// numeric-strings
	{"numeric-strings", "charge order_id", "POST", "/charges",
		`{"method":"card","source_id":"{card}","description":"Cargo","amount":408,"order_id":"8576"}`,
		`{"method":"card","source_id":"{card}","description":"Cargo","amount":408,"order_id":8576}`, "/charges/{id}"},
	{"numeric-strings", "payout order_id", "POST", "/customers/{customer}/payouts",
		`{"method":"bank_account","destination_id":"{bank}","amount":1,"description":"Retiro","order_id":"201139"}`,
		`{"method":"bank_account","destination_id":"{bank}","amount":1,"description":"Retiro","order_id":201139}`,
		"/customers/{customer}/payouts/{id}"},
	{"numeric-strings", "transfer order_id", "POST", "/customers/{customer}/transfers",
		`{"customer_id":"{other}","amount":2,"description":"Pago","order_id":"77"}`,
		`{"customer_id":"{other}","amount":2,"description":"Pago","order_id":77}`, "/customers/{customer}/transfers/{id}"},
	{"numeric-strings", "fee order_id", "POST", "/fees",
		`{"customer_id":"{customer}","amount":2,"description":"Comision","order_id":"78"}`,
		`{"customer_id":"{customer}","amount":2,"description":"Comision","order_id":78}`, "/fees/{id}"},
	{"numeric-strings", "token card data", "POST", "/tokens",
		`{"holder_name":"Ana","card_number":"4111111111111111","cvv2":"123","expiration_month":"1","expiration_year":"30"}`,
		`{"holder_name":"Ana","card_number":4111111111111111,"cvv2":123,"expiration_month":1,"expiration_year":30}`, "/tokens/{id}"},
	{"numeric-strings", "card data", "POST", "/customers/{customer}/cards",
		`{"holder_name":"Ana","card_number":"4242424242424242","cvv2":"123","expiration_month":"12","expiration_year":"30"}`,
		`{"holder_name":"Ana","card_number":4242424242424242,"cvv2":123,"expiration_month":12,"expiration_year":30}`,
		"/customers/{customer}/cards/{id}"},
	{"numeric-strings", "card update", "PUT", "/customers/{customer}/cards/{custcard}",
		`{"expiration_month":"11","expiration_year":"31"}`, `{"expiration_month":11,"expiration_year":31}`,
		"/customers/{customer}/cards/{custcard}"},

	// boolean-strings
	{"boolean-strings", "charge capture and send_email", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"capture":false,"send_email":true}`,
		`{` + chargeBody + `,"amount":10,"capture":"false","send_email":"true"}`, "/charges/{id}"},
	{"boolean-strings", "charge use_3d_secure", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"use_3d_secure":true,"redirect_url":"https://shop.example.com/back"}`,
		`{` + chargeBody + `,"amount":10,"use_3d_secure":"true","redirect_url":"https://shop.example.com/back"}`, "/charges/{id}"},
	{"boolean-strings", "customer requires_account", "POST", "/customers",
		`{"name":"Eva","email":"eva@example.com","requires_account":true}`,
		`{"name":"Eva","email":"eva@example.com","requires_account":"true"}`, "/customers/{id}"},
	{"boolean-strings", "subscription cancel_at_period_end", "PUT", "/customers/{customer}/subscriptions/{sub}",
		`{"cancel_at_period_end":true}`, `{"cancel_at_period_end":"true"}`, "/customers/{customer}/subscriptions/{sub}"},

	// enum-case
	{"enum-case", "charge method and currency", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"currency":"MXN"}`,
		`{"method":"CARD","source_id":"{card}","description":"Cargo","order_id":"o1","amount":10,"currency":"mxn"}`, "/charges/{id}"},
	{"enum-case", "charge use_card_points", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"use_card_points":"ONLY_POINTS"}`,
		`{` + chargeBody + `,"amount":10,"use_card_points":"only_points"}`, "/charges/{id}"},
	{"enum-case", "store charge method", "POST", "/charges", `{` + storeBody + `}`,
		`{"method":"Store","amount":20,"description":"Tienda"}`, "/charges/{id}"},
	{"enum-case", "payout method", "POST", "/customers/{customer}/payouts",
		`{"method":"bank_account","destination_id":"{bank}","amount":1,"description":"Retiro"}`,
		`{"method":"BANK_ACCOUNT","destination_id":"{bank}","amount":1,"description":"Retiro"}`,
		"/customers/{customer}/payouts/{id}"},
	{"enum-case", "plan enums", "POST", "/plans",
		`{"amount":150,"repeat_every":1,"repeat_unit":"month","currency":"MXN",` + planFields + `}`,
		`{"amount":150,"repeat_every":1,"repeat_unit":"MONTH","currency":"Mxn","name":"Curso","retry_times":2,"status_after_retry":"CANCELLED","trial_days":30}`,
		"/plans/{id}"},
	{"enum-case", "webhook event types", "POST", "/webhooks",
		`{"url":"http://127.0.0.1:1/hooks","event_types":["charge.succeeded","charge.refunded"]}`,
		`{"url":"http://127.0.0.1:1/hooks","event_types":["CHARGE.SUCCEEDED","Charge.Refunded"]}`, "/webhooks/{id}"},

	// card-points-boolean
	{"card-points-boolean", "string true is MIXED", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"use_card_points":"MIXED"}`,
		`{` + chargeBody + `,"amount":10,"use_card_points":"true"}`, "/charges/{id}"},
	{"card-points-boolean", "true is MIXED", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"use_card_points":"MIXED"}`,
		`{` + chargeBody + `,"amount":10,"use_card_points":true}`, "/charges/{id}"},
	{"card-points-boolean", "string false is NONE", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"use_card_points":"NONE"}`,
		`{` + chargeBody + `,"amount":10,"use_card_points":"false"}`, "/charges/{id}"},
	{"card-points-boolean", "false is NONE", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"use_card_points":"NONE"}`,
		`{` + chargeBody + `,"amount":10,"use_card_points":false}`, "/charges/{id}"},

	// confirm-string
	{"confirm-string", "string false is the payment form", "POST", "/customers/{customer}/charges",
		`{"method":"card","amount":10,"description":"Form","confirm":false,"redirect_url":"https://shop.example.com/back"}`,
		`{"method":"card","amount":10,"description":"Form","confirm":"false","redirect_url":"https://shop.example.com/back"}`,
		"/charges/{id}"},
	{"confirm-string", "true is an ordinary charge", "POST", "/charges",
		`{` + chargeBody + `,"amount":10}`, `{` + chargeBody + `,"amount":10,"confirm":true}`, "/charges/{id}"},
	{"confirm-string", "string true is an ordinary charge", "POST", "/charges",
		`{` + chargeBody + `,"amount":10}`, `{` + chargeBody + `,"amount":10,"confirm":"true"}`, "/charges/{id}"},

	// member-aliases
	{"member-aliases", "subscription create", "POST", "/customers/{customer}/subscriptions",
		`{"plan_id":"{plan}","source_id":"{custcard2}"}`, `{"plan_id":"{plan}","card_id":"{custcard2}"}`,
		"/customers/{customer}/subscriptions/{id}"},
	{"member-aliases", "subscription update", "PUT", "/customers/{customer}/subscriptions/{sub}",
		`{"source_id":"{custcard2}"}`, `{"card_id":"{custcard2}"}`, "/customers/{customer}/subscriptions/{sub}"},

	// local-due-date
	{"local-due-date", "store charge", "POST", "/charges",
		`{` + storeBody + `,"due_date":"2026-03-12T10:30:00-06:00"}`,
		`{` + storeBody + `,"due_date":"2026-03-12T10:30:00"}`, "/charges/{id}"},
	{"local-due-date", "bank charge", "POST", "/charges",
		`{"method":"bank_account","amount":20,"description":"SPEI","due_date":"2026-03-12T10:30:00-06:00"}`,
		`{"method":"bank_account","amount":20,"description":"SPEI","due_date":"2026-03-12T10:30:00"}`, "/charges/{id}"},

	// checkout-expiration
	{"checkout-expiration", "ISO with an offset", "POST", "/checkouts",
		`{"amount":10,"description":"Link","expiration_date":"2026-03-12 10:30"}`,
		`{"amount":10,"description":"Link","expiration_date":"2026-03-12T10:30:00-06:00"}`, "/checkouts/{id}"},
	{"checkout-expiration", "ISO without an offset, as .NET sends it", "POST", "/checkouts",
		`{"amount":10,"description":"Link","expiration_date":"2026-03-12 10:30"}`,
		`{"amount":10,"description":"Link","expiration_date":"2026-03-12T10:30:00.000"}`, "/checkouts/{id}"},
	{"checkout-expiration", "update", "PUT", "/checkouts/{checkout}?status=available",
		`{"expiration_date":"2026-03-13 08:00"}`, `{"expiration_date":"2026-03-13T14:00:00Z"}`, "/checkouts/{checkout}"},

	// relative-redirect
	{"relative-redirect", "alipay to a path", "POST", "/charges",
		`{"method":"alipay","amount":20,"description":"Wallet","redirect_url":"https://shop.example.com/"}`,
		`{"method":"alipay","amount":20,"description":"Wallet","redirect_url":"/"}`, "/charges/{id}"},
	{"relative-redirect", "3-D Secure without a scheme", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"use_3d_secure":true,"redirect_url":"https://shop.example.com/back"}`,
		`{` + chargeBody + `,"amount":10,"use_3d_secure":true,"redirect_url":"shop.example.com/back"}`, "/charges/{id}"},

	// iva-number
	{"iva-number", "card charge", "POST", "/charges",
		`{` + chargeBody + `,"amount":10,"iva":"1.90"}`, `{` + chargeBody + `,"amount":10,"iva":1.90}`, "/charges/{id}"},

	// unknown-members
	{"unknown-members", "charge", "POST", "/charges",
		`{` + chargeBody + `,"amount":10}`, `{` + chargeBody + `,"amount":10,"origin_channel":"PLUGIN_WOOCOMMERCE","affiliation_bbva":"720931"}`,
		"/charges/{id}"},
	{"unknown-members", "subscription", "POST", "/customers/{customer}/subscriptions",
		`{"plan_id":"{plan}","source_id":"{custcard2}"}`,
		`{"plan_id":"{plan}","source_id":"{custcard2}","trial_end":"2026-04-01","trial_days":"30"}`,
		"/customers/{customer}/subscriptions/{id}"},
	// read-echo: the subscription as read (looseSetup's, on {custcard}
	// 4111111111111111, in its trial), sent back with one change.
	{"read-echo", "subscription save", "PUT", "/customers/{customer}/subscriptions/{sub}",
		`{"cancel_at_period_end":true}`,
		`{"id":"{sub}","status":null,"cancel_at_period_end":true,"plan_id":"{plan}","customer_id":"{customer}",` +
			`"creation_date":"2026-03-10T12:00:00-06:00","charge_date":"2026-04-09","current_period_number":0,` +
			`"period_end_date":"2026-04-08","trial_end_date":"2026-04-08",` +
			`"card":{"id":"{custcard}","card_number":"411111XXXXXX1111","holder_name":"Juan Perez","expiration_year":"30",` +
			`"expiration_month":"12","address":null,"allows_charges":true,"allows_payouts":true,"brand":"visa",` +
			`"type":"debit","bank_name":"Banamex","bank_code":"002","customer_id":"{customer}"}}`,
		"/customers/{customer}/subscriptions/{sub}"},
	{"unknown-members", "webhook", "POST", "/webhooks",
		`{"url":"http://127.0.0.1:1/hooks","event_types":["charge.succeeded"]}`,
		`{"url":"http://127.0.0.1:1/hooks","event_types":["charge.succeeded"],"force_host_ssl":true}`, "/webhooks/{id}"},
}

func TestLooseFormsReadAsCanonical(t *testing.T) {
	t.Parallel()
	for _, c := range looseCases {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			t.Parallel()
			canonical, loose := looseTwin(t), looseTwin(t)
			r := looseSetup(t, canonical)
			require.Equal(t, canonical.m.ID, loose.m.ID, "the twins must be alike")
			looseSetup(t, loose)
			send := func(env *testEnv, body string) resp {
				return env.do(c.method, env.mp(r.Replace(c.path)), env.m.PrivateKey, r.Replace(body))
			}
			want := send(canonical, c.canonical)
			require.True(t, want.status/100 == 2, "the canonical form must be accepted: %d %s", want.status, want.body)
			got := send(loose, c.loose)
			require.Equal(t, want.status, got.status, "body: %s", got.body)
			require.JSONEq(t, string(want.body), string(got.body))
			id, _ := want.obj(t)["id"].(string)
			read := strings.ReplaceAll(r.Replace(c.read), "{id}", id)
			stored := canonical.get(read)
			require.Equal(t, http.StatusOK, stored.status, "body: %s", stored.body)
			assert.JSONEq(t, string(stored.body), string(loose.get(read).body))
		})
	}
}

// refusedCase is a form the gateway refuses: loose gets code, and so does
// strict, the same mistake in the canonical JSON type, when there is one.
type refusedCase struct {
	rule, name    string
	method, path  string
	loose, strict string // JSON bodies; strict may be ""
	code          int
	field         string // named in the description
}

var refusedCases = []refusedCase{
	{"number-strings", "amount with three decimals", "POST", "/charges",
		`{` + chargeBody + `,"amount":"12.345"}`, `{` + chargeBody + `,"amount":12.345}`, 1003, "amount"},
	{"number-strings", "negative amount", "POST", "/charges",
		`{` + chargeBody + `,"amount":"-5"}`, `{` + chargeBody + `,"amount":-5}`, 1003, "amount"},
	{"number-strings", "amount not a number", "POST", "/charges", `{` + chargeBody + `,"amount":"abc"}`, "", 1001, "amount"},
	{"number-strings", "amount empty", "POST", "/charges", `{` + chargeBody + `,"amount":""}`, "", 1001, "amount"},
	{"number-strings", "amount with a thousands comma", "POST", "/charges", `{` + chargeBody + `,"amount":"1,000.00"}`, "", 1001, "amount"},
	{"number-strings", "amount with a space", "POST", "/charges", `{` + chargeBody + `,"amount":" 5"}`, "", 1001, "amount"},
	{"number-strings", "amount in hexadecimal", "POST", "/charges", `{` + chargeBody + `,"amount":"0x10"}`, "", 1001, "amount"},
	{"number-strings", "amount huge exponent", "POST", "/charges",
		`{` + chargeBody + `,"amount":"1e999999"}`, `{` + chargeBody + `,"amount":1e999999}`, 1001, "amount"},
	{"number-strings", "refund amount three decimals", "POST", "/charges/{charge}/refund",
		`{"amount":"1.005"}`, `{"amount":1.005}`, 1003, "amount"},
	{"number-strings", "payout amount not a number", "POST", "/customers/{customer}/payouts",
		`{"method":"bank_account","destination_id":"{bank}","amount":"diez","description":"Retiro"}`, "", 1001, "amount"},
	{"number-strings", "trial_days not a number", "POST", "/plans",
		`{"amount":150,"repeat_every":1,"repeat_unit":"month","name":"Curso","retry_times":2,"status_after_retry":"cancelled","trial_days":"treinta"}`,
		"", 1001, "trial_days"},
	{"integral-numbers", "a fraction for an integer", "POST", "/plans",
		`{"amount":150,"repeat_every":1.5,"repeat_unit":"month",` + planFields + `}`, "", 1001, "repeat_every"},
	{"integral-numbers", "a fraction string for an integer", "PUT", "/plans/{plan}", `{"trial_days":"1.5"}`, "", 1001, "trial_days"},
	{"integral-numbers", "an integer too large", "PUT", "/plans/{plan}", `{"trial_days":1e19}`, "", 1001, "trial_days"},
	{"integral-numbers", "an exponent too large", "PUT", "/plans/{plan}", `{"trial_days":"1e999999999"}`, "", 1001, "trial_days"},
	{"integral-numbers", "payments a fraction", "POST", "/charges",
		`{` + chargeBody + `,"amount":900,"payment_plan":{"payments":6.5}}`, "", 1001, "payment_plan.payments"},
	{"numeric-strings", "order_id negative", "POST", "/charges", `{` + chargeBody + `,"amount":1,"order_id":-5}`, "", 1001, "order_id"},
	{"numeric-strings", "order_id a boolean", "POST", "/charges", `{` + chargeBody + `,"amount":1,"order_id":true}`, "", 1001, "order_id"},
	{"numeric-strings", "description a number", "POST", "/charges",
		`{"method":"card","source_id":"{card}","amount":1,"description":5}`, "", 1001, "description"},
	{"boolean-strings", "capture maybe", "POST", "/charges", `{` + chargeBody + `,"amount":1,"capture":"maybe"}`, "", 1001, "capture"},
	{"boolean-strings", "capture upper case", "POST", "/charges", `{` + chargeBody + `,"amount":1,"capture":"FALSE"}`, "", 1001, "capture"},
	{"boolean-strings", "capture a number", "POST", "/charges", `{` + chargeBody + `,"amount":1,"capture":0}`, "", 1001, "capture"},
	{"boolean-strings", "requires_account yes", "POST", "/customers",
		`{"name":"Eva","email":"eva@example.com","requires_account":"yes"}`, "", 1001, "requires_account"},
	{"enum-case", "unknown currency", "POST", "/charges",
		`{` + chargeBody + `,"amount":1,"currency":"xyz"}`, `{` + chargeBody + `,"amount":1,"currency":"XYZ"}`, 1003, "currency"},
	{"enum-case", "unknown method", "POST", "/charges",
		`{"method":"CASH","amount":1,"description":"d"}`, `{"method":"cash","amount":1,"description":"d"}`, 1003, "method"},
	{"enum-case", "unknown payout method", "POST", "/customers/{customer}/payouts",
		`{"method":"SPEI","destination_id":"{bank}","amount":1,"description":"Retiro"}`, "", 1003, "method"},
	{"enum-case", "unknown repeat_unit", "POST", "/plans",
		`{"amount":150,"repeat_every":1,"repeat_unit":"DAY",` + planFields + `}`,
		`{"amount":150,"repeat_every":1,"repeat_unit":"day",` + planFields + `}`, 1003, "repeat_unit"},
	{"enum-case", "unknown event type", "POST", "/webhooks",
		`{"url":"http://127.0.0.1:1/hooks","event_types":["CHARGE.NOPE"]}`, "", 1003, "event_types"},
	{"enum-case", "use_card_points unknown", "POST", "/charges",
		`{` + chargeBody + `,"amount":1,"use_card_points":"all"}`, `{` + chargeBody + `,"amount":1,"use_card_points":"ALL"}`, 1003, "use_card_points"},
	{"card-points-boolean", "use_card_points a number", "POST", "/charges",
		`{` + chargeBody + `,"amount":1,"use_card_points":1}`, "", 1001, "use_card_points"},
	{"confirm-string", "confirm yes", "POST", "/customers/{customer}/charges",
		`{"method":"card","amount":10,"description":"Form","confirm":"yes","redirect_url":"https://shop.example.com/back"}`, "", 1003, "confirm"},
	{"confirm-string", "confirm a number", "POST", "/customers/{customer}/charges",
		`{"method":"card","amount":10,"description":"Form","confirm":0,"redirect_url":"https://shop.example.com/back"}`, "", 1003, "confirm"},
	{"member-aliases", "card_id and card", "POST", "/customers/{customer}/subscriptions",
		`{"plan_id":"{plan}","card_id":"{custcard2}","card":{"holder_name":"Ana","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}}`,
		`{"plan_id":"{plan}","source_id":"{custcard2}","card":{"holder_name":"Ana","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}}`,
		1001, "source_id"},
	{"read-echo", "another card masked", "PUT", "/customers/{customer}/subscriptions/{sub}",
		`{"cancel_at_period_end":true,"card":{"card_number":"555555XXXXXX4444","holder_name":"Juan Perez","expiration_year":"30","expiration_month":"12"}}`,
		"", 1001, "card.card_number"},
	{"read-echo", "a masked card on creation", "POST", "/customers/{customer}/subscriptions",
		`{"plan_id":"{plan}","card":{"card_number":"411111XXXXXX1111","holder_name":"Juan Perez","expiration_year":"30","expiration_month":"12"}}`,
		"", 1001, "card.card_number"},
	{"member-aliases", "card_id unknown", "POST", "/customers/{customer}/subscriptions",
		`{"plan_id":"{plan}","card_id":"knothere"}`, `{"plan_id":"{plan}","source_id":"knothere"}`, 1005, "knothere"},
	{"member-aliases", "card_id null", "POST", "/customers/{customer}/subscriptions",
		`{"plan_id":"{plan}","card_id":null}`, `{"plan_id":"{plan}","source_id":null}`, 1001, "source_id"},
	{"member-aliases", "card_id on a charge", "POST", "/charges",
		`{"method":"card","card_id":"{card}","amount":1,"description":"d"}`, "", 1001, "source_id"},
	{"local-due-date", "due_date not a date", "POST", "/charges", `{` + storeBody + `,"due_date":"12/03/2026"}`, "", 1001, "due_date"},
	{"local-due-date", "due_date past in local time", "POST", "/charges",
		`{` + storeBody + `,"due_date":"2026-03-10T11:59:00"}`, `{` + storeBody + `,"due_date":"2026-03-10T11:59:00-06:00"}`, 1003, "due_date"},
	{"checkout-expiration", "expiration_date not a date", "POST", "/checkouts",
		`{"amount":10,"description":"Link","expiration_date":"12/03/2026 10:30"}`, "", 1001, "expiration_date"},
	{"checkout-expiration", "a bare day", "POST", "/checkouts",
		`{"amount":10,"description":"Link","expiration_date":"2026-03-12"}`, "", 1001, "expiration_date"},
	{"checkout-expiration", "expiration past in local time", "POST", "/checkouts",
		`{"amount":10,"description":"Link","expiration_date":"2026-03-10T11:59:00"}`,
		`{"amount":10,"description":"Link","expiration_date":"2026-03-10 11:59"}`, 1003, "expiration_date"},
	{"relative-redirect", "redirect_url with spaces", "POST", "/charges",
		`{"method":"alipay","amount":20,"description":"Wallet","redirect_url":"not a url"}`, "", 1003, "redirect_url"},
	{"relative-redirect", "redirect_url empty", "POST", "/charges",
		`{"method":"alipay","amount":20,"description":"Wallet","redirect_url":""}`, "", 1003, "redirect_url"},
	{"relative-redirect", "redirect_url unparsable", "POST", "/charges",
		`{"method":"alipay","amount":20,"description":"Wallet","redirect_url":"http://[::1"}`, "", 1003, "redirect_url"},
	{"relative-redirect", "webhook url still absolute", "POST", "/webhooks",
		`{"url":"/hooks","event_types":["charge.succeeded"]}`, "", 1003, "url"},
	{"iva-number", "iva negative", "POST", "/charges", `{` + storeBody + `,"iva":-19}`, "", 1001, "iva"},
	{"iva-number", "iva with three decimals", "POST", "/charges", `{` + storeBody + `,"iva":1.905}`, `{` + storeBody + `,"iva":"1.905"}`, 1003, "iva"},
}

func TestLooseFormsRefusedAsBefore(t *testing.T) {
	t.Parallel()
	env := looseTwin(t)
	r := looseSetup(t, env)
	for _, c := range refusedCases {
		t.Run(c.rule+"/"+c.name, func(t *testing.T) {
			send := func(body string) resp {
				return env.do(c.method, env.mp(r.Replace(c.path)), env.m.PrivateKey, r.Replace(body))
			}
			desc := requireError(t, send(c.loose), c.code)
			assert.Contains(t, desc, r.Replace(c.field))
			if c.strict != "" {
				requireError(t, send(c.strict), c.code)
			}
		})
	}
}

// TestGatewayRefusalsSeen: the refusals facts-vendor.md records next to the
// loose forms (section 1, errors seen).
func TestGatewayRefusalsSeen(t *testing.T) {
	t.Parallel()
	env := looseTwin(t)
	r := looseSetup(t, env)
	// source_id null: 400/1001.
	desc := requireError(t, env.post("/charges", r.Replace(`{"method":"card","amount":"493.00","currency":"mxn","source_id":null,`+
		`"device_session_id":"","description":"Items","order_id":201139,"use_card_points":"false","capture":true}`)), 1001)
	assert.Contains(t, desc, "source_id")
	// address.line2 over 50 characters.
	address := func(line2 string) map[string]any {
		return map[string]any{"name": "Eva", "email": "eva@example.com", "address": map[string]any{"line1": "Av 1", "line2": line2,
			"state": "JA", "city": "Zapopan", "postal_code": "45000", "country_code": "MX"}}
	}
	requireOK(t, env.post("/customers", address(strings.Repeat("l", 50))), http.StatusOK)
	desc = requireError(t, env.post("/customers", address(strings.Repeat("l", 51))), 1003)
	assert.Contains(t, desc, "address.line2")
	// A token used once: 422/1003 on the next use.
	tok := requireOK(t, env.post("/tokens", validCard("4111111111111111")), http.StatusOK)["id"].(string)
	charge := map[string]any{"method": "card", "source_id": tok, "amount": 408, "currency": "mxn", "description": "d", "order_id": 8576}
	requireOK(t, env.post("/charges", charge), http.StatusOK)
	requireError(t, env.post("/charges", with(charge, "order_id", 8577)), 1003)
}

// TestLooseRulesDocumented: openapi.yaml lists, under
// components.x-openpay-lenient, exactly the rules the cases above exercise,
// each with an accepted and a refused case.
func TestLooseRulesDocumented(t *testing.T) {
	t.Parallel()
	doc, err := openapidoc.Load(openAPIPath)
	require.NoError(t, err)
	ext, ok := doc.Components.Extensions["x-openpay-lenient"].(map[string]any)
	require.True(t, ok, "components.x-openpay-lenient must map rule names to their descriptions")
	accepted, refused := map[string]bool{}, map[string]bool{}
	for _, c := range looseCases {
		accepted[c.rule] = true
	}
	for _, c := range refusedCases {
		refused[c.rule] = true
	}
	documented := slices.Sorted(maps.Keys(ext))
	assert.Equal(t, documented, slices.Sorted(maps.Keys(accepted)), "every documented rule has accepted cases, and only those")
	for _, rule := range documented {
		if rule != "unknown-members" { // nothing a client sends is refused for being unknown
			assert.True(t, refused[rule], "rule %s has no refused case", rule)
		}
		text, _ := ext[rule].(string)
		assert.NotEmpty(t, strings.TrimSpace(text), "rule %s is described", rule)
	}
	// reqbody/lenient.go's table names the same rules.
	src, err := os.ReadFile(filepath.Join("reqbody", "lenient.go"))
	require.NoError(t, err)
	table := regexp.MustCompile(`(?m)^//\t([a-z-]+) {2,}`).FindAllStringSubmatch(string(src), -1)
	var inCode []string
	for _, m := range table {
		if m[1] != "rule" {
			inCode = append(inCode, m[1])
		}
	}
	assert.Equal(t, documented, slices.Sorted(slices.Values(inCode)), "lenient.go's table")
}

// TestMemberTypeErrorsNameTheirPath checks the error of a member of the
// wrong type: it names the member with its dotted path, nested or not.
func TestMemberTypeErrorsNameTheirPath(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{cardCharge("", "source_id", nil, "card", with(validCard("4111111111111111"), "holder_name", 5)), "'card.holder_name' must be a string"},
		{cardCharge("", "source_id", nil, "card", with(validCard("4111111111111111"), "address", with(map[string]any{}, "city", true))), "'card.address.city' must be a string"},
		{cardCharge("kxyz", "amount", "many"), "'amount' must be a number"},
		{cardCharge("kxyz", "capture", "perhaps"), "'capture' has the wrong type"},
	} {
		assert.Contains(t, requireError(t, env.post("/charges", c.body), 1001), c.want)
	}
}
