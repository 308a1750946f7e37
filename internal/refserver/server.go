package refserver

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/openpay-go/openpay/internal/refserver/answer"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/openpay-go/openpay/internal/refserver/delivery"
	"github.com/openpay-go/openpay/internal/refserver/fault"
	"github.com/openpay-go/openpay/internal/refserver/httpedge"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
	"github.com/openpay-go/openpay/internal/web"
)

// DefaultMaxBodyBytes is the default cap on a request body (1 MiB); a
// larger body answers 1009 (HTTP 413). The gateway does not document its
// own limit.
const DefaultMaxBodyBytes = 1 << 20

// Options configure a [Server]. The zero value is a lenient sandbox server
// on the wall clock with random identifiers.
type Options struct {
	// Strict turns off the sandbox's leniency: charge creation then requires
	// the X-Forwarded-For header (1001 when absent, 1003 when it holds no IP
	// address), card charges require order_id and device_session_id, and
	// merchant-level charges require the customer object (1001 when absent).
	Strict bool
	// Production makes the server behave as the production environment:
	// the sandbox test cards are refused with 2007, and webhooks go to
	// public hosts only (a URL whose host is localhost or resolves to a
	// loopback, private or link-local address answers 1003, and every
	// delivery's connection is checked on the address dialed).
	Production bool
	// Clock tells the time; nil means the wall clock ([RealClock]). Pass a
	// [*FakeClock] to control time (the clock simulation control needs one).
	Clock Clock
	// IDSeed makes identifiers and references deterministic: the same
	// sequence of requests gives the same ids. nil draws them at random.
	IDSeed *int64
	// Logger receives one debug record per request (operation, status,
	// duration, request id) and warnings for recovered panics. It never
	// receives bodies, paths with their identifiers, query strings,
	// credentials or card data. nil discards everything.
	Logger *slog.Logger
	// BaseURL is the absolute URL the server is reached at (no trailing
	// slash), used in barcode and redirect URLs it hands out. Empty derives
	// it from each request's Host header.
	BaseURL string
	// MaxBodyBytes caps request bodies; 0 means [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// HTTPClient sends webhook deliveries; nil means a client with a short
	// timeout. The server uses a copy that follows no redirect; with
	// Production, its transport (nil or an *http.Transport) gets the
	// server's own dialer and no proxy (package delivery, Config.Client).
	HTTPClient *http.Client
	// WebhookRetryDelay is the wait before a failed webhook delivery is
	// tried again; it doubles after each further failure (up to 30 seconds,
	// 8 attempts in all). 0 means 500 milliseconds.
	WebhookRetryDelay time.Duration
	// WebhookQueueLimit bounds each webhook's queue of pending deliveries
	// (retries included); an event that finds the queue full is dropped for
	// that webhook and counted ([Server.WebhookDeliveryStats]). 0 means
	// [DefaultWebhookQueueLimit].
	WebhookQueueLimit int
	// USDExchangeRate is the MXN value of one US dollar applied to USD
	// charges; zero means [DefaultUSDExchangeRate].
	USDExchangeRate openpay.Decimal
	// Country is the country of merchants added without one (empty:
	// Mexico). See [MerchantConfig.Country].
	Country openpay.Country
	// ListenAddr is the address the server listens on (host:port, as
	// net.Listener.Addr gives it). The dashboard opens without credentials
	// only when it is a loopback address; empty judges each request by the
	// local address it came in on.
	ListenAddr string
	// NoDashboard turns off the dashboard at /_dashboard/ (its paths then
	// answer as unknown API paths).
	NoDashboard bool
	// AdminKey, when set, is the credential of the server-wide controls
	// (HTTP Basic user, empty password, like a merchant's key): with it
	// POST /_simulate/reset puts the whole server back to its
	// configuration and /_simulate/faults arms, lists and disarms faults
	// for every merchant. A merchant's key acts on that merchant alone
	// (reset.go, faults.go). Empty: no request acts for the whole server.
	AdminKey string
}

