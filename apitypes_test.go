package openpay

import (
	"fmt"
	"go/types"
	"sort"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/internal/exportdata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generatorRuntime is the module of the code generator's helper types. The
// generated wire types must not expose them: a user of the SDK would then
// depend on the generator's release cycle (and its Date's odd zero value).
const generatorRuntime = "github.com/oapi-codegen/runtime"

// TestExportedAPIOwnsItsTypes walks every exported identifier of the
// package (types, their exported fields and methods, functions, variables
// and constants), following the package's own types down to foreign ones,
// and fails for each place where a type of the generator's runtime appears.
func TestExportedAPIOwnsItsTypes(t *testing.T) {
	t.Parallel()
	pkg := loadOwnPackage(t)
	api, foreign := exportedTypes(pkg)

	var leaks []string
	for where, typ := range foreign {
		if strings.HasPrefix(typ, generatorRuntime+"/") || strings.HasPrefix(typ, generatorRuntime+".") {
			leaks = append(leaks, where+": "+typ)
		}
	}
	sort.Strings(leaks)
	assert.Empty(t, leaks, "exported API mentions types of %s", generatorRuntime)

	// The walk reaches the wire types' fields, so an empty list means
	// something.
	assert.Equal(t, pkg.Path()+".Date", api["Subscription.TrialEndDate"])
	assert.Equal(t, pkg.Path()+".Date", api["ExchangeRate.Date"])
	assert.Equal(t, "time.Time", api["Transaction.CreationDate"])
}

// loadOwnPackage reads the type information of this package (without its
// tests) from the compiler's export data.
func loadOwnPackage(t *testing.T) *types.Package {
	t.Helper()
	imp, self := exportImporter(t, ".")
	pkg, err := imp.Import(self)
	require.NoError(t, err)
	return pkg
}

// exportImporter returns an importer of the packages matched by patterns
// and of all their dependencies (package exportdata), and the import path of
// the last pattern's package.
func exportImporter(t *testing.T, patterns ...string) (types.Importer, string) {
	t.Helper()
	imp, last, err := exportdata.Importer(patterns...)
	require.NoError(t, err)
	return imp, last
}

// exportedTypes maps each exported place of pkg's API (Name, Type.Field,
// Type.Method, Type.Field.Field for anonymous structs, ...) to the type
// found there, written with its full package path. It also returns, for
// each place, the named type of another package met there (inside
// pointers, slices, maps, signatures...); those types are recorded, not
// entered.
func exportedTypes(pkg *types.Package) (api, foreign map[string]string) {
	api, foreign = map[string]string{}, map[string]string{}
	entered := map[*types.TypeName]bool{}
	qualify := func(p *types.Package) string { return p.Path() }
	var visit func(where string, t types.Type)
	visit = func(where string, t types.Type) {
		if _, seen := api[where]; !seen {
			api[where] = types.TypeString(t, qualify)
		}
		switch t := t.(type) {
		case *types.Alias:
			if obj := t.Obj(); obj.Pkg() != nil && obj.Pkg() != pkg {
				foreign[where] = obj.Pkg().Path() + "." + obj.Name()
				return
			}
			visit(where, t.Rhs())
		case *types.Named:
			obj := t.Obj()
			for arg := range t.TypeArgs().Types() {
				visit(where+"[type argument]", arg)
			}
			if obj.Pkg() != nil && obj.Pkg() != pkg {
				foreign[where] = obj.Pkg().Path() + "." + obj.Name()
				return
			}
			if obj.Pkg() == nil || entered[obj] {
				return
			}
			entered[obj] = true
			visit(obj.Name(), t.Underlying())
			for m := range t.Methods() {
				if m.Exported() {
					visit(obj.Name()+"."+m.Name(), m.Type())
				}
			}
		case *types.Pointer:
			visit(where, t.Elem())
		case *types.Slice:
			visit(where, t.Elem())
		case *types.Array:
			visit(where, t.Elem())
		case *types.Map:
			visit(where+"[key]", t.Key())
			visit(where, t.Elem())
		case *types.Chan:
			visit(where, t.Elem())
		case *types.Struct:
			for f := range t.Fields() {
				if f.Exported() || f.Embedded() {
					visit(where+"."+f.Name(), f.Type())
				}
			}
		case *types.Signature:
			for i, v := range all(t.Params()) {
				visit(fmt.Sprintf("%s(param %d)", where, i), v.Type())
			}
			for i, v := range all(t.Results()) {
				visit(fmt.Sprintf("%s(result %d)", where, i), v.Type())
			}
		case *types.Interface:
			for m := range t.ExplicitMethods() {
				if m.Exported() {
					visit(where+"."+m.Name(), m.Type())
				}
			}
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		visit(name, obj.Type())
	}
	return api, foreign
}

func all(tuple *types.Tuple) []*types.Var {
	vars := make([]*types.Var, tuple.Len())
	for i := range vars {
		vars[i] = tuple.At(i)
	}
	return vars
}
