package openpaytest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver"
	"github.com/openpay-go/openpay/internal/refserver/delivery"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package stands on its own: no exported declaration is an alias of,
// or names, a type of an internal package, so that go doc shows every
// field a test can set.
func TestNoInternalTypesExported(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					// What go doc shows: the declaration, less a
					// struct's unexported fields.
					var shown []ast.Node
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						st, ok := s.Type.(*ast.StructType)
						if !ok || s.Assign != 0 {
							shown = append(shown, s)
							break
						}
						for _, f := range st.Fields.List {
							if len(f.Names) == 0 || f.Names[0].IsExported() {
								shown = append(shown, f)
							}
						}
					case *ast.ValueSpec:
						if s.Names[0].IsExported() {
							shown = append(shown, s)
						}
					}
					for _, n := range shown {
						text := string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
						assert.NotContains(t, text, "internal", "%s: %s", name, text)
						assert.NotContains(t, text, "refserver.", "%s: %s", name, text)
						assert.NotContains(t, text, "cardnum.", "%s: %s", name, text)
					}
				}
			case *ast.FuncDecl:
				if d.Name.IsExported() {
					sig := string(src[fset.Position(d.Type.Pos()).Offset:fset.Position(d.Type.End()).Offset])
					assert.NotContains(t, sig, "refserver.", "%s: func %s", name, d.Name.Name)
				}
			}
		}
	}
	for _, v := range []any{Fault{}, WebhookDeliveryStats{}, FaultDrop("")} {
		assert.Equal(t, "github.com/openpay-go/openpay/openpaytest", reflect.TypeOf(v).PkgPath())
	}
}

// What the docs state as defaults is what the server uses.
func TestDocumentedDefaults(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 1000, refserver.DefaultWebhookQueueLimit, "WithWebhookQueueLimit's doc")
	assert.True(t, DefaultStart.Equal(time.Date(2026, time.January, 5, 16, 0, 0, 0, time.UTC)))
	assert.Equal(t, refserver.GatewayZone(), DefaultStart.Location())
	assert.Equal(t, cardnum.FraudEmail, FraudEmail)
	assert.Equal(t, 8, delivery.MaxAttempts, "WebhookDeliveryStats.GivenUp's doc")
}

// Every field of a Fault reaches the server and comes back from Faults.
func TestFaultRoundTrip(t *testing.T) {
	t.Parallel()
	srv := NewServer(t)
	faults := []Fault{
		{Method: "POST", Path: "/v1/{merchant_id}/charges", Count: 3, ErrorCode: openpay.ErrServiceUnavailable, Description: "try later"},
		{Method: "GET", Path: "/v1/" + srv.MerchantID + "/customers", Count: 1, Delay: 1500 * time.Millisecond},
		{Method: "DELETE", Path: "/v1/{merchant_id}/cards/{card_id}", Count: 2, Drop: DropAfter},
	}
	for _, f := range faults {
		require.NoError(t, srv.InjectFault(f))
	}
	assert.Equal(t, faults, srv.Faults())
}
