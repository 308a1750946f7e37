// Package keymatch tells whether the API key a request presents is one the
// server knows by its SHA-256 hash: a merchant's private or public key (the
// server keeps, and writes to its data directory, hashes only).
//
// Hashing the presented key on every request is the larger part of
// authenticating it, so a [Memo] remembers, in memory only, the key that
// matched each hash: the same key presented again is recognized by a
// comparison of the two keys, without hashing it.
//
// Contract:
//   - [Memo.Match] answers what comparing SHA-256(key) with the two hashes
//     answers, whatever the memo holds: a remembered key counts only for
//     the very hash it matched, so a hash that changes (a merchant loaded
//     from a data directory) voids what was remembered for the old one.
//   - The comparisons take no time that depends on where a wrong key
//     differs from a right one (crypto/subtle): a wrong key is hashed and
//     compared as before; only a key that matches is answered sooner,
//     which the answer tells anyway.
//   - [Memo.Known] goes one step further back: the raw Authorization header
//     value that carried a matching key ([Memo.MatchHeader]) is recognized
//     by comparing it, without decoding it. It answers only for a header
//     that is byte for byte the remembered one and for the very hash its
//     key matched; anything else answers false, false, and the caller
//     decodes and calls MatchHeader as before.
//   - The memo is never written anywhere: it is a cache of this process.
//     A Memo is safe for concurrent use; its zero value is ready, and a
//     nil *Memo hashes every time.
//
// The package does not own what a key authenticates (which routes take
// which key): the server does (its auth.go).
package keymatch

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Memo remembers the key that matched each of a pair of hashes (the
// private one, the public one).
type Memo struct {
	known [2]atomic.Pointer[known]
}

// known is a key, the hash it matched and the Authorization header value
// that carried it ("" when not given).
type known struct {
	key, header string
	hash        [32]byte
}

// Known reports whether header is the Authorization header value
// remembered by MatchHeader with a key whose hash is priv, or pub: then
// the key it carries is that one, and needs no decoding.
func (m *Memo) Known(header string, priv, pub [32]byte) (isPriv, isPub bool) {
	if m == nil || header == "" {
		return false, false
	}
	for i, want := range [2]*[32]byte{&priv, &pub} {
		k := m.known[i].Load()
		if k != nil && k.header != "" && sameHash(&k.hash, want) && same(header, k.header) {
			return sameHash(&k.hash, &priv), sameHash(&k.hash, &pub)
		}
	}
	return false, false
}

// Match reports whether key is the key whose SHA-256 hash is priv, or the
// one whose hash is pub. A hash of zeros (no key) matches nothing.
func (m *Memo) Match(key []byte, priv, pub [32]byte) (isPriv, isPub bool) {
	return m.MatchHeader("", key, priv, pub)
}

// MatchHeader is Match for the key that header (an Authorization header's
// value) carried, and remembers the header with the key when it matches,
// for Known.
func (m *Memo) MatchHeader(header string, key []byte, priv, pub [32]byte) (isPriv, isPub bool) {
	if m != nil {
		for i, want := range [2]*[32]byte{&priv, &pub} {
			k := m.known[i].Load()
			if k != nil && sameHash(&k.hash, want) && subtle.ConstantTimeCompare(key, unsafe.Slice(unsafe.StringData(k.key), len(k.key))) == 1 {
				if k.header != header && header != "" {
					m.known[i].CompareAndSwap(k, &known{key: k.key, header: strings.Clone(header), hash: k.hash})
				}
				return sameHash(&k.hash, &priv), sameHash(&k.hash, &pub)
			}
		}
	}
	sum := sha256.Sum256(key)
	isPriv = subtle.ConstantTimeCompare(sum[:], priv[:]) == 1
	isPub = subtle.ConstantTimeCompare(sum[:], pub[:]) == 1
	if m != nil && (isPriv || isPub) {
		i := 0
		if !isPriv {
			i = 1
		}
		m.known[i].Store(&known{key: string(key), header: strings.Clone(header), hash: sum})
	}
	return isPriv, isPub
}

// same reports whether a and b are equal, in a time that depends on their
// lengths only (as subtle.ConstantTimeCompare, eight bytes at a time; a
// length not a multiple of eight ends with the last eight bytes again).
func same(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := unsafe.Slice(unsafe.StringData(a), len(a)), unsafe.Slice(unsafe.StringData(b), len(b))
	if len(x) < 8 {
		var diff byte
		for i := range x {
			diff |= x[i] ^ y[i]
		}
		return diff == 0
	}
	last := len(x) - 8
	diff := binary.LittleEndian.Uint64(x[last:]) ^ binary.LittleEndian.Uint64(y[last:])
	for y = y[:len(x)]; len(x) >= 8; x, y = x[8:], y[8:] {
		diff |= binary.LittleEndian.Uint64(x) ^ binary.LittleEndian.Uint64(y)
	}
	return diff == 0
}

// sameHash reports whether two hashes are equal, a word at a time.
func sameHash(a, b *[32]byte) bool {
	le := binary.LittleEndian
	return (le.Uint64(a[0:])^le.Uint64(b[0:]))|(le.Uint64(a[8:])^le.Uint64(b[8:]))|
		(le.Uint64(a[16:])^le.Uint64(b[16:]))|(le.Uint64(a[24:])^le.Uint64(b[24:])) == 0
}
