package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/openpay-go/openpay"
)

// OpKind is what a money movement of the marketplace does.
type OpKind string

// The movements of the marketplace.
const (
	KindCharge           OpKind = "charge"            // the buyer pays the order into the seller's account
	KindCommission       OpKind = "commission"        // the platform's fee, from the seller's account
	KindSplit            OpKind = "split"             // a transfer from one seller to another
	KindPayout           OpKind = "payout"            // a seller's balance out to the seller's bank (CLABE)
	KindRefund           OpKind = "refund"            // the buyer's money back, from the seller's account
	KindCommissionRefund OpKind = "commission_refund" // the platform's fee back to the seller
)

// OpStatus is where a money movement stands.
type OpStatus string

// The states of a movement.
const (
	OpSending  OpStatus = "sending"  // the request is on its way
	OpDone     OpStatus = "done"     // the gateway made it (a charge may still wait for the payer: see Pending)
	OpDeclined OpStatus = "declined" // the card or bank refused: nothing moved
	OpRefused  OpStatus = "refused"  // the gateway refused the request: nothing moved
	OpUnknown  OpStatus = "unknown"  // the gateway may have acted: the recovery job settles it by re-sending
	OpConflict OpStatus = "conflict" // another transaction holds its id: a bug in the marketplace
)

// Op is one money movement the marketplace asked the gateway for. Its ID
// is the order_id the request carries (a refund has none: the gateway
// refunds a charge once, which makes it safe to re-send as well).
type Op struct {
	ID     string
	Kind   OpKind
	Order  string // the order it belongs to, if any
	Seller string // the seller whose account it moves money in or out of
	To     string // the receiving seller of a split
	Amount openpay.Amount
	Status OpStatus
	TxID   string
	Reason string

	// send sends the request exactly as it was first sent: the recovery
	// job settles an unknown movement by calling it again. A real
	// marketplace keeps the request with the movement in its database.
	send func(context.Context) (*openpay.Transaction, error)
}

// Order is a buyer's purchase from one seller.
type Order struct {
	ID     string
	Seller string
	Total  openpay.Amount
	// Attempts are the ids of the order's payment attempts (charge ops),
	// one order_id each: the gateway keeps a declined charge's order_id.
	Attempts []string
	// Charge, Commission, Refund and CommissionRefund are the ids of the
	// order's movements once started.
	Charge, Commission, Refund, CommissionRefund string
}

// Config is what the marketplace needs.
type Config struct {
	// Client calls the gateway with the private key.
	Client *openpay.Client
	// Prefix starts every order_id the marketplace sends; the gateway
	// keeps order ids for good, so a marketplace that starts empty needs a
	// new one at each start.
	Prefix string
	// CommissionPercent is the platform's cut of each order (whole cents,
	// rounded down).
	CommissionPercent int64
	// Logger receives what needs attention (nil: slog's default).
	Logger *slog.Logger
}

// Marketplace is the backend of a marketplace: sellers are customers with
// their own balance; a buyer pays a seller's order into the seller's
// account; the platform takes a commission as a fee on the seller; sellers
// split revenue by transfers and are paid out to their CLABE. Its state
// is kept in memory; a real one keeps it in its database, with the same
// rules.
type Marketplace struct {
	cfg Config
	c   *openpay.Client
	log *slog.Logger

	mu      sync.Mutex
	sellers map[string]string // customer id -> name
	orders  map[string]*Order
	ops     map[string]*Op
	next    int
}

// The marketplace's own errors.
var (
	ErrNoSuchOrder       = errors.New("marketplace: no such order")
	ErrNoSuchSeller      = errors.New("marketplace: no such seller")
	ErrAlreadyPaid       = errors.New("marketplace: the order is paid")
	ErrPaymentInProgress = errors.New("marketplace: a payment of the order is still being settled")
	ErrNotPaid           = errors.New("marketplace: the order is not paid")
	ErrAlreadyRefunded   = errors.New("marketplace: the order was refunded (the gateway refunds a charge once)")
)

// New returns an empty marketplace.
func New(cfg Config) *Marketplace {
	if cfg.Prefix == "" {
		cfg.Prefix = "mkt"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Marketplace{cfg: cfg, c: cfg.Client, log: log, sellers: map[string]string{}, orders: map[string]*Order{}, ops: map[string]*Op{}}
}

// AddSeller creates a seller: a customer with an account (a balance and a
// CLABE) at the gateway.
func (m *Marketplace) AddSeller(ctx context.Context, name, email string) (string, error) {
	cu, err := m.c.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: email, RequiresAccount: true})
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sellers[cu.ID] = name
	return cu.ID, nil
}

