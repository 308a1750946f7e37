package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// The dashboard: server-rendered pages at /_dashboard/ that show the
// reference server's state (merchants and balances, customers with their
// cards, bank accounts and subscriptions, transactions with their history
// and events, webhooks with their delivery attempts, the clock) and give
// its simulation controls a button each.
//
//	GET  /_dashboard/                                              merchants, balances, the clock
//	GET  /_dashboard/merchants/{merchant_id}/                      customers with cards, bank accounts, subscriptions
//	GET  /_dashboard/merchants/{merchant_id}/transactions          transactions, newest first, with history and events
//	GET  /_dashboard/merchants/{merchant_id}/webhooks              webhooks and their delivery attempts
//	POST /_dashboard/merchants/{merchant_id}/transactions/{id}/{action}   pay, complete, fail, settle, chargeback
//	POST /_dashboard/clock/advance                                 form field seconds
//	POST /_dashboard/reset                                         every merchant back to its seed
//
// This package renders and checks forms; what is shown, who may see it and
// what the buttons do is the server's (DashboardBackend). Every POST must
// carry the dashboard's form token and pass net/http's cross-origin check
// (Sec-Fetch-Site, Origin against Host), so that another site cannot press
// the buttons with the user's browser; a successful POST answers 303 back
// to the page it came from.

// DashboardPrefix is the path under which the dashboard is served.
const DashboardPrefix = "/_dashboard/"

// DashboardResetPath is where the reset button posts. The server answers it
// outside the gate its other requests hold, since a reset waits for every
// request in progress to finish (it would otherwise wait for itself).
const DashboardResetPath = DashboardPrefix + "reset"

// DashboardPageSize is how many records a dashboard page shows.
const DashboardPageSize = 25

// Viewer is who looks at the dashboard: everything (All), or one merchant.
type Viewer struct {
	All        bool
	MerchantID string
	// ResetNeedsKey: the server has an admin key, which the whole-server
	// reset asks for (a loopback viewer may be one parallel worker among
	// others, whose merchants the reset would erase).
	ResetNeedsKey bool
}

// Sees reports whether the viewer may see (and act on) the merchant.
func (v Viewer) Sees(merchantID string) bool { return v.All || v.MerchantID == merchantID }

// DashClock is a clock as the dashboard shows it: on a merchant's pages
// the merchant's, on the overview the server's.
type DashClock struct {
	Now time.Time
	// Own: the merchant's own clock, apart from the server's.
	Own bool
	// Fake: the clock moves only when advanced.
	Fake bool
	// Movable: the viewer may advance it (the advance button shows).
	Movable bool
}

// DashMerchant is a merchant with its counts.
type DashMerchant struct {
	Merchant openpay.Merchant
	// Currency is the account's currency (its country's: MXN, COP, PEN),
	// the currency of its balances.
	Currency     string
	Customers    int
	Transactions int
	Webhooks     int
}

// DashCustomer is a customer with what it owns. Card numbers and CLABEs are
// masked, as the API answers them.
type DashCustomer struct {
	Customer      openpay.Customer
	Cards         []openpay.Card
	BankAccounts  []openpay.BankAccount
	Subscriptions []openpay.Subscription
}

// DashCustomers is a page of a merchant's customers, newest first.
type DashCustomers struct {
	Merchant  DashMerchant
	Customers []DashCustomer
	Page      Paging
}

// DashEvent is a step of a transaction's history: an event and the status
// the transaction had after it, or, with Type and ID empty, a status the
// transaction reached without an event (dated by its operation date).
type DashEvent struct {
	ID     string
	Type   openpay.EventType
	Date   time.Time
	Status openpay.TransactionStatus
}

// DashTransaction is a transaction with the events it caused, oldest
// first, and the actions its state allows (see DashActions).
type DashTransaction struct {
	Transaction openpay.Transaction
	Events      []DashEvent
	Actions     []string
}

// DashTransactions is a page of a merchant's transactions, newest first,
// of one type, status and customer when those are set.
type DashTransactions struct {
	Merchant               DashMerchant
	Type, Status, Customer string
	Transactions           []DashTransaction
	Page                   Paging
}

// TxQuery selects a page of transactions: one transaction by ID, or those
// of a type and status, or of a type and customer (each empty for any).
type TxQuery struct {
	ID, Type, Status, Customer string
	Offset, Limit              int
}

