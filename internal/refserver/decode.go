package refserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/openpay-go/openpay"
)

// Request bodies are decoded in two steps, so that the server can tell a
// field that is absent (or null) from one sent with its zero value, and can
// name the field in every error:
//
//  1. readBody reads the body as one JSON object into fields, its members
//     kept raw (1001 when it is not a JSON object, 1009 when too large);
//  2. fields.into decodes the members into a wire request type
//     (openpay.CardRequest, openpay.CardCharge, ...), member by member, so a
//     member of the wrong type answers 1001 naming it.
//
// Then the handler checks presence with fields.has and values with a
// checker (validate.go): 1001 for what is missing or malformed, 1003 for a
// value out of range.

// fields is a JSON object body, its members raw.
type fields map[string]json.RawMessage

// has reports whether the member is present and not null.
func (f fields) has(name string) bool {
	raw, ok := f[name]
	return ok && !isNull(raw)
}

// isNull reports whether a member's raw value is null.
func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// object returns a member that is a JSON object as fields (nil when absent
// or not an object).
func (f fields) object(name string) fields {
	if !f.has(name) {
		return nil
	}
	sub, ok := memberFields(f[name])
	if !ok {
		return nil
	}
	return sub
}

// readBody reads the request body as one JSON object. An empty body gives
// empty fields when optional is true (bodies of capture and refund are
// optional) and 1001 otherwise.
func readBody(c *call, optional bool) (fields, *Error) {
	var data []byte
	if c.r.Body != nil {
		var err error
		if n := c.r.ContentLength; n > 0 && n <= c.s.maxBody {
			// The announced length sizes the buffer at once (ServeHTTP has
			// refused a larger one; net/http ends the body at it).
			data = make([]byte, n)
			_, err = io.ReadFull(c.r.Body, data)
		} else {
			data, err = io.ReadAll(c.r.Body)
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, errorf(openpay.ErrRequestTooLarge, descBodyTooLarge)
			}
			return nil, errorf(openpay.ErrBadRequest, "The request body could not be read")
		}
	}
	return parseBody(data, optional)
}

// parseBody parses data as one JSON object (see readBody).
func parseBody(data []byte, optional bool) (fields, *Error) {
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return fields{}, nil
		}
		return nil, errorf(openpay.ErrBadRequest, "The request body is required and must be a JSON object")
	}
	// One check and one split for a well-formed object; a body that fails
	// them is read again to tell what is wrong with it.
	if f, ok := objectFields(data); ok {
		return f, nil
	}
	var f fields
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil || f == nil {
		return nil, errorf(openpay.ErrBadRequest, "The request body is not a valid JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errorf(openpay.ErrBadRequest, "The request body has data after the JSON object")
	}
	return f, nil
}

var (
	typeAmount   = reflect.TypeFor[openpay.Amount]()
	typeDecimal  = reflect.TypeFor[openpay.Decimal]()
	typeTime     = reflect.TypeFor[time.Time]()
	typeDate     = reflect.TypeFor[openpay.Date]()
	unmarshalerT = reflect.TypeFor[json.Unmarshaler]()
)

// into decodes the members into dst, a pointer to a wire request struct,
// using its json tags, with the loose forms of lenient.go (member aliases
// are copied into f). Members dst does not know are ignored, as the
// gateway ignores them. A member of the wrong type answers 1001 naming it
// (nested members are named with dots: "card.cvv2").
func (f fields) into(dst any) *Error {
	return f.intoAt(dst, gatewayZone)
}

// intoAt is into for a merchant whose zone is zone: a date-time sent
// without an offset (a due_date) is read as zone's wall-clock time.
func (f fields) intoAt(dst any, zone *time.Location) *Error {
	v := reflect.ValueOf(dst).Elem()
	f.applyAliases(v.Type())
	return f.intoValue(v, "", zone)
}

// member decodes the one member name into dst, a pointer, as into would.
func (f fields) member(name string, dst any) *Error {
	return decodeMember(f[name], reflect.ValueOf(dst).Elem(), "", name, gatewayZone)
}

func (f fields) intoValue(v reflect.Value, prefix string, zone *time.Location) *Error {
	for _, m := range jsonMembersOf(v.Type()) {
		raw, ok := f[m.name]
		if !ok || isNull(raw) {
			continue
		}
		if e := decodeMember(raw, v.Field(m.index), prefix, m.name, zone); e != nil {
			return e
		}
	}
	return nil
}

