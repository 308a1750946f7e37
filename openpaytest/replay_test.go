package openpaytest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay/internal/conformance"
	"github.com/openpay-go/openpay/openpaytest"
)

// recordingTB is a testing.TB that keeps the failures it is told of rather
// than failing the test, so that a test can see what Replay reports.
type recordingTB struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.fatal = true
}

// The example cassette, recorded through the recorder from the SDK's calls
// (internal/conformance's TestExampleCassette -update), replays clean.
func TestReplayExampleCassette(t *testing.T) {
	openpaytest.Replay(t, "testdata/flows.jsonl")
}

func TestReplayReportsDifferences(t *testing.T) {
	b, err := os.ReadFile("testdata/flows.jsonl")
	require.NoError(t, err)
	altered := strings.Replace(string(b), `"error_code":3004`, `"error_code":3001`, 1)
	require.NotEqual(t, string(b), altered)
	path := filepath.Join(t.TempDir(), "altered.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(altered), 0o644))
	found, err := conformance.ScanFile(path)
	require.NoError(t, err)
	assert.Empty(t, found, "the cassette holds no secret")

	fake := &recordingTB{TB: t}
	openpaytest.Replay(fake, path)
	require.Len(t, fake.errors, 1)
	assert.False(t, fake.fatal)
	assert.Contains(t, fake.errors[0], "$.error_code: value: 3004, recorded 3001")
	assert.Regexp(t, `(?m)^DIFFER\s+createCharge\s`, fake.errors[0])
	assert.Regexp(t, `(?m)^agree\s+createCustomer\s`, fake.errors[0])

	// The allowlist excuses it.
	allow := filepath.Join(t.TempDir(), "allow.txt")
	require.NoError(t, os.WriteFile(allow, []byte("createCharge $.error_code\n"), 0o644))
	fake = &recordingTB{TB: t}
	openpaytest.Replay(fake, path, openpaytest.ReplayAllowlist(allow))
	assert.Empty(t, fake.errors)

	// A cassette that cannot be read stops the test.
	fake = &recordingTB{TB: t}
	openpaytest.Replay(fake, filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.True(t, fake.fatal)
}

// ReplayWith passes options to the server: a strict server asks for what
// the sandbox does not, so the example cassette's charges now differ.
func TestReplayWithServerOptions(t *testing.T) {
	fake := &recordingTB{TB: t}
	openpaytest.Replay(fake, "testdata/flows.jsonl", openpaytest.ReplayWith(openpaytest.WithStrict()))
	require.Len(t, fake.errors, 1)
	assert.Regexp(t, `(?m)^DIFFER\s+createCharge\s`, fake.errors[0])
}
