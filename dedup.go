package openpay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// EventKey returns the key that [Deduplicate] records for a webhook event:
// the same for every delivery of one event, different for different events.
// It is a hex SHA-256 digest (64 characters, so any database column or
// cache key holds it) of the parts of the event that tell it apart.
//
// Events carry no id, and a retried delivery repeats the event's body. The
// key therefore covers the type, the transaction's id, the event date and,
// when the transaction shows one, its refund's id: the type and the
// transaction alone do not tell apart two events of one kind about one
// transaction (two partial refunds of a charge both send charge.refunded),
// the event date does, and the refund id still does when both happen within
// the second the gateway's dates are written to. Nothing else of the
// transaction goes in, so that a delivery the gateway encodes again (other
// field order, another time zone offset, fields added) is still recognised.
// A verification event is keyed by its verification code, which is new for
// each webhook created.
//
// ok is false for an event that has none of these (no transaction id and no
// verification code, as event types the SDK does not know may): such events
// cannot be told apart, so Deduplicate passes each of them on.
func EventKey(ev *WebhookEvent) (key string, ok bool) {
	if ev == nil {
		return "", false
	}
	// Each part is written with its length, so no two lists of parts give
	// the same bytes.
	var b []byte
	part := func(s string) {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	part(string(ev.Type))
	switch tx := ev.Transaction; {
	case ev.Type == EventTypeVerification && ev.VerificationCode != "":
		part(ev.VerificationCode)
	case tx != nil && tx.ID != "":
		part(tx.ID)
		part(ev.EventDate.UTC().Format(time.RFC3339Nano))
		refund := ""
		if tx.Refund != nil {
			refund = tx.Refund.ID
		}
		part(refund)
	default:
		return "", false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), true
}

// EventStore records which webhook events have been processed, by their
// [EventKey], for [Deduplicate]. [MemoryEventStore] is one kept in the
// process; when several processes serve the webhook URL, implement it on a
// store they share (the database or cache the application already uses),
// so that a repeated delivery reaching another process is recognised too.
// An implementation must be safe for concurrent use.
//
// It may forget keys after a while (a bounded size, a time to live): the
// gateway repeats a delivery only until it gets a 2xx answer, so a key is
// only needed for the days the gateway may still retry.
type EventStore interface {
	// Seen reports whether key has been recorded by Remember.
	Seen(ctx context.Context, key string) (bool, error)
	// Remember records key. It is called only after the event was
	// processed, and may be called again with a key it already holds.
	Remember(ctx context.Context, key string) error
}

// errEventInProgress answers a delivery of an event that is still being
// processed for an earlier delivery.
var errEventInProgress = errors.New("openpay: the same event is being processed for another delivery; deliver it again later")

// Deduplicate wraps handle so that each event is processed once although
// the gateway may deliver it several times: the result goes to
// [WebhookHandler] in place of handle.
//
// An event whose key ([EventKey]) store has Seen is answered with success
// without calling handle. Otherwise handle is called, and the key is
// remembered only after handle succeeds: an event whose processing failed
// is not recorded, so the gateway's next delivery of it is processed rather
// than dropped. When recording fails after handle succeeded, the event is
// still answered with success, since asking for it again would surely
// process it twice. When Seen fails, the event is answered with an error
// and the gateway delivers it again later. Events without a key are always
// passed to handle.
//
// Within one wrapper, a delivery that arrives while an earlier delivery of
// the same event is still being processed (the gateway gave up waiting and
// sent it again) gets an error, so that the gateway tries again later
// rather than take it for done while the first attempt may still fail.
// Deliveries of one event that run at the same moment in different
// processes sharing a store can both be processed: a shared store narrows
// the window for duplicates without closing it, so handle must still be
// safe to run twice (check the state of the order, or record the event in
// the same database transaction as its effect).
//
// A handle that panics is treated as one that failed: the event is not
// recorded, and no later delivery of it is refused as in progress.
//
// A nil store is a [MemoryEventStore] of the default size. A nil handle
// gives nil, which WebhookHandler refuses.
func Deduplicate(store EventStore, handle func(ctx context.Context, ev *WebhookEvent) error) func(ctx context.Context, ev *WebhookEvent) error {
	if handle == nil {
		return nil
	}
	if store == nil {
		store = NewMemoryEventStore(0)
	}
	var mu sync.Mutex
	inFlight := make(map[string]struct{})
	return func(ctx context.Context, ev *WebhookEvent) error {
		key, ok := EventKey(ev)
		if !ok {
			return handle(ctx, ev)
		}
		mu.Lock()
		if _, busy := inFlight[key]; busy {
			mu.Unlock()
			return errEventInProgress
		}
		inFlight[key] = struct{}{}
		mu.Unlock()
		// The key leaves inFlight only after Remember, so that no delivery
		// of this event can pass between the two.
		defer func() {
			mu.Lock()
			delete(inFlight, key)
			mu.Unlock()
		}()

		seen, err := store.Seen(ctx, key)
		if err != nil {
			return fmt.Errorf("openpay: event store: %w", err)
		}
		if seen {
			return nil
		}
		if err := handle(ctx, ev); err != nil {
			return err
		}
		// The work is done: record it even if the gateway hung up.
		_ = store.Remember(context.WithoutCancel(ctx), key)
		return nil
	}
}

// defaultEventCapacity is the number of keys a MemoryEventStore keeps when
// no size is given: enough for a busy day of events, in about a megabyte.
const defaultEventCapacity = 10000

// MemoryEventStore is an [EventStore] in the process's memory, for a webhook
// URL served by one process. It keeps the latest keys up to a fixed number
// and forgets the oldest first, so its memory does not grow with the
// traffic; choose the size so that it spans the time the gateway may retry
// a delivery. It is forgotten when the process ends. It is safe for
// concurrent use; the zero value keeps up to 10000 keys.
type MemoryEventStore struct {
	mu   sync.Mutex
	keys map[string]struct{}
	ring []string // keys in the order remembered; next is the oldest once full
	next int
	max  int
}

// NewMemoryEventStore returns a store that keeps up to capacity keys; a
// capacity below 1 means 10000.
func NewMemoryEventStore(capacity int) *MemoryEventStore {
	return &MemoryEventStore{max: capacity}
}

// Seen reports whether key is among the keys kept.
func (s *MemoryEventStore) Seen(_ context.Context, key string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.keys[key]
	return ok, nil
}

// Remember keeps key, forgetting the oldest key when the store is full.
func (s *MemoryEventStore) Remember(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[key]; ok {
		return nil
	}
	if s.keys == nil {
		s.keys = make(map[string]struct{})
	}
	if s.max < 1 {
		s.max = defaultEventCapacity
	}
	if len(s.ring) < s.max {
		s.ring = append(s.ring, key)
	} else {
		delete(s.keys, s.ring[s.next])
		s.ring[s.next] = key
		s.next = (s.next + 1) % s.max
	}
	s.keys[key] = struct{}{}
	return nil
}

// Len returns the number of keys kept.
func (s *MemoryEventStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keys)
}
