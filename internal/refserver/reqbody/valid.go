package reqbody

import (
	"math/bits"

	"github.com/openpay-go/openpay/internal/refserver/jsonword"
)

// maxNesting is the deepest nesting of objects and arrays a body may have,
// encoding/json's own bound (its scanner's maxNestingDepth).
const maxNesting = 10000

// valid reports whether data is one JSON value with only white space
// around it: what json.Valid reports, in one pass without the scanner's
// per-byte state functions (FuzzValid holds the two to the same answers).
// As json.Valid, it does not check that strings are valid UTF-8.
func valid(data []byte) bool {
	v := validator{data: data}
	i, ok := v.value(skipSpace(data, 0), 0)
	return ok && skipSpace(data, i) == len(data)
}

type validator struct{ data []byte }

// value checks the value at data[i] and returns the index past it.
func (v validator) value(i, depth int) (int, bool) {
	d := v.data
	if i >= len(d) {
		return i, false
	}
	switch c := d[i]; {
	case c == '"':
		return v.str(i)
	case c == '{' || c == '[':
		return v.container(i, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return v.number(i)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	}
	return i, false
}

// container checks the object or array at data[i], at nesting depth.
func (v validator) container(i, depth int) (int, bool) {
	if depth > maxNesting {
		return i, false
	}
	d := v.data
	object := d[i] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == closing {
		return i + 1, true
	}
	for {
		var ok bool
		if object {
			if i >= len(d) || d[i] != '"' {
				return i, false
			}
			if i, ok = v.str(i); !ok {
				return i, false
			}
			if i = skipSpace(d, i); i >= len(d) || d[i] != ':' {
				return i, false
			}
			i = skipSpace(d, i+1)
		}
		if i, ok = v.value(i, depth); !ok {
			return i, false
		}
		if i = skipSpace(d, i); i >= len(d) {
			return i, false
		}
		switch d[i] {
		case closing:
			return i + 1, true
		case ',':
			i = skipSpace(d, i+1)
		default:
			return i, false
		}
	}
}

// str checks the string at data[i] (its opening quote).
func (v validator) str(i int) (int, bool) {
	end, _, ok := v.scanStr(i)
	return end, ok
}

// scanStr is str that also tells a string of plain ASCII: no escape, no
// byte of 0x80 and up, which reads as it is written. It reads the string
// eight bytes at a time while they are plain ASCII (jsonword.Special), a byte
// at a time from a byte that is not.
func (v validator) scanStr(i int) (end int, plain, ok bool) {
	d := v.data
	var high byte // the bits of every plain byte: 0x80 set when one is not ASCII
	escaped := false
	i++
	for i < len(d) {
		if i+8 <= len(d) {
			m := jsonword.Special(jsonword.Word(d, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8 // to the first byte that is not plain ASCII
		}
		c := d[i]
		i++
		if strPlain[c] {
			high |= c
			continue
		}
		switch {
		case c == '"':
			return i, !escaped && high < 0x80, true
		case c < 0x20:
			return i - 1, false, false
		}
		// A backslash: the escape after it.
		escaped = true
		if i >= len(d) {
			return i, false, false
		}
		switch d[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if i+4 >= len(d) {
				return i, false, false
			}
			for _, h := range d[i+1 : i+5] {
				if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
					return i, false, false
				}
			}
			i += 4
		default:
			return i, false, false
		}
		i++
	}
	return i, false, false
}

// strPlain marks the bytes a string holds as they are: from the space on,
// but the quote and the backslash (one load per byte of a string instead
// of three comparisons).
var strPlain = func() (t [256]bool) {
	for c := ' '; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// number checks the number at data[i]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v validator) number(i int) (int, bool) {
	d := v.data
	digits := func(i int) (int, bool) {
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i, i > start
	}
	if d[i] == '-' {
		i++
	}
	var ok bool
	switch {
	case i < len(d) && d[i] == '0':
		i++
	default:
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	if i < len(d) && d[i] == '.' {
		if i, ok = digits(i + 1); !ok {
			return i, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i, ok = digits(i); !ok {
			return i, false
		}
	}
	return i, true
}

// literal checks that data[i:] starts with word.
func (v validator) literal(i int, word string) (int, bool) {
	if len(v.data)-i < len(word) || string(v.data[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}
