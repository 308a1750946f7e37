package refserver

import (
	"crypto/sha256"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/openpay-go/openpay/internal/refserver/answer"
	"github.com/openpay-go/openpay/internal/refserver/cents"
	"github.com/openpay-go/openpay/internal/refserver/chunklog"
	"github.com/openpay-go/openpay/internal/refserver/compact"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/keymatch"
	"github.com/openpay-go/openpay/internal/refserver/seqindex"
)

// The in-memory store.
//
// Each merchant's state sits behind ONE mutex, merchant.mu. Every operation
// that reads or changes a merchant's state takes it once, does all its
// checks and changes, and releases it: so every movement of funds (a charge
// credited, a refund, a transfer between two customers, a fee, a payout) is
// atomic, and an order_id is checked and reserved in one step. Handlers
// validate their input before taking the lock and encode their answer after
// releasing it.
//
// Stored wire values (openpay.Card, a transaction's payment method, ...) are
// copied out under the lock and encoded afterwards; a transaction's wire
// form is built from its compact record under the lock (txrecord.go). For
// that to be safe, the pointees of a stored wire value are never modified
// once stored: to change a nested object, store a new pointer (copy on
// write). Top-level fields may change.
//
// Transaction lists are the one exception to "takes it once": a list that
// must walk many records takes the lock for listChunk records at a time
// (txFilter.list), so that writers keep their pace however large the store.
// For the indexes lists use, a transaction's status and amount change only
// through m.setStatus and m.setAmount.
//
// Money is openpay.Amount (an exact decimal), never a float; a stored
// transaction keeps its amount in cents when it has an exact value in cents
// (txrecord.go).
//
// Lock order, when two are needed: a group's lock before a merchant's. The
// server-wide s.mu only guards the merchant and group maps and is never held
// while taking another lock.

// merchant is one merchant account and everything it owns.
type merchant struct {
	mu sync.Mutex
	// unlock is mu.Unlock as a function value, made once (call.lock).
	unlock func()

	id                string
	name, email       string
	phone             string
	clabe             string
	created           time.Time
	privHash, pubHash [32]byte
	keyMemo           keymatch.Memo // the keys that matched them (auth.go)
	status            openpay.MerchantStatus
	balance           cents.Balance
	country           *countryrules.Rules // fixed at creation (country.go)

	customers *customerSet
	cards     seqindex.Keys[*card]   // by id (cardSet.get)
	cardList  []*card                // creation order
	cardsOf   seqindex.Lists[string] // by customer id (cardSet.holds, customerCards)
	tokens    map[string]*token
	tokenList []*token           // creation order
	txs       seqindex.Keys[*tx] // by id (txByID)
	txList    []*tx              // creation order; txList[t.seq-1] is t
	// txIndex holds, per transaction type, the merchant's transactions of
	// that type (customer "") and each customer's (customer set), in
	// creation order. The slices are only ever appended to, so a list may
	// keep a slice it read under the lock and index it later (see
	// txFilter.list).
	txIndex seqindex.Lists[txKey]
	// txStatus holds, per transaction type and status, the merchant's
	// transactions of that type that have that status, in creation order
	// (by seq): setStatus moves a transaction from one to the other. Unlike
	// txIndex these slices change in place; a list reads them under the
	// lock only and finds its place again by seq after letting go of it.
	txStatus seqindex.Lists[txKey]
	// txSeq numbers the merchant's transactions in creation order.
	txSeq uint32
	// amounts bounds the amounts of the transactions by blocks of seq, so
	// that an amount filter skips the blocks that cannot match.
	amounts seqindex.Amounts
	// clockBack is set once a transaction was created before the one
	// stored ahead of it (a clock set back): creation order is then no
	// longer time order, and lists check dates record by record.
	clockBack bool
	// orderIDs indexes every transaction of the merchant that carries an
	// order_id, whatever its kind (charge, payout, transfer, fee) or status:
	// an order_id is unique across all of them (1006).
	orderIDs seqindex.Keys[*tx] // txByOrderID
	// heldOrderIDs indexes the order_ids that records other than
	// transactions hold (a checkout's, from its creation on): an order_id
	// is unique across them and the transactions too. Nil until the first.
	heldOrderIDs map[string]orderHolder
	// inlineCharged is the wire form of the card data sent inline (or
	// the token) the last card charge recorded (chargeCard; see
	// card.charged).
	inlineCharged *openpay.Card
	// events is the merchant's event log (events.go): the n-th event ever
	// recorded is events.At(n - events.Dropped()).
	events chunklog.Log[loggedEvent]

	webhooked bool // set by webhooksOf, so that deliverEvent skips a merchant without webhooks
	// ext holds the state of resources that live in their own files (plans,
	// webhooks, bank accounts, ...), one value per Go type: see extState.
	ext map[reflect.Type]any

	// data is the server's store when it persists (persist.go), else nil.
	data *dataStore

	// clock is the merchant's own clock, nil while it follows the
	// server's (clock.go).
	clock atomic.Pointer[FakeClock]
}

