package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/openpay-go/openpay"
)

// OrderStatus is where an order stands.
type OrderStatus string

// The states of an order.
const (
	OrderUnpaid   OrderStatus = "unpaid"   // nothing paid yet; the payer may (try again to) pay
	OrderPending  OrderStatus = "pending"  // waiting for the payer: cash at a store, or the bank's 3-D Secure page
	OrderPaid     OrderStatus = "paid"     // one charge completed for the whole total
	OrderRefunded OrderStatus = "refunded" // paid, then refunded (in whole or in part: a charge is refunded once)
)

// AttemptStatus is what became of one payment attempt.
type AttemptStatus string

// The states of a payment attempt.
const (
	AttemptSending   AttemptStatus = "sending"   // the charge request is on its way
	AttemptPending   AttemptStatus = "pending"   // the charge waits for the payer; its webhook will tell
	AttemptPaid      AttemptStatus = "paid"      // the charge completed
	AttemptDeclined  AttemptStatus = "declined"  // the bank or the card refused it
	AttemptCancelled AttemptStatus = "cancelled" // the store reference expired, or the payer gave up
	AttemptRefused   AttemptStatus = "refused"   // the gateway refused the request: nothing was charged
	AttemptUnknown   AttemptStatus = "unknown"   // the answer was lost and could not be looked up yet
	AttemptConflict  AttemptStatus = "conflict"  // the attempt id was used before: a bug in the shop
)

// Payment methods of an attempt.
const (
	MethodCard  = "card"
	MethodStore = "store"
)

// Attempt is one try at paying an order. Its ID is the order_id the charge
// carries at the gateway: unique per attempt, because the gateway keeps a
// declined charge's order_id for good.
type Attempt struct {
	ID       string        `json:"id"`
	Method   string        `json:"method"`
	Status   AttemptStatus `json:"status"`
	ChargeID string        `json:"charge_id,omitempty"`
	// Created is when the gateway created the charge (its clock).
	Created time.Time `json:"created,omitzero"`
	// Reason says why the attempt was declined or refused.
	Reason string `json:"reason,omitempty"`
	// Reference is what the payer takes to the store (cash payments).
	Reference string `json:"reference,omitempty"`
	// RedirectURL is the bank's 3-D Secure page, when the bank asks for it.
	RedirectURL string `json:"redirect_url,omitempty"`

	// request and clientIP are the charge request as it was sent, and
	// the payer's address: the recovery job settles an unknown attempt by
	// re-sending exactly this (a real shop keeps them with the attempt in
	// its database, the token id included: the gateway keeps the order_id,
	// so a re-send never charges twice).
	request  openpay.ChargeRequest
	clientIP string
}

// Order is one purchase.
type Order struct {
	ID          string                 `json:"id"`
	Description string                 `json:"description"`
	Total       openpay.Amount         `json:"total"`
	Customer    openpay.ChargeCustomer `json:"customer"`
	Status      OrderStatus            `json:"status"`
	Attempts    []Attempt              `json:"attempts"`
	// PaidBy is the charge that paid the order.
	PaidBy string `json:"paid_by,omitempty"`
	// Refunded is how much of the total was given back; RefundIDs are the
	// gateway's refunds.
	Refunded  openpay.Amount `json:"refunded"`
	RefundIDs []string       `json:"refund_ids,omitempty"`
}

// The shop's own errors.
var (
	ErrOrderNotFound     = errors.New("shop: no such order")
	ErrAlreadyPaid       = errors.New("shop: the order is already paid")
	ErrPaymentInProgress = errors.New("shop: a payment of the order is still open (at a store, at the bank, or being checked)")
	ErrNotPaid           = errors.New("shop: the order is not paid")
	ErrRefundTooLarge    = errors.New("shop: the refund is larger than the payment")
	ErrAlreadyRefunded   = errors.New("shop: the payment was refunded already (the gateway refunds a charge once)")
	ErrCashRefund        = errors.New("shop: a cash payment is refunded outside the gateway")
)

