package openpay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	neturl "net/url"
	"strings"

	"github.com/openpay-go/openpay/internal/transport"
)

// txExpectation is what a state-changing request carrying an order_id
// expects of the transaction it creates; it decides whether a transaction
// found by order_id after an unknown outcome is this request's own.
type txExpectation struct {
	orderID string
	amount  Amount
	// currency is compared only when the request names one: without it the
	// gateway applies the account's currency, which is MXN in Mexico but
	// COP or PEN in Colombia and Peru.
	currency Currency
	method   TransactionMethod
	txType   TransactionType
}

func (w txExpectation) matches(tx *Transaction) bool {
	return tx.OrderID == w.orderID && tx.Amount.Equal(w.amount) &&
		(w.currency == "" || strings.EqualFold(string(tx.Currency), string(w.currency))) &&
		tx.Method == w.method && (w.txType == "" || tx.TransactionType == w.txType)
}

// OrderConflictError is returned when a request carrying an order_id may
// have been carried out by an earlier attempt (or its answer was lost), and
// the transaction that holds the order_id is not the one the request
// describes (a different amount, currency, method or type): this request
// made nothing, since order ids are unique, and the order id is taken.
// It unwraps to the answer that led to the lookup, usually the gateway's
// duplicate-order error, so errors.Is(err, ErrDuplicateOrderID) holds then.
type OrderConflictError struct {
	OrderID string
	// Existing is the transaction holding the order_id.
	Existing *Transaction
	// Err is the answer that led to the lookup (an [*Error], usually 1006,
	// or a [*TransportError]).
	Err error
}

// Error describes the conflict. The transaction's fields come from the
// server and are shown redacted and cut, like every server text in an error.
func (e *OrderConflictError) Error() string {
	if e.Existing == nil {
		return fmt.Sprintf("openpay: order_id %.100q is taken by another transaction", e.OrderID)
	}
	return fmt.Sprintf("openpay: order_id %.100q belongs to transaction %s (%s %s %s), which differs from this request",
		e.OrderID, shown(e.Existing.ID), shown(string(e.Existing.Method)), shown(e.Existing.Amount.String()), shown(string(e.Existing.Currency)))
}

// Unwrap returns the answer that led to the lookup.
func (e *OrderConflictError) Unwrap() error { return e.Err }

// OutcomeUnknownError is returned when a request carrying an order_id may
// have been carried out by the gateway and looking its transaction up by
// order_id could not settle it: the lookup failed, or found nothing. The
// charge, payout, transfer or fee may exist. It matches [ErrOutcomeUnknown];
// both what made the outcome unknown (Err) and the lookup's failure
// (Lookup) are reachable with errors.As and errors.Is. Look the order_id up
// again later before trying anything else.
type OutcomeUnknownError struct {
	// Method and Path name the call (the path never includes a query).
	Method, Path string
	OrderID      string
	// Err is what made the outcome unknown: a [*TransportError] (no
	// answer), or an [*Error] (a duplicate order_id met by a retry, a
	// server error, or a 2xx answer whose body was not usable).
	Err error
	// Lookup is the failure of the lookup by order_id; nil when the lookup
	// answered but holds no transaction with the order_id.
	Lookup error
}

func (e *OutcomeUnknownError) Error() string {
	lookup := "no transaction with it was found"
	if e.Lookup != nil {
		lookup = "looking it up failed: " + e.Lookup.Error()
	}
	return fmt.Sprintf("openpay: %s %s: outcome unknown for order_id %.100q (%v); %s", e.Method, e.Path, e.OrderID, e.Err, lookup)
}

// Unwrap returns Err and Lookup.
func (e *OutcomeUnknownError) Unwrap() []error {
	if e.Lookup == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Lookup}
}

// Is matches [ErrOutcomeUnknown].
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// createTx sends a state-changing request that creates a transaction. When
// it carries an order_id the transport may retry it after an unknown
// outcome, and send settles any unknown outcome with reconcileTx.
func createTx(ctx context.Context, s scope, r apiRequest, want txExpectation, opts []CallOption, parts ...string) (*Transaction, error) {
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	r.method, r.url, r.opts = http.MethodPost, u, opts
	if want.orderID != "" {
		r.reconcilable, r.want = true, want
	}
	var tx Transaction
	if err := s.c.send(ctx, r, &tx); err != nil {
		return nil, err
	}
	return &tx, nil
}

// needsReconciling reports whether the result of a reconcilable request
// leaves its outcome open: cause is the error the call would return
// (nil when a 2xx answer was usable) and resp the final response (nil when
// none came). It is open when the final answer itself may hide a request
// carried out (cause matches ErrOutcomeUnknown), or when an earlier attempt
// may have been carried out and the final answer is an error, which may
// then be about that attempt: a duplicate order_id, a token already used.
func needsReconciling(cause error, resp *transport.Response) bool {
	if cause == nil {
		return false
	}
	return errors.Is(cause, ErrOutcomeUnknown) || resp != nil && resp.EarlierMayHaveActed()
}

// reconcileTx settles the outcome of a request carrying an order_id whose
// result (cause) leaves it open, by looking up the transaction holding the
// order_id in the collection the request was sent to. It fills out (a
// *Transaction) and returns nil when that transaction is the request's own.
// A different transaction holding the order_id means this request made
// nothing: *OrderConflictError. Otherwise, when the final answer was
// definite (a decline after an earlier attempt that may have been carried
// out) and the lookup shows nothing, that answer stands; in every other
// case the outcome stays unknown: *OutcomeUnknownError.
func (c *Client) reconcileTx(ctx context.Context, r apiRequest, path string, cause error, out any) error {
	log := c.tr.Logger()
	orderID := transport.Redact(r.want.orderID, c.secrets...)
	log.LogAttrs(ctx, slog.LevelWarn, "openpay: outcome unclear, looking the transaction up by order_id",
		slog.String("method", r.method), slog.String("path", path), slog.String("order_id", orderID), slog.String("cause", cause.Error()))
	unknown := func(lookup error) error {
		err := &OutcomeUnknownError{Method: r.method, Path: path, OrderID: r.want.orderID, Err: cause, Lookup: lookup}
		log.LogAttrs(ctx, slog.LevelWarn, "openpay: outcome unknown",
			slog.String("method", r.method), slog.String("path", path), slog.String("order_id", orderID), slog.String("error", err.Error()))
		return err
	}
	// The order_id filter narrows the search where the list supports it;
	// the match is checked here either way, among the newest transactions.
	q := neturl.Values{"order_id": {r.want.orderID}, "limit": {"100"}}
	// The lookup is not the caller's call: it takes none of its options.
	page, err := listPage[Transaction](ctx, c, r.url, q, nil)
	if err != nil {
		return unknown(err)
	}
	for i := range page {
		if page[i].OrderID != r.want.orderID {
			continue
		}
		if !r.want.matches(&page[i]) {
			return &OrderConflictError{OrderID: r.want.orderID, Existing: &page[i], Err: cause}
		}
		tx, ok := out.(*Transaction)
		if !ok {
			return fmt.Errorf("openpay: internal error: reconciling into %T (after %w)", out, cause)
		}
		*tx = page[i]
		log.LogAttrs(ctx, slog.LevelInfo, "openpay: reconciled: the request's own transaction was found by order_id",
			slog.String("method", r.method), slog.String("path", path), slog.String("order_id", orderID), slog.String("id", tx.ID))
		return nil
	}
	if errors.Is(cause, ErrOutcomeUnknown) || errors.Is(cause, ErrDuplicateOrderID) {
		return unknown(nil)
	}
	return cause
}
