package refserver

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/httpedge"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// The call: one API request as the handlers get it, its body, the locks
// its path takes, the owners its path names (its scope), and the id of what
// it creates.

// call is one API request being answered: what the handlers get.
type call struct {
	s         *Server
	w         http.ResponseWriter
	r         *http.Request
	route     *route
	requestID string
	// m is the merchant the path names, authenticated (nil on routes that
	// need no credentials, and on unknown paths).
	m *merchant
	// g is the group on /v1/groups/{group_id}/... paths, else nil.
	g *group
	// key is the kind of key that authenticated the request.
	key keyKind
	// admin: the admin key (Options.AdminKey) authenticated a server-wide
	// control, which then acts for the whole server (c.m is nil).
	admin bool
	// params are the values of the route's path parameters, in the order
	// of route.params (kept here rather than with Request.SetPathValue,
	// which allocates a map per request); paramBuf is their storage.
	params   []string
	paramBuf [4]string
	// query is the request's query string, parsed whole by parseQuery
	// before anything reads it (nil when there is none). Handlers read
	// it, never r.URL.Query(), which drops what it cannot parse.
	query url.Values
	// body is the request's body, read before the request entered the
	// gate (reqbody.Body.Preread).
	body reqbody.Body
	// gated: the request holds s.gate for reading (enterGate).
	gated bool
	// sw is c.w, kept here so that a request allocates one value for both;
	// idHeader is the X-Request-Id header's value, requestID in one
	// allocation (idgen.Generator.RequestIDHeader).
	sw       httpedge.StatusWriter
	idHeader []string
	// buf is the storage lent to a small body (bodyBuf), kept with the
	// call from request to request (calls).
	buf []byte
	// tx and store are the storage of a transaction's answer (answerTx),
	// card a card's (answerCard), so that the answer is not allocated per request.
	tx    openpay.Transaction
	store openpay.StoreReference
	card  openpay.Card
	// customer is a new customer's answer (createCustomer), kept as card.
	customer openpay.Customer
}

// calls keeps the calls of answered requests for the next ones, with
// their body storage (smallBody bytes). Nothing of a call is reachable once
// its request is answered: its body is given back (reqbody.Body.Done), and
// its request id is apart, as net/http may write headers after ServeHTTP.
var calls = sync.Pool{New: func() any { return new(call) }}

const smallBody = 2048

// newCall returns a call for request r from the pool, with its request id.
func newCall(s *Server, r *http.Request) *call {
	c := calls.Get().(*call)
	c.s, c.r, c.idHeader = s, r, s.reqIDs.RequestIDHeader()
	c.requestID = c.idHeader[0]
	return c
}

// bodyBuf returns the storage the call lends to a small body.
func (c *call) bodyBuf() []byte {
	if c.buf == nil && c.r.ContentLength > 0 && c.r.ContentLength <= smallBody {
		c.buf = make([]byte, 0, smallBody)
	}
	return c.buf
}

// release puts the call back in the pool once its request is answered.
func (c *call) release() {
	c.body.Done(c.r)
	*c = call{buf: c.buf}
	calls.Put(c)
}

// answerTx returns the answer of t: its wire form (tx.snapshot), taken now
// under the caller's lock, kept in the call and written by ServeHTTP.
func (c *call) answerTx(t *tx) *openpay.Transaction {
	t.snapshotTo(&c.tx)
	return &c.tx
}

// answerCard returns the answer of k, its wire form kept in the call as
// answerTx keeps a transaction's. The caller holds the lock of k's set.
func (c *call) answerCard(k *card) *openpay.Card {
	c.card = k.wire()
	return &c.card
}

// parseQuery parses the request's query string once, whole: a query that
// cannot be parsed (a bad escape, a semicolon, more parameters than
// net/url takes) is refused with 1001 rather than read in part, which
// would drop filters and answer a list unfiltered.
func (c *call) parseQuery() *Error {
	if c.r.URL.RawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(c.r.URL.RawQuery)
	if err != nil {
		return errorf(openpay.ErrBadRequest, "The query string could not be read")
	}
	c.query = q
	return nil
}

// enterGate takes the reset gate for reading (reset.go): from here to
// leaveGate the request sees one state, wholly before or wholly after any
// reset.
func (c *call) enterGate() {
	c.s.gate.RLock()
	c.gated = true
}

