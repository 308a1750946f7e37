package reqbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
)

// Fields is a request body that is a JSON object: its members raw, in the
// order sent, for [Fields.Into] to decode and for [Fields.Has] to tell a
// member absent or null from one sent with its zero value. A name sent
// twice is kept twice and read as its last value, as encoding/json reads
// it. A body's members are few, so a lookup walks them: cheaper than
// hashing, and a split costs one allocation of the exact size. The members
// share the body's storage, which is never written after the split.
type Fields []field

// field is one member of a JSON object.
type field struct {
	name  string
	raw   json.RawMessage
	sub   Fields // raw split, once asked for when it is an object (field.object)
	plain bool   // raw is a string of ASCII without escapes (validator.scanStr)
	// own: raw is in storage no later request reuses (ReadOwn); view: the
	// strings read from raw without escapes are views of it, not copies
	// ([Fields.ShareStrings], or [Fields.Borrow] for a request's own use).
	own, view bool
}

// get returns the raw value of the member name (the last one sent when
// repeated), and whether it is present.
func (f Fields) get(name string) (json.RawMessage, bool) {
	if i := f.last(name); i >= 0 {
		return f[i].raw, true
	}
	return nil, false
}

// last returns the index of the last member named name, or -1.
func (f Fields) last(name string) int {
	for i := len(f) - 1; i >= 0; i-- {
		if f[i].name == name {
			return i
		}
	}
	return -1
}

// Has reports whether the member is present and not null.
func (f Fields) Has(name string) bool {
	raw, ok := f.get(name)
	return ok && !isNull(raw)
}

// isNull reports whether a member's raw value is null. A value whose
// first byte is ASCII and neither space nor 'n' is not, without trimming
// it (a Unicode space starts with a byte of 0x80 and up).
func isNull(raw json.RawMessage) bool {
	if len(raw) > 0 && raw[0] > ' ' && raw[0] != 'n' && raw[0] < utf8.RuneSelf {
		return false
	}
	return bytes.Equal(trimSpace(raw), []byte("null"))
}

// trimSpace is bytes.TrimSpace for a member's raw value, which has no space
// around it when it comes from the body's split: two bytes tell, ASCII that
// is not space, and then raw is its own trimmed form (a Unicode space
// starts and ends with bytes of 0x80 and up).
func trimSpace(raw []byte) []byte {
	if n := len(raw); n > 0 && raw[0] > ' ' && raw[0] < utf8.RuneSelf && raw[n-1] > ' ' && raw[n-1] < utf8.RuneSelf {
		return raw
	}
	return bytes.TrimSpace(raw)
}

// Borrow makes the strings decoded from f's own members afterwards (by
// [Fields.Into], the typed entries and [Fields.MemberString]) views of the
// body when they are written without escapes, rather than copies; those of
// nested objects (an address) stay copies. It is for a handler that keeps
// none of those strings past its request: a body read into lent storage is
// cleared once the request is answered ([Body.Done]), and a view would
// then read zeros. It returns f.
func (f Fields) Borrow() Fields {
	for i := range f {
		f[i].view = true
	}
	return f
}

// Object returns a member that is a JSON object as Fields (nil when absent,
// null or not an object). A nested object is split once, however often it
// is asked for, and Into decoding it shares the split.
func (f Fields) Object(name string) Fields {
	i := f.last(name)
	if i < 0 || isNull(f[i].raw) {
		return nil
	}
	sub, _ := f[i].object()
	return sub
}

// object splits the member, when it is a JSON object, into its members.
// The split is kept: decoding a nested object and checking its members
// afterwards (a card, an address) split it once.
func (m *field) object() (Fields, bool) {
	if m.sub == nil {
		sub, ok := memberFields(m.raw)
		if !ok {
			return nil, false
		}
		for i := range sub { // a view of lent storage (Borrow) stays at the top
			sub[i].own, sub[i].view = m.own, m.view && m.own
		}
		m.sub = sub
	}
	return m.sub, true
}

