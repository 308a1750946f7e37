package answer

import (
	"slices"
	"sync/atomic"
	"time"
)

// Answers write the same date over and over: every record made within a
// second carries that second as its creation date, in its merchant's zone.
// appendJSONTime copies the JSON it kept of the last date it kept when
// asked for that date again (the same instant in the same zone, time.Time's
// ==: the JSON depends on nothing else), and writes any other date afresh
// (formatJSONTime).
//
// A date is kept when it is written afresh twice in a row (the same instant
// and zone) and is not before the kept one, so that answers which go from
// one date to another (a page of older charges) allocate nothing more than
// they did: a date is kept about once a second, when the clock moves on. A
// kept entry is never changed, and is replaced whole.

// keptTime is a date and its JSON.
type keptTime struct {
	t    time.Time
	json []byte
}

var (
	// lastTime is the kept date (nil until one is).
	lastTime atomic.Pointer[keptTime]
	// missedAt and missedZone are the instant (Unix nanoseconds) and the
	// zone of the last date written afresh. They are read and written
	// apart: a race between two writers only keeps a date sooner or later
	// than it would have been, never one with other bytes.
	missedAt   atomic.Int64
	missedZone atomic.Pointer[time.Location]
)

// appendJSONTime appends t as time.Time's MarshalJSON writes it
// (formatJSONTime), copied from the kept date's JSON when t is that date.
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	k := lastTime.Load()
	if k != nil && k.t == t {
		return append(b, k.json...), nil
	}
	start := len(b)
	b, err := formatJSONTime(b, t)
	if err == nil && (k == nil || !t.Before(k.t)) && missedTwice(t) {
		lastTime.Store(&keptTime{t: t, json: slices.Clone(b[start:])})
	}
	return b, err
}

// missedTwice records t as the last date written afresh and reports
// whether the one before was the same (instant and zone).
func missedTwice(t time.Time) bool {
	at, zone := t.UnixNano(), t.Location()
	return missedAt.Swap(at) == at && missedZone.Swap(zone) == zone
}
