package openpay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	. "github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/testseam"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specPath is the interface specification: the gateway's published
// interface, copied from the project's shared spec folder so that every clone
// has it (TestTestdataMatchesSharedSpec keeps the copy faithful).
const specPath = "../../testdata/api-spec.md"

// openAPIPath is the module's OpenAPI document, the one description of the
// wire.
const openAPIPath = "../../openapi.yaml"

// Prefixes that api-spec.md abbreviates as P and C.
const (
	merchantPrefix = "/v1/{merchant_id}"
	customerPrefix = merchantPrefix + "/customers/{customer_id}"
)

func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(openAPIPath)
	require.NoError(t, err, "openapi.yaml must load")
	return doc
}

// readSpec returns api-spec.md.
func readSpec(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(specPath)
	require.NoError(t, err)
	return string(b)
}

// specSection returns the text of the numbered top-level section ("## 4. ...")
// up to the next top-level section.
func specSection(t *testing.T, spec string, n int) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^## ` + strconv.Itoa(n) + `\. `)
	loc := re.FindStringIndex(spec)
	require.NotNil(t, loc, "section %d of the spec", n)
	rest := spec[loc[1]:]
	if end := regexp.MustCompile(`(?m)^## \d+\. `).FindStringIndex(rest); end != nil {
		rest = rest[:end[0]]
	}
	return rest
}

// normalizePath replaces every path parameter name with {} so that paths
// compare independently of how their parameters are spelled.
func normalizePath(p string) string {
	return regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(p, "{}")
}

// operationIndex maps "METHOD normalized-path" to the operation.
func operationIndex(doc *openapi3.T) map[string]*openapi3.Operation {
	idx := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			idx[method+" "+normalizePath(path)] = op
		}
	}
	return idx
}

func TestOpenAPIDocumentValidates(t *testing.T) {
	doc := loadOpenAPI(t)
	require.NoError(t, doc.Validate(context.Background()), "openapi.yaml must be a valid OpenAPI 3.0 document")
	assert.Equal(t, "3.0.3", doc.OpenAPI)
}

func TestOpenAPIServersAndSecurity(t *testing.T) {
	doc := loadOpenAPI(t)
	var urls []string
	for _, s := range doc.Servers {
		urls = append(urls, s.URL)
	}
	for _, country := range []string{"mx", "co", "pe"} {
		assert.Contains(t, urls, "https://sandbox-api.openpay."+country)
		assert.Contains(t, urls, "https://api.openpay."+country)
	}

	scheme := doc.Components.SecuritySchemes["basicAuth"]
	require.NotNil(t, scheme)
	assert.Equal(t, "http", scheme.Value.Type)
	assert.Equal(t, "basic", scheme.Value.Scheme)
	require.Len(t, doc.Security, 1)
	assert.Contains(t, doc.Security[0], "basicAuth")

	// The store lookup is the one operation without credentials.
	stores := doc.Paths.Value("/stores")
	require.NotNil(t, stores)
	require.NotNil(t, stores.Get.Security)
	assert.Empty(t, *stores.Get.Security)
	for _, name := range []string{"latitud", "longitud", "kilometers", "amount"} {
		p := stores.Get.Parameters.GetByInAndName("query", name)
		if assert.NotNil(t, p, "stores parameter %s", name) {
			assert.True(t, p.Required, "stores parameter %s is required", name)
		}
	}
}

// TestOpenAPIHasEverySpecPath checks that every path the interface names in
// its resource tables (section 1) and endpoint descriptions (section 4)
// exists in openapi.yaml, and that the method section 4 gives it exists too.
func TestOpenAPIHasEverySpecPath(t *testing.T) {
	spec := readSpec(t)
	doc := loadOpenAPI(t)
	ops := operationIndex(doc)
	paths := map[string]bool{}
	for p := range doc.Paths.Map() {
		paths[normalizePath(p)] = true
	}

	expand := func(abbrev string) string {
		switch {
		case abbrev == "P" || strings.HasPrefix(abbrev, "P/"):
			return merchantPrefix + strings.TrimPrefix(abbrev, "P")
		case abbrev == "C" || strings.HasPrefix(abbrev, "C/"):
			return customerPrefix + strings.TrimPrefix(abbrev, "C")
		}
		t.Fatalf("not an abbreviated path: %q", abbrev)
		return ""
	}

	// Section 1: two tables of collection and item paths, one per scope.
	var section1 []string
	prefix := ""
	for _, line := range strings.Split(specSection(t, spec, 1), "\n") {
		switch {
		case strings.HasPrefix(line, "Merchant scope"):
			prefix = "P"
		case strings.HasPrefix(line, "Customer scope"):
			prefix = "C"
		case prefix != "" && strings.HasPrefix(line, "| /"):
			for _, cell := range strings.Split(strings.Trim(line, "| "), "|") {
				cell = strings.TrimSpace(cell)
				if strings.HasPrefix(cell, "/") {
					section1 = append(section1, expand(prefix+cell))
				}
			}
		}
	}
	require.Len(t, section1, 2*(7+6), "section 1 should yield the 13 collections and 13 item paths")
	for _, p := range section1 {
		assert.True(t, paths[normalizePath(p)], "section 1 path %s is missing from openapi.yaml", p)
	}

	// Section 4: backticked P/... and C/... paths, each with the HTTP method
	// written before it (inside or outside the backticks). A path without a
	// method of its own ("GET `P/x` or `C/x`") takes the last one seen.
	methodPath := regexp.MustCompile("(GET|POST|PUT|DELETE)?\\s*`(?:(GET|POST|PUT|DELETE) )?([PC](?:/[^`\\s]*)?)`")
	type endpoint struct{ method, path string }
	var section4 []endpoint
	for _, line := range strings.Split(specSection(t, spec, 4), "\n") {
		method := ""
		for _, m := range methodPath.FindAllStringSubmatch(line, -1) {
			switch {
			case m[2] != "":
				method = m[2]
			case m[1] != "":
				method = m[1]
			}
			section4 = append(section4, endpoint{method, expand(m[3])})
		}
	}
	require.GreaterOrEqual(t, len(section4), 40, "section 4 should name many endpoints; has the spec's format changed?")
	for _, e := range section4 {
		assert.True(t, paths[normalizePath(e.path)], "section 4 path %s is missing from openapi.yaml", e.path)
		if e.method != "" {
			_, ok := ops[e.method+" "+normalizePath(e.path)]
			assert.True(t, ok, "section 4 operation %s %s is missing from openapi.yaml", e.method, e.path)
		}
	}

	// Section 4.10: the store lookup, outside the version and merchant prefix.
	require.Contains(t, spec, "{base_url}/stores?")
	_, ok := ops["GET /stores"]
	assert.True(t, ok, "the store lookup GET /stores is missing")
}