// DefaultUSDExchangeRate is the MXN value of one US dollar the server applies
// to USD charges unless [Options.USDExchangeRate] says otherwise: a fixed,
// plausible rate, so that amounts in tests are predictable.
const DefaultUSDExchangeRate = "18.5000"

// MerchantConfig describes a merchant account to create on a server. Empty
// fields are generated: an id like the gateway's (20 lower-case letters and
// digits starting with "m"), keys "sk_" and "pk_" followed by 32 hex digits,
// a name, an e-mail address, a phone number and a CLABE.
type MerchantConfig struct {
	ID         string
	Name       string
	Email      string
	Phone      string
	PrivateKey string
	PublicKey  string
	CLABE      string
	// Balance is the merchant account's opening balance (zero by default).
	Balance openpay.Amount
	// Country is the merchant's country: openpay.CountryMexico,
	// CountryColombia or CountryPeru, in any case; empty means
	// Options.Country. It decides the currencies, payment methods,
	// resources, store networks, hosts and webhook events (country.go).
	// Merchants outside Mexico have no CLABE.
	Country openpay.Country
}

// GroupConfig describes a merchant group: a key that may act for every
// merchant of the group under /v1/groups/{group_id}/... Empty ID and
// PrivateKey are generated.
type GroupConfig struct {
	ID          string
	PrivateKey  string
	MerchantIDs []string
}

// Server is the reference server, an http.Handler. Create it with [New], add
// merchants with [Server.AddMerchant], and serve it with net/http or
// httptest. It is safe for concurrent use.
type Server struct {
	opts   Options
	clock  Clock
	ids    *idgen.Generator // resource ids and references
	reqIDs *idgen.Generator // request ids, apart so they do not shift resource ids
	// lastBase is the base URL last built from a request (call.baseURL).
	lastBase httpedge.LastBaseURL
	log      *slog.Logger
	maxBody  int64
	usdRate  openpay.Decimal
	routes   *routeTable
	pages    *web.Pages     // the hosted pages (pages.go)
	dash     *web.Dashboard // the dashboard (dashboard.go), nil when turned off
	// deliveries sends the webhooks' events (webhooks_api.go).
	deliveries *delivery.Queue
	data       *dataStore // the data directory's store (persist.go), nil without one
	barcodes   sync.Map   // reference -> struct{}: references the server issued

	// advanceMu makes one AdvanceClock run at a time: the clock stops at
	// each due instant on its way, and two walks must not interleave.
	advanceMu sync.Mutex

	mu        sync.RWMutex
	merchants map[string]*merchant
	// merchantsRO: merchants copied under mu.RLock for reads without mu; a change drops it.
	merchantsRO atomic.Pointer[map[string]*merchant]
	groups      map[string]*group

	hooksMu sync.Mutex
	// eventHooks is replaced, never changed in place (under hooksMu), so
	// that emit, called for every transaction, reads it without a lock.
	eventHooks atomic.Pointer[[]func(*merchant, *loggedEvent)]
	clockWork  []clockWork
	// merchantResetHooks run when ResetMerchant replaces a merchant.
	merchantResetHooks []func(old *merchant)
	closers            []func()
	closeOnce          sync.Once
	merchantList       []string // ids in creation order

	// gate makes Reset atomic for requests: each request holds it for
	// reading while it is answered, Reset for writing while it swaps the
	// state (reset.go).
	gate sync.RWMutex
	// configMu orders the configuration steps (AddMerchant, AddGroup,
	// ApplySeed) and Reset; config records the steps for Reset to replay.
	configMu   sync.Mutex
	config     []configStep
	restored   atomic.Bool // the state came from a data directory (Reset refuses)
	clockStart time.Time   // where the clock stood at New
	// ownDate: the clock is not the wall clock, so answers carry a Date
	// header of the server's time (net/http would write the wall clock's),
	// as the gateway's Date and creation dates come from one clock: the
	// SDK dates a call's first attempt by it.
	ownDate bool
	faults  fault.Set[*route] // armed faults (faults.go)
}

