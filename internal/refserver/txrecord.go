package refserver

import (
	"time"
	"unsafe"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/compact"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/refserver/seqindex"
)

// How a transaction is stored: compact fields, the wire form built on read.
//
// A merchant may hold millions of transactions, nearly all of them card
// charges decided at once, so a record keeps only what such a charge needs,
// in fixed-size fields, and builds its wire form (openpay.Transaction) when
// an answer, an event or the data directory asks for it (tx.snapshot,
// tx.wire):
//   - the identifiers and the request's free text are one string (tx.text,
//     a compact.Text: the id, order_id, description, customer id and
//     authorization one after the other, in an arena shared by the records)
//     and the charged card stays a shared pointer;
//   - the amount is cents (an int64); an amount without an exact value in
//     cents, which no request can give but arithmetic might, is kept whole
//     in the rare part; what a charge credited is a byte when it is the
//     amount itself (creditedIs), else an amount in txLater;
//   - the creation and operation dates are nanoseconds since 1970 and a
//     zone's number in a table of zones the process has seen (compact.Zones.Whole);
//   - the status, type, method, currency and operation type are numbers in
//     tables of the values seen (compact.Symbols), a byte each;
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

// The fields of a record's text (tx.text), read by their accessors, set
// with setText; the authorization, set last, last (compact.Arena.With).
const (
	fieldID = iota
	fieldOrderID
	fieldDescription
	fieldCustomerID
	fieldAuthorization
)

// txTexts holds the bytes of the stored transactions' texts.
var txTexts compact.Arena

func (t *tx) id() string            { return t.text.Field(fieldID) }
func (t *tx) orderID() string       { return t.text.Field(fieldOrderID) }
func (t *tx) description() string   { return t.text.Field(fieldDescription) }
func (t *tx) customerID() string    { return t.text.Field(fieldCustomerID) }
func (t *tx) authorization() string { return t.text.Field(fieldAuthorization) }

// setText sets the text field i (fieldID, ...) to v.
func (t *tx) setText(i int, v string) { t.text = txTexts.With(t.text, i, v) }

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
const inRare = compact.Full

// notCents is what an amount field holds when the amount has no exact
// value in cents and is kept whole instead.
const notCents = seqindex.NoCents

// The tables of the numbered fields of stored transactions.
var (
	txStatuses = compact.NewSymbols(string(openpay.TransactionStatusCompleted), string(openpay.TransactionStatusFailed),
		string(openpay.TransactionStatusInProgress), string(openpay.TransactionStatusChargePending),
		string(openpay.TransactionStatusRefunded), string(openpay.TransactionStatusCancelled))
	txTypes = compact.NewSymbols(string(openpay.TransactionTypeCharge), string(openpay.TransactionTypeRefund),
		string(openpay.TransactionTypePayout), string(openpay.TransactionTypeTransfer), string(openpay.TransactionTypeFee))
	txMethods    = compact.NewSymbols(string(openpay.TransactionMethodCard), string(openpay.TransactionMethodCustomer))
	txCurrencies = compact.NewSymbols(string(openpay.CurrencyMXN), string(openpay.CurrencyUSD))
	txOpTypes    = compact.NewSymbols(string(openpay.OperationTypeIn), string(openpay.OperationTypeOut))
)

// txZones numbers the zones of the stored dates.
var txZones = compact.NewZones()

// centsOf returns a in cents, notCents when it has no exact value in
// cents.
func centsOf(a openpay.Amount) int64 {
	if c, ok := listquery.Cents(a); ok && c != notCents {
		return c
	}
	return notCents
}

