package openpay_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeParams declares, as parameters of the function each README snippet
// is checked in, the names the snippets take as given.
const readmeParams = `ctx context.Context, c, groupClient *openpay.Client, req openpay.ChargeRequest, r *http.Request,
	merchantID, privateKey, publicKey, number, cvv, sessionID, payerIP, bankAccountID, buyerID, sellerID,
	clabe, hookSecret, groupID, groupCardID, chargeID, userInput, orderID, attemptID, tokenID, clientIP string, attempt int,
	total openpay.Amount, keepForRecovery func(attemptID string, req openpay.ChargeRequest, clientIP string) error, askForAnotherCard func() error,
	declined func(attemptID string) error, refused func(attemptID string, err error) error,
	cust *openpay.Customer, card *openpay.Card, plan *openpay.Plan, subs *openpay.SubscriptionsService,
	err error, markPaid func(context.Context, *openpay.Transaction) error,
	t *testing.T, shopFor func(*openpaytest.Server) http.Handler, srv *openpaytest.Server, hooks http.Handler`

// TestReadmeCompiles type-checks every Go snippet of the README against the
// SDK as it is, so that code copied from it compiles: a renamed field, a
// changed signature or a placeholder that is not Go fails here. A snippet
// that declares a function stands at file level; any other runs in a
// function receiving readmeParams. Unused names are allowed (snippets show
// calls, not whole programs).
//
// The testing snippet, func TestCheckout, also runs: it must be, word for
// word, the function of that name in readme_run_test.go, which go test
// runs against openpaytest.
func TestReadmeCompiles(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)

	var src strings.Builder
	src.WriteString(`package readme

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)
`)
	blocks := 0
	ranSnippet := false
	lines := strings.Split(string(readme), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
		}
		body := strings.Join(lines[start:i], "\n")
		blocks++
		// The //line directive makes positions point into README.md.
		line := fmt.Sprintf("\n//line README.md:%d\n", start+1)
		if strings.HasPrefix(body, "func TestCheckout(") {
			run, err := os.ReadFile("../../readme_run_test.go")
			require.NoError(t, err)
			assert.Contains(t, string(run), "\n"+body+"\n", "the README's TestCheckout differs from the one readme_run_test.go runs")
			ranSnippet = true
		}
		if strings.HasPrefix(body, "func ") {
			src.WriteString(line + body + "\n")
			continue
		}
		fmt.Fprintf(&src, "\nfunc _(%s) error {\n\t{%s%s\n\t}\n\treturn nil\n}\n", readmeParams, line, body)
	}
	require.Greater(t, blocks, 10, "the README's Go snippets were found")
	assert.True(t, ranSnippet, "the README has a func TestCheckout snippet, the one that runs")

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "readme.go", src.String(), parser.SkipObjectResolution)
	require.NoError(t, err, "a README snippet is not Go")
	imp, _ := exportImporter(t, "github.com/openpay-go/openpay/openpaytest", "github.com/chromedp/chromedp", "context", "errors", "fmt", "log", "net/http",
		"net/http/httptest", "net/netip", "testing", "time")
	var hard []string
	conf := types.Config{Importer: imp, Error: func(err error) {
		if te, ok := err.(types.Error); ok && te.Soft {
			return // declared and not used, imported and not used
		}
		hard = append(hard, err.Error())
	}}
	_, _ = conf.Check("readme", fset, []*ast.File{f}, nil)
	assert.Empty(t, hard, "README snippets that do not compile")
}
