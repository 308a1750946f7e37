package openpay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
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

// examplesDir holds the gateway's documented examples, one JSON value per
// file (see its README.md), copied from the project's shared spec folder so
// that every clone has them (TestTestdataMatchesSharedSpec keeps the copies
// faithful).
const examplesDir = "../../testdata/examples"

// exampleKind says which generated type (and which schema of openapi.yaml,
// of the same name) an example file decodes into.
type exampleKind struct {
	typ    reflect.Type // element type
	list   bool         // the file holds a JSON array of typ
	schema string       // the schema's name when typ is not named after it
}

func (k exampleKind) schemaName() string {
	if k.schema != "" {
		return k.schema
	}
	return k.typ.Name()
}

// errorObject is the kind of the error object, whose Go type is not
// exported.
var errorObject = exampleKind{typ: testseam.ErrorResponse, schema: "ErrorResponse"}

func one[T any]() exampleKind  { return exampleKind{typ: reflect.TypeFor[T]()} }
func many[T any]() exampleKind { return exampleKind{typ: reflect.TypeFor[T](), list: true} }

// exampleTypes classifies every example file. A file missing from this table
// fails the test, so a new example cannot go unchecked.
var exampleTypes = map[string]exampleKind{
	"bank_accounts--bank-account-object.json":       one[BankAccount](),
	"bank_accounts--create-a-bank-account.json":     one[BankAccount](),
	"bank_accounts--get-a-bank-account.json":        one[BankAccount](),
	"bank_accounts--list-of-bank-accounts.json":     many[BankAccount](),
	"cards--card-object.json":                       one[Card](),
	"cards--card-points.json":                       many[PointsBalance](),
	"cards--create-a-card-with-token.json":          one[Card](),
	"cards--create-a-card.json":                     one[Card](),
	"cards--get-a-card.json":                        one[Card](),
	"cards--list-of-cards.json":                     many[Card](),
	"cards--updating-a-card.json":                   {typ: reflect.TypeFor[map[string]any](), schema: "CardUpdateResponse"},
	"charges--charge-via-bank.json":                 one[Transaction](),
	"charges--charge-via-store.json":                one[Transaction](),
	"charges--charge-with-ivr.json":                 one[Transaction](),
	"charges--confirming-a-charge.json":             one[Transaction](),
	"charges--get-a-charge.json":                    one[Transaction](),
	"charges--list-of-charges.json":                 many[Transaction](),
	"charges--refunding-a-charge.json":              one[Transaction](),
	"charges--with-a-card-id-or-token.json":         one[Transaction](),
	"charges--with-alipay.json":                     one[Transaction](),
	"charges--with-redirect.json":                   one[Transaction](),
	"common_objects--address-object.json":           one[Address](),
	"common_objects--cardpoints-object.json":        one[CardPoints](),
	"common_objects--object-geolocation.json":       one[Geolocation](),
	"common_objects--object-paynetchain.json":       one[PaynetChain](),
	"common_objects--paymentplan-object.json":       one[PaymentPlan](),
	"common_objects--store-object.json":             one[StoreReference](), // the store payment reference, not a convenience store
	"customers--create-a-new-customer.json":         one[Customer](),
	"customers--customer-object.json":               one[Customer](),
	"customers--get-an-existing-customer.json":      one[Customer](),
	"customers--update-a-customer.json":             one[Customer](),
	"errors--error-object.json":                     errorObject,
	"fees--charging-a-fee.json":                     one[Transaction](),
	"fees--fee-list.json":                           many[Transaction](),
	"fees--refund-fee.json":                         one[Transaction](),
	"merchant--merchant-object.json":                one[Merchant](),
	"merchant--request-a-merchant-object.json":      one[Merchant](),
	"payments--cancel-a-payout.json":                one[Transaction](),
	"payments--get-a-payout.json":                   one[Transaction](),
	"payments--list-of-payouts.json":                many[Transaction](),
	"payments--payment-to-a-bank-account.json":      one[Transaction](),
	"payments--payout-detail.json":                  many[Transaction](),
	"payments--payout-to-a-registered-id.json":      one[Transaction](),
	"payments--summary-payout-object.json":          one[PayoutSummary](), // operation outside the spec; object kept so it decodes
	"payments--summary-payouts.json":                one[PayoutSummary](),
	"plans--create-a-new-plan.json":                 one[Plan](),
	"plans--get-a-plan.json":                        one[Plan](),
	"plans--plan-list.json":                         many[Plan](),
	"plans--plan-object.json":                       one[Plan](),
	"plans--update-existing-plans.json":             one[Plan](),
	"stores--get-list-of-shops-by-location.json":    many[Store](),
	"stores--store-object.json":                     one[Store](),
	"subscriptions--create-a-new-subscription.json": one[Subscription](),
	"subscriptions--get-a-subscription.json":        one[Subscription](),
	"subscriptions--subscription-list.json":         many[Subscription](),
	"subscriptions--subscription-object.json":       one[Subscription](),
	"subscriptions--updating-a-subscription.json":   one[Subscription](),
	"tokens--create-a-new-token.json":               one[Token](),
	"tokens--get-a-token.json":                      one[Token](),
	"tokens--token-object.json":                     one[Token](),
	"transfers--get-a-transfer.json":                one[Transaction](),
	"transfers--list-of-transfers.json":             many[Transaction](),
	"transfers--transfers-between-customers.json":   one[Transaction](),
	"webhooks--get-a-webhook.json":                  one[Webhook](),
	"webhooks--webhook-creation.json":               one[Webhook](),
	"webhooks--webhook-list.json":                   many[Webhook](),
	"webhooks--webhook-object.json":                 one[Webhook](),
}

