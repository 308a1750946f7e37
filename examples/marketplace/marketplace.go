package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/journal"
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

// Op is one money movement of the marketplace. Its ID is the journal's key
// of its attempt: the order_id the request carries, or for a refund the
// key the journal keeps it under, beside its charge (or fee). Its State is
// the journal's: pending while sent (or its process died), unknown until
// the journal's worker settles it, then made, declined or refused; ""
// when its process stopped before the journal claimed it (nothing sent).
type Op struct {
	ID       string
	Kind     OpKind
	Order    string // the order it belongs to, if any
	Seller   string // the seller whose account it moves money in or out of
	To       string // the receiving seller of a split
	Amount   openpay.Amount
	ChargeID string // a refund's charge, a commission refund's fee
	State    journal.State
	TxID     string
	Reason   string
	Claimed  time.Time // when the journal claimed it
	seq      int
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
	// order's movements once started (Charge: the attempt made; Refund:
	// the last refund started).
	Charge, Commission, Refund, CommissionRefund string
}

// Config is what the marketplace needs.
type Config struct {
	// Client calls the gateway with the private key.
	Client *openpay.Client
	// DB keeps the marketplace's sellers, orders and movements, and the
	// journal: PostgreSQL (driver pgx) for any number of processes, or
	// SQLite (driver sqlite) for one.
	DB *sql.DB
	// Prefix names this marketplace in the database and starts every
	// order_id it sends; the gateway keeps order ids for good, so a
	// marketplace that starts empty against a gateway that does not needs
	// a new one. Every process of one marketplace uses the same.
	Prefix string
	// CommissionPercent is the platform's cut of each order (whole cents,
	// rounded down).
	CommissionPercent int64
	// Logger receives what needs attention and each movement the
	// journal's worker settles (nil: slog's default).
	Logger *slog.Logger
	// SettleAfter is the journal's: how long a movement may stay in the
	// hands of the process that sent it before the worker looks it up and
	// re-sends it (zero: one minute).
	SettleAfter time.Duration
	// MinBackoff and MaxBackoff bound the worker's wait before it tries
	// again a movement the gateway could not settle (zero: the journal's
	// defaults, 1s and 5m).
	MinBackoff, MaxBackoff time.Duration
}

