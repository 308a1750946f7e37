package openpay

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// The public packages whose documentation an integrator reads.
var publicPackages = []struct{ dir, path string }{
	{".", "github.com/openpay-go/openpay"},
	{"openpaytest", "github.com/openpay-go/openpay/openpaytest"},
	{"cfdi", "github.com/openpay-go/openpay/cfdi"},
}

// docLine is one line of what `go doc -all` shows for a package: a line of a
// doc comment or of a declaration, with where it comes from.
type docLine struct {
	pkg, where, text string
}

func (l docLine) String() string { return fmt.Sprintf("%s: %s: %s", l.pkg, l.where, l.text) }

// docEntry is the documentation of one exported name: its doc comment and,
// for a struct field, the name and type it documents.
type docEntry struct {
	where, name, doc string
	typeName         string // the field's type, when it is a named type of the package
}

// publicDoc gathers what `go doc -all` shows of the package in dir: the
// package comment, the doc comment of every exported declaration, of every
// exported struct field and interface method, and the declarations
// themselves (an alias or an initializer can name another package). It works
// in-process with go/doc, as go doc does, so the test needs no toolchain.
func publicDoc(t *testing.T, dir, importPath string) (lines []docLine, entries []docEntry) {
	t.Helper()
	fset, pkg := readPackageDoc(t, dir, importPath)

	add := func(where, text string) {
		for _, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, docLine{pkg.Name, where, l})
			}
		}
	}
	entry := func(where, name, text, typeName string) {
		add(where, text)
		entries = append(entries, docEntry{where, name, strings.TrimSpace(text), typeName})
	}
	decl := func(where string, node ast.Node) {
		var b bytes.Buffer
		require.NoError(t, printer.Fprint(&b, fset, node))
		for _, l := range strings.Split(b.String(), "\n") {
			// The comments inside a declaration are gathered with their
			// fields; only the code is wanted here.
			if !strings.HasPrefix(strings.TrimSpace(l), "//") {
				add(where, l)
			}
		}
	}
	// fields adds the documentation of a struct's or an interface's exported
	// members (go/doc has already dropped the unexported ones).
	fields := func(owner string, expr ast.Expr) {
		for _, f := range members(expr) {
			typeName := ""
			ft := f.Type
			if s, ok := ft.(*ast.StarExpr); ok {
				ft = s.X
			}
			if id, ok := ft.(*ast.Ident); ok {
				typeName = id.Name
			}
			for _, n := range f.Names {
				entry(owner+"."+n.Name, n.Name, f.Doc.Text()+f.Comment.Text(), typeName)
			}
			if len(f.Names) == 0 { // an embedded field
				add(owner, f.Doc.Text()+f.Comment.Text())
			}
		}
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			where := strings.Join(v.Names, ", ")
			add(where, v.Doc)
			for _, s := range v.Decl.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					add(where, vs.Doc.Text()+vs.Comment.Text())
				}
			}
			decl(where, v.Decl)
		}
	}
	funcs := func(fs []*doc.Func) {
		for _, f := range fs {
			where := f.Name
			if f.Recv != "" {
				where = strings.TrimPrefix(f.Recv, "*") + "." + f.Name
			}
			entry(where, f.Name, f.Doc, "")
			decl(where, f.Decl)
		}
	}

	add("package", pkg.Doc)
	values(pkg.Consts)
	values(pkg.Vars)
	funcs(pkg.Funcs)
	for _, typ := range pkg.Types {
		entry(typ.Name, typ.Name, typ.Doc, "")
		decl(typ.Name, typ.Decl)
		for _, s := range typ.Decl.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok {
				fields(ts.Name.Name, ts.Type)
			}
		}
		values(typ.Consts)
		values(typ.Vars)
		funcs(typ.Funcs)
		funcs(typ.Methods)
	}
	return lines, entries
}

// readPackageDoc reads the package in dir (its non-test files) as go doc
// does: what go/doc keeps of it, and the file set its positions are in.
func readPackageDoc(t *testing.T, dir, importPath string) (*token.FileSet, *doc.Package) {
	t.Helper()
	bp, err := build.ImportDir(dir, 0)
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, importPath)
	require.NoError(t, err)
	return fset, pkg
}

