package refserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/cents"
	"github.com/openpay-go/openpay/internal/refserver/compact"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/openpay-go/openpay/internal/refserver/datadir"
	"github.com/openpay-go/openpay/internal/refserver/delivery"
)

// The kinds of record the data directory keeps (see persist.go), and for
// every struct that holds state, what becomes of each of its fields.
//
// Adding a kind of record (say a merchant's checkouts, kept with
// extState) is one change here plus a mark where it changes:
//
//  1. a constant in recKind, before numRecKinds, placed after the kinds
//     its load needs (a subscription loads after plans and cards);
//  2. its entry in recKinds: a bucket name, each (ids in creation order),
//     get (the persisted form, false once removed) and load (put one
//     record back into the owner, no marks: persistence is not attached
//     while loading);
//  3. its persisted form, a struct of exported fields, when the record is
//     not a wire value already;
//  4. its state struct and every field of it in stateFields (persisted, or
//     rebuilt on load and why): TestDataFieldsAreAccountedFor fails until
//     every field of every state struct, and every extState type, is
//     listed;
//  5. m.mark(recX, id) (g.mark for a group's) wherever a record is created,
//     changed or removed, under the owner's lock. TestWithDataDir runs
//     the package's server tests again comparing the store with the state
//     after their requests (checkData), and names each change left
//     unmarked.

// recKind is a kind of record; its value indexes recKinds.
type recKind = datadir.Kind

// The kinds, in the order a load reads them.
const (
	recMerchant recKind = iota
	recCustomer
	recCard
	recToken
	recBankAccount
	recPlan
	recTx
	recCheckout
	recEvent
	recSubscription
	recWebhook
	recDelivery
	recGroup
	recGroupCustomer
	recGroupCard
	numRecKinds
)

// selfID is the id of an owner's own record (its merchant or group record).
const selfID = "self"

// recordKind describes how one kind of record is listed, read and loaded.
type recordKind struct {
	name     string // its bucket in the owner's bucket
	merchant bool   // owned by a merchant, else by a group
	// background: records that work outside requests changes too (a
	// delivery done with); such changes are written with the next flush,
	// and the store may lag the state meanwhile (Store.Diff does not compare
	// them).
	background bool
	// each calls f with the id of every record of the owner, in creation
	// order. The caller holds the owner's lock.
	each func(s *Server, o owner, f func(id string))
	// get returns the persisted form of the record, false when it no
	// longer exists. The caller holds the owner's lock.
	get func(s *Server, o owner, id string) (any, bool)
	// load puts a stored record back into its owner (records come in
	// creation order, kinds in the order of recKind).
	load func(s *Server, o owner, id string, data []byte) error
}

// recKinds is the table of kinds, indexed by recKind. It is filled in by
// init: the load functions call code that marks records, and a variable
// initialised with them would depend on itself.
var recKinds [numRecKinds]recordKind