// DashAttempt is one delivery attempt to a webhook: when (wall clock), the
// event delivered and its transaction (both empty for the verification
// event), which
// attempt at that event, and the receiver's status or why it did not
// answer.
type DashAttempt struct {
	Time          time.Time
	EventID       string
	TransactionID string // the transaction the event is about
	EventType     openpay.EventType
	Attempt       int
	StatusCode    int
	Error         string
}

// OK reports whether the receiver accepted the delivery (2xx).
func (a DashAttempt) OK() bool { return a.StatusCode >= 200 && a.StatusCode < 300 }

// DashWebhook is a webhook with its delivery state and latest attempts,
// newest first.
type DashWebhook struct {
	Webhook          openpay.Webhook
	Pending          int
	Dropped, GivenUp int64
	Attempts         []DashAttempt
}

// DashWebhooks is a merchant's webhooks.
type DashWebhooks struct {
	Merchant DashMerchant
	Webhooks []DashWebhook
}

// The actions a transaction's buttons post.
const (
	ActionPay        = "pay"        // a store or bank charge in progress is paid
	ActionComplete   = "complete"   // a charge_pending charge is completed by the payer
	ActionFail       = "fail"       // a charge waiting for its payer ends unpaid (a card or PSE one failed, cash or a transfer cancelled), or a payout in progress fails
	ActionSettle     = "settle"     // a payout in progress settles
	ActionChargeback = "chargeback" // a completed card charge is disputed
	ActionAccept     = "accept"     // an open chargeback is accepted (the payer keeps the money)
	ActionReject     = "reject"     // an open chargeback is rejected (the money comes back)
)

// ErrNoMerchant is what a DashboardBackend answers for a merchant that does
// not exist.
var ErrNoMerchant = errors.New("web: no such merchant")

// DashboardBackend is what the dashboard needs of the reference server.
// Lists must cost the page, not the store: the server may hold millions of
// transactions.
type DashboardBackend interface {
	// Authorize tells who the request comes from, or false when it must
	// present credentials (the dashboard then answers 401 asking for HTTP
	// Basic).
	Authorize(r *http.Request) (Viewer, bool)
	// Clock is the clock of the merchant (the server's for "") as the
	// viewer sees it.
	Clock(v Viewer, merchantID string) DashClock
	// Merchants are the merchants the viewer sees, in creation order.
	Merchants(v Viewer) []DashMerchant
	// Customers is a page of a merchant's customers, or ErrNoMerchant.
	Customers(merchantID string, offset, limit int) (DashCustomers, error)
	// Transactions is a page of a merchant's transactions, or ErrNoMerchant.
	Transactions(merchantID string, q TxQuery) (DashTransactions, error)
	// Webhooks are a merchant's webhooks, or ErrNoMerchant.
	Webhooks(merchantID string) (DashWebhooks, error)
	// Act runs an action on a merchant's transaction, as the simulation
	// control of that name does.
	Act(merchantID, transactionID, action string) error
	// AdvanceClock moves the server's clock forward for the viewer, as the
	// clock control does, or says why the viewer may not.
	// The clock is the merchant's (the server's for ""), whose page the
	// button was on.
	AdvanceClock(v Viewer, merchantID string, d time.Duration) error
	// Reset puts every merchant back to its seed; adminKey is the key the
	// viewer typed (ResetNeedsKey), which the backend checks.
	Reset(adminKey string) error
}

//go:embed templates/dashboard/*.html
var dashboardFS embed.FS

// Dashboard serves the dashboard. Create it with [NewDashboard].
type Dashboard struct {
	b     DashboardBackend
	key   []byte // the forms' token key, drawn once per process
	cop   *http.CrossOriginProtection
	pages map[string]*template.Template
}

