package reqbody

import (
	"bytes"
	"net/mail"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
)

// FuzzTrimSpace holds trimSpace to bytes.TrimSpace: its shortcut (no space
// at either end) answers what the full trim answers.
func FuzzTrimSpace(f *testing.F) {
	for _, s := range []string{"", " ", "null", " null", "null\n", "\u00a0null", "null\u00a0", "\u0085", "\x85null", "\"a\"", "\v1\f", "\x7f"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assert.Equal(t, bytes.TrimSpace(raw), trimSpace(raw), "%q", raw)
	})
}

// FuzzIsNull holds isNull to its definition: null once trimmed of space.
func FuzzIsNull(f *testing.F) {
	for _, s := range []string{"null", " null", "null ", "\u00a0null", "\u0085null\u2028", "nul", "nulll", `"null"`, "1", "", "n", "\xc2", "\x85null"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assert.Equal(t, bytes.Equal(bytes.TrimSpace(raw), []byte("null")), isNull(raw), "%q", raw)
	})
}

// TestTypePlansCarryTheTables: what a type's plan holds is lenient.go's
// tables for the type: the members readByHandler leaves to the handler are
// not among those Into fills, the type's aliases are its memberAliases,
// and an enum's boolean forms are its enumBooleans.
func TestTypePlansCarryTheTables(t *testing.T) {
	for typ, left := range readByHandler {
		for _, m := range planOf(typ).members {
			assert.False(t, left[m.name], "%v: %s", typ, m.name)
		}
	}
	charge := planOf(reflect.TypeFor[openpay.CardCharge]())
	names := map[string]bool{}
	for _, m := range charge.members {
		names[m.name] = true
	}
	assert.True(t, names["source_id"] && names["amount"] && names["use_card_points"])
	assert.False(t, names["iva"])
	assert.Equal(t, memberAliases[reflect.TypeFor[openpay.SubscriptionRequest]()], planOf(reflect.TypeFor[openpay.SubscriptionRequest]()).aliases)
	assert.Nil(t, charge.aliases)
	points := traitsOf(reflect.TypeFor[openpay.UseCardPoints]())
	assert.Equal(t, map[bool]string{false: "NONE", true: "MIXED"}, points.boolForms)
	assert.Nil(t, traitsOf(reflect.TypeFor[openpay.Currency]()).boolForms)
}

// FuzzPlainAddress: every address plainAddress passes, mail.ParseAddress
// reads as itself, so Checker.Email answers for it what it answered when
// it parsed every address.
func FuzzPlainAddress(f *testing.F) {
	for _, s := range []string{"juan@example.com", "a.b+c_d-e@mail.example.co", "a..b@x", ".a@x", "a.@x", "a@x.", "a@.x",
		"a@b@c", "@x", "a@", "a@[1.2.3.4]", "\"a b\"@x", "Juan <a@x>", "a@x ", " a@x", "a@-x", "-a@x-", "a@x_y", "ü@x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !plainAddress(s) {
			return
		}
		a, err := mail.ParseAddress(s)
		if assert.NoError(t, err, "%q", s) {
			assert.Equal(t, s, a.Address, "%q", s)
		}
	})
}

// FuzzPlainContent holds plainContent to its definition: the content of a
// quoted string without a backslash or a quote, valid UTF-8.
func FuzzPlainContent(f *testing.F) {
	for _, s := range []string{`""`, `"abc"`, `"a\"b"`, `"a\\b"`, `"café"`, "\"caf\xe9\"", "\"é\\\"", "\"é\"\"", `"a`, `a"`, `"`, "\"\xff\"", "\"ab\xe2\x82\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, ok := plainContent(raw)
		want := len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"'
		if want {
			c := raw[1 : len(raw)-1]
			want = bytes.IndexByte(c, '\\') < 0 && bytes.IndexByte(c, '"') < 0 && utf8.Valid(c)
		}
		assert.Equal(t, want, ok, "%q", raw)
		if ok {
			assert.Equal(t, raw[1:len(raw)-1], in)
		}
	})
}