// NewOrder records an order of total from seller, waiting to be paid.
func (m *Marketplace) NewOrder(seller string, total openpay.Amount) (string, error) {
	if !total.IsPositive() || !total.HasValidPrecision() {
		return "", fmt.Errorf("marketplace: an order's total must be positive with at most two decimals, not %s", total)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sellers[seller]; !ok {
		return "", ErrNoSuchSeller
	}
	m.next++
	o := &Order{ID: fmt.Sprintf("%s-o%d", m.cfg.Prefix, m.next), Seller: seller, Total: total}
	m.orders[o.ID] = o
	return o.ID, nil
}

// Pay charges the buyer's token for the order, into the seller's account,
// under a new attempt id, and takes the commission once the charge is
// made. A decline leaves the order unpaid: the buyer may pay again. While
// an attempt is unknown no new one starts: the recovery job settles it.
func (m *Marketplace) Pay(ctx context.Context, orderID, tokenID, deviceSessionID, clientIP string) error {
	m.mu.Lock()
	o, ok := m.orders[orderID]
	if !ok {
		m.mu.Unlock()
		return ErrNoSuchOrder
	}
	if o.Charge != "" {
		m.mu.Unlock()
		return ErrAlreadyPaid
	}
	for _, id := range o.Attempts {
		if s := m.ops[id].Status; s == OpSending || s == OpUnknown {
			m.mu.Unlock()
			return ErrPaymentInProgress
		}
	}
	id := fmt.Sprintf("%s-pay%d", o.ID, len(o.Attempts)+1)
	o.Attempts = append(o.Attempts, id)
	req := openpay.CardCharge{SourceID: tokenID, DeviceSessionID: deviceSessionID, Amount: o.Total,
		Description: "Order " + o.ID, OrderID: id}
	charges := m.c.Customer(o.Seller).Charges
	op := m.startLocked(&Op{ID: id, Kind: KindCharge, Order: o.ID, Seller: o.Seller, Amount: o.Total,
		send: func(ctx context.Context) (*openpay.Transaction, error) {
			return charges.Create(ctx, req, openpay.WithClientIP(clientIP))
		}})
	m.mu.Unlock()
	err := m.run(ctx, op)
	if err == nil {
		err = m.advance(ctx, orderID)
	}
	return err
}

// Split moves amount from one seller's account to another's (a share of
// revenue), under its own order_id.
func (m *Marketplace) Split(ctx context.Context, from, to string, amount openpay.Amount, description string) (string, error) {
	m.mu.Lock()
	if m.sellers[from] == "" || m.sellers[to] == "" {
		m.mu.Unlock()
		return "", ErrNoSuchSeller
	}
	m.next++
	id := fmt.Sprintf("%s-split%d", m.cfg.Prefix, m.next)
	req := openpay.TransferRequest{CustomerID: to, Amount: amount, Description: description, OrderID: id}
	transfers := m.c.Customer(from).Transfers
	op := m.startLocked(&Op{ID: id, Kind: KindSplit, Seller: from, To: to, Amount: amount,
		send: func(ctx context.Context) (*openpay.Transaction, error) { return transfers.Create(ctx, req) }})
	m.mu.Unlock()
	return id, m.run(ctx, op)
}

// Payout pays amount of a seller's balance out to the seller's bank
// account, under its own order_id. A balance too small answers
// openpay.ErrMerchantInsufficientFunds (4001): the seller's shortfall.
func (m *Marketplace) Payout(ctx context.Context, seller string, amount openpay.Amount, clabe, holder string) (string, error) {
	m.mu.Lock()
	if m.sellers[seller] == "" {
		m.mu.Unlock()
		return "", ErrNoSuchSeller
	}
	m.next++
	id := fmt.Sprintf("%s-payout%d", m.cfg.Prefix, m.next)
	req := openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{CLABE: clabe, HolderName: holder},
		Amount: amount, Description: "Payout " + id, OrderID: id}
	payouts := m.c.Customer(seller).Payouts
	op := m.startLocked(&Op{ID: id, Kind: KindPayout, Seller: seller, Amount: amount,
		send: func(ctx context.Context) (*openpay.Transaction, error) { return payouts.Create(ctx, req) }})
	m.mu.Unlock()
	return id, m.run(ctx, op)
}