// New returns a server with no merchants.
func New(opts Options) *Server {
	s := &Server{
		opts:      opts,
		clock:     opts.Clock,
		ids:       idgen.New(opts.IDSeed),
		log:       opts.Logger,
		maxBody:   opts.MaxBodyBytes,
		usdRate:   opts.USDExchangeRate,
		merchants: make(map[string]*merchant),
		groups:    make(map[string]*group),
	}
	if s.clock == nil {
		s.clock = RealClock{}
	}
	s.clockStart = s.clock.Now()
	_, wall := s.clock.(RealClock)
	s.ownDate = !wall
	if opts.IDSeed != nil {
		seed := *opts.IDSeed ^ 0x5eed
		s.reqIDs = idgen.New(&seed)
	} else {
		s.reqIDs = idgen.New(nil)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.usdRate.IsZero() {
		s.usdRate = openpay.MustDecimal(DefaultUSDExchangeRate)
	}
	s.routes = s.buildRoutes()
	s.pages = s.newPages()
	s.dash = s.newDashboard()
	return s
}

// Close stops the server's background work (webhook deliveries) and closes
// its data directory's store, if any (a request that changes state
// afterwards answers 1000). It does not close listeners: the caller owns
// those.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.hooksMu.Lock()
		closers := s.closers
		s.hooksMu.Unlock()
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	})
}

// onClose registers f to run on [Server.Close] (resource files that start
// goroutines register their stop function here).
func (s *Server) onClose(f func()) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.closers = append(s.closers, f)
}

// Now returns the server's current time in the gateway's zone, to the second
// (the gateway's timestamps carry no fraction).
func (s *Server) Now() time.Time {
	return s.nowOf(nil)
}

// Clock returns the server's clock.
func (s *Server) Clock() Clock { return s.clock }

// Strict reports whether the server runs in strict mode.
func (s *Server) Strict() bool { return s.opts.Strict }

// Production reports whether the server refuses sandbox test cards.
func (s *Server) Production() bool { return s.opts.Production }

// AddMerchant creates a merchant account and returns its configuration with
// every generated field filled in. It fails when the id or a key is already
// used by another merchant or group, when the CLABE is not valid, or when
// the opening balance is negative or has more than two decimals. The
// merchant is part of the server's configuration: [Server.Reset] keeps it.
func (s *Server) AddMerchant(cfg MerchantConfig) (_ MerchantConfig, err error) {
	defer s.durable(&err)()
	return configure(s, cfg, (*Server).addMerchant)
}