func init() {
	recKinds = [numRecKinds]recordKind{
		recMerchant: {name: "merchant", merchant: true,
			each: func(_ *Server, o owner, f func(string)) { f(selfID) },
			get: func(_ *Server, o owner, id string) (any, bool) {
				m := o.m
				r := merchantRecord{Name: m.name, Email: m.email, Phone: m.phone, CLABE: m.clabe, Created: m.created,
					PrivHash: m.privHash[:], PubHash: m.pubHash[:], Status: m.status, Balance: m.balance.Amount(),
					Country: m.country.Code}
				if fc := m.clock.Load(); fc != nil {
					now := fc.Now()
					r.Clock = &now
				}
				return r, id == selfID
			},
			load: func(_ *Server, o owner, _ string, data []byte) error {
				var r merchantRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				m := o.m
				m.name, m.email, m.phone, m.clabe, m.created = r.Name, r.Email, r.Phone, r.CLABE, inZone(r.Created)
				m.status, m.balance = r.Status, cents.Of(r.Balance)
				var ok bool
				if m.country, ok = countryrules.Of(r.Country); !ok {
					return fmt.Errorf("unknown country %q", r.Country)
				}
				if copy(m.privHash[:], r.PrivHash) != len(m.privHash) || copy(m.pubHash[:], r.PubHash) != len(m.pubHash) {
					return errors.New("a key hash is truncated")
				}
				if r.Clock != nil {
					m.clock.Store(NewFakeClock(inZone(*r.Clock)))
				}
				return nil
			}},
		recCustomer: customerKind(true),
		recCard:     cardKind(true),
		recToken: {name: "tokens", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for _, tk := range o.m.tokenList {
					f(tk.id)
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				tk := o.m.tokens[id]
				if tk == nil {
					return nil, false
				}
				return tokenRecord{ID: tk.id, Created: tk.created, Card: newCardRecord(&tk.card), Used: tk.used}, true
			},
			load: func(_ *Server, o owner, _ string, data []byte) error {
				var r tokenRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				tk := &token{id: r.ID, created: inZone(r.Created), card: r.Card.card(), used: r.Used}
				o.m.tokens[tk.id] = tk
				o.m.tokenList = append(o.m.tokenList, tk)
				return nil
			}},
		recBankAccount: {name: "bankaccounts", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for _, b := range bankAccounts(o.m).list {
					f(b.id)
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				b := bankAccounts(o.m).byID[id]
				if b == nil {
					return nil, false
				}
				return bankAccountRecord{ID: b.id, CustomerID: b.customerID, Created: b.created, Holder: b.holder,
					Alias: b.alias, CLABE: b.clabe, BankCode: b.bankCode, BankName: b.bankName, Deleted: b.deleted}, true
			},
			load: func(_ *Server, o owner, _ string, data []byte) error {
				var r bankAccountRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				bs := bankAccounts(o.m)
				b := &bankAccount{id: r.ID, customerID: r.CustomerID, created: inZone(r.Created), holder: r.Holder,
					alias: r.Alias, clabe: r.CLABE, bankCode: r.BankCode, bankName: r.BankName, deleted: r.Deleted}
				bs.byID[b.id] = b
				bs.list = append(bs.list, b)
				return nil
			}},
		recPlan: {name: "plans", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for _, p := range plansOf(o.m).list {
					f(p.ID)
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				p := plansOf(o.m).byID[id]
				if p == nil {
					return nil, false
				}
				return *p, true
			},
			load: func(_ *Server, o owner, _ string, data []byte) error {
				var p openpay.Plan
				if err := json.Unmarshal(data, &p); err != nil {
					return err
				}
				ps := plansOf(o.m)
				ps.byID[p.ID] = &p
				ps.list = append(ps.list, &p)
				return nil
			}},
		recTx: {name: "transactions", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for _, t := range o.m.txList {
					f(txKeyOf(t.seq))
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				seq, err := strconv.ParseUint(id, 10, 32)
				if err != nil || seq == 0 || seq > uint64(len(o.m.txList)) {
					return nil, false
				}
				return newTxRecord(o.m.txList[seq-1]), true
			},
			load: func(s *Server, o owner, id string, data []byte) error {
				var r txRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				m := o.m
				if id != txKeyOf(m.txSeq+1) {
					return fmt.Errorf("transaction %s comes where %s was expected", id, txKeyOf(m.txSeq+1))
				}
				t := r.tx()
				m.addTx(t)
				if t.later != nil && !t.later.feeCharged.IsZero() {
					addFeeCharged(m, t)
				}
				if pm := t.rare().PaymentMethod; pm != nil && pm.Type == openpay.PaymentInstructionsTypeStore {
					s.registerBarcodeRef(pm.Reference)
					if pm.PaybinReference != "" {
						s.registerBarcodeRef(pm.PaybinReference)
					}
				}
				return nil
			}},
		recCheckout: {name: "checkouts", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for _, r := range extState(o.m, newCheckoutState).list {
					f(r.c.ID)
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				r := extState(o.m, newCheckoutState).byID[id]
				if r == nil {
					return nil, false
				}
				return checkoutStored{Checkout: r.c, CustomerID: r.customerID, Payer: r.payer, Redirect: r.redirect,
					StoreBack: r.storeBack, Base: r.base, Cancelled: r.cancelled, TxID: r.txID}, true
			},
			load: func(_ *Server, o owner, _ string, data []byte) error {
				var v checkoutStored
				if err := json.Unmarshal(data, &v); err != nil {
					return err
				}
				r := &checkoutRecord{c: v.Checkout, customerID: v.CustomerID, payer: v.Payer, redirect: v.Redirect,
					storeBack: v.StoreBack, base: v.Base, cancelled: v.Cancelled, txID: v.TxID}
				st := extState(o.m, newCheckoutState)
				st.byID[r.c.ID] = r
				st.list = append(st.list, r)
				o.m.holdOrderID(r)
				return nil
			}},
		recEvent: {name: "events", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for i := range o.m.events.Len() {
					f(eventKeyOf(o.m.events.Dropped() + uint64(i)))
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				n, err := strconv.ParseUint(id, 10, 64)
				if err != nil || n < o.m.events.Dropped() || n-o.m.events.Dropped() >= uint64(o.m.events.Len()) {
					return nil, false
				}
				return o.m.events.At(int(n - o.m.events.Dropped())).event(o.m.id), true
			},
			load: func(_ *Server, o owner, id string, data []byte) error {
				n, err := strconv.ParseUint(id, 10, 64)
				if err != nil {
					return err
				}
				m := o.m
				if m.events.Len() == 0 {
					m.events.SetDropped(n)
				} else if n != m.events.Dropped()+uint64(m.events.Len()) {
					return fmt.Errorf("event %s comes out of order", id)
				}
				var ev Event
				if err := json.Unmarshal(data, &ev); err != nil {
					return err
				}
				logged := loggedEvent{id: compact.MakeID(ev.ID), typ: ev.Type, date: txZones.Date(inZone(ev.Date))}
				logged.tx.setWire(ev.Transaction.ID, ev.Transaction)
				m.events.Append(logged)
				return nil
			}},
		recSubscription: {name: "subscriptions", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for _, sub := range subscriptionsOf(o.m).list {
					f(sub.id)
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				sub := subscriptionsOf(o.m).byID[id]
				if sub == nil {
					return nil, false
				}
				r := subscriptionRecord{ID: sub.id, Created: sub.created, PlanID: sub.plan.ID, CustomerID: sub.customerID,
					CardID: sub.cardID, Status: sub.status, CancelAtPeriodEnd: sub.cancelAtPeriodEnd, TrialEnd: sub.trialEnd,
					Anchor: sub.anchor, Periods: sub.periods, Failures: sub.failures, RetryOn: sub.retryOn, Deleted: sub.deleted}
				if sub.group != nil {
					r.GroupID = sub.group.id
				}
				return r, true
			},
			load: func(s *Server, o owner, _ string, data []byte) error {
				var r subscriptionRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				sub := &subscription{id: r.ID, created: inZone(r.Created), plan: plansOf(o.m).byID[r.PlanID],
					customerID: r.CustomerID, cardID: r.CardID, status: r.Status, cancelAtPeriodEnd: r.CancelAtPeriodEnd,
					trialEnd: r.TrialEnd, anchor: r.Anchor, periods: r.Periods, failures: r.Failures, retryOn: r.RetryOn,
					deleted: r.Deleted}
				if sub.plan == nil {
					return fmt.Errorf("its plan %q is missing", r.PlanID)
				}
				if r.GroupID != "" {
					if sub.group = s.groups[r.GroupID]; sub.group == nil {
						return fmt.Errorf("its group %q is missing", r.GroupID)
					}
				}
				st := subscriptionsOf(o.m)
				st.byID[sub.id] = sub
				st.list = append(st.list, sub)
				return nil
			}},
		recWebhook: {name: "webhooks", merchant: true,
			each: func(_ *Server, o owner, f func(string)) {
				for _, wh := range webhooksOf(o.m).list {
					f(wh.w.ID)
				}
			},
			get: func(_ *Server, o owner, id string) (any, bool) {
				wh := webhooksOf(o.m).byID[id]
				if wh == nil {
					return nil, false
				}
				return webhookRecord{Webhook: wh.w, Password: wh.password, Code: wh.code}, true
			},
			load: func(_ *Server, o owner, _ string, data []byte) error {
				var r webhookRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				ws := webhooksOf(o.m)
				wh := &webhook{w: r.Webhook, password: r.Password, code: r.Code}
				ws.byID[wh.w.ID] = wh
				ws.list = append(ws.list, wh)
				return nil
			}},
		recDelivery: {name: "deliveries", merchant: true, background: true,
			each: func(s *Server, o owner, f func(string)) {
				for _, seq := range s.deliveries.Pending(o.m.id) {
					f(deliveryKeyOf(seq))
				}
			},
			get: func(s *Server, o owner, id string) (any, bool) {
				seq, err := strconv.ParseUint(id, 10, 64)
				if err != nil {
					return nil, false
				}
				d, ok := s.deliveries.Record(o.m.id, seq)
				if !ok {
					return nil, false
				}
				return deliveryRecord{WebhookID: d.To.WebhookID, Body: d.Body, Attempts: d.Attempts,
					EventID: d.Event.ID, EventType: d.Event.Type, TransactionID: d.Event.TransactionID}, true
			},
			load: func(s *Server, o owner, id string, data []byte) error {
				seq, err := strconv.ParseUint(id, 10, 64)
				if err != nil {
					return err
				}
				var r deliveryRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				// A delivery whose webhook is gone keeps no URL: Resume
				// drops it.
				d := delivery.Delivery{Owner: o.m.id, To: delivery.Target{WebhookID: r.WebhookID}, Body: r.Body,
					Attempts: r.Attempts, Event: delivery.Event{ID: r.EventID, TransactionID: r.TransactionID, Type: r.EventType}}
				if wh := webhooksOf(o.m).byID[r.WebhookID]; wh != nil {
					d.To = wh.target()
				}
				s.deliveries.Restore(seq, d)
				return nil
			}},
		recGroup: {name: "group",
			each: func(_ *Server, o owner, f func(string)) { f(selfID) },
			get: func(_ *Server, o owner, id string) (any, bool) {
				g := o.g
				r := groupRecord{KeyHash: g.keyHash[:]}
				for mid := range g.merchants {
					r.Merchants = append(r.Merchants, mid)
				}
				slices.Sort(r.Merchants)
				return r, id == selfID
			},
			load: func(_ *Server, o owner, _ string, data []byte) error {
				var r groupRecord
				if err := json.Unmarshal(data, &r); err != nil {
					return err
				}
				if copy(o.g.keyHash[:], r.KeyHash) != len(o.g.keyHash) {
					return errors.New("the key hash is truncated")
				}
				for _, mid := range r.Merchants {
					o.g.merchants[mid] = true
				}
				return nil
			}},
		recGroupCustomer: customerKind(false),
		recGroupCard:     cardKind(false),
	}
}

