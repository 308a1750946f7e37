package refserver

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxCoreLines bounds the core package: its non-test, non-generated Go
// lines. What grows past it moves out to a package with a contract (its
// doc comment, an exported API, tests of its own), as seed, answer,
// reqbody, listquery and fault did.
const maxCoreLines = 12500

// generatedFile is the line that marks a generated Go file.
var generatedFile = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// TestCorePackageStaysSmall counts the package's lines as the bound
// reads them.
func TestCorePackageStaysSmall(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	lines := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		if generatedFile.Match(b) {
			continue
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	assert.LessOrEqual(t, lines, maxCoreLines,
		"the core package has %d non-test, non-generated lines: move a cohesive part out to a package with a contract", lines)
}