// Refund gives the buyer amount of a paid order back (zero: all of it),
// from the seller's account; a whole refund gives the seller the
// commission back too. The gateway refunds a charge once, so an order takes
// one refund; an unknown refund is settled by the recovery job re-sending
// it, which returns the refund made rather than making a second.
func (m *Marketplace) Refund(ctx context.Context, orderID string, amount openpay.Amount) error {
	m.mu.Lock()
	o, ok := m.orders[orderID]
	switch {
	case !ok:
		m.mu.Unlock()
		return ErrNoSuchOrder
	case o.Charge == "" || m.ops[o.Charge].Status != OpDone:
		m.mu.Unlock()
		return ErrNotPaid
	case o.Refund != "" && m.ops[o.Refund].Status != OpRefused:
		m.mu.Unlock()
		return ErrAlreadyRefunded
	}
	if amount.IsZero() {
		amount = o.Total
	}
	chargeID := m.ops[o.Charge].TxID
	req := openpay.RefundRequest{Amount: amount, Description: "Refund of " + o.ID}
	charges := m.c.Customer(o.Seller).Charges
	o.Refund = o.ID + "-refund"
	op := m.startLocked(&Op{ID: o.Refund, Kind: KindRefund, Order: o.ID, Seller: o.Seller, Amount: amount,
		send: func(ctx context.Context) (*openpay.Transaction, error) { return charges.Refund(ctx, chargeID, req) }})
	m.mu.Unlock()
	err := m.run(ctx, op)
	if err == nil {
		err = m.advance(ctx, orderID)
	}
	return err
}

// startLocked records op, sending. The caller holds m.mu.
func (m *Marketplace) startLocked(op *Op) *Op {
	op.Status = OpSending
	m.ops[op.ID] = op
	return op
}