// factExample is a response the published examples do not show but the
// facts do (facts.md, facts-vendor.md, the vendor's clients): members the
// gateway sends that the SDK must keep like the examples' own.
type factExample struct {
	name     string
	kind     exampleKind
	member   string // the member the example is about, a JSON path
	evidence string
	body     string
}

var factExamples = []factExample{{
	name: "error with risk_data", kind: errorObject, member: "$.risk_data",
	evidence: "facts.md: some error bodies also carry risk_data {score, rules}; openpay-java " +
		"OpenpayServiceException.riskData, its test of a refused fraud charge expects a score and rules",
	body: `{"category":"gateway","description":"The card was declined","http_code":402,"error_code":3005,` +
		`"request_id":"1981cdb8-19cb-4bad-8256-e95d58bc035c","fraud_rules":["Billing <> BIN Country for VISA/MC"],` +
		`"risk_data":{"score":"0.87","rules":["Billing <> BIN Country for VISA/MC","Velocity: 3 cards in 1 hour"]}}`,
}, {
	name: "error with a numeric risk score", kind: errorObject, member: "$.risk_data.score",
	evidence: "the form of the score is not shown (openpay-java reads it as a string); a number must survive too",
	body: `{"category":"gateway","description":"The card was declined","http_code":402,"error_code":3005,` +
		`"request_id":"r-2","risk_data":{"score":87,"rules":["High risk BIN"]}}`,
}, {
	name: "charge with metadata", kind: one[Transaction](), member: "$.metadata",
	evidence: "api-spec.md 4.1: metadata, a list of key/value; openpay-java Transaction.metadata " +
		"(Map<String,String>), read back from the charge in its card-charge tests",
	body: `{"id":"trzjaozcik8msyqshka4","amount":100.00,"authorization":"801585","method":"card","operation_type":"in",` +
		`"transaction_type":"charge","status":"completed","currency":"MXN","creation_date":"2014-05-26T11:56:25-05:00",` +
		`"operation_date":"2014-05-26T11:56:25-05:00","description":"Cargo inicial","error_message":null,"order_id":"oid-00051",` +
		`"metadata":{"origin":"Mexico","destination":"Puebla","seats":"3"}}`,
}, {
	name: "charge with risk_data", kind: one[Transaction](), member: "$.risk_data",
	evidence: "openpay-java Charge.riskData (\"returns the risk score for certain merchants\"), " +
		"its card-charge test expects a score and rules on the charge",
	body: `{"id":"trzjaozcik8msyqshka5","amount":100.00,"authorization":"801586","method":"card","operation_type":"in",` +
		`"transaction_type":"charge","status":"completed","currency":"MXN","creation_date":"2014-05-26T11:56:25-05:00",` +
		`"description":"Cargo inicial","error_message":null,"order_id":null,"risk_data":{"score":"0.12","rules":["Card seen before"]}}`,
}, {
	name: "failed charge with error_code", kind: one[Transaction](), member: "$.error_code",
	evidence: "openpay-java Transaction.errorCode, added as a field \"the API does return\"",
	body: `{"id":"trzjaozcik8msyqshka6","amount":100.00,"authorization":null,"method":"card","operation_type":"in",` +
		`"transaction_type":"charge","status":"failed","currency":"MXN","creation_date":"2014-05-26T11:56:25-05:00",` +
		`"description":"Cargo inicial","error_message":"The card was declined","error_code":3001,"order_id":null}`,
}}