// jsonMember is a field of a wire struct that a JSON member fills.
type jsonMember struct {
	index int
	name  string
}

// jsonMembers caches jsonMembersOf by type: the wire types are few and
// fixed, and reading their tags on every request costs more than decoding.
var jsonMembers sync.Map // reflect.Type -> []jsonMember

// jsonMembersOf returns the exported fields of the struct type t that have a
// JSON name, in field order.
func jsonMembersOf(t reflect.Type) []jsonMember {
	if ms, ok := jsonMembers.Load(t); ok {
		return ms.([]jsonMember)
	}
	var ms []jsonMember
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" || !sf.IsExported() {
			continue
		}
		ms = append(ms, jsonMember{index: i, name: name})
	}
	jsonMembers.Store(t, ms)
	internMemberNames(ms)
	return ms
}

// memberNames holds the JSON names of the wire types jsonMembersOf has
// read, each its own key: memberFields keys a body's members by these
// strings instead of allocating one per member and request. The map is
// replaced, never changed, so that readers need no lock.
var (
	memberNames   atomic.Pointer[map[string]string]
	memberNamesMu sync.Mutex // serialises writers
)

// internMemberNames adds the names of ms to memberNames.
func internMemberNames(ms []jsonMember) {
	memberNamesMu.Lock()
	defer memberNamesMu.Unlock()
	old := memberNames.Load()
	var next map[string]string
	if old != nil {
		next = maps.Clone(*old)
	} else {
		next = make(map[string]string)
	}
	for _, m := range ms {
		next[m.name] = m.name
	}
	memberNames.Store(&next)
}

// memberName returns the member name raw (a JSON string without escapes,
// quotes included) as a string, without allocating when it is a name of a
// wire type.
func memberName(raw []byte) (string, bool) {
	if names := memberNames.Load(); names != nil && len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if s, ok := (*names)[string(raw[1:len(raw)-1])]; ok {
			return s, true
		}
	}
	return plainString(raw)
}

// typeTraits is what decodeMember asks of a field's type that reflection
// answers slowly (a method set), worked out once per type.
type typeTraits struct {
	unmarshaler bool // *T implements json.Unmarshaler
	enum        bool // isEnum
}

var typeTraitsCache sync.Map // reflect.Type -> typeTraits

func traitsOf(t reflect.Type) typeTraits {
	if tr, ok := typeTraitsCache.Load(t); ok {
		return tr.(typeTraits)
	}
	tr := typeTraits{unmarshaler: reflect.PointerTo(t).Implements(unmarshalerT), enum: isEnum(t)}
	typeTraitsCache.Store(t, tr)
	return tr
}

// decodeMember decodes one raw member into the field fv; a date-time
// without an offset is zone's.
//
// The member's path is prefix+name ("card." and "cvv2"); it is put together
// only for an error, or for the members of a nested object.
func decodeMember(raw json.RawMessage, fv reflect.Value, prefix, name string, zone *time.Location) *Error {
	raw = bytes.TrimSpace(raw)
	bad := func(what string) *Error {
		return errorf(openpay.ErrBadRequest, "The field '%s%s' %s", prefix, name, what)
	}
	ft := fv.Type()
	switch {
	case ft == typeAmount || ft == typeDecimal:
		// looseNumber answers a checked JSON number, so the type's own
		// reading is called without encoding/json checking it again.
		lit, ok := looseNumber(raw)
		if !ok || fv.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(lit) != nil {
			return bad("must be a number")
		}
		return nil
	case ft == typeTime:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad("must be a date-time string")
		}
		tm, ok := parseFlexibleTime(s, zone)
		if !ok {
			return bad("must be an ISO 8601 date-time (yyyy-mm-ddThh:mm:ss with an optional offset)")
		}
		fv.Set(reflect.ValueOf(tm))
		return nil
	case ft == typeDate:
		// Stricter than the SDK's reading of answers: a request's day is
		// yyyy-mm-dd and nothing else.
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad("must be a date string (yyyy-mm-dd)")
		}
		d, err := openpay.ParseDate(s)
		if err != nil {
			return bad("must be a date written yyyy-mm-dd")
		}
		fv.Set(reflect.ValueOf(d))
		return nil
	case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64: // FlexInt too
		n, ok := looseInt(raw)
		if !ok || fv.OverflowInt(n) {
			return bad("must be a whole number")
		}
		fv.SetInt(n)
		return nil
	case traitsOf(ft).unmarshaler:
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			return bad("has the wrong type or format")
		}
		return nil
	}
	switch ft.Kind() {
	case reflect.Bool:
		b, ok := looseBool(raw)
		if !ok {
			return bad("has the wrong type: " + kindWord(ft))
		}
		fv.SetBool(b)
		return nil
	case reflect.String:
		if forms, ok := enumBooleans[ft]; ok {
			if b, ok := looseBool(raw); ok {
				fv.SetString(forms[b])
				return nil
			}
		}
		if len(raw) > 0 && raw[0] != '"' {
			if numericStringMembers[name] && raw[0] >= '0' && raw[0] <= '9' {
				var n json.Number
				if err := json.Unmarshal(raw, &n); err == nil {
					fv.SetString(n.String())
					return nil
				}
			}
			return bad("must be a string")
		}
		s, ok := plainString(raw)
		if !ok {
			var u string // apart from s, which would otherwise escape on every call
			if err := json.Unmarshal(raw, &u); err != nil {
				return bad("must be a string")
			}
			s = u
		}
		fv.SetString(s)
		if traitsOf(ft).enum {
			foldEnum(fv)
		}
		return nil
	case reflect.Pointer:
		elem := reflect.New(ft.Elem())
		if e := decodeMember(raw, elem.Elem(), prefix, name, zone); e != nil {
			return e
		}
		fv.Set(elem)
		return nil
	case reflect.Struct:
		sub, ok := memberFields(raw)
		if !ok {
			return bad("must be an object")
		}
		return sub.intoValue(fv, prefix+name+".", zone)
	default:
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			return bad("has the wrong type: " + kindWord(ft))
		}
		if ft.Kind() == reflect.Slice && isEnum(ft.Elem()) {
			for i := range fv.Len() {
				foldEnum(fv.Index(i))
			}
		}
		return nil
	}
}

