// Package compact holds the fixed-size forms in which the reference
// server's stored records keep values that the wire types hold in larger
// ones: a string of a small set as a byte, a date as nanoseconds and a
// zone's byte, an amount as cents.
//
// Contract:
//   - [Symbols] numbers the values of one string field, from 0 for "", in
//     the order they are first seen; a number, once given, always names the
//     same value. [Symbols.Code] returns [Full] instead of a number when the
//     table holds 255 values, and the caller keeps that value whole.
//   - [Zones] does the same for the time zones of dates: [Zones.Stamp]
//     returns a date's nanoseconds since 1970 and its zone's number, 0 for
//     the zero time, [Full] for a date the nanoseconds cannot hold (before
//     1678 or after 2261) or when the table is full; [Zones.Time] gives the
//     date back, the same instant in a zone of the same name and the same
//     offset. Zones without a name (the fixed offsets of dates read from
//     JSON, a location each) share one number per offset.
//   - [AmountOfCents] returns the amount of a number of cents, sharing one
//     value among its callers through a cache of fixed size (an
//     openpay.Amount is immutable): reading the same amounts again builds
//     nothing.
//   - [Zones.Whole] does what Stamp does for any date, and Time gives it
//     back: the few dates Stamp cannot hold go to a list of the process
//     that only grows. [Zones.Date] holds any date in a [Date] (16 bytes, no
//     pointer).
//   - [Text] holds a record's [TextFields] strings as one string over an
//     [Arena]'s chunk: one pointer and no object of its own per record;
//     [Text.Field] reads a field without allocating, [Arena.Make] and
//     [Arena.With] make Texts, whose bytes never change once made
//     (text.go says why its unsafe strings are safe).
//   - [ID] holds an id of up to [IDLen] bytes in place, without a pointer.
//
// Every function and method is safe for concurrent use; reads take no
// lock (a table is replaced, never changed, when it grows).
package compact

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpay-go/openpay"
)

// Full is the number a table returns when it holds 255 values and the
// value asked for is not among them: the caller keeps the value whole.
const Full = math.MaxUint8

// Symbols numbers the values of one string field.
type Symbols struct {
	mu    sync.Mutex
	names atomic.Pointer[[]string]
}

// NewSymbols returns a table holding "" (0) and the known values, from 1
// in their order.
func NewSymbols(known ...string) *Symbols {
	st := &Symbols{}
	names := append([]string{""}, known...)
	st.names.Store(&names)
	return st
}

