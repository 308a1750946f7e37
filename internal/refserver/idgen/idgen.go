// Package idgen makes the reference server's identifiers and references:
// resource ids in the gateway's form, the references of store, bank and IVR
// payments, authorization numbers, API keys and request ids.
//
// Contract:
//   - An id is [Length] lower-case ASCII letters and digits that start with
//     its [Kind]'s prefix ([Valid] tells the form). A reference has the shape
//     the gateway's references have; each method says which.
//   - Without a seed a [Generator] is unpredictable (ChaCha8 streams keyed
//     from crypto/rand). With one it yields the same sequence on every run,
//     and [Generator.State] tells where it stands, so that Reset and a
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
	crand "crypto/rand"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// Generator makes identifiers and references. By default it draws from
// ChaCha8 streams, each keyed from the operating system's secure random
// source: as unpredictable as reading that source for every id, at a
// fraction of the cost (one system read per stream, not per id). The
// streams are pooled, so that concurrent requests do not queue for one
// (ids are drawn while a merchant's lock is held). When a test asks for
// determinism it draws from one seeded generator that yields the same
// sequence on every run.
// It is safe for concurrent use (with a seed, concurrent callers share one
// sequence, so only a single-goroutine caller sees a reproducible
// assignment).
type Generator struct {
	mu     sync.Mutex
	seeded *rand.PCG // nil: draw from streams
	// streams holds *rand.ChaCha8, each keyed from crypto/rand.
	streams sync.Pool

	reservedMu sync.RWMutex
	// reserved holds identifiers fixed from outside (a seed's), which
	// NewID never hands out, so that a drawn id cannot take a fixed one.
	reserved map[string]bool
}

// New returns a generator. With a nil seed it draws from a
// ChaCha8 stream keyed from crypto/rand; with a seed it is deterministic.
func New(seed *int64) *Generator {
	if seed == nil {
		g := &Generator{}
		g.streams.New = func() any {
			var key [32]byte
			_, _ = crand.Read(key[:]) // never fails since Go 1.24: it aborts the program instead
			return rand.NewChaCha8(key)
		}
		return g
	}
	// The second PCG word is a fixed constant so that the seed alone decides
	// the sequence.
	return &Generator{seeded: rand.NewPCG(uint64(*seed), 0x6f70656e70617921)}
}

// draw returns n characters picked uniformly from alphabet (at most 256
// characters). Each 64-bit draw gives up to eight: a byte picks a
// character when it falls below the largest multiple of the alphabet's
// size, and is skipped otherwise, so that no character is favoured.
func (g *Generator) draw(alphabet string, n int) string {
	return string(g.appendDraw(make([]byte, 0, n), alphabet, n))
}

// appendDraw is draw appending to dst, so that a caller that builds a longer
// value (an id with its prefix) allocates it once.
func (g *Generator) appendDraw(dst []byte, alphabet string, n int) []byte {
	limit := 256 - 256%len(alphabet)
	var src rand.Source
	if g.seeded != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		src = g.seeded
	} else {
		stream := g.streams.Get().(*rand.ChaCha8)
		defer g.streams.Put(stream)
		src = stream
	}
	for end := len(dst) + n; len(dst) < end; {
		w := src.Uint64()
		for k := 0; k < 8 && len(dst) < end; k++ {
			if b := int(byte(w >> (8 * k))); b < limit {
				dst = append(dst, alphabet[b%len(alphabet)])
			}
		}
	}
	return dst
}

// NewID returns a new identifier of the given kind: [Length] lowercase
// letters and digits starting with the kind's prefix ("tr" + 18 more for a
// transaction). A prefix that would leave no room is cut to Length-1
// characters.
func (g *Generator) NewID(kind Kind) string {
	var buf [Length]byte
	return string(g.AppendID(buf[:0], kind))
}

