// Package genfile keeps a file that a test generates in step with its
// generator. The test generates the file's content and hands it to Check,
// which compares it with the file in the tree; under the test's update
// flag (which go generate sets) it writes the file instead. A change to
// what the generator reads (a wire type, openapi.yaml, the package's
// tests) then fails the test until the file is generated again, and CI's
// check that go generate changes nothing holds the file to the generator.
// Only tests import it.
package genfile

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Check fails t, with a diff, when src is not the content of the file at
// path, naming regenerate, the command that writes the file again (such
// as "go generate ./internal/refserver/answer"). With update it writes
// src to path instead.
func Check(t testing.TB, path string, src []byte, update bool, regenerate string) {
	t.Helper()
	if update {
		require.NoError(t, os.WriteFile(path, src, 0o644))
		return
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(src), string(got), "%s is out of date: run %s", path, regenerate)
}