// token is the forms' token of a viewer: an HMAC of who the viewer is
// under the process's key, so that each merchant signed in (and the
// loopback viewer of them all) has its own, and a token one merchant's
// pages carry is no good to another's session.
func (d *Dashboard) token(v Viewer) string {
	mac := hmac.New(sha256.New, d.key)
	if v.All {
		mac.Write([]byte("all"))
	} else {
		mac.Write([]byte("merchant:" + v.MerchantID))
	}
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// NewDashboard returns the dashboard of backend b.
func NewDashboard(b DashboardBackend) (*Dashboard, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	d := &Dashboard{b: b, key: key, cop: http.NewCrossOriginProtection()}
	funcs := template.FuncMap{
		"date": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.Format("2006-01-02 15:04:05 -07:00")
		},
		"esc": url.PathEscape,
		"inc": func(n int) int { return n + 1 },
	}
	var err error
	if d.pages, err = sharedTemplates(dashboardFS, "templates/dashboard", funcs); err != nil {
		return nil, err
	}
	return d, nil
}

// Handles reports whether path is the dashboard's.
func (d *Dashboard) Handles(path string) bool {
	return path == strings.TrimSuffix(DashboardPrefix, "/") || strings.HasPrefix(path, DashboardPrefix)
}

// Paging places a page in its list; Type, Status and Customer are the
// filters its links keep.
type Paging struct {
	Offset, Limit, Total   int
	Type, Status, Customer string
}

// HasPrev reports whether newer records come before the page.
func (p Paging) HasPrev() bool { return p.Offset > 0 }

// HasNext reports whether older records come after the page.
func (p Paging) HasNext() bool { return p.Offset+p.Limit < p.Total }

// Prev is the offset of the page before.
func (p Paging) Prev() int { return max(0, p.Offset-p.Limit) }

// Next is the offset of the page after.
func (p Paging) Next() int { return p.Offset + p.Limit }

// Last is the 1-based position of the page's last record.
func (p Paging) Last() int { return min(p.Offset+p.Limit, p.Total) }

// dashView is what the templates get: the common header and one page's
// data.
type dashView struct {
	Title      string
	Token      string
	Here       string // the page's path and query, where forms come back to
	Clock      DashClock
	Viewer     Viewer
	MerchantID string // the merchant the page is about, "" on the overview
	Section    string // "customers", "transactions", "webhooks"
	Message    string
	Merchants  []DashMerchant
	Customers  DashCustomers
	Txs        DashTransactions
	Hooks      DashWebhooks
	Types      []string
}

// transactionTypes are the types the transaction filter offers.
var transactionTypes = []string{"charge", "payout", "transfer", "fee"}