// customerKind is the kind of the customers of a merchant or of a group.
func customerKind(merchant bool) recordKind {
	set := func(o owner) *customerSet {
		if o.m != nil {
			return o.m.customers
		}
		return o.g.customers
	}
	return recordKind{name: "customers", merchant: merchant,
		each: func(_ *Server, o owner, f func(string)) {
			for _, cu := range set(o).list {
				f(cu.id())
			}
		},
		get: func(_ *Server, o owner, id string) (any, bool) {
			cu := set(o).lookup(id)
			if cu == nil {
				return nil, false
			}
			r := customerRecord{ID: cu.id(), Created: cu.created, Name: cu.Name(), LastName: cu.LastName(), Email: cu.Email(),
				Phone: cu.Phone(), ExternalID: cu.ExternalID(), Address: cu.address, CustomerAddress: cu.customerAddress,
				Status: cu.status(), HasAccount: cu.hasAccount(), Deactivated: cu.deactivated}
			if a := cu.customerAccount; a != nil {
				r.Balance, r.CLABE, r.StoreRef = a.balance.Amount(), a.clabe, a.storeRef
			}
			return r, true
		},
		load: func(s *Server, o owner, _ string, data []byte) error {
			var r customerRecord
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
			cs := set(o)
			cu := &customer{created: inZone(r.Created), address: r.Address, customerAddress: r.CustomerAddress,
				deleted: r.Status == openpay.CustomerStatusDeleted, deactivated: r.Deactivated}
			cu.setText(r.ID, r.Name, r.LastName, r.Email, r.Phone, r.ExternalID)
			if r.HasAccount {
				cu.customerAccount = &customerAccount{balance: cents.Of(r.Balance), clabe: r.CLABE, storeRef: r.StoreRef}
			}
			cs.add(cu)
			if r.ExternalID != "" && !cu.deleted {
				cs.externalID[cu.ExternalID()] = cu
			}
			if cu.hasAccount() && cu.storeRef != "" {
				s.registerBarcodeRef(cu.storeRef)
			}
			return nil
		}}
}

