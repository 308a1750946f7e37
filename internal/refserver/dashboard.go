package refserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/httpedge"
	"github.com/openpay-go/openpay/internal/refserver/seqindex"
	"github.com/openpay-go/openpay/internal/web"
)

// The dashboard (package web renders it, at /_dashboard/) sees the server
// through dashBackend: this file gathers its data into the plain view
// structs of package web and runs its buttons through the very methods of
// the simulation controls. It is the one integration point between the
// server and the dashboard.
//
// Who may look. When the server listens on loopback only
// (Options.ListenAddr, or else the local address the request came in on)
// and the request names a loopback host (a page of another site that
// rebinds its DNS name to 127.0.0.1 names its own host), the dashboard
// shows every merchant without credentials. Otherwise it asks for HTTP
// Basic credentials, a merchant's id as the user name and its private key
// as the password, and shows that merchant alone. Private keys are held as
// hashes only, so no page can show one; card numbers and CLABEs are shown
// masked, as the API answers them.
//
// Costs. Every list takes the page it shows, never the whole store: the
// transaction page reads the page's records from the merchant's
// creation-order indexes under its lock; the events of those transactions
// come from the merchant's bounded event log, walked after the lock is let
// go; the owned records of a page of customers (cards, bank accounts,
// subscriptions, in append-only lists) are gathered holding the lock for
// listChunk records at a time.

// newDashboard builds the dashboard, nil when Options.NoDashboard turns it
// off. Its templates are embedded, so a failure is a programming error
// that every test run catches.
func (s *Server) newDashboard() *web.Dashboard {
	if s.opts.NoDashboard {
		return nil
	}
	d, err := web.NewDashboard(dashBackend{s})
	if err != nil {
		panic("refserver: dashboard: " + err.Error())
	}
	return d
}

// dashBackend is the server as the dashboard sees it.
type dashBackend struct{ s *Server }

var _ web.DashboardBackend = dashBackend{}

// Authorize implements web.DashboardBackend (see the rules above).
func (b dashBackend) Authorize(r *http.Request) (web.Viewer, bool) {
	if b.s.dashboardOnLoopback(r) {
		return web.Viewer{All: true, ResetNeedsKey: b.s.opts.AdminKey != ""}, true
	}
	user, key, ok := r.BasicAuth()
	if !ok || key == "" {
		return web.Viewer{}, false
	}
	m := b.s.merchantByID(user)
	// A dummy comparison keeps an unknown merchant as slow as a known one.
	var want [32]byte
	if m != nil {
		want = m.privHash
	}
	got := sha256.Sum256([]byte(key))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || m == nil {
		return web.Viewer{}, false
	}
	return web.Viewer{MerchantID: m.id}, true
}

// dashboardOnLoopback reports whether the dashboard may open without
// credentials: the server listens on loopback only and the request names a
// loopback host.
func (s *Server) dashboardOnLoopback(r *http.Request) bool {
	addr := s.opts.ListenAddr
	if addr == "" {
		a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if !ok {
			return false
		}
		addr = a.String()
	}
	return httpedge.LoopbackHost(addr) && httpedge.LoopbackHost(r.Host)
}

// Clock implements web.DashboardBackend: on a merchant's pages the
// merchant's clock (its own, or the server's it follows), which the viewer
// may always move (clock.go: moving it moves nobody else's); on the
// overview the server's, which a fake clock lets the loopback viewer move
// (a merchant signed in sees its own there too).
func (b dashBackend) Clock(v web.Viewer, merchantID string) web.DashClock {
	if !v.All {
		merchantID = v.MerchantID
	}
	_, fake := b.s.clock.(*FakeClock)
	if merchantID == "" {
		return web.DashClock{Now: b.s.Now(), Fake: fake, Movable: fake && v.All}
	}
	now, own, err := b.s.MerchantClock(merchantID)
	if err != nil {
		return web.DashClock{}
	}
	return web.DashClock{Now: now, Own: own, Fake: fake || own, Movable: true}
}

