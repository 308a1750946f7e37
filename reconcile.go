package openpay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	neturl "net/url"
	"strings"
	"time"

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

// OrderConflictError is returned when a request carrying an order_id may
// have been carried out by an earlier attempt (or its answer was lost), and
// the transaction that holds the order_id is not this request's: it differs
// in amount, currency, method or type, it was paid with another card or
// belongs to another customer, or it was created before this call began (an
// earlier payment attempt that used the same order_id, declined or not).
// This request made nothing, since order ids are unique: the order id is
// taken, and a new attempt needs a new one.
// It unwraps to the answer that led to the lookup, usually the gateway's
// duplicate-order error, so errors.Is(err, ErrDuplicateOrderID) holds then.
type OrderConflictError struct {
	OrderID string
	// Existing is the transaction holding the order_id.
	Existing *Transaction
	// Err is the answer that led to the lookup (an [*Error], usually 1006,
	// or a [*TransportError]).
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

// OutcomeUnknownError is returned when a request carrying an order_id may
// have been carried out by the gateway and looking its transaction up by
// order_id could not settle it: the lookup failed, or found nothing. The
// charge, payout, transfer or fee may exist. It matches [ErrOutcomeUnknown];
// both what made the outcome unknown (Err) and the lookup's failure
// (Lookup) are reachable with errors.As and errors.Is.
//
// Keep the order's attempt id and settle it later, from a recovery job,
// with GetByOrderID ([ChargesService.GetByOrderID],
// [PayoutsService.GetByOrderID], [TransfersService.GetByOrderID],
// [FeesService.GetByOrderID]): it returns the transaction holding the
// order_id (check its Status), or an error matching [ErrNotFound] when the
// gateway made none, and only then is it safe to try again with the same
// order_id.
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
		if want.customer == "" {
			want.customer = s.customerID()
		}
		r.reconcilable, r.want = true, want
	}
	var tx Transaction
	if err := s.c.send(ctx, r, &tx); err != nil {
		return nil, err
	}
	return &tx, nil
}

// getByOrderID returns the transaction holding orderID in the collection
// at parts (the GetByOrderID of charges, payouts, transfers and fees).
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
	return nil, &Error{Category: CategoryRequest, Code: ErrNotFound, HTTPStatus: http.StatusNotFound, Method: http.MethodGet,
		Path:        s.c.displayPath(u),
		Description: "no transaction holds this order_id: the gateway made none with it"}
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

// lookupGrace bounds the lookup by order_id when the caller's context
// ended before the outcome was known (its deadline passed mid-charge): the
// lookup still runs, for at most this long, so that a charge the gateway
// made is not left unknown for want of a second.
const lookupGrace = 10 * time.Second

// clockAllowance is how much earlier than this call's first attempt, by
// the gateway's clock, a transaction may say it was created and still be
// this call's: the gateway writes creation dates and its Date header to the
// second, and its servers' clocks may differ a little.
const clockAllowance = 5 * time.Second

// reconcileTx settles the outcome of a request carrying an order_id whose
// result (cause) leaves it open, by looking up the transaction holding the
// order_id in the collection the request was sent to; sent is when the
// request's first attempt left. The transaction is this request's own only
// when it has the request's terms and source and was created after sent
// (by the gateway's clock, read from the lookup's Date header). Then a
// failed one is returned as the decline it was (an *Error with the
// transaction), any other fills out (a *Transaction) and err is nil;
// status is the HTTP status of the answer the settled outcome stands for.
// A transaction that is not this request's means this request made
// nothing: *OrderConflictError. Otherwise, when the final answer was
// definite (a decline after an earlier attempt that may have been carried
// out) and the lookup shows nothing, that answer stands; in every other
// case the outcome stays unknown: *OutcomeUnknownError.
func (c *Client) reconcileTx(ctx context.Context, r apiRequest, path string, cause error, out any, sent time.Time) (status int, err error) {
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
	if ctx.Err() != nil {
		// The caller gave up waiting, but the gateway may have charged:
		// settling that is worth a short while more.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), lookupGrace)
		defer cancel()
	}
	// The lookup is not the caller's call: it takes none of its options.
	var page []Transaction
	resp, lerr := c.roundTrip(ctx, orderIDLookup(r.url, r.want.orderID, nil), path, nil, &page)
	if lerr != nil {
		return 0, unknown(lerr)
	}
	found := holderOf(page, r.want.orderID)
	if found == nil {
		if errors.Is(cause, ErrOutcomeUnknown) || errors.Is(cause, ErrDuplicateOrderID) {
			return 0, unknown(nil)
		}
		return 0, cause
	}
	own, why, lerr := c.isOwn(ctx, r.want, found, gatewayTime(resp, sent))
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

// gatewayTime estimates, by the gateway's clock, the moment sent (read on
// this machine's clock) from the Date header of resp, which was answered
// after sent: the estimate is never later than the true moment. It is
// the zero time when the answer has no usable Date header.
func gatewayTime(resp *transport.Response, sent time.Time) time.Time {
	if resp == nil || sent.IsZero() {
		return time.Time{}
	}
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return time.Time{}
	}
	return date.Add(-time.Since(sent))
}

// isOwn reports whether found, the transaction holding the request's
// order_id, is the one the request made: the same terms, the same source
// and customer, and created no earlier than the request's first attempt
// (since, by the gateway's clock; not checked when either time is
// unknown). why names the first difference. A token's card is read from
// the gateway to be compared; err is that read's failure.
func (c *Client) isOwn(ctx context.Context, w txExpectation, found *Transaction, since time.Time) (own bool, why string, err error) {
	switch {
	case !w.sameTerms(found):
		return false, "another amount, currency, method or type", nil
	case w.customer != "" && found.CustomerID != w.customer:
		return false, "another customer", nil
	case !since.IsZero() && !found.CreationDate.IsZero() && found.CreationDate.Before(since.Add(-clockAllowance)):
		return false, "made before this call began", nil
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