// run sends op (again, for the recovery job) and records its outcome as
// openpay.ClassOf sorts it; the error is the call's.
func (m *Marketplace) run(ctx context.Context, op *Op) error {
	tx, err := op.send(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	var conflict *openpay.OrderConflictError
	switch openpay.ClassOf(err) {
	case openpay.ClassNone:
		op.Status, op.TxID, op.Reason = OpDone, tx.ID, ""
		if op.Kind == KindRefund || op.Kind == KindCommissionRefund {
			op.TxID = refundID(tx)
		}
	case openpay.ClassUnknown:
		// Settle first: the recovery job re-sends this very request.
		m.log.Warn("outcome unknown; the recovery job will settle it", "op", op.ID, "err", err)
		op.Status = OpUnknown
	case openpay.ClassDeclined:
		op.Status, op.Reason = OpDeclined, err.Error()
	default:
		op.Status, op.Reason = OpRefused, err.Error()
		if errors.As(err, &conflict) {
			m.log.Error("marketplace bug: an order_id was used twice", "op", op.ID)
			op.Status = OpConflict
		}
	}
	if op.Status == OpDone || op.Status == OpUnknown {
		m.linkLocked(op)
	}
	return err
}

// refundID is the id of the refund a refund call answered: the charge
// nests it; a fee refund is answered with it.
func refundID(tx *openpay.Transaction) string {
	if tx.Refund != nil {
		return tx.Refund.ID
	}
	return tx.ID
}

// linkLocked records a charge made (or maybe made) as the order's payment.
// The caller holds m.mu.
func (m *Marketplace) linkLocked(op *Op) {
	if o := m.orders[op.Order]; o != nil && op.Kind == KindCharge && op.Status == OpDone {
		o.Charge = op.ID
	}
}

// advance starts what follows a settled movement of the order: the
// commission once the charge is made, the commission's refund once the
// whole charge is refunded. Each is sent once, under its own order_id, and
// settled like every movement.
func (m *Marketplace) advance(ctx context.Context, orderID string) error {
	m.mu.Lock()
	o := m.orders[orderID]
	var op *Op
	switch {
	case o.Charge != "" && o.Commission == "":
		o.Commission = o.ID + "-fee"
		cents, _ := o.Total.Cents()
		req := openpay.FeeRequest{CustomerID: o.Seller, Amount: openpay.AmountFromCents(cents * m.cfg.CommissionPercent / 100),
			Description: "Commission on " + o.ID, OrderID: o.Commission}
		fees := m.c.Fees
		op = m.startLocked(&Op{ID: o.Commission, Kind: KindCommission, Order: o.ID, Seller: o.Seller, Amount: req.Amount,
			send: func(ctx context.Context) (*openpay.Transaction, error) { return fees.Create(ctx, req) }})
	case o.Refund != "" && m.ops[o.Refund].Status == OpDone && m.ops[o.Refund].Amount.Equal(o.Total) &&
		o.Commission != "" && m.ops[o.Commission].Status == OpDone && o.CommissionRefund == "":
		o.CommissionRefund = o.ID + "-fee-refund"
		fee := m.ops[o.Commission]
		fees := m.c.Fees
		op = m.startLocked(&Op{ID: o.CommissionRefund, Kind: KindCommissionRefund, Order: o.ID, Seller: o.Seller, Amount: fee.Amount,
			send: func(ctx context.Context) (*openpay.Transaction, error) {
				return fees.Refund(ctx, fee.TxID, openpay.FeeRefundRequest{Description: "Commission back on " + orderID})
			}})
	}
	m.mu.Unlock()
	if op == nil {
		return nil
	}
	return m.run(ctx, op)
}

// Recover settles every movement whose outcome is unknown by re-sending
// it exactly as it was first sent, with the same order_id (or the same
// refund), then starts what follows. Run it every few minutes. A re-send
// is idempotent: it returns what the first attempt made, or makes it once
// if it made nothing, even while that attempt is still held at the gateway.
// It never starts a movement under a new order_id. Movements it cannot
// settle yet stay unknown for the next run.
func (m *Marketplace) Recover(ctx context.Context) error {
	m.mu.Lock()
	var unknown []*Op
	for _, id := range slices.Sorted(maps.Keys(m.ops)) {
		if op := m.ops[id]; op.Status == OpUnknown {
			unknown = append(unknown, op)
		}
	}
	m.mu.Unlock()
	var errs []error
	for _, op := range unknown {
		if err := m.run(ctx, op); openpay.ClassOf(err) == openpay.ClassUnknown {
			errs = append(errs, fmt.Errorf("%s: %w", op.ID, err))
		}
	}
	// What follows the movements settled now (commissions, their refunds).
	m.mu.Lock()
	orders := slices.Sorted(maps.Keys(m.orders))
	m.mu.Unlock()
	for _, id := range orders {
		if err := m.advance(ctx, id); openpay.ClassOf(err) == openpay.ClassUnknown {
			errs = append(errs, fmt.Errorf("%s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// WebhookHandler receives the gateway's events, each processed once
// (deduplicated by its key): a charge.succeeded settles the charge it
// names, which the recovery job then need not re-send.
func (m *Marketplace) WebhookHandler(user, password string, store openpay.EventStore) (http.Handler, error) {
	return openpay.WebhookHandler(user, password, openpay.Deduplicate(store, m.handleEvent))
}

func (m *Marketplace) handleEvent(_ context.Context, ev *openpay.WebhookEvent) error {
	if ev.Type != openpay.EventTypeChargeSucceeded || ev.Transaction == nil {
		return nil
	}
	ch := ev.Transaction
	m.mu.Lock()
	defer m.mu.Unlock()
	if op := m.ops[ch.OrderID]; op != nil && op.Kind == KindCharge && op.Status != OpDone {
		op.Status, op.TxID, op.Reason = OpDone, ch.ID, ""
		m.linkLocked(op)
	}
	return nil
}

// Op returns a copy of a movement.
func (m *Marketplace) Op(id string) (Op, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	op, ok := m.ops[id]
	if !ok {
		return Op{}, false
	}
	c := *op
	c.send = nil
	return c, true
}

// Ops returns copies of every movement, by id.
func (m *Marketplace) Ops() []Op {
	m.mu.Lock()
	ids := slices.Sorted(maps.Keys(m.ops))
	m.mu.Unlock()
	out := make([]Op, 0, len(ids))
	for _, id := range ids {
		op, _ := m.Op(id)
		out = append(out, op)
	}
	return out
}

// Order returns a copy of an order.
func (m *Marketplace) Order(id string) (Order, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.orders[id]
	if !ok {
		return Order{}, false
	}
	c := *o
	c.Attempts = slices.Clone(o.Attempts)
	return c, true
}