// TestOpenAPIErrorCodes checks ErrorCode against the tables of section 7: the
// enum and the x-error-codes extension both list every code, with the HTTP
// status the spec gives it.
func TestOpenAPIErrorCodes(t *testing.T) {
	spec := readSpec(t)
	doc := loadOpenAPI(t)

	want := map[int]int{} // code -> HTTP status
	section7 := specSection(t, spec, 7)
	for _, m := range regexp.MustCompile(`(?m)^\| (\d{4}) \| (\d{3}) \|`).FindAllStringSubmatch(section7, -1) {
		code, _ := strconv.Atoi(m[1])
		status, _ := strconv.Atoi(m[2])
		want[code] = status
	}
	for _, m := range regexp.MustCompile(`code: (\d{4}), HTTP (\d{3})`).FindAllStringSubmatch(section7, -1) {
		code, _ := strconv.Atoi(m[1])
		status, _ := strconv.Atoi(m[2])
		want[code] = status
	}
	require.GreaterOrEqual(t, len(want), 32, "section 7 should define at least 32 codes")
	require.NotContains(t, want, 3007, "3007 is not defined by the spec")

	ref := doc.Components.Schemas["ErrorCode"]
	require.NotNil(t, ref)
	schema := ref.Value
	assert.True(t, schema.Type.Is("integer"))
	assert.Equal(t, "Code", schema.Extensions["x-go-type"])

	enum := map[int]bool{}
	for _, v := range schema.Enum {
		f, ok := v.(float64)
		require.True(t, ok, "enum value %v is not a number", v)
		enum[int(f)] = true
	}

	type entry struct {
		Code       int    `json:"code"`
		HTTPStatus int    `json:"http_status"`
		Category   string `json:"category"`
		Meaning    string `json:"meaning"`
	}
	raw, ok := schema.Extensions["x-error-codes"].([]any)
	require.True(t, ok, "ErrorCode needs an x-error-codes list")
	listed := map[int]entry{}
	for _, item := range raw {
		m, ok := item.(map[string]any)
		require.True(t, ok, "x-error-codes entry %v is not an object", item)
		e := entry{}
		if f, ok := m["code"].(float64); ok {
			e.Code = int(f)
		}
		if f, ok := m["http_status"].(float64); ok {
			e.HTTPStatus = int(f)
		}
		e.Category, _ = m["category"].(string)
		e.Meaning, _ = m["meaning"].(string)
		require.NotContains(t, listed, e.Code, "code %d listed twice", e.Code)
		listed[e.Code] = e
		assert.Contains(t, []string{"request", "internal", "gateway"}, e.Category, "category of %d", e.Code)
		assert.NotEmpty(t, e.Meaning, "meaning of %d", e.Code)
		assert.NotEmpty(t, http.StatusText(e.HTTPStatus), "status of %d", e.Code)
	}

	for code, status := range want {
		assert.True(t, enum[code], "code %d missing from the ErrorCode enum", code)
		if assert.Contains(t, listed, code, "code %d missing from x-error-codes", code) {
			assert.Equal(t, status, listed[code].HTTPStatus, "HTTP status of code %d", code)
		}
	}
	// Nothing beyond the spec.
	for code := range enum {
		assert.Contains(t, want, code, "the ErrorCode enum lists %d, which the spec does not define", code)
	}
	for code := range listed {
		assert.Contains(t, want, code, "x-error-codes lists %d, which the spec does not define", code)
	}
	// Card declines are the gateway's; the two service-side failures are internal.
	for code, e := range listed {
		if code >= 3000 && code < 4000 {
			assert.Equal(t, "gateway", e.Category, "category of %d", code)
		}
	}
	assert.Equal(t, "internal", listed[1000].Category)
	assert.Equal(t, "internal", listed[1004].Category)
}