// Marketplace is the backend of a marketplace: sellers are customers with
// their own balance; a buyer pays a seller's order into the seller's
// account; the platform takes a commission as a fee on the seller; sellers
// split revenue by transfers and are paid out to their CLABE. Every money
// movement goes through the journal, in the same database as the
// marketplace's tables, so that a process that dies mid-payment and two
// processes that take the same order move the money once; the journal's
// worker is the recovery job. It is safe for concurrent use, by any
// number of processes sharing a PostgreSQL database.
type Marketplace struct {
	cfg Config
	c   *openpay.Client
	db  *sql.DB
	j   *journal.Journal
	log *slog.Logger
	// Worker is the recovery job: run it (Worker.Run) in every process,
	// or call Recover from a job.
	Worker *journal.Worker

	noticed atomic.Int64 // charge.succeeded events handled (for the tests)
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

// schema is the marketplace's tables, beside the journal's. Each row names
// its marketplace (Config.Prefix).
var schema = []string{
	`CREATE TABLE IF NOT EXISTS marketplace_sellers (market TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (market, id))`,
	`CREATE TABLE IF NOT EXISTS marketplace_orders (market TEXT NOT NULL, id TEXT NOT NULL, seller TEXT NOT NULL, total TEXT NOT NULL, PRIMARY KEY (market, id))`,
	// A movement is written before the journal claims it, so that money the
	// journal's worker moves for a process that died is in the books.
	`CREATE TABLE IF NOT EXISTS marketplace_movements (
	market TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, order_id TEXT NOT NULL DEFAULT '', seq BIGINT NOT NULL DEFAULT 0,
	seller TEXT NOT NULL, to_seller TEXT NOT NULL DEFAULT '', amount TEXT NOT NULL, charge_id TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (market, id))`,
}

// Open opens the marketplace kept in cfg.DB, creating its tables and the
// journal's when missing.
func Open(ctx context.Context, cfg Config) (*Marketplace, error) {
	if cfg.Client == nil || cfg.DB == nil {
		return nil, errors.New("marketplace: Open needs a client and a database")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "mkt"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	j, err := journal.Open(ctx, cfg.DB, cfg.Client, journal.Options{SettleAfter: cfg.SettleAfter, Logger: log})
	if err != nil {
		return nil, err
	}
	for _, stmt := range schema {
		// Processes starting at once may race to create a table (PostgreSQL
		// then reports a duplicate type): the second try finds it.
		for try := 0; ; try++ {
			if _, err = cfg.DB.ExecContext(ctx, stmt); err == nil || try == 4 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			return nil, fmt.Errorf("marketplace: creating its tables: %w", err)
		}
	}
	return &Marketplace{cfg: cfg, c: cfg.Client, db: cfg.DB, j: j, log: log,
		Worker: &journal.Worker{Journal: j, MinBackoff: cfg.MinBackoff, MaxBackoff: cfg.MaxBackoff}}, nil
}

// Journal returns the journal the marketplace's movements go through
// (for its counts on a metrics endpoint, and pruning).
func (m *Marketplace) Journal() *journal.Journal { return m.j }

// newID is a fresh id of the marketplace: its prefix, what it is, and
// random digits (processes make ids at once without asking each other).
func (m *Marketplace) newID(what string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return m.cfg.Prefix + "-" + what + hex.EncodeToString(b[:])
}

// AddSeller creates a seller: a customer with an account (a balance and a
// CLABE) at the gateway.
func (m *Marketplace) AddSeller(ctx context.Context, name, email string) (string, error) {
	cu, err := m.c.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: email, RequiresAccount: true})
	if err != nil {
		return "", err
	}
	if _, err := m.db.ExecContext(ctx, `INSERT INTO marketplace_sellers (market, id, name) VALUES ($1, $2, $3)`, m.cfg.Prefix, cu.ID, name); err != nil {
		return "", fmt.Errorf("marketplace: recording the seller: %w", err)
	}
	return cu.ID, nil
}

// isSeller reports whether id is one of the marketplace's sellers.
func (m *Marketplace) isSeller(ctx context.Context, id string) error {
	var n int
	if err := m.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM marketplace_sellers WHERE market = $1 AND id = $2`, m.cfg.Prefix, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return ErrNoSuchSeller
	}
	return nil
}

// sellers returns the marketplace's sellers' ids, sorted.
func (m *Marketplace) sellers(ctx context.Context) ([]string, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT id FROM marketplace_sellers WHERE market = $1 ORDER BY id`, m.cfg.Prefix)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// NewOrder records an order of total from seller, waiting to be paid.
func (m *Marketplace) NewOrder(ctx context.Context, seller string, total openpay.Amount) (string, error) {
	if !total.IsPositive() || !total.HasValidPrecision() {
		return "", fmt.Errorf("marketplace: an order's total must be positive with at most two decimals, not %s", total)
	}
	if err := m.isSeller(ctx, seller); err != nil {
		return "", err
	}
	id := m.newID("o")
	if _, err := m.db.ExecContext(ctx, `INSERT INTO marketplace_orders (market, id, seller, total) VALUES ($1, $2, $3, $4)`,
		m.cfg.Prefix, id, seller, total.String()); err != nil {
		return "", fmt.Errorf("marketplace: recording the order: %w", err)
	}
	return id, nil
}

