package answer

import (
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/genfile"
	"github.com/stretchr/testify/require"
)

var updateAnswers = flag.Bool("update-answers", false, "rewrite answers.gen.go from the wire types")

const answersFile = "answers.gen.go"

// answerRoots are the wire types handlers give Write, alone or as a
// list; the generated dispatcher takes each as a value, a pointer or a
// slice. The other answers (maps, the server's own types) go through
// encoding/json.
var answerRoots = []reflect.Type{
	reflect.TypeFor[openpay.Transaction](), reflect.TypeFor[ErrorResponse](),
	reflect.TypeFor[openpay.Card](), reflect.TypeFor[openpay.Customer](),
	reflect.TypeFor[openpay.Subscription](),
	reflect.TypeFor[openpay.Plan](), reflect.TypeFor[openpay.BankAccount](),
	reflect.TypeFor[openpay.Webhook](), reflect.TypeFor[Token](),
	reflect.TypeFor[openpay.Merchant](), reflect.TypeFor[openpay.Store](),
	reflect.TypeFor[openpay.PointsBalance](), reflect.TypeFor[openpay.CardBIN](),
	reflect.TypeFor[openpay.BINPromotions](), reflect.TypeFor[openpay.FeesSummary](),
	reflect.TypeFor[openpay.PayoutSummary](),
}

// marshalerRoots are the wire types handlers give Write that have a
// MarshalJSON of their own, so that encoding/json writes them and
// AddWireKeys adds their plan's keys: a checkout, whose times and iva the
// gateway writes in other forms than time.Time's and Amount's.
var marshalerRoots = []reflect.Type{reflect.TypeFor[openpay.Checkout]()}

// TestAnswerEncodersAreGenerated generates the answer encoders from the wire
// types and compares them with answers.gen.go, so that a field added to a
// wire type fails here until the file is regenerated; with -update-answers
// (go generate) it writes the file instead.
func TestAnswerEncodersAreGenerated(t *testing.T) {
	src, _, err := generateAnswerEncoders(answerRoots)
	require.NoError(t, err)
	genfile.Check(t, answersFile, src, *updateAnswers, "go generate ./internal/refserver/answer")
}

// TestAnswerGeneratorRefusesWhatItCannotEncode: a kind the generator does
// not write must stop it rather than come out wrong.
func TestAnswerGeneratorRefusesWhatItCannotEncode(t *testing.T) {
	t.Parallel()
	type (
		withInterface struct{ V any }
		withArray     struct{ V [2]int }
		withBytes     struct{ V []byte }
		withFloat32   struct{ V float32 }
		withIntKeys   struct{ V map[int]string }
		withStringOpt struct {
			V int `json:"v,string"`
		}
		withText     struct{ V textOnly }
		withEmbedded struct{ openpay.Address }
		withDup      struct {
			A string `json:"B"`
			B string
		}
		withOddKey struct {
			A string `json:"a.b"`
		}
		withPtrMarshaler struct{ V ptrMarshaler }
		withChan         struct{ V chan int }
	)
	for _, c := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[withInterface](), "kind interface"},
		{reflect.TypeFor[withArray](), "kind array"},
		{reflect.TypeFor[withBytes](), "byte slices"},
		{reflect.TypeFor[withFloat32](), "kind float32"},
		{reflect.TypeFor[withIntKeys](), "map keys"},
		{reflect.TypeFor[withStringOpt](), "tag option"},
		{reflect.TypeFor[withText](), "MarshalText"},
		{reflect.TypeFor[withEmbedded](), "embedded"},
		{reflect.TypeFor[withDup](), "two fields"},
		{reflect.TypeFor[withOddKey](), "characters"},
		{reflect.TypeFor[withPtrMarshaler](), "pointer only"},
		{reflect.TypeFor[withChan](), "kind chan"},
		{reflect.TypeFor[[]openpay.Transaction](), "a root is a struct"},
	} {
		_, _, err := generateAnswerEncoders([]reflect.Type{c.typ})
		require.ErrorContains(t, err, c.want, "%s", c.typ)
	}
	_, _, err := generateAnswerEncoders(answerRoots)
	require.NoError(t, err)
}

type textOnly struct{}

func (textOnly) MarshalText() ([]byte, error) { return nil, nil }

type ptrMarshaler struct{}

