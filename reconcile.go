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
	// source is the stored card or bank account the request pays with or
	// pays out to, or a token (token is then set: a charge's source_id may
	// be either, and the card behind a token is compared).
	source string
	token  bool
	// cardNumber is the number of a card sent in the request: its first
	// six and last four digits are compared with the transaction's masked
	// number.
	cardNumber string
	// customer is the customer the transaction must belong to: the scope's
	// customer, or the customer a fee is charged to.
	customer string
}

// sameTerms reports whether tx has the order_id, amount, currency, method
// and type the request asked for.
func (w txExpectation) sameTerms(tx *Transaction) bool {
	return tx.OrderID == w.orderID && tx.Amount.Equal(w.amount) &&
		(w.currency == "" || strings.EqualFold(string(tx.Currency), string(w.currency))) &&
		tx.Method == w.method && (w.txType == "" || tx.TransactionType == w.txType)
}

// OrderConflictError is returned when the transaction that holds a
// request's order_id is not this request's: it differs in amount,
// currency, method or type, it was paid with another card, or it belongs
// to another customer (found at the merchant's scope when the request was
// made at a customer's). This request made nothing, since order ids are
// unique: the order id is taken, and a new attempt needs a new one. An
// exact re-send (the same order_id, amount, card or account, and customer)
// is never a conflict: it returns the transaction already made.
// It unwraps to the answer that led to the lookup, usually the gateway's
// duplicate-order error, so errors.Is(err, ErrDuplicateOrderID) holds then.
type OrderConflictError struct {
	OrderID string
	// Existing is the transaction holding the order_id.
	Existing *Transaction
	// Err is the answer that led to the lookup (an [*Error], usually 1006,
	// or a [*TransportError]); nil for a lookup ([ChargesService.GetByOrderID]
	// at a customer's scope).
	Err error

	differs string // what tells Existing from this request
}

// Error describes the conflict. The transaction's fields come from the
// server and are shown redacted and cut, like every server text in an error.
func (e *OrderConflictError) Error() string {
	if e.Existing == nil {
		return fmt.Sprintf("openpay: order_id %.100q is taken by another transaction", e.OrderID)
	}
	differs := ""
	if e.differs != "" {
		differs = " (" + e.differs + ")"
	}
	return fmt.Sprintf("openpay: order_id %.100q belongs to transaction %s (%s %s %s), which differs from this request%s: this request made nothing",
		e.OrderID, shown(e.Existing.ID), shown(string(e.Existing.Method)), shown(e.Existing.Amount.String()), shown(string(e.Existing.Currency)), differs)
}

// Unwrap returns the answer that led to the lookup.
func (e *OrderConflictError) Unwrap() error { return e.Err }

// OutcomeUnknownError is returned when a request that moves money may have
// been carried out by the gateway and the SDK could not settle it: looking
// its transaction up by order_id (or, for a refund, reading the charge or
// fee back) failed, found nothing yet, or was not tried because the
// caller's context had ended. The charge, payout, transfer, fee or refund
// may exist, or may still be made by an attempt held at the gateway. It
// matches [ErrOutcomeUnknown] and [ClassOf] puts it in [ClassUnknown]; what
// made the outcome unknown (Err) and the lookup's failure (Lookup, which
// holds the context's error when the context ended) are both reachable
// with errors.As and errors.Is.
//
// Settle it before anything else, and never with a new order id while
// this attempt may be in flight. Keep the request, and re-send it as it
// was, with the same order_id (a recovery job does this): an exact re-send
// is idempotent, and returns the transaction the first attempt made (a
// success, or the decline it met), or makes it once if the first attempt
// made nothing. A refund is re-sent the same way: the gateway refunds a
// charge or a fee once, and the SDK returns the refund already made when
// it matches. GetByOrderID ([ChargesService.GetByOrderID], ...) only reads:
// an [ErrNotFound] from it does not prove that nothing will be made.
type OutcomeUnknownError struct {
	// Method and Path name the call (the path never includes a query).
	Method, Path string
	// OrderID is the request's order_id; empty for a refund.
	OrderID string
	// Err is what made the outcome unknown: a [*TransportError] (no
	// answer), or an [*Error] (a duplicate order_id, a server error, or a
	// 2xx answer whose body was not usable).
	Err error
	// Lookup is the failure of the lookup, or the context's error when it
	// ended first; nil when the lookup answered but shows no transaction
	// (or refund) yet.
	Lookup error
}

