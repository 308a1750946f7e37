// Package openapidoc reads what the project's own tests check of
// openapi.yaml (its operations, its component schemas and their x- keys)
// with the YAML decoder the reference server already links, so that the
// SDK's module needs no OpenAPI library. The checks that need one (the
// document's validity, values validated against schemas) are in the nested
// module tests/, which requires kin-openapi.
//
// It knows OpenAPI 3.0 as openapi.yaml writes it: a $ref names a component
// schema (#/components/schemas/Name) and replaces its object.
package openapidoc

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Doc is an OpenAPI document: its operations by path and method, and its
// components.
type Doc struct {
	// Paths maps a path template to its operations by HTTP method
	// (upper case, as net/http writes it).
	Paths map[string]map[string]*Operation
	// Components holds the component schemas, every $ref resolved, and
	// the components' own x- keys.
	Components struct {
		Schemas    map[string]*SchemaRef
		Extensions map[string]any
	}
}

// Operation is one operation of a path.
type Operation struct {
	OperationID string
	// Responses are the keys of its responses: status codes and "default".
	Responses []string
	// Security is nil when the operation takes the document's, and an
	// empty list when it needs no credentials.
	Security *[]map[string][]string
}

// SchemaRef is a schema, or a reference to a component schema (Ref set,
// Value the schema it names).
type SchemaRef struct {
	Ref   string
	Value *Schema
}

// Schema holds the keywords of a schema the tests read; Extensions holds
// its x- keys as YAML decodes them (a number is an int or a float64).
type Schema struct {
	Properties map[string]*SchemaRef
	Required   []string
	Extensions map[string]any
	Nullable   bool
	Type       *Types
	Format     string
	AllOf      []*SchemaRef
	OneOf      []*SchemaRef
	Enum       []any
	Items      *SchemaRef
}

// Types is a schema's type: one name in OpenAPI 3.0.
type Types []string

// Is reports whether the type is exactly typ.
func (ts *Types) Is(typ string) bool { return ts != nil && len(*ts) == 1 && (*ts)[0] == typ }

// methods are the keys of a path item that name operations.
var methods = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodOptions,
	http.MethodHead, http.MethodPatch, http.MethodTrace}

// Load reads the OpenAPI document at path.
func Load(path string) (*Doc, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Paths      map[string]map[string]yaml.Node `yaml:"paths"`
		Components map[string]any                  `yaml:"components"`
	}
	if err := yaml.Unmarshal(src, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc := &Doc{Paths: map[string]map[string]*Operation{}}
	for p, item := range raw.Paths {
		ops := map[string]*Operation{}
		for key, node := range item {
			method := strings.ToUpper(key)
			if !slices.Contains(methods, method) {
				continue // the path's parameters, summary, ...
			}
			var op struct {
				OperationID string                 `yaml:"operationId"`
				Responses   map[string]yaml.Node   `yaml:"responses"`
				Security    *[]map[string][]string `yaml:"security"`
			}
			if err := node.Decode(&op); err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", path, method, p, err)
			}
			o := &Operation{OperationID: op.OperationID, Security: op.Security}
			for code := range op.Responses {
				o.Responses = append(o.Responses, code)
			}
			slices.Sort(o.Responses)
			ops[method] = o
		}
		doc.Paths[p] = ops
	}

	schemas, _ := raw.Components["schemas"].(map[string]any)
	doc.Components.Schemas = map[string]*SchemaRef{}
	doc.Components.Extensions = map[string]any{}
	for k, v := range raw.Components {
		if strings.HasPrefix(k, "x-") {
			doc.Components.Extensions[k] = v
		}
	}
	for name := range schemas {
		doc.Components.Schemas[name] = &SchemaRef{Value: &Schema{}}
	}
	var firstErr error
	fail := func(format string, args ...any) {
		if firstErr == nil {
			firstErr = fmt.Errorf("%s: "+format, append([]any{path}, args...)...)
		}
	}
	var build func(where string, v any) *SchemaRef
	build = func(where string, v any) *SchemaRef {
		m, ok := v.(map[string]any)
		if !ok {
			fail("%s: a schema is an object", where)
			return &SchemaRef{Value: &Schema{}}
		}
		if ref, ok := m["$ref"].(string); ok {
			target := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
			if target == nil {
				fail("%s: $ref %s names no component schema", where, ref)
				return &SchemaRef{Ref: ref, Value: &Schema{}}
			}
			return &SchemaRef{Ref: ref, Value: target.Value}
		}
		list := func(key string) []*SchemaRef {
			items, _ := m[key].([]any)
			var out []*SchemaRef
			for i, a := range items {
				out = append(out, build(fmt.Sprintf("%s.%s[%d]", where, key, i), a))
			}
			return out
		}
		s := &Schema{Extensions: map[string]any{}, AllOf: list("allOf"), OneOf: list("oneOf")}
		for k, x := range m {
			switch {
			case k == "properties":
				props, _ := x.(map[string]any)
				s.Properties = map[string]*SchemaRef{}
				for name, p := range props {
					s.Properties[name] = build(where+"."+name, p)
				}
			case k == "required":
				names, _ := x.([]any)
				for _, r := range names {
					name, _ := r.(string)
					s.Required = append(s.Required, name)
				}
			case k == "nullable":
				s.Nullable, _ = x.(bool)
			case k == "type":
				name, _ := x.(string)
				s.Type = &Types{name}
			case k == "format":
				s.Format, _ = x.(string)
			case k == "enum":
				s.Enum, _ = x.([]any)
			case k == "items":
				s.Items = build(where+"[]", x)
			case strings.HasPrefix(k, "x-"):
				s.Extensions[k] = x
			}
		}
		return &SchemaRef{Value: s}
	}
	for name, v := range schemas {
		if m, ok := v.(map[string]any); ok && m["$ref"] != nil {
			fail("component schema %s is only a $ref, which Load does not resolve", name)
			continue
		}
		*doc.Components.Schemas[name].Value = *build(name, v).Value
	}
	return doc, firstErr
}
