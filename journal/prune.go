package journal

import (
	"context"
	"fmt"
	"time"
)

// pruneBatch is how many rows one statement of Prune deletes, so that no
// statement holds locks for long.
const pruneBatch = 1000

// Pruned counts what [Journal.Prune] deleted.
type Pruned struct {
	Attempts, Events int
}

// Prune deletes the final attempts and handled webhook events last
// written more than age ago, and the expired claims of events, in
// statements of at most 1000 rows each, until none is left or ctx ends.
// Open attempts (pending, unknown) are never pruned. Keep age longer than
// the gateway retries a webhook delivery (days) and than a payer may come
// back with the same order.
func (j *Journal) Prune(ctx context.Context, age time.Duration) (Pruned, error) {
	var p Pruned
	cut := ms(j.now().Add(-age))
	for {
		res, err := j.db.ExecContext(ctx, `DELETE FROM openpay_attempts WHERE (charge_id, attempt_key) IN (
		SELECT charge_id, attempt_key FROM openpay_attempts
		WHERE state IN ('made', 'declined', 'refused') AND updated_ms < $1 LIMIT $2)`, cut, pruneBatch)
		if err != nil {
			return p, fmt.Errorf("journal: pruning attempts: %w", err)
		}
		n, _ := res.RowsAffected()
		p.Attempts += int(n)
		if n < pruneBatch {
			break
		}
	}
	now := ms(j.now())
	for {
		res, err := j.db.ExecContext(ctx, `DELETE FROM openpay_events WHERE event_key IN (
		SELECT event_key FROM openpay_events
		WHERE (state = 'done' AND updated_ms < $1) OR (state = 'claimed' AND until_ms < $2 AND updated_ms < $1) LIMIT $3)`, cut, now, pruneBatch)
		if err != nil {
			return p, fmt.Errorf("journal: pruning events: %w", err)
		}
		n, _ := res.RowsAffected()
		p.Events += int(n)
		if n < pruneBatch {
			break
		}
	}
	return p, nil
}

// Counts are the journal's attempts by where they stand, for a metrics
// endpoint.
type Counts struct {
	// Pending: claimed, outcome not written (in flight, or the process
	// died). Unknown: sent, outcome not known yet. Both wait for a worker.
	Pending, Unknown int
	// Settled: made. Failed: declined or refused (nothing moved).
	Settled, Failed int
}

// Counts reads the number of attempts in each state.
func (j *Journal) Counts(ctx context.Context) (Counts, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT state, COUNT(*) FROM openpay_attempts GROUP BY state`)
	if err != nil {
		return Counts{}, fmt.Errorf("journal: counting attempts: %w", err)
	}
	defer rows.Close()
	var c Counts
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return Counts{}, err
		}
		switch State(state) {
		case StatePending:
			c.Pending += n
		case StateUnknown:
			c.Unknown += n
		case StateMade:
			c.Settled += n
		case StateDeclined, StateRefused:
			c.Failed += n
		}
	}
	return c, rows.Err()
}
