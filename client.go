// Package openpay is a client for the Openpay payment gateway's REST API
// (Mexico, Colombia and Peru).
//
// Create a [Client] with the merchant id and the private API key, then call
// the services. Every call takes a context, amounts are exact ([Amount]),
// errors from the gateway are [*Error] values usable with errors.Is, and
// retries are safe: a call that may already have moved money is never
// silently repeated.
//
//	c, err := openpay.New(merchantID, privateKey) // sandbox, Mexico
//
// A failed call's error is tested with errors.Is. The gateway's error codes
// are the [Code] constants (errors.Is(err, openpay.ErrCardDeclined)), listed
// under Code in one table with the HTTP status, the [Category] and the
// [ErrorClass] of each; [ClassOf] says what to do next. The SDK's own errors,
// found before or instead of an answer (ErrClientIPRequired,
// ErrOutcomeUnknown, ...), are the package's variables.
//
// The reference server in package openpaytest serves the same API in
// memory, for tests and examples that need no account.
package openpay

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/openpay-go/openpay/internal/gatewayhost"

	"github.com/openpay-go/openpay/internal/transport"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// Country selects the gateway's country host.
type Country string

// The countries the gateway serves.
const (
	CountryMexico   Country = "MX"
	CountryColombia Country = "CO"
	CountryPeru     Country = "PE"
)

// RetryPolicy bounds the SDK's retries. Which failures are retried is
// fixed by the SDK, for safety (see the README's "Retries"): reads and
// deletes on transport errors, 429, 502, 503, 504 and 500 with codes 1000 or
// 1004; requests that change state only when nothing reached the gateway,
// or when they carry an order_id the SDK can reconcile (a refund is read
// back instead, never sent again).
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt (0: none).
	MaxRetries int
	// WaitMin is the base of the exponential backoff; each wait is a random
	// duration between zero and WaitMin*2^retry, at most WaitMax.
	WaitMin, WaitMax time.Duration
	// RetryAfterMax caps the wait a Retry-After header can ask for; zero
	// means WaitMax.
	RetryAfterMax time.Duration
}

// DefaultRetryPolicy returns the policy a Client uses unless told
// otherwise: 2 retries, backoff from 250ms up to 4s, Retry-After honoured up
// to 10s.
func DefaultRetryPolicy() RetryPolicy { return RetryPolicy(transport.DefaultPolicy) }

// DefaultTimeout bounds one attempt of a request unless [WithTimeout] or
// [WithHTTPClient] says otherwise. The context bounds the whole call.
const DefaultTimeout = 60 * time.Second

// Client calls the gateway for one merchant. It is safe for concurrent use;
// create one with [New] and share it. A Client that New did not create
// sends nothing: the calls through a zero Client{} and its services, and
// through the scopes a nil *Client's Customer and Group return, fail with
// [ErrZeroClient]. Reading a service field of a nil *Client (c.Plans)
// panics, as reading any field through a nil pointer does.
type Client struct {
	// Merchant-level services. The services of one customer are at
	// [Client.Customer].
	Charges   *ChargesService
	Payouts   *PayoutsService
	Fees      *FeesService
	Cards     *CardsService
	Customers *CustomersService
	Plans     *PlansService
	Tokens    *TokensService
	Webhooks  *WebhooksService
	Merchant  *MerchantService
	Stores    *StoresService

	// BankAccounts holds the merchant's own bank accounts, destinations of
	// its payouts; a customer's are at Client.Customer(id).BankAccounts.
	BankAccounts *BankAccountsService
	// BINs looks up card prefixes.
	BINs *BINsService
	// Reports reads Openpay's fees by month and what each payout settled.
	Reports *ReportsService
	// Checkouts are the merchant's payment links, its customers' included.
	Checkouts *CheckoutsService

	merchantID     string
	public         bool
	authValue      []string // the Authorization header's value
	secrets        []string
	baseURL        string
	origin         string // the scheme and host of baseURL: what displayPath leaves out
	sandbox        bool   // the base URL is one of the gateway's sandbox hosts
	userAgentValue []string
	clientIP       []string // the default X-Forwarded-For value, if any
	inFlight       time.Duration
	logger         *slog.Logger // WithLogger's, or nil
	country        Country      // WithCountry's: its zone is the one checkout expirations are written in
	tr             *transport.Transport
}

type settings struct {
	production bool
	country    Country
	baseURL    string
	httpClient *http.Client
	timeout    time.Duration
	policy     RetryPolicy
	userAgent  string
	logger     *slog.Logger
	clientIP   []string
	inFlight   time.Duration // see WithInFlightBound
}

// Option configures a Client.
type Option func(*settings) error

// WithSandbox selects the sandbox environment. It is the default: a client
// built without [WithProduction] talks to the sandbox, where production keys
// are refused with [ErrUnauthorized] (1002).
func WithSandbox() Option {
	return func(s *settings) error { s.production = false; return nil }
}