// TestFactExamplesDecodeWithoutLoss holds the members the facts show to the
// rules of the documented examples: each decodes into its type with
// nothing lost, and matches its schema in openapi.yaml.
func TestFactExamplesDecodeWithoutLoss(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	for _, fx := range factExamples {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			require.Contains(t, fx.body, `"`+fx.member[strings.LastIndexByte(fx.member, '.')+1:]+`"`, "the example carries its member")
			losses, err := roundTripLosses([]byte(fx.body), fx.kind.typ)
			require.NoError(t, err)
			for _, l := range losses {
				t.Errorf("%s: %s (evidence: %s)", l.path, l.what, fx.evidence)
			}
			var v any
			require.NoError(t, json.Unmarshal([]byte(fx.body), &v))
			ref := doc.Components.Schemas[fx.kind.schemaName()]
			require.NotNil(t, ref)
			err = ref.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.EnableFormatValidation())
			for _, se := range schemaErrors(err) {
				t.Errorf("%s: %s", "$"+jsonPointerToPath(se.JSONPointer()), se.Reason)
			}
			if err != nil && len(schemaErrors(err)) == 0 {
				t.Error(err)
			}
		})
	}
}

// exampleFix replaces one value of one example before it is checked: for
// documentation typos that are not JSON the gateway could send.
type exampleFix struct {
	file, path string
	from, to   any
	why        string
}

var exampleFixes = []exampleFix{{
	file: "bank_accounts--bank-account-object.json", path: "$.creation_date",
	from: "2013-11-14T12:29:18-06shell00", to: "2013-11-14T12:29:18-06:00",
	why: "documentation typo: an offset mangled into '-06shell00'; the same object in the list example reads -06:00",
}}

// exampleException is a field of an example that is allowed to land
// nowhere, or a schema violation of openapi.yaml that is allowed, with why.
type exampleException struct {
	file, path string
	why        string
}

// lossExceptions are the only fields allowed to be lost on decoding.
var lossExceptions = []exampleException{{
	file: "merchant--merchant-object.json", path: "$.creationDate",
	why: "documentation typo: camel case in this one example; the response example of the same object, and every other object, use creation_date",
}, {
	file: "webhooks--webhook-object.json", path: "$.password",
	why: "the object example shows the request's password, which the gateway never returns (facts.md): Webhook has no Password",
}}

// schemaExceptions are the only places where an example may break the schema
// of openapi.yaml (path: JSON path of the offending value).
var schemaExceptions = []exampleException{{
	file: "merchant--merchant-object.json", path: "$.creation_date",
	why: "the same camel-case typo: creation_date, required on the merchant, is spelled creationDate",
}, {
	file: "charges--with-redirect.json", path: "$.order_id",
	why: "the one transaction example without order_id; every other one (the wallet charge and the confirmed " +
		"charge among them) sends order_id null when none was given",
}, {
	file: "charges--with-redirect.json", path: "$.customer.address",
	why: "this echo of the payer lacks address; the IVR charge's echo and the created customer send address null",
}, {
	file: "payments--payout-detail.json", path: "$[0].bank_account.alias",
	why: "the payer's account of an incoming SPEI transfer (rfc, no id) lacks alias; every stored account and " +
		"every payout's account send alias null",
}, {
	file: "subscriptions--subscription-object.json", path: "$.card.address",
	why: "the object example's card lacks address; the create, get, update and list examples of subscriptions " +
		"send address null",
}, {
	file: "tokens--create-a-new-token.json", path: "$.card.points_card",
	why: "the operation examples of tokens leave points_card out; the token object example sends points_card false",
}, {
	file: "tokens--get-a-token.json", path: "$.card.points_card",
	why: "as in tokens--create-a-new-token.json",
}}

type exampleFile struct {
	name string
	data []byte
}

// readExamples returns every example file with its fixes applied.
func readExamples(t *testing.T) []exampleFile {
	t.Helper()
	entries, err := os.ReadDir(examplesDir)
	require.NoError(t, err)
	var files []exampleFile
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(examplesDir, e.Name()))
		require.NoError(t, err)
		for _, fix := range exampleFixes {
			if fix.file == e.Name() {
				data = applyFix(t, data, fix)
			}
		}
		files = append(files, exampleFile{e.Name(), data})
	}
	require.Len(t, files, 67, "the examples folder should hold 67 documented examples")
	return files
}