// record writes a movement before the journal claims it. A movement
// recorded already (another process, or an earlier try) is kept.
func (m *Marketplace) record(ctx context.Context, op Op) error {
	_, err := m.db.ExecContext(ctx, `INSERT INTO marketplace_movements (market, id, kind, order_id, seq, seller, to_seller, amount, charge_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (market, id) DO NOTHING`,
		m.cfg.Prefix, op.ID, string(op.Kind), op.Order, op.seq, op.Seller, op.To, op.Amount.String(), op.ChargeID)
	if err != nil {
		return fmt.Errorf("marketplace: recording movement %s: %w", op.ID, err)
	}
	return nil
}

// Pay charges the buyer's token for the order, into the seller's account,
// under a new attempt id, and takes the commission once the charge is
// made. A decline leaves the order unpaid: the buyer may pay again. While
// an attempt is open (sent by this or another process, or left unknown)
// no new one starts: the journal's worker settles it. Two processes paying
// the same order at once make one charge: the journal claims the attempt
// id once, and the other gets ErrPaymentInProgress (or, with the same
// token, the charge made).
func (m *Marketplace) Pay(ctx context.Context, orderID, tokenID, deviceSessionID, clientIP string) error {
	o, ops, err := m.order(ctx, orderID)
	if err != nil {
		return err
	}
	if o.Charge != "" {
		return ErrAlreadyPaid
	}
	id := ""
	for _, a := range o.Attempts {
		switch ops[a].State {
		case journal.StatePending, journal.StateUnknown:
			return ErrPaymentInProgress
		case "":
			id = a // recorded, never claimed: its process stopped before sending
		}
	}
	if id == "" {
		id = fmt.Sprintf("%s-pay%d", o.ID, len(o.Attempts)+1)
		if err := m.record(ctx, Op{ID: id, Kind: KindCharge, Order: o.ID, Seller: o.Seller, Amount: o.Total, seq: len(o.Attempts) + 1}); err != nil {
			return err
		}
	}
	_, err = m.j.Charge(ctx, journal.Charge{CustomerID: o.Seller, ClientIP: clientIP, Request: openpay.CardCharge{
		SourceID: tokenID, DeviceSessionID: deviceSessionID, Amount: o.Total, Description: "Order " + o.ID, OrderID: id}})
	var other *journal.TermsConflictError
	switch {
	case errors.Is(err, journal.ErrInProgress), errors.As(err, &other):
		// Another process (or another press of "pay") has this attempt.
		return ErrPaymentInProgress
	case err != nil:
		if openpay.ClassOf(err) == openpay.ClassUnknown {
			m.log.Warn("payment outcome unknown; the journal's worker will settle it", "op", id, "err", err)
		}
		return err
	}
	return m.followUp(ctx, orderID)
}

// Split moves amount from one seller's account to another's (a share of
// revenue), under its own order_id.
func (m *Marketplace) Split(ctx context.Context, from, to string, amount openpay.Amount, description string) (string, error) {
	for _, s := range []string{from, to} {
		if err := m.isSeller(ctx, s); err != nil {
			return "", err
		}
	}
	id := m.newID("split")
	if err := m.record(ctx, Op{ID: id, Kind: KindSplit, Seller: from, To: to, Amount: amount}); err != nil {
		return "", err
	}
	_, err := m.j.Transfer(ctx, journal.Transfer{FromCustomerID: from,
		Request: openpay.TransferRequest{CustomerID: to, Amount: amount, Description: description, OrderID: id}})
	return id, err
}

// Payout pays amount of a seller's balance out to the seller's bank
// account, under its own order_id. A balance too small answers
// openpay.ErrMerchantInsufficientFunds (4001): the seller's shortfall.
func (m *Marketplace) Payout(ctx context.Context, seller string, amount openpay.Amount, clabe, holder string) (string, error) {
	if err := m.isSeller(ctx, seller); err != nil {
		return "", err
	}
	id := m.newID("payout")
	if err := m.record(ctx, Op{ID: id, Kind: KindPayout, Seller: seller, Amount: amount}); err != nil {
		return "", err
	}
	_, err := m.j.Payout(ctx, journal.Payout{CustomerID: seller, Request: openpay.InlineBankAccountPayout{
		BankAccount: openpay.BankAccountRequest{CLABE: clabe, HolderName: holder}, Amount: amount, Description: "Payout " + id, OrderID: id}})
	return id, err
}

