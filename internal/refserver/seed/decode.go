package seed

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/openpay-go/openpay"
	"go.yaml.in/yaml/v3"
)

// Reading a seed file. JSON is YAML (a JSON document is a YAML flow
// mapping), so one parser reads both, and one decoder maps the parsed nodes
// onto the seed's types by their json tags. The decoder is stricter than the
// API's request reader (package reqbody), as suits a file a person writes: an
// unknown or repeated member is refused, so a misspelt member cannot be
// dropped silently. And it is friendlier about YAML's types: a scalar goes
// into a text field as written, so card numbers, CLABEs, security codes and
// months may be left unquoted ("cvv2: 012" stays "012"). Every error names
// the line and the path of the member ("line 12: merchants[0].customers[1].
// email: ...").

// maxNodes bounds the nodes a seed may expand to, aliases included, so
// that a file of nested aliases (the "billion laughs") cannot exhaust memory.
const maxNodes = 100_000

// decoder decodes parsed YAML nodes into Go values.
type decoder struct {
	nodes int // nodes decoded so far
}

// decodeDocument parses data (JSON or YAML) and decodes its one
// document into dst, a pointer to a struct.
func decodeDocument(data []byte, dst any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("not valid JSON or YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return fmt.Errorf("the file is empty")
	}
	var d decoder
	return d.decode(doc.Content[0], reflect.ValueOf(dst).Elem(), "")
}

// decode decodes node n into v; path names n in errors ("" for the root).
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) error {
	d.nodes++
	if d.nodes > maxNodes {
		return fmt.Errorf("line %d: the file expands to more than %d values", n.Line, maxNodes)
	}
	if n.Kind == yaml.AliasNode {
		return d.decode(n.Alias, v, path)
	}
	fail := func(format string, args ...any) error {
		name := path
		if name == "" {
			name = "the document"
		}
		return fmt.Errorf("line %d: %s: %s", n.Line, name, fmt.Sprintf(format, args...))
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil // absent: the zero value
	}
	t := v.Type()
	if t == reflect.TypeFor[openpay.Amount]() {
		if n.Kind != yaml.ScalarNode {
			return fail("must be an amount")
		}
		if err := v.Addr().Interface().(*openpay.Amount).UnmarshalText([]byte(n.Value)); err != nil {
			return fail("must be an amount, such as 1500.00")
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fail("must be a mapping (an object)")
		}
		members := memberIndex(t)
		seen := make(map[string]bool)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i], n.Content[i+1]
			if key.Kind != yaml.ScalarNode {
				return fail("has a member whose name is not text")
			}
			name := key.Value
			sub := name
			if path != "" {
				sub = path + "." + name
			}
			if seen[name] {
				return fmt.Errorf("line %d: %s: repeated", key.Line, sub)
			}
			seen[name] = true
			idx, ok := members[name]
			if !ok {
				return fmt.Errorf("line %d: %s: unknown member", key.Line, sub)
			}
			if err := d.decode(val, v.FieldByIndex(idx), sub); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return fail("must be a list")
		}
		s := reflect.MakeSlice(t, len(n.Content), len(n.Content))
		for i, el := range n.Content {
			if err := d.decode(el, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := d.decode(n, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	if n.Kind != yaml.ScalarNode {
		return fail("must be a single value")
	}
	switch t.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			return fail("must be true or false")
		}
		v.SetBool(b)
	case reflect.Int:
		i, err := strconv.Atoi(n.Value)
		if n.ShortTag() != "!!int" || err != nil {
			return fail("must be a whole number")
		}
		v.SetInt(int64(i))
	default:
		return fail("cannot be read into %s", t) // a seed type the decoder does not know
	}
	return nil
}

// memberIndex maps the json names of struct type t's fields to their index
// paths, the fields of embedded structs included, as encoding/json promotes
// them (a field of t itself wins over an embedded one of the same name).
func memberIndex(t reflect.Type) map[string][]int {
	out := make(map[string][]int)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for n, idx := range memberIndex(f.Type) {
				out[n] = append([]int{i}, idx...)
			}
		}
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() || (f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct) {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = []int{i}
	}
	return out
}
