package routetree

import (
	"net/url"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

func parse(path string) *url.URL {
	u, err := url.Parse(path)
	if err != nil { // a bad escape: the server gets the path as it is
		return &url.URL{Path: path}
	}
	return u
}

// TestMostLiteralsWin: the contract's rule on overlapping patterns.
func TestMostLiteralsWin(t *testing.T) {
	var tr Tree
	tr.Add("GET", []string{"v1", "", "customers"}, 0)
	tr.Add("GET", []string{"v1", "groups", ""}, 1)
	tr.Add("POST", []string{"v1", "", "customers"}, 2)
	tr.Add("GET", []string{"v1", "", "", "x"}, 3)
	tr.Add("GET", []string{"v1", "", "c", ""}, 4)
	_, ok := tr.Add("GET", []string{"v1", "", "customers"}, 5)
	assert.False(t, ok, "the same pattern and method twice")

	for _, c := range []struct {
		method, path string
		id           int
		allow        []string
	}{
		{"GET", "/v1/m/customers", 0, nil},
		{"HEAD", "/v1/m/customers", 0, nil},
		{"POST", "/v1/m/customers", 2, nil},
		{"PUT", "/v1/m/customers", -1, []string{"GET", "POST"}},
		{"GET", "/v1/groups/customers", 1, nil}, // two literals each: the one added last
		{"POST", "/v1/groups/customers", 2, nil},
		{"PUT", "/v1/groups/x", -1, []string{"GET"}}, // only the more literal pattern counts
		{"POST", "/v1/groups/x", -1, []string{"GET"}},
		{"GET", "/v1/m/c/x", 4, nil}, // equal literals (3): the one added last
		{"GET", "/v1/m/d/x", 3, nil},
		{"GET", "/v1/m/nothing", -1, nil},
		{"GET", "/v1/m/customers/", -1, nil},
		{"GET", "/v1/m/%63ustomers", 0, nil},
		{"GET", "/v1/a%2Fb/customers", 0, nil},
		{"GET", "/v1/m/customers//", -1, nil},
		{"GET", "v1/m/customers", -1, nil},
	} {
		id, allow, _ := tr.Match(c.method, parse(c.path), nil)
		assert.Equal(t, c.id, id, "%s %s", c.method, c.path)
		assert.Equal(t, c.allow, allow, "%s %s", c.method, c.path)
	}
}

// TestParams: the values of the winning pattern's parameters, in its
// order, escapes undone within a segment; unmatchable paths match nothing.
func TestParams(t *testing.T) {
	var tr Tree
	tr.Add("GET", []string{"v1", "", "c", ""}, 0)
	tr.Add("GET", []string{"v1", "", ""}, 1)
	tr.Add("GET", []string{"v1", "", "c", "", "", "d"}, 2)
	for _, c := range []struct {
		path   string
		id     int
		params []string
	}{
		{"/v1/m/c/x", 0, []string{"m", "x"}},
		{"/v1/a%2Fb/c/x%20y", 0, []string{"a/b", "x y"}},
		{"/v1/m/d", 1, []string{"m", "d"}},
		{"/v1/m/c", 1, []string{"m", "c"}},
		{"/v1/m/c/x/y/d", 2, []string{"m", "x", "y"}},
		{"/", -1, nil}, {"//", -1, nil}, {"/v1//x", -1, nil}, {"/v1/x/", -1, nil},
		{"v1/x/y", -1, nil}, {"/v1/%zz/y", 1, []string{"%zz", "y"}},
		{"/v1/m/c/x/y/d/" + strings.Repeat("a/", MaxSegments), -1, nil},
	} {
		id, _, params := tr.Match("GET", parse(c.path), []string{"kept"})
		assert.Equal(t, c.id, id, c.path)
		if c.id >= 0 {
			assert.Equal(t, append([]string{"kept"}, c.params...), params, c.path)
		} else {
			assert.Equal(t, []string(nil), params, c.path)
		}
	}
}

// TestParamsAreViews: without escapes, the values are the path's own bytes.
func TestParamsAreViews(t *testing.T) {
	var tr Tree
	tr.Add("GET", []string{"v1", "", "c", ""}, 0)
	u := parse("/v1/m/c/x")
	_, _, params := tr.Match("GET", u, nil)
	assert.Equal(t, unsafe.StringData(u.Path[4:]), unsafe.StringData(params[0]))
	assert.Equal(t, unsafe.StringData(u.Path[8:]), unsafe.StringData(params[1]))
}

// TestLongestPattern: MaxSegments segments match; one more does not add.
func TestLongestPattern(t *testing.T) {
	var tr Tree
	segs := make([]string, MaxSegments)
	for i := range segs {
		segs[i] = "a"
	}
	tr.Add("GET", segs, 0)
	id, _, _ := tr.Match("GET", parse("/"+strings.Repeat("a/", MaxSegments-1)+"a"), nil)
	assert.Equal(t, 0, id)
	assert.Panics(t, func() { tr.Add("GET", append(segs, "a"), 1) })
}

// TestCloneIsApart: adding to a clone leaves the original as it was.
func TestCloneIsApart(t *testing.T) {
	var tr Tree
	tr.Add("GET", []string{"a", ""}, 0)
	c := tr.Clone()
	c.Add("GET", []string{"a", "b"}, 1)
	c.Add("POST", []string{"a", ""}, 2)
	u := parse("/a/b")
	id, _, _ := tr.Match("GET", u, nil)
	assert.Equal(t, 0, id)
	_, allow, _ := tr.Match("POST", u, nil)
	assert.Equal(t, []string{"GET"}, allow)
	id, _, _ = c.Match("GET", u, nil)
	assert.Equal(t, 1, id)
}

// TestMatchDoesNotAllocate: a match is comparisons only.
func TestMatchDoesNotAllocate(t *testing.T) {
	var tr Tree
	tr.Add("GET", []string{"v1", "", "charges", ""}, 0)
	u := parse("/v1/m/charges/tr")
	var buf [4]string
	assert.Zero(t, testing.AllocsPerRun(100, func() { tr.Match("GET", u, buf[:0]) }))
}