// Refund gives the buyer amount of a paid order back (zero: all of it),
// from the seller's account; a whole refund gives the seller the
// commission back too. The gateway refunds a charge once, so an order takes
// one refund (another may start only after one the gateway refused).
func (m *Marketplace) Refund(ctx context.Context, orderID string, amount openpay.Amount) error {
	o, ops, err := m.order(ctx, orderID)
	if err != nil {
		return err
	}
	if o.Charge == "" {
		return ErrNotPaid
	}
	n, id := 0, ""
	for _, op := range ops {
		if op.Kind != KindRefund {
			continue
		}
		n++
		switch op.State {
		case journal.StateDeclined, journal.StateRefused:
		case "":
			id = op.ID
		default:
			return ErrAlreadyRefunded
		}
	}
	if amount.IsZero() {
		amount = o.Total
	}
	charge := ops[o.Charge].TxID
	if id == "" {
		id = fmt.Sprintf("%s-refund%d", o.ID, n+1)
		if err := m.record(ctx, Op{ID: id, Kind: KindRefund, Order: o.ID, Seller: o.Seller, Amount: amount, ChargeID: charge, seq: n + 1}); err != nil {
			return err
		}
	}
	_, err = m.j.Refund(ctx, journal.Refund{CustomerID: o.Seller, ChargeID: charge, Key: id,
		Request: openpay.RefundRequest{Amount: amount, Description: "Refund of " + o.ID}})
	var other *journal.TermsConflictError
	switch {
	case errors.Is(err, journal.ErrInProgress), errors.As(err, &other):
		return ErrAlreadyRefunded
	case err != nil:
		return err
	}
	return m.followUp(ctx, orderID)
}

// followUp starts what follows a settled movement of the order: the
// commission once the charge is made, the commission's refund once the
// whole charge is refunded. Each has a fixed id, so however many processes
// (and recovery runs) follow the order up, the journal sends each once.
func (m *Marketplace) followUp(ctx context.Context, orderID string) error {
	o, ops, err := m.order(ctx, orderID)
	if err != nil {
		return err
	}
	switch next(o, ops) {
	case KindCommission:
		cents, _ := o.Total.Cents()
		fee := openpay.AmountFromCents(cents * m.cfg.CommissionPercent / 100)
		if !fee.IsPositive() {
			return nil
		}
		id := o.ID + "-fee"
		if err := m.record(ctx, Op{ID: id, Kind: KindCommission, Order: o.ID, Seller: o.Seller, Amount: fee}); err != nil {
			return err
		}
		_, err = m.j.Fee(ctx, openpay.FeeRequest{CustomerID: o.Seller, Amount: fee, Description: "Commission on " + o.ID, OrderID: id})
	case KindCommissionRefund:
		id, fee := o.ID+"-fee-refund", ops[o.Commission]
		if err := m.record(ctx, Op{ID: id, Kind: KindCommissionRefund, Order: o.ID, Seller: o.Seller, Amount: fee.Amount, ChargeID: fee.TxID}); err != nil {
			return err
		}
		_, err = m.j.FeeRefund(ctx, journal.FeeRefund{FeeID: fee.TxID, Key: id,
			Request: openpay.FeeRefundRequest{Description: "Commission back on " + o.ID}})
	}
	if errors.Is(err, journal.ErrInProgress) {
		return nil // another process is sending it
	}
	return err
}

