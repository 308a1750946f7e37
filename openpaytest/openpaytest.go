// Package openpaytest runs the reference server of the Openpay gateway inside
// a test or a program: a stateful emulator that answers every operation of
// the API with the gateway's rules (authentication, limits, card checks, the
// sandbox test cards, order_id uniqueness, balances, the states of charges),
// with no network and no sandbox account.
//
//	srv := openpaytest.NewServer(t) // closed when the test ends
//	client, err := srv.Client()     // keys, base URL and country of the server's merchant
//	if err != nil {
//		t.Fatal(err)
//	}
//	ch, err := client.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("250"), Description: "Order 42",
//		ClientIP: "203.0.113.7"}) // the payer's address, which every charge carries
//	if err != nil {
//		t.Fatal(err)
//	}
//	if _, err := srv.PayCharge(ch.ID); err != nil { // the payer pays at the store
//		t.Fatal(err)
//	}
//
// What only the outside world can do is done with the simulation methods
// (each a method of [Server] and of every [Merchant]): PayCharge (a store or
// bank charge is paid), CompleteCharge and FailCharge (the payer finishes or
// abandons a redirect, 3-D Secure, wallet or phone payment),
// OpenChargeback and ResolveChargeback, PayCheckout (the payer pays a
// payment link with a test card) and PayCheckoutBy (at a store, or by PSE
// in Colombia), SettlePayout and FailPayout (what the bank does to a
// payout), ReceiveSPEI and ReceiveMerchantSPEI (a bank transfer arrives),
// DeactivateCustomerAccount and ReactivateCustomerAccount, and
// AdvanceClock (with a fake clock: due dates pass, subscriptions charge,
// payment links expire; a Merchant's AdvanceClock and SetClock move that
// merchant's own clock alone, so tests that move time can share a server,
// a merchant each). The same controls exist as HTTP endpoints under
// /_simulate/ for programs that run the server as a process (see
// cmd/openpay-refserver). InjectFault makes the next requests or SDK calls
// of an operation fail (an error object, a delay, a dropped connection),
// WaitForDeliveries waits for the webhooks, and Reset puts the server back
// to how it started. The test cards are constants: those the gateway
// documents (CardVisa, CardInsufficientFunds, ...) mean the same against
// its sandbox; the EmulatorCard ones decline only here.
//
// Every error the package returns is an [*openpay.Error], which the SDK's
// sentinels match (errors.Is(err, openpay.ErrNotFound)), or one of its
// documented sentinels ([ErrRealClock], [ErrDataDir]).
//
// Merchants are Mexican unless [WithCountry] or [Server.AddMerchantIn]
// makes them Colombian or Peruvian: the country decides the currencies,
// the payment methods (PSE in Colombia, with its bank page), the resources
// that exist and the store networks.
//
// States the gateway leaves unstated are the server's choices: a card charge
// with capture false is an in_progress pre-authorization until captured
// (completed) or refunded/cancelled (cancelled); a refunded charge is
// refunded with its latest refund nested; declines are stored as failed
// transactions and keep their order_id. Completed charges credit the
// merchant's balance, or the customer's when the customer has an account.
package openpaytest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver"
)

// Server is a running reference server.
type Server struct {
	// URL is the base URL of the server ("http://127.0.0.1:port", or
	// "https://..." with [WithTLS]), to pass to openpay.WithBaseURL;
	// [Server.Client] does so. API paths start with /v1/{merchant_id}.
	URL string
	// Merchant is the merchant the server was started with: its id and keys,
	// and the simulation methods acting on its charges (each also a method
	// of Server, listed below).
	Merchant

	ref        *refserver.Server
	hts        *httptest.Server
	clock      *refserver.FakeClock
	production bool
	// clientTransport carries the requests of the clients Client makes:
	// it trusts the server's certificate and labels each attempt for
	// faults aimed in the SDK's terms (Fault.Operation, Fault.Calls).
	clientTransport *http.Transport
}

// Merchant is a merchant account of a running server.
type Merchant struct {
	// MerchantID is the merchant's id, the {merchant_id} of API paths.
	MerchantID string
	// PrivateKey may call every operation (HTTP Basic user, empty password).
	PrivateKey string
	// PublicKey may only create cards and tokens.
	PublicKey string
	// Country is the merchant's country (openpay.CountryMexico unless
	// [WithCountry] or [Server.AddMerchantIn] said otherwise). Point the
	// client at the same country: openpay.WithCountry(m.Country) next to
	// openpay.WithBaseURL.
	Country openpay.Country

	srv *Server
}