// WithProduction selects the production environment. A live deployment
// must pass it: without it the client talks to the sandbox, and production
// keys fail every call with [ErrUnauthorized] (1002). Production requires
// https, also for a base URL set with WithBaseURL.
func WithProduction() Option {
	return func(s *settings) error { s.production = true; return nil }
}

// WithCountry selects the country host (Mexico by default) and the time
// zone in which the client writes the times the gateway takes as wall-clock
// minutes of the account's zone (a checkout's expiration): give the
// account's country also with [WithBaseURL].
func WithCountry(c Country) Option {
	return func(s *settings) error {
		if _, ok := gatewayhost.BaseURL(string(c), false); !ok {
			return fmt.Errorf("openpay: unknown country %q (use CountryMexico, CountryColombia or CountryPeru)", string(c))
		}
		s.country = c
		return nil
	}
}

// WithBaseURL sends requests to another host, such as a reference server
// (openpaytest) or a proxy: "http://127.0.0.1:8080". Paths are appended to
// it ("/v1/{merchant_id}/...", "/stores"), so the base URL stops before the
// API version: a base URL whose path ends in "/v1" is refused (New fails),
// since every call would go to "/v1/v1/..." and answer 404.
func WithBaseURL(base string) Option {
	return func(s *settings) error {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("openpay: base URL must be an absolute http or https URL")
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return errors.New("openpay: base URL must not carry credentials, a query or a fragment")
		}
		s.baseURL = strings.TrimRight(u.String(), "/")
		if p := strings.TrimRight(u.Path, "/"); p == "/v1" || strings.HasSuffix(p, "/v1") {
			return errors.New("openpay: base URL must stop before the API version: the SDK adds /v1 to every path (use " +
				strings.TrimSuffix(s.baseURL, "/v1") + ")")
		}
		return nil
	}
}

// WithHTTPClient sends each attempt through hc: its Transport (connection
// pool, proxy, TLS settings) and its Timeout (per attempt). The SDK does not
// follow redirects whatever hc says. Without this option the SDK uses a pool
// tuned for concurrent callers.
//
// A platform acting for many merchants makes one Client per merchant (each
// holds one merchant's keys) and passes them all the same hc: one
// connection pool to the gateway, however many merchants. A Client is
// cheap; keep one per merchant for the life of the process rather than
// one per request. hc's Transport must allow enough idle connections per
// host (MaxIdleConnsPerHost) for the calls in flight across merchants.
func WithHTTPClient(hc *http.Client) Option {
	return func(s *settings) error {
		if hc == nil {
			return errors.New("openpay: WithHTTPClient needs a client")
		}
		s.httpClient = hc
		return nil
	}
}

// WithTimeout bounds each attempt of a request (default 60s). Bound a whole
// call, retries included, with its context.
func WithTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return errors.New("openpay: timeout must be positive")
		}
		s.timeout = d
		return nil
	}
}

// DefaultInFlightBound is how long after a request was sent the SDK holds,
// unless told otherwise ([WithInFlightBound]), that the gateway may still
// carry it out. Openpay documents no such bound; this one covers the
// longest a reference server holds a request (a delay fault's 5 minutes).
const DefaultInFlightBound = 6 * time.Minute

// WithInFlightBound sets how long after a request was sent the gateway may
// still carry it out: a subscription create that found nothing is reported
// as not made ([SubscriptionsService.FindCreated] answers ErrNotFound) only
// that long after it began. Set it from what you know of the gateway's
// limits, or, in tests, just above the longest delay a fault holds a
// request.
func WithInFlightBound(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return errors.New("openpay: in-flight bound must be positive")
		}
		s.inFlight = d
		return nil
	}
}

// WithRetryPolicy replaces the default retry bounds.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(s *settings) error {
		if p.MaxRetries < 0 || p.WaitMin < 0 || p.WaitMax < p.WaitMin || p.RetryAfterMax < 0 {
			return errors.New("openpay: retry policy needs MaxRetries >= 0 and 0 <= WaitMin <= WaitMax")
		}
		s.policy = p
		return nil
	}
}

// WithUserAgent adds the application's name and version to the User-Agent
// header, before the SDK's own: "shop/2.1 openpay-go/0.1.0 (go1.25.0; linux/amd64)",
// with the version of Go that built the program.
func WithUserAgent(ua string) Option {
	return func(s *settings) error {
		if strings.ContainsAny(ua, "\r\n") {
			return errors.New("openpay: user agent must be a single line")
		}
		s.userAgent = strings.TrimSpace(ua)
		return nil
	}
}

// WithLogger sends the SDK's records to l: at Debug one per attempt
// (method, path without query, status, attempt number, timings); at Warn
// each retry, each lookup by order_id after an unclear outcome and each
// unknown outcome, and at Info a lookup that found the transaction, so that
// a production logger shows what needed attention. Nothing logged contains
// a key, a header, a body or card data.
func WithLogger(l *slog.Logger) Option {
	return func(s *settings) error { s.logger = l; return nil }
}