// Read reads the request body as one JSON object (see [Parse]). A body
// longer than limit bytes answers 1009 ([TooLarge]). The caller bounds
// what is read: it refuses a longer announced length before reading, and
// wraps the body in http.MaxBytesReader with the same limit, or reads it
// ahead with [Body.Preread] (ServeHTTP does), so that a long body without
// a length is cut, not read whole. An announced length sizes the buffer at
// once; a body read ahead is used as it is. The members of a body read
// ahead into lent storage are kept in storage lent for the request too,
// which [Body.Done] takes back: those Fields, like their names, must not
// be used once the request is answered.
func Read(r *http.Request, limit int64, optional bool) (Fields, *apierr.Error) {
	var data []byte
	if b, ok := r.Body.(*Body); ok { // read before the request was answered
		lent := b.lentUnread()
		var err error
		if data, err = b.rest(); err != nil {
			return nil, readError(err)
		}
		if int64(len(data)) > limit {
			return nil, TooLarge()
		}
		if lent {
			if f, ok := b.splitLent(data); ok {
				return f, nil
			}
		}
	} else if r.Body != nil {
		var err error
		if n := r.ContentLength; n > 0 && n <= limit {
			data = make([]byte, n)
			_, err = io.ReadFull(r.Body, data)
		} else {
			data, err = io.ReadAll(r.Body)
		}
		if err == nil && int64(len(data)) > limit {
			return nil, TooLarge()
		}
		if err != nil {
			return nil, readError(err)
		}
	}
	return Parse(data, optional)
}

// ReadOwn is Read (of a body that is required) for a handler whose
// decoded strings may be views of the body ([Fields.ShareStrings]): when
// the body is in storage lent for the request ([Body.Preread]), the
// values of its members that are strings, objects or arrays are copied,
// in one allocation, into storage of their own, which no later request
// reuses (the members' names and other values stay where they are, read
// during the request only). The members themselves are then kept in
// storage lent for the request too, which [Body.Done] takes back: the
// Fields, like the names, must not be used once the request is answered.
func ReadOwn(r *http.Request, limit int64) (Fields, *apierr.Error) {
	b, ok := r.Body.(*Body)
	if !ok || !b.lentUnread() || b.err != io.EOF || int64(len(b.data)) > limit { // as Read does
		f, e := Read(r, limit, false)
		for i := range f {
			f[i].own = true
		}
		return f, e
	}
	b.off = len(b.data) // read, as Read's b.rest() leaves it
	f, ok := b.splitLent(b.data)
	if !ok {
		return Parse(b.data, false) // Read's answer, without trying the split again
	}
	n := 0
	for i := range f {
		if c := f[i].raw[0]; c == '"' || c == '{' || c == '[' {
			n += len(f[i].raw)
		}
	}
	own := make([]byte, n)
	n = 0
	for i := range f {
		if c := f[i].raw[0]; c == '"' || c == '{' || c == '[' {
			m := copy(own[n:], f[i].raw)
			// An object member (a card's data, a customer) was split as it
			// was checked (splitNested): its members move with it.
			for j := range f[i].sub {
				s := &f[i].sub[j]
				at := n + int(uintptr(unsafe.Pointer(unsafe.SliceData(s.raw)))-uintptr(unsafe.Pointer(unsafe.SliceData(f[i].raw))))
				s.raw, s.own = own[at:at+len(s.raw):at+len(s.raw)], true
			}
			f[i].raw, f[i].own = own[n:n+m:n+m], true
			n += m
		}
	}
	return f[:len(f):len(f)], nil
}

// splitLent splits data, b's lent storage, when it is one valid JSON object
// of 1 to pooledFields members, into members kept in storage lent for the
// request too (a fieldStore, b.fields), which [Body.Done] takes back; ok is
// false otherwise, and Parse then reads data.
func (b *Body) splitLent(data []byte) (_ Fields, ok bool) {
	store := fieldStores.Get().(*fieldStore)
	nested := store.nested[:0] // its object members' members, split as they are checked (splitNested)
	f, ok := gather(data, true, store.f[:0], &nested)
	store.nestedUsed = len(nested)
	if !ok || len(f) == 0 || &f[0] != &store.f[0] { // not an object, empty or too long for the store
		store.release(pooledFields)
		return nil, false
	}
	b.fields, store.used = store, len(f)
	return f[:len(f):len(f)], true
}

// pooledFields is how many members the Fields of a lent body (Read,
// ReadOwn) may have to be kept in storage that serves request after
// request (fieldStores), and how many splitObject gathers on the stack.
const pooledFields = 16

// fieldStore is the storage of the members of a lent body (splitLent);
// used is how many of f the request wrote.
type fieldStore struct {
	f    [pooledFields]field
	used int
	// nested holds the members of the body's object members, split as
	// the body is checked (splitNested); nestedUsed of them were written.
	nested     [pooledFields]field
	nestedUsed int
}