// leaveGate lets go of the reset gate, if the request holds it.
func (c *call) leaveGate() {
	if c.gated {
		c.gated = false
		c.s.gate.RUnlock()
	}
}

// commit writes what the request changed to the data directory (when the
// server has one): 1000 when it cannot, logged.
func (c *call) commit() *Error {
	if err := c.s.commitData(); err != nil {
		c.s.log.Error("refserver: the data directory could not be written", "operation", c.operation(),
			"request_id", c.requestID, "error", err.Error())
		return errorf(openpay.ErrInternalServer, descInternal)
	}
	return nil
}

// outsideGate runs f with the request out of the reset gate, so that a
// reset never waits for f: a network call (a webhook's verification event,
// the lookup of its host). What the request changed so far is written
// first, as at its end: a reset may come meanwhile. The caller holds no
// lock. It reports whether the state the request acts on is still the
// server's. When a reset replaced it meanwhile, current is false and c.m
// and c.g are the new state's merchant and group of the same ids (a reset
// keeps them): what the request made before is the reset's to erase, as
// if the request had ended before it, and the caller must not go on with
// anything it holds of the old state.
func (c *call) outsideGate(f func()) (current bool, e *Error) {
	if e := c.commit(); e != nil {
		return false, e
	}
	if !c.gated {
		f()
		return true, nil
	}
	c.leaveGate()
	f()
	c.enterGate()
	current = true
	if c.m != nil {
		if m := c.s.merchantByID(c.m.id); m != c.m && m != nil {
			c.m, current = m, false
		}
	}
	if c.g != nil {
		if g := c.s.groupByID(c.g.id); g != c.g && g != nil {
			c.g, current = g, false
		}
	}
	return current, nil
}

// readBody reads the call's body as one JSON object within the server's
// body limit (reqbody.Read): 1001 when it is not one, 1009 when too large.
// An empty body is empty fields when optional is true.
func readBody(c *call, optional bool) (reqbody.Fields, *Error) {
	return reqbody.Read(c.r, c.s.maxBody, optional)
}

// controlOwner is whose state a server-wide control (reset, faults) acts
// on: the merchant whose key authenticated it, or "" for the admin key
// (the whole server).
func (c *call) controlOwner() string {
	if c.admin {
		return ""
	}
	return c.m.id // set by authenticateAnyMerchant otherwise
}

// faultOwner is whose faults a fault control lists and disarms: the
// merchant's (controlOwner), or nil, every fault, for the admin key.
func (c *call) faultOwner() *string {
	if c.admin {
		return nil
	}
	return &c.m.id
}

// param returns the path parameter with the given name ("" when absent).
func (c *call) param(name string) string {
	if c.route == nil {
		return ""
	}
	for i, n := range c.route.params {
		if n == name {
			return c.params[i]
		}
	}
	return ""
}

// operation names the route of the call for logs: its operationId, never
// its path (paths carry identifiers a careless client might fill with card
// data).
func (c *call) operation() string {
	if c.route == nil {
		return "unmatched"
	}
	return c.route.operationID
}

// baseURL is the absolute URL clients reach the server at.
func (c *call) baseURL() string {
	if c.s.opts.BaseURL != "" {
		base := strings.TrimSuffix(c.s.opts.BaseURL, "/")
		if c.m != nil {
			base = c.m.country.HostFor(base)
		}
		return base
	}
	return c.s.lastBase.Of(c.r)
}

// Scopes. A path names up to three owners: a group, a merchant and a
// customer. Customers (and their cards) on group paths are the group's own,
// also when one of the group's merchants charges them; everything else
// (merchant-level cards, tokens, transactions) is the merchant's. So one
// handler serves a merchant path and its group counterpart, reading its
// records through c.customers and c.cards under c.lock.

// lock takes the locks the path needs, the group's before the merchant's
// (the order of store.go), and returns the function that releases them:
//
//	defer c.lock()()
func (c *call) lock() (unlock func()) {
	g, m := c.g, c.m
	if g != nil {
		g.mu.Lock()
	}
	if m != nil {
		m.mu.Lock()
		if g == nil {
			// A merchant's path: the merchant's own unlock, made once
			// (under its lock), rather than a function per request.
			if m.unlock == nil {
				m.unlock = m.mu.Unlock
			}
			return m.unlock
		}
	}
	return func() {
		if m != nil {
			m.mu.Unlock()
		}
		if g != nil {
			g.mu.Unlock()
		}
	}
}

