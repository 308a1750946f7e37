package compact

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

// TestSymbolsFull: a table of values stops numbering at its capacity and
// says so (Full), and keeps the numbers it gave.
func TestSymbolsFull(t *testing.T) {
	t.Parallel()
	st := NewSymbols("a")
	assert.Equal(t, uint8(1), st.Code("a"))
	codes := map[string]uint8{}
	for i := range 300 {
		v := fmt.Sprint("v", i)
		codes[v] = st.Code(v)
	}
	assert.Equal(t, uint8(Full), codes["v299"])
	assert.Equal(t, uint8(Full-1), codes["v252"])
	assert.Equal(t, "v252", st.Name(codes["v252"]))
	assert.Equal(t, uint8(2), st.Code("v0"), "a value keeps its number")
	assert.Equal(t, "", st.Name(st.Code("")))
	v := "v299"
	assert.Equal(t, uint8(Full), st.Take(&v))
	assert.Equal(t, "v299", v, "a value the table cannot hold stays with the caller")
}

// TestZonesStamp: a date comes back the same instant in the same zone
// (name and offset); the zero time is 0; a date the nanoseconds cannot
// hold is Full; zones of one name and different offsets stay apart, and
// fixed offsets without a name share a number.
func TestZonesStamp(t *testing.T) {
	t.Parallel()
	z := NewZones()
	mexico, err := time.LoadLocation("America/Mexico_City")
	assert.NoError(t, err)
	at := time.Date(2026, 11, 28, 10, 11, 12, 123456789, time.UTC)
	for _, d := range []time.Time{at, at.In(mexico), at.In(time.FixedZone("XT", 3600)), at.In(time.FixedZone("XT", 7200)),
		at.In(time.FixedZone("", -5*3600))} {
		ns, zone := z.Stamp(d)
		assert.NotEqual(t, uint8(Full), zone)
		back := z.Time(ns, zone)
		assert.True(t, d.Equal(back))
		wantName, wantOffset := d.Zone()
		name, offset := back.Zone()
		assert.Equal(t, wantName, name)
		assert.Equal(t, wantOffset, offset)
	}
	_, a := z.Stamp(at.In(time.FixedZone("", 3600)))
	_, b := z.Stamp(at.In(time.FixedZone("", 3600)))
	assert.Equal(t, a, b, "two fixed offsets without a name, one number")
	ns, zone := z.Stamp(time.Time{})
	assert.Equal(t, uint8(0), zone)
	assert.True(t, z.Time(ns, zone).IsZero())
	_, zone = z.Stamp(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC))
	assert.Equal(t, uint8(Full), zone)
	// Around the years Stamp keeps (1678 to 2261 in the date's own zone),
	// in zones far from UTC: a date is kept by its year there.
	for _, off := range []int{-12 * 3600, 0, 14 * 3600} {
		loc := time.FixedZone("", off)
		for _, d := range []time.Time{
			time.Date(1677, 12, 31, 23, 59, 59, 0, loc), time.Date(1678, 1, 1, 0, 0, 0, 0, loc),
			time.Date(1679, 1, 1, 0, 0, 0, 0, loc), time.Date(2260, 12, 31, 23, 59, 59, 0, loc),
			time.Date(2261, 12, 31, 23, 59, 59, 0, loc), time.Date(2262, 1, 1, 0, 0, 0, 0, loc),
		} {
			ns, zone := z.Stamp(d)
			if y := d.Year(); y < 1678 || y > 2261 {
				assert.Equal(t, uint8(Full), zone, "%s", d)
				continue
			}
			require.NotEqual(t, uint8(Full), zone, "%s", d)
			assert.True(t, d.Equal(z.Time(ns, zone)), "%s", d)
		}
	}
}

// TestAmountOfCents: the amount of a number of cents, the same value when
// read again.
func TestAmountOfCents(t *testing.T) {
	t.Parallel()
	for _, c := range []int64{0, 1, 10050, -250, 1 << 40} {
		assert.Equal(t, openpay.AmountFromCents(c).String(), AmountOfCents(c).String())
		assert.Equal(t, 0, AmountOfCents(c).Cmp(openpay.AmountFromCents(c)))
	}
	a := AmountOfCents(123456)
	assert.Equal(t, a, AmountOfCents(123456))
}
