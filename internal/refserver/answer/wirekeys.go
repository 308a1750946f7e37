package answer

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"reflect"
	"strings"

	"github.com/openpay-go/openpay"
)

// wireKey is a key that an object always carries, with the JSON value it has
// when the wire type leaves it out.
type wireKey struct {
	name string
	zero string // a JSON literal: null, false, 0
}

// wireVariant names the keys an object carries when the member at path holds
// one of values, or, when values is empty, when the member is sent and not
// null.
type wireVariant struct {
	path   string   // dotted member path inside the object
	values []string // string values of that member; none: any value
	keys   []wireKey
}

// keyPlanSpec is the generated description of one plan: the keys of a
// schema (or of a schema in one place, "Card.address") that the wire type may
// leave out but answers always carry, and the plans of its members.
type keyPlanSpec struct {
	name     string
	always   []wireKey
	variants []wireVariant
	members  map[string]string // member key: plan name (arrays: of each element)
}

// keyPlan is a keyPlanSpec ready for encoding. Its keys are numbered; a set
// of keys is a bit mask.
type keyPlan struct {
	keys  []wireKey
	byKey map[string]memberPlan
	// byLen is byKey by the keys' length (the last entry holds the longer
	// ones), so that an object's keys are looked up by comparing a few
	// bytes instead of hashing each: most have no entry of their length.
	byLen    [64][]namedMember
	always   uint64
	variants []planVariant
	heads    []string // first segment of each variant's path
}

// namedMember is an entry of keyPlan.byLen.
type namedMember struct {
	name string
	memberPlan
}

// member is what the plan knows of key, ok false when nothing.
func (p *keyPlan) member(key []byte) (memberPlan, bool) {
	for _, nm := range p.byLen[min(len(key), 63)] {
		if nm.name == string(key) {
			return nm.memberPlan, true
		}
	}
	return memberPlan{}, false
}

// memberPlan is what a plan knows of one key of its objects.
type memberPlan struct {
	bit  uint64   // the key's bit, 0 when the plan never adds it
	plan *keyPlan // the member's own plan, nil when it has none
	head int      // index in heads, -1 when no variant looks at it
}

// planVariant is a wireVariant of a built plan.
type planVariant struct {
	head   int      // index of path[0] in the plan's heads
	rest   []string // the rest of the path
	values []string // JSON encodings of the values
	keys   uint64
}

// maxHeads bounds the members the variants of one plan look at, so that an
// object is scanned without allocating.
const maxHeads = 4

// keyPlans are the plans by name (a schema name is the name of its wire
// type); built once from the generated table.
var keyPlans = buildKeyPlans(keyPlanTable)

// buildKeyPlans links the generated specs. It panics on a table that
// TestKeyPlansFollowOpenAPI would not have written.
func buildKeyPlans(specs []keyPlanSpec) map[string]*keyPlan {
	plans := make(map[string]*keyPlan, len(specs))
	for _, sp := range specs {
		plans[sp.name] = &keyPlan{byKey: map[string]memberPlan{}}
	}
	for _, sp := range specs {
		p := plans[sp.name]
		member := func(name string) memberPlan {
			if m, ok := p.byKey[name]; ok {
				return m
			}
			return memberPlan{head: -1}
		}
		addKey := func(k wireKey) uint64 {
			m := member(k.name)
			if m.bit == 0 {
				if len(p.keys) == 64 {
					panic("answer: more than 64 keys in key plan " + sp.name)
				}
				if b, _ := json.Marshal(k.name); string(b) != `"`+k.name+`"` {
					panic("answer: key " + k.name + " needs escaping")
				}
				m.bit = 1 << len(p.keys)
				p.keys = append(p.keys, k)
				p.byKey[k.name] = m
			}
			return m.bit
		}
		for _, k := range sp.always {
			p.always |= addKey(k)
		}
		for _, v := range sp.variants {
			path := strings.Split(v.path, ".")
			m := member(path[0])
			if m.head < 0 {
				m.head = len(p.heads)
				p.heads = append(p.heads, path[0])
				p.byKey[path[0]] = m
			}
			pv := planVariant{head: m.head, rest: path[1:]}
			for _, s := range v.values {
				b, _ := json.Marshal(s)
				pv.values = append(pv.values, string(b))
			}
			for _, k := range v.keys {
				pv.keys |= addKey(k)
			}
			p.variants = append(p.variants, pv)
		}
		if len(p.heads) > maxHeads {
			panic(fmt.Sprintf("answer: key plan %s has variants on %d members", sp.name, len(p.heads)))
		}
		for key, name := range sp.members {
			child, ok := plans[name]
			if !ok {
				panic("answer: key plan " + sp.name + " names unknown plan " + name)
			}
			m := member(key)
			m.plan = child
			p.byKey[key] = m
		}
	}
	for _, p := range plans {
		for key, m := range p.byKey {
			n := min(len(key), 63)
			p.byLen[n] = append(p.byLen[n], namedMember{name: key, memberPlan: m})
		}
	}
	return plans
}