// amount returns the transaction's amount.
func (t *tx) amount() openpay.Amount {
	if t.amountC == notCents {
		return t.x.Amount
	}
	return compact.AmountOfCents(t.amountC)
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
func (t *tx) amountKept(b listquery.AmountBounds) bool {
	switch {
	case !b.Set():
		return true
	case b.InCents() && t.amountC != notCents:
		return b.KeepCents(t.amountC)
	}
	return b.Keep(t.amount())
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

func (t *tx) symbol(st *compact.Symbols, c uint8, rare string) string {
	if c == inRare {
		return rare
	}
	return st.Name(c)
}

// putSymbol sets a field kept as a number in st (*code) to v; when st is
// full, to inRare, and v goes to the field of the rare part.
func (t *tx) putSymbol(st *compact.Symbols, code *uint8, v string, field func(*openpay.Transaction) *string) {
	if *code = st.Code(v); *code == inRare {
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
func (t *tx) created() time.Time { return txZones.Time(t.createdNs, t.createdZone) }

// createdBefore reports whether t was created before u.
func (t *tx) createdBefore(u *tx) bool {
	if t.createdZone == inRare || u.createdZone == inRare || t.createdZone == 0 || u.createdZone == 0 {
		return t.created().Before(u.created())
	}
	return t.createdNs < u.createdNs
}

// operated returns when the operation took effect (zero when not yet).
func (t *tx) operated() time.Time { return txZones.Time(t.operatedNs, t.operatedZone) }

// setOperated sets when the operation took effect.
func (t *tx) setOperated(at time.Time) { t.operatedNs, t.operatedZone = txZones.Whole(at) }

// newTx makes a transaction record of the wire form w with the id id (not
// stored yet: see merchant.addTx).
func newTx(id string, w openpay.Transaction) *tx {
	t := &tx{}
	t.setWire(id, w)
	return t
}

// newDrawnTx makes the record of a new transaction, its id drawn into its
// text without a string of its own.
func (s *Server) newDrawnTx(w openpay.Transaction) *tx {
	var id [idgen.Length]byte
	return newTx(string(s.ids.AppendNewID(id[:0], idgen.KindTransaction)), w)
}

// startTx sets in t, a new record built from its compact fields rather than
// a wire form (newChargeTx, newMoneyTx), what setWire would set of a new
// transaction's text and dates: an id drawn into its text, the order_id,
// description and customer, created and operated at now.
func (s *Server) startTx(t *tx, now time.Time, orderID, description, customerID string) {
	var id [idgen.Length]byte
	t.text = txTexts.Make(&[compact.TextFields]string{string(s.ids.AppendNewID(id[:0], idgen.KindTransaction)), orderID, description, customerID})
	t.createdNs, t.createdZone = txZones.Whole(now)
	t.operatedNs, t.operatedZone = t.createdNs, t.createdZone
}

// setWire sets the record's fields from the wire form w, its id to id.
func (t *tx) setWire(id string, w openpay.Transaction) {
	t.text = txTexts.Make(&[compact.TextFields]string{id, w.OrderID, w.Description, w.CustomerID, w.Authorization})
	t.card = w.Card
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
	t.createdNs, t.createdZone = txZones.Whole(w.CreationDate)
	if t.operatedNs, t.operatedZone = t.createdNs, t.createdZone; w.OperationDate != w.CreationDate { // a new record's are one
		t.operatedNs, t.operatedZone = txZones.Whole(w.OperationDate)
	}
	r.CreationDate, r.OperationDate = time.Time{}, time.Time{}
	t.statusC = txStatuses.Take((*string)(&r.Status))
	t.typeC = txTypes.Take((*string)(&r.TransactionType))
	t.methodC = txMethods.Take((*string)(&r.Method))
	t.currencyC = txCurrencies.Take((*string)(&r.Currency))
	t.opTypeC = txOpTypes.Take((*string)(&r.OperationType))
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

// wireTo writes the transaction's whole wire form, built from the record, into *w.
func (t *tx) wireTo(w *openpay.Transaction) {
	*w = *t.rare()
	w.ID, w.OrderID, w.Description, w.CustomerID, w.Authorization, w.Card = t.text.Field(fieldID), t.text.Field(fieldOrderID),
		t.text.Field(fieldDescription), t.text.Field(fieldCustomerID), t.text.Field(fieldAuthorization), t.card // Field inlines
	w.Conciliated = t.conciliated
	w.Amount = t.amount()
	w.CreationDate, w.OperationDate = t.created(), t.operated()
	w.Status, w.TransactionType, w.Method, w.Currency, w.OperationType = t.status(), t.typ(), t.method(), t.currency(), t.opType()
}

// The record's size is part of what a stored charge costs: keep it at
// most one of the allocator's size classes (96 bytes) unless a field
// earns its place.
var _ [96 - unsafe.Sizeof(tx{})]byte
