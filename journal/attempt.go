package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Kind is the kind of money-moving call an attempt makes.
type Kind string

// The kinds of attempt.
const (
	KindCharge   Kind = "charge"
	KindPayout   Kind = "payout"
	KindTransfer Kind = "transfer"
	KindFee      Kind = "fee"
	KindRefund   Kind = "refund"
)

// State is where an attempt stands.
type State string

// The states of an attempt. Pending and unknown are open: a [Worker]
// settles them. Made, declined and refused are final, and each is proven by
// the gateway's answer or by reading the transaction back.
const (
	// StatePending: claimed; the outcome is not written yet (the call is
	// under way, or the process died).
	StatePending State = "pending"
	// StateUnknown: the call was sent and its outcome is not known: the
	// gateway may have acted.
	StateUnknown State = "unknown"
	// StateMade: the gateway made the transaction (TransactionID).
	StateMade State = "made"
	// StateDeclined: the gateway made a failed transaction or declined
	// the payment (a card decline).
	StateDeclined State = "declined"
	// StateRefused: the gateway refused the request and made nothing (bad
	// input, insufficient funds, an order_id another transaction holds).
	StateRefused State = "refused"
)

// Final reports whether s is a final state.
func (s State) Final() bool { return s == StateMade || s == StateDeclined || s == StateRefused }

// Attempt is a journal row: one money-moving call.
type Attempt struct {
	Kind Kind
	// OrderID is the order_id sent with the call; for a refund, the
	// attempt key the merchant chose.
	OrderID string
	// ChargeID is the charge a refund returns money from ("" for others).
	ChargeID string
	// CustomerID is the customer scope of the call (the customer a
	// transfer leaves, the customer a fee is charged to), or "".
	CustomerID string
	Amount     openpay.Amount
	Currency   openpay.Currency
	// Source is the card, token or bank account paid with or paid to.
	Source string
	// Variant is the request type ("CardCharge", "BankAccountPayout").
	Variant string
	State   State
	// TransactionID is the transaction made (made or declined).
	TransactionID string
	// ErrorCode and Error describe a decline or a refusal.
	ErrorCode openpay.Code
	Error     string
	// Tries counts the worker's settle attempts.
	Tries   int
	Created time.Time
	Updated time.Time
}

// ErrInProgress is returned by a call that joins an attempt with the same
// key and terms that is not final yet: it is being made by another call, or
// a [Worker] will settle it. Ask again later; nothing was sent.
var ErrInProgress = errors.New("journal: an attempt with this key is in progress")

// ErrCardData is returned, before anything is recorded or sent, for a
// request that carries card data (a card number or a CVV): the journal
// keeps the request to re-send it, and card data must not be stored.
var ErrCardData = errors.New("journal: the request carries card data, which the journal does not store; use a saved card or a token")

// TermsConflictError is returned, before anything is sent, when a call
// names the key of an attempt recorded with other terms: the key belongs to
// another payment, and a new one needs a new key.
type TermsConflictError struct {
	Existing Attempt
	// Differs names the first term that differs.
	Differs string
}

// Error names the key and the term that differs.
func (e *TermsConflictError) Error() string {
	return fmt.Sprintf("journal: %s %.100q is recorded with another %s; a new payment needs a new key", e.Existing.Kind, e.Existing.OrderID, e.Differs)
}

// Charge is a charge to record and send. ClientIP is the payer's IP address
// (sent as with [openpay.WithClientIP]; empty: the request's own ClientIP,
// else the client's default).
// CustomerID, when set, makes the charge in the customer's scope.
type Charge struct {
	CustomerID string
	ClientIP   string
	// Request is an [openpay.CardCharge] (with a saved card or a token, no
	// CVV), [openpay.StoreCharge] or [openpay.BankCharge], with its OrderID.
	Request openpay.ChargeRequest
}

// Payout is a payout to record and send, from the merchant's balance or
// (CustomerID set) a customer's.
type Payout struct {
	CustomerID string
	// Request is an [openpay.BankAccountPayout] or [openpay.CardPayout]
	// to a saved destination, or an [openpay.InlineBankAccountPayout] to a
	// CLABE, with its OrderID.
	Request openpay.PayoutRequest
}

// Transfer moves money from customer FromCustomerID to Request.CustomerID.
type Transfer struct {
	FromCustomerID string
	Request        openpay.TransferRequest
}