// Config is what the shop needs.
type Config struct {
	// Client calls the gateway with the private key.
	Client *openpay.Client
	// OrderPrefix starts every order id: "order" gives order-1, order-2,
	// ... The gateway keeps order ids forever, so a shop whose store starts
	// empty (this one keeps orders in memory) needs a new prefix at each start.
	OrderPrefix string
	// ReturnURL is where the bank sends the payer back after 3-D Secure.
	ReturnURL string
	// OnPaid is called once for each order that becomes paid: ship it.
	OnPaid func(Order)
	// Logger receives what needs a person's attention (nil: slog's default).
	Logger *slog.Logger
}

// Shop is a merchant backend: orders, payments and the jobs that keep them
// right. Orders are kept in memory; a real shop keeps them in its database,
// with the same rules.
type Shop struct {
	cfg Config
	c   *openpay.Client
	log *slog.Logger

	mu       sync.Mutex
	orders   map[string]*Order
	attempts map[string]string // attempt id (the charge's order_id) -> order id
	next     int
}

// New returns a shop with no orders.
func New(cfg Config) *Shop {
	if cfg.OrderPrefix == "" {
		cfg.OrderPrefix = "order"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Shop{cfg: cfg, c: cfg.Client, log: log, orders: map[string]*Order{}, attempts: map[string]string{}}
}

// NewOrder records an order for total, waiting to be paid.
func (s *Shop) NewOrder(description string, total openpay.Amount, customer openpay.ChargeCustomer) (Order, error) {
	if !total.IsPositive() || !total.HasValidPrecision() {
		return Order{}, fmt.Errorf("shop: an order's total must be positive with at most two decimals, not %s", total)
	}
	if !utf8.ValidString(description + customer.Name + customer.LastName + customer.Email) {
		return Order{}, errors.New("shop: the description and the customer's name and e-mail must be valid UTF-8")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	o := &Order{ID: fmt.Sprintf("%s-%d", s.cfg.OrderPrefix, s.next), Description: description, Total: total,
		Customer: customer, Status: OrderUnpaid}
	s.orders[o.ID] = o
	return o.clone(), nil
}

// Order returns a copy of the order.
func (s *Shop) Order(id string) (Order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return Order{}, false
	}
	return o.clone(), true
}

// PayByCard charges the token the payer's browser made from the card, under
// a new attempt id. A decline leaves the order unpaid, and the payer may try
// another card. The returned error says what happened to the attempt; the
// order says where the payment stands. r is the payer's request, for the
// address the gateway's anti-fraud needs.
func (s *Shop) PayByCard(ctx context.Context, orderID, tokenID, deviceSessionID string, r *http.Request) (Order, error) {
	// redirect_url goes with every card charge: the bank may ask for 3-D
	// Secure even when the shop did not.
	return s.pay(ctx, orderID, MethodCard, r, func(o Order, attemptID string) openpay.ChargeRequest {
		return openpay.CardCharge{SourceID: tokenID, DeviceSessionID: deviceSessionID, Amount: o.Total,
			Description: o.Description, OrderID: attemptID, Customer: &o.Customer, RedirectURL: s.cfg.ReturnURL}
	})
}

// pay starts an attempt of the order with the request build makes, sends
// it with the payer's address (behind a proxy: WithClientIPFrom(r,
// yourProxyRanges...) finds it) and records the outcome.
func (s *Shop) pay(ctx context.Context, orderID, method string, r *http.Request, build func(o Order, attemptID string) openpay.ChargeRequest) (Order, error) {
	ip, err := openpay.ClientIP(r)
	if err != nil {
		return Order{}, err
	}
	attemptID, req, err := s.startAttempt(orderID, method, ip, build)
	if err != nil {
		return Order{}, err
	}
	charge, err := s.c.Charges.Create(ctx, req, openpay.WithClientIP(ip))
	err = s.finishAttempt(attemptID, AttemptSending, charge, err)
	o, _ := s.Order(orderID)
	if err != nil {
		return o, fmt.Errorf("order %s, attempt %s: %w", orderID, attemptID, err)
	}
	return o, nil
}

// PayAtStore makes a cash payment: the payer takes the reference (and its
// barcode) to a convenience store before the due date. The order is paid
// when the gateway's charge.succeeded webhook arrives; an unpaid reference
// expires at the gateway's due date (charge.cancelled), and the payer may
// then pay again.
func (s *Shop) PayAtStore(ctx context.Context, orderID string, r *http.Request) (Order, error) {
	return s.pay(ctx, orderID, MethodStore, r, func(o Order, attemptID string) openpay.ChargeRequest {
		return openpay.StoreCharge{Amount: o.Total, Description: o.Description, OrderID: attemptID, Customer: &o.Customer}
	})
}

// startAttempt records a new attempt of the order, numbered after the
// previous ones: order-42-1, order-42-2, ... An order that is paid, or whose
// previous attempt is still open, takes no new attempt: a second payment
// could then go through as well.
func (s *Shop) startAttempt(orderID, method, clientIP string, build func(o Order, attemptID string) openpay.ChargeRequest) (string, openpay.ChargeRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[orderID]
	switch {
	case !ok:
		return "", nil, ErrOrderNotFound
	case o.PaidBy != "":
		return "", nil, ErrAlreadyPaid
	}
	for _, a := range o.Attempts {
		if a.Status == AttemptSending || a.Status == AttemptPending || a.Status == AttemptUnknown {
			return "", nil, ErrPaymentInProgress
		}
	}
	id := fmt.Sprintf("%s-%d", o.ID, len(o.Attempts)+1)
	req := build(o.clone(), id)
	o.Attempts = append(o.Attempts, Attempt{ID: id, Method: method, Status: AttemptSending, request: req, clientIP: clientIP})
	s.attempts[id] = o.ID
	return id, req, nil
}

// finishAttempt records the outcome of a charge request for an attempt in
// status from (sending, or unknown when the recovery job re-sent it), as
// openpay.ClassOf sorts it, and returns the error when there is one.
func (s *Shop) finishAttempt(attemptID string, from AttemptStatus, charge *openpay.Transaction, err error) error {
	var conflict *openpay.OrderConflictError
	var oe *openpay.Error
	switch openpay.ClassOf(err) {
	case openpay.ClassNone:
		s.applyCharge(charge)
		return nil
	case openpay.ClassUnknown:
		// The gateway may have charged the card, or may still: the
		// recovery job settles it by re-sending this very attempt. No new
		// attempt starts meanwhile.
		s.log.Warn("payment outcome unknown; the recovery job will settle it", "attempt", attemptID, "err", err)
		s.setAttempt(attemptID, from, AttemptUnknown, "")
	case openpay.ClassDeclined:
		reason := err.Error()
		if errors.As(err, &oe) {
			reason = oe.Description
		}
		s.setAttempt(attemptID, from, AttemptDeclined, reason)
	default:
		if errors.As(err, &conflict) {
			// Another transaction holds the attempt id: attempt numbering
			// is broken. The gateway made nothing for this request.
			s.log.Error("shop bug: a payment attempt id was used twice", "attempt", attemptID)
			s.setAttempt(attemptID, from, AttemptConflict, "attempt id already used")
			break
		}
		// The request was refused (a used token, a bad amount), or failed
		// where nothing was done: nothing was charged.
		s.setAttempt(attemptID, from, AttemptRefused, err.Error())
	}
	return err
}

// setAttempt moves an attempt from one status to another. An attempt that
// has moved on meanwhile (a webhook came first) is left alone.
func (s *Shop) setAttempt(attemptID string, from, to AttemptStatus, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, a := s.attemptLocked(attemptID); a != nil && a.Status == from {
		a.Status, a.Reason = to, reason
		o.refresh()
	}
}

// applyCharge records what the gateway says of a charge of one of the
// shop's attempts: whatever told the shop (the answer to the request, a
// webhook, the recovery job), the same charge leads to the same state, so
// hearing of it twice changes nothing.
func (s *Shop) applyCharge(ch *openpay.Transaction) {
	var paid Order
	s.mu.Lock()
	o, a := s.attemptLocked(ch.OrderID)
	if a == nil {
		s.mu.Unlock()
		s.log.Info("a charge that is not one of the shop's attempts", "charge", ch.ID)
		return
	}
	a.ChargeID, a.Created = ch.ID, ch.CreationDate
	switch ch.Status {
	case openpay.TransactionStatusCompleted:
		a.Status, a.Reason = AttemptPaid, ""
		switch {
		case ch.Amount.Cmp(o.Total) != 0:
			s.log.Error("a charge for another amount than the order's", "order", o.ID, "charge", ch.ID, "amount", ch.Amount)
		case o.PaidBy == "":
			o.PaidBy = ch.ID
			paid = o.clone()
		case o.PaidBy != ch.ID:
			s.log.Error("order paid twice: refund one of the charges", "order", o.ID, "paid_by", o.PaidBy, "charge", ch.ID)
		}
	case openpay.TransactionStatusChargePending, openpay.TransactionStatusInProgress:
		// A charge only moves on: an answer read before the webhook's does
		// not undo it.
		if a.Status != AttemptPaid && a.Status != AttemptDeclined && a.Status != AttemptCancelled {
			a.Status = AttemptPending
		}
		if pm := ch.PaymentMethod; pm != nil {
			a.Reference, a.RedirectURL = pm.Reference, pm.URL
		}
	case openpay.TransactionStatusFailed:
		a.Status, a.Reason = AttemptDeclined, ch.ErrorMessage
	case openpay.TransactionStatusCancelled:
		a.Status = AttemptCancelled
	}
	o.refresh()
	s.mu.Unlock()
	if paid.ID != "" && s.cfg.OnPaid != nil {
		s.cfg.OnPaid(paid)
	}
}

// Refund gives back amount of a paid order (zero: all of it). The gateway
// refunds a charge once, in whole or in part, so an order takes one
// refund. A refund is safe to repeat: when its answer is lost the SDK reads
// the charge back, and the same refund sent again returns the refund
// already made rather than making a second.
func (s *Shop) Refund(ctx context.Context, orderID string, amount openpay.Amount) (Order, error) {
	s.mu.Lock()
	o, ok := s.orders[orderID]
	if !ok {
		s.mu.Unlock()
		return Order{}, ErrOrderNotFound
	}
	chargeID, total, refunded := o.PaidBy, o.Total, o.Refunded
	cash := slices.ContainsFunc(o.Attempts, func(a Attempt) bool { return a.ChargeID == chargeID && a.Method == MethodStore })
	s.mu.Unlock()
	switch {
	case chargeID == "":
		return Order{}, ErrNotPaid
	case cash:
		return Order{}, ErrCashRefund
	case refunded.IsPositive():
		return Order{}, fmt.Errorf("%w: %s of %s", ErrAlreadyRefunded, refunded, chargeID)
	case amount.IsZero():
		amount = total
	case amount.Cmp(total) > 0 || !amount.IsPositive():
		return Order{}, fmt.Errorf("%w: %s paid by %s", ErrRefundTooLarge, total, chargeID)
	}

	ch, err := s.c.Charges.Refund(ctx, chargeID, openpay.RefundRequest{Amount: amount, Description: "Refund of order " + orderID})
	if openpay.ClassOf(err) == openpay.ClassUnknown {
		// Settle it by sending the same refund again (an operator's
		// retry): the gateway makes it once.
		return Order{}, fmt.Errorf("refund of order %s may have been made; send the same refund again to settle it: %w", orderID, err)
	}
	if err != nil {
		return Order{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := ch.Refund; r != nil && !slices.Contains(o.RefundIDs, r.ID) {
		o.RefundIDs = append(o.RefundIDs, r.ID)
		o.Refunded = o.Refunded.Add(r.Amount)
		o.refresh()
	}
	return o.clone(), nil
}

// attemptLocked finds an attempt by its id, the charge's order_id. The
// caller holds s.mu.
func (s *Shop) attemptLocked(attemptID string) (*Order, *Attempt) {
	o, ok := s.orders[s.attempts[attemptID]]
	if !ok {
		return nil, nil
	}
	for i := range o.Attempts {
		if o.Attempts[i].ID == attemptID {
			return o, &o.Attempts[i]
		}
	}
	return nil, nil
}

// refresh sets the order's status from its payment and attempts.
func (o *Order) refresh() {
	switch {
	case o.PaidBy != "" && o.Refunded.IsPositive():
		o.Status = OrderRefunded
	case o.PaidBy != "":
		o.Status = OrderPaid
	case slices.ContainsFunc(o.Attempts, func(a Attempt) bool { return a.Status == AttemptPending }):
		o.Status = OrderPending
	default:
		o.Status = OrderUnpaid
	}
}

func (o *Order) clone() Order {
	c := *o
	c.Attempts = slices.Clone(o.Attempts)
	c.RefundIDs = slices.Clone(o.RefundIDs)
	return c
}