// fieldStores keeps the fieldStores of the lent bodies split (splitLent)
// for the next ones (Body.Done).
var fieldStores = sync.Pool{New: func() any { return new(fieldStore) }}

// release clears what the request wrote of the store, at most its first
// used members, and puts it back in fieldStores.
func (st *fieldStore) release(used int) {
	clear(st.f[:used])
	clear(st.nested[:st.nestedUsed])
	st.used, st.nestedUsed = 0, 0
	fieldStores.Put(st)
}

// ShareStrings has the strings decoded from the members of a body read by
// [ReadOwn], and from their nested objects, be views of the body's storage
// instead of one copy each. A string kept past the request then keeps the
// whole body alive: the caller copies those it keeps (strings.Clone) or
// accepts the cost. Members of a body read otherwise are left as they are.
// It returns f.
func (f Fields) ShareStrings() Fields {
	for i := range f {
		f[i].view = f[i].own
		for j := range f[i].sub {
			f[i].sub[j].view = f[i].sub[j].own
		}
	}
	return f
}

// readError is the answer to a body that could not be read: 1009 when it
// was over the limit, 1001 otherwise.
func readError(err error) *apierr.Error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return TooLarge()
	}
	return apierr.Errorf(openpay.ErrBadRequest, "The request body could not be read")
}

// TooLarge is the answer to a body longer than the server's limit (1009).
func TooLarge() *apierr.Error {
	return apierr.Errorf(openpay.ErrRequestTooLarge, "The request body is too large")
}

// Parse parses data as one JSON object: 1001 when it is not one (or has
// data after it). An empty body gives empty Fields when optional is true
// (bodies of capture and refund are optional) and 1001 otherwise. The
// Fields share data's storage: data must not change afterwards.
func Parse(data []byte, optional bool) (Fields, *apierr.Error) {
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return Fields{}, nil
		}
		return nil, apierr.Errorf(openpay.ErrBadRequest, "The request body is required and must be a JSON object")
	}
	// One check and one split for a well-formed object; a body that fails
	// them is read again to tell what is wrong with it.
	if f, ok := objectFields(data); ok {
		return f, nil
	}
	var members map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&members); err != nil || members == nil {
		return nil, apierr.Errorf(openpay.ErrBadRequest, "The request body is not a valid JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, apierr.Errorf(openpay.ErrBadRequest, "The request body has data after the JSON object")
	}
	// Not reached for a body objectFields refused; kept so that this
	// reading answers a body whatever objectFields does.
	f := make(Fields, 0, len(members))
	for _, name := range slices.Sorted(maps.Keys(members)) {
		f = append(f, field{name: name, raw: members[name]})
	}
	return f, nil
}

// gatewayZone is the zone of a date-time sent without an offset when the
// caller names none: Mexico City time, the SDK's own definition of it.
var gatewayZone = openpay.CountryMexico.Location()

var (
	typeAmount   = reflect.TypeFor[openpay.Amount]()
	typeDecimal  = reflect.TypeFor[openpay.Decimal]()
	typeTime     = reflect.TypeFor[time.Time]()
	typeDate     = reflect.TypeFor[openpay.Date]()
	unmarshalerT = reflect.TypeFor[json.Unmarshaler]()
)

// Into decodes the members into dst, a pointer to a wire request struct,
// using its json tags, with the loose forms of lenient.go (member aliases
// are copied into f). Members dst does not know are ignored, as the
// gateway ignores them. A member of the wrong type answers 1001 naming it
// (nested members are named with dots: "card.cvv2"). A date-time sent
// without an offset is read as Mexico City time, the gateway's
// ([openpay.CountryMexico]); a merchant of another country's request that
// may carry one is read with IntoAt. The types of decode_gen.go are
// decoded without reflection, alike (FuzzGeneratedDecoders).
func (f Fields) Into(dst any) *apierr.Error {
	return f.IntoAt(dst, gatewayZone)
}

// IntoAt is Into for a merchant whose zone is zone: a date-time sent
// without an offset (a due_date) is read as zone's wall-clock time.
func (f Fields) IntoAt(dst any, zone *time.Location) *apierr.Error {
	if generated != nil {
		if e, ok := generated(f, dst, zone); ok {
			return e
		}
	}
	return f.intoReflect(dst, zone)
}

// generated is decode_gen.go's decoding of the wire types it has
// decoders for (intoGenerated), without reflection; nil without the file.
var generated func(f Fields, dst any, zone *time.Location) (*apierr.Error, bool)

