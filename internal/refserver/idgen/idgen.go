// Package idgen makes the reference server's identifiers and references:
// resource ids in the gateway's form, the references of store, bank and IVR
// payments, authorization numbers, API keys and request ids.
//
// Contract:
//   - An id is [Length] lower-case ASCII letters and digits that start with
//     its [Kind]'s prefix ([Valid] tells the form). A reference has the shape
//     the gateway's references have; each method says which.
//   - Without a seed a [Generator] is unpredictable (the runtime's ChaCha8
//     generators, keyed from the operating system's random source). With
//     one it yields the same sequence on every run, and [Generator.State]
//     tells where it stands, so that Reset and a
//     restarted server go on with the sequence rather than repeat it
//     ([Generator.SetState], [Generator.Restore]).
//   - An id reserved with [Generator.Reserve] (a seed's fixed ids) is never
//     drawn.
//
// Locks: a Generator is safe for concurrent use. Its mutexes are leaves:
// held only while drawing or reading the reserved set, never while calling
// out, so a caller may draw under any lock of its own (the server draws ids
// under a merchant's lock). The package imports nothing of the server.
package idgen

import (
	"encoding/binary"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Length is the length of the gateway's resource identifiers.
const Length = 20

// Kind is the kind of a resource identifier; its value is the prefix the
// gateway's identifiers of that kind start with, as its examples show.
type Kind string

// Identifier kinds. Card and token identifiers share the prefix "k", as the
// gateway's card and token responses do.
const (
	KindTransaction  Kind = "tr" // charges, payouts, transfers, fees, refunds
	KindCard         Kind = "k"
	KindToken        Kind = "k"
	KindCustomer     Kind = "a"
	KindBankAccount  Kind = "b"
	KindPlan         Kind = "p"
	KindSubscription Kind = "s"
	KindWebhook      Kind = "w"
	KindMerchant     Kind = "m"
	KindCheckout     Kind = "c" // no source shows one; the server's choice
)

const (
	lowerAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	upperAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	mixedAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	digits     = "0123456789"
	hexDigits  = "0123456789abcdef"
)

// The alphabets drawn from, with each one's character for each byte of a
// draw (alphabet.pick).
var (
	drawLower   = newAlphabet(lowerAlnum)
	drawUpper   = newAlphabet(upperAlnum)
	drawMixed   = newAlphabet(mixedAlnum)
	drawDigits  = newAlphabet(digits)
	drawNonZero = newAlphabet(digits[1:])
	drawHex     = newAlphabet(hexDigits)
)

// alphabet is a set of at most 256 characters to draw from: a byte b of a
// draw below limit, the largest multiple of the set's size, picks pick[b],
// the character b%size (a table rather than a division per character); a
// byte from limit on is skipped, so that no character is favoured.
type alphabet struct {
	limit int
	// below is 256-limit in each byte: a word x holds a byte from limit on
	// when one of ^x's bytes is below 256-limit (hasSkipped).
	below uint64
	pick  [256]byte
}

func newAlphabet(chars string) *alphabet {
	a := &alphabet{limit: 256 - 256%len(chars), below: lowBits * uint64(256%len(chars))}
	for b := range a.limit {
		a.pick[b] = chars[b%len(chars)]
	}
	return a
}

// Generator makes identifiers and references. By default it draws from
// the runtime's generators (math/rand/v2's top-level functions): ChaCha8,
// one per thread, keyed from the operating system's secure random source,
// as unpredictable as reading that source for every id at a fraction of
// the cost, and without a lock or a pool (ids are drawn while a merchant's
// lock is held). When a test asks for determinism it draws from one seeded
// generator that yields the same sequence on every run.
// It is safe for concurrent use (with a seed, concurrent callers share one
// sequence, so only a single-goroutine caller sees a reproducible
// assignment).
type Generator struct {
	mu     sync.Mutex
	seeded *rand.PCG // nil: draw from the runtime's generators

	reservedMu sync.Mutex // held by Reserve, which replaces the set
	// reserved holds identifiers fixed from outside (a seed's), which
	// NewID never hands out, so that a drawn id cannot take a fixed one.
	// A set once stored is never changed (Reserve stores a new one), so
	// that a draw reads it without a lock.
	reserved atomic.Pointer[map[string]bool]
}

// New returns a generator. With a nil seed it draws from the runtime's
// ChaCha8 generators; with a seed it is deterministic.
func New(seed *int64) *Generator {
	if seed == nil {
		return &Generator{}
	}
	// The second PCG word is a fixed constant so that the seed alone decides
	// the sequence.
	return &Generator{seeded: rand.NewPCG(uint64(*seed), 0x6f70656e70617921)}
}

// draw returns n characters picked uniformly from a. Each 64-bit draw
// gives up to eight, a byte each (see alphabet).
func (g *Generator) draw(a *alphabet, n int) string {
	return string(g.appendDraw(make([]byte, 0, n), a, n))
}

// appendDraw is draw appending to dst, so that a caller that builds a longer
// value (an id with its prefix) allocates it once. It draws the words n
// characters need at least (n/8 rounded up) at once, then one more at a
// time while skipped bytes leave characters to pick: the words a seed's
// sequence gives each draw are those of a word at a time.
func (g *Generator) appendDraw(dst []byte, a *alphabet, n int) []byte {
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	var words [maxDrawWords]uint64
	w := words[:min((n+7)/8, maxDrawWords)]
	for i := 0; i < n; w = words[:1] {
		g.words(w)
		for _, x := range w {
			if i+8 <= n && !a.hasSkipped(x) { // the usual case: eight characters
				p := (*[8]byte)(out[i:])
				p[0], p[1], p[2], p[3] = a.pick[byte(x)], a.pick[byte(x>>8)], a.pick[byte(x>>16)], a.pick[byte(x>>24)]
				p[4], p[5], p[6], p[7] = a.pick[byte(x>>32)], a.pick[byte(x>>40)], a.pick[byte(x>>48)], a.pick[byte(x>>56)]
				i += 8
				continue
			}
			for k := 0; k < 8 && i < n; k, x = k+1, x>>8 {
				if b := byte(x); int(b) < a.limit {
					out[i] = a.pick[b]
					i++
				}
			}
		}
	}
	return dst[:len(dst)+n]
}

// hasSkipped reports whether a byte of x is one a draw from a skips (from
// a.limit on): whether a byte of ^x is below 256-a.limit, at most 128
// (the test for a byte below n of "Bit Twiddling Hacks", exact for that).
func (a *alphabet) hasSkipped(x uint64) bool {
	return (^x-a.below)&x&(lowBits*0x80) != 0
}

// lowBits is 1 in each byte of a word.
const lowBits = 0x0101010101010101

// maxDrawWords is how many words appendDraw draws at once at most: those
// of the longest draw (an API key's 32 characters).
const maxDrawWords = 4

// NewID returns a new identifier of the given kind: [Length] lowercase
// letters and digits starting with the kind's prefix ("tr" + 18 more for a
// transaction). A prefix that would leave no room is cut to Length-1
// characters.
func (g *Generator) NewID(kind Kind) string {
	var buf [Length]byte
	return string(g.AppendNewID(buf[:0], kind))
}

// AppendNewID appends a new identifier of the given kind ([Generator.NewID])
// to dst, so that a caller that keeps the id beside other strings allocates
// them once.
func (g *Generator) AppendNewID(dst []byte, kind Kind) []byte {
	prefix := string(kind)
	if len(prefix) >= Length {
		prefix = prefix[:Length-1]
	}
	for start := len(dst); ; dst = dst[:start] {
		dst = g.appendDraw(append(dst, prefix...), drawLower, Length-len(prefix))
		if r := g.reserved.Load(); r == nil || !(*r)[string(dst[start:])] {
			return dst
		}
	}
}

// AppendIDOr appends fixed to dst when it is not empty (an id a seed
// fixed), else a new identifier of the given kind, else nothing (kind "").
func (g *Generator) AppendIDOr(dst []byte, fixed string, kind Kind) []byte {
	if fixed != "" || kind == "" {
		return append(dst, fixed...)
	}
	return g.AppendNewID(dst, kind)
}

// Reserve keeps NewID from ever returning the given identifiers.
func (g *Generator) Reserve(ids []string) {
	g.reservedMu.Lock()
	defer g.reservedMu.Unlock()
	set := make(map[string]bool)
	if old := g.reserved.Load(); old != nil {
		maps.Copy(set, *old)
	}
	for _, id := range ids {
		set[id] = true
	}
	g.reserved.Store(&set)
}

// Valid reports whether id has the form of the identifiers the server
// hands out, as the gateway's: [Length] lower-case ASCII letters and
// digits.
func Valid(id string) bool {
	if len(id) != Length {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !strings.ContainsRune(lowerAlnum, rune(id[i])) {
			return false
		}
	}
	return true
}

// AuthorizationNumber returns a processor authorization number: six digits,
// as on the gateway's completed card charges ("801585").
// It inlines, so that a caller that copies the number into storage of its
// own (a record's text) allocates nothing for it.
func (g *Generator) AuthorizationNumber() string {
	var b [6]byte
	return string(g.appendDraw(b[:0], drawDigits, len(b)))
}

// StoreReference returns the payment reference of a store charge, in the
// gateway's shape: "000020", the transaction identifier in upper case, "01",
// then five digits ("000020TRNIRKIYOBO5QFEX55EF0100009" for transaction
// trnirkiyobo5qfex55ef). Characters of transactionID that are not ASCII
// letters or digits are dropped and at most Length are used, so the result
// always encodes as a barcode.
func (g *Generator) StoreReference(transactionID string) string {
	var id strings.Builder
	for i := 0; i < len(transactionID) && id.Len() < Length; i++ {
		c := transactionID[i]
		switch {
		case c >= 'a' && c <= 'z':
			id.WriteByte(c - 'a' + 'A')
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			id.WriteByte(c)
		}
	}
	return "000020" + id.String() + "01" + g.draw(drawDigits, 5)
}

// PaybinReference returns a 16-digit Paybin reference of a store charge, in
// the gateway's shape: "010199" followed by ten digits ("0101990000001065").
func (g *Generator) PaybinReference() string {
	return "010199" + g.draw(drawDigits, 10)
}

// CustomerStoreReference returns the permanent store reference of a customer
// with an account: "OPENPAY" followed by ten upper-case letters and digits
// ("OPENPAY02DQ35YOY7").
func (g *Generator) CustomerStoreReference() string {
	return "OPENPAY" + g.draw(drawUpper, 10)
}

// BankReference returns the 20-digit reference (the "name" field of a
// bank_transfer payment method) that identifies a bank charge's payment.
func (g *Generator) BankReference() string {
	return g.draw(drawDigits, 20)
}

// VerificationCode returns the 8-character code sent in a webhook's
// verification event.
func (g *Generator) VerificationCode() string {
	return g.draw(drawMixed, 8)
}

// APIKey returns a key in the form the server hands out: prefix ("sk_",
// "pk_") followed by 32 lower-case hex digits.
func (g *Generator) APIKey(prefix string) string {
	return prefix + g.draw(drawHex, 32)
}

// IVRKey returns the six-digit key of an IVR payment, which never starts
// with a zero.
func (g *Generator) IVRKey() int64 {
	key, _ := strconv.ParseInt(g.draw(drawNonZero, 1)+g.draw(drawDigits, 5), 10, 64)
	return key
}

// CLABEAccount returns an 11-digit account number for a new CLABE (leading
// zeros allowed).
func (g *Generator) CLABEAccount() uint64 {
	n, _ := strconv.ParseUint(g.draw(drawDigits, 11), 10, 64)
	return n
}

// RequestID returns a request identifier for an error body, formatted as a
// version 4 UUID ("1981cdb8-19cb-4bad-8256-e95d58bc035c").
func (g *Generator) RequestID() string { return g.RequestIDHeader()[0] }

// RequestIDHeader returns a new request id (as RequestID) as the one value
// of a header: the slice and the id's bytes are one allocation, and the
// bytes are never written once the id is made.
func (g *Generator) RequestIDHeader() []string {
	var w [2]uint64
	g.words(w[:])
	v := new(requestIDValue)
	id := &v.b
	// A hex digit of each four bits of the draw, lowest first, at the id's
	// places of hex digits; then the dashes, the version nibble 4 and the
	// variant nibble, one of 8, 9, a, b.
	var digits [32]byte
	for i, x := range w {
		binary.LittleEndian.PutUint64(digits[16*i:], hexDigitsOf(uint32(x)))
		binary.LittleEndian.PutUint64(digits[16*i+8:], hexDigitsOf(uint32(x>>32)))
	}
	copy(id[:8], digits[:8])
	copy(id[9:13], digits[8:12])
	copy(id[14:18], digits[12:16])
	copy(id[19:23], digits[16:20])
	copy(id[24:], digits[20:])
	id[8], id[13], id[18], id[23] = '-', '-', '-', '-'
	id[14], id[19] = '4', hexDigits[8+w[1]&3]
	v.v[0] = unsafe.String(&v.b[0], len(v.b))
	return v.v[:]
}

// hexDigitsOf returns the eight hex digits of x's four-bit groups, lowest
// first, as the bytes of a word (the first digit in its lowest byte): each
// group spread to a byte, then '0' added, and 'a'-'0'-10 more to those
// from 10 on, eight bytes at a time (no byte carries into the next).
func hexDigitsOf(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000ffff0000ffff
	v = (v | v<<8) & 0x00ff00ff00ff00ff
	v = (v | v<<4) & 0x0f0f0f0f0f0f0f0f
	letters := (v + 0x0606060606060606) >> 4 & lowBits // 1 in each byte from 10 on
	return v + 0x3030303030303030 + letters*('a'-'0'-10)
}

// requestIDValue is the storage of a request id and of the header value
// that holds it.
type requestIDValue struct {
	v [1]string
	b [36]byte
}

// words fills w with draws of the generator's source.
func (g *Generator) words(w []uint64) {
	if g.seeded != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		for i := range w {
			w[i] = g.seeded.Uint64()
		}
		return
	}
	for i := range w {
		w[i] = rand.Uint64()
	}
}

