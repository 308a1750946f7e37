package compact

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"
)

// A record's strings in one piece of memory without pointers.
//
// A stored transaction keeps five strings (its id, order_id, description,
// customer id and authorization). As five strings they are five pointers
// and, but for the shared ones, up to five objects of their own, which the
// collector visits on every cycle for as long as the record lives. A
// [Text] keeps them as one string, the fields one after the other, and
// where each ends: one pointer, and no object of its own, since its bytes
// are in an [Arena]'s chunk that many records share and that holds no
// pointer for the collector to scan.
//
// Why the arena's strings are safe (unsafe.String over a chunk's bytes):
//   - a chunk is a []byte allocated by the runtime; a string made over
//     part of it points into it, and that pointer keeps the whole chunk
//     alive (the collector follows interior pointers; nothing is freed by
//     hand);
//   - the arena hands out each byte of a chunk once: it writes only the
//     bytes past the last string it made, under its lock, and never
//     writes a byte of a string it has made, so a string's bytes never
//     change after it is made (Go strings are immutable);
//   - the chunks are never moved or reused (the collector does not move
//     objects, and the arena forgets a full chunk).
//
// The one write near a made string, [Arena.With]'s extension in place,
// writes the bytes right after the last string made, which no string
// holds yet: the extended Text is a new, longer string over the same
// start. TestArenaConcurrent runs makers and readers under -race.

// TextFields is the number of fields a [Text] holds: a stored
// transaction's five (its id, order_id, description, customer id and
// authorization, the sixth empty) or a customer's six (its id, name, last
// name, e-mail, phone number and external id). A sixth field costs a Text
// no byte: its size is 32 bytes with five or six.
const TextFields = 6

// Text holds TextFields strings. The zero Text holds empty strings.
// A Text is a value: copies share the bytes, which never change.
type Text struct {
	// s is the fields one after the other, field i from bounds[i] to
	// bounds[i+1]. When it is longer than maxShort (long), it starts
	// instead with a header of the fields' ends (4 bytes each,
	// little-endian, counted after the header).
	s      string
	bounds [TextFields + 1]uint16
	long   bool
}

// maxShort is the longest s whose field ends fit in ends.
const maxShort = math.MaxUint16

// longHeader is the length of the header of a long Text.
const longHeader = 4 * (TextFields - 1)

// Field returns the i-th field (0 to TextFields-1), a substring of the
// Text's bytes: reading a field allocates nothing.
func (t Text) Field(i int) string {
	if t.long {
		return t.longField(i)
	}
	return t.s[t.bounds[i]:t.bounds[i+1]]
}

func (t Text) longField(i int) string {
	end := func(j int) int {
		if j == TextFields-1 {
			return len(t.s)
		}
		return longHeader + int(binary.LittleEndian.Uint32([]byte(t.s[4*j:4*j+4])))
	}
	lo := longHeader
	if i > 0 {
		lo = end(i - 1)
	}
	return t.s[lo:end(i)]
}

// Fields returns the Text's fields.
func (t Text) Fields() [TextFields]string {
	var f [TextFields]string
	for i := range f {
		f[i] = t.Field(i)
	}
	return f
}

// Arena is where Texts keep their bytes: chunks of chunkSize bytes, each
// filled from the start and forgotten once full, to be collected when no
// Text points into it any more. The bytes of a Text that is dropped or
// replaced stay until their chunk goes: an arena suits records that live
// long and change rarely. The zero Arena is ready to use; it is safe for
// concurrent use.
type Arena struct {
	mu sync.Mutex
	// free is the current chunk's unused part (length 0, its room the
	// capacity).
	free []byte
}

// chunkSize is the size of an arena's chunks; a Text of more than a
// quarter of it gets memory of its own.
const chunkSize = 16 << 10

// room returns n bytes of fresh memory. The caller holds a.mu.
func (a *Arena) room(n int) []byte {
	if n > chunkSize/4 {
		return make([]byte, n)
	}
	if cap(a.free) < n {
		a.free = make([]byte, 0, chunkSize)
	}
	b := a.free[:n]
	a.free = a.free[n:n]
	return b
}

// Make returns the Text of the fields f, its bytes written in the arena.
func (a *Arena) Make(f *[TextFields]string) Text {
	n := 0
	for _, v := range f {
		n += len(v)
	}
	if n == 0 {
		return Text{}
	}
	long := n > maxShort
	if long {
		n += longHeader
	}
	a.mu.Lock()
	b := a.room(n)
	a.mu.Unlock()
	t := Text{long: long}
	at := 0
	if long {
		at = longHeader
	}
	for i, v := range f {
		at += copy(b[at:], v)
		if long && i < TextFields-1 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(at-longHeader))
		} else if !long {
			t.bounds[i+1] = uint16(at)
		}
	}
	t.s = unsafe.String(unsafe.SliceData(b), len(b))
	return t
}

// With returns t with its i-th field set to v. When the fields from i on
// are empty and t's bytes are the last the arena wrote, v is written
// right after them and nothing else is copied (a record's last fields
// are set after its first, as a charge's authorization is).
func (a *Arena) With(t Text, i int, v string) Text {
	if t.Field(i) == v {
		return t
	}
	n := len(t.s) + len(v)
	if len(t.s) > 0 && !t.long && n <= maxShort && t.emptyFrom(i) {
		a.mu.Lock()
		tip := uintptr(unsafe.Pointer(unsafe.SliceData(a.free)))
		if uintptr(unsafe.Pointer(unsafe.StringData(t.s)))+uintptr(len(t.s)) == tip && cap(a.free) >= len(v) {
			copy(a.free[:len(v)], v)
			a.free = a.free[len(v):len(v)]
			a.mu.Unlock()
			t.s = unsafe.String(unsafe.StringData(t.s), n)
			for j := i + 1; j <= TextFields; j++ {
				t.bounds[j] = uint16(n)
			}
			return t
		}
		a.mu.Unlock()
	}
	f := t.Fields()
	f[i] = v
	return a.Make(&f)
}

// emptyFrom reports whether the fields from i on are empty.
func (t Text) emptyFrom(i int) bool {
	for j := i; j < TextFields; j++ {
		if t.Field(j) != "" {
			return false
		}
	}
	return true
}