func (*ptrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
	amountType        = reflect.TypeFor[openpay.Amount]()
	timeType          = reflect.TypeFor[time.Time]()
	answerPath        = ownPath
)

// answerGen is the state of one generation: the objects met so far, each
// of which gets a function.
type answerGen struct {
	units []answerUnit
	seen  map[answerUnit]bool
	names map[string]answerUnit
	plans map[string]keyPlanSpec // keyPlanTable by name
}

// answerUnit is a struct type encoded under a key plan (wirekeys.go), ""
// for none: the same type gets one function for each plan it is met with
// (a card in a transaction always has an address key, a card alone not).
type answerUnit struct {
	typ  reflect.Type
	plan string
}

// generateAnswerEncoders writes the source of answers.gen.go for roots, and
// returns the struct types it wrote a function for.
func generateAnswerEncoders(roots []reflect.Type) ([]byte, []reflect.Type, error) {
	g := &answerGen{seen: map[answerUnit]bool{}, names: map[string]answerUnit{}, plans: map[string]keyPlanSpec{}}
	for _, sp := range keyPlanTable {
		g.plans[sp.name] = sp
	}
	var disp strings.Builder
	for _, root := range roots {
		if root.Kind() != reflect.Struct {
			return nil, nil, fmt.Errorf("root %s: a root is a struct type", root)
		}
		plan := "" // as planFor finds it
		if _, ok := g.plans[root.Name()]; ok && (root.PkgPath() == openpayPath || root.PkgPath() == answerPath) {
			plan = root.Name()
		}
		fn, err := g.unitFunc(answerUnit{root, plan})
		if err != nil {
			return nil, nil, err
		}
		name := goTypeName(root)
		fmt.Fprintf(&disp, "case %s:\nb, err = %s(b, &v)\n", name, fn)
		fmt.Fprintf(&disp, "case *%s:\nb, err = appendJSONPointer(b, v, %s)\n", name, fn)
		fmt.Fprintf(&disp, "case []%s:\nb, err = appendJSONList(b, v, %s)\n", name, fn)
	}
	var funcs []string
	var structs []reflect.Type
	for i := 0; i < len(g.units); i++ { // unitBody may append more
		src, err := g.unitBody(g.units[i])
		if err != nil {
			return nil, nil, err
		}
		funcs = append(funcs, src)
		if !slices.Contains(structs, g.units[i].typ) {
			structs = append(structs, g.units[i].typ)
		}
	}
	slices.Sort(funcs)
	var out strings.Builder
	out.WriteString("// Code generated by TestAnswerEncodersAreGenerated from the wire types; DO NOT EDIT.\n\n")
	out.WriteString("package answer\n\nimport (\n")
	body := disp.String() + strings.Join(funcs, "")
	for _, imp := range []string{"slices", "strconv", "time"} {
		if strings.Contains(body, imp+".") {
			fmt.Fprintf(&out, "%q\n", imp)
		}
	}
	fmt.Fprintf(&out, "\n%q\n)\n\n", openpayPath)
	out.WriteString(`// Append appends v's JSON and a newline, as a json.Encoder with
// HTML escaping off writes them, when v is a wire type with a generated
// encoder (alone, by pointer or a list of them); ok is false for any other
// v, which b is returned unchanged for.
func Append(b []byte, v any) (_ []byte, ok bool, err error) {
switch v := v.(type) {
`)
	out.WriteString(disp.String())
	out.WriteString("default:\nreturn b, false, nil\n}\nif err != nil {\nreturn b, true, err\n}\nreturn append(b, '\\n'), true, nil\n}\n")
	for _, f := range funcs {
		out.WriteString("\n" + f)
	}
	src, err := format.Source([]byte(out.String()))
	if err != nil {
		return nil, nil, fmt.Errorf("generated code does not parse: %w\n%s", err, out.String())
	}
	return src, structs, nil
}

// memoizedEncoders are the generated encoders whose callers go through a
// hand-written memo of their output instead (cardmemo.go), by name.
var memoizedEncoders = map[string]string{"appendCardForTransactionCard": "appendTransactionCard"}

