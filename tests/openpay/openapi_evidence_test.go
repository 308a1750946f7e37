package openpay_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenAPIEvidenceKeys checks the keys that keep the evidence out of the
// descriptions: a property's x-openpay-lenient list names rules of
// components.x-openpay-lenient, x-openpay-evidence is text, and no
// description points at the extension keys (the descriptions become Go doc).
func TestOpenAPIEvidenceKeys(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	rules, ok := doc.Components.Extensions["x-openpay-lenient"].(map[string]any)
	require.True(t, ok, "components.x-openpay-lenient maps rule names to their descriptions")

	used := map[string]int{}
	var check func(where string, s *openapi3.Schema, depth int)
	check = func(where string, s *openapi3.Schema, depth int) {
		if s == nil || depth > 3 {
			return
		}
		assert.NotContains(t, s.Description, "x-openpay", "%s: the description names an extension key", where)
		if raw, ok := s.Extensions["x-openpay-lenient"]; ok {
			list, ok := raw.([]any)
			if assert.True(t, ok, "%s: x-openpay-lenient is a list of rule names", where) {
				for _, r := range list {
					name, _ := r.(string)
					assert.Contains(t, rules, name, "%s: unknown loose-input rule %v", where, r)
					used[name]++
				}
			}
		}
		if raw, ok := s.Extensions["x-openpay-evidence"]; ok {
			text, _ := raw.(string)
			assert.NotEmpty(t, strings.TrimSpace(text), "%s: x-openpay-evidence is text", where)
		}
		for name, p := range s.Properties {
			if p.Ref == "" { // a $ref's target is checked as a schema
				check(where+"."+name, p.Value, depth+1)
			}
		}
	}
	names := make([]string, 0, len(doc.Components.Schemas))
	for name := range doc.Components.Schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		check(name, doc.Components.Schemas[name].Value, 0)
	}
	assert.Greater(t, len(used), 5, "properties name the loose forms they take")
}