func newMerchant(cfg MerchantConfig, now time.Time) *merchant {
	m := &merchant{
		id: cfg.ID, name: cfg.Name, email: cfg.Email, phone: cfg.Phone, clabe: cfg.CLABE,
		created:   now,
		privHash:  sha256.Sum256([]byte(cfg.PrivateKey)),
		pubHash:   sha256.Sum256([]byte(cfg.PublicKey)),
		status:    openpay.MerchantStatusActive,
		country:   countryrules.Mexico,
		balance:   cents.Of(cfg.Balance),
		customers: newCustomerSet(),
		cards:     newCardKeys(),
		tokens:    make(map[string]*token),
		txs:       seqindex.NewKeys(func(t *tx) string { return t.text.Field(fieldID) }),
		orderIDs:  seqindex.NewKeys(func(t *tx) string { return t.orderID() }),
		ext:       make(map[reflect.Type]any),
	}
	m.customers.own = owner{m: m}
	return m
}

// extState returns the merchant's state of type T, created by init on first
// use. The caller holds m.mu. Resource files keep their own state this way,
// without adding fields to merchant:
//
//	type planState struct{ plans map[string]*planRecord; list []*planRecord }
//	ps := extState(m, func() *planState { return &planState{plans: map[string]*planRecord{}} })
func extState[T any](m *merchant, init func() *T) *T {
	key := reflect.TypeFor[T]()
	if v, ok := m.ext[key]; ok {
		return v.(*T)
	}
	v := init()
	m.ext[key] = v
	return v
}

// group is a merchant group: its key acts for its merchants, and it has
// customers of its own (/v1/groups/{group_id}/customers).
type group struct {
	mu        sync.Mutex
	id        string
	keyHash   [32]byte
	merchants map[string]bool // fixed at creation
	customers *customerSet
	cards     seqindex.Keys[*card]   // the group's customers' cards, by id
	cardList  []*card                // creation order
	cardsOf   seqindex.Lists[string] // by customer id (cardSet.holds, customerCards)
	data      *dataStore             // see merchant.data
}

// storedCards returns the cards of the group's customers. The caller holds
// g.mu.
func (g *group) storedCards() cardSet {
	return cardSet{byID: &g.cards, list: &g.cardList, of: &g.cardsOf, own: owner{g: g}}
}

// groupMerchants returns the merchants of the group, in id order.
func (s *Server) groupMerchants(g *group) []*merchant {
	var out []*merchant
	// g.merchants is fixed when the group is created: no lock needed.
	for _, id := range slices.Sorted(maps.Keys(g.merchants)) {
		if m := s.merchantByID(id); m != nil {
			out = append(out, m)
		}
	}
	return out
}

// customer is a customer record. Its wire form is built by wire().
type customer struct {
	// text holds the id, name, last name, e-mail, phone number and
	// external id, in customerTexts.
	text    compact.Text
	created time.Time
	address *openpay.Address
	// customerAddress is the Colombian form of the address (also taken
	// from Peruvian customers); like address, replaced, never changed.
	customerAddress *openpay.ColombianAddress
	// customerAccount is nil but for a customer created with
	// requires_account: a balance, a CLABE and a store reference; charges
	// at its scope are credited to its balance, not the merchant's.
	*customerAccount
	deleted bool
	// deactivated accounts refuse movements of funds with 1008.
	deactivated bool
}

// customerAccount is the account of a customer with one.
type customerAccount struct {
	balance         cents.Balance
	clabe, storeRef string
	// barcode is the address of storeRef's barcode image at barcodeBase
	// (barcodeAt).
	barcode, barcodeBase string
}

