// Package seqindex holds the indexes the reference server keeps over a
// merchant's stored transactions, which are numbered by seq from 1 in the
// order they were stored: the transaction of seq n is the n-th of the
// merchant's list. The indexes hold numbers, not pointers, so that a store
// of a million transactions stays small and the garbage collector does not
// scan them.
//
// Contract:
//   - [Keys] finds a record of a list by a string key (an id, an order_id):
//     it maps a 32-bit hash of the key to the record's seq and checks the
//     key of the record found, so a collision costs a little room and never
//     a wrong answer. Storing a key finds its place with one probe of the
//     table, as reading one does.
//   - [Amounts] bounds the amounts in cents of the records by blocks of
//     consecutive seq, so that a list filtered by amount skips whole blocks
//     that cannot match; its bounds only widen, so they stay true when an
//     amount changes.
//   - [List] is a list of seq in ascending order, searched by binary search;
//     [List.Add] and [List.Remove] keep the order. [Lists] holds lists by a
//     key, each reached with one map lookup to change it as to read it, and
//     none for a change to one of the few lists changed last.
//
// The package does not own the records, their order or their lock: the
// caller stores the records, gives each its seq, and holds its own lock
// around every call (nothing here is safe for concurrent use). What a key
// or an amount is, is the caller's (the key function, the cents given).
package seqindex

import (
	"hash/maphash"
	"math"
	"slices"

	"github.com/openpay-go/openpay/internal/refserver/listquery"
)

// Keys finds a record of type T by a string key without holding a pointer
// per entry: it maps a 32-bit hash of the key to the record's seq, and the
// record is list[seq-1]. A store of a million charges keeps two such
// indexes; as map[string]*T they cost about twice the memory, and the
// garbage collector scanned their two million keys and values at every
// cycle, where a map without pointers is not scanned at all.
//
// A hash is not the key: a lookup checks the key of the record found, and
// a key whose hash is already taken by another key goes to more, an
// ordinary map, so collisions cost a little room and never a wrong answer.
//
// The hashes and seqs are an open-addressing table (linear probing) of
// hash<<32|seq words, 0 where a slot is empty (a seq is never 0): one
// array, no pointers, at most three quarters full. A store finds the slot
// of its hash, taken or empty, in the same probe that a lookup makes, and
// the records a lookup and a store touch are the words of one slot's run,
// most often in one cache line.
type Keys[T any] struct {
	seed maphash.Seed
	// key is the key the index is by, read from a stored record.
	key   func(T) string
	slots []uint64 // a power of two long, or empty
	n     int      // slots taken
	more  map[string]uint32
}

// NewKeys returns an empty index by the key that key reads from a record.
func NewKeys[T any](key func(T) string) Keys[T] {
	return Keys[T]{seed: maphash.MakeSeed(), key: key}
}

// slot returns the slot of hash h in x.slots (not empty): the one that
// holds h, true, or the empty one where h goes, false.
func (x *Keys[T]) slot(h uint32) (int, bool) {
	mask := len(x.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if e := x.slots[i]; e == 0 || uint32(e>>32) == h {
			return i, e != 0
		}
	}
}

// grow doubles x.slots (eight slots first) and puts each word back in its
// run.
func (x *Keys[T]) grow() {
	old := x.slots
	x.slots = make([]uint64, max(8, 2*len(old)))
	for _, e := range old {
		if e != 0 {
			i, _ := x.slot(uint32(e >> 32))
			x.slots[i] = e
		}
	}
}

// free empties slot i, moving back the words after it in its run whose
// home slot the gap would cut them off from (deletion in linear probing).
func (x *Keys[T]) free(i int) {
	mask := len(x.slots) - 1
	for j := (i + 1) & mask; x.slots[j] != 0; j = (j + 1) & mask {
		home := int(uint32(x.slots[j]>>32)) & mask
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			x.slots[i], i = x.slots[j], j
		}
	}
	x.slots[i] = 0
	x.n--
}

func (x *Keys[T]) hash(k string) uint32 {
	h := maphash.String(x.seed, k)
	return uint32(h) ^ uint32(h>>32)
}

// Get returns the record of list with key k, and false when there is
// none (the zero T then).
func (x *Keys[T]) Get(list []T, k string) (T, bool) {
	if len(x.slots) > 0 {
		if i, ok := x.slot(x.hash(k)); ok {
			if r := list[uint32(x.slots[i])-1]; x.key(r) == k {
				return r, true
			}
		}
	}
	if seq, ok := x.more[k]; ok {
		return list[seq-1], true
	}
	var zero T
	return zero, false
}

// Put records that the record of seq (already in list) has key k.
func (x *Keys[T]) Put(list []T, k string, seq uint32) {
	h := x.hash(k)
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow()
	}
	i, taken := x.slot(h)
	if taken && x.key(list[uint32(x.slots[i])-1]) != k {
		if x.more == nil {
			x.more = make(map[string]uint32)
		}
		x.more[k] = seq
		return
	}
	if !taken {
		x.n++
	}
	x.slots[i] = uint64(h)<<32 | uint64(seq)
	if len(x.more) > 0 {
		delete(x.more, k)
	}
}

