// Package routetree finds which of the reference server's route patterns a
// request's path and method match, comparing each segment of the path once.
//
// A pattern is a list of segments, each a literal or a parameter. The
// patterns are kept as a tree of segments: a node has its literal children
// and at most one parameter child (parameters' names play no part in
// matching), and the patterns that end at a node, one per method.
//
// Contract:
//   - A path matches a pattern when it has as many segments and every
//     literal segment is equal. Among the patterns that match a path, only
//     those with the most literal segments count; among them, the one of
//     the request's method wins (HEAD is answered by GET's), and of two
//     such, the one added last. When none is of the method, [Tree.Match]
//     answers the methods of those that count, sorted, each once (the
//     Allow header), or nil when no pattern matches the path at all.
//   - [Tree.Match] reads a URL's path as its segments as the server sees
//     them (escapes undone, so that "%2F" stays within its segment); a path
//     that cannot match any pattern (not starting with "/", an empty
//     segment, a bad escape, more than [MaxSegments] segments) matches
//     nothing and has no Allow list. It answers the matching pattern's
//     parameters' values, in its order: slices of the URL's path when it
//     has no escapes.
//   - Matching allocates nothing but the Allow list (and the unescaped
//     path, when it has escapes); a Tree is only read by Match, so one
//     Tree serves many servers and goroutines once built.
//     [Tree.Clone] gives a copy to add to without touching the original.
//
// The package does not own the routes themselves (handlers, access, the
// parameters' names): the server keeps them by the id it adds each with.
package routetree

