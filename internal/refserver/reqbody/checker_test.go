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
