package conformance

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Difference is one way a replayed answer differs from the recorded one.
type Difference struct {
	Seq       int    `json:"seq"`
	Operation string `json:"operation"`
	// Path is where: a JSON path into the answer ($.card.brand,
	// $[0].id), or StatusPath for the HTTP status.
	Path string `json:"path"`
	// Kind is "status", "missing key", "extra key", "type", "value",
	// "shape", "length" or "not replayed".
	Kind     string `json:"kind"`
	Recorded string `json:"recorded"`
	Replayed string `json:"replayed"`
}

// StatusPath is the path a difference of HTTP status is reported at.
const StatusPath = "@status"

func (d Difference) String() string {
	return fmt.Sprintf("#%d %s: %s: %s, recorded %s", d.Seq, d.Path, d.Kind, d.Replayed, d.Recorded)
}

// comparer compares one answer. ids are the sandbox's ids mapped so far to
// the target's; hosts are the hosts whose URLs are compared by shape.
type comparer struct {
	ids   map[string]string
	hosts map[string]bool
	// sent are the strings the merchant chose in the request, sent alike
	// at recording and at replay: where either answer holds one as an id
	// (an order_id), the other must hold the same.
	sent map[string]bool
	// learn, when set, maps the ids of a pair of list elements before they
	// are compared (list).
	learn func(rec, got any)
	out   []Difference
}

func (c *comparer) add(path, kind, recorded, replayed string) {
	c.out = append(c.out, Difference{Path: path, Kind: kind, Recorded: recorded, Replayed: replayed})
}

// Compare compares a replayed answer with the recorded one and returns the
// differences in a fixed order: the status, then the body depth first,
// members in name order, key-set differences of an object before its
// members'. What is compared:
//   - the HTTP status;
//   - the set of keys of every object, null keys included, and the JSON
//     type of every value (null is a type of its own);
//   - numbers (amounts, error codes) and booleans exactly;
//   - the length of arrays, and their elements in order;
//   - strings that look like enum values or codes (letters, digits and
//     underscores only: "completed", "card", "MXN", "visa") exactly;
//   - a string the cassette holds as an id the replay mapped: it must be the
//     target's id for the same object, of the recorded id's shape (checked
//     from the first sight, where the mapping is made);
//   - an id member ("id", "..._id") holding, on either side, a value the
//     merchant chose in the request (an order_id): exactly;
//   - by shape only (see shapeOf): ids (members "id" and "..._id"),
//     authorization numbers, request ids, references, CLABEs, masked card
//     numbers, times and dates, and URLs on the gateway's hosts, the
//     recorded upstream or the target;
//   - other text (descriptions, names, e-mail addresses, messages) by type
//     only: the gateway's wording is not the contract.
func Compare(recStatus, gotStatus int, rec, got any, ids map[string]string, hosts map[string]bool) []Difference {
	c := &comparer{ids: ids, hosts: hosts}
	return c.compare(recStatus, gotStatus, rec, got)
}

func (c *comparer) compare(recStatus, gotStatus int, rec, got any) []Difference {
	if recStatus != gotStatus {
		c.add(StatusPath, "status", strconv.Itoa(recStatus), strconv.Itoa(gotStatus))
	}
	c.value("$", "", rec, got)
	return c.out
}

