package openpay_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdkRequires are the modules the SDK's module may require directly: what
// the SDK and the kit link (decimal, retryablehttp; bbolt, yaml and x/text
// for the reference server and cfdi) and the SDK's own test libraries
// (testify, gock). A merchant's go.sum lists every module of go.mod, so a
// tool for the project's own tests (a browser driver, an OpenAPI library)
// belongs to the nested module tests/, not here.
var sdkRequires = []string{
	"github.com/hashicorp/go-retryablehttp",
	"github.com/shopspring/decimal",
	"github.com/stretchr/testify",
	"go.etcd.io/bbolt",
	"go.yaml.in/yaml/v3",
	"golang.org/x/text",
	"gopkg.in/h2non/gock.v1",
}

// testTools are the modules of the project's browser and spec tests, which
// the SDK's go.mod and go.sum must not name, even as indirect requirements.
var testTools = []string{"github.com/chromedp/", "github.com/getkin/kin-openapi", "github.com/google/uuid"}

// TestModuleRequiresOnlyWhatTheSDKNeeds reads go.mod and go.sum: their
// direct requirements are sdkRequires at most, and no line names a module
// of testTools.
func TestModuleRequiresOnlyWhatTheSDKNeeds(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	var direct []string
	inBlock := false
	for _, line := range strings.Split(string(mod), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		if !strings.Contains(line, "// indirect") {
			direct = append(direct, fields[0])
		}
	}
	require.NotEmpty(t, direct, "go.mod's requirements were read")
	for _, m := range direct {
		assert.Contains(t, sdkRequires, m, "go.mod requires %s, which the SDK does not link", m)
	}
	sum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	for _, file := range []struct{ name, text string }{{"go.mod", string(mod)}, {"go.sum", string(sum)}} {
		for _, tool := range testTools {
			assert.NotContains(t, file.text, tool, "%s names %s: the tests that need it belong to the nested module tests/", file.name, tool)
		}
	}
}