// config is what the options set.
type config struct {
	opts     refserver.Options
	merchant refserver.MerchantConfig
	start    *time.Time
	addr     string
	dataDir  string
	tls      bool
}

// Option configures a server.
type Option func(*config)

// WithStrict turns off the sandbox's leniency: charge creation requires the
// X-Forwarded-For header, card charges an order_id and a device_session_id,
// merchant-level charges the customer object.
func WithStrict() Option { return func(c *config) { c.opts.Strict = true } }

// WithProduction makes the server act as the production environment: the
// sandbox test cards are refused with error 2007. With [WithTLS] too,
// [Server.Client] makes clients with openpay.WithProduction, so the
// production configuration of an application can be tested whole.
func WithProduction() Option { return func(c *config) { c.opts.Production = true } }

// WithTLS serves https, on a certificate for 127.0.0.1 that only the
// clients of [Server.Client] and [Server.PublicClient] (and
// [Server.HTTPClient]) trust, as httptest.NewTLSServer does: a client
// built with openpay.WithProduction, which requires https, can then be
// pointed at the server.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithMerchant seeds the first merchant with the given id and keys (any
// left empty is generated), so that a suite written against the sandbox
// with fixed credentials runs unchanged.
func WithMerchant(id, privateKey, publicKey string) Option {
	return func(c *config) {
		c.merchant.ID, c.merchant.PrivateKey, c.merchant.PublicKey = id, privateKey, publicKey
	}
}

// WithCountry makes the server's merchants (the first one, and those added
// with [Server.AddMerchant]) merchants of country c: openpay.CountryColombia
// or openpay.CountryPeru (Mexico is the default). The country decides the
// currencies (COP, PEN), the payment methods (PSE in Colombia), the
// resources that exist, the store networks and the hosts in answers; see
// the README's country sections. The code may be written in any case
// ("co"); an unknown country makes Start fail with
// [openpay.ErrInvalidParameter] ("unknown country ... (use MX, CO or PE, in any case)").
func WithCountry(c openpay.Country) Option { return func(cfg *config) { cfg.opts.Country = c } }

// WithMerchantBalance sets the first merchant's opening balance.
func WithMerchantBalance(a openpay.Amount) Option {
	return func(c *config) { c.merchant.Balance = a }
}

// WithSeed makes identifiers, keys and references deterministic: the same
// seed and the same requests give the same ids.
func WithSeed(seed int64) Option { return func(c *config) { c.opts.IDSeed = &seed } }

// WithClock runs the server on a fake clock standing at start, which moves
// only with AdvanceClock.
func WithClock(start time.Time) Option { return func(c *config) { c.start = &start } }

// DefaultStart is where the fake clock of [Deterministic] stands at first:
// 10:00 on Monday 5 January 2026, Mexico City time (UTC-06:00).
var DefaultStart = time.Date(2026, time.January, 5, 10, 0, 0, 0, openpay.CountryMexico.Location())

// Deterministic is WithSeed(1) and WithClock(DefaultStart): identical runs
// give identical ids and timestamps.
func Deterministic() Option {
	return func(c *config) {
		WithSeed(1)(c)
		WithClock(DefaultStart)(c)
	}
}

// WithLogger sends the server's request log (debug level: operation,
// status, duration, request id; never bodies, keys or card data) to l.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.opts.Logger = l } }

// WithUSDExchangeRate sets the MXN value of one US dollar applied to USD
// charges (default 18.5000).
func WithUSDExchangeRate(rate openpay.Decimal) Option {
	return func(c *config) { c.opts.USDExchangeRate = rate }
}

// WithWebhookRetryDelay sets the wait before a failed webhook delivery is
// tried again (default 500ms; it doubles after each further failure, up to
// 30 seconds, 8 attempts in all), so that a test of a receiver's retries
// runs quickly.
func WithWebhookRetryDelay(d time.Duration) Option {
	return func(c *config) { c.opts.WebhookRetryDelay = d }
}

// WithWebhookQueueLimit bounds each webhook's queue of pending deliveries
// (in flight and waiting retries included; default 1,000): an event that
// finds the queue full is dropped for that webhook and counted in
// [Server.WebhookDeliveryStats].
func WithWebhookQueueLimit(n int) Option { return func(c *config) { c.opts.WebhookQueueLimit = n } }

