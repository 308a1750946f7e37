package cfdi

import (
	"encoding/json"
	"flag"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/internal/genfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/openapidoc"
)

// openapiPath is the project's description of the wire, at the module root.
const openapiPath = "../openapi.yaml"

const schemaRef = "#/components/schemas/"

// schemaOf names the openapi.yaml schema each Go type of the package must
// agree with.
var schemaOf = map[reflect.Type]string{
	reflect.TypeFor[GenerationRequest]():  "CfdiGenerationRequest",
	reflect.TypeFor[Receiver]():           "CfdiReceiver",
	reflect.TypeFor[Concept]():            "CfdiConcept",
	reflect.TypeFor[Tax]():                "CfdiTax",
	reflect.TypeFor[Related]():            "CfdiRelated",
	reflect.TypeFor[RelatedUUID]():        "CfdiRelatedUUID",
	reflect.TypeFor[Complements]():        "CfdiComplements",
	reflect.TypeFor[AirlineComplement]():  "CfdiAirlineComplement",
	reflect.TypeFor[OtherCharge]():        "CfdiOtherCharge",
	reflect.TypeFor[PaymentComplement]():  "CfdiPaymentComplement",
	reflect.TypeFor[RelatedDocument]():    "CfdiRelatedDocument",
	reflect.TypeFor[DoneeComplement]():    "CfdiDoneeComplement",
	reflect.TypeFor[GenerationResponse](): "CfdiGenerationResponse",
	reflect.TypeFor[Notification]():       "CfdiNotification",
}

// enumOf gives the codes of each catalogue type, which the schema's enum
// must list.
var enumOf = map[reflect.Type][]string{
	reflect.TypeFor[PaymentForm]():      strs(codes(paymentForms)),
	reflect.TypeFor[PaymentMethod]():    strs(codes(paymentMethods)),
	reflect.TypeFor[VoucherType]():      strs(codes(voucherTypes)),
	reflect.TypeFor[TaxType]():          strs(codes(taxTypes)),
	reflect.TypeFor[FactorType]():       strs(codes(factorTypes)),
	reflect.TypeFor[RelationType]():     strs(codes(relationTypes)),
	reflect.TypeFor[Use]():              strs(codes(uses)),
	reflect.TypeFor[PaymentChainType](): strs(codes(paymentChainTypes)),
	reflect.TypeFor[Status]():           strs(codes(statuses)),
	reflect.TypeFor[FiscalStatus]():     strs(codes(fiscalStatuses)),
}

func strs[T ~string](cs []T) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

func loadOpenAPI(t *testing.T) *openapidoc.Doc {
	t.Helper()
	doc, err := openapidoc.Load(openapiPath)
	require.NoError(t, err, "%s must load", openapiPath)
	return doc
}