// Refund returns money of charge ChargeID (made in CustomerID's scope, or
// the merchant's when empty). Key names this refund among the charge's
// refunds (for example "return-1"): refunds carry no order_id.
type Refund struct {
	CustomerID string
	ChargeID   string
	Key        string
	Request    openpay.RefundRequest
}

// FeeRefund returns fee FeeID to the customer it was charged to. Key
// names this refund of the fee (for example "commission-back"): fee
// refunds carry no order_id. The gateway refunds a fee once, whole.
type FeeRefund struct {
	FeeID   string
	Key     string
	Request openpay.FeeRefundRequest
}

// attempt is a row with what re-sends it.
type attempt struct {
	Attempt
	request  string
	clientIP string
	result   string
}

// Charge records the charge, sends it, and records its outcome. Its result
// is the SDK's, with these additions: a call whose key is recorded with
// the same terms joins that attempt (its transaction or its decline when
// final, else [ErrInProgress]) and sends nothing; a key recorded with
// other terms gives a [*TermsConflictError]. An outcome the SDK could not
// settle is left to a [Worker].
func (j *Journal) Charge(ctx context.Context, c Charge) (*openpay.Transaction, error) {
	a, err := chargeAttempt(c)
	if err != nil {
		return nil, err
	}
	return j.do(ctx, a)
}

// Payout records the payout, sends it and records its outcome, as
// [Journal.Charge] does.
func (j *Journal) Payout(ctx context.Context, p Payout) (*openpay.Transaction, error) {
	a, err := payoutAttempt(p)
	if err != nil {
		return nil, err
	}
	return j.do(ctx, a)
}

// Transfer records the transfer, sends it and records its outcome, as
// [Journal.Charge] does.
func (j *Journal) Transfer(ctx context.Context, t Transfer) (*openpay.Transaction, error) {
	r := t.Request
	a := attempt{Attempt: Attempt{Kind: KindTransfer, OrderID: r.OrderID, CustomerID: t.FromCustomerID, Amount: r.Amount,
		Source: r.CustomerID, Variant: "TransferRequest"}}
	if t.FromCustomerID == "" {
		return nil, errors.New("journal: a transfer needs FromCustomerID")
	}
	return j.encodeAndDo(ctx, a, r)
}

// Fee records the fee, sends it and records its outcome, as
// [Journal.Charge] does.
func (j *Journal) Fee(ctx context.Context, r openpay.FeeRequest) (*openpay.Transaction, error) {
	a := attempt{Attempt: Attempt{Kind: KindFee, OrderID: r.OrderID, CustomerID: r.CustomerID, Amount: r.Amount, Variant: "FeeRequest"}}
	return j.encodeAndDo(ctx, a, r)
}

// Refund records the refund, sends it and records its outcome. The answer
// is the charge, refunded, with the refund nested (as the SDK's). A refund
// whose outcome is unknown is settled by a [Worker] by reading the charge
// back, and sent again only when the charge shows no refund at all.
func (j *Journal) Refund(ctx context.Context, r Refund) (*openpay.Transaction, error) {
	if r.ChargeID == "" || r.Key == "" {
		return nil, errors.New("journal: a refund needs ChargeID and Key")
	}
	a := attempt{Attempt: Attempt{Kind: KindRefund, OrderID: r.Key, ChargeID: r.ChargeID, CustomerID: r.CustomerID,
		Amount: r.Request.Amount, Variant: "RefundRequest"}}
	return j.encodeAndDo(ctx, a, r.Request)
}

// FeeRefund records the refund of a fee, sends it and records its outcome,
// as [Journal.Refund] does; the answer is the refund. It is kept as a
// refund attempt (kind refund, variant FeeRefundRequest) under the fee's
// id and the key: read it with [Journal.RefundAttempt](FeeID, Key). A
// [Worker] settles one whose outcome is unknown by reading the fee back,
// and sends it again only when the fee shows no refund.
func (j *Journal) FeeRefund(ctx context.Context, r FeeRefund) (*openpay.Transaction, error) {
	if r.FeeID == "" || r.Key == "" {
		return nil, errors.New("journal: a fee refund needs FeeID and Key")
	}
	a := attempt{Attempt: Attempt{Kind: KindRefund, OrderID: r.Key, ChargeID: r.FeeID, Variant: feeRefundVariant}}
	return j.encodeAndDo(ctx, a, r.Request)
}

// feeRefundVariant is the variant of a refund attempt that refunds a fee.
const feeRefundVariant = "FeeRefundRequest"

