package refserver

import (
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/clock"
)

// gatewayZone is the time zone of the gateway's timestamps (clock.Zone,
// whose doc says why a fixed zone).
var gatewayZone = clock.Zone

// GatewayZone returns the time zone of the gateway's timestamps, a fixed
// UTC-06:00 zone (Mexico City time).
func GatewayZone() *time.Location { return gatewayZone }

// Clock tells the server the time (clock.Clock): all of the server's
// time-dependent behaviour (creation dates, due dates, card expiry,
// subscription periods) reads it, so tests can control time.
type Clock = clock.Clock

// RealClock is the wall clock (clock.RealClock). Its zero value is ready
// to use.
type RealClock = clock.RealClock

// FakeClock is a clock that moves only when told to (clock.FakeClock).
type FakeClock = clock.FakeClock

// NewFakeClock returns a fake clock standing at start.
func NewFakeClock(start time.Time) *FakeClock { return clock.NewFakeClock(start) }

// A clock per merchant. Every merchant follows the server's clock until
// its own is moved (AdvanceMerchantClock, SetMerchantClock, their
// simulation controls): from then on it has a fake clock of its own,
// standing where the server's stood, which moves only when the merchant's
// is moved (on a server on the wall clock too: the merchant's time then
// stands still between moves). Everything dated or judged by time for the
// merchant reads its clock (nowOf): creation and operation dates, due
// dates, card expiry, checkouts' windows, events, subscription periods,
// the Date header of its answers. A group's own resources (its customers
// and cards) are dated by the server's clock. The server's AdvanceClock
// runs the work of the merchants that follow it; a merchant's advance runs
// that merchant's work alone. Resetting the merchant (ResetMerchant, Reset)
// replaces it with one that follows the server's clock again. The clock is
// one pointer of the merchant's, nil when it follows: a merchant without a
// clock of its own costs one atomic load per reading and no allocation.

// nowOf returns the merchant's time (nil: the server's) in the gateway's
// zone, to the second.
func (s *Server) nowOf(m *merchant) time.Time {
	c := s.clock
	if m != nil {
		if fc := m.clock.Load(); fc != nil {
			c = fc
		}
	}
	return clock.Second(c.Now())
}

// MerchantClock returns the merchant's time, to the second, and whether
// the merchant has a clock of its own (false: it follows the server's).
// It fails (1005) for an unknown merchant.
func (s *Server) MerchantClock(merchantID string) (now time.Time, own bool, err error) {
	m := s.merchantByID(merchantID)
	if m == nil {
		return time.Time{}, false, errNoMerchant(merchantID)
	}
	return s.nowOf(m), m.clock.Load() != nil, nil
}

// errNoMerchant is the error of a merchant's clock control for an id the
// server does not hold.
func errNoMerchant(id string) *Error {
	return errorf(openpay.ErrNotFound, "The merchant '%s' does not exist", truncateForMessage(id))
}

// AdvanceMerchantClock moves the merchant's clock forward by d, as
// [Server.AdvanceClock] moves the server's, and runs the merchant's work
// that falls due on the way (its pending charges past their due date are
// cancelled, its subscriptions charged), stopping at each due instant. A
// merchant that followed the server's clock gets a clock of its own,
// starting where the server's stands; the server's clock and the other
// merchants' do not move. It returns the merchant's new time.
func (s *Server) AdvanceMerchantClock(merchantID string, d time.Duration) (time.Time, error) {
	if d <= 0 {
		return time.Time{}, errorf(openpay.ErrInvalidParameter, "The clock only moves forward")
	}
	return s.moveMerchantClock(merchantID, func(now time.Time) time.Time { return now.Add(d) })
}

// SetMerchantClock puts the merchant's clock at t, a clock of its own from
// then on (the server's clock and the other merchants' do not move). A time
// ahead of the merchant's runs the work due on the way, as
// [Server.AdvanceMerchantClock] does; an earlier one only moves the clock
// back (what was done stays done, with its dates). It returns the
// merchant's new time.
func (s *Server) SetMerchantClock(merchantID string, t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, errorf(openpay.ErrInvalidParameter, "The clock needs a time")
	}
	return s.moveMerchantClock(merchantID, func(time.Time) time.Time { return t })
}

