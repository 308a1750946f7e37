package reqbody

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The generated decoders (decode_gen.go) against the reflective path
// (Fields.intoReflect) they replace for their types: on any body, the same
// struct and the same error (code, status, description), for every type
// generated. What the reflective path accepts loosely or refuses (every
// rule of lenient.go), the generated path must accept or refuse alike.

// generatedPaths are the dotted paths of every member the generated types
// read, nested objects' members included ("card.address.city").
func generatedPaths() []string {
	seen := map[string]bool{}
	var paths []string
	var walk func(t reflect.Type, prefix string, depth int)
	walk = func(t reflect.Type, prefix string, depth int) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || depth > 3 {
			return
		}
		for _, m := range planOf(t).members {
			p := prefix + m.name
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
			if !m.traits.unmarshaler {
				walk(t.Field(m.index).Type, p+".", depth+1)
			}
		}
	}
	for _, t := range generatedRoots {
		walk(t, "", 0)
	}
	return paths
}

// looseValues are member values of every rule's accepted and refused
// forms (lenient_test.go's cases in the core package) and of every JSON
// type.
var looseValues = []string{
	`493`, `"493.00"`, `10.5`, `"10.50"`, `12.345`, `"12.345"`, `-5`, `"-5"`, `"abc"`, `""`, `"1,000.00"`, `" 5"`,
	`"0x10"`, `1e999999`, `"1e999999"`, `1.0`, `2e0`, `"30.0"`, `6.5`, `"1.5"`, `1e19`, `"1e999999999"`, `0`, `-0`,
	`9223372036854775807`, `9223372036854775808`, `"9223372036854775807"`, `0.1e1`, `1E2`, `-1e-2`,
	`8576`, `"8576"`, `4111111111111111`, `123`, `"123"`, `12`, `30`, `007`, `1.90`,
	`true`, `false`, `"true"`, `"false"`, `"maybe"`, `"FALSE"`, `"True"`, `1`,
	`"mxn"`, `"MXN"`, `"Mxn"`, `"cop"`, `"XYZ"`, `"only_points"`, `"ONLY_POINTS"`, `"mixed"`, `"none"`, `"NONE"`,
	`"msi"`, `"MSI"`, `"without_interest"`, `"card"`, `"CARD"`,
	`null`, ` null `, `{}`, `[]`, `[1]`, `["a"]`, `{"a":"b"}`, `{"a":1}`, `{"a":null}`, `{"payments":6}`, `{"payments":"6"}`,
	`{"payments":6.0,"payments_type":"WITHOUT_INTEREST"}`, `{"name":"Ana","email":"ana@example.com"}`,
	`{"line1":"Calle 1","city":"Q","state":"Q","postal_code":"76000","country_code":"MX"}`,
	`"Juan Pérez"`, `"a\"b"`, `"\u00e9"`, `"\ud800"`, `"a\\b"`, "\"\xff\"", `"https://shop.example.com/back"`, `"/"`,
	`"2026-03-12T10:30:00"`, `"2026-03-12"`,
}

// seedBodies are whole bodies: the benchmarks' and the gateway's examples
// (testdata/examples, whose objects carry cards, customers and addresses).
func seedBodies(t testing.TB) [][]byte {
	bodies := [][]byte{
		[]byte(`{"method":"card","source_id":"kqgykn96i7bcs1wwhvgw","amount":100.50,"currency":"MXN","description":"Order 1","order_id":"bench-1","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`),
		[]byte(`{"method":"card","card":{"holder_name":"Juan Perez","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"},"amount":100.50,"currency":"MXN","description":"Order 1","order_id":"bench-1","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`),
		[]byte(`{"name":"Juan 1","last_name":"Perez","email":"juan1@example.com","phone_number":"5512345678"}`),
		[]byte(`{"holder_name":"Juan Perez","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}`),
		[]byte(`{"customer_id":"ag4nktpdzebjiye1tlze","amount":12.50,"description":"Pago","order_id":"t-1"}`),
		[]byte(`{"amount":1,"amount":"x","capture":true,"capture":"no"}`),
		[]byte(` { "customer" : { "name" : "Ana" , "address" : { "city" : 5 } } , "card" : null } `),
	}
	files, err := filepath.Glob("../../../testdata/examples/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "the gateway's examples")
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		bodies = append(bodies, data)
	}
	return bodies
}