// WebhookDeliveryStats is the state of one webhook's deliveries.
type WebhookDeliveryStats struct {
	// Pending counts the deliveries not done with yet: queued, being
	// sent, or waiting to be tried again after a failed attempt.
	Pending int
	// Dropped counts the events never queued because the webhook's queue
	// was full (see [WithWebhookQueueLimit]).
	Dropped int64
	// GivenUp counts the deliveries abandoned after their last attempt
	// failed (8 attempts in all, see [WithWebhookRetryDelay]).
	GivenUp int64
}

// WebhookDeliveryStats returns the state of a webhook's deliveries (zero for
// an unknown or deleted webhook), so a test can see what a slow or dead
// receiver missed.
func (s *Server) WebhookDeliveryStats(webhookID string) WebhookDeliveryStats {
	st := s.ref.WebhookDeliveryStats(webhookID)
	return WebhookDeliveryStats{Pending: st.Pending, Dropped: st.Dropped, GivenUp: st.GivenUp}
}

// WaitForDeliveries waits until no webhook delivery is pending, on any
// merchant of the server: every event recorded before the call has been
// delivered (its receiver answered 2xx, after retries if need be), given
// up after its last attempt, or dropped (its webhook deleted, a full
// queue, [Server.Reset]). It returns ctx's error if ctx ends first; a
// receiver that keeps failing holds it for the whole retry schedule, so
// bound ctx or use [WithWebhookRetryDelay]. Events are queued before the
// request that causes them is answered, so a test can make its calls,
// then wait, then look at what its receiver got:
//
//	_, err := client.Charges.Create(ctx, charge)
//	// ...
//	if err := srv.WaitForDeliveries(ctx); err != nil {
//		t.Fatal(err)
//	}
//	// the receiver has handled charge.succeeded
func (s *Server) WaitForDeliveries(ctx context.Context) error {
	return s.ref.WaitForDeliveries(ctx)
}

// WithWebhookClient sets the HTTP client that sends webhook deliveries (for
// example one that trusts an httptest TLS server's certificate).
func WithWebhookClient(hc *http.Client) Option { return func(c *config) { c.opts.HTTPClient = hc } }

// WithDataDir keeps the server's whole state in the directory dir across
// restarts, each request's changes written before it is answered, as
// openpay-refserver --data does. A directory that holds a saved state is
// loaded instead of creating a merchant: WithMerchant must then name the
// saved merchant with its keys (the directory keeps only their hashes),
// and WithClock must be given when the state was saved on a fake clock
// (the saved time replaces its start). Named with both keys (or with
// WithSeed), the merchant is checked against the saved one and becomes
// the server's configuration again, so [Server.Reset] works after the
// restart; another key is refused. URLs the state stored (barcodes,
// payment pages) follow the new server's address. A directory that cannot
// be used makes Start fail with an error wrapping [ErrDataDir].
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir = dir } }

// WithAddr sets the address to listen on (default "127.0.0.1:0", a free
// port on the loopback interface).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// NewServer starts a server for the test t and closes it when the test
// ends. It fails the test if the server cannot start.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("openpaytest: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server and returns once it accepts connections. Close it
// with [Server.Close]. A configuration the server refuses (an unknown
// country, a merchant that cannot be made) is an [*openpay.Error] with
// code [openpay.ErrInvalidParameter]; a data directory that cannot be
// used wraps [ErrDataDir]; a failure to listen is the net package's
// error.
func Start(opts ...Option) (*Server, error) {
	cfg := config{addr: "127.0.0.1:0"}
	for _, o := range opts {
		o(&cfg)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("openpaytest: listen: %w", err)
	}
	scheme := "http://"
	if cfg.tls {
		scheme = "https://"
	}
	s := &Server{URL: scheme + ln.Addr().String(), production: cfg.opts.Production}
	cfg.opts.BaseURL = s.URL
	cfg.opts.ListenAddr = ln.Addr().String()
	if cfg.start != nil {
		s.clock = refserver.NewFakeClock(*cfg.start)
		cfg.opts.Clock = s.clock
	}
	s.ref = refserver.New(cfg.opts)
	m, err := startState(s.ref, cfg)
	if err != nil {
		ln.Close()
		s.ref.Close()
		return nil, err
	}
	s.Merchant = Merchant{MerchantID: m.ID, PrivateKey: m.PrivateKey, PublicKey: m.PublicKey, Country: m.Country, srv: s}
	// httptest serves it: its Close closes idle connections at once and
	// waits only for the requests in progress, and it has the TLS mode.
	s.hts = &httptest.Server{Listener: ln, Config: &http.Server{
		Handler:           s.ref,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
	}}
	if cfg.tls {
		s.hts.StartTLS()
		s.clientTransport = s.hts.Client().Transport.(*http.Transport)
	} else {
		s.hts.Start()
		s.clientTransport = http.DefaultTransport.(*http.Transport).Clone()
	}
	return s, nil
}