// cardKind is the kind of the cards of a merchant or of a group.
func cardKind(merchant bool) recordKind {
	set := func(o owner) cardSet {
		if o.m != nil {
			return o.m.storedCards()
		}
		return o.g.storedCards()
	}
	return recordKind{name: "cards", merchant: merchant,
		each: func(_ *Server, o owner, f func(string)) {
			for _, k := range *set(o).list {
				f(k.id)
			}
		},
		get: func(_ *Server, o owner, id string) (any, bool) {
			k := set(o).get(id)
			if k == nil {
				return nil, false
			}
			return newCardRecord(k), true
		},
		load: func(_ *Server, o owner, _ string, data []byte) error {
			var r cardRecord
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
			set(o).add(r.card())
			return nil
		}}
}

// The persisted forms of the records that are not wire values. Their
// fields mirror the state's, exported for encoding/json.

type merchantRecord struct {
	Name, Email, Phone, CLABE string
	Created                   time.Time
	PrivHash, PubHash         []byte // the keys' SHA-256: the keys themselves are never stored
	Status                    openpay.MerchantStatus
	Balance                   openpay.Amount
	Country                   openpay.Country
	// Clock is the time of the merchant's own clock; absent while it
	// follows the server's (clock.go).
	Clock *time.Time `json:",omitempty"`
}