func (e *OutcomeUnknownError) Error() string {
	what, lookup := "outcome unknown", "no transaction with it was found"
	if e.OrderID != "" {
		what = fmt.Sprintf("outcome unknown for order_id %.100q", e.OrderID)
	} else {
		lookup = "reading it back shows no refund yet"
	}
	if e.Lookup != nil {
		lookup = "looking it up failed: " + e.Lookup.Error()
	}
	return fmt.Sprintf("openpay: %s %s: %s (%v); %s; settle it by re-sending the same request", e.Method, e.Path, what, e.Err, lookup)
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

// notLookedUp is the Lookup of an unknown outcome when the caller's
// context ended before the lookup: settling is then the recovery job's.
// It unwraps to the context's cause (its error, unless it was cancelled
// with a cause).
type notLookedUp struct{ err error }

func (e *notLookedUp) Error() string { return "not looked up, the context ended: " + e.err.Error() }
func (e *notLookedUp) Unwrap() error { return e.err }

// createTx sends a state-changing request that creates a transaction,
// after refusing an amount that is not positive (ErrInvalidAmount). When
// it carries an order_id the transport may retry it after an unknown
// outcome, and send settles any open outcome with reconcileTx.
func createTx(ctx context.Context, s scope, r apiRequest, want txExpectation, opts []CallOption, parts ...string) (*Transaction, error) {
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	r.method, r.url, r.opts = http.MethodPost, u, opts
	if err := positiveAmount(want.amount); err != nil {
		return nil, err
	}
	if want.orderID != "" {
		if want.customer == "" {
			want.customer = s.customerID()
		}
		r.reconcilable, r.want = true, want
		if s.customerID() != "" && parts[0] != "transfers" {
			// An order_id is unique across the merchant: its holder may be
			// another customer's, seen only from the merchant's scope.
			r.merchantURL, _ = s.c.merchantScope().url(parts...)
		}
	}
	var tx Transaction
	if err := s.c.send(ctx, r, &tx); err != nil {
		return nil, err
	}
	return &tx, nil
}

// positiveAmount refuses, before sending, an amount that cannot move money:
// zero or less. The error matches ErrInvalidAmount.
func positiveAmount(a Amount) error {
	if a.IsPositive() {
		return nil
	}
	return fmt.Errorf("%w: not sent: an amount that moves money must be greater than zero, not %s", ErrInvalidAmount, a)
}

// notNegative refuses, before sending, a negative amount where zero means
// "all of it" (a refund, a capture).
func notNegative(a Amount) error {
	if !a.d.IsNegative() {
		return nil
	}
	return fmt.Errorf("%w: not sent: an amount that moves money cannot be negative (zero means all of it), not %s", ErrInvalidAmount, a)
}

// getByOrderID returns the transaction holding orderID in the collection
// at parts (the GetByOrderID of charges, payouts, transfers and fees). At
// a customer's scope a holder elsewhere at the merchant (another customer,
// or the merchant itself) is an *OrderConflictError: the order_id is
// taken, though not by this customer.
func getByOrderID(ctx context.Context, s scope, orderID string, opts []CallOption, parts ...string) (*Transaction, error) {
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	if orderID == "" {
		return nil, invalidArgument("openpay: GetByOrderID needs an order_id")
	}
	var page []Transaction
	if err := s.c.send(ctx, orderIDLookup(u, orderID, opts), &page); err != nil {
		return nil, err
	}
	if tx := holderOf(page, orderID); tx != nil {
		return tx, nil
	}
	if s.customerID() != "" && parts[0] != "transfers" {
		mu, err := s.c.merchantScope().url(parts...)
		if err != nil {
			return nil, err
		}
		if err := s.c.send(ctx, orderIDLookup(mu, orderID, opts), &page); err != nil {
			return nil, err
		}
		if tx := holderOf(page, orderID); tx != nil {
			return nil, &OrderConflictError{OrderID: orderID, Existing: tx, differs: "another customer"}
		}
	}
	return nil, &Error{Category: CategoryRequest, Code: ErrNotFound, HTTPStatus: http.StatusNotFound, Method: http.MethodGet,
		Path: s.c.displayPath(u),
		Description: "no transaction holds this order_id now (an attempt still in flight may yet make one: " +
			"settle an unknown attempt by re-sending it with the same order_id)"}
}

// orderIDLookup is the list request that finds the transaction holding
// orderID in the collection at u. The order_id filter narrows the list
// where the gateway supports it; holderOf checks the match either way,
// among the newest transactions.
func orderIDLookup(u, orderID string, opts []CallOption) apiRequest {
	return apiRequest{method: http.MethodGet, url: u, query: neturl.Values{"order_id": {orderID}, "limit": {"100"}}, opts: opts}
}

// holderOf returns the transaction of page that holds orderID, or nil.
func holderOf(page []Transaction, orderID string) *Transaction {
	for i := range page {
		if page[i].OrderID == orderID {
			return &page[i]
		}
	}
	return nil
}

// needsReconciling reports whether the result of a request that can be
// settled leaves its outcome open: cause is the error the call would
// return (nil when a 2xx answer was usable) and resp the final response
// (nil when none came). It is open when the final answer itself may hide a
// request carried out (cause matches ErrOutcomeUnknown), when it is a
// duplicate order_id (whose holder may be this very request, sent before),
// or when an earlier attempt may have been carried out and the final
// answer is an error, which may then be about that attempt: a used token,
// a charge already refunded.
func needsReconciling(cause error, resp *transport.Response) bool {
	if cause == nil {
		return false
	}
	return errors.Is(cause, ErrOutcomeUnknown) || errors.Is(cause, ErrDuplicateOrderID) || earlierMayHaveActed(resp)
}

// earlierMayHaveActed reports whether an attempt before the final answer
// resp may have been carried out.
func earlierMayHaveActed(resp *transport.Response) bool {
	return resp != nil && resp.EarlierMayHaveActed()
}

// reconcileTx settles the outcome of a request carrying an order_id whose
// result (cause) leaves it open, by looking up the transaction holding the
// order_id in the collection the request was sent to, and at the
// merchant's scope when that was a customer's. The transaction is this
// request's own when it has the request's terms, source and customer: an
// exact re-send gets the transaction its first attempt made. Then a failed
// one is returned as the decline it was (an *Error with the transaction),
// any other fills out (a *Transaction) and err is nil; status is the HTTP
// status of the answer the settled outcome stands for. A transaction that
// is not this request's means this request made nothing:
// *OrderConflictError, as is a duplicate order_id met when no attempt of
// this call may have acted and the lookup shows no holder (one of another
// kind holds it). Otherwise, when the final answer was definite (a decline
// after an earlier attempt that may have been carried out) and the lookup
// shows nothing, that answer stands; in every other case the outcome stays
// unknown: *OutcomeUnknownError. A context that has ended is
// honoured at once: the outcome is then unknown without a lookup.
func (c *Client) reconcileTx(ctx context.Context, r apiRequest, path string, cause error, resp *transport.Response, out any) (status int, err error) {
	log := c.tr.Logger()
	orderID := transport.Redact(r.want.orderID, c.secrets...)
	unknown := func(lookup error) error {
		err := &OutcomeUnknownError{Method: r.method, Path: path, OrderID: r.want.orderID, Err: cause, Lookup: lookup}
		log.LogAttrs(context.WithoutCancel(ctx), slog.LevelWarn, "openpay: outcome unknown",
			slog.String("method", r.method), slog.String("path", path), slog.String("order_id", orderID), slog.String("error", err.Error()))
		return err
	}
	if ctx.Err() != nil {
		return 0, unknown(&notLookedUp{err: context.Cause(ctx)})
	}
	log.LogAttrs(ctx, slog.LevelWarn, "openpay: outcome unclear, looking the transaction up by order_id",
		slog.String("method", r.method), slog.String("path", path), slog.String("order_id", orderID), slog.String("cause", cause.Error()))
	// The lookup is not the caller's call: it takes none of its options.
	var page []Transaction
	if _, lerr := c.roundTrip(ctx, orderIDLookup(r.url, r.want.orderID, nil), path, nil, &page); lerr != nil {
		return 0, unknown(lerr)
	}
	found := holderOf(page, r.want.orderID)
	if found == nil && r.merchantURL != "" {
		if _, lerr := c.roundTrip(ctx, orderIDLookup(r.merchantURL, r.want.orderID, nil), c.displayPath(r.merchantURL), nil, &page); lerr != nil {
			return 0, unknown(lerr)
		}
		found = holderOf(page, r.want.orderID)
	}
	if found == nil {
		switch {
		case errors.Is(cause, ErrOutcomeUnknown), errors.Is(cause, ErrDuplicateOrderID) && earlierMayHaveActed(resp):
			return 0, unknown(nil)
		case errors.Is(cause, ErrDuplicateOrderID):
			// No attempt of this call may have acted, and the holder is
			// not among the transactions this call could have made: a
			// transaction of another kind holds the order_id.
			return 0, &OrderConflictError{OrderID: r.want.orderID, Err: cause}
		}
		return 0, cause
	}
	own, why, lerr := c.isOwn(ctx, r.want, found)
	if lerr != nil {
		return 0, unknown(lerr)
	}
	if !own {
		log.LogAttrs(ctx, slog.LevelWarn, "openpay: the order_id is held by another transaction",
			slog.String("method", r.method), slog.String("path", path), slog.String("order_id", orderID),
			slog.String("id", transport.Redact(found.ID, c.secrets...)), slog.String("differs", why))
		return 0, &OrderConflictError{OrderID: r.want.orderID, Existing: found, Err: cause, differs: why}
	}
	tx, ok := out.(*Transaction)
	if !ok {
		return 0, fmt.Errorf("openpay: internal error: reconciling into %T (after %w)", out, cause)
	}
	log.LogAttrs(ctx, slog.LevelInfo, "openpay: reconciled: the request's own transaction was found by order_id",
		slog.String("method", r.method), slog.String("path", path), slog.String("order_id", orderID),
		slog.String("id", transport.Redact(found.ID, c.secrets...)), slog.String("status", string(found.Status)))
	if found.Status == TransactionStatusFailed {
		e := failedTxError(r.method, path, found, c.secrets)
		return e.HTTPStatus, e
	}
	*tx = *found
	return http.StatusOK, nil
}

// isOwn reports whether found, the transaction holding the request's
// order_id, is the one the request made (or, for an exact re-send, the one
// the same request made before): the same terms, the same source and
// customer. why names the first difference. A token's card is read from
// the gateway to be compared; err is that read's failure.
func (c *Client) isOwn(ctx context.Context, w txExpectation, found *Transaction) (own bool, why string, err error) {
	switch {
	case !w.sameTerms(found):
		return false, "another amount, currency, method or type", nil
	case w.customer != "" && found.CustomerID != w.customer:
		return false, "another customer", nil
	case w.cardNumber != "" && found.Card != nil && !sameCardNumber(found.Card.CardNumber, w.cardNumber):
		return false, "another card", nil
	}
	if w.source == "" {
		return true, "", nil
	}
	shown := ""
	switch {
	case found.Card != nil:
		shown = found.Card.ID
	case found.BankAccount != nil:
		shown = found.BankAccount.ID
	default:
		return true, "", nil // the transaction does not show what paid
	}
	if shown == w.source {
		return true, "", nil
	}
	if !w.token || found.Card == nil {
		return false, "another source", nil
	}
	// The source may be a token: its card must be the charge's.
	tokenURL, err := c.merchantScope().url("tokens", w.source)
	if err != nil {
		return false, "another source", nil
	}
	var tok Token
	if _, err := c.roundTrip(ctx, apiRequest{method: http.MethodGet, url: tokenURL}, c.displayPath(tokenURL), nil, &tok); err != nil {
		if errors.Is(err, ErrNotFound) {
			return false, "another source", nil // neither the card shown nor a token
		}
		return false, "", err
	}
	if !sameCardNumber(found.Card.CardNumber, tok.Card.CardNumber) {
		return false, "another card", nil
	}
	return true, "", nil
}

// sameCardNumber reports whether two card numbers, each whole or masked
// ("411111XXXXXX1111"), share their first six and last four digits.
func sameCardNumber(a, b string) bool {
	ka, oka := cardKey(a)
	kb, okb := cardKey(b)
	return oka && okb && ka == kb
}

// cardKey is a card number's first six and last four characters once
// spaces and dashes are removed; ok is false when it is too short to have
// them.
func cardKey(n string) (key string, ok bool) {
	n = strings.NewReplacer(" ", "", "-", "").Replace(n)
	if len(n) < 10 {
		return "", false
	}
	return n[:6] + n[len(n)-4:], true
}

// failedTxError is the error a request would have been answered with had
// its answer not been lost, for the failed transaction it made: its code is
// the transaction's error_code, or the one its error_message names (a card
// charge declined: ErrCardDeclined when the message names none).
func failedTxError(method, path string, tx *Transaction, secrets []string) *Error {
	code := failureCode(tx)
	desc := transport.Excerpt(tx.ErrorMessage, excerptRunes, secrets...)
	if desc == "" {
		desc = code.meaning()
	}
	return &Error{Category: code.Category(), Code: code, Description: desc, HTTPStatus: code.HTTPStatus(),
		Method: method, Path: path, Transaction: tx}
}

// refundCheck describes a refund of a charge or a fee, which the gateway
// makes once for each: when its outcome is left open, reading the charge
// or the fee back tells whether it was made.
type refundCheck struct {
	// url is the charge or the fee refunded; empty when it cannot be read
	// (a group's charge): an open outcome then stays unknown.
	url string
	// amount is the amount asked; zero asks for all of it.
	amount Amount
	// fee: the answer is the refund itself (a fee's), not the object.
	fee bool
}

// refund sends a refund of the charge or fee at parts (the object's path
// followed by "refund"), settled by settleRefund when its outcome is left
// open. A negative amount is refused before sending.
func refund(ctx context.Context, s scope, r apiRequest, chk refundCheck, parts ...string) (*Transaction, error) {
	if err := notNegative(chk.amount); err != nil {
		return nil, err
	}
	u, err := s.url(parts...)
	if err != nil {
		return nil, err
	}
	if !s.group() { // the group API has no read of a charge
		if chk.url, err = s.url(parts[:len(parts)-1]...); err != nil {
			return nil, err
		}
	}
	// Not reconcilable: the transport never sends a refund again once it
	// may have reached the gateway; settleRefund reads it back instead.
	r.method, r.url, r.refund = http.MethodPost, u, &chk
	var tx Transaction
	if err := s.c.send(ctx, r, &tx); err != nil {
		return nil, err
	}
	return &tx, nil
}

// errNoGroupRead is the Lookup of a group's refund left unknown.
var errNoGroupRead = errors.New("not read back: the group API has no read of a charge (read it with the merchant's client)")

// settleRefund settles a refund whose result (cause) leaves its outcome
// open, or that was refused as invalid (perhaps because it was made
// already), by reading the charge or fee back. A refund of the amount
// asked (all of it, for a zero amount) is this call's: the gateway refunds
// each charge and fee once, so an attempt whose answer was lost, or an
// exact re-send, gets the refund already made, as this call's result. A pre-authorization found cancelled after an attempt that
// may have acted was voided, as a refund of it does. Otherwise a refusal
// that no attempt of this call may have caused stands; a refund of another
// amount means this call refunded nothing; and a read back that fails, or
// that shows no refund after an attempt that may have acted, leaves the
// outcome unknown: an attempt may still be held at the gateway.
func (c *Client) settleRefund(ctx context.Context, r apiRequest, path string, cause error, resp *transport.Response, out any) (status int, err error) {
	log := c.tr.Logger()
	mayHaveActed := errors.Is(cause, ErrOutcomeUnknown) || earlierMayHaveActed(resp)
	unknown := func(lookup error) error {
		err := &OutcomeUnknownError{Method: r.method, Path: path, Err: cause, Lookup: lookup}
		log.LogAttrs(context.WithoutCancel(ctx), slog.LevelWarn, "openpay: outcome unknown",
			slog.String("method", r.method), slog.String("path", path), slog.String("error", err.Error()))
		return err
	}
	if r.refund.url == "" {
		if !mayHaveActed {
			return 0, cause
		}
		return 0, unknown(errNoGroupRead)
	}
	if ctx.Err() != nil {
		return 0, unknown(&notLookedUp{err: context.Cause(ctx)})
	}
	log.LogAttrs(ctx, slog.LevelInfo, "openpay: reading a refund back",
		slog.String("method", r.method), slog.String("path", path), slog.String("cause", cause.Error()))
	var obj Transaction
	if _, lerr := c.roundTrip(ctx, apiRequest{method: http.MethodGet, url: r.refund.url}, c.displayPath(r.refund.url), nil, &obj); lerr != nil {
		// A refusal such as "already refunded" may be about this very
		// refund, made before: unknown until read.
		return 0, unknown(lerr)
	}
	tx, ok := out.(*Transaction)
	if !ok {
		return 0, fmt.Errorf("openpay: internal error: settling a refund into %T (after %w)", out, cause)
	}
	want := r.refund.amount
	if want.IsZero() {
		want = obj.Amount
	}
	switch {
	case obj.Refund != nil && obj.Refund.Amount.Equal(want):
		log.LogAttrs(ctx, slog.LevelInfo, "openpay: reconciled: the refund asked for is made",
			slog.String("method", r.method), slog.String("path", path), slog.String("id", transport.Redact(obj.Refund.ID, c.secrets...)))
		*tx = obj
		if r.refund.fee {
			*tx = *obj.Refund
		}
		return http.StatusOK, nil
	case mayHaveActed && !r.refund.fee && obj.Refund == nil && obj.Status == TransactionStatusCancelled:
		*tx = obj // a pre-authorization, voided
		return http.StatusOK, nil
	case !mayHaveActed:
		return 0, cause // a refusal, not about a refund of this call's
	case obj.Refund != nil:
		return 0, &Error{Category: CategoryRequest, Code: ErrInvalidParameter, HTTPStatus: ErrInvalidParameter.HTTPStatus(),
			Method: r.method, Path: path, Description: "already refunded, by another amount (" + obj.Refund.Amount.String() +
				"): this call refunded nothing", cause: cause}
	}
	return 0, unknown(nil)
}
