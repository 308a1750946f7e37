package answer

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/internal/openapidoc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTokenFollowsItsSchema: the server's Token and TokenCard have the
// members of openapi.yaml's Token and TokenCard schemas, no more and no
// fewer, so that a token's answer keeps the gateway's shape while the SDK
// reads its card as a stored card's type.
func TestTokenFollowsItsSchema(t *testing.T) {
	t.Parallel()
	doc, err := openapidoc.Load(openAPIPath)
	require.NoError(t, err)
	for typ, schema := range map[reflect.Type]string{reflect.TypeFor[Token](): "Token", reflect.TypeFor[TokenCard](): "TokenCard"} {
		s, ok := doc.Components.Schemas[schema]
		require.True(t, ok, schema)
		var members []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			members = append(members, name)
		}
		assert.ElementsMatch(t, slices.Collect(maps.Keys(s.Value.Properties)), members, "%s and schema %s", typ, schema)
	}
}