// generatedMember is decode_gen.go's decoding of one member into the types
// it has decoders for (memberGenerated), without reflection; nil without
// the file.
var generatedMember func(m *field, dst any, zone *time.Location) (*apierr.Error, bool)

// intoReflect is IntoAt by reflection, for every wire type.
func (f Fields) intoReflect(dst any, zone *time.Location) *apierr.Error {
	v := reflect.ValueOf(dst).Elem()
	f.applyAliases(planOf(v.Type()).aliases)
	return f.intoValue(v, "", zone)
}

// Member decodes the one member name into dst, a pointer, as Into would;
// an absent or null member leaves dst as it is.
func (f Fields) Member(name string, dst any) *apierr.Error {
	i := f.last(name)
	if i < 0 || isNull(f[i].raw) {
		return nil
	}
	m := &f[i]
	if generatedMember != nil {
		if e, ok := generatedMember(m, dst, gatewayZone); ok {
			return e
		}
	}
	v := reflect.ValueOf(dst).Elem()
	return decodeMember(m, v, traitsOf(v.Type()), "", gatewayZone)
}

func (f Fields) intoValue(v reflect.Value, prefix string, zone *time.Location) *apierr.Error {
	for _, m := range planOf(v.Type()).members {
		i := f.last(m.name)
		if i < 0 || isNull(f[i].raw) {
			continue
		}
		if e := decodeMember(&f[i], v.Field(m.index), m.traits, prefix, zone); e != nil {
			return e
		}
	}
	return nil
}

// jsonMember is a field of a wire struct that a JSON member fills.
type jsonMember struct {
	index  int
	name   string
	traits *typeTraits // of the field's type
}

// typePlan is what decoding into a wire struct type reads of the type and
// of lenient.go's tables, worked out once per type: the wire types are few
// and fixed, and reading their tags or the tables on every request costs
// more than decoding.
type typePlan struct {
	// members are the exported fields of the type that have a JSON name,
	// in field order, but those readByHandler leaves to the handler.
	members []jsonMember
	aliases map[string]string // memberAliases of the type
}

var typePlans sync.Map // reflect.Type -> *typePlan

// planOf returns the typePlan of the struct type t.
func planOf(t reflect.Type) *typePlan {
	if p, ok := typePlans.Load(t); ok {
		return p.(*typePlan)
	}
	p := &typePlan{aliases: memberAliases[t]}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" || !sf.IsExported() || readByHandler[t][name] {
			continue
		}
		p.members = append(p.members, jsonMember{index: i, name: name, traits: traitsOf(sf.Type)})
	}
	actual, _ := typePlans.LoadOrStore(t, p)
	return actual.(*typePlan)
}

// memberName returns the member name raw (a JSON string, quotes included)
// as a string. A name without escapes, the usual case, is a view of the
// body's own bytes, so that splitting a body allocates no string per
// member: a body is read into storage of its own, which is never written
// afterwards and lives as long as its members' raw values.
//
// plain says raw is a string of plain ASCII (validator.scanStr), which
// reads as it is written without looking at it again.
func memberName(raw []byte, plain bool) (string, bool) {
	if plain {
		in := raw[1 : len(raw)-1]
		return unsafe.String(unsafe.SliceData(in), len(in)), true
	}
	if in, ok := plainContent(raw); ok {
		return unsafe.String(unsafe.SliceData(in), len(in)), true
	}
	var u string
	if json.Unmarshal(raw, &u) != nil {
		return "", false
	}
	return u, true
}

// typeTraits is what decodeMember asks of a field's type that reflection
// answers slowly (a method set), worked out once per type and kept with the
// members of the wire types (jsonMember), so that decoding a member looks
// nothing up.
type typeTraits struct {
	unmarshaler bool            // *T implements json.Unmarshaler
	enum        bool            // isEnum
	elem        *typeTraits     // of the element type, for a pointer type
	boolForms   map[bool]string // enumBooleans of the type
}

var typeTraitsCache sync.Map // reflect.Type -> *typeTraits

// memberWise are wire types whose UnmarshalJSON exists only to read the
// members the gateway writes loosely into plain fields (the SDK's loose.go):
// a request's object of one of them is decoded here member by member like
// any other, with this package's leniency and errors.
var memberWise = map[reflect.Type]bool{
	reflect.TypeFor[openpay.PaymentPlan](): true,
	reflect.TypeFor[openpay.Store]():       true,
	reflect.TypeFor[openpay.RiskData]():    true,
}