// TestOpenAPIOperations checks what every operation must carry.
func TestOpenAPIOperations(t *testing.T) {
	doc := loadOpenAPI(t)
	seen := map[string]string{}
	camel := regexp.MustCompile(`^[a-z]+[A-Za-z]*$`)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if !assert.NotEmpty(t, op.OperationID, "%s has no operationId", where) {
				continue
			}
			assert.Regexp(t, camel, op.OperationID, "%s: operationId is not camelCase", where)
			if prev, dup := seen[op.OperationID]; dup {
				t.Errorf("operationId %s used by both %s and %s", op.OperationID, prev, where)
			}
			seen[op.OperationID] = where
			assert.NotEmpty(t, op.Tags, "%s has no tag", where)

			success := 0
			for code, resp := range op.Responses.Map() {
				if len(code) == 3 && code[0] == '2' {
					success++
					switch {
					case code == "204":
						assert.Empty(t, resp.Value.Content, "%s: a 204 has no body", where)
					case slices.Contains(op.Tags, "Antifraud"):
						// What the browser library reads: a parenthesised
						// object and an HTML fragment.
						assert.Len(t, resp.Value.Content, 1, "%s: %s has one body type", where, code)
					default:
						assert.NotNil(t, resp.Value.Content.Get("application/json"), "%s: %s must have a JSON body", where, code)
					}
				}
			}
			// One success response, but for the creates that answer 201
			// in Peru and 200 elsewhere (facts-vendor.md: the vendor's
			// Peru suite), which document both.
			if peruCreated[op.OperationID] {
				assert.NotNil(t, op.Responses.Status(200), "%s: 200 outside Peru", where)
				assert.NotNil(t, op.Responses.Status(201), "%s: 201 in Peru", where)
				success--
			}
			assert.Equal(t, 1, success, "%s must document exactly one success response", where)
			def := op.Responses.Default()
			if assert.NotNil(t, def, "%s has no default (error) response", where) {
				assertErrorBody(t, where, "default", def)
			}
			for code, resp := range op.Responses.Map() {
				if code[0] == '4' || code[0] == '5' {
					assertErrorBody(t, where, code, resp)
				}
			}

			switch {
			case method == http.MethodDelete && !strings.Contains(path, "/payouts/"):
				assert.NotNil(t, op.Responses.Status(204), "%s: deletions answer 204", where)
			case method == http.MethodPost && strings.HasSuffix(path, "/charges"):
				assert.NotNil(t, op.Responses.Status(200), "%s: charge creation answers 200", where)
			}
		}
	}
	assert.GreaterOrEqual(t, len(seen), 90)

	// Success statuses the facts fix.
	assert.NotNil(t, doc.Paths.Value(merchantPrefix+"/webhooks").Post.Responses.Status(201), "webhook creation answers 201")
	assert.NotNil(t, doc.Paths.Value(merchantPrefix+"/webhooks/{webhook_id}/verify/{verification_code}").Post.Responses.Status(204), "webhook verification answers 204")
}

// peruCreated are the operations that answer 201 in Peru and 200 in Mexico
// and Colombia.
var peruCreated = map[string]bool{"createCustomer": true, "createCustomerCard": true, "createCard": true, "createToken": true}

func assertErrorBody(t *testing.T, where, code string, resp *openapi3.ResponseRef) {
	t.Helper()
	mt := resp.Value.Content.Get("application/json")
	if assert.NotNil(t, mt, "%s: %s response has no JSON body", where, code) {
		assert.Equal(t, "#/components/schemas/ErrorResponse", mt.Schema.Ref, "%s: %s response must be an ErrorResponse", where, code)
	}
}

// TestOpenAPIChargeCreationSendsClientIP checks that every charge creation,
// at every scope, declares the X-Forwarded-For header.
func TestOpenAPIChargeCreationSendsClientIP(t *testing.T) {
	doc := loadOpenAPI(t)
	n := 0
	for path, item := range doc.Paths.Map() {
		if item.Post == nil || !strings.HasSuffix(path, "/charges") {
			continue
		}
		n++
		p := item.Post.Parameters.GetByInAndName("header", "X-Forwarded-For")
		if assert.NotNil(t, p, "POST %s lacks the X-Forwarded-For header", path) {
			assert.True(t, p.Required, "POST %s: X-Forwarded-For is required", path)
		}
	}
	assert.GreaterOrEqual(t, n, 4, "charge creation exists at merchant, customer and both group scopes")
}

