// Package chunklog holds an append-only log of values kept in chunks of
// fixed size, the form in which the reference server keeps its event log.
//
// Contract:
//   - [Log.Append] adds a value at the end and returns where it is stored;
//     it never moves or copies a value already stored, so that a log of
//     values holding pointers costs the collector no copies while it grows,
//     and an append allocates one chunk per [ChunkSize] values at most.
//   - [Log.At] returns the i-th value kept (0 the oldest), [Log.Len] their
//     number, [Log.Dropped] the number of values ever dropped from the
//     front: the value appended n-th (from 0) is At(n - Dropped()).
//   - [Log.DropFront] drops the oldest values; a chunk is let go of once
//     none of its values is kept.
//   - A copy of a Log (a plain assignment) is a view that stays valid and
//     unchanged while the original grows or drops values, as long as the
//     values it holds are not changed through At: appends write beyond
//     the view's end only, and DropFront replaces the list of chunks
//     instead of changing it. A reader may take a copy under the owner's
//     lock and read it after letting go of the lock.
//
// A Log is not safe for concurrent use: its owner serializes the calls.
package chunklog

// ChunkSize is the number of values a chunk holds.
const ChunkSize = 64

// Log is an append-only log of values of type T; the zero Log is empty
// and ready to use.
type Log[T any] struct {
	chunks  []*[ChunkSize]T
	first   int // index in chunks[0] of the oldest value kept
	n       int // values kept
	dropped uint64
}

// Len returns the number of values kept.
func (l *Log[T]) Len() int { return l.n }

// Dropped returns the number of values dropped from the front so far.
func (l *Log[T]) Dropped() uint64 { return l.dropped }

// At returns the i-th value kept, 0 the oldest. It panics when i is out
// of range.
func (l *Log[T]) At(i int) *T {
	if i < 0 || i >= l.n {
		panic("chunklog: index out of range")
	}
	i += l.first
	return &l.chunks[i/ChunkSize][i%ChunkSize]
}

// Append adds v at the end of the log and returns where it is stored.
func (l *Log[T]) Append(v T) *T {
	end := l.first + l.n
	if end == len(l.chunks)*ChunkSize {
		l.chunks = append(l.chunks, new([ChunkSize]T))
	}
	p := &l.chunks[end/ChunkSize][end%ChunkSize]
	*p = v
	l.n++
	return p
}

// DropFront drops the k oldest values (all of them when k >= Len).
func (l *Log[T]) DropFront(k int) {
	k = max(0, min(k, l.n))
	if k == 0 {
		return
	}
	l.n -= k
	l.dropped += uint64(k)
	first := l.first + k
	// A new list of chunks: a view taken before keeps the old one.
	l.chunks = append([]*[ChunkSize]T(nil), l.chunks[first/ChunkSize:]...)
	l.first = first % ChunkSize
	if l.n == 0 && l.first == 0 {
		l.chunks = nil
	}
}

// SetDropped sets the number of values dropped before the first one, for
// a log rebuilt from a saved one whose oldest values were gone. It panics
// unless the log is empty.
func (l *Log[T]) SetDropped(n uint64) {
	if l.n != 0 {
		panic("chunklog: SetDropped on a log that holds values")
	}
	l.dropped = n
}