// barcodeAt returns the address of the account's barcode image at
// baseURL, built once per base URL rather than on every answer that
// carries it. The caller holds the lock of the customer's owner.
func (a *customerAccount) barcodeAt(baseURL string) string {
	if a.barcode == "" || a.barcodeBase != baseURL {
		a.barcode, a.barcodeBase = barcodeURL(baseURL, a.storeRef), baseURL
	}
	return a.barcode
}

// customerTexts keeps the customers' texts (compact.Arena).
var customerTexts compact.Arena

// setText keeps the customer's id and text in customerTexts.
func (cu *customer) setText(id, name, lastName, email, phone, externalID string) {
	cu.text = customerTexts.Make(&[compact.TextFields]string{id, name, lastName, email, phone, externalID})
}

// id, Name, LastName, Email, Phone and ExternalID read the customer's text.
func (cu *customer) id() string         { return cu.text.Field(0) }
func (cu *customer) Name() string       { return cu.text.Field(1) }
func (cu *customer) LastName() string   { return cu.text.Field(2) }
func (cu *customer) Email() string      { return cu.text.Field(3) }
func (cu *customer) Phone() string      { return cu.text.Field(4) }
func (cu *customer) ExternalID() string { return cu.text.Field(5) }

func (cu *customer) hasAccount() bool { return cu.customerAccount != nil }

// status is the customer's status as answers show it.
func (cu *customer) status() openpay.CustomerStatus {
	if cu.deleted {
		return openpay.CustomerStatusDeleted
	}
	return openpay.CustomerStatusActive
}

// wire returns the customer's wire form. baseURL is where barcode images are
// served (for the store reference of customers with an account).
func (cu *customer) wire(baseURL string) openpay.Customer {
	w := openpay.Customer{
		ID: cu.id(), CreationDate: cu.created, Name: cu.Name(), LastName: cu.LastName(), Email: cu.Email(),
		PhoneNumber: cu.Phone(), ExternalID: cu.ExternalID(), Address: cu.address, Status: cu.status(),
		CustomerAddress: cu.customerAddress,
	}
	if cu.hasAccount() {
		w.Balance = cu.balance.Amount()
		w.CLABE = cu.clabe
		w.Store = &openpay.StoreReference{Reference: cu.storeRef, BarcodeURL: barcodeURL(baseURL, cu.storeRef)}
	}
	return w
}

// barcodeURL is the address of the barcode image of a reference, in the
// gateway's form (/barcode/{reference}?width=1&height=45&text=false).
func barcodeURL(baseURL, ref string) string {
	return baseURL + "/barcode/" + url.PathEscape(ref) + "?width=1&height=45&text=false"
}

// customerSet is the customers of a merchant or of a group.
type customerSet struct {
	byID       seqindex.Keys[*customer] // lookup
	list       []*customer              // creation order
	externalID map[string]*customer
	own        owner // whose customers they are, for mark
}

// mark marks the customer with the given id changed (see persist.go). The
// caller holds the lock of the set's owner.
func (cs *customerSet) mark(id string) {
	if cs.own.m != nil {
		cs.own.m.mark(recCustomer, id)
	} else if cs.own.g != nil {
		cs.own.g.mark(recGroupCustomer, id)
	}
}

func newCustomerSet() *customerSet {
	return &customerSet{byID: seqindex.NewKeys(func(cu *customer) string { return cu.id() }), externalID: make(map[string]*customer)}
}

// lookup returns the customer with the given id, deleted or not, or nil.
func (cs *customerSet) lookup(id string) *customer { cu, _ := cs.byID.Get(cs.list, id); return cu }

// add stores a new customer.
func (cs *customerSet) add(cu *customer) {
	cs.list = append(cs.list, cu)
	cs.byID.Put(cs.list, cu.id(), uint32(len(cs.list)))
}

// get returns the customer with the given id, nil when it does not exist or
// was deleted.
func (cs *customerSet) get(id string) *customer {
	cu := cs.lookup(id)
	if cu == nil || cu.deleted {
		return nil
	}
	return cu
}

