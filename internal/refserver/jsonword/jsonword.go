// Package jsonword tests eight bytes of a JSON string at once: whether
// any of them is other than plain ASCII, the bytes a string holds as they
// are. The request body's reader (reqbody) and the answer's writer
// (answer) both skip plain runs of a string this way.
//
// Contract: [Special] of a word is zero exactly when none of its eight
// bytes is a quote, a backslash, a control character (below the space) or
// a byte of 0x80 and up; otherwise its lowest set bit is the high bit of
// the first such byte, read little-endian. FuzzSpecial holds it to this
// definition byte by byte.
package jsonword

import "encoding/binary"

// ones and highs are the lowest and the highest bit of each byte of a
// word.
const ones, highs = 0x0101010101010101, 0x8080808080808080

// Special returns a mask of the bytes of w, read little-endian, that are
// not plain ASCII in a string (see the package's contract); a bit above
// the first such byte's may be set for a byte that is plain.
// (x-ones)&^x&highs marks the zero bytes of x and (x-n*ones)&^x&highs its
// bytes below n: a byte's borrow only ever reaches the bytes after it.
func Special(w uint64) uint64 {
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return (w | (quote-ones)&^quote | (backslash-ones)&^backslash | (w-ones*0x20)&^w) & highs
}

// Word returns the eight bytes of b from i, little-endian; b must hold
// them.
func Word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// StringWord returns the eight bytes of s from i, little-endian; s must
// hold them.
func StringWord(s string, i int) uint64 {
	p := s[i : i+8]
	return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
}