// TestOpenAPIOperationIDs pins the operationIds the SDK's services are named
// after, with the operation each one names.
func TestOpenAPIOperationIDs(t *testing.T) {
	doc := loadOpenAPI(t)
	got := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got[op.OperationID] = method + " " + path
		}
	}
	const (
		P  = merchantPrefix
		C  = customerPrefix
		G  = "/v1/groups/{group_id}"
		GM = G + "/merchants/{merchant_id}"
	)
	want := map[string]string{
		"createCharge": "POST " + P + "/charges", "createCustomerCharge": "POST " + C + "/charges",
		"listCharges": "GET " + P + "/charges", "listCustomerCharges": "GET " + C + "/charges",
		"getCharge": "GET " + P + "/charges/{transaction_id}", "getCustomerCharge": "GET " + C + "/charges/{transaction_id}",
		"updateCharge": "PUT " + P + "/charges/{transaction_id}", "updateCustomerCharge": "PUT " + C + "/charges/{transaction_id}",
		"captureCharge": "POST " + P + "/charges/{transaction_id}/capture", "captureCustomerCharge": "POST " + C + "/charges/{transaction_id}/capture",
		"refundCharge": "POST " + P + "/charges/{transaction_id}/refund", "refundCustomerCharge": "POST " + C + "/charges/{transaction_id}/refund",
		"cancelCharge": "POST " + P + "/charges/{transaction_id}/cancel", "cancelCustomerCharge": "POST " + C + "/charges/{transaction_id}/cancel",
		"createPSECharge": "POST " + P + "/pse", "createCustomerPSECharge": "POST " + C + "/pse",
		"createPayout": "POST " + P + "/payouts", "createCustomerPayout": "POST " + C + "/payouts",
		"listPayouts": "GET " + P + "/payouts", "listCustomerPayouts": "GET " + C + "/payouts",
		"getPayout": "GET " + P + "/payouts/{transaction_id}", "getCustomerPayout": "GET " + C + "/payouts/{transaction_id}",
		"cancelPayout": "DELETE " + P + "/payouts/{transaction_id}", "cancelCustomerPayout": "DELETE " + C + "/payouts/{transaction_id}",
		"createTransfer": "POST " + C + "/transfers", "listTransfers": "GET " + C + "/transfers", "getTransfer": "GET " + C + "/transfers/{transaction_id}",
		"createFee": "POST " + P + "/fees", "listFees": "GET " + P + "/fees", "getFee": "GET " + P + "/fees/{fee_id}",
		"refundFee":  "POST " + P + "/fees/{fee_id}/refund",
		"createCard": "POST " + P + "/cards", "createCustomerCard": "POST " + C + "/cards",
		"listCards": "GET " + P + "/cards", "listCustomerCards": "GET " + C + "/cards",
		"getCard": "GET " + P + "/cards/{card_id}", "getCustomerCard": "GET " + C + "/cards/{card_id}",
		"updateCard": "PUT " + P + "/cards/{card_id}", "updateCustomerCard": "PUT " + C + "/cards/{card_id}",
		"deleteCard": "DELETE " + P + "/cards/{card_id}", "deleteCustomerCard": "DELETE " + C + "/cards/{card_id}",
		"getCardPoints": "GET " + P + "/cards/{card_id}/points", "getCustomerCardPoints": "GET " + C + "/cards/{card_id}/points",
		"getTokenPoints":    "GET " + P + "/tokens/{token_id}/points",
		"createBankAccount": "POST " + C + "/bankaccounts", "listBankAccounts": "GET " + C + "/bankaccounts",
		"getBankAccount": "GET " + C + "/bankaccounts/{bank_account_id}", "deleteBankAccount": "DELETE " + C + "/bankaccounts/{bank_account_id}",
		"createMerchantBankAccount": "POST " + P + "/bankaccounts", "listMerchantBankAccounts": "GET " + P + "/bankaccounts",
		"getMerchantBankAccount": "GET " + P + "/bankaccounts/{bank_account_id}", "deleteMerchantBankAccount": "DELETE " + P + "/bankaccounts/{bank_account_id}",
		"createCustomer": "POST " + P + "/customers", "listCustomers": "GET " + P + "/customers",
		"getCustomer": "GET " + P + "/customers/{customer_id}", "updateCustomer": "PUT " + P + "/customers/{customer_id}",
		"deleteCustomer": "DELETE " + P + "/customers/{customer_id}",
		"createPlan":     "POST " + P + "/plans", "listPlans": "GET " + P + "/plans", "getPlan": "GET " + P + "/plans/{plan_id}",
		"updatePlan": "PUT " + P + "/plans/{plan_id}", "deletePlan": "DELETE " + P + "/plans/{plan_id}",
		"listPlanSubscriptions": "GET " + P + "/plans/{plan_id}/subscriptions",
		"getBin":                "GET " + P + "/bines/{bin}",
		"getBinCardType":        "GET " + P + "/bines/man/{bin}",
		"getBinPromotions":      "GET " + P + "/bines/{bin}/promotions",
		"validateBin":           "GET /v1/cards/validate-bin",
		"getPlanSubscription":   "GET " + P + "/plans/{plan_id}/subscriptions/{subscription_id}",
		"createSubscription":    "POST " + C + "/subscriptions", "listSubscriptions": "GET " + C + "/subscriptions",
		"getSubscription":    "GET " + C + "/subscriptions/{subscription_id}",
		"updateSubscription": "PUT " + C + "/subscriptions/{subscription_id}",
		"deleteSubscription": "DELETE " + C + "/subscriptions/{subscription_id}",
		"createToken":        "POST " + P + "/tokens", "getToken": "GET " + P + "/tokens/{token_id}",
		"listTokens":             "GET " + P + "/tokens",
		"getFeesReport":          "GET " + P + "/reports/fees",
		"listFeesReportDetail":   "GET " + P + "/reports/fees/detail",
		"getPayoutReport":        "GET " + P + "/reports/payout/{payout_id}",
		"listPayoutReportDetail": "GET " + P + "/reports/payout/{payout_id}/detail",
		"getMerchant":            "GET " + P, "listStores": "GET /stores",
		"getAntifraudKeys": "GET " + P + "/antifraudkeys", "getAntifraudComponents": "GET /antifraud/{merchant_id}/components",
		"createWebhook": "POST " + P + "/webhooks", "listWebhooks": "GET " + P + "/webhooks",
		"getWebhook": "GET " + P + "/webhooks/{webhook_id}", "deleteWebhook": "DELETE " + P + "/webhooks/{webhook_id}",
		"verifyWebhook":       "POST " + P + "/webhooks/{webhook_id}/verify/{verification_code}",
		"createGroupCustomer": "POST " + G + "/customers", "listGroupCustomers": "GET " + G + "/customers",
		"getGroupCustomer":                   "GET " + G + "/customers/{customer_id}",
		"updateGroupCustomer":                "PUT " + G + "/customers/{customer_id}",
		"deleteGroupCustomer":                "DELETE " + G + "/customers/{customer_id}",
		"createGroupCustomerCard":            "POST " + G + "/customers/{customer_id}/cards",
		"listGroupCustomerCards":             "GET " + G + "/customers/{customer_id}/cards",
		"getGroupCustomerCard":               "GET " + G + "/customers/{customer_id}/cards/{card_id}",
		"updateGroupCustomerCard":            "PUT " + G + "/customers/{customer_id}/cards/{card_id}",
		"deleteGroupCustomerCard":            "DELETE " + G + "/customers/{customer_id}/cards/{card_id}",
		"createGroupMerchantCharge":          "POST " + GM + "/charges",
		"captureGroupMerchantCharge":         "POST " + GM + "/charges/{transaction_id}/capture",
		"refundGroupMerchantCharge":          "POST " + GM + "/charges/{transaction_id}/refund",
		"createGroupMerchantCustomerCharge":  "POST " + GM + "/customers/{customer_id}/charges",
		"captureGroupMerchantCustomerCharge": "POST " + GM + "/customers/{customer_id}/charges/{transaction_id}/capture",
		"refundGroupMerchantCustomerCharge":  "POST " + GM + "/customers/{customer_id}/charges/{transaction_id}/refund",
		"createGroupMerchantSubscription":    "POST " + GM + "/customers/{customer_id}/subscriptions",
		"listGroupMerchantSubscriptions":     "GET " + GM + "/customers/{customer_id}/subscriptions",
		"getGroupMerchantSubscription":       "GET " + GM + "/customers/{customer_id}/subscriptions/{subscription_id}",
		"updateGroupMerchantSubscription":    "PUT " + GM + "/customers/{customer_id}/subscriptions/{subscription_id}",
		"deleteGroupMerchantSubscription":    "DELETE " + GM + "/customers/{customer_id}/subscriptions/{subscription_id}",
		"createCheckout":                     "POST " + P + "/checkouts", "createCustomerCheckout": "POST " + C + "/checkouts",
		"listCheckouts": "GET " + P + "/checkouts", "listCustomerCheckouts": "GET " + C + "/checkouts",
		"getCheckout": "GET " + P + "/checkouts/{checkout_id}", "getCustomerCheckout": "GET " + C + "/checkouts/{checkout_id}",
		"updateCheckout": "PUT " + P + "/checkouts/{checkout_id}",
	}
	for id, op := range want {
		assert.Equal(t, op, got[id], "operationId %s", id)
	}
	var extra []string
	for id := range got {
		if _, ok := want[id]; !ok {
			extra = append(extra, id)
		}
	}
	sort.Strings(extra)
	assert.Empty(t, extra, "operations not pinned by this test: add them to the table")
}

