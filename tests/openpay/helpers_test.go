package openpay_test

import (
	"go/types"
	"testing"

	"github.com/openpay-go/openpay/internal/exportdata"
	"github.com/stretchr/testify/require"
)

// exportImporter returns an importer of the packages matched by patterns
// and of all their dependencies (package exportdata), and the import path of
// the last pattern's package. The patterns are resolved in this module,
// which requires chromedp for the README's browser snippet.
func exportImporter(t *testing.T, patterns ...string) (types.Importer, string) {
	t.Helper()
	imp, last, err := exportdata.Importer(patterns...)
	require.NoError(t, err)
	return imp, last
}