func FuzzGeneratedDecoders(f *testing.F) {
	paths := generatedPaths()
	bodies := seedBodies(f)
	for _, b := range bodies {
		f.Add(b, uint16(0), []byte(nil), uint16(0), []byte(nil))
	}
	// Each value in two members; TestGeneratedDecodersDecodeLikeReflection
	// tries every value in every member.
	for i, v := range looseValues {
		f.Add(bodies[i%5], uint16(i*7), []byte(v), uint16(i*13+3), []byte(looseValues[i*3%len(looseValues)]))
	}
	f.Fuzz(func(t *testing.T, body []byte, sel1 uint16, v1 []byte, sel2 uint16, v2 []byte) {
		assertDecodersAgree(t, body)
		assertMembersAgree(t, body)
		body = withMember(withMember(body, paths[int(sel1)%len(paths)], v1), paths[int(sel2)%len(paths)], v2)
		assertDecodersAgree(t, body)
		assertMembersAgree(t, body)
	})
}

// withMember returns body with the member at path (dotted) set to v, when
// v is one JSON value; body as it is otherwise. A body that is not an
// object is taken as an empty one.
func withMember(body []byte, path string, v []byte) []byte {
	if len(v) == 0 || !json.Valid(v) {
		return body
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil || obj == nil {
		obj = map[string]json.RawMessage{}
	}
	if name, rest, nested := strings.Cut(path, "."); nested {
		obj[name] = withMember(obj[name], rest, v)
	} else {
		obj[name] = v
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return body
	}
	return out
}

// assertMembersAgree decodes each member of body into each type Member
// decodes without reflection, both ways.
func assertMembersAgree(t *testing.T, body []byte) {
	if f, e := Parse(body, false); e == nil {
		for i := range f {
			for _, typ := range generatedMembers {
				want, got := reflect.New(typ), reflect.New(typ)
				eWant := decodeMember(&f[i], want.Elem(), traitsOf(typ), "", gatewayZone)
				eGot, ok := memberGenerated(&f[i], got.Interface(), gatewayZone)
				require.True(t, ok, "%v is generated", typ)
				assertSameError(t, eWant, eGot, "%v: %s", typ, f[i].raw)
				require.Equal(t, want.Interface(), got.Interface(), "%v: %s", typ, f[i].raw)
			}
		}
	}
}

// assertDecodersAgree decodes body into each generated type both ways.
func assertDecodersAgree(t *testing.T, body []byte) {
	for _, typ := range generatedRoots {
		for _, zone := range []*time.Location{gatewayZone, openpay.CountryColombia.Location()} {
			slow, e1 := Parse(body, false)
			fast, e2 := Parse(body, false)
			if e1 != nil || e2 != nil {
				require.Equal(t, e1, e2)
				return
			}
			want, got := reflect.New(typ), reflect.New(typ)
			eWant := slow.intoReflect(want.Interface(), zone)
			eGot, ok := intoGenerated(fast, got.Interface(), zone)
			require.True(t, ok, "%v is generated", typ)
			assertSameError(t, eWant, eGot, "%v: %s", typ, body)
			require.Equal(t, want.Interface(), got.Interface(), "%v: %s", typ, body)
		}
	}
}

// assertSameError requires the same answer: none, or the same code,
// status and description.
func assertSameError(t *testing.T, want, got *apierr.Error, msg string, args ...any) {
	margs := append([]any{msg}, args...)
	if want == nil {
		require.Nil(t, got, margs...)
		return
	}
	require.NotNil(t, got, margs...)
	require.Equal(t, *want, *got, margs...)
}

// TestGeneratedDecodersDecodeLikeReflection runs the fuzz seeds as a test:
// every rule's forms, in every member of every generated type.
func TestGeneratedDecodersDecodeLikeReflection(t *testing.T) {
	paths := generatedPaths()
	assert.Contains(t, paths, "card.address.city")
	assert.Contains(t, paths, "customer.customer_address.department")
	assert.Contains(t, paths, "payment_plan.payments")
	assert.NotContains(t, paths, "iva", "readByHandler's members are the handler's")
	for _, body := range seedBodies(t) {
		assertDecodersAgree(t, body)
		assertMembersAgree(t, body)
	}
	for _, v := range looseValues {
		// a numeric-strings member, an enum's and a plain string's
		assertMembersAgree(t, []byte(`{"order_id":`+v+`,"method":`+v+`,"description":`+v+`}`))
	}
	base := seedBodies(t)[1]
	for _, p := range paths {
		for _, v := range looseValues {
			assertDecodersAgree(t, withMember(base, p, []byte(v)))
		}
	}
}
