package reqbody

import (
	"encoding/json"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/openpay-go/openpay/internal/refserver/compact"
)

// The readings of one member by the Go type of the field it fills, each
// with its answer to a member of the wrong type or form. decodeMember (by
// reflection) and the generated decoders of decode_gen.go (by name) call
// the same ones: the rules of a member's reading are written here once.
// prefix is the path of the object the member is in ("card."), put
// together with the member's name only for an error.

// bad is the answer to the member m of the wrong type or form: 1001,
// naming the member by its path.
func (m *field) bad(prefix, what string) *apierr.Error {
	return apierr.Errorf(openpay.ErrBadRequest, "The field '%s%s' %s", prefix, m.name, what)
}

// at returns the member at index i-1 of f (i as the generated decoders
// keep it: 0 when absent), or nil when it is absent or null.
func (f Fields) at(i int) *field {
	if i == 0 || isNull(f[i-1].raw) {
		return nil
	}
	return &f[i-1]
}

// amount reads an Amount: a number or a number string (number-strings).
func (m *field) amount(prefix string, dst *openpay.Amount) *apierr.Error {
	raw := trimSpace(m.raw)
	if c, ok := centsForm(raw); ok {
		*dst = compact.AmountOfCents(c) // the value the type's reading gives, shared
		return nil
	}
	// looseNumber answers a checked JSON number, so the type's own reading
	// is called without encoding/json checking it again.
	lit, ok := looseNumber(raw)
	if !ok || dst.UnmarshalJSON(lit) != nil {
		return m.bad(prefix, "must be a number")
	}
	return nil
}

// centsForm reads the form most amounts are sent in, a JSON number with
// two decimals and at most 15 digits ("100.50", "-3.05"), as cents: the
// Amount of those cents (openpay.AmountFromCents) is the one the type's
// own reading gives it, coefficient and exponent alike, and
// compact.AmountOfCents gives it without allocating. Any other form
// answers false. raw is a value the body's parser has checked.
func centsForm(raw []byte) (int64, bool) {
	n := len(raw)
	if n < 4 || raw[n-3] != '.' {
		return 0, false
	}
	i, neg := 0, raw[0] == '-'
	if neg {
		i = 1
	}
	if n-i < 4 || n-i > 16 { // a digit, the point and two; 15 digits at most
		return 0, false
	}
	var c int64
	for ; i < n; i++ {
		switch d := raw[i]; {
		case d >= '0' && d <= '9':
			c = c*10 + int64(d-'0')
		case i != n-3:
			return 0, false
		}
	}
	if neg {
		c = -c
	}
	return c, true
}

// decimal reads a Decimal as amount reads an Amount.
func (m *field) decimal(prefix string, dst *openpay.Decimal) *apierr.Error {
	lit, ok := looseNumber(trimSpace(m.raw))
	if !ok || dst.UnmarshalJSON(lit) != nil {
		return m.bad(prefix, "must be a number")
	}
	return nil
}

// dateTime reads a date-time string (parseFlexibleTime); one without an
// offset is zone's (local-due-date).
func (m *field) dateTime(prefix string, zone *time.Location) (time.Time, *apierr.Error) {
	var s string
	if err := json.Unmarshal(trimSpace(m.raw), &s); err != nil {
		return time.Time{}, m.bad(prefix, "must be a date-time string")
	}
	tm, ok := parseFlexibleTime(s, zone)
	if !ok {
		return time.Time{}, m.bad(prefix, "must be an ISO 8601 date-time (yyyy-mm-ddThh:mm:ss with an optional offset)")
	}
	return tm, nil
}

// date reads a day. Stricter than the SDK's reading of answers: a
// request's day is yyyy-mm-dd and nothing else.
func (m *field) date(prefix string) (openpay.Date, *apierr.Error) {
	var s string
	if err := json.Unmarshal(trimSpace(m.raw), &s); err != nil {
		return openpay.Date{}, m.bad(prefix, "must be a date string (yyyy-mm-dd)")
	}
	d, err := openpay.ParseDate(s)
	if err != nil {
		return openpay.Date{}, m.bad(prefix, "must be a date written yyyy-mm-dd")
	}
	return d, nil
}

// integer reads a whole number of bits bits, quoted or not, as the
// gateway reads them (number-strings, integral-numbers).
func (m *field) integer(prefix string, bits int) (int64, *apierr.Error) {
	n, ok := looseInt(trimSpace(m.raw))
	if shift := 64 - bits; !ok || n<<shift>>shift != n {
		return 0, m.bad(prefix, "must be a whole number")
	}
	return n, nil
}

// boolean reads a boolean (boolean-strings).
func (m *field) boolean(prefix string) (bool, *apierr.Error) {
	b, ok := looseBool(trimSpace(m.raw))
	if !ok {
		return false, m.bad(prefix, "has the wrong type: it must be true or false")
	}
	return b, nil
}

// str reads a string: forms are the boolean forms of an enum's values
// (card-points-boolean, enumBooleans), numeric says the member may be sent
// as a number, kept as written (numeric-strings, numericStringMembers).
// An enum's value is folded by the caller (foldEnumOf, foldEnum).
func (m *field) str(prefix string, forms map[bool]string, numeric bool) (string, *apierr.Error) {
	raw := trimSpace(m.raw)
	if forms != nil {
		if b, ok := looseBool(raw); ok {
			return forms[b], nil
		}
	}
	if len(raw) > 0 && raw[0] != '"' {
		if numeric && raw[0] >= '0' && raw[0] <= '9' {
			var n json.Number
			if err := json.Unmarshal(raw, &n); err == nil {
				return n.String(), nil
			}
		}
		return "", m.bad(prefix, "must be a string")
	}
	s, ok := plainString(raw, m.plain && len(raw) == len(m.raw), m.view)
	if !ok {
		var u string // apart from s, which would otherwise escape on every call
		if err := json.Unmarshal(raw, &u); err != nil {
			return "", m.bad(prefix, "must be a string")
		}
		s = u
	}
	return s, nil
}

// subObject returns the members of an object member, split once (field.object).
func (m *field) subObject(prefix string) (Fields, *apierr.Error) {
	sub, ok := m.object()
	if !ok {
		return nil, m.bad(prefix, "must be an object")
	}
	return sub, nil
}

// foldEnumOf is foldEnum for an enum type known when compiling.
func foldEnumOf[T interface {
	~string
	Valid() bool
}](v T) T {
	if v.Valid() {
		return v
	}
	return T(foldWord(string(v), func(s string) bool { return T(s).Valid() }))
}