// goFields maps the JSON names of struct type typ to their fields.
func goFields(typ reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range typ.NumField() {
		if name, _ := jsonName(typ.Field(i)); name != "" {
			out[name] = typ.Field(i)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestTypesAgreeWithOpenAPI checks every Go type against its schema: the same
// property names; required exactly where the Go field is never left out;
// nested objects referring to the schema of their Go type; money and numbers
// as numbers; catalogue fields with the catalogue's codes as enum. A missing
// schema fails the test.
func TestTypesAgreeWithOpenAPI(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	for typ, name := range schemaOf {
		t.Run(name, func(t *testing.T) {
			ref := doc.Components.Schemas[name]
			require.NotNil(t, ref, "openapi.yaml has no schema %s (for cfdi.%s)", name, typ.Name())
			require.NotNil(t, ref.Value, name)
			s := ref.Value

			fields := goFields(typ)
			assert.Equal(t, sortedKeys(s.Properties), sortedKeys(fields), "property names of %s vs JSON names of cfdi.%s", name, typ.Name())

			for prop, f := range fields {
				p := s.Properties[prop]
				if p == nil || p.Value == nil {
					continue // reported above
				}
				_, omitted := jsonName(f)
				assert.Equal(t, slices.Contains(s.Required, prop), !omitted,
					"%s.%s: required in the schema must mean never left out in Go (cfdi.%s.%s)", name, prop, typ.Name(), f.Name)
				checkFieldType(t, name+"."+prop, f.Type, p)
			}
		})
	}
}

// checkFieldType checks one property against the Go type of its field.
func checkFieldType(t *testing.T, where string, goType reflect.Type, p *openapidoc.SchemaRef) {
	t.Helper()
	for goType.Kind() == reflect.Pointer {
		goType = goType.Elem()
	}
	if goType.Kind() == reflect.Slice && goType.Elem().Kind() != reflect.Uint8 {
		require.True(t, p.Value.Type.Is("array"), "%s: a Go slice must be an array", where)
		require.NotNil(t, p.Value.Items, "%s: items", where)
		checkFieldType(t, where+"[]", goType.Elem(), p.Value.Items)
		return
	}
	switch {
	case schemaOf[goType] != "":
		assert.Equal(t, schemaRef+schemaOf[goType], p.Ref, "%s: cfdi.%s is schema %s", where, goType.Name(), schemaOf[goType])
	case goType == reflect.TypeFor[openpay.Amount]() || goType == reflect.TypeFor[openpay.Decimal]():
		assert.True(t, p.Value.Type.Is("number"), "%s: %s must be a JSON number", where, goType)
	case goType == reflect.TypeFor[Date]():
		assert.Equal(t, "date", p.Value.Format, "%s: a Date is format date", where)
	case goType == reflect.TypeFor[DateTime]():
		assert.True(t, p.Value.Type.Is("string"), "%s: a DateTime is a string", where)
	case goType.Kind() == reflect.Slice: // []byte
		assert.Equal(t, "byte", p.Value.Format, "%s: []byte is base64 (format byte)", where)
	case goType.Kind() == reflect.Int:
		assert.True(t, p.Value.Type.Is("integer"), "%s: an int must be an integer", where)
	case goType.Kind() == reflect.String:
		assert.True(t, p.Value.Type.Is("string"), "%s: a string", where)
		if codes, ok := enumOf[goType]; ok {
			var enum []string
			for _, e := range p.Value.Enum {
				s, _ := e.(string)
				enum = append(enum, s)
			}
			assert.Equal(t, codes, enum, "%s: the enum must be the codes of cfdi.%s", where, goType.Name())
		}
	default:
		t.Errorf("%s: no check for Go type %s", where, goType)
	}
}

// Every CFDI schema of openapi.yaml has its Go type here.
func TestEveryCfdiSchemaHasAGoType(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	mapped := map[string]bool{}
	for _, name := range schemaOf {
		mapped[name] = true
	}
	for name := range doc.Components.Schemas {
		if strings.HasPrefix(name, "Cfdi") {
			assert.True(t, mapped[name], "schema %s has no Go type in package cfdi", name)
		}
	}
}

// The values the schema must accept or refuse, as the package encodes them.
// Validating them against openapi.yaml needs an OpenAPI library, which the
// SDK's module does not require: TestSchemaCasesAreGenerated writes them to
// schemaCasesFile, and the nested module tests/ (tests/cfdi,
// TestValidRequestsMatchTheSchema and TestSchemaDecimalsAgreeWithValidate)
// validates each against its schema.

//go:generate go test -run ^TestSchemaCasesAreGenerated$ . -args -update-schemacases

var updateSchemaCases = flag.Bool("update-schemacases", false, "rewrite "+schemaCasesFile+" from the package's requests")

const schemaCasesFile = "testdata/schema_cases.json"

// schemaCase is a value encoded as the package sends it, the schema of
// openapi.yaml it is checked against, and whether the schema must accept it.
type schemaCase struct {
	Name   string          `json:"name"`
	Schema string          `json:"schema"`
	Valid  bool            `json:"valid"`
	Value  json.RawMessage `json:"value"`
}

// decimalCases change one number of fullRequest: the schema and Validate
// agree on decimals, six where the CFDI standard allows them, two for the
// invoice's totals.
var decimalCases = []struct {
	name   string
	mutate func(r *GenerationRequest)
	valid  bool
}{
	{"unit price with six decimals", func(r *GenerationRequest) { r.Conceptos[1].ValorUnitario = dec("10.333333") }, true},
	{"unit price with seven decimals", func(r *GenerationRequest) { r.Conceptos[1].ValorUnitario = dec("10.3333333") }, false},
	{"quantity with six decimals", func(r *GenerationRequest) { r.Conceptos[1].Cantidad = dec("1.500001") }, true},
	{"quantity with seven decimals", func(r *GenerationRequest) { r.Conceptos[1].Cantidad = dec("1.5000001") }, false},
	{"importe with three decimals", func(r *GenerationRequest) { r.Conceptos[1].Importe = dec("15.495") }, true},
	{"tax importe with seven decimals", func(r *GenerationRequest) { r.Conceptos[0].Retenciones[0].Importe = dec("18.0000001") }, false},
}

// schemaCases encodes what the package produces and calls valid (a built
// request, fullRequest, a notification), the decimal cases, and a total
// with a third decimal, which the Go type cannot even send.
func schemaCases(t *testing.T) []schemaCase {
	t.Helper()
	encode := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	built, err := NewIncomeInvoice("INV-1", "trzjaozcik8msyqshka4", testReceiver,
		WithLugarExpedicion("06600"), WithFormaPago(PaymentFormCreditCard), WithSerieFolio("A", "1")).
		AddConcept(keyboard(), IVA16(), Retencion(TaxISR, dec("0.10"))).Build()
	require.NoError(t, err)
	cases := []schemaCase{
		{"built", "CfdiGenerationRequest", true, encode(built)},
		{"full", "CfdiGenerationRequest", true, encode(fullRequest())},
		{"notification", "CfdiNotification", true,
			encode(Notification{InvoiceID: "INV-1", Total: amt("232.00"), Status: StatusOK, FiscalStatus: FiscalStatusActive})},
	}
	for _, c := range decimalCases {
		r := fullRequest()
		c.mutate(&r)
		cases = append(cases, schemaCase{c.name, "CfdiGenerationRequest", c.valid, encode(r)})
	}
	var third map[string]any
	require.NoError(t, json.Unmarshal(encode(fullRequest()), &third))
	third["total"] = 206.301
	return append(cases, schemaCase{"total with a third decimal", "CfdiGenerationRequest", false, encode(third)})
}

// TestSchemaCasesAreGenerated compares schemaCasesFile with the cases the
// package encodes now; with -update-schemacases (go generate) it writes the
// file instead.
func TestSchemaCasesAreGenerated(t *testing.T) {
	t.Parallel()
	b, err := json.MarshalIndent(schemaCases(t), "", "  ")
	require.NoError(t, err)
	b = append(b, '\n')
	genfile.Check(t, schemaCasesFile, b, *updateSchemaCases, "go generate ./cfdi")
}

// The schema and Validate agree on decimals: Validate's half (the schema's
// is in tests/cfdi, against schemaCasesFile).
func TestSchemaDecimalsAgreeWithValidate(t *testing.T) {
	t.Parallel()
	for _, c := range decimalCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := fullRequest()
			c.mutate(&r)
			validateErr := r.Validate()
			if c.valid {
				assert.NoError(t, validateErr)
			} else {
				assert.Error(t, validateErr)
			}
		})
	}
}
