package openpay

import (
	"bufio"
	"flag"
	"go/ast"
	"go/doc"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateExportedNames = flag.Bool("update-exported-names", false,
	"add the public packages' current exported names to testdata/exported-names.txt")

// exportedNamesFile lists, one "package name" a line, every exported name the
// public packages have had since the version the CHANGELOG's Unreleased
// section starts from: top-level names (PaymentMethod), and methods and
// struct fields as Type.Name (WebhooksService.List, Webhook.Password). It
// only grows: -update-exported-names adds the current names and keeps the
// others, so a name that disappears stays listed until a release starts a
// new list.
const exportedNamesFile = "testdata/exported-names.txt"

// exportedNames returns the exported names of the package in dir, as
// exportedNamesFile writes them (without the package).
func exportedNames(t *testing.T, dir, importPath string) []string {
	t.Helper()
	_, pkg := readPackageDoc(t, dir, importPath)
	var names []string
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				if ast.IsExported(n) {
					names = append(names, n)
				}
			}
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			names = append(names, prefix+f.Name)
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs("", pkg.Funcs)
	for _, typ := range pkg.Types {
		names = append(names, typ.Name)
		values(typ.Consts)
		values(typ.Vars)
		funcs("", typ.Funcs)
		funcs(typ.Name+".", typ.Methods)
		for _, s := range typ.Decl.Specs {
			ts, ok := s.(*ast.TypeSpec)
			if !ok {
				continue
			}
			for _, f := range members(ts.Type) {
				for _, n := range f.Names {
					if n.IsExported() {
						names = append(names, typ.Name+"."+n.Name)
					}
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// changelogEntries splits the CHANGELOG into its entries: each list item
// with its continuation lines, and each other paragraph.
func changelogEntries(text string) []string {
	var entries []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			entries = append(entries, cur.String())
			cur.Reset()
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "", strings.HasPrefix(line, "#"):
			flush()
		case strings.HasPrefix(line, "- "):
			flush()
			cur.WriteString(line)
		default:
			cur.WriteString(" " + strings.TrimSpace(line))
		}
	}
	flush()
	return entries
}

// word matches s as a whole Go identifier (or dotted name) in a text.
func word(s string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(s) + `($|[^A-Za-z0-9_])`)
}

// namedIn reports whether one of the CHANGELOG's entries names the removed
// name: a top-level name as a whole word; a method or field Type.Name as
// written (Webhook.Password), with a service's short name
// (Subscriptions.Delete for SubscriptionsService.Delete), or as `Name` in an
// entry that names the type too ("CardCharge ... have no `Method` field").
func namedIn(entries []string, name string) bool {
	owner, member, isMember := strings.Cut(name, ".")
	for _, e := range entries {
		if !isMember {
			if word(name).MatchString(e) {
				return true
			}
			continue
		}
		if word(name).MatchString(e) || word(strings.TrimSuffix(owner, "Service")+"."+member).MatchString(e) {
			return true
		}
		if word(owner).MatchString(e) && strings.Contains(e, "`"+member+"`") {
			return true
		}
	}
	return false
}

// TestChangelogNamesEveryRemovedName: an exported name the public packages
// had (testdata/exported-names.txt) and no longer have was renamed or
// removed, which breaks a merchant's build; the CHANGELOG must say so, with
// the migration. It checks names only: a name whose type or signature
// changed is the reviewer's to find (golang.org/x/exp/cmd/apidiff lists
// those).
func TestChangelogNamesEveryRemovedName(t *testing.T) {
	t.Parallel()
	current := map[string]bool{}
	for _, p := range publicPackages {
		for _, n := range exportedNames(t, p.dir, p.path) {
			current[filepath.Base(p.path)+" "+n] = true
		}
	}
	require.Greater(t, len(current), 500, "the public packages' names were read")

	listed := map[string]bool{}
	if f, err := os.Open(exportedNamesFile); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				listed[l] = true
			}
		}
		require.NoError(t, sc.Err())
		f.Close()
	} else if !*updateExportedNames {
		require.NoError(t, err)
	}

	if *updateExportedNames {
		for n := range current {
			listed[n] = true
		}
		all := make([]string, 0, len(listed))
		for n := range listed {
			all = append(all, n)
		}
		slices.Sort(all)
		require.NoError(t, os.WriteFile(exportedNamesFile, []byte(strings.Join(all, "\n")+"\n"), 0o644))
	}

	changelog, err := os.ReadFile("CHANGELOG.md")
	require.NoError(t, err)
	entries := changelogEntries(string(changelog))
	var missing []string
	for n := range listed {
		if current[n] {
			continue
		}
		pkg, name, _ := strings.Cut(n, " ")
		// A method or field of a type that is gone goes with its type,
		// whose entry says what replaces it.
		if owner, _, isMember := strings.Cut(name, "."); isMember && !current[pkg+" "+owner] && listed[pkg+" "+owner] {
			continue
		}
		if !namedIn(entries, name) {
			missing = append(missing, n)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("%d exported names are gone without a CHANGELOG entry naming them (say what replaces each):\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
}

// TestChangelogNamedInReadsEntries keeps namedIn honest: a name counts only
// when an entry says it, a member only beside its type.
func TestChangelogNamedInReadsEntries(t *testing.T) {
	t.Parallel()
	entries := changelogEntries("## Unreleased\n\n- `Subscriptions.Delete` is `Subscriptions.Cancel`.\n" +
		"- The charge types (`CardCharge`, `StoreCharge`) have no `Method`\n  field: delete it.\n" +
		"- Removed `FlexTime`; use `time.Time`.\n")
	require.Len(t, entries, 3)
	for name, want := range map[string]bool{
		"FlexTime":                    true,
		"Flex":                        false,
		"FlexTimeLayout":              false,
		"SubscriptionsService.Delete": true,
		"SubscriptionsService.Get":    false,
		"StoreCharge.Method":          true,
		"BankCharge.Method":           false,
		"CardCharge.Confirm":          false,
	} {
		require.Equal(t, want, namedIn(entries, name), name)
	}
}
