package routetree

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
)

func segs(t *testing.T, path string) []string {
	u, err := url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	return Split(u, nil)
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
	} {
		s := segs(t, c.path)
		if s == nil {
			assert.Equal(t, -1, c.id, c.path)
			continue
		}
		id, allow := tr.Match(c.method, s)
		assert.Equal(t, c.id, id, "%s %s", c.method, c.path)
		assert.Equal(t, c.allow, allow, "%s %s", c.method, c.path)
	}
}

// TestSplit: escapes are undone within a segment; unmatchable paths give nil.
func TestSplit(t *testing.T) {
	assert.Equal(t, []string{"v1", "a/b", "c"}, segs(t, "/v1/a%2Fb/c"))
	assert.Equal(t, []string{"v1", "x"}, segs(t, "/v1/x"))
	for _, p := range []string{"/", "//", "/v1//x", "/v1/x/", "v1/x"} {
		assert.Nil(t, segs(t, p), p)
	}
}

// TestCloneIsApart: adding to a clone leaves the original as it was.
func TestCloneIsApart(t *testing.T) {
	var tr Tree
	tr.Add("GET", []string{"a", ""}, 0)
	c := tr.Clone()
	c.Add("GET", []string{"a", "b"}, 1)
	c.Add("POST", []string{"a", ""}, 2)
	id, _ := tr.Match("GET", []string{"a", "b"})
	assert.Equal(t, 0, id)
	_, allow := tr.Match("POST", []string{"a", "b"})
	assert.Equal(t, []string{"GET"}, allow)
	id, _ = c.Match("GET", []string{"a", "b"})
	assert.Equal(t, 1, id)
}

// TestMatchDoesNotAllocate: a match is comparisons only.
func TestMatchDoesNotAllocate(t *testing.T) {
	var tr Tree
	tr.Add("GET", []string{"v1", "", "charges", ""}, 0)
	s := []string{"v1", "m", "charges", "tr"}
	assert.Zero(t, testing.AllocsPerRun(100, func() { tr.Match("GET", s) }))
}