// openpayPath is the import path of the wire types; ownPath that of this
// package, whose answer types (a Token) have plans too.
var (
	openpayPath = reflect.TypeFor[openpay.Transaction]().PkgPath()
	ownPath     = reflect.TypeFor[Token]().PkgPath()
)

// planFor is the plan of an answer: that of its wire type, or of the
// elements of a list of them; nil when it has none.
func planFor(v any) *keyPlan {
	t := reflect.TypeOf(v)
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		t = t.Elem()
	}
	if t == nil || t.PkgPath() != openpayPath && t.PkgPath() != ownPath {
		return nil
	}
	return keyPlans[t.Name()]
}

// AddWireKeys returns data, the JSON encoding of v by encoding/json, with the
// keys of v's plan that the encoding left out. It returns data itself when
// nothing is missing.
func AddWireKeys(data []byte, v any) []byte { return AddWireKeysInto(nil, data, v) }

// AddWireKeysInto is AddWireKeys building its copy in scratch's storage
// when that is large enough (Write reuses it from answer to
// answer).
func AddWireKeysInto(scratch, data []byte, v any) []byte {
	p := planFor(v)
	if p == nil {
		return data
	}
	f := keyFiller{src: data, scratch: scratch}
	f.value(0, p)
	if f.dst == nil {
		return data
	}
	return append(f.dst, data[f.last:]...)
}

// keyFiller copies src to dst, adding missing keys. It relies on the form
// encoding/json writes: no space between tokens. dst stays nil until the
// first key is added; src[:last] has been copied to dst.
type keyFiller struct {
	src, dst []byte
	scratch  []byte // storage for dst, when large enough
	last     int
}

// value walks the value at src[i] under plan p and returns the index after
// it.
func (f *keyFiller) value(i int, p *keyPlan) int {
	switch {
	case p == nil:
		return skipJSON(f.src, i)
	case f.src[i] == '{':
		return f.object(i, p)
	case f.src[i] == '[':
		i++
		for f.src[i] != ']' {
			i = f.value(i, p)
			if f.src[i] == ',' {
				i++
			}
		}
		return i + 1
	}
	return skipJSON(f.src, i)
}

// object walks the object at src[i] and adds the keys it lacks before its
// closing brace.
func (f *keyFiller) object(i int, p *keyPlan) int {
	var seen uint64
	var heads [maxHeads][2]int // value spans of the members the variants look at
	empty := f.src[i+1] == '}'
	i++
	for f.src[i] != '}' {
		end := skipString(f.src, i)
		m, ok := p.member(f.src[i+1 : end-1])
		start := end + 1 // after the colon
		if ok {
			i = f.value(start, m.plan)
			seen |= m.bit
			if m.head >= 0 {
				heads[m.head] = [2]int{start, i}
			}
		} else {
			i = skipJSON(f.src, start)
		}
		if f.src[i] == ',' {
			i++
		}
	}
	want := p.always
	for _, v := range p.variants {
		if span := heads[v.head]; span[1] > 0 && v.matches(f.src[span[0]:span[1]]) {
			want |= v.keys
		}
	}
	if missing := want &^ seen; missing != 0 {
		if f.dst == nil {
			// Room for a few keys in every object, so that a list grows
			// its copy once at most.
			if need := len(f.src) + len(f.src)/4 + 64; cap(f.scratch) >= need {
				f.dst = f.scratch[:0]
			} else {
				f.dst = make([]byte, 0, need)
			}
		}
		f.dst = append(f.dst, f.src[f.last:i]...)
		f.last = i
		for ; missing != 0; missing &= missing - 1 {
			k := p.keys[bits.TrailingZeros64(missing)]
			if !empty {
				f.dst = append(f.dst, ',')
			}
			empty = false
			f.dst = append(f.dst, '"')
			f.dst = append(f.dst, k.name...)
			f.dst = append(f.dst, '"', ':')
			f.dst = append(f.dst, k.zero...)
		}
	}
	return i + 1
}

// matches reports whether the member the variant looks at, inside value (the
// JSON of the path's first member), holds one of the variant's values (any
// value but null when the variant lists none).
func (v *planVariant) matches(value []byte) bool {
	for _, name := range v.rest {
		value = memberJSON(value, name)
	}
	if len(v.values) == 0 {
		return len(value) > 0 && string(value) != "null"
	}
	for _, want := range v.values {
		if string(value) == want {
			return true
		}
	}
	return false
}

// memberJSON is the JSON of member name of the object obj, nil when obj is
// not an object or has no such member.
func memberJSON(obj []byte, name string) []byte {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	for i := 1; obj[i] != '}'; {
		end := skipString(obj, i)
		key := obj[i+1 : end-1]
		start := end + 1
		i = skipJSON(obj, start)
		if string(key) == name {
			return obj[start:i]
		}
		if obj[i] == ',' {
			i++
		}
	}
	return nil
}

// skipJSON returns the index after the JSON value at data[i].
func skipJSON(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', '\n':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index after the JSON string that opens at data[i].
func skipString(data []byte, i int) int {
	for i++; ; i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}