// startState gives a new server its merchant: the one cfg describes, or
// with WithDataDir the state the directory holds, whose merchant cfg names.
func startState(ref *refserver.Server, cfg config) (refserver.MerchantConfig, error) {
	if cfg.dataDir != "" {
		restored, err := ref.OpenData(cfg.dataDir)
		if err != nil {
			return refserver.MerchantConfig{}, fmt.Errorf("%w: %s", ErrDataDir, unprefixed(err))
		}
		if restored {
			if cfg.merchant.ID == "" || cfg.merchant.PrivateKey == "" {
				return refserver.MerchantConfig{}, fmt.Errorf("%w: it holds a saved state: name its merchant and keys with WithMerchant", ErrDataDir)
			}
			// The saved merchant is the server's configuration again, so
			// that Reset works after a restart.
			m, err := ref.AdoptMerchant(cfg.merchant)
			if errors.Is(err, refserver.ErrNotAdoptable) {
				// Without its public key the merchant is used as stored,
				// and Reset stays refused.
				if _, _, err := ref.Balances(cfg.merchant.ID); err != nil {
					return m, fmt.Errorf("%w: it has no merchant %q", ErrDataDir, cfg.merchant.ID)
				}
				return cfg.merchant, nil
			}
			if err != nil {
				return m, fmt.Errorf("%w: %s", ErrDataDir, unprefixed(err))
			}
			return m, nil
		}
	}
	m, err := ref.AddMerchant(cfg.merchant)
	if err != nil {
		return m, kitError(err)
	}
	if err := ref.SaveData(); err != nil {
		return m, fmt.Errorf("%w: %s", ErrDataDir, unprefixed(err))
	}
	return m, nil
}

// ErrDataDir is wrapped by the error of a [WithDataDir] directory that
// cannot be used (unreadable, damaged, held by another process) or whose
// saved state does not match the options.
var ErrDataDir = errors.New("openpaytest: data directory")

// Close stops the server, as httptest.Server.Close does: it stops
// accepting connections, closes idle ones at once (those the clients'
// pools keep included), waits for the requests in progress, and closes
// the connections of the clients [Server.Client] made. Calling it again
// does nothing.
func (s *Server) Close() {
	s.hts.Close()
	s.clientTransport.CloseIdleConnections()
	s.ref.Close()
}

// Handler returns the server's http.Handler, to serve it some other way as
// well (all handlers share the same state).
func (s *Server) Handler() http.Handler { return s.ref }

// AddMerchant creates another merchant on the server (several merchants, each
// with its own keys, share a server; a key of one is refused on another's
// paths). Empty arguments are generated.
func (s *Server) AddMerchant(id, privateKey, publicKey string) (*Merchant, error) {
	return s.AddMerchantIn("", id, privateKey, publicKey)
}

// AddMerchantIn is AddMerchant for a merchant of country c (empty: the
// server's country, Mexico unless [WithCountry] says otherwise), so that
// merchants of several countries share one server.
func (s *Server) AddMerchantIn(c openpay.Country, id, privateKey, publicKey string) (*Merchant, error) {
	m, err := s.ref.AddMerchant(refserver.MerchantConfig{ID: id, PrivateKey: privateKey, PublicKey: publicKey, Country: c})
	if err != nil {
		return nil, kitError(err)
	}
	return &Merchant{MerchantID: m.ID, PrivateKey: m.PrivateKey, PublicKey: m.PublicKey, Country: m.Country, srv: s}, nil
}