// list compares a list answer of the objects the cassette saw (both sides
// arrays of objects with mapped ids) object by object: each recorded
// object with the target's object of the mapped id, wherever it stands.
// An object missing or extra, and objects out of the recorded order, are
// reported as such rather than as every later element differing. ok is
// false for any other answer.
func (c *comparer) list(recStatus, gotStatus int, rec, got any) ([]Difference, bool) {
	ra, ok1 := rec.([]any)
	ga, ok2 := got.([]any)
	if !ok1 || !ok2 {
		return nil, false
	}
	idOf := func(el any) string {
		o, _ := el.(map[string]any)
		id, _ := o["id"].(string)
		return id
	}
	at := map[string]int{}
	for j, el := range ga {
		if id := idOf(el); id != "" {
			at[id] = j
		} else {
			return nil, false
		}
	}
	if recStatus != gotStatus {
		c.add(StatusPath, "status", strconv.Itoa(recStatus), strconv.Itoa(gotStatus))
	}
	if len(ra) != len(ga) {
		c.add("$", "length", strconv.Itoa(len(ra)), strconv.Itoa(len(ga)))
	}
	used := make([]bool, len(ga))
	last, ordered := -1, true
	for i, el := range ra {
		id := idOf(el)
		if id == "" {
			return nil, false
		}
		want := id
		if m, ok := c.ids[id]; ok {
			want = m
		}
		j, ok := at[want]
		if !ok {
			c.add(indexPath("$", i), "missing element", "the object "+quote(id), "absent")
			continue
		}
		used[j] = true
		if j < last {
			ordered = false
		}
		last = j
		if c.learn != nil {
			c.learn(el, ga[j])
		}
		c.value(indexPath("$", i), "", el, ga[j])
	}
	for j, u := range used {
		if !u {
			c.add(indexPath("$", j), "extra element", "absent", "the object "+quote(idOf(ga[j])))
		}
	}
	if !ordered {
		c.add("$", "order", "the recorded order", "another order")
	}
	return c.out, true
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	}
	return fmt.Sprintf("%T", v)
}

func (c *comparer) value(path, member string, rec, got any) {
	rt, gt := jsonType(rec), jsonType(got)
	if rt != gt {
		c.add(path, "type", rt, gt)
		return
	}
	switch r := rec.(type) {
	case map[string]any:
		g := got.(map[string]any)
		keys := make([]string, 0, len(r))
		for k := range r {
			keys = append(keys, k)
			if _, ok := g[k]; !ok {
				c.add(childPath(path, k), "missing key", "present", "absent")
			}
		}
		extra := make([]string, 0)
		for k := range g {
			if _, ok := r[k]; !ok {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range extra {
			c.add(childPath(path, k), "extra key", "absent", "present")
		}
		sort.Strings(keys)
		for _, k := range keys {
			if gv, ok := g[k]; ok {
				c.value(childPath(path, k), k, r[k], gv)
			}
		}
	case []any:
		g := got.([]any)
		if len(r) != len(g) {
			c.add(path, "length", strconv.Itoa(len(r)), strconv.Itoa(len(g)))
		}
		for i := 0; i < len(r) && i < len(g); i++ {
			c.value(indexPath(path, i), "", r[i], g[i])
		}
	case json.Number:
		if !sameNumber(r.String(), got.(json.Number).String()) {
			c.add(path, "value", r.String(), got.(json.Number).String())
		}
	case bool:
		if r != got.(bool) {
			c.add(path, "value", strconv.FormatBool(r), strconv.FormatBool(got.(bool)))
		}
	case string:
		c.str(path, member, r, got.(string))
	}
}

func sameNumber(a, b string) bool {
	x, okA := new(big.Rat).SetString(a)
	y, okB := new(big.Rat).SetString(b)
	if !okA || !okB {
		return a == b
	}
	return x.Cmp(y) == 0
}

func (c *comparer) str(path, member, rec, got string) {
	if rec == got {
		return
	}
	if mapped, ok := c.ids[rec]; ok {
		if got != mapped {
			c.add(path, "value", quote(mapped)+" (the target's id of the recorded "+quote(rec)+")", quote(got))
		} else if rs, gs := c.shapeOf(rec), c.shapeOf(got); rs != gs && !sameDraw(rec, got) {
			// The id was mapped at first sight: its shape is checked there.
			c.add(path, "shape", rs, gs)
		}
		return
	}
	if (member == "id" || strings.HasSuffix(member, "_id")) && (c.sent[rec] || c.sent[got]) {
		c.add(path, "value", quote(rec), quote(got)+" (the request sent one of them)")
		return
	}
	if c.byShape(member, rec) || c.byShape(member, got) {
		if rs, gs := c.shapeOf(rec), c.shapeOf(got); rs != gs && !sameDraw(rec, got) {
			c.add(path, "shape", rs, gs)
		}
		return
	}
	if enumLike.MatchString(rec) {
		c.add(path, "value", quote(rec), quote(got))
	}
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strconv.Quote(s)
}

// enumLike matches the strings compared exactly: enum values and codes.
var enumLike = regexp.MustCompile(`^[A-Za-z0-9_]{1,40}$`)

// shapeMembers are the members whose values the gateway and the server
// each draw on their own, compared by shape only.
var shapeMembers = map[string]bool{
	"id": true, "authorization": true, "request_id": true, "reference": true, "paybin_reference": true,
	"clabe": true, "card_number": true, "barcode_url": true, "verification_code": true,
}

// byShape reports whether a string is compared by shape only; either side
// being a time or a URL on those hosts is enough.
func (c *comparer) byShape(member, rec string) bool {
	if shapeMembers[member] || strings.HasSuffix(member, "_id") {
		return true
	}
	if _, ok := timeShape(rec); ok {
		return true
	}
	if u, err := url.Parse(rec); err == nil && u.IsAbs() && u.Host != "" {
		return c.hosts[strings.ToLower(u.Host)] || gatewayHost(u.Hostname())
	}
	return false
}

// timeLayouts are the forms of time the gateway's answers use.
var timeLayouts = []string{time.RFC3339, "2006-01-02T15:04:05-0700", "2006-01-02T15:04:05", "2006-01-02"}

func timeShape(s string) (string, bool) {
	for _, l := range timeLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return "time " + l, true
		}
	}
	return "", false
}