// objectFields splits data, when it is one valid JSON object (surrounding
// white space allowed), into its members: what json.Unmarshal into fields
// gives (the last of repeated names wins), without decoding the object
// twice nor copying the members (they share data's storage).
func objectFields(data []byte) (fields, bool) {
	if !json.Valid(data) {
		return nil, false
	}
	return memberFields(data)
}

// memberFields is objectFields for a member of a body objectFields has
// checked: the member is valid JSON, so it is not checked again.
func memberFields(data []byte) (fields, bool) {
	i := skipSpace(data, 0)
	if i == len(data) {
		return nil, false
	}
	if data[i] != '{' {
		return nil, false
	}
	f := make(fields)
	i = skipSpace(data, i+1)
	if data[i] == '}' {
		return f, true
	}
	for {
		end := skipValue(data, i)
		name, ok := memberName(data[i:end])
		if !ok {
			var u string // apart from name, which would otherwise escape on every member
			if json.Unmarshal(data[i:end], &u) != nil {
				return nil, false
			}
			name = u
		}
		i = skipSpace(data, skipSpace(data, end)+1) // past the colon
		end = skipValue(data, i)
		f[name] = data[i:end:end]
		i = skipSpace(data, end)
		if data[i] == '}' {
			return f, true
		}
		i = skipSpace(data, i+1) // past the comma
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value at data[i], which
// json.Valid has checked.
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		for i++; data[i] != '"'; i++ {
			if data[i] == '\\' {
				i++
			}
		}
		return i + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch data[i] {
			case '"':
				i = skipValue(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}

// plainString reads a JSON string member without escapes, the common
// case, without a second pass of encoding/json over it (the body's parser
// has checked it). Anything else is left to encoding/json.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	// Invalid UTF-8 is left to encoding/json, which replaces it.
	if bytes.IndexByte(in, '\\') >= 0 || bytes.IndexByte(in, '"') >= 0 || !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}

// kindWord says in words what JSON type a Go type takes.
func kindWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "it must be true or false"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		return "it must be a number"
	case reflect.Map:
		return "it must be an object of strings"
	case reflect.Slice:
		return "it must be an array"
	}
	return "unexpected value"
}

// parseFlexibleTime reads the date-time forms clients send: RFC 3339 with
// an offset, or a local date-time or date without one, taken as the
// merchant's zone (where the gateway converts due dates); the answer is in
// that zone.
func parseFlexibleTime(s string, zone *time.Location) (time.Time, bool) {
	if tm, err := time.Parse(time.RFC3339, s); err == nil {
		return tm.In(zone), true
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if tm, err := time.ParseInLocation(layout, s, zone); err == nil {
			return tm, true
		}
	}
	return time.Time{}, false
}