type groupRecord struct {
	KeyHash   []byte
	Merchants []string
}

type customerRecord struct {
	ID                                       string
	Created                                  time.Time
	Name, LastName, Email, Phone, ExternalID string
	Address                                  *openpay.Address
	CustomerAddress                          *openpay.ColombianAddress
	Status                                   openpay.CustomerStatus
	HasAccount                               bool
	Balance                                  openpay.Amount
	CLABE, StoreRef                          string
	Deactivated                              bool
}

type cardRecord struct {
	ID, CustomerID                      string
	Created                             time.Time
	Masked                              string // never the full number
	Outcome                             cardnum.Outcome
	Holder, ExpMonth, ExpYear           string
	Address                             *openpay.Address
	Brand, CardType, BankName, BankCode string
	Points, Deleted                     bool
}

func newCardRecord(k *card) cardRecord {
	p := k.prof
	return cardRecord{ID: k.id, CustomerID: k.customerID, Created: k.created, Masked: k.masked, Outcome: p.Outcome, Holder: k.holder,
		ExpMonth: k.exp.Month(), ExpYear: k.exp.Year(), Address: k.address, Brand: p.Brand, CardType: p.Type,
		BankName: p.BankName, BankCode: p.BankCode, Points: p.Points, Deleted: k.deleted}
}

func (r cardRecord) card() card {
	return card{id: r.ID, customerID: r.CustomerID, created: inZone(r.Created), masked: r.Masked, holder: r.Holder,
		exp: cardnum.ParseExpiry(r.ExpMonth, r.ExpYear), address: r.Address, deleted: r.Deleted,
		prof: cardnum.Intern(cardnum.Profile{Brand: r.Brand, Type: r.CardType, BankName: r.BankName, BankCode: r.BankCode,
			Points: r.Points, Outcome: r.Outcome})}
}

type tokenRecord struct {
	ID      string
	Created time.Time
	Card    cardRecord
	Used    bool
}

type bankAccountRecord struct {
	ID, CustomerID                           string
	Created                                  time.Time
	Holder, Alias, CLABE, BankCode, BankName string
	Deleted                                  bool
}

type txRecord struct {
	T                            openpay.Transaction
	Kind                         chargeKind
	Preauth, CaptureOnCompletion bool
	Credited                     openpay.Amount
	Later                        *txLaterRecord `json:",omitempty"`
}

type txLaterRecord struct {
	RedirectURL, Email string
	Refunded, Debited  openpay.Amount
	Chargeback         string
	ChargebackHeld     openpay.Amount
	FeeCharged         time.Time `json:",omitzero"`
}

