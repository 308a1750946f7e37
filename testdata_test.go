package openpay

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedSpecDir is the project's shared spec folder, checked out next to the
// module in CI but not part of a clone. The tests read the module's copies
// in testdata (specPath, examplesDir) so that every clone runs them.
const sharedSpecDir = "../shared/spec"

// The module's copies: the interface specification and the gateway's
// documented examples, which the spec tests of the nested module tests/
// (tests/openpay) read.
const (
	specPath    = "testdata/api-spec.md"
	examplesDir = "testdata/examples"
)

// TestTestdataMatchesSharedSpec checks that testdata's copies are the shared
// spec folder's files byte for byte, with no example added or missing on
// either side, so the copies cannot drift from the source silently.
func TestTestdataMatchesSharedSpec(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(sharedSpecDir); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("skipping: %s is not checked out next to the module; this only compares testdata's copies with it", sharedSpecDir)
	}
	pairs := [][2]string{{filepath.Join(sharedSpecDir, "api-spec.md"), specPath}}
	sharedExamples := filepath.Join(sharedSpecDir, "examples")
	names := fileNames(t, sharedExamples)
	require.Equal(t, names, fileNames(t, examplesDir), "%s should hold the same files as %s", examplesDir, sharedExamples)
	for _, name := range names {
		pairs = append(pairs, [2]string{filepath.Join(sharedExamples, name), filepath.Join(examplesDir, name)})
	}
	for _, p := range pairs {
		source, err := os.ReadFile(p[0])
		require.NoError(t, err)
		copied, err := os.ReadFile(p[1])
		require.NoError(t, err)
		assert.True(t, bytes.Equal(source, copied), "%s differs from %s: copy it again", p[1], p[0])
	}
}

// fileNames returns the names of the regular files in dir, sorted.
func fileNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	return names
}