// summary is the merchant's line of the overview. The caller holds m.mu.
func (m *merchant) summary() web.DashMerchant {
	return web.DashMerchant{Merchant: m.wire(), Currency: string(m.country.Currency), Customers: len(m.customers.list), Transactions: len(m.txList),
		Webhooks: len(webhooksOf(m).list)}
}

// Merchants implements web.DashboardBackend.
func (b dashBackend) Merchants(v web.Viewer) []web.DashMerchant {
	var out []web.DashMerchant
	for _, m := range b.s.merchantsInOrder() {
		if !v.Sees(m.id) {
			continue
		}
		m.mu.Lock()
		out = append(out, m.summary())
		m.mu.Unlock()
	}
	return out
}

// pageBounds returns the indexes [lo, hi) of a page of a list of n records
// in creation order, newest first: the page is read from hi-1 down to lo.
func pageBounds(n, offset, limit int) (lo, hi int) {
	hi = max(n-offset, 0)
	return max(hi-limit, 0), hi
}

// eachChunked calls visit with each record of the append-only list that
// list returns, in order, holding m.mu for listChunk records at a time so
// that writers keep their pace however long the list.
func eachChunked[R any](m *merchant, list func() []R, visit func(R)) {
	m.mu.Lock()
	defer func() { m.mu.Unlock() }()
	for i := 0; i < len(list()); i++ {
		if i > 0 && i%listChunk == 0 {
			m.mu.Unlock()
			m.mu.Lock()
		}
		visit(list()[i])
	}
}

// merchant returns the merchant a page is about, or web.ErrNoMerchant.
func (b dashBackend) merchant(id string) (*merchant, error) {
	if m := b.s.merchantByID(id); m != nil {
		return m, nil
	}
	return nil, web.ErrNoMerchant
}

// Customers implements web.DashboardBackend.
func (b dashBackend) Customers(merchantID string, offset, limit int) (web.DashCustomers, error) {
	m, err := b.merchant(merchantID)
	if err != nil {
		return web.DashCustomers{}, err
	}
	var out web.DashCustomers
	m.mu.Lock()
	out.Merchant = m.summary()
	list := m.customers.list
	lo, hi := pageBounds(len(list), offset, limit)
	out.Page = web.Paging{Offset: offset, Limit: limit, Total: len(list)}
	at := make(map[string]int, hi-lo)
	for i := hi - 1; i >= lo; i-- {
		at[list[i].id()] = len(out.Customers)
		out.Customers = append(out.Customers, web.DashCustomer{Customer: list[i].wire(b.s.opts.BaseURL)})
	}
	m.mu.Unlock()
	if len(at) == 0 {
		return out, nil
	}
	eachChunked(m, func() []*card { return m.cardList }, func(k *card) {
		if i, ok := at[k.customerID]; ok && k.customerID != "" && !k.deleted {
			out.Customers[i].Cards = append(out.Customers[i].Cards, k.wire())
		}
	})
	eachChunked(m, func() []*bankAccount { return bankAccounts(m).list }, func(ba *bankAccount) {
		if i, ok := at[ba.customerID]; ok && ba.customerID != "" && !ba.deleted {
			out.Customers[i].BankAccounts = append(out.Customers[i].BankAccounts, ba.wire())
		}
	})
	eachChunked(m, func() []*subscription { return subscriptionsOf(m).list }, func(sub *subscription) {
		// A group's customer's subscription needs the group's lock, and its
		// customer is not one of the merchant's anyway.
		if i, ok := at[sub.customerID]; ok && sub.group == nil {
			out.Customers[i].Subscriptions = append(out.Customers[i].Subscriptions, sub.wire(m))
		}
	})
	return out, nil
}