// next is the movement that follows what the order's movements show, not
// claimed yet: the commission once the charge is made, the commission's
// refund once the whole charge is refunded; "" for none.
func next(o Order, ops map[string]Op) OpKind {
	claimed := func(id string) bool { return id != "" && ops[id].State != "" } // the journal has it
	switch {
	case o.Charge != "" && !claimed(o.Commission):
		return KindCommission
	case o.Refund != "" && ops[o.Refund].State == journal.StateMade && ops[o.Refund].Amount.Equal(o.Total) &&
		o.Commission != "" && ops[o.Commission].State == journal.StateMade && !claimed(o.CommissionRefund):
		return KindCommissionRefund
	}
	return ""
}

// Recover is the recovery job run once: the journal's worker settles every
// movement due (left unknown, or pending past SettleAfter because its
// process died) by looking its order_id up and, when the gateway shows
// nothing, re-sending it with the same order_id (never a new one); then
// what follows the settled movements starts (commissions, their refunds).
// It returns an error naming the movements it leaves open: unknown, or
// pending past SettleAfter (a movement pending for less is still in the
// hands of the process sending it). A process that runs Worker.Run needs
// it only for what follows; Recover does both.
func (m *Marketplace) Recover(ctx context.Context) error {
	if _, err := m.Worker.Drain(ctx); err != nil {
		return err
	}
	ops, err := m.Ops(ctx)
	if err != nil {
		return err
	}
	byOrder := map[string][]Op{}
	for _, op := range ops {
		if op.Order != "" {
			byOrder[op.Order] = append(byOrder[op.Order], op)
		}
	}
	var errs []error
	followed := false
	for _, id := range slices.Sorted(maps.Keys(byOrder)) {
		o := Order{ID: id}
		for _, op := range byOrder[id] {
			if op.Kind == KindCharge {
				o.Total = op.Amount // each payment attempt is of the order's total
			}
		}
		if next(assemble(o, byOrder[id])) == "" {
			continue
		}
		followed = true
		if err := m.followUp(ctx, id); err != nil && openpay.ClassOf(err) == openpay.ClassUnknown {
			errs = append(errs, fmt.Errorf("%s: %w", id, err))
		}
	}
	if followed {
		if ops, err = m.Ops(ctx); err != nil {
			return err
		}
	}
	settle := m.cfg.SettleAfter
	if settle <= 0 {
		settle = time.Minute // the journal's default
	}
	var open []string
	for _, op := range ops {
		if op.State == journal.StateUnknown || op.State == journal.StatePending && time.Since(op.Claimed) >= settle {
			open = append(open, op.ID+" "+string(op.State))
		}
	}
	if len(open) > 0 {
		errs = append(errs, fmt.Errorf("marketplace: not settled yet: %s", strings.Join(open, ", ")))
	}
	return errors.Join(errs...)
}

// WebhookHandler receives the gateway's events, each processed once across
// every process (the journal's event store, in the same database): a
// charge.succeeded naming one of the marketplace's payment attempts has
// the journal's worker settle what is due and the order followed up. The
// event itself writes no movement: the journal writes a state only from
// the gateway's answer or a transaction read back.
func (m *Marketplace) WebhookHandler(user, password string) (http.Handler, error) {
	return openpay.WebhookHandler(user, password, m.j.Events().Handler(m.handleEvent))
}

func (m *Marketplace) handleEvent(ctx context.Context, ev *openpay.WebhookEvent) error {
	if ev.Type != openpay.EventTypeChargeSucceeded || ev.Transaction == nil {
		return nil
	}
	op, ok, err := m.op(ctx, ev.Transaction.OrderID)
	if err != nil || !ok || op.Kind != KindCharge {
		return err
	}
	m.noticed.Add(1)
	m.log.Info("charge succeeded", "op", op.ID, "order", op.Order, "charge", ev.Transaction.ID)
	if _, err := m.Worker.Drain(ctx); err != nil {
		return err
	}
	if err := m.followUp(ctx, op.Order); err != nil && openpay.ClassOf(err) != openpay.ClassUnknown {
		return err
	}
	return nil
}