import (
	"math"
	"math/bits"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Tree is a set of patterns. Its zero value is empty and ready.
type Tree struct {
	root node
}

type node struct {
	lits  []edge
	param *node
	ends  []end
}

type edge struct {
	seg   string
	child *node
}

// end is a pattern ending at a node.
type end struct {
	method string
	id     int
	params uint32 // bit i: segment i is a parameter
}

// Add adds the pattern segs (a parameter is "") for method, known by id
// (ids grow with each Add). When the tree already has the same pattern for
// the method it adds nothing and returns that pattern's id and false.
func (t *Tree) Add(method string, segs []string, id int) (int, bool) {
	if len(segs) > MaxSegments {
		panic("routetree: a pattern of more than MaxSegments segments")
	}
	n, params := &t.root, uint32(0)
	for i, s := range segs {
		n = n.child(s)
		if s == "" {
			params |= 1 << i
		}
	}
	for _, e := range n.ends {
		if e.method == method {
			return e.id, false
		}
	}
	n.ends = append(n.ends, end{method, id, params})
	return id, true
}

func (n *node) child(seg string) *node {
	if seg == "" {
		if n.param == nil {
			n.param = &node{}
		}
		return n.param
	}
	for _, e := range n.lits {
		if e.seg == seg {
			return e.child
		}
	}
	c := &node{}
	n.lits = append(n.lits, edge{seg, c})
	return c
}

// Clone returns a copy of the tree that Add may change alone.
func (t *Tree) Clone() *Tree {
	return &Tree{root: *t.root.clone()}
}

func (n *node) clone() *node {
	c := &node{lits: make([]edge, len(n.lits)), ends: slices.Clone(n.ends)}
	for i, e := range n.lits {
		c.lits[i] = edge{e.seg, e.child.clone()}
	}
	if n.param != nil {
		c.param = n.param.clone()
	}
	return c
}

// MaxSegments is the most segments a pattern may have; a longer path
// matches nothing.
const MaxSegments = 16

// path is a URL path's segments as the server sees them: segment i is
// s[end[i-1]+1:end[i]] (the first starts at 1), where s is the URL's path
// itself unless escapes had to be undone.
type path struct {
	s   string
	n   int
	end [MaxSegments]int32
}

// parse finds the segments of u's path (escapes undone, so that "%2F"
// stays within its segment). It reports false when the path cannot match
// a pattern: it does not start with "/", has an empty segment or a bad
// escape, or has more than MaxSegments segments.
func (p *path) parse(u *url.URL) bool {
	if u.RawPath != "" {
		return p.unescape(u.EscapedPath())
	}
	// Without a RawPath the path has no escapes that hide a slash: its
	// segments are u.Path's, as unescaping the escaped path's gives them.
	s := u.Path
	if len(s) == 0 || s[0] != '/' || len(s) > math.MaxInt32 {
		return false
	}
	p.s = s
	for at, n := 1, 0; n < MaxSegments; n++ {
		e := strings.IndexByte(s[at:], '/')
		if e == 0 || at == len(s) {
			return false
		}
		if e < 0 {
			p.end[n], p.n = int32(len(s)), n+1
			return true
		}
		at += e
		p.end[n] = int32(at)
		at++
	}
	return false
}

// unescape is parse for an escaped path: its segments are unescaped one
// by one into one string, where they keep their bounds.
func (p *path) unescape(raw string) bool {
	if !strings.HasPrefix(raw, "/") {
		return false
	}
	var b []byte
	p.n = 0
	for seg := range strings.SplitSeq(raw[1:], "/") {
		v, err := url.PathUnescape(seg)
		if err != nil || v == "" || p.n == MaxSegments || len(b) > math.MaxInt32/2 {
			return false
		}
		b = append(append(b, '/'), v...)
		p.end[p.n] = int32(len(b))
		p.n++
	}
	p.s = string(b)
	return true
}

// found is what a walk of the tree has found so far.
type found struct {
	method   string
	head     bool // the method is HEAD, which GET's patterns answer
	literals int  // of the patterns that count; -1 before the first
	end      *end // the winner, nil for none
	allowed  []string
	allow    bool // collect the methods of the patterns that count
}

// Match returns the id of the pattern that the method and u's path match
// and the values of its parameters, in the pattern's order, appended to
// params; or -1 and the methods the path accepts (see the package's
// contract). The values are slices of u.Path when it has no escapes.
func (t *Tree) Match(method string, u *url.URL, params []string) (int, []string, []string) {
	var p path
	if !p.parse(u) {
		return -1, nil, nil
	}
	f := found{method: method, head: method == http.MethodHead, literals: -1}
	t.root.walk(&p, 0, 1, 0, &f)
	if f.end != nil {
		for set := f.end.params; set != 0; set &= set - 1 {
			i, from := bits.TrailingZeros32(set), int32(1)
			if i > 0 {
				from = p.end[i-1] + 1
			}
			params = append(params, p.s[from:p.end[i]])
		}
		return f.end.id, nil, params
	}
	if f.literals < 0 {
		return -1, nil, nil
	}
	f.allow = true
	t.root.walk(&p, 0, 1, 0, &f)
	slices.Sort(f.allowed)
	return -1, slices.Compact(f.allowed), nil
}

// walk visits the nodes that the path's segments from segment at (which
// starts at from) lead to, the literal child before the parameter child,
// and gives those where the path ends to f.
func (n *node) walk(p *path, at int, from int32, literals int, f *found) {
	if at == p.n {
		f.take(n, literals)
		return
	}
	to := p.end[at]
	seg := p.s[from:to]
	for i := range n.lits {
		if n.lits[i].seg == seg {
			n.lits[i].child.walk(p, at+1, to+1, literals+1, f)
			break
		}
	}
	if n.param != nil {
		n.param.walk(p, at+1, to+1, literals, f)
	}
}

// take gives f the patterns that end at n, reached with literals literal
// segments.
func (f *found) take(n *node, literals int) {
	if len(n.ends) == 0 || literals < f.literals {
		return
	}
	if f.allow {
		if literals == f.literals {
			for _, e := range n.ends {
				f.allowed = append(f.allowed, e.method)
			}
		}
		return
	}
	if literals > f.literals {
		f.literals, f.end = literals, nil
	}
	for i := range n.ends {
		e := &n.ends[i]
		if (e.method == f.method || f.head && e.method == http.MethodGet) && (f.end == nil || e.id > f.end.id) {
			f.end = e
		}
	}
}