// Transactions implements web.DashboardBackend. An id shows that one
// transaction; a status or customer without a type filters charges, and a
// customer leaves the status aside (no index holds both). An unknown type,
// status or customer gives an empty page.
func (b dashBackend) Transactions(merchantID string, q web.TxQuery) (web.DashTransactions, error) {
	m, err := b.merchant(merchantID)
	if err != nil {
		return web.DashTransactions{}, err
	}
	out := web.DashTransactions{Type: q.Type, Status: q.Status, Customer: q.Customer}
	if out.Customer != "" {
		out.Status = ""
	}
	if (out.Status != "" || out.Customer != "") && out.Type == "" {
		out.Type = string(openpay.TransactionTypeCharge)
	}
	m.mu.Lock()
	out.Merchant = m.summary()
	var recs seqindex.List
	all := false
	switch {
	case q.ID != "":
		if t := m.txByID(q.ID); t != nil {
			recs = seqindex.List{t.seq}
		}
	case out.Customer != "":
		recs = m.txIndex.Get(txKey{typ: openpay.TransactionType(out.Type), customer: out.Customer})
	case out.Status != "":
		recs = m.txStatus.Get(txKey{typ: openpay.TransactionType(out.Type), status: openpay.TransactionStatus(out.Status)})
	case out.Type != "":
		recs = m.txIndex.Get(txKey{typ: openpay.TransactionType(out.Type)})
	default:
		all = true
	}
	// n records, the i-th (oldest first) being rec(i).
	n, rec := len(recs), func(i int) *tx { return m.tx(recs[i]) }
	if all {
		n, rec = len(m.txList), func(i int) *tx { return m.txList[i] }
	}
	lo, hi := pageBounds(n, q.Offset, q.Limit)
	out.Page = web.Paging{Offset: q.Offset, Limit: q.Limit, Total: n, Type: out.Type, Status: out.Status, Customer: out.Customer}
	at := make(map[string]int, hi-lo)
	for i := hi - 1; i >= lo; i-- {
		t := rec(i)
		at[t.id()] = len(out.Transactions)
		out.Transactions = append(out.Transactions, web.DashTransaction{Transaction: t.snapshot(), Actions: t.dashActions()})
	}
	// The log's records never change, and a copy of it is a view that stays
	// valid unlocked (chunklog's contract).
	events := m.events
	m.mu.Unlock()
	for i := range events.Len() {
		ev := events.At(i)
		if i, ok := at[ev.tx.id()]; ok {
			tx := &out.Transactions[i]
			tx.Events = append(tx.Events, web.DashEvent{ID: ev.id.String(), Type: ev.typ, Date: txZones.DateTime(ev.date), Status: ev.tx.status()})
		}
	}
	// A few changes emit no event (a 3-D Secure pre-authorization
	// completed), and the log keeps only the latest events: the history
	// ends with the status the transaction has now.
	for i := range out.Transactions {
		tx := &out.Transactions[i]
		if n := len(tx.Events); n == 0 || tx.Events[n-1].Status != tx.Transaction.Status {
			tx.Events = append(tx.Events, web.DashEvent{Date: tx.Transaction.OperationDate, Status: tx.Transaction.Status})
		}
	}
	return out, nil
}

// dashActions lists the dashboard's actions the transaction's state
// allows, as the simulation controls check them. The caller holds m.mu.
func (t *tx) dashActions() []string {
	var out []string
	switch t.typ() {
	case openpay.TransactionTypeCharge:
		st := t.status()
		if (t.kind == kindStore || t.kind == kindBank) && st == openpay.TransactionStatusInProgress {
			out = append(out, web.ActionPay)
		}
		if st == openpay.TransactionStatusChargePending {
			out = append(out, web.ActionComplete)
		}
		if t.pending() && !t.preauth {
			out = append(out, web.ActionFail)
		}
		if t.byCard() && (st == openpay.TransactionStatusCompleted || st == openpay.TransactionStatusRefunded) &&
			(t.later == nil || (t.later.chargeback == "" && t.amount().Sub(t.later.refunded).IsPositive())) {
			out = append(out, web.ActionChargeback)
		}
		if st == openpay.TransactionStatusChargebackPending {
			out = append(out, web.ActionAccept, web.ActionReject)
		}
	case openpay.TransactionTypePayout:
		if t.status() == openpay.TransactionStatusInProgress {
			out = append(out, web.ActionSettle, web.ActionFail)
		}
	}
	return out
}

