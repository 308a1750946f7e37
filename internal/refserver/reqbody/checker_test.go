package reqbody

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMaxLenCountsCharacters: MaxLen bounds characters, not bytes, whether
// or not the string is longer in bytes than the bound (its shortcut skips
// counting only a string of at most n bytes).
func TestMaxLenCountsCharacters(t *testing.T) {
	for _, c := range []struct {
		value string
		n     int
		ok    bool
	}{
		{"", 0, true},
		{"abc", 3, true},
		{"abcd", 3, false},
		{strings.Repeat("ñ", 3), 3, true}, // 6 bytes, 3 characters
		{strings.Repeat("ñ", 4), 3, false},
		{strings.Repeat("€", 250), 250, true},
		{strings.Repeat("€", 251), 250, false},
		{"\xff\xfe", 2, true}, // invalid UTF-8: a character per byte, as utf8.RuneCountInString counts
		{"\xff\xfe\xfd", 2, false},
	} {
		var v Checker
		v.MaxLen("description", c.value, c.n)
		if c.ok {
			assert.Nil(t, v.Err, "%q within %d", c.value, c.n)
		} else if assert.NotNil(t, v.Err, "%q over %d", c.value, c.n) {
			assert.Equal(t, fmt.Sprintf("The field 'description' must be at most %d characters long", c.n), v.Err.Description)
		}
	}
}

// TestRequiredUnlessGivenIsRequired: whatever the caller says was given,
// a body's members that decode to a value other than their zero value
// pass Required, and a missing or null member fails the same way as
// Required names it when the caller says not all were given.
func TestRequiredUnlessGivenIsRequired(t *testing.T) {
	for _, body := range []string{
		`{"amount":10,"description":"x"}`, `{"amount":10}`, `{"description":"x"}`, `{"amount":null,"description":"x"}`,
		`{"amount":0,"description":""}`, `{"amount":10,"description":"x","amount":null}`, `{}`,
	} {
		f, e := Parse([]byte(body), false)
		if !assert.Nil(t, e, body) {
			continue
		}
		var want, got Checker
		want.Required(f, "amount", "description")
		got.RequiredUnlessGiven(false, f, "amount", "description")
		assert.Equal(t, want.Err, got.Err, body)
		if want.Err == nil { // all present: given or not, nothing fails
			var given Checker
			given.RequiredUnlessGiven(true, f, "amount", "description")
			assert.Nil(t, given.Err, body)
		} else {
			assert.Contains(t, want.Err.Description, "is required", body)
		}
	}
}
