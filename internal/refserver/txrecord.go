package refserver

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/openpay-go/openpay"
)

// How a transaction is stored: compact fields, the wire form built on read.
//
// A merchant may hold millions of transactions, nearly all of them card
// charges decided at once, so a record keeps only what such a charge needs,
// in fixed-size fields, and builds its wire form (openpay.Transaction) when
// an answer, an event or the data directory asks for it (tx.snapshot,
// tx.wire):
//   - the identifiers and the request's free text stay strings (txFields:
//     ID, OrderID, Description, CustomerID, Authorization) and the charged
//     card stays a shared pointer;
//   - the amount and the credited amount are cents (an int64); an amount
//     without an exact value in cents, which no request can give but
//     arithmetic might, is kept whole in the rare part;
//   - the creation and operation dates are seconds, nanoseconds and a
//     zone's number in a table of zones the process has seen (zoneTable);
//   - the status, type, method, currency and operation type are numbers in
//     tables of the values seen (symTable), a byte each;
//   - everything else the wire form can carry (a payment method, a fee, an
//     exchange rate, a refund, a due date, an error, a bank account...) is
//     in the rare part, an openpay.Transaction allocated when the first of
//     those fields is set (tx.more) and nil for a plain card charge.
//
// Reads go through accessors (t.status(), t.amount(), t.created(), ...)
// and changes through setters, or through the merchant's setStatus and
// setAmount for what the list indexes follow. The wire form of the rare
// fields is read with t.rare() and changed with t.more(); the
// copy-on-write rule of store.go applies to their pointees as before.

// txFields are the fields of a stored transaction kept as the wire form
// has them, under the wire form's names.
type txFields struct {
	ID, OrderID, Description, CustomerID, Authorization string
	Card                                                *openpay.Card
}

// noRare is what rare returns for a transaction without a rare part: read
// only.
var noRare openpay.Transaction

// rare returns the wire fields the compact record does not hold (see
// above), the zero Transaction when none is set. Read only: change them
// through more.
func (t *tx) rare() *openpay.Transaction {
	if t.x == nil {
		return &noRare
	}
	return t.x
}

// more returns the rare part of the record for a change, allocated on
// first use.
func (t *tx) more() *openpay.Transaction {
	if t.x == nil {
		t.x = &openpay.Transaction{}
	}
	return t.x
}

// inRare is the number a symbol or a zone field holds when its value is
// kept in the rare part instead (its table is full).
const inRare = math.MaxUint8

// notCents is what an amount field holds when the amount has no exact
// value in cents and is kept whole instead.
const notCents = math.MinInt64

// symTable numbers the values of one string field of the stored
// transactions (statuses, types, methods, currencies, operation types),
// from 0 for "", in the order they are first seen. Reads take no lock: the
// list is replaced, never changed, when a value is added.
type symTable struct {
	mu    sync.Mutex
	names atomic.Pointer[[]string]
}

func newSymTable(known ...string) *symTable {
	st := &symTable{}
	names := append([]string{""}, known...)
	st.names.Store(&names)
	return st
}

