package compact

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTextFields: every field comes back as it was given, short and long
// Texts alike, empty fields included, and the zero Text is five empty
// fields.
func TestTextFields(t *testing.T) {
	t.Parallel()
	var a Arena
	assert.Equal(t, [TextFields]string{}, Text{}.Fields())
	assert.Equal(t, uintptr(32), unsafe.Sizeof(Text{}), "the sixth field costs a Text no byte")
	long := strings.Repeat("x", maxShort)
	for _, f := range [][TextFields]string{
		{"trabc", "ord-1", "Cargo", "acus", "801585"},
		{"acus", "Juan", "Pérez", "juan@example.com", "5512345678", "ext-1"},
		{"", "", "", "", ""},
		{"", "", "", "", "z"},
		{"", "", "", "", "", "z"},
		{"a", "", "", "", ""},
		{"", "ó", "", "ü", ""},
		{long, "ord", "", "cu", "auth"},          // long: its ends in the header
		{"id", long, long, "", ""},               // longer than a chunk
		{strings.Repeat("y", maxShort-2), "ab"},  // exactly maxShort
		{strings.Repeat("y", maxShort-2), "abc"}, // one past
	} {
		tx := a.Make(&f)
		assert.Equal(t, f, tx.Fields())
		for i := range f {
			assert.Equal(t, f[i], tx.Field(i))
		}
	}
}

// TestTextWith: a field set later reads back with the others unchanged;
// setting the last empty fields of the last Text made extends it in
// place (the same bytes), and the Text it came from still reads as it
// did.
func TestTextWith(t *testing.T) {
	t.Parallel()
	var a Arena
	before := a.Make(&[TextFields]string{"trid", "ord", "desc"})
	withCustomer := a.With(before, 3, "acust")
	assert.Equal(t, [TextFields]string{"trid", "ord", "desc", "acust", "", ""}, withCustomer.Fields())
	assert.Same(t, unsafeData(before.s), unsafeData(withCustomer.s), "extended in place")
	withAuth := a.With(withCustomer, 4, "123456")
	assert.Equal(t, [TextFields]string{"trid", "ord", "desc", "acust", "123456", ""}, withAuth.Fields())
	assert.Same(t, unsafeData(before.s), unsafeData(withAuth.s), "extended in place")
	assert.Equal(t, [TextFields]string{"trid", "ord", "desc", "", "", ""}, before.Fields(), "an older Text is unchanged")

	// Not the last Text made: copied.
	other := a.Make(&[TextFields]string{"other"})
	moved := a.With(withAuth, 1, "ord-2")
	assert.Equal(t, [TextFields]string{"trid", "ord-2", "desc", "acust", "123456"}, moved.Fields())
	assert.Equal(t, [TextFields]string{"trid", "ord", "desc", "acust", "123456", ""}, withAuth.Fields())
	assert.Equal(t, "other", other.Field(0))
	stale := a.With(withAuth, 4, "")
	assert.Equal(t, [TextFields]string{"trid", "ord", "desc", "acust", "", ""}, stale.Fields())
	assert.Equal(t, withAuth, a.With(withAuth, 2, "desc"), "the same value: the same Text")
	assert.Equal(t, [TextFields]string{"", "", "", "", "v"}, a.With(Text{}, 4, "v").Fields())
}

// TestTextAllocations: reading a field allocates nothing; making a Text
// allocates only when a chunk fills.
func TestTextAllocations(t *testing.T) {
	var a Arena
	f := [TextFields]string{"tr0123456789abcdefgh", "ord-1", "Cargo", "", ""}
	tx := a.Make(&f)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = tx.Field(2) }))
	assert.Less(t, testing.AllocsPerRun(100, func() { tx = a.With(a.Make(&f), 4, "123456") }), 0.1)
}

func unsafeData(s string) *byte { return unsafe.StringData(s) }

// TestArenaConcurrent: Texts made and extended by many goroutines at
// once each read back as made, while other goroutines read Texts made
// before; under -race, no write to a Text's bytes after it was handed
// out shows up.
func TestArenaConcurrent(t *testing.T) {
	t.Parallel()
	var a Arena
	shared := make(chan Text, 64)
	var makers, readers sync.WaitGroup
	for g := range 4 {
		makers.Add(1)
		go func() {
			defer makers.Done()
			for i := range 2000 {
				f := [TextFields]string{fmt.Sprint("id", g, "-", i), fmt.Sprint("ord", i), "d"}
				tx := a.With(a.Make(&f), 4, fmt.Sprint(i))
				f[4] = fmt.Sprint(i)
				if tx.Fields() != f {
					t.Errorf("%v read back as %v", f, tx.Fields())
					return
				}
				shared <- tx
			}
		}()
	}
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for tx := range shared {
				if !strings.HasPrefix(tx.Field(0), "id") || !strings.HasPrefix(tx.Field(1), "ord") {
					t.Errorf("a Text changed after it was made: %v", tx.Fields())
				}
			}
		}()
	}
	makers.Wait()
	close(shared)
	readers.Wait()
}

// TestID: an id comes back as given, a long one too, without a pointer
// for the short.
func TestID(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "ev0123456789abcdefgh", "e", strings.Repeat("l", IDLen+1)} {
		id := MakeID(s)
		assert.Equal(t, s, id.String())
		assert.Equal(t, s, MakeID([]byte(s)).String())
	}
	b := []byte("evabc")
	id := MakeID(b)
	b[0] = 'X'
	assert.Equal(t, "evabc", id.String(), "the ID is a copy")
}

// TestDate: a date comes back as Zones.Time gives it back, the zero
// time and the dates Stamp cannot hold included.
func TestDate(t *testing.T) {
	t.Parallel()
	z := NewZones()
	mx, err := time.LoadLocation("America/Mexico_City")
	require.NoError(t, err)
	for _, d := range []time.Time{{}, time.Date(2026, 3, 1, 10, 0, 0, 5, mx), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", -5*3600))} {
		back := z.DateTime(z.Date(d))
		assert.True(t, d.Equal(back), "%v came back as %v", d, back)
		assert.Equal(t, d.Format(time.RFC3339Nano), back.Format(time.RFC3339Nano))
	}
}