// moveMerchantClock gives the merchant a clock of its own (when it had
// none) and walks it to target(its time).
func (s *Server) moveMerchantClock(merchantID string, target func(now time.Time) time.Time) (_ time.Time, err error) {
	defer s.durable(&err)()
	s.advanceMu.Lock()
	defer s.advanceMu.Unlock()
	m := s.merchantByID(merchantID) // under advanceMu: a reset does not replace it meanwhile
	if m == nil {
		return time.Time{}, errNoMerchant(merchantID)
	}
	// The clock is stored with the merchant's record: it is given, and each
	// move of it made, under m.mu with the record marked, so a commit in
	// between never finds the record changed and unmarked.
	m.mu.Lock()
	fc := m.clock.Load()
	if fc == nil {
		fc = NewFakeClock(s.Now())
		m.clock.Store(fc)
		m.mark(recMerchant, selfID)
	}
	m.mu.Unlock()
	set := func(t time.Time) {
		m.mu.Lock()
		defer m.mu.Unlock()
		fc.Set(t)
		m.mark(recMerchant, selfID)
	}
	return s.moveClock(fc, target(fc.Now()), func() []*merchant { return []*merchant{m} }, set), nil
}

// SetClock puts the server's fake clock at t: a time ahead runs the work
// due on the way, as [Server.AdvanceClock] does, for the merchants that
// follow the server's clock; an earlier time only moves the clock back
// (what was done stays done, with its dates). It needs a server built
// with a [*FakeClock] (1003 otherwise). It returns the new time.
func (s *Server) SetClock(t time.Time) (_ time.Time, err error) {
	defer s.durable(&err)()
	fc, e := s.fakeClock()
	if e != nil {
		return time.Time{}, e
	}
	if t.IsZero() {
		return time.Time{}, errorf(openpay.ErrInvalidParameter, "The clock needs a time")
	}
	s.advanceMu.Lock()
	defer s.advanceMu.Unlock()
	return s.moveClock(fc, t, s.followersOfServerClock, fc.Set), nil
}

// fakeClock is the server's clock when it is a fake one, which the clock
// controls move; 1003 on the wall clock.
func (s *Server) fakeClock() (*FakeClock, *Error) {
	fc, ok := s.clock.(*FakeClock)
	if !ok {
		return nil, errorf(openpay.ErrInvalidParameter, "The server runs on the wall clock; start it with a fake clock to move time")
	}
	return fc, nil
}

// moveClock puts the clock fc at to: forward by a walk over the work of
// the merchants ms gives (walkClock), back by setting it; each step goes
// through set (fc.Set, or for a merchant's own clock a setter that marks
// its record under its lock). The caller holds
// s.advanceMu. It returns the clock's new time.
func (s *Server) moveClock(fc *FakeClock, to time.Time, ms func() []*merchant, set func(time.Time)) time.Time {
	to = to.In(gatewayZone)
	if to.After(fc.Now()) {
		return s.walkClock(fc, to, ms, set)
	}
	set(to)
	return fc.Now()
}

// followersOfServerClock returns the merchants that follow the server's
// clock (no clock of their own), in the order they were added.
func (s *Server) followersOfServerClock() []*merchant {
	ms := s.merchantsInOrder()
	out := ms[:0]
	for _, m := range ms {
		if m.clock.Load() == nil {
			out = append(out, m)
		}
	}
	return out
}

// walkClock moves the clock fc forward to target and runs the work of the
// merchants ms gives (asked again at each stop) on the way: the clock does
// not jump, it stops at every instant at which some of their work falls
// due, in order, and runs the work there. Work already due (a clock moved
// without a walk) runs at the first stop. The caller holds s.advanceMu. It
// returns the clock's new time.
func (s *Server) walkClock(fc *FakeClock, target time.Time, ms func() []*merchant, set func(time.Time)) time.Time {
	s.hooksMu.Lock()
	work := s.clockWork
	s.hooksMu.Unlock()
	now := fc.Now()
	for {
		merchants := ms()
		stop := target
		for _, w := range work {
			for _, m := range merchants {
				if at, ok := w.next(m); ok && at.After(now) && at.Before(stop) {
					stop = at
				}
			}
		}
		set(stop)
		now = fc.Now()
		for _, w := range work {
			for _, m := range merchants {
				w.run(m, now)
			}
		}
		if !now.Before(target) {
			return now
		}
	}
}