// TestOpenAPIPathParameters checks the identifier rule: every path parameter
// is a required string of at most 45 characters (the 8-character webhook
// verification code aside).
func TestOpenAPIPathParameters(t *testing.T) {
	doc := loadOpenAPI(t)
	for path, item := range doc.Paths.Map() {
		for _, name := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1) {
			p := item.Parameters.GetByInAndName("path", name[1])
			if !assert.NotNil(t, p, "%s: parameter %s is not declared on the path", path, name[1]) {
				continue
			}
			assert.True(t, p.Required)
			s := p.Schema.Value
			assert.True(t, s.Type.Is("string"), "%s: %s is a string", path, name[1])
			if assert.NotNil(t, s.MaxLength, "%s: %s has a maxLength", path, name[1]) {
				want := uint64(45)
				if name[1] == "verification_code" {
					want = 8
				}
				assert.Equal(t, want, *s.MaxLength, "%s: maxLength of %s", path, name[1])
			}
		}
	}
}

// TestOpenAPIListParameters checks the shared list parameters and that every
// paged list uses them.
func TestOpenAPIListParameters(t *testing.T) {
	doc := loadOpenAPI(t)
	params := doc.Components.Parameters
	limit := params["limit"].Value.Schema.Value
	assert.Equal(t, "limit", params["limit"].Value.Name)
	assert.EqualValues(t, 10, limit.Default)
	assert.EqualValues(t, 1, *limit.Min)
	assert.EqualValues(t, 100, *limit.Max)
	offset := params["offset"].Value.Schema.Value
	assert.EqualValues(t, 0, offset.Default)
	assert.EqualValues(t, 0, *offset.Min)
	for _, name := range []string{"creation", "creation[gte]", "creation[lte]"} {
		found := false
		for _, p := range params {
			if p.Value.Name == name {
				found = true
				assert.Equal(t, "date", p.Value.Schema.Value.Format, "%s is a yyyy-mm-dd date", name)
			}
		}
		assert.True(t, found, "list parameter %s", name)
	}

	for path, item := range doc.Paths.Map() {
		op := item.Get
		if op == nil || op.Responses.Status(200) == nil {
			continue
		}
		jsonBody := op.Responses.Status(200).Value.Content.Get("application/json")
		if jsonBody == nil {
			continue
		}
		body := jsonBody.Schema.Value
		if !body.Type.Is("array") || path == "/stores" || strings.HasSuffix(path, "/points") || strings.HasSuffix(path, "/webhooks") {
			continue
		}
		names := []string{"offset", "limit", "creation", "creation[gte]", "creation[lte]"}
		if strings.Contains(path, "/reports/") {
			// A report's detail is already bounded (a month, a payout):
			// the vendor's clients page it and filter nothing else.
			names = names[:2]
		}
		for _, name := range names {
			assert.NotNil(t, op.Parameters.GetByInAndName("query", name), "GET %s lacks the list parameter %s", path, name)
		}
	}
	charges := doc.Paths.Value(merchantPrefix + "/charges").Get
	for _, name := range []string{"order_id", "amount", "amount[gte]", "amount[lte]", "status"} {
		assert.NotNil(t, charges.Parameters.GetByInAndName("query", name), "charge list filter %s", name)
	}
	status := charges.Parameters.GetByInAndName("query", "status").Schema.Value
	for _, v := range status.Enum {
		s := v.(string)
		assert.Equal(t, strings.ToUpper(s), s, "status filter values are upper case")
	}
	assert.NotNil(t, doc.Paths.Value(merchantPrefix+"/customers").Get.Parameters.GetByInAndName("query", "external_id"))
	assert.NotNil(t, doc.Paths.Value(merchantPrefix+"/payouts").Get.Parameters.GetByInAndName("query", "payout_type"))
}

