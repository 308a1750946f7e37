package openpay

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The table in Code's documentation is what the SDK does: every documented
// code with its status, category and class, in order, and nothing else.
func TestCodeTableMatchesTheSDK(t *testing.T) {
	src, err := os.ReadFile("errors.go")
	require.NoError(t, err)
	var doc []string
	for line := range strings.Lines(string(src)) {
		if f := strings.Fields(strings.TrimPrefix(line, "//\t")); strings.HasPrefix(line, "//\t") && len(f) > 3 && len(f[0]) == 4 && f[0][0] >= '1' && f[0][0] <= '9' {
			doc = append(doc, strings.TrimRight(strings.TrimPrefix(line, "//\t"), "\n"))
		}
	}
	var want []string
	cs := make([]Code, 0, len(codes))
	for c := range codes {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	for _, c := range cs {
		i := codes[c]
		class := (&Error{Code: c, Category: i.category, HTTPStatus: i.status}).class()
		want = append(want, fmt.Sprintf("%d  %d  %-8s  %-9s  %s", c, i.status, i.category, class, i.meaning))
	}
	assert.Equal(t, want, doc)
}

// A Code prints as its number and meaning; no code at all prints as 0
// with %v and %s alike, and as nothing through Error (a transaction that
// did not fail shows no error text).
func TestCodeString(t *testing.T) {
	assert.Equal(t, "3001 card declined", ErrCardDeclined.String())
	assert.Equal(t, "3999 undocumented", Code(3999).String())
	assert.Equal(t, "0", Code(0).String())
	assert.Equal(t, "", Code(0).Error())
	var tx Transaction
	assert.NotContains(t, fmt.Sprintf("%+v", tx), "openpay: error")
}