// shapeOf describes a string's shape: the layout of a time, a URL's number
// of path segments, a UUID, else its length and alphabet
// (digits, hex, lower-case letters and digits, upper-case, mixed, text).
func (c *comparer) shapeOf(s string) string {
	if ts, ok := timeShape(s); ok {
		return ts
	}
	if u, err := url.Parse(s); err == nil && u.IsAbs() && u.Host != "" {
		// Not the scheme: the sandbox is https, a local server http.
		return fmt.Sprintf("URL with %d path segments", len(strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })))
	}
	if uuidShape.MatchString(s) {
		return "UUID"
	}
	return fmt.Sprintf("%d characters of %s", len(s), alphabet(s))
}

// sameDraw reports whether two strings of the same length could be drawn
// from one alphabet: the letters and digits of one are of the kinds
// (digits, a to f, g to z, A to Z) of the other, or, for a code of mixed
// case, both hold letters of one case. A random code of mixed case and
// digits may draw no capital in one sample and no digit in another
// ("AB12CD34" and "aBcDeFgH"); it is not another shape for that.
func sameDraw(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	ka, kb := kinds(a), kinds(b)
	if ka&kindOther != 0 || kb&kindOther != 0 {
		return false
	}
	if ka&kb == ka || ka&kb == kb {
		return true
	}
	union := ka | kb
	mixed := union&kindUpper != 0 && union&(kindHex|kindLower) != 0
	return mixed && letterCases(ka)&letterCases(kb) != 0
}

// letterCases keeps the cases of the letters of kinds k: kindUpper, and
// kindLower for any lower-case letter (a to f included).
func letterCases(k int) int {
	out := k & kindUpper
	if k&(kindHex|kindLower) != 0 {
		out |= kindLower
	}
	return out
}

const (
	kindDigit = 1 << iota
	kindHex
	kindLower
	kindUpper
	kindOther
)

func kinds(s string) int {
	k := 0
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9':
			k |= kindDigit
		case b >= 'a' && b <= 'f':
			k |= kindHex
		case b >= 'g' && b <= 'z':
			k |= kindLower
		case b >= 'A' && b <= 'Z':
			k |= kindUpper
		default:
			k |= kindOther
		}
	}
	return k
}

var uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func alphabet(s string) string {
	k := kinds(s)
	switch {
	case k&kindOther != 0:
		return "text"
	case k&kindUpper != 0 && k&(kindHex|kindLower) != 0:
		return "mixed-case letters and digits"
	case k&kindUpper != 0:
		return "upper-case letters and digits"
	case k&kindLower != 0:
		return "lower-case letters and digits"
	case k&kindHex != 0:
		return "hex digits"
	case k&kindDigit != 0:
		return "digits"
	}
	return "nothing"
}
