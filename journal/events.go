package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/openpay-go/openpay"
)

// ErrEventInProgress is what [EventStore.Seen] answers for an event that
// another delivery, in this process or another, is handling now: the
// webhook then answers with an error and the gateway delivers the event
// again later.
var ErrEventInProgress = errors.New("journal: the event is being handled by another delivery")

// EventStore is an [openpay.EventStore] on the journal's database, for
// [openpay.Deduplicate]: every process of a fleet serving the webhook URL
// handles each event once.
//
// Seen claims the event in one statement: the first delivery of an event
// gets false (handle it) and holds a claim for Claim; a delivery of an
// event already handled gets true; a delivery of an event another delivery
// is handling gets [ErrEventInProgress]. Remember marks the event handled.
// A claim whose handler failed is let go by [EventStore.Handler] at once,
// else it expires after Claim, so the gateway's next delivery is handled.
// Handled events are kept until [Journal.Prune] removes them.
type EventStore struct {
	j *Journal
	// Claim is how long a delivery holds an event it handles before
	// another delivery may take it over (default 5m): longer than a
	// handler runs.
	Claim time.Duration
}

// Events returns the journal's webhook event store.
func (j *Journal) Events() *EventStore { return &EventStore{j: j, Claim: 5 * time.Minute} }

var _ openpay.EventStore = (*EventStore)(nil)

// Seen claims key, or reports that it was handled (true), or that another
// delivery holds it (ErrEventInProgress).
func (s *EventStore) Seen(ctx context.Context, key string) (bool, error) {
	now := s.j.now()
	claim := s.Claim
	if claim <= 0 {
		claim = 5 * time.Minute
	}
	res, err := s.j.db.ExecContext(ctx, `INSERT INTO openpay_events (event_key, state, until_ms, updated_ms) VALUES ($1, 'claimed', $2, $3)
	ON CONFLICT (event_key) DO UPDATE SET state = 'claimed', until_ms = excluded.until_ms, updated_ms = excluded.updated_ms
	WHERE openpay_events.state = 'claimed' AND openpay_events.until_ms <= $3`, key, ms(now.Add(claim)), ms(now))
	if err != nil {
		return false, fmt.Errorf("journal: claiming the event: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return false, fmt.Errorf("journal: claiming the event: %w", err)
	} else if n == 1 {
		return false, nil
	}
	var state string
	err = s.j.db.QueryRowContext(ctx, `SELECT state FROM openpay_events WHERE event_key = $1`, key).Scan(&state)
	switch {
	case err == nil && state == "done":
		return true, nil
	case err == nil, errors.Is(err, sql.ErrNoRows): // claimed, or let go a moment ago
		return false, ErrEventInProgress
	}
	return false, fmt.Errorf("journal: reading the event: %w", err)
}

// Remember marks key handled.
func (s *EventStore) Remember(ctx context.Context, key string) error {
	now := ms(s.j.now())
	_, err := s.j.db.ExecContext(ctx, `INSERT INTO openpay_events (event_key, state, until_ms, updated_ms) VALUES ($1, 'done', $2, $2)
	ON CONFLICT (event_key) DO UPDATE SET state = 'done', updated_ms = excluded.updated_ms`, key, now)
	if err != nil {
		return fmt.Errorf("journal: recording the event: %w", err)
	}
	return nil
}

// Release lets go of a claim on key that was not handled, so that the next
// delivery of the event is handled at once. A handled event stays handled.
func (s *EventStore) Release(ctx context.Context, key string) error {
	_, err := s.j.db.ExecContext(ctx, `DELETE FROM openpay_events WHERE event_key = $1 AND state = 'claimed'`, key)
	if err != nil {
		return fmt.Errorf("journal: releasing the event: %w", err)
	}
	return nil
}

// Handler wraps handle with [openpay.Deduplicate] on this store, and lets
// go of the event's claim when handle fails or panics: the result goes to
// [openpay.WebhookHandler].
func (s *EventStore) Handler(handle func(ctx context.Context, ev *openpay.WebhookEvent) error) func(ctx context.Context, ev *openpay.WebhookEvent) error {
	if handle == nil {
		return nil
	}
	return openpay.Deduplicate(s, func(ctx context.Context, ev *openpay.WebhookEvent) (err error) {
		ok := false
		defer func() {
			if !ok {
				if key, has := openpay.EventKey(ev); has {
					_ = s.Release(context.WithoutCancel(ctx), key)
				}
			}
		}()
		err = handle(ctx, ev)
		ok = err == nil
		return err
	})
}
