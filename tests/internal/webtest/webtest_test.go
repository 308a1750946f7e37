package webtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindChrome(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "chromium")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755))

	t.Setenv("CHROME", "")
	t.Setenv("PATH", dir)
	got, err := FindChrome()
	require.NoError(t, err)
	assert.Equal(t, fake, got, "found on PATH")

	t.Setenv("PATH", t.TempDir())
	_, err = FindChrome()
	assert.ErrorContains(t, err, "apt-get install chromium", "none on PATH: the reason says how to get one")

	t.Setenv("CHROME", fake)
	got, err = FindChrome()
	require.NoError(t, err)
	assert.Equal(t, fake, got, "$CHROME wins")

	t.Setenv("CHROME", filepath.Join(dir, "missing"))
	_, err = FindChrome()
	assert.ErrorContains(t, err, "does not exist")
}
