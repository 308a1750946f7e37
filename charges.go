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
// The SDK writes each variant's method (and confirm, and a PSE charge's
// currency) itself: the types have no field for them.
//
// Every variant has a ClientIP field: the IP address of the payer's device
// (IPv4 or IPv6, with or without a port as in http.Request.RemoteAddr;
// [ClientIP] finds it in the payer's request), which the gateway requires
// on every charge for its anti-fraud checks. Empty takes the client's
// [WithDefaultClientIP]; with neither, Create fails before sending with
// [ErrClientIPRequired], and an address that is not one fails with an
// error matching [ErrInvalidClientIP].
type ChargeRequest interface {
	chargeRequest() (body any, want txExpectation, clientIP string)
}

func (r CardCharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"card"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge, source: r.SourceID, token: true}, r.ClientIP
}

func (r InlineCardCharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"card"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge, cardNumber: r.Card.CardNumber}, r.ClientIP
}

func (r RedirectCharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"card","confirm":false`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge}, r.ClientIP
}

func (r StoreCharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"store"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodStore, txType: TransactionTypeCharge}, r.ClientIP
}

func (r BankCharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"bank_account"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodBankAccount, txType: TransactionTypeCharge}, r.ClientIP
}

// chargeRequest sends a PSE charge to the charges path, with method
// bank_account (the gateway also takes the /pse path; see
// docs/how-we-know.md), and in COP, PSE's one currency: the expectation
// that reconciles a lost answer names it.
func (r PSECharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"bank_account","currency":"COP"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: CurrencyCOP, method: TransactionMethodBankAccount, txType: TransactionTypeCharge}, r.ClientIP
}

// ErrInvalidPSECharge is returned (wrapped), before anything is sent, for a
// PSE charge without a RedirectURL: the bank has nowhere to send the payer
// back.
var ErrInvalidPSECharge = errors.New("openpay: invalid PSE charge")

// check refuses what no PSE charge can be (ErrInvalidPSECharge).
func (r PSECharge) check() error {
	if strings.TrimSpace(r.RedirectURL) == "" {
		return fmt.Errorf("%w: it needs a RedirectURL for the payer's return from the bank", ErrInvalidPSECharge)
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

func (r AlipayCharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"alipay"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, method: TransactionMethodAlipay, txType: TransactionTypeCharge}, r.ClientIP
}

func (r IVRCharge) chargeRequest() (any, txExpectation, string) {
	return fixedBody{`"method":"card","confirm":"ivr"`, r}, txExpectation{orderID: r.OrderID, amount: r.Amount, currency: r.Currency, method: TransactionMethodCard, txType: TransactionTypeCharge}, r.ClientIP
}

// ChargesService creates and manages charges, at the merchant level
// (Client.Charges) or for one customer (Client.Customer(id).Charges).
type ChargesService struct{ s scope }

// Create charges with one of the [ChargeRequest] variants. The gateway
// requires the payer's IP address: set the request's ClientIP (or
// [WithDefaultClientIP] on the client), else Create fails before sending
// with [ErrClientIPRequired]. [WithClientIP] overrides both for one call.
//
// Give every charge an OrderID, one per payment attempt. Then a Create
// whose outcome is unknown (the connection dropped after sending, any
// server error, a 503 included) is retried, and any duplicate order_id it
// meets is looked up, at the merchant's scope too:
//   - the charge this call made is returned, once: the money moves once.
//     An exact re-send (the same OrderID, amount, card and customer) gets
//     the charge its first attempt made, so re-sending is idempotent;
//   - if that charge was declined, the error is the decline ([ClassDeclined],
//     matching its code such as [ErrCardDeclined], with the failed charge in
//     [Error].Transaction), never a success;
//   - if the order_id is held by another transaction (another amount, card
//     or customer), the error is an [*OrderConflictError]: this call
//     charged nothing, and a new attempt needs a new OrderID;
//   - if the lookup cannot tell, or the context ended first, the error is
//     an [*OutcomeUnknownError] ([ClassUnknown]): settle it by re-sending
//     the same request with the same OrderID, never a new one.
//
// Without an OrderID such a failure returns an error matching
// [ErrOutcomeUnknown] and is not retried. A declined charge keeps its
// OrderID at the gateway, so the payer's next try (another card) must be
// sent with a new one, such as "order-42-2". An amount of zero or less
// fails before sending with [ErrInvalidAmount], a nil req with
// [ErrNilRequest].
func (cs *ChargesService) Create(ctx context.Context, req ChargeRequest, opts ...CallOption) (*Transaction, error) {
	if err := checkCharge(req); err != nil {
		return nil, err
	}
	body, want, ip := req.chargeRequest()
	return createTx(ctx, scopeOf(cs), apiRequest{body: body, needsClientIP: true, clientIP: ip}, want, opts, "charges")
}

// Get returns a charge, with its refund when it was refunded.
func (cs *ChargesService) Get(ctx context.Context, chargeID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodGet}, "charges", chargeID)
}

// GetByOrderID returns the charge holding orderID, whatever its status, or
// an error matching [ErrNotFound] when there is none now. It only reads:
// [ErrNotFound] does not prove that nothing will be made, since an attempt
// may still be held at the gateway, so a recovery job settles an attempt
// left unknown by re-sending it with the same order_id (see
// [OutcomeUnknownError]), never with a new one. At a customer's scope it
// looks among that customer's charges, then at the merchant's: a holder
// there (another customer's, or the merchant's) is an
// [*OrderConflictError] carrying it, since order ids are unique across the
// merchant.
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
func (cs *ChargesService) ListPage(ctx context.Context, params *TransactionListParams, opts ...CallOption) ([]*Transaction, error) {
	q, err := params.query()
	return pageOf[Transaction](ctx, scopeOf(cs), q, err, opts, "charges")
}

// Update changes a charge's description or order ID (the members of req
// that are not empty); a new order ID must be unused, else
// [ErrDuplicateOrderID]. Stability: the gateway serves this operation but
// Openpay does not document it, so it may change without notice. At the merchant level it also finds a customer's charge.
func (cs *ChargesService) Update(ctx context.Context, chargeID string, req ChargeUpdateRequest, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPut, body: req}, "charges", chargeID)
}

// Capture confirms a pre-authorization (a card charge made with
// Capture: Ptr(false)). A zero req.Amount captures the whole authorized
// amount; a smaller amount captures part of it (a negative one fails
// before sending, with [ErrInvalidAmount]). The charge becomes completed
// with the captured amount.
func (cs *ChargesService) Capture(ctx context.Context, chargeID string, req CaptureRequest, opts ...CallOption) (*Transaction, error) {
	if err := notNegative(req.Amount); err != nil {
		return nil, err
	}
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost, body: req}, "charges", chargeID, "capture")
}

// Refund returns a card charge's money to the payer: all of it when
// req.Amount is zero, or part of it. The answer is the charge, refunded,
// with the refund transaction nested in its Refund field. Refunding a
// pre-authorization that was never captured cancels it. A negative amount
// fails before sending, with an error matching [ErrInvalidAmount].
//
// The gateway refunds a charge once (in whole or in part), so Refund is
// safe to repeat. When an answer is lost (no answer, a server error) the
// SDK never sends the refund again by itself: it reads the charge back,
// and a charge refunded by the amount asked is this call's success,
// returned with Reconciled set in [ResponseInfo]; an exact re-send after an
// [*OutcomeUnknownError], answered "already refunded", does the same. A
// charge refunded by another amount answers the gateway's error (this call
// refunded nothing). When the charge shows no refund yet after an answer
// that may have hidden one, the error is an [*OutcomeUnknownError]:
// re-send the same refund later to settle it.
func (cs *ChargesService) Refund(ctx context.Context, chargeID string, req RefundRequest, opts ...CallOption) (*Transaction, error) {
	return refund(ctx, scopeOf(cs), apiRequest{opts: opts, body: req}, refundCheck{amount: req.Amount}, "charges", chargeID, "refund")
}

// Cancel cancels a charge still waiting for the payer (a redirect or 3-D
// Secure charge in charge_pending) or a pre-authorization.
func (cs *ChargesService) Cancel(ctx context.Context, chargeID string, opts ...CallOption) (*Transaction, error) {
	return call[Transaction](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodPost}, "charges", chargeID, "cancel")
}