// TestOpenAPISchemaRules spot-checks constraints of section 8 by validating
// values against the schemas, so a constraint that is written but does not
// bite is caught.
func TestOpenAPISchemaRules(t *testing.T) {
	doc := loadOpenAPI(t)
	schema := func(name string) *openapi3.Schema {
		ref := doc.Components.Schemas[name]
		require.NotNil(t, ref, "schema %s", name)
		return ref.Value
	}
	prop := func(schemaName, propName string) *openapi3.Schema {
		p := schema(schemaName).Properties[propName]
		require.NotNil(t, p, "%s.%s", schemaName, propName)
		return p.Value
	}
	ok := func(s *openapi3.Schema, v any) {
		t.Helper()
		assert.NoError(t, s.VisitJSON(v), "%v should be accepted", v)
	}
	bad := func(s *openapi3.Schema, v any) {
		t.Helper()
		assert.Error(t, s.VisitJSON(v), "%v should be refused", v)
	}

	amount := prop("CardCharge", "amount")
	for _, v := range []float64{0.01, 0.07, 19.99, 100, 1234.56, 99999.99} {
		ok(amount, v)
	}
	for _, v := range []float64{0, -1, 1.005, 0.001} {
		bad(amount, v)
	}
	transfer := prop("TransferRequest", "amount")
	ok(transfer, 1.01)
	bad(transfer, 1.0)
	bad(transfer, 0.5)

	card := prop("CardDetails", "card_number")
	for _, v := range []string{"4111111111111111", "4242424242424242", "5555555555554444", "345678000000007", "343434343434343", "4111111111111111111"} {
		ok(card, v)
	}
	for _, v := range []string{"411111111111111", "41111111111111111", "4111 1111 1111 1111", "34567800000000"} {
		bad(card, v)
	}
	cvv := prop("CardDetails", "cvv2")
	ok(cvv, "123")
	ok(cvv, "1234")
	bad(cvv, "12")
	bad(cvv, "12345")

	maxLen := map[string]uint64{
		"CardCharge.description": 250, "CardCharge.order_id": 100, "CardCharge.source_id": 45,
		"CardCharge.device_session_id": 255, "CardDetails.holder_name": 80, "BankAccountRequest.holder_name": 80,
		"BankAccountRequest.alias": 45, "BankAccountRequest.clabe": 45, "PlanRequest.name": 255, "PlanUpdateRequest.name": 80,
		"TransferRequest.description": 250, "BankAccountPayout.description": 250, "TransferRequest.customer_id": 45,
		"TokenCardRequest.token_id": 45,
	}
	for field, want := range maxLen {
		s, p, _ := strings.Cut(field, ".")
		v := prop(s, p)
		if assert.NotNil(t, v.MaxLength, "%s has a maxLength", field) {
			assert.Equal(t, want, *v.MaxLength, "maxLength of %s", field)
		}
	}

	ok(prop("CardCharge", "currency"), "USD")
	bad(prop("CardCharge", "currency"), "EUR")
	payments := prop("PaymentPlan", "payments")
	for _, v := range []any{3.0, 6.0, 9.0, 12.0, 18.0, "6", 2.0, 36.0, "24"} { // Mexico's, and Colombia's 2 to 36
		ok(payments, v)
	}
	for _, v := range []any{1.0, 37.0, "1", "40", 4.5} {
		bad(payments, v)
	}
	ok(prop("PaymentPlan", "payments_type"), "WITH_INTEREST")
	bad(prop("PaymentPlan", "payments_type"), "with interest")
	ok(prop("CardCharge", "use_card_points"), "ONLY_POINTS")
	bad(prop("CardCharge", "use_card_points"), "SOME")

	// The loose response fields accept both spellings.
	ok(prop("PointsBalance", "remaining_points"), "300")
	ok(prop("PointsBalance", "remaining_points"), 300.0)
	ok(prop("ErrorResponse", "http_code"), 404.0)
	ok(prop("ErrorResponse", "http_code"), "404")
	ok(schema("FlexInt"), "404")
	ok(schema("FlexString"), 4913.0)
}