const movementColumns = `id, kind, order_id, seq, seller, to_seller, amount, charge_id`

// movements reads the marketplace's movements matching where (with args
// after the market's), each with its journal state.
func (m *Marketplace) movements(ctx context.Context, where string, args ...any) ([]Op, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT `+movementColumns+` FROM marketplace_movements WHERE market = $1`+where+` ORDER BY id`,
		append([]any{m.cfg.Prefix}, args...)...)
	if err != nil {
		return nil, err
	}
	var out []Op
	for rows.Next() {
		var op Op
		var kind, amount string
		if err := rows.Scan(&op.ID, &kind, &op.Order, &op.seq, &op.Seller, &op.To, &amount, &op.ChargeID); err != nil {
			rows.Close()
			return nil, err
		}
		op.Kind = OpKind(kind)
		if op.Amount, err = openpay.NewAmount(amount); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, op)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if err := m.stateOf(ctx, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stateOf reads op's attempt in the journal.
func (m *Marketplace) stateOf(ctx context.Context, op *Op) error {
	var a journal.Attempt
	var err error
	if op.Kind == KindRefund || op.Kind == KindCommissionRefund {
		a, err = m.j.RefundAttempt(ctx, op.ChargeID, op.ID)
	} else {
		a, err = m.j.Attempt(ctx, op.ID)
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil // never claimed
	case err != nil:
		return err
	}
	op.State, op.TxID, op.Reason, op.Claimed = a.State, a.TransactionID, a.Error, a.Created
	return nil
}

// op reads one movement.
func (m *Marketplace) op(ctx context.Context, id string) (Op, bool, error) {
	ops, err := m.movements(ctx, ` AND id = $2`, id)
	if err != nil || len(ops) == 0 {
		return Op{}, false, err
	}
	return ops[0], true, nil
}

// Op returns a movement as it stands.
func (m *Marketplace) Op(ctx context.Context, id string) (Op, bool) {
	op, ok, err := m.op(ctx, id)
	return op, ok && err == nil
}

// Ops returns every movement of the marketplace as it stands, by id.
func (m *Marketplace) Ops(ctx context.Context) ([]Op, error) { return m.movements(ctx, "") }

// order reads an order with its movements, by id.
func (m *Marketplace) order(ctx context.Context, id string) (Order, map[string]Op, error) {
	var o Order
	var total string
	err := m.db.QueryRowContext(ctx, `SELECT id, seller, total FROM marketplace_orders WHERE market = $1 AND id = $2`, m.cfg.Prefix, id).
		Scan(&o.ID, &o.Seller, &total)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Order{}, nil, ErrNoSuchOrder
	case err != nil:
		return Order{}, nil, err
	}
	if o.Total, err = openpay.NewAmount(total); err != nil {
		return Order{}, nil, err
	}
	list, err := m.movements(ctx, ` AND order_id = $2`, id)
	if err != nil {
		return Order{}, nil, err
	}
	o, ops := assemble(o, list)
	return o, ops, nil
}

// assemble fills o's movements in from list (its movements, in any order).
func assemble(o Order, list []Op) (Order, map[string]Op) {
	list = slices.Clone(list)
	sort.SliceStable(list, func(a, b int) bool { return list[a].seq < list[b].seq })
	ops := map[string]Op{}
	for _, op := range list {
		ops[op.ID] = op
		switch op.Kind {
		case KindCharge:
			o.Attempts = append(o.Attempts, op.ID)
			if op.State == journal.StateMade {
				o.Charge = op.ID
			}
		case KindCommission:
			o.Commission = op.ID
		case KindRefund:
			o.Refund = op.ID
		case KindCommissionRefund:
			o.CommissionRefund = op.ID
		}
	}
	return o, ops
}

// Order returns an order as it stands.
func (m *Marketplace) Order(ctx context.Context, id string) (Order, bool) {
	o, _, err := m.order(ctx, id)
	return o, err == nil
}