func newTxRecord(t *tx) txRecord {
	r := txRecord{Kind: t.kind, Preauth: t.preauth, CaptureOnCompletion: t.captureOnCompletion, Credited: t.credited()}
	t.wireTo(&r.T)
	// An empty txLater (made by a refund that was then refused) is the
	// same as none.
	if l := t.later; l != nil && (l.redirectURL != "" || l.email != "" || !l.refunded.IsZero() || !l.debited.IsZero() ||
		l.chargeback != "" || !l.chargebackHeld.IsZero() || !l.feeCharged.IsZero()) {
		r.Later = &txLaterRecord{RedirectURL: l.redirectURL, Email: l.email, Refunded: l.refunded, Debited: l.debited,
			Chargeback: l.chargeback, ChargebackHeld: l.chargebackHeld, FeeCharged: l.feeCharged}
	}
	return r
}

func (r txRecord) tx() *tx {
	t := newTx(r.T.ID, r.T)
	t.kind, t.preauth, t.captureOnCompletion = r.Kind, r.Preauth, r.CaptureOnCompletion
	if l := r.Later; l != nil {
		t.later = &txLater{redirectURL: l.RedirectURL, email: l.Email, refunded: l.Refunded, debited: l.Debited,
			chargeback: l.Chargeback, chargebackHeld: l.ChargebackHeld, feeCharged: inZone(l.FeeCharged)}
	}
	t.setCredited(r.Credited) // after later, which holds it when it is not in cents
	return t
}

// checkoutStored is the persisted form of a checkoutRecord (the state's
// own name for a checkout).
type checkoutStored struct {
	Checkout   openpay.Checkout
	CustomerID string                  `json:",omitempty"`
	Payer      *openpay.ChargeCustomer `json:",omitempty"`
	Redirect   string                  `json:",omitempty"`
	StoreBack  bool                    `json:",omitempty"`
	Base       string
	Cancelled  bool   `json:",omitempty"`
	TxID       string `json:",omitempty"`
}

type subscriptionRecord struct {
	ID                        string
	Created                   time.Time
	PlanID, GroupID           string
	CustomerID, CardID        string
	Status                    openpay.SubscriptionStatus
	CancelAtPeriodEnd         bool
	TrialEnd, Anchor, RetryOn time.Time
	Periods, Failures         int
	Deleted                   bool `json:",omitempty"`
}

type deliveryRecord struct {
	WebhookID string
	Body      json.RawMessage // the event as delivered
	Attempts  int
	// What the attempt log names (the body has no event id).
	EventID, TransactionID string
	EventType              openpay.EventType
}

type webhookRecord struct {
	Webhook  openpay.Webhook
	Password string // sent with every delivery: the receiver's credential, needed after a restart
	Code     string
}

// txKeyOf is the key of the transaction with the given seq: fixed width,
// so that the store's key order is creation order.
func txKeyOf(seq uint32) string { return fmt.Sprintf("%010d", seq) }

// deliveryKeyOf is the key of the delivery with the given seq.
func deliveryKeyOf(seq uint64) string { return fmt.Sprintf("%020d", seq) }

// eventKeyOf is the key of the n-th event a merchant recorded (from 0,
// counting those dropped from the log).
func eventKeyOf(n uint64) string { return fmt.Sprintf("%020d", n) }

// inZone puts a time read back from the store in the gateway's zone, as
// the server's clock gives them (the instant is unchanged).
func inZone(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.In(gatewayZone)
}

// Field dispositions in stateFields.
const (
	fieldSaved = "saved"
)

