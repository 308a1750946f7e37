package jsonword

import (
	"encoding/binary"
	"math/bits"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzSpecial holds Special to its definition, byte by byte:
// zero when no byte is a quote, a backslash, a control character or of
// 0x80 and up, and otherwise its lowest bit is the first such byte's.
func FuzzSpecial(f *testing.F) {
	for _, s := range []string{"abcdefgh", `abc"efgh`, `abcdefg\`, "abc\x1fefgh", "abc\x7fefgh", "abc\x80efgh", "\x00\x00\x00\x00\x00\x00\x00\x00",
		"        ", "!!!!!!!!", "\xff\xff\xff\xff\xff\xff\xff\xff", "\x20\x21\x22\x23\x5b\x5c\x5d\x7e", "########", "]]]]]]]]", "a\x00\x01bcdef", "\"\x01ab\\cde"} {
		f.Add(binary.LittleEndian.Uint64([]byte(s)))
	}
	f.Fuzz(func(t *testing.T, w uint64) {
		first := -1
		for i, c := range binary.LittleEndian.AppendUint64(nil, w) {
			if first < 0 && (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
				first = i
			}
		}
		m := Special(w)
		if first < 0 {
			assert.Zero(t, m, "%#016x", w)
		} else {
			assert.Equal(t, first, bits.TrailingZeros64(m)/8, "%#016x", w)
		}
	})
}

// TestWords: both loaders read the same word, little-endian.
func TestWords(t *testing.T) {
	s := "xabcdefgh"
	assert.Equal(t, binary.LittleEndian.Uint64([]byte("abcdefgh")), Word([]byte(s), 1))
	assert.Equal(t, Word([]byte(s), 1), StringWord(s, 1))
}