// Remove forgets key k. It is called before a record's key changes (an
// order_id changed), while the key function still gives the old one.
func (x *Keys[T]) Remove(list []T, k string) {
	if len(x.slots) > 0 {
		if i, ok := x.slot(x.hash(k)); ok && x.key(list[uint32(x.slots[i])-1]) == k {
			x.free(i)
			return
		}
	}
	delete(x.more, k)
}

// NoCents is the amount given to [Amounts.Widen] for an amount without an
// exact value in cents: its blocks become unbounded.
const NoCents = math.MinInt64

// Amounts holds, for blocks of consecutive seq at three sizes (64, 4096
// and 262144 records), the least and the greatest amount in cents any
// record of the block has had. An amount that changes only widens its
// blocks' bounds, so the bounds stay true; an amount without an exact
// value in cents ([NoCents]) makes its blocks unbounded. The zero value is
// ready to use.
type Amounts struct {
	least, most [3][]int64
}

// amountBlockShift is log2 of the block sizes of Amounts.
var amountBlockShift = [3]uint{6, 12, 18}

// Widen makes the bounds of the blocks of seq (from 1) cover an amount of
// c cents (any amount when c is NoCents).
func (s *Amounts) Widen(seq uint32, c int64) {
	// The larger blocks' bounds hold the smallest's: when it holds c, so
	// do they (the usual case, a block of like amounts).
	if b := int((seq - 1) >> amountBlockShift[0]); b < len(s.least[0]) && s.least[0][b] <= c && c <= s.most[0][b] {
		return
	}
	ok := c != NoCents
	for lv, shift := range amountBlockShift {
		b := int((seq - 1) >> shift)
		for len(s.least[lv]) <= b {
			s.least[lv] = append(s.least[lv], math.MaxInt64)
			s.most[lv] = append(s.most[lv], math.MinInt64)
		}
		if !ok {
			s.least[lv][b], s.most[lv][b] = math.MinInt64, math.MaxInt64
			continue
		}
		s.least[lv][b], s.most[lv][b] = min(s.least[lv][b], c), max(s.most[lv][b], c)
	}
}

// Skip returns the first seq of the largest block holding seq in which no
// amount can pass the filters f, and false when there is none.
func (s *Amounts) Skip(seq uint32, f listquery.AmountBounds) (uint32, bool) {
	for lv := len(amountBlockShift) - 1; lv >= 0; lv-- {
		shift := amountBlockShift[lv]
		b := int((seq - 1) >> shift)
		if b < len(s.least[lv]) && f.Excludes(s.least[lv][b], s.most[lv][b]) {
			return uint32(b)<<shift + 1, true
		}
	}
	return 0, false
}

// List is a list of records by seq, in ascending order. Numbers rather
// than pointers halve a list's size, and the collector does not scan them.
type List []uint32

// Index returns the index of the first entry of l that is seq or later.
func (l List) Index(seq uint32) int {
	i, _ := slices.BinarySearch(l, seq)
	return i
}

// Add puts seq in its place in l; nothing when it is there. A seq after
// the last, the usual case, is appended without a search.
func (l *List) Add(seq uint32) {
	if n := len(*l); n == 0 || (*l)[n-1] < seq {
		*l = append(*l, seq)
		return
	}
	if i := l.Index(seq); (*l)[i] != seq {
		*l = slices.Insert(*l, i, seq)
	}
}

// Remove takes seq out of l; nothing when it is not there.
func (l *List) Remove(seq uint32) {
	if i := l.Index(seq); i < len(*l) && (*l)[i] == seq {
		*l = slices.Delete(*l, i, i+1)
	}
}

// Lists holds lists by a key of type K. A list is kept behind a pointer,
// so that changing it takes one map lookup (Edit), not a lookup and a
// store, and none when it is one of the [recentLists] lists changed last
// (a run of records of one kind, stored one after the other; a transfer's
// two sides, each in the lists of its type and of its customer); the
// pointers are one per key, not per record. Lists are never dropped, so
// the recent ones stay valid. The zero value is ready to use.
type Lists[K comparable] struct {
	byKey map[K]*List
	// recent holds the lists last reached through the map, the latest
	// first, so that a run of one list is found by the first comparison.
	recent [recentLists]struct {
		key  K
		list *List // nil until an Edit fills the entry
	}
}

// recentLists is how many lists Lists.Edit reaches without a map lookup.
const recentLists = 3

// Get returns the list of k (nil when there is none). The list returned
// is a copy of its header: appends made later do not change it.
func (ls *Lists[K]) Get(k K) List {
	if l := ls.byKey[k]; l != nil {
		return *l
	}
	return nil
}

// Edit returns the list of k to change, made empty when there is none.
func (ls *Lists[K]) Edit(k K) *List {
	for i := range ls.recent {
		if r := &ls.recent[i]; r.list != nil && r.key == k {
			return r.list
		}
	}
	l := ls.byKey[k]
	if l == nil {
		if ls.byKey == nil {
			ls.byKey = make(map[K]*List)
		}
		l = new(List)
		ls.byKey[k] = l
	}
	copy(ls.recent[1:], ls.recent[:recentLists-1])
	ls.recent[0].key, ls.recent[0].list = k, l
	return l
}