func traitsOf(t reflect.Type) *typeTraits {
	if tr, ok := typeTraitsCache.Load(t); ok {
		return tr.(*typeTraits)
	}
	tr := &typeTraits{unmarshaler: reflect.PointerTo(t).Implements(unmarshalerT) && !memberWise[t], enum: isEnum(t),
		boolForms: enumBooleans[t]}
	if t.Kind() == reflect.Pointer {
		tr.elem = traitsOf(t.Elem())
	}
	actual, _ := typeTraitsCache.LoadOrStore(t, tr)
	return actual.(*typeTraits)
}

// decodeMember decodes the member m into the field fv; a date-time
// without an offset is zone's. Each type's reading is member.go's.
//
// The member's path is prefix+name ("card." and "cvv2"); it is put together
// only for an error, or for the members of a nested object.
func decodeMember(m *field, fv reflect.Value, tr *typeTraits, prefix string, zone *time.Location) *apierr.Error {
	ft := fv.Type()
	switch {
	case ft == typeAmount:
		return m.amount(prefix, fv.Addr().Interface().(*openpay.Amount))
	case ft == typeDecimal:
		return m.decimal(prefix, fv.Addr().Interface().(*openpay.Decimal))
	case ft == typeTime:
		tm, e := m.dateTime(prefix, zone)
		if e == nil {
			fv.Set(reflect.ValueOf(tm))
		}
		return e
	case ft == typeDate:
		d, e := m.date(prefix)
		if e == nil {
			fv.Set(reflect.ValueOf(d))
		}
		return e
	case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64: // quoted or not, as the gateway reads them
		n, e := m.integer(prefix, ft.Bits())
		if e == nil {
			fv.SetInt(n)
		}
		return e
	case tr.unmarshaler:
		if err := json.Unmarshal(trimSpace(m.raw), fv.Addr().Interface()); err != nil {
			return m.bad(prefix, "has the wrong type or format")
		}
		return nil
	}
	switch ft.Kind() {
	case reflect.Bool:
		b, e := m.boolean(prefix)
		if e == nil {
			fv.SetBool(b)
		}
		return e
	case reflect.String:
		s, e := m.str(prefix, tr.boolForms, numericStringMembers[m.name])
		if e != nil {
			return e
		}
		fv.SetString(s)
		if tr.enum {
			foldEnum(fv)
		}
		return nil
	case reflect.Pointer:
		elem := reflect.New(ft.Elem())
		if e := decodeMember(m, elem.Elem(), tr.elem, prefix, zone); e != nil {
			return e
		}
		fv.Set(elem)
		return nil
	case reflect.Struct:
		sub, e := m.subObject(prefix)
		if e != nil {
			return e
		}
		return sub.intoValue(fv, prefix+m.name+".", zone)
	default:
		if err := json.Unmarshal(trimSpace(m.raw), fv.Addr().Interface()); err != nil {
			return m.bad(prefix, "has the wrong type: "+kindWord(ft))
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
// white space allowed), into its members: what json.Unmarshal into a map of
// raw messages gives (Fields.get reads the last of repeated names), without
// decoding the object twice nor copying the members (they share data's
// storage). The syntax is checked in the same pass that finds the members'
// ends: the body is read once.
func objectFields(data []byte) (Fields, bool) { return splitObject(data, true) }

// memberFields is objectFields for a member of a body objectFields has
// checked: the member is valid JSON, so it is not checked again.
func memberFields(data []byte) (Fields, bool) { return splitObject(data, false) }

// splitObject splits the object data into its members, checking the
// syntax of the whole of data when check is set (objectFields) and taking
// it as valid otherwise (memberFields). The members are gathered on the
// stack (gather), then copied into a slice of their number (empty, not
// nil, for an empty object).
func splitObject(data []byte, check bool) (Fields, bool) {
	var gathered [pooledFields]field
	members, ok := gather(data, check, gathered[:0], nil)
	if !ok {
		return nil, false
	}
	return append(make(Fields, 0, len(members)), members...), true
}

// gather appends the members of the object data to members (splitObject,
// splitLent). A member's name, and its value when a string, are read by the
// check's reading of strings, which tells a string of plain ASCII
// (field.plain) as it goes. With check, and nested not nil (splitLent), an
// object member is split as it is checked (splitNested), into *nested.
func gather(data []byte, check bool, members []field, nested *[]field) ([]field, bool) {
	members, end, ok := gatherAt(validator{data: data}, skipSpace(data, 0), 1, check, members, nested)
	return members, ok && (!check || skipSpace(data, end) == len(data))
}

// gatherAt is gather for the object at data[i], whose values are at
// nesting depth (1 at the top); it also returns the index past the object.
func gatherAt(v validator, i, depth int, check bool, members []field, nested *[]field) ([]field, int, bool) {
	data := v.data
	if i >= len(data) || data[i] != '{' {
		return nil, i, false
	}
	if i = skipSpace(data, i+1); i < len(data) && data[i] == '}' {
		return members, i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, i, false
		}
		end, plain, ok := v.scanStr(i)
		if !ok {
			return nil, i, false
		}
		name, ok := memberName(data[i:end], plain)
		if !ok {
			return nil, i, false
		}
		if i = skipSpace(data, end); i >= len(data) || data[i] != ':' {
			return nil, i, false
		}
		i = skipSpace(data, i+1)
		var sub Fields // an object member's, split as checked
		switch {
		case i < len(data) && data[i] == '"':
			end, plain, ok = v.scanStr(i)
		case check && nested != nil && i < len(data) && data[i] == '{':
			sub, end, ok = splitNested(v, i, depth, nested)
			plain = false
		case check:
			end, ok = v.value(i, depth)
			plain = false
		default:
			end, plain = skipValue(data, i), false
		}
		if !ok {
			return nil, i, false
		}
		if members = append(members, field{name: name, raw: data[i:end:end], plain: plain}); sub != nil {
			members[len(members)-1].sub = sub
		}
		if i = skipSpace(data, end); i >= len(data) {
			return nil, i, false
		}
		switch data[i] {
		case '}':
			return members, i + 1, true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return nil, i, false
		}
	}
}

// splitNested checks the object at data[i], a member's value at nesting
// depth, as validator.value does, and splits it in the same pass: its
// members are appended to *nested, and are sub, while they fit in its
// capacity. An object that does not fit is checked all the same, and sub
// is nil (field.object splits it when asked); *nested is then full, for
// its storage was written to the end.
func splitNested(v validator, i, depth int, nested *[]field) (sub Fields, end int, ok bool) {
	n := len(*nested)
	all, end, ok := gatherAt(v, i, depth+1, true, (*nested)[n:n:cap(*nested)], nil)
	if !ok || cap(all) != cap(*nested)-n { // refused, or moved out of *nested to grow
		*nested = (*nested)[:cap(*nested)]
		return nil, end, ok
	}
	*nested = (*nested)[:n+len(all)]
	return (*nested)[n:len(*nested):len(*nested)], end, true // all, not a view of it: members stays on its caller's stack
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
//
// plain says raw is known to be a string of plain ASCII (field.plain), so
// that it is not looked at again; view, that the string may be a view of
// raw (field.view).
func plainString(raw []byte, plain, view bool) (string, bool) {
	in, ok := raw, plain
	if ok {
		in = raw[1 : len(raw)-1]
	} else if in, ok = plainContent(raw); !ok {
		return "", false
	}
	// The values most requests send (a charge's method and currency) are
	// read without allocating: switching on string(in) copies nothing.
	switch string(in) {
	case "card":
		return "card", true
	case "store":
		return "store", true
	case "bank_account":
		return "bank_account", true
	case "MXN":
		return "MXN", true
	case "COP":
		return "COP", true
	case "PEN":
		return "PEN", true
	case "USD":
		return "USD", true
	}
	if view && len(in) > 0 {
		return unsafe.String(&in[0], len(in)), true
	}
	return string(in), true
}

// plainContent returns what is between the quotes of the JSON string raw
// when it has no escapes and is valid UTF-8 (encoding/json replaces what is
// not), so that it reads as it is written.
func plainContent(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	in := raw[1 : len(raw)-1]
	// One pass over the ASCII the content mostly is; from the first byte
	// that is not, the rest is checked whole.
	for i, c := range in {
		switch {
		case c == '\\' || c == '"':
			return nil, false
		case c >= utf8.RuneSelf:
			rest := in[i:]
			if bytes.IndexByte(rest, '\\') >= 0 || bytes.IndexByte(rest, '"') >= 0 || !utf8.Valid(rest) {
				return nil, false
			}
			return in, true
		}
	}
	return in, true
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
