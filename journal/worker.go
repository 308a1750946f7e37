package journal

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/openpay-go/openpay"
)

// Worker settles the attempts left pending or unknown: those whose process
// died before writing the outcome, and those whose outcome the SDK could
// not settle. Any number of workers, in any processes sharing the
// database, may run at once: an attempt is taken by one at a time (row
// locks with SKIP LOCKED on PostgreSQL, a lease on SQLite).
//
// For each attempt it looks the order_id up at the gateway. A transaction
// found is the outcome when it has the attempt's terms (made, or declined
// when it failed), and proves the attempt made nothing when it has others
// (refused: the order_id is taken). When the gateway shows nothing and the
// attempt is older than the journal's SettleAfter, the worker sends the
// recorded request again with the same order_id: the gateway takes an
// order_id once, so the re-send cannot pay twice; when it answers that the
// order_id is taken, the worker looks again. A refund is read back from its
// charge and sent again only when the charge shows no refund. A state is
// written final only from the gateway's answer or a transaction read back;
// every other result leaves the attempt open, to be tried again later with
// a growing back-off.
type Worker struct {
	// Journal is the journal whose attempts the worker settles (required).
	Journal *Journal
	// Batch is how many attempts one pass takes (default 32).
	Batch int
	// Concurrency is how many batches are settled at once (default 1).
	Concurrency int
	// Poll is the wait between passes when no attempt is due (default 1s).
	Poll time.Duration
	// MinBackoff and MaxBackoff bound the wait before an attempt the
	// gateway could not settle is tried again, and the pause of a worker
	// whose every lookup failed (the gateway is down); defaults 1s and 5m.
	MinBackoff, MaxBackoff time.Duration
	// Lease is how long a SQLite worker holds the attempts it took
	// (default 5m): a worker that dies lets them go when it ends.
	Lease time.Duration

	once sync.Once
	id   string
}

func (w *Worker) init() {
	w.once.Do(func() {
		if w.Batch <= 0 {
			w.Batch = 32
		}
		if w.Concurrency <= 0 {
			w.Concurrency = 1
		}
		if w.Poll <= 0 {
			w.Poll = time.Second
		}
		if w.MinBackoff <= 0 {
			w.MinBackoff = time.Second
		}
		if w.MaxBackoff <= 0 {
			w.MaxBackoff = 5 * time.Minute
		}
		if w.Lease <= 0 {
			w.Lease = 5 * time.Minute
		}
		var b [8]byte
		_, _ = rand.Read(b[:])
		w.id = hex.EncodeToString(b[:])
	})
}

