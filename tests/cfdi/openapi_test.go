package cfdi_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openAPIPath is the project's description of the wire, at the module root.
const openAPIPath = "../../openapi.yaml"

// schemaCasesFile holds the values package cfdi encodes, each with the
// schema it must match or break (cfdi's TestSchemaCasesAreGenerated keeps
// it up to date).
const schemaCasesFile = "../../cfdi/testdata/schema_cases.json"

type schemaCase struct {
	Name   string          `json:"name"`
	Schema string          `json:"schema"`
	Valid  bool            `json:"valid"`
	Value  json.RawMessage `json:"value"`
}

// checkCases validates the named cases of schemaCasesFile against their
// schemas: each is accepted or refused as the case says.
func checkCases(t *testing.T, names ...string) {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(openAPIPath)
	require.NoError(t, err, "%s must load", openAPIPath)
	src, err := os.ReadFile(schemaCasesFile)
	require.NoError(t, err)
	var cases []schemaCase
	require.NoError(t, json.Unmarshal(src, &cases))
	byName := map[string]schemaCase{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	for _, name := range names {
		c, ok := byName[name]
		require.True(t, ok, "%s has no case %q: run go generate ./cfdi", schemaCasesFile, name)
		ref := doc.Components.Schemas[c.Schema]
		require.NotNil(t, ref, "openapi.yaml has no schema %s", c.Schema)
		var v any
		require.NoError(t, json.Unmarshal(c.Value, &v))
		if err := ref.Value.VisitJSON(v); c.Valid {
			assert.NoError(t, err, "%s against %s", name, c.Schema)
		} else {
			assert.Error(t, err, "%s against %s", name, c.Schema)
		}
	}
}

// What the package produces and calls valid is valid against the schema too.
func TestValidRequestsMatchTheSchema(t *testing.T) {
	t.Parallel()
	checkCases(t, "built", "full", "notification")
}

// The schema and Validate agree on decimals: six where the CFDI standard
// allows them, two for the invoice's totals (Validate's half is cfdi's
// test of the same name). A total with a third decimal: the Go type cannot
// even send it; the schema refuses it too.
func TestSchemaDecimalsAgreeWithValidate(t *testing.T) {
	t.Parallel()
	checkCases(t, "unit price with six decimals", "unit price with seven decimals", "quantity with six decimals",
		"quantity with seven decimals", "importe with three decimals", "tax importe with seven decimals",
		"total with a third decimal")
}