// AddGroup creates a merchant group whose key acts for the given merchants
// under /v1/groups/{group_id}/... It returns the group's id and key.
func (s *Server) AddGroup(merchantIDs ...string) (id, privateKey string, err error) {
	g, err := s.ref.AddGroup(refserver.GroupConfig{MerchantIDs: merchantIDs})
	if err != nil {
		return "", "", kitError(err)
	}
	return g.ID, g.PrivateKey, nil
}

// ErrRealClock is returned by AdvanceClock on a server that runs on the
// wall clock (start it with WithClock or Deterministic).
var ErrRealClock = errors.New("openpaytest: the server runs on the wall clock; start it with WithClock or Deterministic")

// AdvanceClock moves the server's fake clock forward by d and runs what
// time moves: unpaid charges past their due date are cancelled,
// subscriptions charge. The clock stops at each due time on its way, so
// each of these carries the time it was due (a subscription's charge the
// first instant of its charge day), not the end of the jump. It returns
// the new time. Every merchant follows the server's clock, except one
// whose own clock was moved ([Merchant.AdvanceClock], [Merchant.SetClock]):
// that one stays where it is, and so does its work.
func (s *Server) AdvanceClock(d time.Duration) (time.Time, error) {
	if s.clock == nil {
		return time.Time{}, ErrRealClock
	}
	t, err := s.ref.AdvanceClock(d)
	return t, kitError(err)
}

// SetClock puts the server's fake clock at t: a time ahead runs what
// falls due on the way, as [Server.AdvanceClock] does; an earlier time
// only moves the clock back (what was done stays done, with its dates).
// The merchants with a clock of their own do not move. It returns the new
// time, or [ErrRealClock] on a server on the wall clock.
// (srv.Merchant.SetClock is the first merchant's own clock.)
func (s *Server) SetClock(t time.Time) (time.Time, error) {
	if s.clock == nil {
		return time.Time{}, ErrRealClock
	}
	now, err := s.ref.SetClock(t)
	return now, kitError(err)
}

// Now returns the server's current time (a merchant with a clock of its
// own has its time: [Merchant.Now]).
func (s *Server) Now() time.Time { return s.ref.Now() }

// AdvanceClock moves this merchant's clock forward by d, and runs what
// time moves for this merchant alone: its unpaid charges past their due
// date are cancelled, its subscriptions charge, its payment links expire,
// each dated when it was due, as [Server.AdvanceClock] does for the
// server. The server's clock and the other merchants' do not move, so
// suites that move time can share a server, a merchant each. From then on
// the merchant has a clock of its own, a fake one that stands still
// between moves (on a server on the wall clock too), until
// [Merchant.Reset] makes it follow the server's again. It returns the
// merchant's new time. (srv.AdvanceClock is the server's clock;
// srv.Merchant.AdvanceClock the first merchant's.)
func (m *Merchant) AdvanceClock(d time.Duration) (time.Time, error) {
	t, err := m.srv.ref.AdvanceMerchantClock(m.MerchantID, d)
	return t, kitError(err)
}

// SetClock puts this merchant's clock at t, as [Merchant.AdvanceClock]
// moves it: a clock of its own from then on, the server's and the other
// merchants' unmoved. A time ahead runs what falls due on the way; an
// earlier time only moves the clock back (what was done stays done). On a
// server on the wall clock, SetClock(time.Now()) freezes the merchant's
// time. It returns the merchant's new time, to the second.
func (m *Merchant) SetClock(t time.Time) (time.Time, error) {
	now, err := m.srv.ref.SetMerchantClock(m.MerchantID, t)
	return now, kitError(err)
}

// Now returns this merchant's current time: its own clock's, or the
// server's while it follows that one.
func (m *Merchant) Now() time.Time {
	now, _, _ := m.srv.ref.MerchantClock(m.MerchantID)
	return now
}

// Reset puts this merchant alone back to how it was added, as POST
// /_simulate/reset with its key does: its records made since (customers,
// cards, charges, subscriptions, webhooks and their pending deliveries,
// events) are gone, its opening balance is back, its armed faults are
// disarmed, and its clock follows the server's again; the other merchants
// and the server's clock are left as they are. On a server with one
// merchant it is [Server.Reset], which puts the server's clock back to
// its start too. (srv.Reset is the whole server's; srv.Merchant.Reset the
// first merchant's.)
func (m *Merchant) Reset() error { return kitError(m.srv.ref.ResetMerchant(m.MerchantID)) }