// AppendID appends a new identifier of the given kind to dst, as NewID
// makes it, and returns the extended slice: a caller that keeps the id
// in storage of its own allocates nothing for it.
func (g *Generator) AppendID(dst []byte, kind Kind) []byte {
	prefix := string(kind)
	if len(prefix) >= Length {
		prefix = prefix[:Length-1]
	}
	for {
		id := g.appendDraw(append(dst, prefix...), lowerAlnum, Length-len(prefix))
		g.reservedMu.RLock()
		taken := g.reserved[string(id[len(dst):])]
		g.reservedMu.RUnlock()
		if !taken {
			return id
		}
	}
}

// Reserve keeps NewID from ever returning the given identifiers.
func (g *Generator) Reserve(ids []string) {
	g.reservedMu.Lock()
	defer g.reservedMu.Unlock()
	if g.reserved == nil {
		g.reserved = make(map[string]bool)
	}
	for _, id := range ids {
		g.reserved[id] = true
	}
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
	return string(g.appendDraw(b[:0], digits, len(b)))
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
	return "000020" + id.String() + "01" + g.draw(digits, 5)
}

// PaybinReference returns a 16-digit Paybin reference of a store charge, in
// the gateway's shape: "010199" followed by ten digits ("0101990000001065").
func (g *Generator) PaybinReference() string {
	return "010199" + g.draw(digits, 10)
}

// CustomerStoreReference returns the permanent store reference of a customer
// with an account: "OPENPAY" followed by ten upper-case letters and digits
// ("OPENPAY02DQ35YOY7").
func (g *Generator) CustomerStoreReference() string {
	return "OPENPAY" + g.draw(upperAlnum, 10)
}

// BankReference returns the 20-digit reference (the "name" field of a
// bank_transfer payment method) that identifies a bank charge's payment.
func (g *Generator) BankReference() string {
	return g.draw(digits, 20)
}

// VerificationCode returns the 8-character code sent in a webhook's
// verification event.
func (g *Generator) VerificationCode() string {
	return g.draw(mixedAlnum, 8)
}

// APIKey returns a key in the form the server hands out: prefix ("sk_",
// "pk_") followed by 32 lower-case hex digits.
func (g *Generator) APIKey(prefix string) string {
	return prefix + g.draw(hexDigits, 32)
}

// IVRKey returns the six-digit key of an IVR payment, which never starts
// with a zero.
func (g *Generator) IVRKey() int64 {
	key, _ := strconv.ParseInt(g.draw(digits[1:], 1)+g.draw(digits, 5), 10, 64)
	return key
}

// CLABEAccount returns an 11-digit account number for a new CLABE (leading
// zeros allowed).
func (g *Generator) CLABEAccount() uint64 {
	n, _ := strconv.ParseUint(g.draw(digits, 11), 10, 64)
	return n
}

// RequestID returns a request identifier for an error body, formatted as a
// version 4 UUID ("1981cdb8-19cb-4bad-8256-e95d58bc035c").
func (g *Generator) RequestID() string {
	var hb [32]byte
	h := g.appendDraw(hb[:0], hexDigits, 32)
	// Version nibble 4; variant nibble one of 8, 9, a, b.
	variant := hexDigits[8+strings.IndexByte(hexDigits, h[16])%4]
	b := make([]byte, 0, 36)
	b = append(b, h[0:8]...)
	b = append(b, '-')
	b = append(b, h[8:12]...)
	b = append(b, '-', '4')
	b = append(b, h[13:16]...)
	b = append(b, '-', variant)
	b = append(b, h[17:20]...)
	b = append(b, '-')
	b = append(b, h[20:32]...)
	return string(b)
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
	g.reservedMu.RLock()
	defer g.reservedMu.RUnlock()
	ids := make([]string, 0, len(g.reserved))
	for id := range g.reserved {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ReservedCount is len(Reserved()) without the copy: a change in it tells
// the server's data directory to save the set again.
func (g *Generator) ReservedCount() int {
	g.reservedMu.RLock()
	defer g.reservedMu.RUnlock()
	return len(g.reserved)
}