// unitFunc is the name of the function for u, queued for writing when new:
// append and the type's name, then For and the plan's when that is another
// (a card in a transaction: appendCardForTransactionCard), or Bare when it
// has none and the type has a plan of its own name.
func (g *answerGen) unitFunc(u answerUnit) (string, error) {
	typ := u.typ
	if typ.Name() == "" || typ.PkgPath() != openpayPath && typ.PkgPath() != answerPath {
		return "", fmt.Errorf("%s: only named struct types of the openpay package (or of this one, in tests) get an encoder", typ)
	}
	name := "append" + typ.Name()
	if u.plan != "" {
		if _, ok := g.plans[u.plan]; !ok {
			return "", fmt.Errorf("%s: no key plan %s", typ, u.plan)
		}
		if u.plan != typ.Name() {
			name += "For"
			for part := range strings.SplitSeq(u.plan, ".") {
				name += strings.ToUpper(part[:1]) + part[1:]
			}
		}
	} else if _, ok := g.plans[typ.Name()]; ok {
		name += "Bare"
	}
	if other, ok := g.names[name]; ok && other != u {
		return "", fmt.Errorf("%s under plan %q and %s under plan %q would both be %s", typ, u.plan, other.typ, other.plan, name)
	}
	g.names[name] = u
	if !g.seen[u] {
		g.seen[u] = true
		g.units = append(g.units, u)
	}
	return name, nil
}

// answerField is one member of an object.
type answerField struct {
	key                 string
	goName              string
	typ                 reflect.Type
	omitEmpty, omitZero bool
}

// fieldsOf lists the members encoding/json writes for typ, in its order.
func fieldsOf(typ reflect.Type) ([]answerField, error) {
	var fields []answerField
	keys := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous {
			return nil, fmt.Errorf("%s.%s: embedded fields are not handled", typ, f.Name)
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		af := answerField{key: name, goName: f.Name, typ: f.Type}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "":
			case "omitempty":
				af.omitEmpty = true
			case "omitzero":
				af.omitZero = true
			default:
				return nil, fmt.Errorf("%s.%s: tag option %q is not handled", typ, f.Name, opt)
			}
		}
		for _, r := range name {
			if !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
				return nil, fmt.Errorf("%s.%s: key %q has characters the generator does not write", typ, f.Name, name)
			}
		}
		if keys[name] {
			return nil, fmt.Errorf("%s: two fields have the key %q", typ, name)
		}
		keys[name] = true
		fields = append(fields, af)
	}
	return fields, nil
}