// kitError turns the server's error into an *openpay.Error, the type the
// SDK returns, so that errors.Is with the SDK's codes and categories works:
// the server's error object keeps its code; a configuration the server
// refuses (an id in use, an unknown country) is ErrInvalidParameter.
func kitError(err error) error {
	if err == nil {
		return nil
	}
	var e *refserver.Error
	if errors.As(err, &e) {
		return &openpay.Error{Category: e.Code.Category(), Code: e.Code, Description: e.Description, HTTPStatus: e.HTTPStatus()}
	}
	return &openpay.Error{Category: openpay.CategoryRequest, Code: openpay.ErrInvalidParameter, Description: unprefixed(err)}
}

// unprefixed is err's text without the internal package's prefixes.
func unprefixed(err error) string {
	return strings.ReplaceAll(strings.ReplaceAll(err.Error(), "refserver: ", ""), "reset: ", "")
}

func (m *Merchant) sim(op func(merchantID, chargeID string) (openpay.Transaction, error), chargeID string) (*openpay.Transaction, error) {
	t, err := op(m.MerchantID, chargeID)
	if err != nil {
		return nil, kitError(err)
	}
	return &t, nil
}

// PayCharge simulates the payer paying a store or bank-transfer charge that
// is in_progress: it completes and its amount is credited.
func (m *Merchant) PayCharge(chargeID string) (*openpay.Transaction, error) {
	return m.sim(m.srv.ref.PayCharge, chargeID)
}

// CompleteCharge simulates the payer completing a charge_pending charge
// (payment form, 3-D Secure, Alipay, IVR): it completes, or becomes a
// pre-authorization when it was a 3-D Secure charge with capture false.
// A charge past its window (an hour at 3-D Secure or on the card form; a
// payment link's, the link's expiration) is cancelled instead, with an
// error: a late approval moves no money.
func (m *Merchant) CompleteCharge(chargeID string) (*openpay.Transaction, error) {
	return m.sim(m.srv.ref.CompleteCharge, chargeID)
}

// FailCharge simulates a charge that waits for the payer ending unpaid, as
// the gateway ends it: a card charge fails with the message of code (a card
// error code, 3001 to 3012; 0 means 3001), a PSE charge fails as its bank
// rejected it, and cash at a store or a bank transfer, which nobody
// declines, ends cancelled with its own error_message (a code is refused
// for those and for PSE).
func (m *Merchant) FailCharge(chargeID string, code openpay.Code) (*openpay.Transaction, error) {
	return m.sim(func(mid, cid string) (openpay.Transaction, error) { return m.srv.ref.FailCharge(mid, cid, code) }, chargeID)
}

// OpenChargeback simulates the card holder's bank disputing a completed
// card charge: chargeback_pending, and the disputed amount leaves the
// balance. Charges not paid by card (store, bank transfer, PSE, Alipay)
// have no chargeback and are refused.
func (m *Merchant) OpenChargeback(chargeID string) (*openpay.Transaction, error) {
	return m.sim(m.srv.ref.OpenChargeback, chargeID)
}

// ResolveChargeback settles an open chargeback: accepted leaves the charge
// chargeback_accepted; rejected returns it to its status and the money to
// the balance.
func (m *Merchant) ResolveChargeback(chargeID string, accepted bool) (*openpay.Transaction, error) {
	return m.sim(func(mid, cid string) (openpay.Transaction, error) {
		return m.srv.ref.ResolveChargeback(mid, cid, accepted)
	}, chargeID)
}

// Balance returns the merchant account's balance.
func (m *Merchant) Balance() openpay.Amount {
	b, _, _ := m.srv.ref.Balances(m.MerchantID)
	return b
}

// Events returns the events recorded for the merchant, oldest first, as a
// webhook would deliver them.
func (m *Merchant) Events() []openpay.WebhookEvent {
	evs := m.srv.ref.Events(m.MerchantID)
	out := make([]openpay.WebhookEvent, len(evs))
	for i, ev := range evs {
		// Decoded from the body a delivery carries, so that Raw is set
		// as in a receiver.
		body, err := ev.Body()
		if err == nil {
			err = json.Unmarshal(body, &out[i])
		}
		if err != nil {
			out[i] = ev.Wire()
		}
	}
	return out
}