// Run settles attempts until ctx ends, and returns ctx's error. Errors of
// the database are logged and retried after the back-off.
func (w *Worker) Run(ctx context.Context) error {
	w.init()
	var wg sync.WaitGroup
	for range w.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pause := time.Duration(0)
			for ctx.Err() == nil {
				p, err := w.pass(ctx)
				switch {
				case err != nil:
					if ctx.Err() == nil {
						w.Journal.log.LogAttrs(ctx, slog.LevelError, "journal: worker pass failed", slog.String("error", err.Error()))
					}
					pause = w.grow(pause)
				case p.taken > 0 && p.down == p.taken:
					pause = w.grow(pause) // the gateway is down: back off
				case p.taken > 0:
					pause = 0
					continue
				default:
					pause = w.Poll
				}
				select {
				case <-ctx.Done():
				case <-time.After(pause):
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// grow doubles a pause within the back-off bounds, with jitter.
func (w *Worker) grow(d time.Duration) time.Duration {
	d *= 2
	if d < w.MinBackoff {
		d = w.MinBackoff
	}
	if d > w.MaxBackoff {
		d = w.MaxBackoff
	}
	return d/2 + mrand.N(d/2+1)
}

// Drain settles the attempts due now, pass after pass (Concurrency passes
// at once), until none is due; attempts the gateway could not settle are
// left for later. It returns how many attempts it took in all. A job that
// runs from cron calls it.
func (w *Worker) Drain(ctx context.Context) (taken int, err error) {
	w.init()
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		first error
	)
	for range w.Concurrency {
		wg.Go(func() {
			for {
				p, err := w.pass(ctx)
				mu.Lock()
				taken += p.taken
				if err != nil && first == nil {
					first = err
				}
				stop := first != nil
				mu.Unlock()
				if stop || p.taken == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	return taken, first
}

// passResult counts one pass: attempts taken, and those whose lookup the
// gateway failed.
type passResult struct{ taken, down int }

// settled is what a worker writes for one attempt.
type settled struct {
	state  State
	txID   string
	code   openpay.Code
	text   string
	result *openpay.Transaction
	next   time.Time
	down   bool // the gateway failed to answer
}

// pass takes a batch of due attempts and settles each.
func (w *Worker) pass(ctx context.Context) (passResult, error) {
	if w.Journal.dialect == PostgreSQL {
		return w.passLocked(ctx)
	}
	return w.passLeased(ctx)
}

// passLocked takes the batch under row locks (FOR UPDATE SKIP LOCKED),
// held by a transaction until the outcomes are written: a worker that dies
// releases them with its connection.
func (w *Worker) passLocked(ctx context.Context) (passResult, error) {
	j := w.Journal
	tx, err := j.db.BeginTx(ctx, nil)
	if err != nil {
		return passResult{}, err
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, `SELECT `+attemptColumns+` FROM openpay_attempts
	WHERE state IN ('pending', 'unknown') AND next_ms <= $1 ORDER BY next_ms LIMIT $2 FOR UPDATE SKIP LOCKED`, ms(j.now()), w.Batch)
	if err != nil {
		return passResult{}, err
	}
	batch, err := scanAll(rows)
	if err != nil {
		return passResult{}, err
	}
	p, err := w.settleAll(ctx, tx, batch, "")
	if err != nil {
		return p, err
	}
	return p, tx.Commit()
}

// passLeased takes the batch by writing a lease on it in one statement,
// then settles and writes each attempt where the lease is still its own.
func (w *Worker) passLeased(ctx context.Context) (passResult, error) {
	j := w.Journal
	now := j.now()
	rows, err := j.db.QueryContext(ctx, `UPDATE openpay_attempts SET lease_owner = $1, lease_ms = $2
	WHERE (charge_id, attempt_key) IN (SELECT charge_id, attempt_key FROM openpay_attempts
		WHERE state IN ('pending', 'unknown') AND next_ms <= $3 AND lease_ms <= $3 ORDER BY next_ms LIMIT $4)
	RETURNING `+attemptColumns, w.id, ms(now.Add(w.Lease)), ms(now), w.Batch)
	if err != nil {
		return passResult{}, err
	}
	batch, err := scanAll(rows)
	if err != nil {
		return passResult{}, err
	}
	return w.settleAll(ctx, j.db, batch, w.id)
}

// settleAll settles each attempt of a batch a pass took and writes what it
// found through db (the pass's transaction, or the database under the
// lease of owner).
func (w *Worker) settleAll(ctx context.Context, db execer, batch []*attempt, owner string) (passResult, error) {
	var p passResult
	for _, a := range batch {
		s := w.settle(ctx, a)
		if err := w.Journal.write(ctx, db, a, s, owner); err != nil {
			return p, err
		}
		p.taken++
		if s.down {
			p.down++
		}
	}
	return p, nil
}

func scanAll(rows *sql.Rows) ([]*attempt, error) {
	defer rows.Close()
	var out []*attempt
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// write records what a worker found; an open state keeps the attempt for
// a later pass at s.next. With a lease owner, only the owner's lease
// writes; the lease is let go.
func (j *Journal) write(ctx context.Context, db execer, a *attempt, s settled, owner string) error {
	result := ""
	if s.result != nil {
		if b, err := json.Marshal(s.result); err == nil {
			result = string(b)
		}
	}
	now := j.now()
	q := `UPDATE openpay_attempts SET state = $1, transaction_id = $2, error_code = $3, error_text = $4, result = $5,
	tries = tries + 1, updated_ms = $6, next_ms = $7, lease_owner = '', lease_ms = 0
	WHERE charge_id = $8 AND attempt_key = $9 AND state IN ('pending', 'unknown')`
	args := []any{string(s.state), s.txID, int64(s.code), truncate(s.text, 500), result, ms(now), ms(s.next), a.ChargeID, a.OrderID}
	if !s.state.Final() {
		// An open attempt keeps what the claimant wrote.
		q = `UPDATE openpay_attempts SET state = $1, error_text = $2, tries = tries + 1, updated_ms = $3, next_ms = $4, lease_owner = '', lease_ms = 0
	WHERE charge_id = $5 AND attempt_key = $6 AND state IN ('pending', 'unknown')`
		args = []any{string(s.state), truncate(s.text, 500), ms(now), ms(s.next), a.ChargeID, a.OrderID}
	}
	if owner != "" {
		q += fmt.Sprintf(" AND lease_owner = $%d", len(args)+1)
		args = append(args, owner)
	}
	res, err := db.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("journal: writing a settled attempt: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		// Settled meanwhile by its claimant, or (SQLite) the lease ran out
		// and another worker holds it: that one writes it.
		j.log.LogAttrs(ctx, slog.LevelDebug, "journal: attempt written by another meanwhile",
			slog.String("kind", string(a.Kind)), slog.String("order_id", a.OrderID), slog.String("state", string(s.state)))
		return nil
	}
	if s.state.Final() {
		j.log.LogAttrs(ctx, slog.LevelInfo, "journal: attempt settled",
			slog.String("kind", string(a.Kind)), slog.String("order_id", a.OrderID), slog.String("charge_id", a.ChargeID),
			slog.String("amount", a.Amount.String()), slog.String("state", string(s.state)),
			slog.String("transaction_id", s.txID), slog.Int("tries", a.Tries+1))
	}
	return nil
}

// settle finds the outcome of one attempt through the SDK.
func (w *Worker) settle(ctx context.Context, a *attempt) settled {
	j := w.Journal
	if a.Kind == KindRefund {
		return w.settleRefund(ctx, a)
	}
	tx, err := j.lookup(ctx, a)
	switch {
	case err == nil:
		return w.judge(ctx, a, tx)
	case !isNotFound(err):
		return w.later(a, err, true)
	}
	// The gateway holds nothing with the order_id.
	if due := a.Created.Add(j.settle); j.now().Before(due) {
		return settled{state: a.State, text: a.Error, next: due}
	}
	tx, err = j.send(ctx, a)
	var oc *openpay.OrderConflictError
	if errors.Is(err, openpay.ErrDuplicateOrderID) || errors.As(err, &oc) {
		// The order_id is taken: by this attempt's earlier send (made
		// meanwhile), or by another transaction. Look again.
		found, lerr := j.lookup(ctx, a)
		if lerr != nil {
			return w.later(a, lerr, !isNotFound(lerr))
		}
		return w.judge(ctx, a, found)
	}
	state, txID, code, text := outcomeOf(a.Kind, tx, err)
	if !state.Final() {
		return w.later(a, err, true)
	}
	var oe *openpay.Error
	if state == StateDeclined && errors.As(err, &oe) {
		tx = oe.Transaction
	}
	return settled{state: state, txID: txID, code: code, text: text, result: tx}
}

// judge settles an attempt from the transaction holding its order_id.
func (w *Worker) judge(ctx context.Context, a *attempt, tx *openpay.Transaction) settled {
	own, why, err := w.Journal.owns(ctx, a, tx)
	switch {
	case err != nil:
		return w.later(a, err, true)
	case !own:
		return settled{state: StateRefused, code: openpay.ErrDuplicateOrderID,
			text: fmt.Sprintf("the order_id is held by transaction %s, which differs in %s: this attempt made nothing", tx.ID, why)}
	case tx.Status == openpay.TransactionStatusFailed:
		code := tx.ErrorCode
		if code == 0 {
			code = openpay.ErrCardDeclined
		}
		return settled{state: StateDeclined, txID: tx.ID, code: code, text: tx.ErrorMessage, result: tx}
	}
	return settled{state: StateMade, txID: tx.ID, result: tx}
}

// settleRefund settles a refund by reading its charge back.
func (w *Worker) settleRefund(ctx context.Context, a *attempt) settled {
	j := w.Journal
	charge, err := j.lookup(ctx, a)
	switch {
	case err != nil && isNotFound(err):
		return settled{state: StateRefused, code: openpay.ErrNotFound, text: "the charge does not exist"}
	case err != nil:
		return w.later(a, err, true)
	case refundOf(a, charge):
		return settled{state: StateMade, txID: charge.Refund.ID, result: charge}
	case charge.Refund != nil:
		// Another refund is shown: this one may or may not have been made,
		// and a re-send could refund twice. Left for a person to look at.
		return w.later(a, fmt.Errorf("the charge shows refund %s, not this attempt's; settle it by hand", charge.Refund.ID), false)
	}
	if due := a.Created.Add(j.settle); j.now().Before(due) {
		return settled{state: a.State, text: a.Error, next: due}
	}
	tx, err := j.send(ctx, a)
	state, txID, code, text := outcomeOf(a.Kind, tx, err)
	if !state.Final() {
		return w.later(a, err, true)
	}
	return settled{state: state, txID: txID, code: code, text: text, result: tx}
}

// later keeps the attempt open (unknown) and due again after a back-off
// that grows with its tries; down marks a gateway that did not answer.
func (w *Worker) later(a *attempt, cause error, down bool) settled {
	d := w.MinBackoff
	for i := 0; i < a.Tries && d < w.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, w.MaxBackoff)
	text := ""
	if cause != nil {
		text = cause.Error()
	}
	w.Journal.log.LogAttrs(context.Background(), slog.LevelWarn, "journal: attempt not settled yet",
		slog.String("kind", string(a.Kind)), slog.String("order_id", a.OrderID), slog.Int("tries", a.Tries+1),
		slog.Duration("again_in", d), slog.String("cause", text))
	return settled{state: StateUnknown, text: text, next: w.Journal.now().Add(d/2 + mrand.N(d/2+1)), down: down}
}

func isNotFound(err error) bool { return errors.Is(err, openpay.ErrNotFound) }