// newCustomer creates a customer from a validated request: external_id is
// unique (2003); requires_account gives the customer a balance, a CLABE and
// a store reference. id is the customer's id when a seed fixes it, "" for
// a fresh one; m is the merchant the set belongs to (nil for a group's).
// The caller holds the lock of the set's owner.
func (s *Server) newCustomer(cs *customerSet, m *merchant, id string, req openpay.CustomerRequest) (*customer, *Error) {
	if req.ExternalID != "" {
		if other := cs.externalID[req.ExternalID]; other != nil && !other.deleted {
			return nil, errorf(openpay.ErrExternalIDExists, "A customer with the external_id '%s' already exists",
				truncateForMessage(req.ExternalID))
		}
	}
	cu := &customer{created: s.nowFor(m), address: req.Address, customerAddress: req.CustomerAddress}
	var buf [idgen.Length]byte
	cu.setText(string(s.ids.AppendIDOr(buf[:0], id, idgen.KindCustomer)), req.Name, req.LastName, req.Email, req.PhoneNumber, req.ExternalID)
	if req.RequiresAccount {
		cu.customerAccount = &customerAccount{clabe: s.newCLABE("646"), storeRef: s.ids.CustomerStoreReference()}
		s.registerBarcodeRef(cu.storeRef)
	}
	cs.add(cu)
	if req.ExternalID != "" {
		cs.externalID[cu.ExternalID()] = cu
	}
	cs.mark(cu.id())
	return cu, nil
}

// descGroupAccount refuses requires_account for a group's customer (see
// groups_api.go: no merchant of a group could fund such an account).
const descGroupAccount = "A customer of a merchant group cannot have an account: 'requires_account' must be false"