// PayCheckout pays a checkout as its payer would on the hosted page, with
// the sandbox card number given (a test card's outcome applies: declined,
// 3-D Secure, ...). It returns the checkout, completed when the card paid;
// a declined card returns the decline's error, its failed charge being the
// checkout's transaction.
func (m *Merchant) PayCheckout(checkoutID, cardNumber string) (*openpay.Checkout, error) {
	co, err := m.srv.ref.PayCheckout(m.MerchantID, checkoutID, cardNumber)
	if err != nil {
		return nil, kitError(err)
	}
	return &co, nil
}

// PayCheckoutBy starts paying a checkout by a method the payer finishes
// away from the hosted page, as the payer who picks it there:
// [openpay.ChargeMethodStore] (cash at a store of the merchant's country)
// makes a store charge in_progress, which [Merchant.PayCharge] pays;
// [openpay.ChargeMethodBankAccount] (PSE, Colombia only) makes a PSE
// charge charge_pending, which the bank's page or PayCharge completes. The
// checkout's transaction is that charge, and the checkout completes when
// it does. A card payment is [Merchant.PayCheckout].
func (m *Merchant) PayCheckoutBy(checkoutID string, method openpay.ChargeMethod) (*openpay.Checkout, error) {
	co, err := m.srv.ref.PayCheckoutBy(m.MerchantID, checkoutID, method)
	if err != nil {
		return nil, kitError(err)
	}
	return &co, nil
}

// Reset puts the server back to how it started, without restarting it: the
// merchants and groups it was given or that AddMerchant and AddGroup added
// since (with their ids and keys, and nothing in them), balances as they
// were opened, and nothing made since (customers, cards, charges and every
// other transaction, plans, subscriptions, webhooks and their pending
// deliveries, events). Armed faults are disarmed; a fake clock goes back to
// its start; with WithSeed or Deterministic the same requests get the same
// ids again. Requests in progress finish first; requests made meanwhile
// wait and see the state after.
func (s *Server) Reset() error { return kitError(s.ref.Reset()) }

// Fault is a failure armed with [Server.InjectFault]: the next requests
// of one operation fail in one way, given by exactly one of ErrorCode,
// Delay, Drop and Page (with Acted, an error or a page comes after the
// server acted).
//
// Which operation: Operation names it as the SDK's users know it, the
// service and method called ("Charges.GetByOrderID"), for the requests of
// clients made by [Server.Client]; or Method and Path name a route of the
// HTTP API, for the requests of any client. How many: Calls counts calls
// as the SDK makes them, each with its retries (every attempt of a call
// taken fails, so "the next charge fails" is Calls: 1 whatever the retry
// policy); Count counts requests, each attempt one (the SDK's default
// policy makes up to 3 attempts of a call whose failure it may retry:
// 5xx, 429, a dropped connection on a read or a request with an
// order_id). Neither: one request, as Count: 1.
//
//	// The next Charges.Create fails with 503, every retry included.
//	srv.InjectFault(openpaytest.Fault{
//		Operation: "Charges.Create",
//		Calls:     1,
//		ErrorCode: openpay.ErrServiceUnavailable,
//	})
//
// The SDK's lookups by order_id (Charges.GetByOrderID, and the lookup that
// settles a lost Charges.Create, Payouts.Create, Fees.Create or
// Transfers.Create) list the transactions: GET /v1/{merchant_id}/charges
// (/payouts, /fees, /customers/{customer_id}/transfers; a customer's
// charges at /v1/{merchant_id}/customers/{customer_id}/charges) with
// order_id in the query. The lookup inside a create is part of that call,
// so Operation "Charges.GetByOrderID" does not reach it; aim it by Path.
type Fault struct {
	// Operation is an SDK method, "Service.Method" as the client's field
	// and the method are called, whatever the scope (Charges.Create is
	// both c.Charges.Create and c.Customer(id).Charges.Create); the group
	// scope's services are GroupCharges and GroupCards. [Operations] lists
	// every name. It matches the requests of clients made by
	// [Server.Client] or [Server.PublicClient] (or sent through
	// [Server.HTTPClient]) only. Leave Method and Path empty with it.
	Operation string
	// Method is the request's method: "GET", "POST", "PUT" or "DELETE".
	Method string
	// Path is a route of the API, either as a pattern
	// ("/v1/{merchant_id}/charges/{charge_id}": that route for every
	// merchant; a {placeholder} may have any name) or a concrete path
	// ("/v1/mzdtln0bmtms6o3kck8f/charges": that merchant only).
	Path string
	// Count is how many requests the fault takes, each attempt of the
	// SDK one; 0 (and Calls 0) means 1. In [Server.Faults] it is how many
	// it still takes.
	Count int
	// Calls is how many SDK calls the fault takes, each with all its
	// attempts; requests of other clients count one each. In
	// [Server.Faults] it is how many it still takes. Give Count or Calls.
	Calls int
	// ErrorCode makes the server answer with the gateway's error object
	// for this code, with the code's HTTP status and category
	// (openpay.ErrInternalServer 500, openpay.ErrServiceUnavailable 503,
	// openpay.ErrFundsTransferRejected 402, ...).
	ErrorCode openpay.Code
	// Description is the error object's text; empty means the usual text
	// for ErrorCode.
	Description string
	// Delay holds each request that long (at most 5 minutes); after the
	// hold the server carries the request out (a charge is made) and
	// answers as usual. A client that gives up meanwhile does not stop
	// it: the request is carried out all the same, after the client left.
	Delay time.Duration
	// Drop closes the connection without an answer, [DropBefore] or
	// [DropAfter] the server carries the request out.
	Drop FaultDrop
	// Page makes the server answer a proxy's HTML page with this HTTP
	// status (400 to 599, such as 502 or 503) instead of the gateway's
	// answer.
	Page int
	// Acted, with ErrorCode or Page, makes the server carry the request
	// out first (a charge is made, a payout sent, a refund taken) and then
	// answer the error or the page in place of its answer: a front that
	// failed after the gateway behind it acted. No status proves that a
	// request did nothing; this is how a test shows it.
	//
	//	srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges",
	//		ErrorCode: openpay.ErrServiceUnavailable, Acted: true}) // charged, answered 503
	Acted bool
}