// addMerchant is AddMerchant without recording the step.
func (s *Server) addMerchant(cfg MerchantConfig) (MerchantConfig, error) {
	if cfg.ID == "" {
		cfg.ID = s.ids.NewID(idgen.KindMerchant)
	}
	if cfg.PrivateKey == "" {
		cfg.PrivateKey = s.ids.APIKey("sk_")
	}
	if cfg.PublicKey == "" {
		cfg.PublicKey = s.ids.APIKey("pk_")
	}
	if cfg.Name == "" {
		cfg.Name = "Merchant " + cfg.ID
	}
	if cfg.Email == "" {
		cfg.Email = cfg.ID + "@merchants.example"
	}
	if cfg.Phone == "" {
		cfg.Phone = "(55) 5555-0100"
	}
	if cfg.Country == "" {
		cfg.Country = s.opts.Country
	}
	rules, ok := countryrules.Of(cfg.Country)
	if !ok {
		return cfg, fmt.Errorf("refserver: %w", countryrules.Unknown(string(cfg.Country)))
	}
	cfg.Country = rules.Code
	switch {
	case rules != countryrules.Mexico && cfg.CLABE != "":
		return cfg, errors.New("refserver: a CLABE is a Mexican account number; merchants outside Mexico have none")
	case rules == countryrules.Mexico && cfg.CLABE == "":
		cfg.CLABE = s.newCLABE("646")
	}
	if cfg.Balance.Cmp(openpay.Amount{}) < 0 || !cfg.Balance.HasValidPrecision() {
		return cfg, errors.New("refserver: a merchant's opening balance must be a non-negative amount with at most two decimals")
	}
	if rules == countryrules.Mexico && !clabe.Valid(cfg.CLABE) {
		return cfg, errors.New("refserver: a merchant's CLABE must be 18 digits with a valid check digit")
	}
	if cfg.PrivateKey == cfg.PublicKey {
		return cfg, errors.New("refserver: a merchant's private and public keys must differ")
	}
	if strings.HasPrefix(cfg.ID, "groups") || strings.ContainsAny(cfg.ID, "/?#%") || len(cfg.ID) > 45 {
		return cfg, fmt.Errorf("refserver: merchant id %q cannot be used in a path", cfg.ID)
	}
	m := newMerchant(cfg, s.Now().In(rules.Zone))
	m.country = rules
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.merchants[cfg.ID]; dup {
		return cfg, fmt.Errorf("refserver: merchant %q already exists", cfg.ID)
	}
	if _, dup := s.groups[cfg.ID]; dup {
		return cfg, fmt.Errorf("refserver: id %q is already a group", cfg.ID)
	}
	for _, other := range s.merchants {
		if other.privHash == m.privHash || other.pubHash == m.pubHash ||
			other.privHash == m.pubHash || other.pubHash == m.privHash {
			return cfg, errors.New("refserver: a key of this merchant is already used by another merchant")
		}
	}
	if admin := sha256.Sum256([]byte(s.opts.AdminKey)); s.opts.AdminKey != "" && (admin == m.privHash || admin == m.pubHash) {
		return cfg, errors.New("refserver: a key of this merchant is the server's admin key")
	}
	s.merchants[cfg.ID] = m
	s.merchantsRO.Store(nil)
	s.merchantList = append(s.merchantList, cfg.ID)
	if s.data != nil {
		m.data = s.data
		m.mark(recMerchant, selfID)
	}
	return cfg, nil
}

// AddGroup creates a merchant group whose key may act for the listed
// merchants, which must exist, and returns its configuration with the
// generated fields filled in. [Server.Reset] keeps the group.
func (s *Server) AddGroup(cfg GroupConfig) (_ GroupConfig, err error) {
	defer s.durable(&err)()
	return configure(s, cfg, (*Server).addGroup)
}