// unitBody is the source of the function for u.
func (g *answerGen) unitBody(u answerUnit) (string, error) {
	typ := u.typ
	fields, err := fieldsOf(typ)
	if err != nil {
		return "", err
	}
	var spec keyPlanSpec
	if u.plan != "" {
		spec = g.plans[u.plan]
		for key := range spec.members {
			if !slices.ContainsFunc(fields, func(f answerField) bool { return f.key == key }) {
				return "", fmt.Errorf("%s: plan %s has member %s, which is no field", typ, u.plan, key)
			}
		}
	}
	// An object with two dates or more writes them through a timeMemo, so
	// that a date equal to the one written before it (a charge operated
	// when created) is copied.
	times := 0
	for _, f := range fields {
		if f.typ == timeType {
			times++
		}
	}
	omits := map[string]string{} // key: condition under which it is left out
	var w strings.Builder
	written := false   // a member has surely been written before this one
	needStart := false // the code checks whether the object is still empty
	for i, f := range fields {
		expr := "v." + f.goName
		omit, err := omitCondition(f, expr)
		if err != nil {
			return "", err
		}
		if omit != "" {
			fmt.Fprintf(&w, "if %s {\n", negate(omit))
		}
		switch {
		case written:
			fmt.Fprintf(&w, "b = append(b, %s...)\n", strconv.Quote(`,"`+f.key+`":`))
		case i == 0:
			fmt.Fprintf(&w, "b = append(b, %s...)\n", strconv.Quote(`"`+f.key+`":`))
		default:
			needStart = true
			w.WriteString("if len(b) > start {\nb = append(b, ',')\n}\n")
			fmt.Fprintf(&w, "b = append(b, %s...)\n", strconv.Quote(`"`+f.key+`":`))
		}
		if f.typ == timeType && times > 1 {
			fmt.Fprintf(&w, "if b, err = dates.append(b, %s); err != nil {\nreturn b, err\n}\n", expr)
		} else if err := g.value(&w, f.typ, expr, 0, spec.members[f.key]); err != nil {
			return "", fmt.Errorf("%s.%s: %w", typ, f.goName, err)
		}
		omits[f.key] = omit
		if omit != "" {
			w.WriteString("}\n")
		} else {
			written = true
		}
	}
	// The keys the plan adds when the encoding leaves them out, at the end
	// of the object and in the order of the plan's keys, as addWireKeys does.
	var keys []wireKey
	wants := map[string][]string{} // key: conditions under which the plan wants it, "true" for always
	for _, k := range spec.always {
		if _, ok := wants[k.name]; !ok {
			keys = append(keys, k)
		}
		wants[k.name] = append(wants[k.name], "true")
	}
	for _, vr := range spec.variants {
		cond, err := variantCondition(typ, "v", strings.Split(vr.path, "."), vr.values)
		if err != nil {
			return "", fmt.Errorf("plan %s: %w", u.plan, err)
		}
		for _, k := range vr.keys {
			if _, ok := wants[k.name]; !ok {
				keys = append(keys, k)
			}
			wants[k.name] = append(wants[k.name], cond)
		}
	}
	for _, k := range keys {
		omit, isField := omits[k.name]
		if isField && omit == "" {
			continue // always written
		}
		var conds []string
		if isField {
			conds = append(conds, "("+omit+")")
		}
		if want := wants[k.name]; !slices.Contains(want, "true") {
			conds = append(conds, "("+strings.Join(want, " || ")+")")
		}
		if len(conds) > 0 {
			fmt.Fprintf(&w, "if %s {\n", strings.Join(conds, " && "))
		}
		if !written {
			needStart = true
			w.WriteString("if len(b) > start {\nb = append(b, ',')\n}\n")
			fmt.Fprintf(&w, "b = append(b, %s...)\n", strconv.Quote(`"`+k.name+`":`+k.zero))
		} else {
			fmt.Fprintf(&w, "b = append(b, %s...)\n", strconv.Quote(`,"`+k.name+`":`+k.zero))
		}
		if len(conds) > 0 {
			w.WriteString("}\n")
		} else {
			written = true
		}
	}
	body := w.String()
	var out strings.Builder
	fn, _ := g.unitFunc(u)
	if u.plan != "" {
		fmt.Fprintf(&out, "// %s appends the JSON object of *v, with the keys of plan %s.\n", fn, u.plan)
	} else {
		fmt.Fprintf(&out, "// %s appends the JSON object of *v.\n", fn)
	}
	fmt.Fprintf(&out, "func %s(b []byte, v *%s) ([]byte, error) {\n", fn, goTypeName(typ))
	if strings.Contains(body, "err =") {
		out.WriteString("var err error\n")
	}
	if times > 1 {
		out.WriteString("var dates timeMemo\n")
	}
	if needStart {
		out.WriteString("b = append(b, '{')\nstart := len(b)\n")
	} else {
		out.WriteString("b = append(b, '{')\n")
	}
	out.WriteString(body)
	out.WriteString("return append(b, '}'), nil\n}\n")
	return out.String(), nil
}

// omitCondition is the Go condition under which encoding/json leaves field
// f (held in expr) out, "" when it always writes it.
func omitCondition(f answerField, expr string) (string, error) {
	var conds []string
	t := f.typ
	if f.omitEmpty {
		switch t.Kind() {
		case reflect.Map, reflect.Slice: // empty, not only nil
			conds = append(conds, "len("+expr+") == 0")
		case reflect.Struct: // never empty
		default:
			c, ok := zeroCondition(t.Kind(), expr)
			if !ok {
				return "", fmt.Errorf("%s: omitempty on a %s is not handled", f.goName, t.Kind())
			}
			conds = append(conds, c)
		}
	}
	if f.omitZero {
		switch {
		case t.Implements(isZeroerType) && t.Kind() == reflect.Pointer:
			conds = append(conds, expr+" == nil || "+expr+".IsZero()")
		case t.Implements(isZeroerType):
			conds = append(conds, expr+".IsZero()")
		case reflect.PointerTo(t).Implements(isZeroerType):
			return "", fmt.Errorf("%s: IsZero on the pointer only is not handled", f.goName)
		default:
			switch c, ok := zeroCondition(t.Kind(), expr); {
			case ok:
				conds = append(conds, c)
			case t.Kind() == reflect.Struct:
				if !t.Comparable() {
					return "", fmt.Errorf("%s: omitzero on an incomparable struct is not handled", f.goName)
				}
				conds = append(conds, expr+" == ("+goTypeName(t)+"{})")
			default:
				return "", fmt.Errorf("%s: omitzero on a %s is not handled", f.goName, t.Kind())
			}
		}
	}
	conds = slices.Compact(conds)
	if len(conds) > 1 {
		for i, c := range conds {
			conds[i] = "(" + c + ")"
		}
	}
	return strings.Join(conds, " || "), nil
}

