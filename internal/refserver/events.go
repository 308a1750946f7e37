package refserver

import (
	"encoding/json"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/answer"
)

// Event is something that happened to a merchant's transaction, as a
// webhook delivers it: its type, when it happened and the transaction as it
// stood then.
type Event struct {
	// ID identifies the event within the server.
	ID string
	// MerchantID is the merchant the event belongs to.
	MerchantID string
	// Type is the event type (charge.succeeded, ...).
	Type openpay.EventType
	// Date is when the event happened (server clock).
	Date time.Time
	// Transaction is the transaction the event is about, as it stood when
	// the event happened.
	Transaction openpay.Transaction
}

// Wire returns the event as a webhook delivers it.
func (e Event) Wire() openpay.WebhookEvent {
	t := e.Transaction
	return openpay.WebhookEvent{Type: e.Type, EventDate: e.Date, Transaction: &t}
}

// Body is the event's JSON as a webhook delivery carries it.
func (e Event) Body() ([]byte, error) {
	wire := e.Wire()
	body, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	return answer.AddWireKeys(body, wire), nil
}

// maxEventsKept bounds each merchant's event log: Events returns at most the
// latest maxEventsKept; older events are dropped.
const maxEventsKept = 10000

// emit records an event about t. The caller holds m.mu, so events are
// recorded in the order the changes happened. Every registered event hook
// (see onEvent) is called with the event while m.mu is still held: a hook
// must only hand the event on (to a channel, a queue) and never block or
// take a merchant's lock.
//
// It returns the event recorded: its Transaction is a snapshot that never
// changes, which a handler may answer with instead of taking another copy.
func (s *Server) emit(m *merchant, typ openpay.EventType, t openpay.Transaction) *Event {
	ev := &Event{ID: s.ids.NewID("ev"), MerchantID: m.id, Type: typ, Date: s.nowFor(m), Transaction: t}
	// The log may grow to twice its bound before the older half is
	// dropped, so that trimming costs O(1) per event over time.
	if len(m.events) >= 2*maxEventsKept {
		cut := len(m.events) - maxEventsKept
		if m.data != nil {
			for i := range cut {
				m.mark(recEvent, eventKeyOf(m.eventsDropped+uint64(i)))
			}
		}
		m.events = append([]*Event(nil), m.events[cut:]...)
		m.eventsDropped += uint64(cut)
	}
	m.events = append(m.events, ev)
	if m.data != nil {
		m.mark(recEvent, eventKeyOf(m.eventsDropped+uint64(len(m.events)-1)))
		// The transaction an event is about has changed: the one change
		// every handler announces.
		if st := m.txByID(t.ID); st != nil {
			m.markTx(st)
		}
	}
	if hooks := s.eventHooks.Load(); hooks != nil {
		for _, h := range *hooks {
			h(ev)
		}
	}
	return ev
}

// onEvent registers the webhook delivery hook (or any other listener): it
// receives every event emitted, under the rules described at emit. The
// event is the one the log keeps and must not be changed; a hook gets it by
// pointer so that calling the hooks copies nothing (a copy that a hook keeps
// would otherwise go to the heap for every event, kept or not). The webhook
// resource registers its delivery queue here.
func (s *Server) onEvent(h func(*Event)) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	var hooks []func(*Event)
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
	evs := m.events
	if len(evs) > maxEventsKept {
		evs = evs[len(evs)-maxEventsKept:]
	}
	out := make([]Event, len(evs))
	for i, ev := range evs {
		out[i] = *ev
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
