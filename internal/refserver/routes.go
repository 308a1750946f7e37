package refserver

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/openpay-go/openpay/internal/refserver/routetree"
)

// The route table: one entry per operationId of openapi.yaml, plus the
// simulation controls and the barcode images. Each resource file registers
// its own entries in a register function that buildRoutes calls, so that
// filling in a resource never touches this file or server.go.
//
// Matching is done here rather than by http.ServeMux: the group paths
// (/v1/groups/{group_id}/customers/...) and the merchant paths
// (/v1/{merchant_id}/customers/...) overlap in ways ServeMux refuses to
// register, and ServeMux answers unknown and unclean paths with plain-text
// pages and redirects, where the gateway answers with its error object. The
// rule is simple: a path matches a pattern when it has as many segments and
// every literal segment is equal; among several matches the one with more
// literal segments wins (so /v1/groups/... beats /v1/{merchant_id}/...).

// access is what credentials a route needs.
type access int

const (
	// accessPrivate: the merchant's private key (or the group's key on
	// group paths). The default.
	accessPrivate access = iota
	// accessPublic: the merchant's private or public key (card and token
	// creation).
	accessPublic
	// accessNone: no credentials (store search, barcode images).
	accessNone
	// accessAnyMerchant: the private key of any merchant of the server
	// (the server-wide controls, reset.go).
	accessAnyMerchant
)

// handlerFunc answers a call. It returns the response body (encoded as JSON,
// or written as is when it is a rawBody; nil writes no body) or an error.
// The success status is the route's.
type handlerFunc func(c *call) (any, *Error)

// route is one entry of the table.
type route struct {
	operationID string
	method      string
	pattern     string
	status      int // success status
	access      access
	group       bool     // a /v1/groups/{group_id}/... path: authenticated by the group's key
	clientIP    bool     // charge creation: the X-Forwarded-For rule applies
	simulation  bool     // a simulation control, not part of the gateway's API
	browser     bool     // browsers on other origins may call it (CORS, browser.go)
	exclusive   bool     // answered outside the gate, which it takes itself (Reset)
	segs        []string // literal segments, "" for a parameter
	params      []string // parameter names in order
	literals    int
	order       int // place in registration order
}

// allowPublicKey lets the merchant's public key call the route, and with
// it browser scripts on other origins (CORS): the public key is the
// browser's key.
func (rt *route) allowPublicKey() *route { rt.access = accessPublic; rt.browser = true; return rt }

// fromBrowser opens a route that needs no key to browser scripts on other
// origins (the anti-fraud device data the browser library fetches).
func (rt *route) fromBrowser() *route { rt.browser = true; return rt }

// noAuth makes the route answer without credentials.
func (rt *route) noAuth() *route { rt.access = accessNone; return rt }

// needsClientIP applies the X-Forwarded-For rule of charge creation.
func (rt *route) needsClientIP() *route { rt.clientIP = true; return rt }

// routeTable holds the routes. Their shape (patterns, access, the indexes
// that match a path) is the same on every server and built once per process,
// by the first server made; each server's table shares it and holds only its
// own handlers, so that making a server costs a handler per route rather than
// the table (BenchmarkNewServer in openpaytest). It is only read after New,
// but for a test's route (add after New), which gives that server indexes of
// its own first.
type routeTable struct {
	routes []*route
	byOp   map[string]*route
	// tree finds a path's route, by its index in routes.
	tree *routetree.Tree
	// handlers are this server's, by route (route.order-1).
	handlers []handlerFunc
	// filling is set while a server registers its handlers against the
	// shared shape: add then only checks the operation and keeps the
	// handler.
	filling bool
	// shared is set when the indexes are the process's, which add copies
	// before changing.
	shared bool
	// scratch takes the settings (allowPublicKey, ...) that registration
	// applies to a route of the shared shape, which already has them.
	scratch route
}

// sharedRoutes is the route table's shape, built by the first server.
var sharedRoutes struct {
	once  sync.Once
	table *routeTable
}

func newRouteTable() *routeTable {
	return &routeTable{byOp: make(map[string]*route), tree: &routetree.Tree{}}
}

