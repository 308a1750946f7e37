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
//   - [Split] splits a URL's path into its segments as the server sees
//     them (escapes undone, so that "%2F" stays within its segment); a path
//     that cannot match any pattern (not starting with "/", an empty
//     segment, a bad escape) gives nil.
//   - Matching allocates nothing but the Allow list; a Tree is only read by
//     Match, so one Tree serves many servers and goroutines once built.
//     [Tree.Clone] gives a copy to add to without touching the original.
//
// The package does not own the routes themselves (handlers, access, the
// parameters' names): the server keeps them by the id it adds each with.
package routetree

import (
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
}

// Add adds the pattern segs (a parameter is "") for method, known by id
// (ids grow with each Add). When the tree already has the same pattern for
// the method it adds nothing and returns that pattern's id and false.
func (t *Tree) Add(method string, segs []string, id int) (int, bool) {
	n := &t.root
	for _, s := range segs {
		n = n.child(s)
	}
	for _, e := range n.ends {
		if e.method == method {
			return e.id, false
		}
	}
	n.ends = append(n.ends, end{method, id})
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

// Split appends the segments of u's path to dst and returns them, or nil
// when the path cannot match a pattern.
func Split(u *url.URL, dst []string) []string {
	// Without a RawPath the path has no escapes that hide a slash: its
	// segments are u.Path's, as unescaping the escaped path's gives them.
	raw, unescape := u.Path, false
	if u.RawPath != "" {
		raw, unescape = u.EscapedPath(), true
	}
	if !strings.HasPrefix(raw, "/") {
		return nil
	}
	raw = raw[1:]
	for {
		i := strings.IndexByte(raw, '/')
		seg := raw
		if i >= 0 {
			seg = raw[:i]
		}
		if unescape {
			var err error
			if seg, err = url.PathUnescape(seg); err != nil {
				return nil
			}
		}
		if seg == "" {
			return nil
		}
		dst = append(dst, seg)
		if i < 0 {
			return dst
		}
		raw = raw[i+1:]
	}
}

// found is what a walk of the tree has found so far.
type found struct {
	method   string
	literals int // of the patterns that count; -1 before the first
	id       int // the winner, -1 for none
	allowed  []string
	allow    bool // collect the methods of the patterns that count
}

// Match returns the id of the pattern that the path's segments and the
// method match, or -1 and the methods the path accepts (see the package's
// contract).
func (t *Tree) Match(method string, segs []string) (int, []string) {
	f := found{method: method, literals: -1, id: -1}
	t.root.walk(segs, 0, &f)
	if f.id >= 0 || f.literals < 0 {
		return f.id, nil
	}
	f.allow = true
	t.root.walk(segs, 0, &f)
	slices.Sort(f.allowed)
	return -1, slices.Compact(f.allowed)
}

func (n *node) walk(segs []string, literals int, f *found) {
	if len(segs) == 0 {
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
			f.literals, f.id = literals, -1
		}
		for _, e := range n.ends {
			if (e.method == f.method || (f.method == http.MethodHead && e.method == http.MethodGet)) && e.id > f.id {
				f.id = e.id
			}
		}
		return
	}
	seg := segs[0]
	for i := range n.lits {
		if n.lits[i].seg == seg {
			n.lits[i].child.walk(segs[1:], literals+1, f)
			break
		}
	}
	if n.param != nil {
		n.param.walk(segs[1:], literals, f)
	}
}
