package seed

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The decoder bounds what aliases expand to, so a small file cannot make
// the server build a huge value.
func TestDecoderBoundsAliases(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("a: &a [" + strings.Repeat("x, ", 999) + "x]\nl: [")
	b.WriteString(strings.Repeat("*a, ", 199) + "*a]\n")
	var dst struct {
		A []string   `json:"a"`
		L [][]string `json:"l"`
	}
	err := decodeDocument([]byte(b.String()), &dst)
	require.ErrorContains(t, err, "expands to more than")

	// Aliases within the bound are followed.
	require.NoError(t, decodeDocument([]byte("a: &a [x, y]\nl: [*a, *a]\n"), &dst))
	assert.Equal(t, [][]string{{"x", "y"}, {"x", "y"}}, dst.L)
}
