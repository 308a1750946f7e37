package refserver

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// referenceMatch is the matcher routes.go had before the segment tree
// (routetree), kept as the rule's reference: every route of the table
// tried in registration order on the path's unescaped segments.
func referenceMatch(t *routeTable, method string, u *url.URL, dst []string) (*route, []string, []string) {
	raw, unescape := u.Path, false
	if u.RawPath != "" {
		raw, unescape = u.EscapedPath(), true
	}
	if !strings.HasPrefix(raw, "/") {
		return nil, nil, nil
	}
	var segs []string
	for p := range strings.SplitSeq(raw[1:], "/") {
		v, err := p, error(nil)
		if unescape {
			v, err = url.PathUnescape(p)
		}
		if err != nil || v == "" {
			return nil, nil, nil
		}
		segs = append(segs, v)
	}
	var best *route
	bestPathLiterals := -1
	for _, rt := range t.routes {
		if len(rt.segs) != len(segs) || !rt.matches(segs) {
			continue
		}
		if rt.literals > bestPathLiterals {
			bestPathLiterals, best = rt.literals, nil
		}
		if rt.literals == bestPathLiterals &&
			(rt.method == method || (method == http.MethodHead && rt.method == http.MethodGet)) {
			best = rt
		}
	}
	if best == nil {
		var allowed []string
		for _, rt := range t.routes {
			if len(rt.segs) == len(segs) && rt.literals == bestPathLiterals && rt.matches(segs) {
				allowed = append(allowed, rt.method)
			}
		}
		slices.Sort(allowed)
		return nil, slices.Compact(allowed), nil
	}
	params := dst[:0]
	for i, lit := range best.segs {
		if lit == "" {
			params = append(params, segs[i])
		}
	}
	return best, nil, params
}

func (rt *route) matches(segs []string) bool {
	for i, lit := range rt.segs {
		if lit != "" && lit != segs[i] {
			return false
		}
	}
	return true
}

// TestRouteTreeMatchesAsBefore walks the whole route table: for every
// route, its path with parameters of every literal of the table (the
// overlaps: /v1/groups/... against /v1/{merchant_id}/...), near misses
// (a segment changed, dropped or added, a trailing or doubled slash,
// escaped segments, bad escapes) and every method, the matcher answers
// what the reference rule answers: the route, the Allow list, the
// parameters.
func TestRouteTreeMatchesAsBefore(t *testing.T) {
	s := New(Options{})
	lits := map[string]bool{"x1": true}
	for _, rt := range s.routes.routes {
		for _, l := range rt.segs {
			if l != "" {
				lits[l] = true
			}
		}
	}
	paths := map[string]bool{"": true, "/": true, "//": true, "v1/m/charges": true, "/%zz": true}
	for _, rt := range s.routes.routes {
		base := make([]string, len(rt.segs))
		for i, l := range rt.segs {
			base[i] = l
			if l == "" {
				base[i] = "x1"
			}
		}
		join := func(segs []string) string { return "/" + strings.Join(segs, "/") }
		paths[join(base)] = true
		paths[join(base)+"/"] = true
		paths[join(base)+"/extra"] = true
		paths[join(base[:len(base)-1])] = true
		paths[strings.Replace(join(base), "/", "//", 2)] = true
		for i := range base {
			for _, v := range []string{base[i] + "x", strings.ToUpper(base[i]), "%" + hexOf(base[i][0]) + base[i][1:], "a%2Fb", "%zz", ""} {
				p := slices.Clone(base)
				p[i] = v
				paths[join(p)] = true
			}
			if rt.segs[i] == "" {
				for l := range lits {
					p := slices.Clone(base)
					p[i] = l
					paths[join(p)] = true
				}
			}
		}
	}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions}
	var buf, refBuf [4]string
	checked, found, notAllowed := 0, 0, 0
	for p := range paths {
		u, err := url.Parse(p)
		if err != nil {
			u = &url.URL{Path: p}
		}
		for _, m := range methods {
			want, wantAllow, wantParams := referenceMatch(s.routes, m, u, refBuf[:0])
			got, gotAllow, gotParams := s.routes.match(m, u, buf[:0])
			checked++
			if want != nil {
				found++
			} else if len(wantAllow) > 0 {
				notAllowed++
			}
			if !assert.Equal(t, want, got, "%s %s", m, p) {
				continue
			}
			assert.Equal(t, wantAllow, gotAllow, "%s %s: Allow", m, p)
			if want != nil {
				assert.Equal(t, wantParams, gotParams, "%s %s: params", m, p)
			}
		}
	}
	assert.Greater(t, found, len(s.routes.routes), "every route is found at least once")
	assert.Greater(t, notAllowed, len(s.routes.routes), "405s with an Allow list")
	assert.Greater(t, checked-found-notAllowed, len(s.routes.routes), "404s")
	t.Logf("%d method and path pairs compared: %d matched a route, %d a path of other methods", checked, found, notAllowed)
}

func hexOf(b byte) string {
	return strings.ToUpper(string("0123456789abcdef"[b>>4]) + string("0123456789abcdef"[b&15]))
}

// FuzzRouteTreeMatchesAsBefore holds the matcher to the reference rule on
// any method and path: odd bytes, escapes (the path as url.Parse reads it,
// or as it is when Parse refuses it), trailing and doubled slashes, long
// paths. Seeded with every route's pattern.
func FuzzRouteTreeMatchesAsBefore(f *testing.F) {
	s := New(Options{})
	for _, rt := range s.routes.routes {
		f.Add(rt.method, strings.NewReplacer("{", "", "}", "").Replace(rt.pattern))
	}
	for _, p := range []string{"/v1/m/charges/", "/v1/m//charges", "/v1/a%2Fb/charges", "/v1/m/ch%61rges/x", "/v1/%zz", "/v1/m/charges/\x00", "/v1/m/charges/tr?x=1", "/v1/groups/g/customers", "/v1/m/" + strings.Repeat("a/", 20)} {
		f.Add(http.MethodGet, p)
		f.Add(http.MethodHead, p)
		f.Add(http.MethodPut, p)
	}
	f.Fuzz(func(t *testing.T, method, p string) {
		u, err := url.Parse(p)
		if err != nil {
			u = &url.URL{Path: p}
		}
		var buf, refBuf [4]string
		want, wantAllow, wantParams := referenceMatch(s.routes, method, u, refBuf[:0])
		got, gotAllow, gotParams := s.routes.match(method, u, buf[:0])
		if want != got || !slices.Equal(wantAllow, gotAllow) || !slices.Equal(wantParams, gotParams) {
			t.Fatalf("%s %q: got %v %v %q, want %v %v %q", method, p, got, gotAllow, gotParams, want, wantAllow, wantParams)
		}
	})
}