// TestOpenAPIErrorResponsesMatchCodes checks that every error code an
// operation's error response names has, in x-error-codes, the HTTP status
// the response is documented under.
func TestOpenAPIErrorResponsesMatchCodes(t *testing.T) {
	doc := loadOpenAPI(t)
	status := map[int]int{}
	for _, item := range doc.Components.Schemas["ErrorCode"].Value.Extensions["x-error-codes"].([]any) {
		m := item.(map[string]any)
		status[int(m["code"].(float64))] = int(m["http_status"].(float64))
	}
	codeRe := regexp.MustCompile(`\b(\d{4}):`)
	checked := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code, resp := range op.Responses.Map() {
				if code[0] != '4' && code[0] != '5' {
					continue
				}
				want, err := strconv.Atoi(code)
				require.NoError(t, err)
				codes := codeRe.FindAllStringSubmatch(*resp.Value.Description, -1)
				assert.NotEmpty(t, codes, "%s %s: response %s names no error code", method, path, code)
				for _, c := range codes {
					n, _ := strconv.Atoi(c[1])
					if assert.Contains(t, status, n, "%s %s: response %s names unknown code %d", method, path, code, n) {
						assert.Equal(t, want, status[n], "%s %s: code %d is documented under %s", method, path, n, code)
					}
					checked++
				}
			}
		}
	}
	assert.Greater(t, checked, 300)
}