func chargeAttempt(c Charge) (attempt, error) {
	a := attempt{Attempt: Attempt{Kind: KindCharge, CustomerID: c.CustomerID}, clientIP: c.ClientIP}
	var body any
	// The request's own ClientIP is not part of its recorded JSON (it is
	// sent in a header): it is kept beside it, as Charge.ClientIP is.
	var ip string
	switch r := c.Request.(type) {
	case openpay.CardCharge:
		if r.CVV2 != "" {
			return a, ErrCardData
		}
		a.Variant, a.OrderID, a.Amount, a.Currency, a.Source, body, ip = "CardCharge", r.OrderID, r.Amount, r.Currency, r.SourceID, r, r.ClientIP
	case openpay.StoreCharge:
		a.Variant, a.OrderID, a.Amount, a.Currency, body, ip = "StoreCharge", r.OrderID, r.Amount, r.Currency, r, r.ClientIP
	case openpay.BankCharge:
		a.Variant, a.OrderID, a.Amount, body, ip = "BankCharge", r.OrderID, r.Amount, r, r.ClientIP
	case openpay.InlineCardCharge:
		return a, ErrCardData
	default:
		return a, fmt.Errorf("journal: charges of type %T are not journaled", c.Request)
	}
	if a.clientIP == "" {
		a.clientIP = ip
	}
	return a, a.encode(body)
}

func payoutAttempt(p Payout) (attempt, error) {
	a := attempt{Attempt: Attempt{Kind: KindPayout, CustomerID: p.CustomerID}}
	var body any
	switch r := p.Request.(type) {
	case openpay.BankAccountPayout:
		a.Variant, a.OrderID, a.Amount, a.Source, body = "BankAccountPayout", r.OrderID, r.Amount, r.DestinationID, r
	case openpay.CardPayout:
		a.Variant, a.OrderID, a.Amount, a.Source, body = "CardPayout", r.OrderID, r.Amount, r.DestinationID, r
	case openpay.InlineBankAccountPayout:
		// A CLABE is no card data: the request is kept as it is.
		a.Variant, a.OrderID, a.Amount, a.Source, body = "InlineBankAccountPayout", r.OrderID, r.Amount, r.BankAccount.CLABE, r
	case openpay.InlineCardPayout:
		return a, ErrCardData
	default:
		return a, fmt.Errorf("journal: payouts of type %T are not journaled", p.Request)
	}
	return a, a.encode(body)
}

func (a *attempt) encode(body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("journal: encoding the request: %w", err)
	}
	a.request = string(b)
	return nil
}

func (j *Journal) encodeAndDo(ctx context.Context, a attempt, body any) (*openpay.Transaction, error) {
	if err := a.encode(body); err != nil {
		return nil, err
	}
	return j.do(ctx, a)
}

// do claims a, sends it when the claim is new, and records the outcome.
func (j *Journal) do(ctx context.Context, a attempt) (*openpay.Transaction, error) {
	if a.OrderID == "" {
		return nil, fmt.Errorf("journal: a %s needs an order_id (a refund a Key): it is the attempt's key", a.Kind)
	}
	if a.Amount.IsZero() && a.Kind != KindRefund {
		return nil, fmt.Errorf("journal: a %s needs an amount", a.Kind)
	}
	claimed, existing, err := j.claim(ctx, &a)
	if err != nil {
		return nil, err
	}
	if !claimed {
		return joined(existing, &a)
	}
	if j.afterClaim != nil {
		j.afterClaim()
	}
	tx, err := j.send(ctx, &a)
	if j.afterSend != nil {
		j.afterSend()
	}
	if notSent(err) {
		// Refused by the SDK before sending (no client IP, bad input):
		// nothing reached the gateway, so the key is let go for the call
		// that fixes the request.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if _, derr := j.db.ExecContext(dctx, `DELETE FROM openpay_attempts WHERE charge_id = $1 AND attempt_key = $2 AND state = 'pending'`,
			a.ChargeID, a.OrderID); derr != nil {
			j.log.LogAttrs(ctx, slog.LevelError, "journal: letting go of an attempt not sent failed; a worker will settle it",
				slog.String("kind", string(a.Kind)), slog.String("order_id", a.OrderID), slog.String("error", derr.Error()))
		}
		return nil, err
	}
	state, tid, code, text := outcomeOf(a.Kind, tx, err)
	kept := tx
	var oe *openpay.Error
	if state == StateDeclined && errors.As(err, &oe) {
		kept = oe.Transaction
	}
	// The outcome is written even when the caller's context ended: the
	// call may have moved money.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if werr := j.record(wctx, &a, state, tid, code, text, kept); werr != nil {
		j.log.LogAttrs(ctx, slog.LevelError, "journal: writing the outcome failed; a worker will settle the attempt",
			slog.String("kind", string(a.Kind)), slog.String("order_id", a.OrderID), slog.String("state", string(state)), slog.String("error", werr.Error()))
	}
	if state == StateUnknown {
		j.log.LogAttrs(ctx, slog.LevelWarn, "journal: outcome unknown; a worker will settle it",
			slog.String("kind", string(a.Kind)), slog.String("order_id", a.OrderID), slog.String("amount", a.Amount.String()))
	}
	return tx, err
}

