package refserver

import (
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/compact"
	"github.com/openpay-go/openpay/internal/refserver/eventwire"
)

// Event is something that happened to a merchant's transaction, as a
// webhook delivers it (package eventwire).
type Event = eventwire.Event

// maxEventsKept bounds each merchant's event log: Events returns at most the
// latest maxEventsKept; older events are dropped.
const maxEventsKept = 10000

// loggedEvent is an event as the merchant's log keeps it: the Event's
// fields less the merchant's id, and the transaction as a frozen copy of
// its compact record (tx.frozen) rather than its wire form, which is built
// when the event is read (Event, Body). A plain card charge's event keeps
// no object of its own besides its id.
type loggedEvent struct {
	typ  openpay.EventType // before tx: the pointers first (see tx)
	tx   tx
	date compact.Date // txZones
	id   compact.ID
}

// event returns the event with the merchant's id: the wire form of the
// transaction as it stood when the event happened.
func (e *loggedEvent) event(merchantID string) Event {
	return Event{ID: e.id.String(), MerchantID: merchantID, Type: e.typ, Date: txZones.DateTime(e.date), Transaction: e.tx.snapshot()}
}

// frozen returns a copy of the record that later changes to t do not
// reach, for an event's log: the rare part copied (its pointees are
// replaced, never changed: store.go's copy-on-write rule), the
// bookkeeping (later), which no wire form shows, dropped.
func (t *tx) frozen() tx {
	c := *t
	c.later = nil
	if t.x != nil {
		x := *t.x
		c.x = &x
	}
	return c
}

// emit records an event about t, the transaction as it stands now. The
// caller holds m.mu, so events are recorded in the order the changes
// happened. Every registered event hook (see onEvent) is called with the
// event while m.mu is still held: a hook must only hand the event on (to
// a channel, a queue) and never block or take a merchant's lock. emitAt dates
// the event at, a time the caller read (nowFor), emitDated at a record's stamp.
func (s *Server) emit(m *merchant, typ openpay.EventType, t *tx) { s.emitAt(m, typ, t, s.nowFor(m)) }
func (s *Server) emitAt(m *merchant, typ openpay.EventType, t *tx, at time.Time) {
	s.emitDated(m, typ, t, txZones.Date(at))
}
func (s *Server) emitDated(m *merchant, typ openpay.EventType, t *tx, date compact.Date) {
	// The log grows to twice its bound before the older half goes: O(1) per event over time.
	if m.events.Len() >= 2*maxEventsKept {
		cut := m.events.Len() - maxEventsKept
		for i := 0; m.data != nil && i < cut; i++ { // the dropped events leave the data directory
			m.mark(recEvent, eventKeyOf(m.events.Dropped()+uint64(i)))
		}
		m.events.DropFront(cut)
	}
	var id [compact.IDLen]byte
	ev := m.events.Append(loggedEvent{id: compact.MakeID(s.ids.AppendNewID(id[:0], "ev")), typ: typ, date: date, tx: t.frozen()})
	if m.data != nil {
		m.mark(recEvent, eventKeyOf(m.events.Dropped()+uint64(m.events.Len()-1)))
		// The transaction an event is about has changed: the one change every handler announces.
		if st := m.txByID(t.id()); st != nil {
			m.markTx(st)
		}
	}
	if hooks := s.eventHooks.Load(); hooks != nil {
		for _, h := range *hooks {
			h(m, ev)
		}
	}
}

// onEvent registers the webhook delivery hook (or any other listener): it
// receives every event emitted, with its merchant, under the rules
// described at emit. The event is the one the log keeps, valid during the
// call only, and must not be changed. The webhook resource registers its
// delivery queue here.
func (s *Server) onEvent(h func(*merchant, *loggedEvent)) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	var hooks []func(*merchant, *loggedEvent)
	if old := s.eventHooks.Load(); old != nil {
		hooks = append(hooks, *old...)
	}
	hooks = append(hooks, h)
	s.eventHooks.Store(&hooks)
}

// Events returns the events recorded for a merchant, oldest first.
func (s *Server) Events(merchantID string) []Event {
	m := s.merchantByID(merchantID)
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	skip := max(0, m.events.Len()-maxEventsKept)
	out := make([]Event, m.events.Len()-skip)
	for i := range out {
		out[i] = m.events.At(skip + i).event(m.id)
	}
	return out
}

// clockWork is work that time moves, registered with onClockAdvance: one
// merchant's at a time, by that merchant's clock (clock.go).
type clockWork struct {
	// run does what is due at now for the merchant m, holding no lock.
	run func(m *merchant, now time.Time)
	// next returns the earliest instant at which run will have something
	// to do for m, false when nothing is scheduled.
	next func(m *merchant) (time.Time, bool)
}

// onClockAdvance registers work that time moves: run is called, with the
// merchant and its time, at every stop of [Server.AdvanceClock] (for the
// merchants that follow the server's clock) and of
// [Server.AdvanceMerchantClock] (for that merchant), and next tells when
// the merchant's work next falls due, so that the clock stops there on
// its way (subscriptions charge on schedule this way).
func (s *Server) onClockAdvance(run func(m *merchant, now time.Time), next func(m *merchant) (time.Time, bool)) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.clockWork = append(s.clockWork, clockWork{run: run, next: next})
}