// CreateGroupCustomer creates a customer of a merchant group, as the group
// customer API does (requires_account is refused with 1003 there too).
func (s *Server) CreateGroupCustomer(groupID string, req openpay.CustomerRequest) (_ openpay.Customer, err error) {
	defer s.durable(&err)()
	g := s.groupByID(groupID)
	if g == nil {
		return openpay.Customer{}, errNotFound("group", groupID)
	}
	if req.RequiresAccount {
		return openpay.Customer{}, errorf(openpay.ErrInvalidParameter, descGroupAccount)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	cu, e := s.newCustomer(g.customers, nil, "", req)
	if e != nil {
		return openpay.Customer{}, e
	}
	return cu.wire(s.opts.BaseURL), nil
}

// CreateCustomer creates a customer of a merchant, as the customer API does;
// for tests and tools that need a customer before that API exists.
func (s *Server) CreateCustomer(merchantID string, req openpay.CustomerRequest) (_ openpay.Customer, err error) {
	defer s.durable(&err)()
	m := s.merchantByID(merchantID)
	if m == nil {
		return openpay.Customer{}, errNotFound("merchant", merchantID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cu, e := s.newCustomer(m.customers, m, "", req)
	if e != nil {
		return openpay.Customer{}, e
	}
	return cu.wire(s.opts.BaseURL), nil
}

// card is a stored card. Its full number is not kept, in memory or in the
// data directory, once the card data is checked: what the server needs of
// it after that is kept instead (the masked number, the brand, type and
// bank, and what a charge to it does). Nor is its security code: only
// that one waits for the next charge to the card (cvvPending).
type card struct {
	id         string
	customerID string // "" for a merchant-level card
	created    time.Time
	// masked is the number as answers show it: the first six and last
	// four digits, X's between (cardnum.Mask). Two live cards of a
	// customer with the same masked number are the same card (2002). A
	// card made from card data keeps its id, masked number and holder in
	// one allocation (checkCardData).
	masked  string
	holder  string
	address *openpay.Address
	// prof is what the number told of the card (brand, type, bank, points,
	// what a charge to it does), shared with the cards of the same profile.
	prof    *cardnum.Profile
	exp     cardnum.Expiry
	deleted bool
	// cvvPending: a security code came with the card or its last update
	// and no charge has used it yet (the gateway keeps it for the next).
	cvvPending bool
	// charged is the card's wire form, made by the first charge and
	// shared by the charges to the card until it changes (updateCard
	// drops it): wire values are never modified once stored.
	charged *openpay.Card
}

// wire returns the card's wire form, number masked.
func (k *card) wire() openpay.Card {
	return openpay.Card{
		ID: k.id, CreationDate: k.created, CustomerID: k.customerID,
		CardNumber: k.masked, HolderName: k.holder,
		ExpirationMonth: k.exp.Month(), ExpirationYear: k.exp.Year(), Address: k.address,
		Brand: openpay.CardBrand(k.prof.Brand), Type: openpay.CardType(k.prof.Type), BankName: k.prof.BankName, BankCode: k.prof.BankCode,
		AllowsCharges: true, AllowsPayouts: k.prof.Type == "debit", PointsCard: k.prof.Points,
	}
}

// cardSet is where cards are stored: a merchant's (its merchant-level
// cards and its customers') or a group's (its customers'). A deleted card
// stays, marked, for the transactions that used it.
type cardSet struct {
	byID *seqindex.Keys[*card]
	list *[]*card                // creation order
	of   *seqindex.Lists[string] // the seq (place in list, from 1) of each customer's cards
	own  owner                   // whose cards they are, for mark
}

// storedCards returns the merchant's cards. The caller holds m.mu.
func (m *merchant) storedCards() cardSet {
	return cardSet{byID: &m.cards, list: &m.cardList, of: &m.cardsOf, own: owner{m: m}}
}

// mark marks the card with the given id changed (see persist.go). The
// caller holds the lock of the set's owner.
func (cs cardSet) mark(id string) {
	if cs.own.m != nil {
		cs.own.m.mark(recCard, id)
	} else {
		cs.own.g.mark(recGroupCard, id)
	}
}

// find returns the live card with the id stored at the scope of cu
// (merchant level when cu is nil), or nil.
func (cs cardSet) find(cu *customer, id string) *card {
	k := cs.get(id)
	if k == nil || k.deleted || k.customerID != ownerID(cu) {
		return nil
	}
	return k
}

// get returns the card with the id, deleted or not, at any scope, or nil.
func (cs cardSet) get(id string) *card { k, _ := cs.byID.Get(*cs.list, id); return k }

// newCardKeys returns an empty index of cards by id.
func newCardKeys() seqindex.Keys[*card] { return seqindex.NewKeys(cardID) }
func cardID(k *card) string             { return k.id }

// add stores a new card and returns the stored record.
func (cs cardSet) add(k card) *card {
	stored := &k
	*cs.list = append(*cs.list, stored)
	seq := uint32(len(*cs.list))
	cs.byID.Put(*cs.list, stored.id, seq)
	if k.customerID != "" {
		cs.of.Edit(k.customerID).Add(seq)
	}
	cs.mark(stored.id)
	return stored
}

// customerCards returns the cards of the customer with the id, deleted or
// not, in creation order.
func (cs cardSet) customerCards(customerID string) []*card {
	seqs := cs.of.Get(customerID)
	out := make([]*card, len(seqs))
	for i, seq := range seqs {
		out[i] = (*cs.list)[seq-1]
	}
	return out
}

// holds reports whether a live card of the customer with the id has the
// masked number (the same card, 2002), reading that customer's cards only.
func (cs cardSet) holds(customerID, masked string) bool {
	for _, seq := range cs.of.Get(customerID) {
		if k := (*cs.list)[seq-1]; !k.deleted && k.masked == masked {
			return true
		}
	}
	return false
}

// ownerID is the customer id the cards and bank accounts of cu carry ("" at
// merchant level).
func ownerID(cu *customer) string {
	if cu == nil {
		return ""
	}
	return cu.id()
}

// token is a single-use card token.
type token struct {
	id      string
	created time.Time
	card    card // id and customer empty
	used    bool
}

// wire returns the token's wire form, number masked.
func (tk *token) wire() answer.Token {
	return answer.Token{ID: tk.id, Card: answer.TokenCard{
		CardNumber: tk.card.masked, HolderName: tk.card.holder,
		ExpirationMonth: tk.card.exp.Month(), ExpirationYear: tk.card.exp.Year(), Address: tk.card.address,
		CreationDate: tk.created, Brand: openpay.CardBrand(tk.card.prof.Brand), PointsCard: tk.card.prof.Points,
	}}
}

// unusedToken returns a token that can still be used: 1005 when it does not
// exist, 1003 when it was already used. The caller holds m.mu, and marks
// the token used once the operation that consumes it succeeds.
func (m *merchant) unusedToken(id string) (*token, *Error) {
	tk := m.tokens[id]
	if tk == nil {
		return nil, errNotFound("token", id)
	}
	if tk.used {
		return nil, errorf(openpay.ErrInvalidParameter, "The token with id '%s' has already been used", truncateForMessage(id))
	}
	m.mark(recToken, id) // its caller is about to use it
	return tk, nil
}

// chargeKind tells the charge variants apart.
// A small integer rather than a string: every stored charge carries one.
type chargeKind uint8

const (
	kindCard     chargeKind = iota + 1 // stored card, token or inline card data
	kindRedirect                       // the gateway's payment form (confirm false)
	kindIVR
	kindStore
	kindBank
	kindAlipay
	kindPSE // Colombia: bank_account is a PSE payment, with a redirect to the bank
)

// tx is a transaction record: a charge, refund, payout, transfer or fee,
// in compact fields (txrecord.go); its wire form is built on read
// (snapshot, wire). The other fields are the server's bookkeeping.
//
// The fields with pointers come first: the collector scans a record up
// to its last pointer only.
type tx struct {
	// card is the charged card's wire form.
	card *openpay.Card
	// x is the rest of the wire form, for the few transactions that have
	// any of it: nil for a plain card charge (rare, more).
	x *openpay.Transaction
	// later holds what few charges need: what refunds and chargebacks
	// record, and what the hosted pages need of a charge that waits for
	// its payer. It is nil until first needed, so that the many charges
	// decided at once and never refunded or disputed do not carry it (see
	// after).
	later *txLater
	// text holds the id, order_id, description, customer id and
	// authorization (txrecord.go).
	text compact.Text
	// amountC is the amount in cents (notCents: in x.Amount).
	amountC int64
	// The creation and operation dates, in nanoseconds since 1970, and
	// their zones (compact.Zones.Whole).
	createdNs, operatedNs     int64
	createdZone, operatedZone uint8
	// statusC, typeC, methodC, currencyC and opTypeC number the status,
	// type, method, currency and operation type (compact.Symbols).
	statusC, typeC, methodC, currencyC, opTypeC uint8
	// conciliated is the wire form's conciliated.
	conciliated bool
	// creditedIs says what the charge added to the balance (credited).
	creditedIs uint8

	// kind tells the charge variants apart (card, redirect, ivr, store,
	// bank, alipay); zero for transactions that are not charges.
	kind chargeKind
	// preauth: a card charge made with capture false and not captured yet.
	preauth bool
	// captureOnCompletion: a 3-D Secure charge that becomes a
	// pre-authorization rather than a completed charge when the payer
	// completes it.
	captureOnCompletion bool
	// seq is the transaction's place in the merchant's creation order,
	// from 1; 0 until addTx stores it.
	seq uint32
}

// txLater is the bookkeeping of a charge's refunds and chargebacks, and
// the payer's side of a charge that waits for its payer.
type txLater struct {
	// redirectURL is where the payer of a redirect, 3-D Secure or Alipay
	// charge goes back to (the hosted pages, pages.go).
	redirectURL string
	// email is the payer's e-mail: the fraud trigger applies when the
	// payer types the card on the hosted form too.
	email string
	// refunded is the amount refunded so far, in the charge's currency;
	// debited what refunds and chargebacks took back from the balance.
	refunded openpay.Amount
	debited  openpay.Amount
	// chargeback is the status a charge had before its open chargeback
	// ("" when none is open); chargebackHeld what the chargeback took from
	// the balance.
	chargeback     string
	chargebackHeld openpay.Amount
	// feeCharged is when the gateway's fee on the charge (t.Fee) was taken
	// from the credit, at completion (the fees report reads it).
	feeCharged time.Time
	// creditedWhole is what the charge added to the balance when that has
	// no exact value in cents (tx.credited).
	creditedWhole openpay.Amount
}

// after returns the charge's txLater, created empty on first use. The
// caller holds m.mu.
func (t *tx) after() *txLater {
	if t.later == nil {
		t.later = &txLater{}
	}
	return t.later
}

// txKey names a list of transactions in merchant.txIndex (those of a type,
// of one customer or, customer "", of the whole merchant) or in
// merchant.txStatus (those of a type with a status).
type txKey struct {
	typ      openpay.TransactionType
	customer string
	status   openpay.TransactionStatus // in merchant.txStatus only
}

// snapshot returns a copy of the wire form, safe to encode after the lock is
// released (see the copy-on-write rule above). A card charge waiting for
// its payer (3-D Secure, the card form) keeps its window in DueDate, which
// the gateway's answer does not show (the documented redirect charge has
// no due_date; charging.go's payerDueAfter). snapshotTo writes it into *w.
func (t *tx) snapshot() (w openpay.Transaction) { t.snapshotTo(&w); return w }
func (t *tx) snapshotTo(w *openpay.Transaction) {
	if t.wireTo(w); t.kind == kindCard || t.kind == kindRedirect {
		w.DueDate = time.Time{}
	}
}

// addTx stores a new transaction and reserves its order_id. The caller
// holds m.mu and has checked the order_id with orderIDTaken.
func (m *merchant) addTx(t *tx) {
	m.clockBack = m.clockBack || len(m.txList) > 0 && t.createdBefore(m.txList[len(m.txList)-1])
	m.txList = append(m.txList, t)
	t.seq, m.txSeq = m.txSeq+1, m.txSeq+1
	key := txKey{typ: t.typ()}
	if key.typ != openpay.TransactionTypeTransfer || t.opType() != openpay.OperationTypeIn { // a transfer's in side: the out side, stored next, holds the id
		m.txs.Put(m.txList, t.id(), t.seq)
	}
	m.txIndex.Edit(key).Add(t.seq)
	if key.customer = t.customerID(); key.customer != "" {
		m.txIndex.Edit(key).Add(t.seq)
	}
	m.statusIndex(t, "", t.status())
	m.amounts.Widen(t.seq, t.amountC)
	if t.orderID() != "" {
		m.orderIDs.Put(m.txList, t.orderID(), t.seq)
	}
	m.markTx(t)
}

// markTx marks a stored transaction changed (see persist.go). The caller
// holds m.mu.
func (m *merchant) markTx(t *tx) {
	if m.data != nil && t.seq != 0 {
		m.mark(recTx, txKeyOf(t.seq))
	}
}

// setAmount changes a transaction's amount (a capture of less than was
// authorized). The caller holds m.mu.
func (m *merchant) setAmount(t *tx, a openpay.Amount) {
	t.putAmount(a)
	if t.seq != 0 {
		m.amounts.Widen(t.seq, t.amountC)
	}
	m.markTx(t)
}

// setStatus changes a transaction's status, and where the merchant's
// lists find it by status. The caller holds m.mu.
func (m *merchant) setStatus(t *tx, status openpay.TransactionStatus) {
	old := t.status()
	t.putStatus(status)
	if t.seq != 0 {
		m.statusIndex(t, old, status)
	}
	m.markTx(t)
}

// statusIndex moves a stored transaction from the status list of from to
// that of to ("" for none). Status changes mostly concern recent
// transactions, near the end of both lists, so the shifts are short.
func (m *merchant) statusIndex(t *tx, from, to openpay.TransactionStatus) {
	if from == to {
		return
	}
	if from != "" {
		m.txStatus.Edit(txKey{typ: t.typ(), status: from}).Remove(t.seq)
	}
	if to != "" {
		m.txStatus.Edit(txKey{typ: t.typ(), status: to}).Add(t.seq)
	}
}

// txByID returns the merchant's transaction with the given id, or nil. The
// caller holds m.mu.
func (m *merchant) txByID(id string) *tx {
	t, _ := m.txs.Get(m.txList, id)
	return t
}

// txByOrderID returns the merchant's transaction with the given order_id,
// or nil. The caller holds m.mu.
func (m *merchant) txByOrderID(orderID string) *tx {
	t, _ := m.orderIDs.Get(m.txList, orderID)
	return t
}

// tx returns the stored transaction of seq (from 1). The caller holds m.mu.
func (m *merchant) tx(seq uint32) *tx { return m.txList[seq-1] }

// orderIDTaken returns the 1006 error when an order_id is already used by
// any transaction of the merchant or held by another of its records (a
// checkout: holdOrderID). The caller holds m.mu; checking and
// storing in the same critical section is what makes the rule hold under
// concurrent requests.
func (m *merchant) orderIDTaken(orderID string) *Error {
	if orderID == "" {
		return nil
	}
	if m.txByOrderID(orderID) != nil || m.heldOrderIDs[orderID] != nil {
		return errorf(openpay.ErrDuplicateOrderID, descDuplicateOrder)
	}
	return nil
}

// orderHolder is a record other than a transaction that holds an order_id
// of its merchant (a checkout): no transaction may take it.
type orderHolder interface {
	heldOrderID() string
}

// holdOrderID records that h holds its order_id (nothing when it has
// none). The caller holds m.mu and has checked the order_id with
// orderIDTaken in the same critical section.
func (m *merchant) holdOrderID(h orderHolder) {
	id := h.heldOrderID()
	if id == "" {
		return
	}
	if m.heldOrderIDs == nil {
		m.heldOrderIDs = make(map[string]orderHolder)
	}
	m.heldOrderIDs[id] = h
}

// orderIDHolder returns the record other than a transaction that holds
// orderID, or nil. The caller holds m.mu.
func (m *merchant) orderIDHolder(orderID string) orderHolder { return m.heldOrderIDs[orderID] }

// account is a balance that money moves into and out of: the merchant's or
// a customer's with an account.
type account interface {
	// credit adds a (positive) amount.
	credit(a openpay.Amount)
	// debit takes a (positive) amount, refusing (false, nothing changed)
	// when the balance is short unless force is set.
	debit(a openpay.Amount, force bool) bool
}

func (m *merchant) credit(a openpay.Amount) {
	m.balance.Add(a)
	m.mark(recMerchant, selfID)
}

func (m *merchant) debit(a openpay.Amount, force bool) bool {
	if !force && m.balance.Cmp(a) < 0 {
		return false
	}
	m.balance.Sub(a)
	m.mark(recMerchant, selfID)
	return true
}

func (cu *customer) credit(a openpay.Amount) { cu.balance.Add(a) }

func (cu *customer) debit(a openpay.Amount, force bool) bool {
	if !force && cu.balance.Cmp(a) < 0 {
		return false
	}
	cu.balance.Sub(a)
	return true
}

// accountFor returns the balance a transaction of the given customer moves:
// the customer's when it has an account, the merchant's otherwise. The
// caller holds m.mu.
func (m *merchant) accountFor(customerID string) account {
	if customerID != "" {
		if cu := m.customers.lookup(customerID); cu != nil && cu.hasAccount() {
			m.mark(recCustomer, cu.id()) // the caller moves its balance
			return cu
		}
	}
	return m
}

// insufficientFunds is the error for a balance that cannot pay. The
// interface documents one code, 4001, for both the merchant account and a
// customer's balance.
func insufficientFunds(acct account) *Error {
	if _, ok := acct.(*customer); ok {
		return errorf(openpay.ErrMerchantInsufficientFunds, "The customer's account has insufficient funds")
	}
	return errorf(openpay.ErrMerchantInsufficientFunds, "The merchant account has insufficient funds")
}

// newCLABE returns a fresh valid CLABE at the given bank.
func (s *Server) newCLABE(bankCode string) string {
	return clabe.New(bankCode, "180", s.ids.CLABEAccount())
}

// registerBarcodeRef records a reference the server issued, so that its
// barcode image is served.
func (s *Server) registerBarcodeRef(ref string) { s.barcodes.Store(ref, struct{}{}) }

// merchantWire returns the merchant's wire form. The caller holds m.mu.
func (m *merchant) wire() openpay.Merchant {
	return openpay.Merchant{
		ID: m.id, Name: m.name, Email: m.email, Phone: m.phone, Status: m.status,
		Balance: m.balance.Amount(), CLABE: m.clabe, CreationDate: m.created,
	}
}

// Balances reports the merchant's balance and the balance of each of its
// customers with an account, read in one critical section (a consistent
// view for tests that check that money is conserved).
func (s *Server) Balances(merchantID string) (merchantBalance openpay.Amount, customers map[string]openpay.Amount, err error) {
	m := s.merchantByID(merchantID)
	if m == nil {
		return openpay.Amount{}, nil, errNotFound("merchant", merchantID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	customers = make(map[string]openpay.Amount)
	for _, cu := range m.customers.list {
		if cu.hasAccount() {
			customers[cu.id()] = cu.balance.Amount()
		}
	}
	return m.balance.Amount(), customers, nil
}