// addGroup is AddGroup without recording the step.
func (s *Server) addGroup(cfg GroupConfig) (GroupConfig, error) {
	if cfg.ID == "" {
		cfg.ID = s.ids.NewID(idgen.KindMerchant)
	}
	if cfg.PrivateKey == "" {
		cfg.PrivateKey = s.ids.APIKey("sk_")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.groups[cfg.ID]; dup {
		return cfg, fmt.Errorf("refserver: group %q already exists", cfg.ID)
	}
	if _, dup := s.merchants[cfg.ID]; dup {
		return cfg, fmt.Errorf("refserver: id %q is already a merchant", cfg.ID)
	}
	g := &group{id: cfg.ID, keyHash: sha256.Sum256([]byte(cfg.PrivateKey)), merchants: make(map[string]bool),
		cards: newCardKeys()}
	for _, id := range cfg.MerchantIDs {
		m, ok := s.merchants[id]
		if !ok {
			return cfg, fmt.Errorf("refserver: merchant %q does not exist", id)
		}
		if m.country != countryrules.Mexico {
			// The gateway has merchant groups in Mexico only.
			return cfg, fmt.Errorf("refserver: merchant %q is not in Mexico, where groups exist", id)
		}
		g.merchants[id] = true
	}
	g.customers = newCustomerSet()
	g.customers.own = owner{g: g}
	s.groups[cfg.ID] = g
	if s.data != nil {
		g.data = s.data
		g.mark(recGroup, selfID)
	}
	return cfg, nil
}

// merchantByID returns the merchant with the given id, or nil.
func (s *Server) merchantByID(id string) *merchant {
	if ro := s.merchantsRO.Load(); ro != nil {
		return (*ro)[id]
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	ro := maps.Clone(s.merchants)
	s.merchantsRO.CompareAndSwap(nil, &ro)
	return ro[id]
}

// merchantsInOrder returns the merchants in the order they were added, so
// that work over all of them draws identifiers in a repeatable order.
func (s *Server) merchantsInOrder() []*merchant {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ms := make([]*merchant, 0, len(s.merchantList))
	for _, id := range s.merchantList {
		if m := s.merchants[id]; m != nil {
			ms = append(ms, m)
		}
	}
	return ms
}

// groupByID returns the group with the given id, or nil.
func (s *Server) groupByID(id string) *group {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.groups[id]
}

// ServeHTTP answers one request: it finds the route, authenticates,
// enforces the body limit and the strict-mode header, runs the handler and
// writes its answer. Whatever the input, the answer is the handler's or the
// gateway's error object: a panic is recovered into a 1000 error object.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := newCall(s, r)
	sw := &c.sw
	sw.ResponseWriter, c.w = w, sw
	sw.Header()["X-Request-Id"] = c.idHeader // the key in canonical form: Set would check it
	if s.ownDate {
		sw.Header()["Date"] = []string{s.clock.Now().UTC().Format(http.TimeFormat)}
	}
	// Few deferred calls and returns in each function of the frame, so that
	// Go runs their defers inline rather than by the runtime's records.
	var start time.Time // the log's clock, read when the log is on
	if s.log.Enabled(r.Context(), slog.LevelDebug) {
		start = time.Now()
	}
	defer s.endRequest(c, start)
	// Every reader of the query (handlers, pages, the dashboard) reads a
	// query that parsed whole.
	if e := c.parseQuery(); e != nil {
		writeError(sw, c.requestID, e)
		return
	}
	rt, allowed, params := s.routes.match(r.Method, r.URL, c.paramBuf[:0])
	if f := s.takeFault(rt, params, r); f != nil {
		if s.applyFault(f, c, w, sw) {
			return
		}
		if f.Drop == DropAfter {
			defer fault.DropConnection(w)
		}
		if f.Acted {
			// Carried out, then answered with the fault in place of
			// the server's answer (which went nowhere).
			defer answerFault(f, c.requestID, w)
		}
		defer c.leaveGate() // before the fault's answer, as before any answer
	}
	s.serveRoute(c, rt, allowed, params)
}

// endRequest ends ServeHTTP's request c, begun at start (zero: no log): it lets go of the gate,
// answers a panic with 1000 (passes on a dropped connection's), logs the request, releases c.
func (s *Server) endRequest(c *call, start time.Time) {
	sw, r := &c.sw, c.r
	c.leaveGate()
	if p := recover(); p != nil {
		if p == http.ErrAbortHandler { // a dropped connection (faults.go): net/http closes it
			panic(p)
		}
		s.log.Warn("refserver: recovered from a panic", "operation", c.operation(), "request_id", c.requestID,
			"panic_type", fmt.Sprintf("%T", p))
		if sw.Status == 0 {
			writeError(sw, c.requestID, errorf(openpay.ErrInternalServer, descInternal))
		}
	}
	if !start.IsZero() { // the log is on: spares the arguments' allocations otherwise
		attrs := []any{"operation", c.operation(), "method", httpedge.LogMethod(r.Method),
			"status", sw.Status, "duration", time.Since(start), "request_id", c.requestID}
		if c.route == nil {
			// What a client with a wrong base URL asked for, with
			// anything like a card number hidden.
			attrs = append(attrs, "path", truncateForMessage(r.URL.Path))
		}
		s.log.Debug("refserver: request", attrs...)
	}
	c.release()
}

// serveRoute answers c for route rt (nil: none; allowed: its path's methods) with path values params.
func (s *Server) serveRoute(c *call, rt *route, allowed, params []string) {
	sw, r := &c.sw, c.r
	// The body is read before the request enters the reset gate, so that
	// a reset waits for handlers at work, never for a client's bytes.
	c.body.Preread(r, s.maxBody, c.bodyBuf())
	exclusive := rt != nil && rt.exclusive ||
		rt == nil && r.Method == http.MethodPost && r.URL.Path == web.DashboardResetPath
	if !exclusive {
		c.enterGate() // let go of by the handler's end or endRequest
	}
	if rt == nil && s.serveWeb(sw, r) || s.preflight(sw, r) { // no web content is at an API route's path
		return
	}
	if rt == nil {
		if len(allowed) > 0 && s.absentHere(c, allowed[0]) {
			return
		}
		if len(allowed) > 0 {
			sw.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(sw, c.requestID, apierr.MethodNotAllowed(MethodNotAllowedCode, r.Method, allowed))
			return
		}
		writeError(sw, c.requestID, errorf(openpay.ErrNotFound, descNoSuchPath))
		return
	}
	c.route, c.params = rt, params
	if rt.browser {
		httpedge.AllowOrigin(sw.Header(), r)
	}
	if e := s.authenticate(c); e != nil {
		writeError(sw, c.requestID, e)
		return
	}
	if c.m != nil {
		if fc := c.m.clock.Load(); fc != nil { // the merchant's own time (clock.go)
			sw.Header()["Date"] = []string{fc.Now().UTC().Format(http.TimeFormat)}
		}
	}
	if c.m != nil && !hasRoute(c.m.country, rt) {
		writeError(sw, c.requestID, errorf(openpay.ErrNotFound, descNoSuchPath))
		return
	}
	if r.ContentLength > s.maxBody {
		writeError(sw, c.requestID, reqbody.TooLarge())
		return
	}
	if rt.clientIP && s.opts.Strict { // charge creation's X-Forwarded-For rule, which the sandbox does not enforce
		switch given, ip := httpedge.ForwardedFor(r); {
		case !given:
			writeError(sw, c.requestID, errorf(openpay.ErrBadRequest, "The X-Forwarded-For header with the payer's IP address is required"))
			return
		case !ip:
			writeError(sw, c.requestID, errorf(openpay.ErrInvalidParameter, "The X-Forwarded-For header must start with the payer's IP address"))
			return
		}
	}
	body, e := s.routes.handlers[rt.order-1](c)
	// What the request changed is on disk before it is answered.
	if ce := c.commit(); ce != nil {
		e = ce
	}
	// The answer is made; writing it waits on the client, outside the gate.
	c.leaveGate()
	if e != nil {
		writeError(sw, c.requestID, e)
		return
	}
	status := rt.status
	if c.m != nil {
		status = successStatus(c.m.country, rt)
	}
	switch b := body.(type) {
	case nil:
		sw.WriteHeader(status)
	case rawBody:
		answer.WriteRaw(sw, status, b.contentType, b.data)
	default:
		answer.Write(sw, status, body)
	}
}

// absentHere answers a request whose path exists but not for its method
// (the route of method has it), when the path is a resource some country
// lacks: as the request with that method would be answered, the
// credentials first, then 404 1005 when the merchant's country lacks the
// resource (a Peruvian merchant's GET /pse is no more known than its POST).
// It reports whether it answered; otherwise the caller answers 405.
func (s *Server) absentHere(c *call, method string) bool {
	alt, _, params := s.routes.match(method, c.r.URL, c.paramBuf[:0])
	if alt == nil || !absentSomewhere(alt) {
		return false
	}
	c.route, c.params = alt, params
	defer func() { c.route, c.params = nil, nil }()
	if e := s.authenticate(c); e != nil {
		writeError(c.w, c.requestID, e)
		return true
	}
	if c.m != nil && !hasRoute(c.m.country, alt) {
		writeError(c.w, c.requestID, errorf(openpay.ErrNotFound, descNoSuchPath))
		return true
	}
	return false
}

// rawBody is a handler result written as is (the barcode images).
type rawBody struct {
	contentType string
	data        []byte
}