// TestOpenAPIRequestVariants encodes a typical value of every generated
// request variant and validates it against the request body of the operation
// that takes it: each must match exactly one branch of the oneOf, so the
// variants are told apart by their fields alone.
func TestOpenAPIRequestVariants(t *testing.T) {
	doc := loadOpenAPI(t)
	body := func(path, method string) *openapi3.Schema {
		op := doc.Paths.Value(path).GetOperation(method)
		require.NotNil(t, op, "%s %s", method, path)
		return op.RequestBody.Value.Content.Get("application/json").Schema.Value
	}
	validate := func(s *openapi3.Schema, v any) error {
		b, err := json.Marshal(testseam.WireForm(v)) // the body as the client sends it: with the members the SDK writes itself (a variant's method), card data in clear

		require.NoError(t, err)
		var generic any
		require.NoError(t, json.Unmarshal(b, &generic))
		return s.VisitJSON(generic, openapi3.EnableFormatValidation())
	}
	amount := MustAmount("250.00")
	card := CardDetails{CardNumber: "4111111111111111", HolderName: "Juan Perez", ExpirationYear: "29", ExpirationMonth: "12", CVV2: "123"}
	customer := &ChargeCustomer{Name: "Juan", Email: "juan@example.com"}
	no := false

	charges := map[string]any{
		"CardCharge": CardCharge{SourceID: "kqgykn96i7bcs1wwhvgw", Amount: amount, Description: "Order 42",
			OrderID: "oid-42", DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f", Capture: &no, Currency: CurrencyMXN,
			PaymentPlan: &PaymentPlan{Payments: 6}, UseCardPoints: UseCardPointsNone, Metadata: Metadata{"sku": "A-1"}},
		"InlineCardCharge": InlineCardCharge{Card: card, Amount: amount, Description: "Order 42"},
		"RedirectCharge": RedirectCharge{Amount: amount, Description: "Order 42", Customer: customer,
			RedirectURL: "https://shop.example.com/back", SendEmail: true},
		"StoreCharge": StoreCharge{Amount: amount, Description: "Order 42", DueDate: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC),
			Currency: CurrencyCOP, IVA: MustAmount("1900")},
		"BankCharge": BankCharge{Amount: amount, Description: "Order 42", Customer: customer},
		"PSECharge": PSECharge{Amount: MustAmount("10000"), Description: "Order 42",
			IVA: MustAmount("1900"), RedirectURL: "/", Customer: &ChargeCustomer{Name: "Ana", Email: "ana@example.co",
				CustomerAddress: &ColombianAddress{Department: "Antioquia", City: "Medellín", Additional: "Calle 10 # 43-12"}}},
		"AlipayCharge": AlipayCharge{Amount: amount, Description: "Order 42", RedirectURL: "https://shop.example.com/back"},
		"IVRCharge":    IVRCharge{Amount: amount, Description: "Order 42", Customer: customer},
	}
	for _, path := range []string{merchantPrefix + "/charges", customerPrefix + "/charges"} {
		s := body(path, http.MethodPost)
		require.Len(t, s.OneOf, len(charges))
		for name, v := range charges {
			assert.NoError(t, validate(s, v), "%s must match exactly one charge variant of POST %s", name, path)
		}
	}
	// An unknown method, or a mix of two variants, is refused.
	s := body(merchantPrefix+"/charges", http.MethodPost)
	wrong := asObject(t, charges["StoreCharge"])
	wrong["method"] = string(ChargeMethodBankAccount) + "x"
	assert.Error(t, validate(s, wrong))
	// The members the SDK writes are on the wire: without them no variant
	// matches.
	for name, v := range charges {
		bare := asObject(t, v)
		delete(bare, "method")
		assert.Error(t, validate(s, bare), "%s without its method", name)
	}
	// A SPEI body with a redirect_url is a PSE body, not both.
	spei := charges["BankCharge"].(BankCharge)
	assert.NoError(t, validate(s, PSECharge{Amount: spei.Amount, Description: spei.Description, RedirectURL: "/"}))
	for _, path := range []string{merchantPrefix + "/pse", customerPrefix + "/pse"} {
		assert.NoError(t, validate(body(path, http.MethodPost), charges["PSECharge"]), "POST %s", path)
	}
	// (An InlineCardCharge embedded in a struct would lend it its masking
	// MarshalJSON, which ignores the other fields: the mix is built as a map.)
	mixed := asObject(t, charges["InlineCardCharge"])
	mixed["source_id"] = "kqgykn96i7bcs1wwhvgw"
	assert.Error(t, validate(s, mixed), "a card and a source_id together match two variants")

	payouts := map[string]any{
		"BankAccountPayout": BankAccountPayout{DestinationID: "b3d54sd3mdjf75udjfvoc", Amount: amount, Description: "Weekly"},
		"InlineBankAccountPayout": InlineBankAccountPayout{Amount: amount, Description: "Weekly",
			BankAccount: BankAccountRequest{CLABE: "012298026516924616", HolderName: "Mi empresa"}},
		"CardPayout": CardPayout{DestinationID: "kqgykn96i7bcs1wwhvgw", Amount: amount, Description: "Weekly"},
		"InlineCardPayout": InlineCardPayout{Amount: amount, Description: "Weekly",
			Card: PayoutCardDetails{CardNumber: "4111111111111111", HolderName: "Juan Perez", BankCode: "002"}},
	}
	for _, path := range []string{merchantPrefix + "/payouts", customerPrefix + "/payouts"} {
		s := body(path, http.MethodPost)
		require.Len(t, s.OneOf, len(payouts))
		for name, v := range payouts {
			assert.NoError(t, validate(s, v), "%s must match exactly one payout variant of POST %s", name, path)
		}
	}

	cards := map[string]any{
		"CardRequest":      CardRequest{Card: CardDetails{CardNumber: "4111111111111111", HolderName: "Juan Perez", ExpirationYear: "29", ExpirationMonth: "12", CVV2: "123"}},
		"TokenCardRequest": TokenCardRequest{TokenID: "k1n0mscnjwhxqia8q7cm", DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"},
	}
	for _, path := range []string{merchantPrefix + "/cards", customerPrefix + "/cards"} {
		s := body(path, http.MethodPost)
		for name, v := range cards {
			assert.NoError(t, validate(s, v), "%s must match exactly one card variant of POST %s", name, path)
		}
	}

	// Single-schema request bodies accept a typical value too.
	singles := []struct {
		method, path string
		v            any
	}{
		{http.MethodPost, customerPrefix + "/transfers", TransferRequest{CustomerID: "a9pvykxz4g5rg0fplze0", Amount: MustAmount("12.50"), Description: "Rent"}},
		{http.MethodPost, merchantPrefix + "/fees", FeeRequest{CustomerID: "dvocf97jd20es3tw5laz", Amount: MustAmount("12.50"), Description: "Fee"}},
		{http.MethodPost, merchantPrefix + "/customers", CustomerRequest{Name: "Juan", Email: "juan@example.com", RequiresAccount: true}},
		{http.MethodPost, merchantPrefix + "/plans", PlanRequest{Name: "Monthly", Amount: MustAmount("150.00"), RepeatEvery: 1,
			RepeatUnit: RepeatUnitMonth, StatusAfterRetry: StatusAfterRetryCancelled, TrialDays: 0}},
		{http.MethodPost, customerPrefix + "/subscriptions", SubscriptionRequest{PlanID: "pbi4kb8hpb64x0uud2eb", SourceID: "kqgykn96i7bcs1wwhvgw"}},
		{http.MethodPost, merchantPrefix + "/webhooks", WebhookRequest{URL: "https://shop.example.com/hooks", EventTypes: []EventType{EventTypeChargeSucceeded}}},
		{http.MethodPost, merchantPrefix + "/tokens", CardDetails{CardNumber: "345678000000007", HolderName: "Juan Perez", ExpirationYear: "29", ExpirationMonth: "01", CVV2: "1234"}},
		{http.MethodPost, merchantPrefix + "/charges/{transaction_id}/capture", CaptureRequest{Amount: MustAmount("100.00")}},
		{http.MethodPost, merchantPrefix + "/charges/{transaction_id}/refund", RefundRequest{Description: "Returned", Amount: MustAmount("50.00")}},
	}
	for _, c := range singles {
		assert.NoError(t, validate(body(c.path, c.method), c.v), "%s %s", c.method, c.path)
	}
	// An amount at or below the limits is refused.
	assert.Error(t, validate(body(customerPrefix+"/transfers", http.MethodPost),
		TransferRequest{CustomerID: "a9pvykxz4g5rg0fplze0", Amount: MustAmount("1.00"), Description: "Rent"}))
}

// asObject is the JSON object the SDK sends for the charge req, card data in
// clear, as a map to alter.
func asObject(t *testing.T, req any) map[string]any {
	t.Helper()
	b, err := json.Marshal(testseam.WireForm(req))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}
