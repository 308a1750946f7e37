package answer

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"math/bits"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/genfile"
	"github.com/openpay-go/openpay/internal/openapidoc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openAPIPath is the one description of the wire.
const openAPIPath = "../../../openapi.yaml"

var updateKeyPlans = flag.Bool("update-keyplans", false, "rewrite wirekeys.gen.go from openapi.yaml")

const keyPlansFile = "wirekeys.gen.go"

// TestKeyPlansFollowOpenAPI derives the key plans from openapi.yaml and
// compares them with wirekeys.gen.go; with -update-keyplans (go generate)
// it writes the file instead.
func TestKeyPlansFollowOpenAPI(t *testing.T) {
	doc, err := openapidoc.Load(openAPIPath)
	require.NoError(t, err)
	specs, err := deriveKeyPlans(doc)
	require.NoError(t, err)
	src, err := renderKeyPlans(specs)
	require.NoError(t, err)
	genfile.Check(t, keyPlansFile, src, *updateKeyPlans, "go generate ./internal/refserver/answer")
	if *updateKeyPlans {
		return
	}
	// What the table holds is what the server uses.
	require.Equal(t, len(specs), len(keyPlans))
}

// TestKeyPlansFitTheWireTypes checks the plans against the Go types the
// server encodes: every key a plan may add is a field the encoding can leave
// out, its zero value is one the field could hold, and every member with a
// plan is a field of an object type.
func TestKeyPlansFitTheWireTypes(t *testing.T) {
	t.Parallel()
	roots := []any{openpay.Transaction{}, openpay.Customer{}, openpay.BankAccount{}, openpay.Card{}, Token{},
		openpay.Subscription{}, openpay.Store{}, openpay.WebhookEvent{}, openpay.Plan{}, openpay.Merchant{},
		openpay.Webhook{}, openpay.PointsBalance{}, ErrorResponse{}, openpay.Checkout{}}
	checked := map[*keyPlan]bool{}
	var check func(typ reflect.Type, p *keyPlan, where string)
	check = func(typ reflect.Type, p *keyPlan, where string) {
		if checked[p] {
			return
		}
		checked[p] = true
		fields := map[string]reflect.StructField{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			fields[name] = f
		}
		for _, k := range p.keys {
			f, ok := fields[k.name]
			if !assert.True(t, ok, "%s: the plan adds %s, which %s has no field for", where, k.name, typ) {
				continue
			}
			tag := f.Tag.Get("json")
			assert.True(t, strings.Contains(tag, ",omitempty") || strings.Contains(tag, ",omitzero"),
				"%s.%s: the encoding never leaves it out, so the plan should not name it", where, k.name)
			if k.zero != "null" {
				ft := f.Type
				require.NotEqual(t, reflect.Pointer, ft.Kind(), "%s.%s: a pointer left out is null", where, k.name)
				zero, err := json.Marshal(reflect.Zero(ft).Interface())
				require.NoError(t, err)
				assert.Equal(t, k.zero, string(zero), "%s.%s: the zero value of %s", where, k.name, ft)
			}
		}
		for key, m := range p.byKey {
			if m.plan == nil {
				continue
			}
			f, ok := fields[key]
			if !assert.True(t, ok, "%s: the plan has member %s, which %s has no field for", where, key, typ) {
				continue
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			require.Equal(t, reflect.Struct, ft.Kind(), "%s.%s", where, key)
			check(ft, m.plan, where+"."+key)
		}
	}
	for _, v := range roots {
		typ := reflect.TypeOf(v)
		if p := planFor(v); p != nil {
			assert.Same(t, keyPlans[typ.Name()], p)
			check(typ, p, typ.Name())
		}
	}
	for name, p := range keyPlans {
		assert.True(t, checked[p], "plan %s is not reached from the wire types the server answers with", name)
	}
	assert.Same(t, keyPlans["Transaction"], planFor([]*openpay.Transaction{}), "a list has the plan of its elements")
	assert.Nil(t, planFor(map[string]any{}))
	assert.Nil(t, planFor(nil))
}

// deriveKeyPlans reads the plans off openapi.yaml: for each object schema,
// the keys it always carries (required, and x-required-if for variants)
// that the generated wire type may leave out, and the plans of its members.
// A property whose allOf sits next to its own required list gets a plan of
// its own, named Schema.property. Plans that add nothing, in themselves or
// in their members, are left out.
func deriveKeyPlans(doc *openapidoc.Doc) ([]keyPlanSpec, error) {
	d := keyPlanDeriver{doc: doc, specs: map[string]*keyPlanSpec{}}
	names := make([]string, 0, len(doc.Components.Schemas))
	for name := range doc.Components.Schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := doc.Components.Schemas[name].Value
		if len(s.Properties) > 0 {
			d.visit(name, name, s, nil)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	// Keep the plans that add something, themselves or through a member.
	useful := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for name, sp := range d.specs {
			if useful[name] {
				continue
			}
			ok := len(sp.always) > 0 || len(sp.variants) > 0
			for _, m := range sp.members {
				ok = ok || useful[m]
			}
			if ok {
				useful[name], changed = true, true
			}
		}
	}
	var out []keyPlanSpec
	for name, sp := range d.specs {
		if !useful[name] {
			continue
		}
		for k, m := range sp.members {
			if !useful[m] {
				delete(sp.members, k)
			}
		}
		out = append(out, *sp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

type keyPlanDeriver struct {
	doc   *openapidoc.Doc
	specs map[string]*keyPlanSpec
	err   error
}

func (d *keyPlanDeriver) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

// visit derives plan name for schema s (the component schemaName), with
// extra the keys the referring property requires in that place.
func (d *keyPlanDeriver) visit(name, schemaName string, s *openapidoc.Schema, extra []string) {
	if d.specs[name] != nil {
		return
	}
	sp := &keyPlanSpec{name: name, members: map[string]string{}}
	d.specs[name] = sp
	for _, k := range append(slices.Clone(s.Required), extra...) {
		if key, ok := d.key(schemaName, s, k); ok && !slices.Contains(sp.always, key) {
			sp.always = append(sp.always, key)
		}
	}
	if raw, ok := s.Extensions["x-required-if"]; ok {
		d.variants(sp, schemaName, s, raw)
	}
	props := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		props = append(props, k)
	}
	sort.Strings(props)
	for _, k := range props {
		target, ts, required := d.member(s.Properties[k])
		if ts == nil {
			if len(s.Properties[k].Value.Required) > 0 {
				d.fail("%s.%s: a required list only works next to an allOf of one schema", schemaName, k)
			}
			continue
		}
		child := target
		if len(required) > 0 {
			child = schemaName + "." + k
		}
		d.visit(child, target, ts, required)
		sp.members[k] = child
	}
}

// key is the wireKey of required key k of schema s, and whether the wire
// type may leave it out (as oapi-codegen writes it: an optional property, or
// a required one marked x-omitempty or x-omitzero); a key it always encodes
// needs no plan.
func (d *keyPlanDeriver) key(schemaName string, s *openapidoc.Schema, k string) (wireKey, bool) {
	ref, ok := s.Properties[k]
	if !ok {
		d.fail("%s: %s is required but is no property", schemaName, k)
		return wireKey{}, false
	}
	p := ref.Value
	omitted := !slices.Contains(s.Required, k)
	for _, ext := range []string{"x-omitempty", "x-omitzero"} {
		if v, ok := p.Extensions[ext].(bool); ok && v {
			omitted = true
		}
	}
	if !omitted {
		return wireKey{}, false
	}
	if p.Nullable {
		return wireKey{k, "null"}, true
	}
	typ := p.Type
	if (typ == nil || len(*typ) == 0) && len(p.AllOf) == 1 {
		typ = p.AllOf[0].Value.Type
	}
	zero := map[string]string{"boolean": "false", "integer": "0", "number": "0", "string": `""`, "array": "[]", "object": "{}"}
	if typ == nil || len(*typ) != 1 || zero[(*typ)[0]] == "" {
		d.fail("%s.%s: no zero value for its type", schemaName, k)
		return wireKey{}, false
	}
	return wireKey{k, zero[(*typ)[0]]}, true
}

// variants reads x-required-if: a list of {property, in, required}.
func (d *keyPlanDeriver) variants(sp *keyPlanSpec, schemaName string, s *openapidoc.Schema, raw any) {
	list, ok := raw.([]any)
	if !ok {
		d.fail("%s: x-required-if must be a list", schemaName)
		return
	}
	for _, item := range list {
		m, _ := item.(map[string]any)
		path, _ := m["property"].(string)
		in, _ := m["in"].([]any)
		present, _ := m["present"].(bool)
		req, _ := m["required"].([]any)
		if path == "" || (len(in) == 0) == !present || len(req) == 0 || len(m) != 3 {
			d.fail("%s: each x-required-if entry has property, in (or present: true) and required, and nothing else", schemaName)
			return
		}
		// The path must lead to a string property whose enum (if any) has the values.
		cur := s
		for _, seg := range strings.Split(path, ".") {
			ref, ok := cur.Properties[seg]
			if !ok {
				d.fail("%s: x-required-if names %s, which is no property", schemaName, path)
				return
			}
			cur = ref.Value
			if len(cur.Properties) == 0 && len(cur.AllOf) == 1 {
				cur = cur.AllOf[0].Value
			}
		}
		v := wireVariant{path: path}
		for _, x := range in {
			str, ok := x.(string)
			if !ok || (len(cur.Enum) > 0 && !slices.Contains(cur.Enum, any(str))) {
				d.fail("%s: x-required-if: %v is not a value of %s", schemaName, x, path)
				return
			}
			v.values = append(v.values, str)
		}
		for _, x := range req {
			k, _ := x.(string)
			if key, ok := d.key(schemaName, s, k); ok {
				v.keys = append(v.keys, key)
			}
		}
		if len(v.keys) > 0 {
			sp.variants = append(sp.variants, v)
		}
	}
}

// member is the object schema a property holds (or holds a list of): its
// component name, its schema and the keys the property itself requires.
func (d *keyPlanDeriver) member(ref *openapidoc.SchemaRef) (string, *openapidoc.Schema, []string) {
	p := ref.Value
	var required []string
	switch {
	case ref.Ref != "":
	case len(p.AllOf) == 1 && p.AllOf[0].Ref != "":
		required = p.Required
		ref = p.AllOf[0]
	case p.Type.Is("array") && p.Items != nil:
		return d.member(p.Items)
	default:
		return "", nil, nil
	}
	name := strings.TrimPrefix(ref.Ref, "#/components/schemas/")
	if len(ref.Value.Properties) == 0 {
		return "", nil, nil
	}
	return name, ref.Value, required
}

// renderKeyPlans writes the Go source of wirekeys.gen.go.
func renderKeyPlans(specs []keyPlanSpec) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by TestKeyPlansFollowOpenAPI from openapi.yaml; DO NOT EDIT.\n\n")
	b.WriteString("package answer\n\n")
	b.WriteString("// keyPlanTable: for each object of openapi.yaml that needs one, the keys its\n")
	b.WriteString("// answers always carry that the wire type may leave out (see wirekeys.go).\n")
	b.WriteString("var keyPlanTable = []keyPlanSpec{\n")
	keys := func(ks []wireKey) string {
		var parts []string
		for _, k := range ks {
			zero := strconv.Quote(k.zero)
			if strings.Contains(k.zero, `"`) {
				zero = "`" + k.zero + "`"
			}
			parts = append(parts, fmt.Sprintf("{%q, %s}", k.name, zero))
		}
		return "[]wireKey{" + strings.Join(parts, ", ") + "}"
	}
	for _, sp := range specs {
		fmt.Fprintf(&b, "{\nname: %q,\n", sp.name)
		if len(sp.always) > 0 {
			fmt.Fprintf(&b, "always: %s,\n", keys(sp.always))
		}
		if len(sp.variants) > 0 {
			b.WriteString("variants: []wireVariant{\n")
			for _, v := range sp.variants {
				fmt.Fprintf(&b, "{path: %q, values: %#v, keys: %s},\n", v.path, v.values, keys(v.keys))
			}
			b.WriteString("},\n")
		}
		if len(sp.members) > 0 {
			names := make([]string, 0, len(sp.members))
			for k := range sp.members {
				names = append(names, k)
			}
			sort.Strings(names)
			b.WriteString("members: map[string]string{")
			for i, k := range names {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%q: %q", k, sp.members[k])
			}
			b.WriteString("},\n")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// TestAddWireKeys encodes wire values as the server does and checks the keys
// added: the plan's keys the encoding left out, with their zero values, in
// every object of the plan (nested, in lists, in variants), and nothing else.
// Decoding the result gives back the value encoded.
func TestAddWireKeys(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 3, 10, 12, 0, 0, 0, time.FixedZone("CST", -6*60*60))
	tx := func(mod func(*openpay.Transaction)) openpay.Transaction {
		x := openpay.Transaction{ID: "tr1", Amount: openpay.MustAmount("10.00"), Method: openpay.TransactionMethodCard,
			TransactionType: openpay.TransactionTypeCharge, OperationType: openpay.OperationTypeIn,
			Status: openpay.TransactionStatusCompleted, Currency: "MXN", CreationDate: created,
			Description: `tricky "}, \"authorization\":1 text`}
		if mod != nil {
			mod(&x)
		}
		return x
	}
	ivr := tx(func(x *openpay.Transaction) {
		x.PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeIVR, PhoneNumber: "5255", IVRKey: 676105}
		x.Customer = &openpay.Customer{Name: "Juan", Email: "j@example.com", CreationDate: created}
	})
	cases := []struct {
		name  string
		v     any
		added map[string]string // JSON path: the JSON of the value added
	}{
		{"a charge", tx(nil), map[string]string{"authorization": "null", "error_message": "null", "order_id": "null"}},
		{"a complete charge, untouched", tx(func(x *openpay.Transaction) {
			x.Authorization, x.ErrorMessage, x.OrderID = "801585", "none", "oid-1"
		}), nil},
		{"an IVR charge", ivr, map[string]string{"authorization": "null", "error_message": "null", "order_id": "null",
			"conciliated": "false", "payment_method.attempts": "0",
			"customer.last_name": "null", "customer.phone_number": "null", "customer.address": "null",
			"customer.clabe": "null", "customer.external_id": "null"}},
		{"a store charge: no conciliated", tx(func(x *openpay.Transaction) {
			x.Authorization, x.ErrorMessage, x.OrderID = "1", "2", "3"
			x.PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeStore, Reference: "r", PaybinReference: "p",
				BarcodeURL: "u", BarcodePaybinURL: "v"}
		}), nil},
		{"a refunded card charge with metadata", tx(func(x *openpay.Transaction) {
			x.Authorization, x.OrderID = "801585", "oid-1"
			x.Metadata = openpay.Metadata{"error_message": "x", "order_id": `"}`}
			x.Card = &openpay.Card{CardNumber: "411111XXXXXX1111", Address: &openpay.Address{Line1: "Calle 10", City: "Qro"}}
			r := tx(nil)
			x.Refund = &r
		}), map[string]string{"error_message": "null", "card.address.line2": "null", "card.address.line3": "null",
			"refund.authorization": "null", "refund.error_message": "null", "refund.order_id": "null"}},
		{"a bank account", openpay.BankAccount{HolderName: "Juan", CLABE: "012XXXXXXXXXX24616"}, map[string]string{"alias": "null"}},
		{"a stored card without address: the card API's own shape", openpay.Card{CardNumber: "411111XXXXXX1111"}, nil},
		{"a merchant-level stored card names no owner, as null", openpay.Card{ID: "k1", CardNumber: "411111XXXXXX1111"},
			map[string]string{"customer_id": "null"}},
		{"a customer's stored card", openpay.Card{ID: "k1", CardNumber: "411111XXXXXX1111", CustomerID: "a1"}, nil},
		{"a token", Token{ID: "tok", Card: TokenCard{CardNumber: "4111"}},
			map[string]string{"card.address": "null", "card.creation_date": "null", "card.points_card": "false"}},
		{"a plan: nothing to add", openpay.Plan{ID: "p"}, nil},
		{"an error", ErrorResponse{Description: "x"}, nil},
		{"an event", openpay.WebhookEvent{Type: openpay.EventTypeChargeSucceeded, EventDate: created, Transaction: ptr(tx(func(x *openpay.Transaction) {
			x.Authorization, x.ErrorMessage = "1", "2"
		}))}, map[string]string{"transaction.order_id": "null"}},
		{"a list", []openpay.Transaction{tx(nil), ivr}, map[string]string{
			"[0].authorization": "null", "[0].error_message": "null", "[0].order_id": "null",
			"[1].authorization": "null", "[1].error_message": "null", "[1].order_id": "null", "[1].conciliated": "false",
			"[1].payment_method.attempts": "0", "[1].customer.last_name": "null", "[1].customer.phone_number": "null",
			"[1].customer.address": "null", "[1].customer.clabe": "null", "[1].customer.external_id": "null"}},
		{"an empty list", []openpay.Transaction{}, nil},
		{"not a wire type", map[string]any{"authorization": nil}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := json.Marshal(c.v)
			require.NoError(t, err)
			orig := slices.Clone(data)
			out := AddWireKeys(data, c.v)
			require.True(t, json.Valid(out), "%s", out)
			assert.Equal(t, orig, data, "the encoding is not changed in place")
			var before, after any
			require.NoError(t, json.Unmarshal(data, &before))
			require.NoError(t, json.Unmarshal(out, &after))
			added := map[string]string{}
			jsonAdded(before, after, "", added)
			want := c.added
			if want == nil {
				want = map[string]string{}
				assert.Same(t, unsafeFirst(data), unsafeFirst(out), "nothing added: the same bytes")
			}
			assert.Equal(t, want, added, "%s", out)
			// What the SDK decodes is the value encoded.
			back := reflect.New(reflect.TypeOf(c.v))
			require.NoError(t, json.Unmarshal(out, back.Interface()))
			again, err := json.Marshal(back.Elem().Interface())
			require.NoError(t, err)
			assert.JSONEq(t, string(data), string(again))
		})
	}
}

func ptr[T any](v T) *T { return &v }

// unsafeFirst is the address of a slice's first byte (nil when empty).
func unsafeFirst(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// jsonAdded records the members after has and before has not: path → JSON
// of the value.
func jsonAdded(before, after any, path string, out map[string]string) {
	switch a := after.(type) {
	case map[string]any:
		b, _ := before.(map[string]any)
		for k, v := range a {
			p := k
			if path != "" {
				p = path + "." + k
			}
			bv, had := b[k]
			if !had {
				enc, _ := json.Marshal(v)
				out[p] = string(enc)
				continue
			}
			jsonAdded(bv, v, p, out)
		}
	case []any:
		b, _ := before.([]any)
		for i, v := range a {
			if i < len(b) {
				jsonAdded(b[i], v, path+"["+strconv.Itoa(i)+"]", out)
			}
		}
	}
}

// TestKeyFillerEdges runs the filler on hand-made plans and documents: an
// empty object, a variant on a nested member, a variant whose member is
// absent or holds another value, lists of lists, members with plans that
// hold null or a scalar, and strings with escapes.
func TestKeyFillerEdges(t *testing.T) {
	t.Parallel()
	plans := buildKeyPlans([]keyPlanSpec{
		{name: "O", always: []wireKey{{"a", "null"}},
			variants: []wireVariant{{path: "kind.type", values: []string{"x", "y"}, keys: []wireKey{{"b", "false"}}},
				{path: "flag", values: []string{"on"}, keys: []wireKey{{"c", "0"}}}},
			members: map[string]string{"kind": "K", "items": "K", "self": "O"}},
		{name: "K", always: []wireKey{{"n", "0"}}},
	})
	o := plans["O"]
	for _, c := range []struct{ in, want string }{
		{`{}`, `{"a":null}`},
		{`{"a":1}`, `{"a":1}`},
		{`{"kind":{"type":"x"}}`, `{"kind":{"type":"x","n":0},"a":null,"b":false}`},
		{`{"kind":{"type":"z","n":1},"a":2}`, `{"kind":{"type":"z","n":1},"a":2}`},
		{`{"kind":null,"a":2}`, `{"kind":null,"a":2}`},
		{`{"kind":"x","a":2}`, `{"kind":"x","a":2}`},
		{`{"flag":"on","a":2}`, `{"flag":"on","a":2,"c":0}`},
		{`{"flag":"off","a":2,"c":5}`, `{"flag":"off","a":2,"c":5}`},
		{`{"items":[{},{"n":2},[{}]],"a":1}`, `{"items":[{"n":0},{"n":2},[{"n":0}]],"a":1}`},
		{`{"self":{"self":{}},"a":1}`, `{"self":{"self":{"a":null},"a":null},"a":1}`},
		{`{"s":"a\"}{\\","t":["}",{"a":1}],"a":1}`, `{"s":"a\"}{\\","t":["}",{"a":1}],"a":1}`},
		{`[{},{"a":true}]` + "\n", `[{"a":null},{"a":true}]` + "\n"},
		{`{"s":"x\\\"}y\"\\","z":"\\","a":1}`, `{"s":"x\\\"}y\"\\","z":"\\","a":1}`},
		{`{"s":"\\\\","b":{}}`, `{"s":"\\\\","b":{},"a":null}`},
	} {
		f := keyFiller{src: []byte(c.in)}
		f.value(0, o)
		got := c.in
		if f.dst != nil {
			got = string(append(f.dst, f.src[f.last:]...))
		}
		assert.Equal(t, c.want, got, c.in)
	}
}

// TestKeyPlanMemberByLength checks the lookup of an object's keys in a
// plan: keys of one length told apart, and keys longer than the length table
// found all the same.
func TestKeyPlanMemberByLength(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("k", 70)
	plans := buildKeyPlans([]keyPlanSpec{{name: "O", always: []wireKey{{"ab", "null"}, {"cd", "0"}, {long, "false"}}}})
	o := plans["O"]
	for _, c := range []struct {
		key  string
		want string // the key's zero, "" when the plan does not know it
	}{
		{"ab", "null"}, {"cd", "0"}, {"ac", ""}, {"a", ""}, {long, "false"}, {long + "x", ""}, {long[1:], ""},
	} {
		m, ok := o.member([]byte(c.key))
		got := ""
		if ok {
			got = o.keys[bits.TrailingZeros64(m.bit)].zero
		}
		assert.Equal(t, c.want, got, c.key)
	}
}

// BenchmarkAddWireKeys measures the filler on a page of 100 charges, each
// missing keys, against the encoding it follows.
func BenchmarkAddWireKeys(b *testing.B) {
	page := make([]openpay.Transaction, 100)
	for i := range page {
		page[i] = openpay.Transaction{ID: "tr" + strconv.Itoa(i), Amount: openpay.MustAmount("100.00"),
			Method: openpay.TransactionMethodCard, Status: openpay.TransactionStatusCompleted, Description: "Cargo inicial",
			Card:     &openpay.Card{CardNumber: "411111XXXXXX1111", HolderName: "Juan Perez", Brand: openpay.CardBrandVisa},
			Metadata: openpay.Metadata{"sku": "A-1"}}
	}
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(page)
		}
	})
	b.Run("encode+keys", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, _ := json.Marshal(page)
			_ = AddWireKeys(data, page)
		}
	})
	b.Run("generated", func(b *testing.B) { // the same bytes as encode+keys (answers.go)
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _, _ = Append(buf[:0], page)
		}
	})
}
