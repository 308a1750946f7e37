package chunklog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// values returns what l keeps, oldest first.
func values(l *Log[int]) []int {
	out := []int{}
	for i := range l.Len() {
		out = append(out, *l.At(i))
	}
	return out
}

func TestAppendAndAt(t *testing.T) {
	var l Log[int]
	assert.Equal(t, 0, l.Len())
	var want []int
	for i := range 3*ChunkSize + 5 {
		p := l.Append(i)
		assert.Equal(t, i, *p)
		want = append(want, i)
	}
	assert.Equal(t, want, values(&l))
	assert.Len(t, l.chunks, 4, "one chunk per ChunkSize values")
	assert.Panics(t, func() { l.At(l.Len()) })
	assert.Panics(t, func() { l.At(-1) })
}

func TestAppendNeverMovesAValue(t *testing.T) {
	var l Log[int]
	first := l.Append(7)
	for i := range 10 * ChunkSize {
		l.Append(i)
	}
	assert.Same(t, first, l.At(0))
	*first = 8
	assert.Equal(t, 8, *l.At(0))
}

func TestDropFront(t *testing.T) {
	var l Log[int]
	for i := range 2*ChunkSize + 3 {
		l.Append(i)
	}
	l.DropFront(ChunkSize + 1)
	assert.Equal(t, uint64(ChunkSize+1), l.Dropped())
	require.Equal(t, ChunkSize+2, l.Len())
	assert.Equal(t, ChunkSize+1, *l.At(0), "the value appended n-th is At(n - Dropped())")
	assert.Len(t, l.chunks, 2, "the emptied chunk is let go of")
	l.Append(-1)
	assert.Equal(t, -1, *l.At(l.Len() - 1))
	l.DropFront(0)
	l.DropFront(-3)
	assert.Equal(t, ChunkSize+3, l.Len())
	l.DropFront(1 << 20)
	assert.Equal(t, 0, l.Len())
	assert.Equal(t, uint64(2*ChunkSize+4), l.Dropped())
	l.Append(5)
	assert.Equal(t, []int{5}, values(&l))
}

func TestAViewStaysValid(t *testing.T) {
	var l Log[int]
	for i := range ChunkSize + 10 {
		l.Append(i)
	}
	view := l
	for i := range 3 * ChunkSize {
		l.Append(100 + i)
	}
	l.DropFront(2 * ChunkSize)
	require.Equal(t, ChunkSize+10, view.Len())
	for i := range view.Len() {
		assert.Equal(t, i, *view.At(i), "the view reads what it held")
	}
	assert.Equal(t, 100+ChunkSize-10, *l.At(0))
}

func TestSetDropped(t *testing.T) {
	var l Log[int]
	l.SetDropped(40)
	l.Append(1)
	assert.Equal(t, uint64(40), l.Dropped())
	assert.Panics(t, func() { l.SetDropped(3) })
}