// ServeHTTP answers a dashboard request.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == strings.TrimSuffix(DashboardPrefix, "/") {
		http.Redirect(w, r, DashboardPrefix, http.StatusMovedPermanently)
		return
	}
	viewer, ok := d.b.Authorize(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="openpay-refserver dashboard (merchant id and private key)", charset="UTF-8"`)
		d.fail(w, http.StatusUnauthorized, viewer, "Credentials needed",
			"This server is not on loopback: sign in with a merchant's id as the user name and its private key as the password.")
		return
	}
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, DashboardPrefix), "/")
	post := r.Method == http.MethodPost
	if !post && r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD, POST")
		d.fail(w, http.StatusMethodNotAllowed, viewer, "Method not allowed", "The dashboard answers GET and POST.")
		return
	}
	if post {
		d.action(w, r, viewer, segs)
		return
	}
	v := dashView{Viewer: viewer, Token: d.token(viewer), Here: r.URL.RequestURI(), Types: transactionTypes}
	switch {
	case len(segs) == 1 && segs[0] == "":
		v.Title = "Merchants"
		v.Clock = d.b.Clock(viewer, "")
		v.Merchants = d.b.Merchants(viewer)
		d.render(w, http.StatusOK, "overview", v)
	case len(segs) == 3 && segs[0] == "merchants" && segs[1] != "":
		v.MerchantID = segs[1]
		if !viewer.Sees(v.MerchantID) {
			d.fail(w, http.StatusNotFound, viewer, "No such merchant", "There is no merchant with this id.")
			return
		}
		v.Clock = d.b.Clock(viewer, v.MerchantID)
		var err error
		switch segs[2] {
		case "":
			v.Section, v.Title = "customers", "Customers"
			v.Customers, err = d.b.Customers(v.MerchantID, offset(r), DashboardPageSize)
		case "transactions":
			q := r.URL.Query()
			v.Section, v.Title = "transactions", "Transactions"
			v.Txs, err = d.b.Transactions(v.MerchantID, TxQuery{ID: q.Get("id"), Type: q.Get("type"), Status: q.Get("status"), Customer: q.Get("customer"),
				Offset: offset(r), Limit: DashboardPageSize})
		case "webhooks":
			v.Section, v.Title = "webhooks", "Webhooks"
			v.Hooks, err = d.b.Webhooks(v.MerchantID)
		default:
			d.fail(w, http.StatusNotFound, viewer, "No such page", "There is no dashboard page at this address.")
			return
		}
		if err != nil {
			d.fail(w, http.StatusNotFound, viewer, "No such merchant", "There is no merchant with this id.")
			return
		}
		d.render(w, http.StatusOK, v.Section, v)
	default:
		d.fail(w, http.StatusNotFound, viewer, "No such page", "There is no dashboard page at this address.")
	}
}

// offset reads the page's offset (0 when absent or bad).
func offset(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("offset"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// action runs a button's POST: the cross-origin check and the form token
// first, then the action, then 303 back to the page of the form.
func (d *Dashboard) action(w http.ResponseWriter, r *http.Request, viewer Viewer, segs []string) {
	if err := d.cop.Check(r); err != nil {
		d.fail(w, http.StatusForbidden, viewer, "Cross-site request refused", "The dashboard's buttons work only from its own pages.")
		return
	}
	if err := r.ParseForm(); err != nil {
		d.fail(w, http.StatusBadRequest, viewer, "Bad form", "The form could not be read.")
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(d.token(viewer))) != 1 {
		d.fail(w, http.StatusForbidden, viewer, "Form expired", "The form's token is not this server's. Reload the page and try again.")
		return
	}
	var err error
	switch {
	case len(segs) == 2 && segs[0] == "clock" && segs[1] == "advance":
		secs, perr := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("seconds")), 10, 64)
		if perr != nil || secs <= 0 || secs > 10*366*24*3600 {
			d.fail(w, http.StatusUnprocessableEntity, viewer, "Clock not moved", "Seconds must be a whole number from 1 to ten years.")
			return
		}
		mid := r.PostFormValue("merchant")
		if mid != "" && !viewer.Sees(mid) {
			d.fail(w, http.StatusNotFound, viewer, "No such merchant", "There is no merchant with this id.")
			return
		}
		err = d.b.AdvanceClock(viewer, mid, time.Duration(secs)*time.Second)
	case r.URL.Path == DashboardResetPath:
		// Reset touches every merchant: only a viewer of them all may.
		if !viewer.All {
			d.fail(w, http.StatusForbidden, viewer, "Reset refused", "Resetting puts every merchant back to its seed; only the loopback dashboard may.")
			return
		}
		err = d.b.Reset(r.PostFormValue("admin_key"))
	case len(segs) == 5 && segs[0] == "merchants" && segs[2] == "transactions" && segs[1] != "" && segs[3] != "":
		if !viewer.Sees(segs[1]) {
			d.fail(w, http.StatusNotFound, viewer, "No such merchant", "There is no merchant with this id.")
			return
		}
		err = d.b.Act(segs[1], segs[3], segs[4])
	default:
		d.fail(w, http.StatusNotFound, viewer, "No such action", "There is no dashboard action at this address.")
		return
	}
	if err != nil {
		d.fail(w, http.StatusConflict, viewer, "Not done", err.Error())
		return
	}
	http.Redirect(w, r, backTo(r.PostFormValue("back")), http.StatusSeeOther)
}

// backTo is where a button's POST returns: the page the form was on when
// it is a dashboard page, else the overview (never another site).
func backTo(back string) string {
	u, err := url.Parse(back)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, DashboardPrefix) || strings.Contains(u.Path, "//") {
		return DashboardPrefix
	}
	return u.RequestURI()
}

// render writes a dashboard page. The page has no script and posts only
// to itself; it sends no Referer, whose query could name a merchant.
func (d *Dashboard) render(w http.ResponseWriter, status int, name string, v dashView) {
	writePage(w, status, d.pages[name], v,
		"Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
		"Referrer-Policy", "no-referrer")
}

// fail writes the dashboard's error page.
func (d *Dashboard) fail(w http.ResponseWriter, status int, viewer Viewer, title, message string) {
	d.render(w, status, "error", dashView{Title: title, Message: message, Viewer: viewer})
}