// State returns where a seeded generator stands in its sequence, nil for
// a random generator, whose sequence cannot be replayed: SetState returns
// it there (the server's Reset), and the server's data directory saves it,
// so that a restarted server goes on with the sequence rather than
// repeating it.
func (g *Generator) State() []byte {
	if g.seeded == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	b, _ := g.seeded.MarshalBinary() // a PCG always encodes
	return b
}

// SetState moves a seeded generator to a position State returned; nil,
// or a random generator, changes nothing.
func (g *Generator) SetState(b []byte) {
	if g.seeded == nil || b == nil {
		return
	}
	_ = g.Restore(b) // b came from State, so it decodes
}

// Restore puts back a state from State, saved by an earlier run. A
// generator drawing from random streams has none: a saved one is refused,
// so that a server started without the seed it was saved with is told.
func (g *Generator) Restore(b []byte) error {
	if g.seeded == nil {
		return errors.New("the state was saved with --seed: start the server with a seed too")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seeded.UnmarshalBinary(b)
}

// Reserved returns the reserved identifiers, sorted.
func (g *Generator) Reserved() []string {
	if r := g.reserved.Load(); r != nil {
		return slices.Sorted(maps.Keys(*r))
	}
	return []string{}
}

// ReservedCount is len(Reserved()) without the copy: a change in it tells
// the server's data directory to save the set again.
func (g *Generator) ReservedCount() int {
	if r := g.reserved.Load(); r != nil {
		return len(*r)
	}
	return 0
}