// Webhooks implements web.DashboardBackend.
func (b dashBackend) Webhooks(merchantID string) (web.DashWebhooks, error) {
	m, err := b.merchant(merchantID)
	if err != nil {
		return web.DashWebhooks{}, err
	}
	var out web.DashWebhooks
	m.mu.Lock()
	out.Merchant = m.summary()
	list := webhooksOf(m).list
	for i := len(list) - 1; i >= 0; i-- {
		out.Webhooks = append(out.Webhooks, web.DashWebhook{Webhook: list[i].wire()})
	}
	m.mu.Unlock()
	// The delivery queue is asked after the merchant's lock is let go.
	for i := range out.Webhooks {
		wh := &out.Webhooks[i]
		st := b.s.deliveries.Stats(wh.Webhook.ID)
		wh.Pending, wh.Dropped, wh.GivenUp = st.Pending, st.Dropped, st.GivenUp
		log := b.s.deliveries.Attempts(wh.Webhook.ID)
		for j := len(log) - 1; j >= 0; j-- {
			a := log[j]
			wh.Attempts = append(wh.Attempts, web.DashAttempt{Time: a.At, EventID: a.Event.ID, TransactionID: a.Event.TransactionID,
				EventType: a.Event.Type, Attempt: a.N, StatusCode: a.Status, Error: a.Err})
		}
	}
	return out, nil
}

// Act implements web.DashboardBackend with the simulation controls' methods.
func (b dashBackend) Act(merchantID, transactionID, action string) error {
	s := b.s
	var err error
	switch action {
	case web.ActionPay:
		_, err = s.PayCharge(merchantID, transactionID)
	case web.ActionComplete:
		_, err = s.CompleteCharge(merchantID, transactionID)
	case web.ActionChargeback:
		_, err = s.OpenChargeback(merchantID, transactionID)
	case web.ActionAccept, web.ActionReject:
		_, err = s.ResolveChargeback(merchantID, transactionID, action == web.ActionAccept)
	case web.ActionSettle:
		_, err = s.SettlePayout(merchantID, transactionID)
	case web.ActionFail:
		if s.isPayout(merchantID, transactionID) {
			_, err = s.FailPayout(merchantID, transactionID, "")
		} else {
			_, err = s.FailCharge(merchantID, transactionID, 0)
		}
	default:
		return errors.New("unknown action " + action)
	}
	var e *Error
	if errors.As(err, &e) {
		return errors.New(e.Description)
	}
	return err
}

// isPayout reports whether the merchant's transaction is a payout.
func (s *Server) isPayout(merchantID, transactionID string) bool {
	m := s.merchantByID(merchantID)
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.txByID(transactionID)
	return t != nil && t.typ() == openpay.TransactionTypePayout
}

// AdvanceClock implements web.DashboardBackend with the clock controls:
// the button on a merchant's page moves that merchant's clock (as its
// simulation control does, clock.go), the one on the overview, which only
// the loopback viewer's, the server's (a merchant signed in moves its own
// from any page).
func (b dashBackend) AdvanceClock(v web.Viewer, merchantID string, d time.Duration) error {
	if !v.All {
		merchantID = v.MerchantID
	}
	var err error
	if merchantID != "" {
		_, err = b.s.AdvanceMerchantClock(merchantID, d)
	} else {
		_, err = b.s.AdvanceClock(d)
	}
	var e *Error
	if errors.As(err, &e) {
		return errors.New(e.Description)
	}
	return err
}

// Reset implements web.DashboardBackend: the button does what POST
// /_simulate/reset does with the admin key (reset.go), every merchant back
// to its seed; package web offers it to the loopback viewer only, and on a
// server with an admin key it takes that key, typed in the form: the
// loopback viewer may be one worker of many sharing the server.
func (b dashBackend) Reset(adminKey string) error {
	if want := b.s.opts.AdminKey; want != "" && subtle.ConstantTimeCompare([]byte(adminKey), []byte(want)) != 1 {
		return errors.New("this server has an admin key (--admin-key): type it to reset every merchant")
	}
	return b.s.Reset()
}