// zeroCondition is the Go condition under which expr, of a kind other than
// a struct, holds its zero value; false for a kind it does not handle.
func zeroCondition(k reflect.Kind, expr string) (string, bool) {
	switch k {
	case reflect.Bool:
		return "!" + expr, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float64:
		return expr + " == 0", true
	case reflect.String:
		return expr + ` == ""`, true
	case reflect.Pointer, reflect.Map, reflect.Slice:
		return expr + " == nil", true
	}
	return "", false
}

// value writes to w the code that appends the JSON of expr, of type t.
// expr is addressable; depth numbers the loop variables.
// plan is the key plan of the objects expr holds, "" for none.
func (g *answerGen) value(w *strings.Builder, t reflect.Type, expr string, depth int, plan string) error {
	if plan != "" {
		inner := t
		for inner.Kind() == reflect.Pointer || inner.Kind() == reflect.Slice {
			inner = inner.Elem()
		}
		if inner.Kind() != reflect.Struct || inner.Implements(marshalerType) {
			return fmt.Errorf("%s: key plan %s on a value that is not an object", t, plan)
		}
	}
	if reflect.PointerTo(t).Implements(marshalerType) && !t.Implements(marshalerType) {
		return fmt.Errorf("%s: a MarshalJSON on the pointer only is not handled", t)
	}
	if t.Kind() != reflect.Pointer && !t.Implements(marshalerType) && reflect.PointerTo(t).Implements(textMarshalerType) {
		return fmt.Errorf("%s: a MarshalText without MarshalJSON is not handled", t)
	}
	check := func(call string) {
		fmt.Fprintf(w, "if b, err = %s; err != nil {\nreturn b, err\n}\n", call)
	}
	switch {
	case t == amountType:
		check(expr + ".AppendText(b)")
		return nil
	case t == timeType:
		check("appendJSONTime(b, " + expr + ")")
		return nil
	case t.Kind() != reflect.Pointer && t.Implements(marshalerType):
		check("appendMarshaled(b, " + expr + ")")
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if t.Name() == "string" && t.PkgPath() == "" {
			fmt.Fprintf(w, "b = appendJSONString(b, %s)\n", expr)
		} else {
			fmt.Fprintf(w, "b = appendJSONString(b, string(%s))\n", expr)
		}
	case reflect.Bool:
		fmt.Fprintf(w, "b = strconv.AppendBool(b, bool(%s))\n", expr)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprintf(w, "b = strconv.AppendInt(b, int64(%s), 10)\n", expr)
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		fmt.Fprintf(w, "b = strconv.AppendUint(b, uint64(%s), 10)\n", expr)
	case reflect.Float64:
		check("appendJSONFloat(b, float64(" + expr + "))")
	case reflect.Pointer:
		fmt.Fprintf(w, "if %s == nil {\nb = append(b, \"null\"...)\n} else {\n", expr)
		if err := g.value(w, t.Elem(), "(*"+expr+")", depth, plan); err != nil {
			return err
		}
		w.WriteString("}\n")
	case reflect.Struct:
		fn, err := g.unitFunc(answerUnit{t, plan})
		if err != nil {
			return err
		}
		addr := "&" + expr
		if strings.HasPrefix(expr, "(*") && strings.HasSuffix(expr, ")") {
			addr = expr[2 : len(expr)-1]
		}
		if memo, ok := memoizedEncoders[fn]; ok {
			fn = memo
		}
		check(fn + "(b, " + addr + ")")
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return fmt.Errorf("%s: byte slices (base64) are not handled", t)
		}
		i := "i" + strconv.Itoa(depth)
		fmt.Fprintf(w, "if %s == nil {\nb = append(b, \"null\"...)\n} else {\n", expr)
		fmt.Fprintf(w, "b = append(b, '[')\nfor %s := range %s {\nif %s > 0 {\nb = append(b, ',')\n}\n", i, expr, i)
		if err := g.value(w, t.Elem(), expr+"["+i+"]", depth+1, plan); err != nil {
			return err
		}
		w.WriteString("}\nb = append(b, ']')\n}\n")
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("%s: map keys other than strings are not handled", t)
		}
		d := strconv.Itoa(depth)
		keys, j, k, mv := "keys"+d, "j"+d, "k"+d, "mv"+d
		key := k
		if kt := t.Key(); kt.Name() != "string" || kt.PkgPath() != "" {
			key = goTypeName(kt) + "(" + k + ")"
		}
		fmt.Fprintf(w, "if %s == nil {\nb = append(b, \"null\"...)\n} else {\n", expr)
		fmt.Fprintf(w, "%s := make([]string, 0, len(%s))\nfor %s := range %s {\n%s = append(%s, string(%s))\n}\nslices.Sort(%s)\n",
			keys, expr, k, expr, keys, keys, k, keys)
		fmt.Fprintf(w, "b = append(b, '{')\nfor %s, %s := range %s {\nif %s > 0 {\nb = append(b, ',')\n}\n", j, k, keys, j)
		fmt.Fprintf(w, "b = appendJSONString(b, %s)\nb = append(b, ':')\n%s := %s[%s]\n", k, mv, expr, key)
		if err := g.value(w, t.Elem(), mv, depth+1, ""); err != nil {
			return err
		}
		w.WriteString("}\nb = append(b, '}')\n}\n")
	default:
		return fmt.Errorf("%s: kind %s is not handled", t, t.Kind())
	}
	return nil
}

