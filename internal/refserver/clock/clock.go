// Package clock tells the reference server the time: the gateway's zone
// ([Zone]), the wall clock ([RealClock]) and a clock that moves only when
// told to ([FakeClock]), behind one interface ([Clock]).
//
// Contract: every clock answers in the gateway's zone, without a monotonic
// reading, so that times compare by wall time and format as the gateway
// writes them; a FakeClock is safe for concurrent use and its zero value
// stands at the zero time. The package does not own what moving a clock
// does (the work that falls due, the merchants' own clocks): the server
// walks its clocks itself.
package clock

import (
	"sync"
	"time"

	"github.com/openpay-go/openpay"
)

// Zone is the time zone of the gateway's timestamps: Mexico City
// time, the SDK's openpay.CountryMexico.Location() (one definition for the
// SDK and the server, so that the days a client asks for are the days the
// server cuts).
//
// Mexico abolished daylight saving time in October 2022, so
// America/Mexico_City has been UTC-06:00 all year since then (the -05:00
// offsets in the older documentation examples are summer time before the
// change). A fixed zone therefore gives exactly the offsets the gateway
// writes today, while staying deterministic and independent of the tz
// database on the host: time.LoadLocation can fail on a minimal container,
// and importing time/tzdata would add some 450 KB to every program that
// starts a reference server for the sake of historical offsets the
// emulator never needs.
var Zone = openpay.CountryMexico.Location()

// Clock tells the server the time. All of the server's time-dependent
// behaviour (creation dates, due dates, card expiry, subscription periods)
// reads it, so tests can control time.
type Clock interface {
	// Now returns the current time in the gateway's zone.
	Now() time.Time
}

// RealClock is the wall clock. Its zero value is ready to use.
type RealClock struct{}

// Now returns the current time in the gateway's zone, without a monotonic
// reading (converting zone strips it), so values compare by wall time.
func (RealClock) Now() time.Time { return time.Now().In(Zone) }

// Second returns t.Truncate(time.Second), without its division for the
// times after the zero time (every clock's): a request reads the clock
// once or twice, each to the second.
func Second(t time.Time) time.Time {
	t = t.Round(0) // no monotonic reading, as Truncate
	if t.Before(time.Time{}) {
		return t.Truncate(time.Second)
	}
	return t.Add(-time.Duration(t.Nanosecond()))
}

// FakeClock is a clock that moves only when told to. It is safe for
// concurrent use; its zero value stands at the zero time.
type FakeClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewFakeClock returns a fake clock standing at start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{t: start}
}

// Now returns the clock's time in the gateway's zone.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t.In(Zone)
}

// Advance moves the clock by d (backwards when d is negative) and returns
// the new time.
func (c *FakeClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t.In(Zone)
}

// Set moves the clock to t.
func (c *FakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
