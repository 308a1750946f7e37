package openpay

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
)

// ChargeRequest is one of the charge variants:
//
//   - [CardCharge]: a saved card or a token (source_id), optionally with
//     3-D Secure, a payment plan, card points or capture=false.
//   - [InlineCardCharge]: card data in the request.
//   - [RedirectCharge]: the payer enters the card on the gateway's page.
//   - [StoreCharge]: cash at a convenience store, with a reference.
//   - [BankCharge]: a SPEI bank transfer, with a CLABE (Mexico).
//   - [PSECharge]: a PSE payment from the payer's bank (Colombia), with a
//     redirect to the bank.
//   - [AlipayCharge]: the wallet's redirect flow.
//   - [IVRCharge]: the payer keys the card in by phone.
//
// The set is closed: only these types implement it, and each carries only
// the fields its method accepts, so an impossible mix does not compile.
// The SDK sets each variant's method (and confirm) field itself.
type ChargeRequest interface {
	chargeRequest() (body any, want txExpectation)
}

func (r CardCharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodCard
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge, source: r.SourceID, token: true}
}

func (r InlineCardCharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodCard
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge, cardNumber: r.Card.CardNumber}
}

func (r RedirectCharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodCard
	r.Confirm = false
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge}
}

func (r StoreCharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodStore
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodStore, txType: TransactionTypeCharge}
}

func (r BankCharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodBankAccount
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodBankAccount, txType: TransactionTypeCharge}
}

// chargeRequest sends a PSE charge to the charges path, with method
// bank_account (the gateway also takes the /pse path; see
// docs/how-we-know.md). PSE has one currency, so an
// empty Currency is sent as COP: the expectation that reconciles a lost
// answer then names it.
func (r PSECharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodBankAccount
	if r.Currency == "" {
		r.Currency = CurrencyCOP
	}
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodBankAccount, txType: TransactionTypeCharge}
}

// ErrInvalidPSECharge is returned (wrapped), before anything is sent, for a
// PSE charge that cannot be one: without a RedirectURL (the bank has
// nowhere to send the payer back) or in a currency other than COP (PSE
// moves Colombian pesos only).
var ErrInvalidPSECharge = errors.New("openpay: invalid PSE charge")

// check refuses what no PSE charge can be (ErrInvalidPSECharge).
func (r PSECharge) check() error {
	switch {
	case strings.TrimSpace(r.RedirectURL) == "":
		return fmt.Errorf("%w: it needs a RedirectURL for the payer's return from the bank", ErrInvalidPSECharge)
	case r.Currency != "" && !strings.EqualFold(string(r.Currency), string(CurrencyCOP)):
		return fmt.Errorf("%w: its currency is COP, not %.10q", ErrInvalidPSECharge, string(r.Currency))
	}
	return nil
}

// checkCharge refuses a nil request, then runs the checks a charge variant
// makes before sending, for the variants that have some.
func checkCharge(req ChargeRequest) error {
	if err := checkRequest(req, "ChargeRequest"); err != nil {
		return err
	}
	if c, ok := req.(interface{ check() error }); ok {
		return c.check()
	}
	return nil
}

func (r AlipayCharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodAlipay
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodAlipay, txType: TransactionTypeCharge}
}

func (r IVRCharge) chargeRequest() (any, txExpectation) {
	r.Method = ChargeMethodCard
	r.Confirm = "ivr"
	return r, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge}
}

// ChargesService creates and manages charges, at the merchant level
// (Client.Charges) or for one customer (Client.Customer(id).Charges).
type ChargesService struct{ s scope }

