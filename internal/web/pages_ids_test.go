package web

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeNamesThePagesIDs keeps the hosted pages' element ids a test
// drives and the binary's README ("Hosted pages") in step: every id the
// README names is on a page, and the ids a payer's test needs (to pay by
// store or PSE, to go on with a waiting payment, to leave, to read the
// outcome) are named there.
func TestReadmeNamesThePagesIDs(t *testing.T) {
	readme, err := os.ReadFile("../../cmd/openpay-refserver/README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "\n## Hosted pages\n")
	require.True(t, ok, "the README has a Hosted pages section")
	section, _, _ = strings.Cut(section, "\n## ")

	var templates strings.Builder
	entries, err := pageFS.ReadDir("templates/pages")
	require.NoError(t, err)
	for _, e := range entries {
		b, err := pageFS.ReadFile("templates/pages/" + e.Name())
		require.NoError(t, err)
		templates.Write(b)
	}
	onPages := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bid="([a-z_]+)"`).FindAllStringSubmatch(templates.String(), -1) {
		onPages[m[1]] = true
	}

	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(?:[a-z]+)?#([a-z_]+)`").FindAllStringSubmatch(section, -1) {
		named[m[1]] = true
		assert.True(t, onPages[m[1]], "the README names #%s, which no hosted page has", m[1])
	}
	for _, id := range []string{"pay", "pay_store", "pay_pse", "continue", "leave", "return", "approve", "fail",
		"status", "amount", "iva", "description", "expires", "no_store", "reference", "card_number"} {
		assert.True(t, named[id], "the README's Hosted pages section does not name #%s", id)
	}
	assert.Greater(t, len(named), 20, "ids found in the README: %v", named)
}