// claim inserts a as pending in one statement. claimed is false when the
// key is recorded already; existing is then its row.
func (j *Journal) claim(ctx context.Context, a *attempt) (claimed bool, existing *attempt, err error) {
	now := j.now()
	a.State, a.Created, a.Updated = StatePending, now, now
	res, err := j.db.ExecContext(ctx, `INSERT INTO openpay_attempts
	(charge_id, attempt_key, kind, variant, customer_id, amount, currency, source, request, client_ip, state, created_ms, updated_ms, next_ms)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11, $11, $12)
	ON CONFLICT (charge_id, attempt_key) DO NOTHING`,
		a.ChargeID, a.OrderID, string(a.Kind), a.Variant, a.CustomerID, a.Amount.String(), string(a.Currency), a.Source,
		a.request, a.clientIP, ms(now), ms(now.Add(j.settle)))
	if err != nil {
		return false, nil, fmt.Errorf("journal: claiming the attempt: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, nil, fmt.Errorf("journal: claiming the attempt: %w", err)
	}
	if n == 1 {
		return true, nil, nil
	}
	got, err := j.get(ctx, a.ChargeID, a.OrderID)
	if err != nil {
		return false, nil, err
	}
	return false, got, nil
}

// joined answers a call whose key was claimed already.
func joined(existing, a *attempt) (*openpay.Transaction, error) {
	if why := differs(existing, a); why != "" {
		return nil, &TermsConflictError{Existing: existing.Attempt, Differs: why}
	}
	var tx *openpay.Transaction
	if existing.result != "" {
		tx = new(openpay.Transaction)
		if err := json.Unmarshal([]byte(existing.result), tx); err != nil {
			return nil, fmt.Errorf("journal: reading the recorded transaction: %w", err)
		}
	}
	switch existing.State {
	case StateMade:
		return tx, nil
	case StateDeclined, StateRefused:
		return nil, existing.failure(tx)
	}
	return nil, ErrInProgress
}

// failure is the error a declined or refused attempt answers with: the
// gateway's error as recorded, matching its code with errors.Is.
func (a *attempt) failure(tx *openpay.Transaction) error {
	if a.ErrorCode == 0 {
		return fmt.Errorf("journal: the %s %.100q was %s: %s", a.Kind, a.OrderID, a.State, a.Error)
	}
	return &openpay.Error{Category: a.ErrorCode.Category(), Code: a.ErrorCode, Description: a.Error,
		HTTPStatus: a.ErrorCode.HTTPStatus(), Transaction: tx}
}

// differs names the first term in which b differs from a, or "".
func differs(a, b *attempt) string {
	switch {
	case a.Kind != b.Kind || a.Variant != b.Variant:
		return "kind"
	case !a.Amount.Equal(b.Amount):
		return "amount"
	case !strings.EqualFold(string(a.Currency), string(b.Currency)):
		return "currency"
	case a.Source != b.Source:
		return "source"
	case a.CustomerID != b.CustomerID:
		return "customer"
	}
	return ""
}

// outcomeOf sorts the answer to a sent attempt into a state.
func outcomeOf(kind Kind, tx *openpay.Transaction, err error) (state State, txID string, code openpay.Code, text string) {
	if err == nil {
		if tx == nil {
			return StateUnknown, "", 0, "no transaction in the answer"
		}
		id := tx.ID
		if kind == KindRefund && tx.Refund != nil {
			id = tx.Refund.ID
		}
		return StateMade, id, 0, ""
	}
	text = err.Error()
	var oe *openpay.Error
	var oc *openpay.OrderConflictError
	switch {
	case errors.Is(err, openpay.ErrOutcomeUnknown):
		return StateUnknown, "", 0, text
	case errors.As(err, &oc):
		return StateRefused, "", openpay.ErrDuplicateOrderID, text
	case openpay.ClassOf(err) == openpay.ClassDeclined && errors.As(err, &oe):
		if oe.Transaction != nil {
			txID = oe.Transaction.ID
		}
		return StateDeclined, txID, oe.Code, text
	case openpay.ClassOf(err) == openpay.ClassFault && errors.As(err, &oe) && oe.HTTPStatus >= 400 && oe.HTTPStatus < 500:
		// The gateway answered with a refusal: nothing was made.
		return StateRefused, "", oe.Code, text
	}
	return StateUnknown, "", 0, text
}

// notSent reports whether err is a refusal of the SDK before anything was
// sent: every answer of the gateway is an *openpay.Error with its status,
// every failure on the way a *openpay.TransportError, and an outcome the
// SDK settled or could not settle has a type of its own.
func notSent(err error) bool {
	if err == nil || errors.Is(err, openpay.ErrOutcomeUnknown) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var (
		oe *openpay.Error
		te *openpay.TransportError
		oc *openpay.OrderConflictError
	)
	switch {
	case errors.As(err, &te), errors.As(err, &oc):
		return false
	case errors.As(err, &oe):
		return oe.HTTPStatus == 0 && oe.RequestID == ""
	}
	return true
}

// record writes the outcome of a, unless a worker made it final first.
func (j *Journal) record(ctx context.Context, a *attempt, state State, txID string, code openpay.Code, text string, tx *openpay.Transaction) error {
	result := ""
	if tx != nil {
		b, err := json.Marshal(tx)
		if err == nil {
			result = string(b)
		}
	}
	now := j.now()
	next := ms(a.Created.Add(j.settle))
	if state == StateUnknown {
		next = ms(now) // looked up at once; re-sent only after the settle window
	}
	_, err := j.db.ExecContext(ctx, `UPDATE openpay_attempts SET state = $1, transaction_id = $2, error_code = $3, error_text = $4,
	result = $5, updated_ms = $6, next_ms = $7 WHERE charge_id = $8 AND attempt_key = $9 AND state IN ('pending', 'unknown')`,
		string(state), txID, int64(code), truncate(text, 500), result, ms(now), next, a.ChargeID, a.OrderID)
	if err != nil {
		return fmt.Errorf("journal: recording the outcome: %w", err)
	}
	a.State = state
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

const attemptColumns = `charge_id, attempt_key, kind, variant, customer_id, amount, currency, source, request, client_ip,
	state, transaction_id, error_code, error_text, result, tries, created_ms, updated_ms`

type scanner interface{ Scan(dest ...any) error }

func scanAttempt(s scanner) (*attempt, error) {
	var a attempt
	var kind, state, amount, currency string
	var code int64
	var created, updated int64
	if err := s.Scan(&a.ChargeID, &a.OrderID, &kind, &a.Variant, &a.CustomerID, &amount, &currency, &a.Source, &a.request, &a.clientIP,
		&state, &a.TransactionID, &code, &a.Error, &a.result, &a.Tries, &created, &updated); err != nil {
		return nil, err
	}
	amt, err := openpay.NewAmount(amount)
	if err != nil {
		return nil, fmt.Errorf("journal: stored amount %q: %w", amount, err)
	}
	a.Kind, a.State, a.Amount, a.Currency, a.ErrorCode = Kind(kind), State(state), amt, openpay.Currency(currency), openpay.Code(code)
	a.Created, a.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	return &a, nil
}

// get reads one attempt.
func (j *Journal) get(ctx context.Context, chargeID, key string) (*attempt, error) {
	row := j.db.QueryRowContext(ctx, `SELECT `+attemptColumns+` FROM openpay_attempts WHERE charge_id = $1 AND attempt_key = $2`, chargeID, key)
	a, err := scanAttempt(row)
	if err != nil {
		return nil, fmt.Errorf("journal: reading the attempt: %w", err)
	}
	return a, nil
}

// Attempt returns the attempt recorded under an order_id (for a refund,
// use [Journal.RefundAttempt]); the error matches sql.ErrNoRows when there
// is none.
func (j *Journal) Attempt(ctx context.Context, orderID string) (Attempt, error) {
	a, err := j.get(ctx, "", orderID)
	if err != nil {
		return Attempt{}, err
	}
	return a.Attempt, nil
}

// RefundAttempt returns the refund attempt recorded under a charge and key.
func (j *Journal) RefundAttempt(ctx context.Context, chargeID, key string) (Attempt, error) {
	a, err := j.get(ctx, chargeID, key)
	if err != nil {
		return Attempt{}, err
	}
	return a.Attempt, nil
}
