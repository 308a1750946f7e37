package genfile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records a failure instead of stopping the
// test that uses it.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg += fmt.Sprintf(format, args...)
}

func (r *recorder) FailNow() { panic(r) }

// check runs Check against a recorder and returns whether it failed and
// what it said.
func check(t *testing.T, path string, src []byte, update bool) (failed bool, msg string) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		failed, msg = r.failed, r.msg
	}()
	Check(r, path, src, update, "go generate ./x")
	return r.failed, r.msg
}

// TestCheck: a file in step passes; a stale or missing one fails; under
// update the file is written and then passes.
func TestCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.gen.go")
	failed, _ := check(t, path, []byte("package x\n"), false)
	assert.True(t, failed, "a missing file fails")
	failed, _ = check(t, path, []byte("package x\n"), true)
	assert.False(t, failed, "update writes it")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "package x\n", string(got))
	failed, _ = check(t, path, []byte("package x\n"), false)
	assert.False(t, failed, "a file in step passes")
	failed, msg := check(t, path, []byte("package x // changed\n"), false)
	assert.True(t, failed, "a stale file fails")
	assert.Contains(t, msg, "is out of date: run go generate ./x", "it names the command that writes the file")
	assert.Contains(t, msg, "changed", "with a diff")
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "package x\n", string(got), "without update the file is left as it was")
}