// add registers an operation of the gateway's API: its operationId (as in
// openapi.yaml), method, path pattern ({name} for a parameter), success
// status and handler. Patterns under /v1/{merchant_id} are authenticated as
// the merchant, under /v1/groups/{group_id} as the group. It panics on a
// duplicate, which is a programming error that every test run catches.
func (t *routeTable) add(operationID, method, pattern string, status int, h handlerFunc) *route {
	if t.filling {
		if i := len(t.handlers); i >= len(t.routes) || t.routes[i].operationID != operationID {
			panic("refserver: routes registered in another order than the first server's: " + operationID)
		}
		t.handlers = append(t.handlers, h)
		t.scratch = route{}
		return &t.scratch
	}
	if t.shared {
		t.own()
	}
	rt := &route{operationID: operationID, method: method, pattern: pattern, status: status, access: accessPrivate}
	if !strings.HasPrefix(pattern, "/") {
		panic("refserver: route pattern must start with /: " + pattern)
	}
	for _, seg := range strings.Split(pattern[1:], "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			rt.segs = append(rt.segs, "")
			rt.params = append(rt.params, seg[1:len(seg)-1])
		} else {
			rt.segs = append(rt.segs, seg)
			rt.literals++
		}
	}
	rt.group = strings.HasPrefix(pattern, "/v1/groups/")
	if _, dup := t.byOp[operationID]; dup {
		panic("refserver: duplicate operation " + operationID)
	}
	if i, ok := t.tree.Add(method, rt.segs, len(t.routes)); !ok {
		panic(fmt.Sprintf("refserver: %s %s registered twice (%s, %s)", method, pattern, t.routes[i].operationID, operationID))
	}
	t.routes = append(t.routes, rt)
	t.handlers = append(t.handlers, h)
	t.byOp[operationID] = rt
	rt.order = len(t.routes)
	return rt
}

// simulate registers a simulation control: a POST under /_simulate, apart
// from the API, authenticated with a merchant's private key when the
// pattern starts with /_simulate/{merchant_id}.
func (t *routeTable) simulate(name, pattern string, h handlerFunc) *route {
	if !strings.HasPrefix(pattern, "/_simulate/") {
		panic("refserver: simulation controls live under /_simulate/: " + pattern)
	}
	rt := t.add("simulate:"+name, http.MethodPost, pattern, http.StatusOK, h)
	rt.simulation = true
	return rt
}

// match finds the route for a method and URL. It returns the route and the
// values of its parameters, appended to dst; or nil and the methods the path
// accepts (empty when no route has this path).
func (t *routeTable) match(method string, u *url.URL, dst []string) (*route, []string, []string) {
	i, allowed, params := t.tree.Match(method, u, dst[:0])
	if i < 0 {
		return nil, allowed, nil
	}
	return t.routes[i], nil, params
}

// buildRoutes builds the table. Each resource file contributes through its
// register function; a file of the second wave replaces the body of its
// function (its stub) without touching the others.
func (s *Server) buildRoutes() *routeTable {
	var first *routeTable
	sharedRoutes.once.Do(func() {
		first = newRouteTable()
		s.registerRoutes(first)
		sharedRoutes.table = first
	})
	shape := sharedRoutes.table
	t := &routeTable{routes: shape.routes, byOp: shape.byOp, tree: shape.tree, shared: true}
	if first != nil {
		t.handlers = first.handlers
		return t
	}
	t.handlers = make([]handlerFunc, 0, len(shape.routes))
	t.filling = true
	s.registerRoutes(t)
	t.filling = false
	if len(t.handlers) != len(t.routes) {
		panic("refserver: a server registered fewer routes than the first")
	}
	return t
}

// own gives the table indexes of its own, for a route added to one server
// (a test's): the shared ones stay as they are.
func (t *routeTable) own() {
	t.routes = slices.Clip(slices.Clone(t.routes))
	t.byOp = maps.Clone(t.byOp)
	t.tree = t.tree.Clone()
	t.handlers = slices.Clip(t.handlers)
	t.shared = false
}

// registerRoutes registers every route of the server in t.
func (s *Server) registerRoutes(r *routeTable) {
	s.registerMerchant(r)
	s.registerCards(r)
	s.registerTokens(r)
	s.registerBINs(r)
	s.registerCharges(r)
	s.registerCustomers(r)
	s.registerBankAccounts(r)
	s.registerPayouts(r)
	s.registerTransfers(r)
	s.registerFees(r)
	s.registerReports(r)
	s.registerPlans(r)
	s.registerSubscriptions(r)
	s.registerCheckouts(r)
	s.registerWebhooks(r)
	s.registerStores(r)
	s.registerGroups(r)
	s.registerBarcode(r)
	s.registerAntifraud(r)
	s.registerSimulation(r)
	s.registerControls(r)
	s.registerDeliveryControls(r)
}

// Route describes one entry of the route table, for documentation and tests.
type Route struct {
	OperationID string // operationId in openapi.yaml, or "simulate:<name>"
	Method      string
	Pattern     string // path with {name} parameters
	Status      int    // success status
	PublicKey   bool   // the public key may call it
	NoAuth      bool   // no credentials needed
	Simulation  bool   // a simulation control, not part of the gateway's API
	Browser     bool   // open to browser scripts on other origins (CORS)
}

// Routes lists the route table in registration order.
func (s *Server) Routes() []Route {
	out := make([]Route, 0, len(s.routes.routes))
	for _, rt := range s.routes.routes {
		out = append(out, Route{OperationID: rt.operationID, Method: rt.method, Pattern: rt.pattern, Status: rt.status,
			PublicKey: rt.access == accessPublic, NoAuth: rt.access == accessNone, Simulation: rt.simulation, Browser: rt.browser})
	}
	return out
}