// FaultDrop says when a fault closes the connection.
type FaultDrop string

// When a fault drops the connection.
const (
	// DropBefore closes the connection before the server does anything:
	// the request has no effect.
	DropBefore FaultDrop = "before"
	// DropAfter carries the request out (a charge is made), then closes
	// the connection without the answer: the lost answer that a client's
	// order_id lookup exists for.
	DropAfter FaultDrop = "after"
)

// InjectFault arms a fault for the next matching requests; when several
// faults match a request, the one armed first applies. A fault that is
// not complete, names no operation of the API or of the SDK, or holds a
// value out of range is refused with an [*openpay.Error] (1001 or 1003)
// whose description names the Fault's fields.
func (s *Server) InjectFault(f Fault) error {
	rf := refserver.Fault{Operation: f.Operation, Method: f.Method, Path: f.Path, Count: f.Count, ErrorCode: f.ErrorCode,
		Description: f.Description, Delay: f.Delay, Drop: refserver.FaultDrop(f.Drop),
		Page: f.Page, Acted: f.Acted}
	switch {
	case f.Count != 0 && f.Calls != 0:
		return kitError(&refserver.Error{Code: openpay.ErrInvalidParameter, Description: "Give Fault.Count (requests) or Fault.Calls (SDK calls), not both"})
	case f.Calls < 0:
		return kitError(&refserver.Error{Code: openpay.ErrInvalidParameter, Description: "Fault.Calls must be positive"})
	case f.Calls != 0:
		rf.Count, rf.PerCall = f.Calls, true
	}
	if f.Operation != "" && !knownOperation(f.Operation) {
		return kitError(&refserver.Error{Code: openpay.ErrInvalidParameter,
			Description: fmt.Sprintf("Fault.Operation %q is no method of the SDK's services (\"Charges.Create\"; openpaytest.Operations lists them)", f.Operation)})
	}
	_, err := s.ref.InjectFault(rf)
	return kitError(err)
}

// Faults returns the armed faults, oldest first, each with the number of
// requests (Count) or calls (Calls) it still takes.
func (s *Server) Faults() []Fault {
	armed := s.ref.Faults()
	out := make([]Fault, len(armed))
	for i, f := range armed {
		out[i] = Fault{Operation: f.Operation, Method: f.Method, Path: f.Path, Count: f.Count, ErrorCode: f.ErrorCode,
			Description: f.Description, Delay: f.Delay, Drop: FaultDrop(f.Drop), Page: f.Page, Acted: f.Acted}
		if f.PerCall {
			out[i].Count, out[i].Calls = 0, f.Count
		}
	}
	return out
}

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() { s.ref.ClearFaults() }