// Create charges with one of the [ChargeRequest] variants. The gateway
// requires the payer's IP address: pass [WithClientIP] (or set
// [WithDefaultClientIP] on the client), else Create fails before sending
// with [ErrClientIPRequired].
//
// Give every charge an OrderID, one per payment attempt. Then a Create
// whose outcome is unknown (the connection dropped after sending, a server
// error) is retried, and the SDK settles it by looking the order_id up:
//   - the charge this call made is returned, once: the money moves once;
//   - if that charge was declined, the error is the decline ([ClassDeclined],
//     matching its code such as [ErrCardDeclined], with the failed charge in
//     [Error].Transaction), never a success;
//   - if the order_id is held by another transaction (another amount, card
//     or customer, or an earlier attempt such as a decline before the payer
//     tried another card), the error is an [*OrderConflictError]: this call
//     charged nothing, and a new attempt needs a new OrderID;
//   - if the lookup cannot tell, the error is an [*OutcomeUnknownError]:
//     settle the order later with [ChargesService.GetByOrderID].
//
// Without an OrderID such a failure returns an error matching
// [ErrOutcomeUnknown] and is not retried. A declined charge keeps its
// OrderID at the gateway, so the payer's next try (another card) must be
// sent with a new one, such as "order-42-2". A nil req fails before
// sending with [ErrNilRequest].
func (cs *ChargesService) Create(ctx context.Context, req ChargeRequest, opts ...CallOption) (*Transaction, error) {
	if err := checkCharge(req); err != nil {
		return nil, err
	}
	body, want := req.chargeRequest()
	return createTx(ctx, scopeOf(cs), apiRequest{body: body, needsClientIP: true}, want, opts, "charges")
}

// Get returns a charge, with its refund when it was refunded.
func (cs *ChargesService) Get(ctx context.Context, chargeID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodGet}, "charges", chargeID)
}

// GetByOrderID returns the charge holding orderID, whatever its status, or
// an error matching [ErrNotFound] when there is none. A recovery job calls
// it to settle an order whose Create ended in an [*OutcomeUnknownError]:
// a transaction found is the attempt's outcome (a failed one is a
// decline); none found means the gateway made nothing, and only then may
// the attempt be sent again with the same order_id.
func (cs *ChargesService) GetByOrderID(ctx context.Context, orderID string, opts ...CallOption) (*Transaction, error) {
	return getByOrderID(ctx, scopeOf(cs), orderID, opts, "charges")
}

// List iterates over the charges matching params (nil: all), newest first,
// fetching pages lazily as the loop advances. Each charge is yielded once,
// even while charges are made during the loop; [ListParams] says what a
// loop can miss.
func (cs *ChargesService) List(ctx context.Context, params *TransactionListParams, opts ...CallOption) iter.Seq2[*Transaction, error] {
	q, err := params.query()
	return iterOf[Transaction](ctx, scopeOf(cs), q, err, opts, "charges")
}

// ListPage returns one page of charges (params.Limit, default 10, from
// params.Offset).
func (cs *ChargesService) ListPage(ctx context.Context, params *TransactionListParams, opts ...CallOption) ([]Transaction, error) {
	q, err := params.query()
	return pageOf[Transaction](ctx, scopeOf(cs), q, err, opts, "charges")
}

// Update changes a charge's description or order ID (the members of req
// that are not empty); a new order ID must be unused, else
// [ErrDuplicateOrderID]. Openpay's API reference does not describe this
// operation. At the merchant level it also finds a customer's charge.
func (cs *ChargesService) Update(ctx context.Context, chargeID string, req ChargeUpdateRequest, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPut, body: req}, "charges", chargeID)
}

// Capture confirms a pre-authorization (a card charge made with
// Capture: Ptr(false)). A zero req.Amount captures the whole authorized
// amount; a smaller amount captures part of it. The charge becomes
// completed with the captured amount.
func (cs *ChargesService) Capture(ctx context.Context, chargeID string, req CaptureRequest, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost, body: req}, "charges", chargeID, "capture")
}

// Refund returns a card charge's money to the payer: all of it when
// req.Amount is zero, or part of it. The answer is the charge, refunded,
// with the refund transaction nested in its Refund field. Refunding a
// pre-authorization that was never captured cancels it.
func (cs *ChargesService) Refund(ctx context.Context, chargeID string, req RefundRequest, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost, body: req}, "charges", chargeID, "refund")
}

// Cancel cancels a charge still waiting for the payer (a redirect or 3-D
// Secure charge in charge_pending) or a pre-authorization.
func (cs *ChargesService) Cancel(ctx context.Context, chargeID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost}, "charges", chargeID, "cancel")
}
