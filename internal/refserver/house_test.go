package refserver

import (
	"go/ast"
	"go/importer"
	"go/parser"
	gotoken "go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/internal/exportdata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResourceFilesDefineNoSharedHelpers checks two rules of the house
// (doc.go) on the package's non-test files, type-checked so that every use
// of a name is resolved to its declaration (by name alone, a merchant's
// method could not be told from another type's method of the same name):
//
//  1. No resource file (*_api.go) holds a helper that another file uses. A
//     resource file declares its resource: its handlers and the register
//     function that wires them, the resource's own types (its records and
//     its per-merchant state) with their methods, and the functions that
//     make or find a value of such a type (newCheckoutState,
//     subscriptionsOf). Other files may use those: the dashboard shows
//     subscriptions, the state schema persists them, a group's routes
//     serve a merchant's handlers (a handler may be named by route
//     registration: routes.go and register* functions). Anything else a
//     resource file declares, a function or a method of a core type such as
//     *Server, *merchant, *tx or *call, is its own business: when another
//     file needs it, it goes to a core file (call.go, store.go, money.go,
//     charging.go, cardrules.go). Exported methods are the package's API and
//     may be called from anywhere, as from outside.
//  2. The store (store*.go) uses no name declared in a resource file: no
//     function, method, type, constant or variable. What the store needs of
//     a resource (a kind of charge, the order_id a checkout holds) is
//     declared in the store, and the resource calls the store.
func TestResourceFilesDefineNoSharedHelpers(t *testing.T) {
	t.Parallel()
	imp, _, err := exportdata.Importer("github.com/openpay-go/openpay/internal/refserver")
	require.NoError(t, err)
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	src := map[string]string{}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			b, err := os.ReadFile(name)
			require.NoError(t, err)
			src[name] = string(b)
		}
	}
	assert.Empty(t, houseRuleBreaches(t, imp, src))
}

// TestHouseRulesCheckFindsBreaches runs the check of
// TestResourceFilesDefineNoSharedHelpers on a small package that breaks
// each rule once, beside every use the rules allow.
func TestHouseRulesCheckFindsBreaches(t *testing.T) {
	t.Parallel()
	src := map[string]string{
		"call.go": `package p
type handlerFunc func(c *call) (any, error)
type call struct{ s *Server }
type Server struct{}
type merchant struct{}
func (c *call) plumbing() {}`,
		"routes.go": `package p
func (s *Server) buildRoutes() []handlerFunc { return s.registerPlans() }`,
		"plans_api.go": `package p
type planState struct{ n int }
func plansOf(m *merchant) *planState { return &planState{} }
func (p *planState) count() int { return p.n }
func (s *Server) registerPlans() []handlerFunc { return []handlerFunc{s.getPlan} }
func (s *Server) getPlan(c *call) (any, error) { c.plumbing(); return nil, nil }
func (s *Server) Plans() int { return 0 }
func (m *merchant) planHelper() bool { return true }
func sharedHelper() {}`,
		"groups_api.go": `package p
func (s *Server) registerGroups() []handlerFunc { return []handlerFunc{s.getPlan} }
func (s *Server) groupPlans(m *merchant) int {
	sharedHelper()
	return plansOf(m).count() + s.Plans()
}`,
		"dashboard.go": `package p
func (s *Server) show(m *merchant, c *call) int {
	s.getPlan(c)
	return plansOf(m).count()
}`,
		"store.go": `package p
func (m *merchant) taken() bool { return m.planHelper() }
var _ planState`,
	}
	assert.Equal(t, []string{
		"dashboard.go uses getPlan, a helper in plans_api.go",
		"groups_api.go uses sharedHelper, a helper in plans_api.go",
		"store.go: the store uses planHelper of plans_api.go",
		"store.go: the store uses planState of plans_api.go",
	}, houseRuleBreaches(t, importer.Default(), src))
}

// houseRuleBreaches type-checks the files of src (name to source) as one
// package and returns what breaks the rules of
// TestResourceFilesDefineNoSharedHelpers, sorted.
func houseRuleBreaches(t *testing.T, imp types.Importer, src map[string]string) []string {
	t.Helper()
	fset := gotoken.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Sorted(maps.Keys(src)) {
		f, err := parser.ParseFile(fset, name, src[name], parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := (&types.Config{Importer: imp}).Check(files[0].Name.Name, fset, files, info)
	require.NoError(t, err)

	fileOf := func(p gotoken.Pos) string { return filepath.Base(fset.Position(p).Filename) }
	// ownType reports whether t, or what it points to, is a named type
	// declared in file.
	ownType := func(t types.Type, file string) bool {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() == pkg && fileOf(n.Obj().Pos()) == file
	}
	// theResources reports whether fn, declared in the resource file file,
	// is a method of the resource's own type or makes or finds one.
	theResources := func(fn *types.Func, file string) bool {
		sig := fn.Type().(*types.Signature)
		if sig.Recv() != nil {
			return ownType(sig.Recv().Type(), file)
		}
		return sig.Results().Len() > 0 && ownType(sig.Results().At(0).Type(), file)
	}
	handler := pkg.Scope().Lookup("handlerFunc").Type().Underlying().(*types.Signature)
	isHandler := func(fn *types.Func) bool {
		sig := fn.Type().(*types.Signature)
		return sig.Recv() != nil && types.Identical(types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), false), handler)
	}

	var breaches []string
	for _, f := range files {
		useFile := fileOf(f.Pos())
		for _, d := range f.Decls {
			wiring := false // inside route registration
			if fd, ok := d.(*ast.FuncDecl); ok {
				wiring = useFile == "routes.go" || strings.HasPrefix(fd.Name.Name, "register")
			}
			ast.Inspect(d, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok || info.Uses[id] == nil || info.Uses[id].Pkg() != pkg {
					return true
				}
				obj := info.Uses[id]
				decl := fileOf(obj.Pos())
				if decl == useFile || !strings.HasSuffix(decl, "_api.go") {
					return true
				}
				fn, isFunc := obj.(*types.Func)
				switch {
				case strings.HasPrefix(useFile, "store"):
					breaches = append(breaches, useFile+": the store uses "+obj.Name()+" of "+decl)
				case !isFunc || obj.Exported() || theResources(fn, decl):
				case wiring && (isHandler(fn) || strings.HasPrefix(fn.Name(), "register")):
				default:
					breaches = append(breaches, useFile+" uses "+obj.Name()+", a helper in "+decl)
				}
				return true
			})
		}
	}
	slices.Sort(breaches)
	return slices.Compact(breaches)
}
