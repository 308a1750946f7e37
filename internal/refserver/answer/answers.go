package answer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/openpay-go/openpay/internal/refserver/jsonword"
)

// hexDigits are the digits of the \u00XX escapes.
const hexDigits = "0123456789abcdef"

// plainByte marks the bytes appendJSONString copies as they are: ASCII from
// the space on, but the quote and the backslash (one load per byte instead
// of three comparisons).
var plainByte = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it when HTML escaping is off: the quote and the backslash behind a
// backslash, the control characters below 0x20 as \b \f \n \r \t or
// \u00XX, each byte of invalid UTF-8 as \ufffd, and U+2028 and U+2029 (line
// breaks to JavaScript) as \u2028 and \u2029. Everything else is copied.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	done := 0 // s[:done] is in b, s[done:i] is plain
	for i := 0; i < len(s); {
		// Eight bytes tested at once (jsonword.Special). With fewer than
		// eight left in a string of eight or more, its last eight bytes at
		// once: s[i:] is their end, so when they are plain it is too.
		for i+8 <= len(s) && jsonword.Special(jsonword.StringWord(s, i)) == 0 {
			i += 8
		}
		if i+8 > len(s) && len(s) >= 8 && i < len(s) && jsonword.Special(jsonword.StringWord(s, len(s)-8)) == 0 {
			break
		}
		// The word that stopped the test, or a short string's bytes, one
		// at a time.
		end := min(i+8, len(s))
		for i < end && plainByte[s[i]] {
			i++
		}
		if i == end {
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[done:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			done = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[done:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[done:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		done = i
	}
	b = append(b, s[done:]...)
	return append(b, '"')
}

// errUnsupportedFloat is the error of a NaN or infinite float, which JSON
// cannot carry (encoding/json fails on them too).
var errUnsupportedFloat = errors.New("answer: JSON has no NaN or infinity")

// appendJSONFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form (without a leading zero in
// a negative exponent) below 1e-6 and from 1e21.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, errUnsupportedFloat
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-07 is written e-7
		b = b[:n-1]
	}
	return b, nil
}

// timeMemo is the last date an encoder wrote into b and where: a date equal
// to it (the same instant in the same zone) is copied, not written again.
type timeMemo struct {
	t          time.Time
	start, end int
}

// append appends t as appendJSONTime does, copying the last date's bytes
// when t is that date.
func (m *timeMemo) append(b []byte, t time.Time) ([]byte, error) {
	if m.end > m.start && t == m.t {
		return append(b, b[m.start:m.end]...), nil
	}
	start := len(b)
	b, err := appendJSONTime(b, t)
	m.t, m.start, m.end = t, start, len(b)
	return b, err
}

// formatJSONTime appends t as time.Time's MarshalJSON writes it: RFC 3339
// with as many decimals of the second as needed. That form only holds years
// 0 to 9999 and offsets under 24 hours; MarshalJSON refuses the rest, and
// is asked for its error. The encoders call it through appendJSONTime.
func formatJSONTime(b []byte, t time.Time) ([]byte, error) {
	// The usual time (a year of four digits, an offset of whole minutes)
	// is written here from its fields read once in UTC, where reading
	// them asks no zone; AppendFormat would look the zone up three times.
	if _, offset := t.Zone(); offset%60 == 0 && offset > -24*3600 && offset < 24*3600 {
		w := t.UTC().Add(time.Duration(offset) * time.Second)
		if year, month, day := w.Date(); year >= 0 && year <= 9999 {
			hour, minute, sec := w.Clock()
			var d [len(`"2006-01-02T15:04:05.999999999-07:00"`)]byte
			put2(d[1:], year/100)
			put2(d[3:], year%100)
			put2(d[6:], int(month))
			put2(d[9:], day)
			put2(d[12:], hour)
			put2(d[15:], minute)
			put2(d[18:], sec)
			d[0], d[5], d[8], d[11], d[14], d[17] = '"', '-', '-', 'T', ':', ':'
			n := 20
			if ns := w.Nanosecond(); ns != 0 {
				for i := 29; i > 20; i-- {
					d[i] = byte('0' + ns%10)
					ns /= 10
				}
				d[20], n = '.', 30
				for d[n-1] == '0' { // the digits up to the last that is not zero
					n--
				}
			}
			if offset == 0 {
				return append(append(b, d[:n]...), 'Z', '"'), nil
			}
			d[n] = '+'
			if offset < 0 {
				d[n], offset = '-', -offset
			}
			put2(d[n+1:], offset/3600)
			d[n+3] = ':'
			put2(d[n+4:], offset/60%60)
			d[n+6] = '"'
			return append(b, d[:n+7]...), nil
		}
	}
	n := len(b)
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	_, offset := t.Zone()
	if b[n+5] != '-' || offset <= -24*3600 || offset >= 24*3600 {
		out, err := t.MarshalJSON()
		if err != nil {
			return b[:n], err
		}
		return append(b[:n], out...), nil
	}
	return append(b, '"'), nil
}

// put2 writes the two decimal digits of 0 <= n < 100 at the start of d.
func put2(d []byte, n int) { d[0], d[1] = byte('0'+n/10), byte('0'+n%10) }

// appendMarshaled appends the JSON of a wire type with its own MarshalJSON,
// compacted and checked as encoding/json does.
func appendMarshaled(b []byte, m json.Marshaler) ([]byte, error) {
	out, err := m.MarshalJSON()
	if err != nil {
		return b, err
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, out); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}

// appendJSONList appends list as a JSON array, each element by elem; a nil
// list is null.
func appendJSONList[T any](b []byte, list []T, elem func([]byte, *T) ([]byte, error)) ([]byte, error) {
	if list == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	var err error
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = elem(b, &list[i]); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendJSONPointer appends *p by elem, or null when p is nil.
func appendJSONPointer[T any](b []byte, p *T, elem func([]byte, *T) ([]byte, error)) ([]byte, error) {
	if p == nil {
		return append(b, "null"...), nil
	}
	return elem(b, p)
}