// stateFields accounts for every field of every struct that holds the
// server's state: fieldSaved (its kind's persisted form carries it) or
// the reason it is not written (rebuilt on load from what is, or not
// state at all). TestDataFieldsAreAccountedFor fails for a field missing
// here, so that a field added to the state cannot be forgotten by
// persistence.
var stateFields = map[reflect.Type]map[string]string{
	reflect.TypeFor[Server](): {
		"opts":               "configuration, given again at each start",
		"clock":              "the fake clock's time is saved in meta; the wall clock is not state",
		"ids":                "the seeded generator's state and the reserved ids are saved in meta; random streams are keyed afresh from crypto/rand, which never repeats what was drawn",
		"reqIDs":             "request ids identify answers, not stored objects",
		"log":                "configuration",
		"maxBody":            "configuration",
		"usdRate":            "configuration",
		"routes":             "built by New",
		"pages":              "built by New",
		"deliveries":         "its pending deliveries are the delivery records (Pending, Record, Restore); the rest of package delivery's queue is this run's, as its package doc says",
		"barcodes":           "rebuilt on load from the customers' store references and the store charges",
		"advanceMu":          "a lock",
		"mu":                 "a lock",
		"merchants":          "the merchant records",
		"groups":             "the group records",
		"hooksMu":            "a lock",
		"eventHooks":         "registered by New",
		"clockWork":          "registered by New",
		"merchantResetHooks": "registered by New",
		"closers":            "registered by New and OpenData",
		"closeOnce":          "a lock",
		"merchantList":       "the order of the merchants bucket",
		"merchantsRO":        "a copy of merchants, made again from it after a load",
		"data":               "the store itself",
		"dash":               "built by New",
		"gate":               "a lock (Reset's)",
		"faults":             "armed faults act on the next requests of this run; a restart disarms them, as Reset does",
		"configMu":           "a lock",
		"config":             "the configuration steps of this run, replayed by Reset: a server restored from a data directory has none of the earlier run's, so its Reset is refused (restored, ErrResetRestored)",
		"restored":           "whether this run loaded its state from the data directory (known again at each OpenData)",
		"clockStart":         "configuration (the fake clock's start, given again at each start)",
		"ownDate":            "configuration (whether the clock is the wall clock)",
		"lastBase":           "a cache of the base URL built from a request",
	},
	reflect.TypeFor[merchant](): {
		"mu": "a lock", "unlock": "the lock's release as a function (call.lock)", "id": "the owner bucket's name",
		"name": fieldSaved, "email": fieldSaved, "phone": fieldSaved, "clabe": fieldSaved, "created": fieldSaved,
		"privHash": fieldSaved, "pubHash": fieldSaved, "status": fieldSaved, "balance": fieldSaved,
		"keyMemo":   "a cache of the keys that matched privHash and pubHash, in memory only",
		"country":   fieldSaved + " (as its code)",
		"clock":     fieldSaved + " (the time of the merchant's own clock; none while it follows the server's)",
		"customers": "the customer records", "cards": "the card records", "cardList": "the card records, in creation order",
		"cardsOf": "rebuilt by cardSet.add",
		"tokens":  "the token records", "tokenList": "the token records, in creation order",
		"txs":           "the transaction records (addTx on load)",
		"txList":        "the transaction records, in seq order",
		"txIndex":       "rebuilt by addTx",
		"txStatus":      "rebuilt by addTx",
		"txSeq":         "rebuilt by addTx",
		"amounts":       "rebuilt by addTx (from the current amounts, which is all lists filter on)",
		"clockBack":     "rebuilt by addTx",
		"orderIDs":      "rebuilt by addTx",
		"heldOrderIDs":  "rebuilt on load from the checkouts' order_id (holdOrderID)",
		"events":        "the event records (and the key of the first, Dropped)",
		"inlineCharged": "a cache of the wire form the last inline card charge recorded (see card.charged)",
		"ext":           "the records of the resource files' kinds; each extState type is listed here too",
		"webhooked":     "set again when the webhooks load (webhooksOf)",
		"data":          "the store itself",
	},
	reflect.TypeFor[group](): {
		"mu": "a lock", "id": "the owner bucket's name", "keyHash": fieldSaved, "merchants": fieldSaved,
		"customers": "the group's customer records", "cards": "the group's card records",
		"cardList": "the group's card records, in creation order", "cardsOf": "rebuilt by cardSet.add", "data": "the store itself",
	},
	reflect.TypeFor[customerSet](): {
		"byID": "the customer records", "list": "the customer records, in creation order",
		"externalID": "rebuilt on load from the live customers",
		"own":        "set when the set is made",
	},
	reflect.TypeFor[customer](): {
		"created": fieldSaved, "text": fieldSaved, "address": fieldSaved,
		"customerAddress": fieldSaved, "deleted": fieldSaved, "customerAccount": fieldSaved, "deactivated": fieldSaved,
	},
	reflect.TypeFor[customerAccount](): {"balance": fieldSaved, "clabe": fieldSaved, "storeRef": fieldSaved,
		"barcode": "built again from storeRef when needed", "barcodeBase": "built again from storeRef when needed"},
	reflect.TypeFor[card](): {
		"id": fieldSaved, "customerID": fieldSaved, "created": fieldSaved, "masked": fieldSaved, "holder": fieldSaved,
		"exp": fieldSaved, "address": fieldSaved, "prof": fieldSaved, "deleted": fieldSaved,
		"cvvPending": "a security code never goes to disk, nor does that one waits for the next charge, which decides nothing by it",
		"charged":    "a cache of the wire form the last charge recorded; the transactions keep their own copy",
	},
	reflect.TypeFor[token](): {
		"id": fieldSaved, "created": fieldSaved, "card": fieldSaved, "used": fieldSaved,
	},
	reflect.TypeFor[tx](): {
		"text": fieldSaved, "card": fieldSaved, "x": fieldSaved, "amountC": fieldSaved, "creditedIs": fieldSaved,
		"createdNs": fieldSaved, "operatedNs": fieldSaved, "createdZone": fieldSaved, "operatedZone": fieldSaved, "statusC": fieldSaved, "typeC": fieldSaved,
		"methodC": fieldSaved, "currencyC": fieldSaved, "opTypeC": fieldSaved, "conciliated": fieldSaved,
		"kind": fieldSaved, "preauth": fieldSaved, "captureOnCompletion": fieldSaved,
		"seq": "the record's key", "later": fieldSaved,
	},
	reflect.TypeFor[txLater](): {
		"redirectURL": fieldSaved, "email": fieldSaved, "refunded": fieldSaved, "debited": fieldSaved,
		"chargeback": fieldSaved, "chargebackHeld": fieldSaved, "feeCharged": fieldSaved,
		"creditedWhole": "saved as the record's Credited",
	},
	reflect.TypeFor[Event](): {
		"ID": fieldSaved, "MerchantID": fieldSaved, "Type": fieldSaved, "Date": fieldSaved, "Transaction": fieldSaved,
	},
	reflect.TypeFor[bankAccountState](): {
		"byID": "the bank account records", "list": "the bank account records, in creation order",
	},
	reflect.TypeFor[bankAccount](): {
		"id": fieldSaved, "customerID": fieldSaved, "created": fieldSaved, "holder": fieldSaved, "alias": fieldSaved,
		"clabe": fieldSaved, "bankCode": fieldSaved, "bankName": fieldSaved, "deleted": fieldSaved,
	},
	reflect.TypeFor[planState](): {
		"byID": "the plan records", "list": "the plan records, in creation order",
	},
	reflect.TypeFor[subscriptionState](): {
		"byID": "the subscription records", "list": "the subscription records, in creation order",
	},
	reflect.TypeFor[subscription](): {
		"id": fieldSaved, "created": fieldSaved, "plan": fieldSaved + " (as its id)", "group": fieldSaved + " (as its id)",
		"customerID": fieldSaved, "cardID": fieldSaved, "status": fieldSaved, "cancelAtPeriodEnd": fieldSaved,
		"trialEnd": fieldSaved, "anchor": fieldSaved, "periods": fieldSaved, "failures": fieldSaved, "retryOn": fieldSaved,
		"deleted": fieldSaved,
	},
	reflect.TypeFor[webhookState](): {
		"byID": "the webhook records", "list": "the webhook records, in creation order",
	},
	reflect.TypeFor[webhook](): {
		"w": fieldSaved, "password": fieldSaved, "code": fieldSaved,
	},
	// What package delivery's queue holds of a pending delivery (Record,
	// Restore); the rest of the queue is this run's (see its package doc).
	reflect.TypeFor[delivery.Delivery](): {
		"Owner": "the owner bucket's name", "To": "from the webhook's record (its id saved)",
		"Event": fieldSaved, "Body": fieldSaved, "Attempts": fieldSaved,
	},
	reflect.TypeFor[delivery.Event](): {
		"ID": fieldSaved, "TransactionID": fieldSaved, "Type": fieldSaved,
	},
	reflect.TypeFor[checkoutState](): {
		"byID": "the checkout records", "list": "the checkout records, in creation order",
	},
	reflect.TypeFor[checkoutRecord](): {
		"c": fieldSaved, "customerID": fieldSaved, "payer": fieldSaved, "redirect": fieldSaved, "base": fieldSaved,
		"cancelled": fieldSaved, "txID": fieldSaved, "storeBack": fieldSaved,
	},
	reflect.TypeFor[feeReportState](): {
		"charged": "rebuilt on load from the transactions' feeCharged, in that order (addFeeCharged)",
	},
}