func applyFix(t *testing.T, data []byte, fix exampleFix) []byte {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	obj, ok := v.(map[string]any)
	key, simple := strings.CutPrefix(fix.path, "$.")
	require.True(t, ok && simple && !strings.ContainsAny(key, ".["), "fix %s %s: only top-level keys are supported", fix.file, fix.path)
	require.Equal(t, fix.from, obj[key], "fix %s %s: the value to fix has changed; is the fix still needed?", fix.file, fix.path)
	obj[key] = fix.to
	out, err := json.Marshal(obj)
	require.NoError(t, err)
	return out
}

// TestExamplesClassified checks that the table names every example file and
// nothing else.
func TestExamplesClassified(t *testing.T) {
	files := readExamples(t)
	seen := map[string]bool{}
	for _, f := range files {
		seen[f.name] = true
		assert.Contains(t, exampleTypes, f.name, "example %s has no entry in exampleTypes", f.name)
	}
	for name := range exampleTypes {
		assert.True(t, seen[name], "exampleTypes names %s, which is not in %s", name, examplesDir)
	}
}

// TestExamplesDecodeWithoutLoss decodes every documented example into its
// generated type, encodes it again and reports every field of the original
// that did not survive: a key missing after the round trip, or a value that
// changed. Only the listed exceptions may appear, and each must.
func TestExamplesDecodeWithoutLoss(t *testing.T) {
	files := readExamples(t)
	allowed := map[string]string{}
	for _, e := range lossExceptions {
		allowed[e.file+" "+e.path] = e.why
	}
	used := map[string]bool{}
	for _, f := range files {
		kind, ok := exampleTypes[f.name]
		if !ok {
			continue // reported by TestExamplesClassified
		}
		t.Run(f.name, func(t *testing.T) {
			typ := kind.typ
			if kind.list {
				typ = reflect.SliceOf(typ)
			}
			losses, err := roundTripLosses(f.data, typ)
			require.NoError(t, err)
			for _, l := range losses {
				key := f.name + " " + l.path
				if _, ok := allowed[key]; ok {
					used[key] = true
					continue
				}
				t.Errorf("%s: %s", l.path, l.what)
			}
		})
	}
	for key, why := range allowed {
		assert.True(t, used[key], "exception %q (%s) no longer happens: remove it", key, why)
	}
}

// TestExamplesMatchSchemas validates every documented example against the
// schema of the same name in openapi.yaml, so the document itself (not only
// the Go types) is held to what the gateway really sends.
func TestExamplesMatchSchemas(t *testing.T) {
	files := readExamples(t)
	doc := loadOpenAPI(t)
	allowed := map[string]string{}
	for _, e := range schemaExceptions {
		allowed[e.file+" "+e.path] = e.why
	}
	used := map[string]bool{}
	for _, f := range files {
		kind, ok := exampleTypes[f.name]
		if !ok {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			ref := doc.Components.Schemas[kind.schemaName()]
			require.NotNil(t, ref, "openapi.yaml has no schema %s", kind.schemaName())
			var v any
			require.NoError(t, json.Unmarshal(f.data, &v))
			values := []any{v}
			prefixes := []string{"$"}
			if kind.list {
				arr, ok := v.([]any)
				require.True(t, ok, "a list example must be a JSON array")
				require.NotEmpty(t, arr)
				values, prefixes = arr, nil
				for i := range arr {
					prefixes = append(prefixes, "$["+strconv.Itoa(i)+"]")
				}
			}
			for i, v := range values {
				err := ref.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.EnableFormatValidation())
				for _, se := range schemaErrors(err) {
					path := prefixes[i] + jsonPointerToPath(se.JSONPointer())
					key := f.name + " " + path
					if _, ok := allowed[key]; ok {
						used[key] = true
						continue
					}
					t.Errorf("%s: %s", path, se.Reason)
				}
				if err != nil && len(schemaErrors(err)) == 0 {
					t.Errorf("%s: %v", prefixes[i], err)
				}
			}
		})
	}
	for key, why := range allowed {
		assert.True(t, used[key], "exception %q (%s) no longer happens: remove it", key, why)
	}
}