// code returns the number of s, adding it when new; inRare when the table
// is full.
func (st *symTable) code(s string) uint8 {
	if c, ok := st.find(*st.names.Load(), s); ok {
		return c
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	names := *st.names.Load()
	if c, ok := st.find(names, s); ok {
		return c
	}
	if len(names) >= inRare {
		return inRare
	}
	grown := append(names[:len(names):len(names)], s)
	st.names.Store(&grown)
	return uint8(len(grown) - 1)
}

// take returns the number of *v and empties *v, which the number stands
// for; when the table is full, inRare, and *v stays.
func (st *symTable) take(v *string) uint8 {
	c := st.code(*v)
	if c != inRare {
		*v = ""
	}
	return c
}

func (st *symTable) find(names []string, s string) (uint8, bool) {
	for i, n := range names {
		if n == s {
			return uint8(i), true
		}
	}
	return 0, false
}

// name returns the value numbered c (not inRare).
func (st *symTable) name(c uint8) string { return (*st.names.Load())[c] }

var (
	txStatuses = newSymTable(string(openpay.TransactionStatusCompleted), string(openpay.TransactionStatusFailed),
		string(openpay.TransactionStatusInProgress), string(openpay.TransactionStatusChargePending),
		string(openpay.TransactionStatusRefunded), string(openpay.TransactionStatusCancelled))
	txTypes = newSymTable(string(openpay.TransactionTypeCharge), string(openpay.TransactionTypeRefund),
		string(openpay.TransactionTypePayout), string(openpay.TransactionTypeTransfer), string(openpay.TransactionTypeFee))
	txMethods    = newSymTable(string(openpay.TransactionMethodCard), string(openpay.TransactionMethodCustomer))
	txCurrencies = newSymTable(string(openpay.CurrencyMXN), string(openpay.CurrencyUSD))
	txOpTypes    = newSymTable(string(openpay.OperationTypeIn), string(openpay.OperationTypeOut))
)

// zoneTable numbers the time zones of the stored dates, from 1 (0 is the
// zero time). A zone is found by its location, else by its name and the
// date's offset in it: the fixed offsets of dates read back from JSON (a
// location of their own each, without a name) share one number per
// offset. Reads take no lock, as in symTable.
type zoneTable struct {
	mu    sync.Mutex
	zones atomic.Pointer[[]zoneEntry]
}

type zoneEntry struct {
	loc    *time.Location
	name   string // the location's name, "" for a fixed offset without one
	offset int    // seconds east of UTC, at the date the entry was made for
}

var txZones = func() *zoneTable {
	z := &zoneTable{}
	zones := []zoneEntry{{}, {loc: time.UTC, name: "UTC"}}
	z.zones.Store(&zones)
	return z
}()

// code returns the number of t's zone, adding it when new; inRare when
// the table is full, 0 for the zero time.
func (z *zoneTable) code(t time.Time) uint8 {
	if t.IsZero() {
		return 0
	}
	loc := t.Location()
	if c, ok := z.find(*z.zones.Load(), t, loc); ok {
		return c
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	zones := *z.zones.Load()
	if c, ok := z.find(zones, t, loc); ok {
		return c
	}
	if len(zones) >= inRare {
		return inRare
	}
	e := zoneEntry{loc: loc, name: loc.String()}
	_, e.offset = t.Zone()
	if e.name == "" {
		e.loc = time.FixedZone("", e.offset)
	}
	grown := append(zones[:len(zones):len(zones)], e)
	z.zones.Store(&grown)
	return uint8(len(grown) - 1)
}

func (z *zoneTable) find(zones []zoneEntry, t time.Time, loc *time.Location) (uint8, bool) {
	for i, e := range zones[1:] {
		if e.loc == loc {
			return uint8(i + 1), true
		}
	}
	name := loc.String()
	_, offset := t.Zone()
	for i, e := range zones[1:] {
		if e.name == name && e.offset == offset {
			return uint8(i + 1), true
		}
	}
	return 0, false
}

// location returns the zone numbered c (from 1, not inRare).
func (z *zoneTable) location(c uint8) *time.Location { return (*z.zones.Load())[c].loc }

// A stored date is nanoseconds since 1970 and its zone's number in
// txZones (0: the zero time; inRare: the date is in the rare part, as a
// date the nanoseconds cannot hold is, before 1678 or after 2261).

// stampOf returns the stored form of t.
func stampOf(t time.Time) (ns int64, zone uint8) {
	if t.IsZero() {
		return 0, 0
	}
	if y := t.Year(); y < 1678 || y > 2261 {
		return 0, inRare
	}
	if zone = txZones.code(t); zone == inRare {
		return 0, inRare
	}
	return t.UnixNano(), zone
}

// timeOf returns the date stored as ns and zone (not inRare).
func timeOf(ns int64, zone uint8) time.Time {
	if zone == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).In(txZones.location(zone))
}

// centsOf returns a in cents, notCents when it has no exact value in
// cents.
func centsOf(a openpay.Amount) int64 {
	if c, ok := amountCents(a); ok && c != notCents {
		return c
	}
	return notCents
}

// amountCache holds recently built amounts by their cents, so that reading
// the same amounts again (a page of charges, a charge read again) does not
// build them again: an openpay.Amount is immutable, and one value may be
// shared. Its size is fixed, whatever the store holds.
var amountCache [4096]atomic.Pointer[cachedAmount]

type cachedAmount struct {
	cents int64
	a     openpay.Amount
}

// amountOfCents returns the amount of c cents.
func amountOfCents(c int64) openpay.Amount {
	slot := &amountCache[uint64(c)*0x9E3779B97F4A7C15>>52]
	if e := slot.Load(); e != nil && e.cents == c {
		return e.a
	}
	e := &cachedAmount{cents: c, a: openpay.AmountFromCents(c)}
	slot.Store(e)
	return e.a
}

// amount returns the transaction's amount.
func (t *tx) amount() openpay.Amount {
	if t.amountC == notCents {
		return t.x.Amount
	}
	return amountOfCents(t.amountC)
}

// putAmount sets the amount; the merchant's setAmount is what changes a
// stored transaction's.
func (t *tx) putAmount(a openpay.Amount) {
	if t.creditedIs == creditedAmount {
		// What was credited stays what it was.
		t.creditedIs = creditedOther
		t.after().creditedWhole = t.amount()
	}
	if t.amountC = centsOf(a); t.amountC == notCents {
		t.more().Amount = a
	} else if t.x != nil {
		t.x.Amount = openpay.Amount{}
	}
}

// What a charge added to the balance (tx.creditedIs).
const (
	creditedNone   = iota // nothing
	creditedAmount        // its amount, as a charge in the account's currency without a fee adds
	creditedOther         // later.creditedWhole
)

// amountKept reports whether the transaction's amount passes a list's
// amount filters, compared in cents when both are.
func (t *tx) amountKept(b amountBounds) bool {
	switch {
	case !b.set():
		return true
	case b.cents && t.amountC != notCents:
		return b.keepCents(t.amountC)
	}
	return b.keep(t.amount())
}

// credited returns what the charge added to the balance (in the account's
// currency).
func (t *tx) credited() openpay.Amount {
	switch t.creditedIs {
	case creditedAmount:
		return t.amount()
	case creditedOther:
		return t.later.creditedWhole
	}
	return openpay.Amount{}
}

// setCredited sets what the charge added to the balance. The caller sets
// the amount first.
func (t *tx) setCredited(a openpay.Amount) {
	switch {
	case a.IsZero():
		t.creditedIs = creditedNone
		if t.later != nil {
			t.later.creditedWhole = openpay.Amount{}
		}
	case a.Cmp(t.amount()) == 0:
		t.creditedIs = creditedAmount
		if t.later != nil {
			t.later.creditedWhole = openpay.Amount{}
		}
	default:
		t.creditedIs = creditedOther
		t.after().creditedWhole = a
	}
}

func (t *tx) symbol(st *symTable, c uint8, rare string) string {
	if c == inRare {
		return rare
	}
	return st.name(c)
}

// putSymbol sets a field kept as a number in st (*code) to v; when st is
// full, to inRare, and v goes to the field of the rare part.
func (t *tx) putSymbol(st *symTable, code *uint8, v string, field func(*openpay.Transaction) *string) {
	if *code = st.code(v); *code == inRare {
		*field(t.more()) = v
	}
}

// status returns the transaction's status; the merchant's setStatus
// changes a stored transaction's.
func (t *tx) status() openpay.TransactionStatus {
	return openpay.TransactionStatus(t.symbol(txStatuses, t.statusC, string(t.rare().Status)))
}

func (t *tx) putStatus(s openpay.TransactionStatus) {
	t.putSymbol(txStatuses, &t.statusC, string(s), func(w *openpay.Transaction) *string { return (*string)(&w.Status) })
}

// typ returns the transaction's type (fixed at creation).
func (t *tx) typ() openpay.TransactionType {
	return openpay.TransactionType(t.symbol(txTypes, t.typeC, string(t.rare().TransactionType)))
}

// method returns the means by which the transaction moved funds.
func (t *tx) method() openpay.TransactionMethod {
	return openpay.TransactionMethod(t.symbol(txMethods, t.methodC, string(t.rare().Method)))
}

// setMethod sets the means by which the transaction moved funds.
func (t *tx) setMethod(v openpay.TransactionMethod) {
	t.putSymbol(txMethods, &t.methodC, string(v), func(w *openpay.Transaction) *string { return (*string)(&w.Method) })
}

// currency returns the currency of the amount.
func (t *tx) currency() openpay.Currency {
	return openpay.Currency(t.symbol(txCurrencies, t.currencyC, string(t.rare().Currency)))
}

// setCurrency sets the currency of the amount.
func (t *tx) setCurrency(v openpay.Currency) {
	t.putSymbol(txCurrencies, &t.currencyC, string(v), func(w *openpay.Transaction) *string { return (*string)(&w.Currency) })
}

// opType returns whether the transaction credits or debits its balance.
func (t *tx) opType() openpay.OperationType {
	return openpay.OperationType(t.symbol(txOpTypes, t.opTypeC, string(t.rare().OperationType)))
}

// setOpType sets whether the transaction credits or debits its balance.
func (t *tx) setOpType(v openpay.OperationType) {
	t.putSymbol(txOpTypes, &t.opTypeC, string(v), func(w *openpay.Transaction) *string { return (*string)(&w.OperationType) })
}

// created returns when the transaction was created.
func (t *tx) created() time.Time {
	if t.createdZone == inRare {
		return t.x.CreationDate
	}
	return timeOf(t.createdNs, t.createdZone)
}

// createdBefore reports whether t was created before u.
func (t *tx) createdBefore(u *tx) bool {
	if t.createdZone == inRare || u.createdZone == inRare || t.createdZone == 0 || u.createdZone == 0 {
		return t.created().Before(u.created())
	}
	return t.createdNs < u.createdNs
}

// operated returns when the operation took effect (zero when not yet).
func (t *tx) operated() time.Time {
	if t.operatedZone == inRare {
		return t.x.OperationDate
	}
	return timeOf(t.operatedNs, t.operatedZone)
}

// setOperated sets when the operation took effect.
func (t *tx) setOperated(at time.Time) {
	if t.operatedNs, t.operatedZone = stampOf(at); t.operatedZone == inRare {
		t.more().OperationDate = at
	} else if t.x != nil {
		t.x.OperationDate = time.Time{}
	}
}

// newTx makes a transaction record of the wire form w (not stored yet:
// see merchant.addTx).
func newTx(w openpay.Transaction) *tx {
	t := &tx{}
	t.setWire(w)
	return t
}

// setWire sets every field of the record from the wire form w.
func (t *tx) setWire(w openpay.Transaction) {
	t.t = txFields{ID: w.ID, OrderID: w.OrderID, Description: w.Description, CustomerID: w.CustomerID,
		Authorization: w.Authorization, Card: w.Card}
	t.conciliated = w.Conciliated
	// The rare part: what is left of w once the compact fields are taken
	// out, nil when nothing is.
	r := w
	r.ID, r.OrderID, r.Description, r.CustomerID, r.Authorization, r.Card = "", "", "", "", "", nil
	r.Conciliated = false
	t.amountC = centsOf(w.Amount)
	if t.amountC != notCents {
		r.Amount = openpay.Amount{}
	}
	t.createdNs, t.createdZone = stampOf(w.CreationDate)
	t.operatedNs, t.operatedZone = stampOf(w.OperationDate)
	if t.createdZone != inRare {
		r.CreationDate = time.Time{}
	}
	if t.operatedZone != inRare {
		r.OperationDate = time.Time{}
	}
	t.statusC = txStatuses.take((*string)(&r.Status))
	t.typeC = txTypes.take((*string)(&r.TransactionType))
	t.methodC = txMethods.take((*string)(&r.Method))
	t.currencyC = txCurrencies.take((*string)(&r.Currency))
	t.opTypeC = txOpTypes.take((*string)(&r.OperationType))
	t.x = nil
	if !isZeroTransaction(&r) {
		t.x = new(openpay.Transaction)
		*t.x = r // a copy: r itself stays on the stack
	}
}

// isZeroTransaction reports whether w has no field set.
func isZeroTransaction(w *openpay.Transaction) bool {
	return w.Amount.IsZero() && w.Authorization == "" && w.BankAccount == nil && w.Card == nil && w.CardPoints == nil && w.CLABE == "" &&
		!w.Conciliated && w.CreationDate.IsZero() && w.Currency == "" && w.Customer == nil && w.CustomerID == "" &&
		w.Description == "" && w.DueDate.IsZero() && w.ErrorCode == 0 && w.ErrorMessage == "" && w.ExchangeRate == nil &&
		w.Fee == nil && w.ID == "" && len(w.Metadata) == 0 && w.Method == "" && w.OperationDate.IsZero() &&
		w.OperationType == "" && w.OrderID == "" && w.PaymentMethod == nil && w.Refund == nil && w.RiskData == nil &&
		w.Status == "" && w.Store == nil && w.TransactionType == ""
}

// wire returns the transaction's whole wire form, built from the record.
func (t *tx) wire() openpay.Transaction {
	w := *t.rare()
	w.ID, w.OrderID, w.Description, w.CustomerID, w.Authorization, w.Card =
		t.t.ID, t.t.OrderID, t.t.Description, t.t.CustomerID, t.t.Authorization, t.t.Card
	w.Conciliated = t.conciliated
	w.Amount = t.amount()
	w.CreationDate, w.OperationDate = t.created(), t.operated()
	w.Status, w.TransactionType, w.Method, w.Currency, w.OperationType = t.status(), t.typ(), t.method(), t.currency(), t.opType()
	return w
}

// The record's size is part of what a stored charge costs: keep it at
// most one of the allocator's size classes (144 bytes) unless a field
// earns its place.
var _ [144 - unsafe.Sizeof(tx{})]byte