// goTypeName is how the generated file names t.
func goTypeName(t reflect.Type) string {
	switch {
	case t.PkgPath() == openpayPath:
		return "openpay." + t.Name()
	case t.PkgPath() == "time":
		return "time." + t.Name()
	case t.PkgPath() == "" && t.Name() != "", t.PkgPath() == answerPath:
		return t.Name()
	}
	panic("refserver test: no name for type " + t.String())
}

// negate is the opposite of condition c, as omitCondition writes them.
func negate(c string) string {
	if strings.Contains(c, "||") {
		return "!(" + c + ")"
	}
	for _, op := range [][2]string{{" == nil", " != nil"}, {" == 0", " != 0"}, {` == ""`, ` != ""`}} {
		if x, ok := strings.CutSuffix(c, op[0]); ok {
			return x + op[1]
		}
	}
	if x, ok := strings.CutPrefix(c, "!"); ok {
		return x
	}
	return "!" + c
}

// variantCondition is the Go condition under which the member at path of
// the object expr (of type typ) is written and is a string among values:
// when a plan's variant applies.
func variantCondition(typ reflect.Type, expr string, path, values []string) (string, error) {
	fields, err := fieldsOf(typ)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(fields, func(f answerField) bool { return f.key == path[0] })
	if i < 0 {
		return "", fmt.Errorf("%s has no member %s", typ, path[0])
	}
	f := fields[i]
	expr += "." + f.goName
	var conds []string
	omit, err := omitCondition(f, expr)
	if err != nil {
		return "", err
	}
	if omit != "" {
		conds = append(conds, negate(omit))
	}
	t := f.typ
	if t.Kind() == reflect.Pointer && omit != expr+" == nil" {
		conds = append(conds, expr+" != nil")
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case len(path) > 1 && t.Kind() == reflect.Struct && !t.Implements(marshalerType):
		rest, err := variantCondition(t, expr, path[1:], values)
		if err != nil {
			return "", err
		}
		conds = append(conds, rest)
	case len(path) == 1 && len(values) == 0:
		// Any value: the member is written (and, a pointer, not nil).
		if len(conds) == 0 {
			conds = append(conds, "true")
		}
	case len(path) == 1 && t.Kind() == reflect.String && !t.Implements(marshalerType) && f.typ.Kind() != reflect.Pointer:
		var eq []string
		for _, v := range values {
			if b, _ := json.Marshal(v); string(b) != strconv.Quote(v) {
				return "", fmt.Errorf("variant value %q needs escaping", v)
			}
			eq = append(eq, "string("+expr+") == "+strconv.Quote(v))
		}
		conds = append(conds, "("+strings.Join(eq, " || ")+")")
	default:
		return "", fmt.Errorf("%s.%s: a variant looks at a %s", typ, f.goName, f.typ)
	}
	return strings.Join(conds, " && "), nil
}