// Code returns the number of s, adding it when new; Full when the table is
// full.
func (st *Symbols) Code(s string) uint8 {
	if c, ok := find(*st.names.Load(), s); ok {
		return c
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	names := *st.names.Load()
	if c, ok := find(names, s); ok {
		return c
	}
	if len(names) >= Full {
		return Full
	}
	grown := append(names[:len(names):len(names)], s)
	st.names.Store(&grown)
	return uint8(len(grown) - 1)
}

// Take returns the number of *v and empties *v, which the number stands
// for; when the table is full, Full, and *v stays.
func (st *Symbols) Take(v *string) uint8 {
	c := st.Code(*v)
	if c != Full {
		*v = ""
	}
	return c
}

func find(names []string, s string) (uint8, bool) {
	for i, n := range names {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

// Name returns the value numbered c (a number Code gave, not Full).
func (st *Symbols) Name(c uint8) string { return (*st.names.Load())[c] }

// Zones numbers the time zones of dates, from 1 (0 is the zero time). A
// zone is found by its location, else by its name and the date's offset in
// it.
type Zones struct {
	mu    sync.Mutex
	zones atomic.Pointer[[]zoneEntry]
}

type zoneEntry struct {
	loc    *time.Location
	name   string // the location's name, "" for a fixed offset without one
	offset int    // seconds east of UTC, at the date the entry was made for
}

// NewZones returns a table holding UTC.
func NewZones() *Zones {
	z := &Zones{}
	zones := []zoneEntry{{}, {loc: time.UTC, name: "UTC"}}
	z.zones.Store(&zones)
	return z
}

// code returns the number of t's zone, adding it when new; Full when the
// table is full.
func (z *Zones) code(t time.Time) uint8 {
	loc := t.Location()
	if c, ok := z.find(*z.zones.Load(), t, loc); ok {
		return c
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	zones := *z.zones.Load()
	if c, ok := z.find(zones, t, loc); ok {
		return c
	}
	if len(zones) >= Full {
		return Full
	}
	e := zoneEntry{loc: loc, name: loc.String()}
	_, e.offset = t.Zone()
	if e.name == "" {
		e.loc = time.FixedZone("", e.offset)
	}
	grown := append(zones[:len(zones):len(zones)], e)
	z.zones.Store(&grown)
	return uint8(len(grown) - 1)
}

func (z *Zones) find(zones []zoneEntry, t time.Time, loc *time.Location) (uint8, bool) {
	for i, e := range zones[1:] {
		if e.loc == loc {
			return uint8(i + 1), true
		}
	}
	name := loc.String()
	_, offset := t.Zone()
	for i, e := range zones[1:] {
		if e.name == name && e.offset == offset {
			return uint8(i + 1), true
		}
	}
	return 0, false
}

// surelyStampedFrom and surelyStampedTo bound, in seconds since 1970, the
// dates Stamp keeps without asking their year (see Stamp).
var (
	surelyStampedFrom = time.Date(1679, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	surelyStampedTo   = time.Date(2261, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
)

// Stamp returns t as nanoseconds since 1970 and its zone's number: 0 for
// the zero time, Full when t must be kept whole.
func (z *Zones) Stamp(t time.Time) (ns int64, zone uint8) {
	if t.IsZero() {
		return 0, 0
	}
	// A date between 1679 and 2260 in UTC is within 1678 and 2261 in any
	// zone: its year is not computed.
	if sec := t.Unix(); (sec < surelyStampedFrom || sec >= surelyStampedTo) && (t.Year() < 1678 || t.Year() > 2261) {
		return 0, Full
	}
	if zone = z.code(t); zone == Full {
		return 0, Full
	}
	return t.UnixNano(), zone
}

// Time returns the date Stamp gave as ns and zone (not Full), or Whole
// gave (Full too).
func (z *Zones) Time(ns int64, zone uint8) time.Time {
	switch zone {
	case 0:
		return time.Time{}
	case Full:
		return wholeAt(ns)
	}
	return time.Unix(0, ns).In((*z.zones.Load())[zone].loc)
}

// amountCache holds recently built amounts by their cents. Its size is
// fixed, whatever the callers store.
var amountCache [4096]atomic.Pointer[cachedAmount]

type cachedAmount struct {
	cents int64
	a     openpay.Amount
}

// AmountOfCents returns the amount of c cents.
func AmountOfCents(c int64) openpay.Amount {
	slot := &amountCache[uint64(c)*0x9E3779B97F4A7C15>>52]
	if e := slot.Load(); e != nil && e.cents == c {
		return e.a
	}
	e := &cachedAmount{cents: c, a: openpay.AmountFromCents(c)}
	slot.Store(e)
	return e.a
}

// Date is a date as Zones keeps it for records that hold no other
// pointer-free place for it: 16 bytes and no pointer, where a time.Time
// is 24 and points to its location.
type Date struct {
	ns   int64
	zone uint8
}

// wholeDates holds the dates Stamp cannot hold, for Whole: such dates
// should stay rare, since the list only grows.
var wholeDates struct {
	mu   sync.Mutex
	list []time.Time
}

// Whole returns any date t as Stamp does, and a date Stamp cannot hold as
// Full and its place in a list of the process.
func (z *Zones) Whole(t time.Time) (ns int64, zone uint8) {
	if ns, zone = z.Stamp(t); zone != Full {
		return ns, zone
	}
	return keepWhole(t), Full
}

func keepWhole(t time.Time) int64 {
	wholeDates.mu.Lock()
	defer wholeDates.mu.Unlock()
	wholeDates.list = append(wholeDates.list, t)
	return int64(len(wholeDates.list) - 1)
}

func wholeAt(ns int64) time.Time {
	wholeDates.mu.Lock()
	defer wholeDates.mu.Unlock()
	return wholeDates.list[ns]
}

// Date returns any date t as a Date (Whole).
func (z *Zones) Date(t time.Time) Date {
	ns, zone := z.Whole(t)
	return Date{ns: ns, zone: zone}
}

// DateOf returns the Date of a stamp Whole returned: the Date that Date
// gives for the time it stands for, without building that time.
func DateOf(ns int64, zone uint8) Date { return Date{ns: ns, zone: zone} }

// DateTime returns the date d holds (Time).
func (z *Zones) DateTime(d Date) time.Time { return z.Time(d.ns, d.zone) }
