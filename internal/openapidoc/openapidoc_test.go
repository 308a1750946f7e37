package openapidoc

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The module's own document reads with its operations, its schemas and
// their references resolved to the component they name.
func TestLoadOpenAPI(t *testing.T) {
	doc, err := Load("../../openapi.yaml")
	require.NoError(t, err)
	n := 0
	for _, ops := range doc.Paths {
		n += len(ops)
	}
	assert.GreaterOrEqual(t, n, 90, "operations")
	stores := doc.Paths["/stores"][http.MethodGet]
	require.NotNil(t, stores)
	require.NotNil(t, stores.Security)
	assert.Empty(t, *stores.Security, "the store lookup needs no credentials")
	charge := doc.Paths["/v1/{merchant_id}/charges"][http.MethodPost]
	require.NotNil(t, charge)
	assert.Equal(t, "createCharge", charge.OperationID)
	assert.Nil(t, charge.Security, "the document's security")
	assert.Contains(t, charge.Responses, "default")

	tx := doc.Components.Schemas["Transaction"]
	require.NotNil(t, tx)
	card := tx.Value.Properties["card"]
	require.NotNil(t, card)
	if card.Ref == "" { // nullable: an allOf of the one schema
		require.Len(t, card.Value.AllOf, 1)
		card = card.Value.AllOf[0]
	}
	assert.Equal(t, "#/components/schemas/Card", card.Ref)
	assert.Same(t, doc.Components.Schemas["Card"].Value, card.Value, "a $ref is the component's schema itself")
	assert.Contains(t, doc.Components.Extensions, "x-openpay-lenient")
}

func TestLoadRefusesWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	_, err := Load(write("dangling.yaml", "components:\n  schemas:\n    A:\n      properties:\n        b: {$ref: '#/components/schemas/B'}\n"))
	assert.ErrorContains(t, err, "names no component schema")
	_, err = Load(write("alias.yaml", "components:\n  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {type: string}\n"))
	assert.ErrorContains(t, err, "only a $ref")
	_, err = Load(filepath.Join(dir, "missing.yaml"))
	assert.Error(t, err)
}