func schemaErrors(err error) []*openapi3.SchemaError {
	var out []*openapi3.SchemaError
	var walk func(error)
	walk = func(err error) {
		var me openapi3.MultiError
		if errors.As(err, &me) {
			for _, e := range me {
				walk(e)
			}
			return
		}
		var se *openapi3.SchemaError
		if errors.As(err, &se) {
			out = append(out, se)
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

func jsonPointerToPath(ptr []string) string {
	var b strings.Builder
	for _, p := range ptr {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
		} else {
			b.WriteString("." + p)
		}
	}
	return b.String()
}

// A loss is a field of the original JSON that the typed value does not give
// back.
type loss struct {
	path string
	what string
}

// roundTripLosses decodes data into a new value of typ, encodes that value
// again and compares the two JSON documents.
func roundTripLosses(data []byte, typ reflect.Type) ([]loss, error) {
	ptr := reflect.New(typ)
	if err := json.Unmarshal(data, ptr.Interface()); err != nil {
		return nil, fmt.Errorf("decoding into %s: %w", typ, err)
	}
	again, err := json.Marshal(ptr.Interface())
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", typ, err)
	}
	orig, err := decodeNumbers(data)
	if err != nil {
		return nil, err
	}
	back, err := decodeNumbers(again)
	if err != nil {
		return nil, err
	}
	var losses []loss
	compareJSON("$", orig, back, typ, &losses)
	sort.Slice(losses, func(i, j int) bool { return losses[i].path < losses[j].path })
	return losses, nil
}

func decodeNumbers(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Go types that document a value as loose: a number may arrive quoted, or a
// string as a number. For them a quoted number and a number are equal.
var looseTypes = map[reflect.Type]bool{
	reflect.TypeFor[Amount]():  true,
	reflect.TypeFor[Decimal](): true,
	testseam.FlexInt:           true,
	testseam.FlexString:        true,
}

// looseFields are the members that plain fields hold but that their type's
// UnmarshalJSON reads loosely (loose.go), by type and key, with the loose
// type each is read as.
var looseFields = map[reflect.Type]map[string]reflect.Type{
	reflect.TypeFor[PaymentPlan](): {"payments": testseam.FlexInt},
	reflect.TypeFor[Store]():       {"id": testseam.FlexInt, "id_store": testseam.FlexString},
	reflect.TypeFor[RiskData]():    {"score": testseam.FlexString},
	testseam.ErrorResponse:         {"http_code": testseam.FlexInt},
}

// compareJSON reports where back (the round trip) differs from orig. typ is
// the Go type the value at path decoded into (nil when no field took it).
func compareJSON(path string, orig, back any, typ reflect.Type, losses *[]loss) {
	if orig == nil {
		return // null carries nothing to keep
	}
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch o := orig.(type) {
	case map[string]any:
		b, ok := back.(map[string]any)
		if !ok {
			*losses = append(*losses, loss{path, fmt.Sprintf("object became %v", back)})
			return
		}
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := o[k]
			if v == nil {
				continue
			}
			ft := fieldType(typ, k)
			if lt, ok := looseFields[typ][k]; ok {
				ft = lt
			}
			bv, present := b[k]
			switch {
			case present:
				compareJSON(path+"."+k, v, bv, ft, losses)
			case ft != nil && isZeroJSON(v):
				// The value landed in a field and was left out again
				// because it is the zero value (omitzero).
			default:
				*losses = append(*losses, loss{path + "." + k, fmt.Sprintf("lost (value %v)", v)})
			}
		}
	case []any:
		b, ok := back.([]any)
		if !ok || len(b) != len(o) {
			*losses = append(*losses, loss{path, fmt.Sprintf("array became %v", back)})
			return
		}
		var et reflect.Type
		if typ != nil && (typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array) {
			et = typ.Elem()
		}
		for i := range o {
			compareJSON(path+"["+strconv.Itoa(i)+"]", o[i], b[i], et, losses)
		}
	default:
		if !sameScalar(o, back, typ) {
			*losses = append(*losses, loss{path, fmt.Sprintf("value changed from %v to %v", o, back)})
		}
	}
}

func sameScalar(orig, back any, typ reflect.Type) bool {
	if reflect.DeepEqual(orig, back) {
		return true
	}
	on, oNum := numberOf(orig, typ)
	bn, bNum := numberOf(back, typ)
	if oNum && bNum {
		return on.Cmp(bn) == 0
	}
	// The same instant written differently is the same datetime.
	if typ == reflect.TypeFor[time.Time]() {
		os, ok1 := orig.(string)
		bs, ok2 := back.(string)
		if ok1 && ok2 {
			ot, err1 := time.Parse(time.RFC3339Nano, os)
			bt, err2 := time.Parse(time.RFC3339Nano, bs)
			return err1 == nil && err2 == nil && ot.Equal(bt)
		}
	}
	return false
}

// numberOf reads v as an exact number: a JSON number always, a string holding
// a number only where typ is documented loose.
func numberOf(v any, typ reflect.Type) (*big.Rat, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		if !looseTypes[typ] {
			return nil, false
		}
		s = strings.TrimSpace(x)
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case bool:
		return !x
	case string:
		return x == ""
	case json.Number:
		r, ok := new(big.Rat).SetString(x.String())
		return ok && r.Sign() == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// fieldType returns the Go type that receives key when typ is decoded from a
// JSON object, or nil when nothing does.
func fieldType(typ reflect.Type, key string) reflect.Type {
	if typ == nil {
		return nil
	}
	switch typ.Kind() {
	case reflect.Map:
		return typ.Elem()
	case reflect.Struct:
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if name == key {
				return f.Type
			}
		}
	}
	return nil
}

// TestExampleLossDetectorCanFail is the self-check of the loss detector: a
// type that misses a field, or changes a value, must be reported.
func TestExampleLossDetectorCanFail(t *testing.T) {
	const doc = `{"id":"c1","brand":"visa","allows_payouts":false,"amount":"22.50","nested":{"keep":"x","drop":1},"gone":null,"list":[{"a":1},{"a":2,"b":3}]}`

	type nested struct {
		Keep string `json:"keep"`
	}
	type item struct {
		A int `json:"a"`
	}
	type partial struct {
		ID            string  `json:"id"`
		AllowsPayouts bool    `json:"allows_payouts,omitzero"`
		Amount        Amount  `json:"amount"`
		Nested        nested  `json:"nested"`
		List          []item  `json:"list"`
		Gone          *string `json:"gone,omitempty"`
	}
	losses, err := roundTripLosses([]byte(doc), reflect.TypeFor[partial]())
	require.NoError(t, err)
	var paths []string
	for _, l := range losses {
		paths = append(paths, l.path)
	}
	// brand, nested.drop and list[1].b land nowhere; a false that landed in a
	// field, a quoted amount read exactly and a null are not losses.
	assert.Equal(t, []string{"$.brand", "$.list[1].b", "$.nested.drop"}, paths)

	// A value that comes back different is reported too.
	type truncating struct {
		ID lossyString `json:"id"`
	}
	losses, err = roundTripLosses([]byte(`{"id":"abcdef"}`), reflect.TypeFor[truncating]())
	require.NoError(t, err)
	require.Len(t, losses, 1)
	assert.Equal(t, "$.id", losses[0].path)
	assert.Contains(t, losses[0].what, "value changed")

	// A quoted number equals a number only where the type is loose.
	type strict struct {
		N json.Number `json:"n"`
	}
	losses, err = roundTripLosses([]byte(`{"n":"6"}`), reflect.TypeFor[strict]())
	require.NoError(t, err)
	assert.Len(t, losses, 1, "a quoted number re-encoded as a number is a change for a strict type")
	losses, err = roundTripLosses([]byte(`{"payments":"6"}`), reflect.TypeFor[PaymentPlan]())
	require.NoError(t, err)
	assert.Empty(t, losses, "payments is documented loose")

	// The real types are held to the same rule: a field Card does not have
	// is reported.
	t.Run("generated type", func(t *testing.T) {
		card, err := os.ReadFile(filepath.Join(examplesDir, "cards--card-object.json"))
		require.NoError(t, err)
		var generic map[string]any
		require.NoError(t, json.Unmarshal(card, &generic))
		generic["unknown_field"] = "x"
		withExtra, err := json.Marshal(generic)
		require.NoError(t, err)
		losses, err := roundTripLosses(withExtra, reflect.TypeFor[Card]())
		require.NoError(t, err)
		if assert.Len(t, losses, 1) {
			assert.Equal(t, "$.unknown_field", losses[0].path)
		}
	})
}

// lossyString keeps only the first three characters when encoded.
type lossyString string

func (s lossyString) MarshalJSON() ([]byte, error) {
	v := string(s)
	if len(v) > 3 {
		v = v[:3]
	}
	return json.Marshal(v)
}