// WithDefaultClientIP sets the payer IP address sent in X-Forwarded-For on
// charge creation when the charge request's ClientIP is empty (and the
// call does not pass [WithClientIP]). It suits
// back-office programs that charge on behalf of one known device; a web
// backend should pass each payer's address per call.
func WithDefaultClientIP(ip string) Option {
	return func(s *settings) error {
		a, err := parseClientIP(ip)
		if err != nil {
			return err
		}
		s.clientIP = []string{a}
		return nil
	}
}

var merchantIDRE = regexp.MustCompile(`^[A-Za-z0-9]{1,45}$`)

// New returns a client for the merchant. key is the private key ("sk_...")
// for a server, or the public key ("pk_...") for a program that only creates
// cards and tokens; a public-key client refuses every other call before
// sending it.
//
// By default the client talks to the Mexican sandbox: a live deployment
// must pass [WithProduction] (and [WithCountry] outside Mexico), or its
// production keys are refused with [ErrUnauthorized] on every call.
func New(merchantID, key string, opts ...Option) (*Client, error) {
	if !merchantIDRE.MatchString(merchantID) {
		return nil, errors.New("openpay: merchant id must be 1 to 45 letters and digits")
	}
	if key == "" || len(key) > 200 || strings.ContainsFunc(key, func(r rune) bool { return r <= ' ' || r == ':' || r > '~' }) {
		// Never echo the key: it may be a real secret pasted wrongly.
		return nil, errors.New("openpay: API key must be non-empty printable ASCII without spaces or colons")
	}
	s := settings{country: CountryMexico, timeout: DefaultTimeout, policy: DefaultRetryPolicy()}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return nil, err
		}
	}
	base := s.baseURL
	if base == "" {
		base, _ = gatewayhost.BaseURL(string(s.country), s.production)
	}
	if s.production && !strings.HasPrefix(base, "https://") {
		return nil, errors.New("openpay: production requires an https base URL")
	}
	if err := checkTLSFloor(s.httpClient); err != nil {
		return nil, err
	}
	ua := "openpay-go/" + Version + " (" + runtime.Version() + "; " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if s.userAgent != "" {
		ua = s.userAgent + " " + ua
	}
	basic := base64.StdEncoding.EncodeToString([]byte(key + ":"))
	bu, err := url.Parse(base)
	if err != nil {
		return nil, errors.New("openpay: base URL must be an absolute http or https URL")
	}
	_, production, gateway := gatewayhost.Lookup(bu.Hostname())
	c := &Client{
		origin:         bu.Scheme + "://" + bu.Host,
		sandbox:        gateway && !production,
		merchantID:     merchantID,
		public:         strings.HasPrefix(key, "pk_"),
		authValue:      []string{"Basic " + basic},
		secrets:        []string{key, basic},
		baseURL:        base,
		userAgentValue: []string{ua},
		clientIP:       s.clientIP,
		inFlight:       cmp.Or(s.inFlight, DefaultInFlightBound),
		logger:         s.logger,
		country:        s.country,
		tr: transport.New(transport.Config{
			HTTPClient: s.httpClient,
			Timeout:    s.timeout,
			Policy:     transport.Policy(s.policy),
			Logger:     s.logger,
		}),
	}
	c.initServices()
	return c, nil
}

// checkTLSFloor refuses a caller's transport explicitly configured below
// TLS 1.2 (Go's client default is already 1.2).
func checkTLSFloor(hc *http.Client) error {
	if hc == nil {
		return nil
	}
	if t, ok := hc.Transport.(*http.Transport); ok && t.TLSClientConfig != nil &&
		t.TLSClientConfig.MinVersion != 0 && t.TLSClientConfig.MinVersion < 0x0303 {
		return errors.New("openpay: the HTTP client allows TLS below 1.2")
	}
	return nil
}

// MerchantID returns the merchant the client acts for ("" for a client
// that New did not create).
func (c *Client) MerchantID() string {
	if c == nil {
		return ""
	}
	return c.merchantID
}

// Logger returns the logger given with [WithLogger], or nil. Packages
// built on the SDK (the journal) send their records to it, so one logger
// shows both.
func (c *Client) Logger() *slog.Logger {
	if c == nil {
		return nil
	}
	return c.logger
}

// CloseIdleConnections closes the idle connections of the SDK's own
// connection pool (not of a client passed with WithHTTPClient).
func (c *Client) CloseIdleConnections() {
	if c != nil && c.tr != nil {
		c.tr.CloseIdleConnections()
	}
}

// String describes the client without its key.
func (c Client) String() string {
	if c.tr == nil {
		return "openpay.Client{not created with openpay.New}"
	}
	kind := "private"
	if c.public {
		kind = "public"
	}
	return "openpay.Client{merchant: " + c.merchantID + ", key: " + kind + ", base: " + c.baseURL + "}"
}

// GoString is like String, so that %#v does not print the key either.
func (c Client) GoString() string { return c.String() }

// Ptr returns a pointer to v, for the few optional request fields whose
// zero value means something (Capture: openpay.Ptr(false)).
func Ptr[T any](v T) *T { return &v }