// members returns the fields of a struct type or the methods of an
// interface type, and nothing for any other type.
func members(expr ast.Expr) []*ast.Field {
	var list *ast.FieldList
	switch x := expr.(type) {
	case *ast.StructType:
		list = x.Fields
	case *ast.InterfaceType:
		list = x.Methods
	}
	if list == nil {
		return nil
	}
	return list.List
}

// reportDocLines fails t with every line of the public packages'
// documentation that bad picks, under the heading what.
func reportDocLines(t *testing.T, what string, bad func(docLine) bool) {
	t.Helper()
	for _, p := range publicPackages {
		lines, _ := publicDoc(t, p.dir, p.path)
		require.NotEmpty(t, lines, p.path)
		var found []string
		for _, l := range lines {
			if bad(l) {
				found = append(found, l.String())
			}
		}
		if len(found) > 0 {
			t.Errorf("%s: %d %s:\n%s", p.path, len(found), what, strings.Join(found, "\n"))
		}
	}
}

// insiderWords are words of the project's own work that mean nothing to an
// integrator: the extension keys of openapi.yaml, where a rule was learnt,
// how lenient the test environment is, and the packages nobody can import.
// The command openpay-refserver is public, so its name is allowed.
var insiderWords = regexp.MustCompile(`(?i)x-openpay|vendor|plug-?ins?\b|sandbox accepts|internal/|(^|[^-])refserver`)

// TestGodocSpeaksToMerchants reads the documentation of the public packages
// as `go doc -all` shows it and reports every line that uses the project's
// working language instead of the merchant's.
func TestGodocSpeaksToMerchants(t *testing.T) {
	t.Parallel()
	reportDocLines(t, "godoc lines in the project's working language",
		func(l docLine) bool { return insiderWords.MatchString(l.text) })
}

// bulletLike is a line that a reader means as a list item but that go doc
// shows as running text: a list item must be indented.
var bulletLike = regexp.MustCompile(`^[*+•-] `)

// TestGodocReadsAsGoDoc checks the shape of the documentation: a comment
// that starts with the name it documents goes on as a sentence about it
// ("Amount is ...", not "Amount Greater than zero"); list items are indented
// so that go doc renders them as a list; a field does not carry, as its own,
// the documentation of its type under another name.
func TestGodocReadsAsGoDoc(t *testing.T) {
	t.Parallel()
	for _, p := range publicPackages {
		_, entries := publicDoc(t, p.dir, p.path)
		typeDoc := map[string]string{}
		for _, e := range entries {
			if !strings.Contains(e.where, ".") {
				typeDoc[e.name] = strings.TrimPrefix(e.doc, e.name+" ")
			}
		}
		var stutter, lists, borrowed []string
		for _, e := range entries {
			if rest, ok := strings.CutPrefix(e.doc, e.name+" "); ok {
				if r := []rune(rest); len(r) > 0 && unicode.IsUpper(r[0]) {
					first, _, _ := strings.Cut(e.doc, "\n")
					stutter = append(stutter, p.path+": "+e.where+": "+first)
				}
			}
			for _, l := range strings.Split(e.doc, "\n") {
				if bulletLike.MatchString(l) {
					lists = append(lists, p.path+": "+e.where+": "+l)
				}
			}
			owner, _, _ := strings.Cut(e.where, ".")
			// An inline enum's generated type is named after its owner and
			// field, and rightly shares the field's doc.
			if e.typeName != "" && e.typeName != e.name && e.typeName != owner+e.name && e.doc != "" {
				if td, ok := typeDoc[e.typeName]; ok && td != "" && strings.TrimPrefix(e.doc, e.name+" ") == td {
					borrowed = append(borrowed, fmt.Sprintf("%s: %s: the doc of type %s", p.path, e.where, e.typeName))
				}
			}
		}
		for _, f := range []struct {
			what  string
			found []string
		}{
			{"comments that do not read on from the name", stutter},
			{"list items go doc shows as running text", lists},
			{"fields documented by their type's comment", borrowed},
		} {
			if len(f.found) > 0 {
				t.Errorf("%s: %d %s:\n%s", p.path, len(f.found), f.what, strings.Join(f.found, "\n"))
			}
		}
	}
}