// lockWithGroups locks what a merchant's subscriptions need: the groups
// the merchant belongs to, in id order, then the merchant (the lock order
// of store.go: groups before merchants; no other code holds two groups at
// once, so taking them in a fixed order cannot deadlock). It returns the
// function that releases them.
func (s *Server) lockWithGroups(m *merchant) (unlock func()) {
	s.mu.RLock()
	var gs []*group
	for _, g := range s.groups {
		if g.merchants[m.id] { // fixed at the group's creation
			gs = append(gs, g)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(gs, func(a, b *group) int { return strings.Compare(a.id, b.id) })
	for _, g := range gs {
		g.mu.Lock()
	}
	m.mu.Lock()
	return func() {
		m.mu.Unlock()
		for i := len(gs) - 1; i >= 0; i-- {
			gs[i].mu.Unlock()
		}
	}
}

// eachMerchant calls f with each merchant whose records may hold the path's
// customers' transactions or state: the path's merchant (locked by c.lock),
// or on a group path without one each merchant of the group, in id order,
// locked while f runs. It stops at the first error f returns.
func (c *call) eachMerchant(f func(m *merchant) *Error) *Error {
	if c.m != nil {
		return f(c.m)
	}
	for _, m := range c.s.groupMerchants(c.g) {
		m.mu.Lock()
		e := f(m)
		m.mu.Unlock()
		if e != nil {
			return e
		}
	}
	return nil
}

// customers returns the customers the path's {customer_id} belongs to: the
// group's on group paths, else the merchant's.
func (c *call) customers() *customerSet {
	if c.g != nil {
		return c.g.customers
	}
	return c.m.customers
}

// cards returns the cards of the path's scope: a group customer's live with
// the group, every other card with the merchant.
func (c *call) cards() cardSet {
	if c.g != nil && c.param("customer_id") != "" {
		return c.g.storedCards()
	}
	return c.m.storedCards()
}

// scopeCustomer returns the customer the path names (nil at merchant
// scope), or 1005. The caller holds the locks of c.lock; on merchant paths
// that is c.m.mu alone.
func (c *call) scopeCustomer() (*customer, *Error) {
	id := c.param("customer_id")
	if id == "" {
		return nil, nil
	}
	cu := c.customers().get(id)
	if cu == nil {
		return nil, errNotFound("customer", id)
	}
	return cu, nil
}

// unusedToken returns the token the request names, usable: the merchant's
// on merchant paths; on group paths a token of any merchant of the group
// (a group has no tokens of its own, and its key acts for each of its
// merchants), whose merchant stays locked until release is called. The
// caller holds the locks of c.lock.
func (c *call) unusedToken(id string) (tk *token, release func(), _ *Error) {
	if c.m != nil {
		tk, e := c.m.unusedToken(id)
		return tk, func() {}, e
	}
	return c.s.groupToken(c.g, id)
}

// groupToken finds an unused token of one of the group's merchants: 1005
// when none of them has it, 1003 when it was used. The token's merchant
// stays locked until release is called, so that the caller can consume
// the token in the same critical section. The caller holds g.mu (the lock
// order: group, then one merchant).
func (s *Server) groupToken(g *group, id string) (tk *token, release func(), _ *Error) {
	for _, m := range s.groupMerchants(g) {
		m.mu.Lock()
		if m.tokens[id] == nil {
			m.mu.Unlock()
			continue
		}
		tk, e := m.unusedToken(id)
		if e != nil {
			m.mu.Unlock()
			return nil, nil, e
		}
		return tk, m.mu.Unlock, nil
	}
	return nil, nil, errNotFound("token", id)
}

// fixedIDKey is the context key under which a seed passes the id that the
// resource a request creates is to get. Only a request made in process can
// carry it: nothing on the wire sets a context value.
type fixedIDKey struct{}

// fixedID returns the id a seed fixed for the resource the call creates,
// or "".
func (c *call) fixedID() string {
	id, _ := c.r.Context().Value(fixedIDKey{}).(string)
	return id
}

// newID returns the id of the resource the call creates: the one a seed
// fixed, or a fresh one of the kind.
func (c *call) newID(kind idgen.Kind) string {
	if id := c.fixedID(); id != "" {
		return id
	}
	return c.s.ids.NewID(kind)
}
