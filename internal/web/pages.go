package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// The hosted pages: what the payer's browser sees when a shop sends it to a
// charge's payment_method.url, and the printable receipts of store and bank
// charges. They are served by the reference server on its own host, at the
// addresses the gateway uses:
//
//	/v1/{merchant_id}/charges/{id}/card_capture   card form of a redirect charge (confirm false)
//	/v1/{merchant_id}/charges/{id}/redirect/      3-D Secure challenge of a card charge, the Alipay page, or the PSE bank page
//	/paynet-pdf/{merchant_id}/transaction/{id}    receipt of a store charge (the gateway's dashboard path)
//	/spei-pdf/{merchant_id}/{id}                  receipt of a bank-transfer charge (the gateway's dashboard path)
//	/checkout/{merchant_id}/{checkout_id}         a checkout's payment link (checkout.go)
//
// The gateway serves the receipts as PDF on its dashboard host; here they
// are printable HTML on the server's one host. Pages are plain HTML with
// POST forms and no script, so that a test can drive them over HTTP or in a
// browser; every form carries a token bound to the charge (and to the step),
// and every page says that it is the reference server.
//
// The pages decide nothing about money: they call the same operations as
// the simulation controls (PageBackend), so states, events and webhooks are
// those of the controls.
//
// A payer can always leave: a page where a charge waits for its payer and
// that has a shop to go back to carries "Cancel and go back to the shop"
// (button#leave, leave), which cancels the charge and sends the payer to
// the charge's redirect_url. What the payer reads is in the payer's terms
// (words.go); the raw values stay in data-* attributes for tests.

// PageKind is what a page makes of a charge.
type PageKind int

// The kinds of charges the pages serve.
const (
	// KindOther is a charge no page serves.
	KindOther PageKind = iota
	// KindCardForm is a redirect charge (confirm false): the payer types a
	// card on the card_capture page.
	KindCardForm
	// KindThreeDS is a card charge waiting for 3-D Secure.
	KindThreeDS
	// KindAlipay is an Alipay charge.
	KindAlipay
	// KindStore is a store (Paynet) charge.
	KindStore
	// KindBank is a bank-transfer (SPEI) charge.
	KindBank
	// KindPSE is a Colombian PSE charge: the payer's bank approves or
	// rejects the payment.
	KindPSE
)

// PageCharge is a charge as the pages see it.
type PageCharge struct {
	Kind PageKind
	// RedirectURL is where the payer goes back to (the charge's
	// redirect_url); empty when the charge has none.
	RedirectURL string
	Transaction openpay.Transaction
}

// PayerCard is the card the payer types on the card page.
type PayerCard struct {
	Holder, Number, ExpMonth, ExpYear, CVV string
}

// CardOutcome is what the gateway makes of a typed card.
type CardOutcome struct {
	// Invalid, when not empty, says why the card data were refused (the
	// payer may try again; the charge is unchanged).
	Invalid string
	// Decline is the decline code of the test-card table (0: none).
	Decline openpay.Code
	// Requires3DS: the card goes through the 3-D Secure challenge.
	Requires3DS bool
}

// ErrNoCharge is what a PageBackend answers for a charge that does not exist
// (or belongs to another merchant).
var ErrNoCharge = errors.New("web: no such charge")

// PageBackend is what the pages need of the reference server. Each method
// that changes a charge must do what the matching simulation control does
// (states, events, webhooks).
type PageBackend interface {
	// Charge returns a merchant's charge, or ErrNoCharge.
	Charge(merchantID, chargeID string) (PageCharge, error)
	// EnterCard checks a card typed on the card page of a redirect charge
	// against the card rules and the test-card table, and records it on the
	// charge when it is valid. It changes nothing else.
	EnterCard(merchantID, chargeID string, card PayerCard) (CardOutcome, error)
	// CompleteCharge is the payer completing the charge.
	CompleteCharge(merchantID, chargeID string) error
	// FailCharge is the charge failing with a card error code (0: 3001).
	FailCharge(merchantID, chargeID string, code openpay.Code) error
	// CancelCharge is the payer abandoning the charge: cancelled.
	CancelCharge(merchantID, chargeID string) error
	// StoreNetworks names the store chains of the merchant's country that
	// take a payment of amount.
	StoreNetworks(merchantID string, amount openpay.Amount) []string
}

//go:embed templates/pages/*.html
var pageFS embed.FS

// Pages serves the hosted pages. Create it with [NewPages].
type Pages struct {
	b         PageBackend
	checkouts CheckoutBackend // nil: no checkout page
	key       []byte          // signs the forms' tokens
	pages     map[string]*template.Template
}

// NewPages returns the pages of backend b, with the checkout page when b is
// also a [CheckoutBackend]. Tokens are signed with a random key drawn here,
// so a token is only good on the Pages that issued it.
func NewPages(b PageBackend) (*Pages, error) {
	p := &Pages{b: b, key: make([]byte, 32)}
	p.checkouts, _ = b.(CheckoutBackend)
	if _, err := rand.Read(p.key); err != nil {
		return nil, err
	}
	funcs := template.FuncMap{"date": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.Format("2006-01-02 15:04")
	}, "money": payerMoney, "ivaMoney": ivaMoney, "chargeWords": chargeWords, "linkWords": linkWords}
	var err error
	if p.pages, err = sharedTemplates(pageFS, "templates/pages", funcs); err != nil {
		return nil, err
	}
	return p, nil
}

// page is a parsed page address.
type page int

const (
	pageNone page = iota
	pageCard
	pageRedirect
	pageStoreReceipt
	pageBankReceipt
	pageCheckout
)

// routePage tells which page a path is, with its merchant and charge ids.
func routePage(path string) (pg page, merchantID, chargeID string) {
	// Every API request asks (Handles), so the path is split into an array
	// on the stack: no page has more than six segments.
	var buf [6]string
	n, rest := 0, strings.TrimPrefix(path, "/")
	// An API path (/v1/...) is told apart by its end, without a split.
	switch {
	case strings.HasPrefix(rest, "v1/"):
		if !strings.HasSuffix(rest, "/card_capture") && !strings.HasSuffix(rest, "/redirect") &&
			!strings.HasSuffix(rest, "/redirect/") {
			return pageNone, "", ""
		}
	case !strings.HasPrefix(rest, "paynet-pdf/") && !strings.HasPrefix(rest, "spei-pdf/") &&
		!strings.HasPrefix(rest, "checkout/"):
		return pageNone, "", ""
	}
	for {
		if n == len(buf) {
			return pageNone, "", ""
		}
		seg, more, found := strings.Cut(rest, "/")
		buf[n], n, rest = seg, n+1, more
		if !found {
			break
		}
	}
	segs := buf[:n]
	if n := len(segs); n == 6 && segs[0] == "v1" && segs[2] == "charges" && segs[4] == "redirect" && segs[5] == "" {
		segs = segs[:5] // the gateway's address ends with a slash
	}
	for _, s := range segs {
		if s == "" {
			return pageNone, "", ""
		}
	}
	switch {
	case len(segs) == 5 && segs[0] == "v1" && segs[2] == "charges" && segs[4] == "card_capture":
		return pageCard, segs[1], segs[3]
	case len(segs) == 5 && segs[0] == "v1" && segs[2] == "charges" && segs[4] == "redirect":
		return pageRedirect, segs[1], segs[3]
	case len(segs) == 4 && segs[0] == "paynet-pdf" && segs[2] == "transaction":
		return pageStoreReceipt, segs[1], segs[3]
	case len(segs) == 3 && segs[0] == "spei-pdf":
		return pageBankReceipt, segs[1], segs[2]
	case len(segs) == 3 && segs[0] == "checkout":
		return pageCheckout, segs[1], segs[2]
	}
	return pageNone, "", ""
}

// storeReceiptPath is the address of the receipt of a store charge.
func storeReceiptPath(merchantID, chargeID string) string {
	return "/paynet-pdf/" + url.PathEscape(merchantID) + "/transaction/" + url.PathEscape(chargeID)
}

// Handles reports whether path is the address of a page, so that the
// server can hand the request to the pages before its API routes.
func (p *Pages) Handles(path string) bool {
	pg, _, _ := routePage(path)
	return pg != pageNone
}

// Steps a token is bound to, besides the charge.
const (
	stepCard      = "card"
	stepChallenge = "3ds"
	stepAlipay    = "alipay"
	stepPSE       = "pse"
)

// token is the value a form of the given step of a charge carries: an HMAC
// of the step and the ids under the Pages' key, so it cannot be guessed
// for another charge or step.
func (p *Pages) token(step, merchantID, chargeID string) string {
	h := hmac.New(sha256.New, p.key)
	h.Write([]byte(step + "\x00" + merchantID + "\x00" + chargeID))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:18])
}

func (p *Pages) tokenOK(got, step, merchantID, chargeID string) bool {
	return hmac.Equal([]byte(got), []byte(p.token(step, merchantID, chargeID)))
}

// pageView is what the templates get.
type pageView struct {
	Title     string
	Charge    openpay.Transaction
	Token     string
	Action    string    // the form's address
	ReturnURL string    // the way back to the shop, when there is one
	Message   string    // an error or a notice
	Card      PayerCard // the holder and expiry typed, shown again after an error (never the number or cvv)
	Networks  []string
	Checkout  *openpay.Checkout      // the checkout page's
	Methods   []openpay.ChargeMethod // the checkout page's, besides a card
	Waiting   string                 // the checkout page's: where its waiting payment goes on
}

// ServeHTTP answers a page request. Bad input (unknown charge, a charge
// in the wrong state, a wrong token) gets an HTML error page with a 4xx
// status.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pg, mid, id := routePage(r.URL.Path)
	if pg == pageNone {
		p.fail(w, http.StatusNotFound, "No such page", "There is no page at this address.")
		return
	}
	post := r.Method == http.MethodPost
	if !post && r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD, POST")
		p.fail(w, http.StatusMethodNotAllowed, "Method not allowed", "Pages answer GET and POST.")
		return
	}
	if post && (pg == pageStoreReceipt || pg == pageBankReceipt) {
		w.Header().Set("Allow", "GET, HEAD")
		p.fail(w, http.StatusMethodNotAllowed, "Method not allowed", "A receipt is only read.")
		return
	}
	if pg == pageCheckout {
		p.checkoutPage(w, r, mid, id, post)
		return
	}
	ch, err := p.b.Charge(mid, id)
	if err != nil {
		p.fail(w, http.StatusNotFound, "Charge not found", "The merchant has no charge with this id.")
		return
	}
	if post {
		if err := r.ParseForm(); err != nil {
			p.fail(w, http.StatusBadRequest, "Bad form", "The form could not be read.")
			return
		}
	}
	switch pg {
	case pageCard:
		p.cardPage(w, r, ch, mid, post)
	case pageRedirect:
		p.redirectPage(w, r, ch, mid, post)
	case pageStoreReceipt:
		p.receipt(w, ch, mid, KindStore, "receipt_store")
	case pageBankReceipt:
		p.receipt(w, ch, mid, KindBank, "receipt_bank")
	}
}

// waitsForPayer reports whether the charge still waits for the payer on a page.
func waitsForPayer(ch PageCharge) bool {
	return ch.Transaction.Status == openpay.TransactionStatusChargePending
}

// cardPage: the card form of a redirect charge.
func (p *Pages) cardPage(w http.ResponseWriter, r *http.Request, ch PageCharge, mid string, post bool) {
	id := ch.Transaction.ID
	if ch.Kind != KindCardForm {
		p.fail(w, http.StatusNotFound, "No card form", "This charge is not paid with the gateway's card form.")
		return
	}
	if !waitsForPayer(ch) {
		p.final(w, ch, post)
		return
	}
	v := pageView{Title: "Pay with a card", Charge: ch.Transaction, Token: p.token(stepCard, mid, id), Action: r.URL.Path,
		ReturnURL: returnURL(ch.RedirectURL, id)}
	if !post {
		p.render(w, http.StatusOK, "card", v)
		return
	}
	if !p.tokenOK(r.PostFormValue("token"), stepCard, mid, id) {
		p.fail(w, http.StatusForbidden, "Form expired", "The form's token does not belong to this charge. Open the payment page again.")
		return
	}
	if r.PostFormValue("action") == actionLeave {
		p.leave(w, r, ch, mid)
		return
	}
	card := typedCard(r)
	out, err := p.b.EnterCard(mid, id, card)
	if err != nil {
		p.conflict(w, mid, id)
		return
	}
	if out.Invalid != "" {
		v.Message, v.Card = out.Invalid, PayerCard{Holder: card.Holder, ExpMonth: card.ExpMonth, ExpYear: card.ExpYear}
		p.render(w, http.StatusUnprocessableEntity, "card", v)
		return
	}
	switch {
	case out.Decline != 0:
		err = p.b.FailCharge(mid, id, out.Decline)
	case out.Requires3DS:
		next := strings.TrimSuffix(r.URL.Path, "card_capture") + "redirect/?challenge=" + url.QueryEscape(p.token(stepChallenge, mid, id))
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	default:
		err = p.b.CompleteCharge(mid, id)
	}
	if err != nil {
		p.conflict(w, mid, id)
		return
	}
	p.sendBack(w, r, ch, mid)
}

// redirectPage: the 3-D Secure challenge of a card charge (or of a
// redirect charge whose typed card asked for it), the Alipay page, or the
// PSE bank page, where the payer's bank approves or rejects the payment.
func (p *Pages) redirectPage(w http.ResponseWriter, r *http.Request, ch PageCharge, mid string, post bool) {
	id := ch.Transaction.ID
	var step string
	switch ch.Kind {
	case KindThreeDS, KindCardForm:
		step = stepChallenge
	case KindAlipay:
		step = stepAlipay
	case KindPSE:
		step = stepPSE
	default:
		p.fail(w, http.StatusNotFound, "No payment page", "This charge has no payment page.")
		return
	}
	if !waitsForPayer(ch) {
		p.final(w, ch, post)
		return
	}
	// A redirect charge reaches the challenge only from its card form,
	// which hands out the challenge's token.
	if ch.Kind == KindCardForm && !post && !p.tokenOK(r.URL.Query().Get("challenge"), step, mid, id) {
		p.fail(w, http.StatusForbidden, "Card needed", "Type the card on the payment form first.")
		return
	}
	v := pageView{Charge: ch.Transaction, Token: p.token(step, mid, id), Action: r.URL.Path, ReturnURL: returnURL(ch.RedirectURL, id)}
	name := "challenge"
	v.Title = "3-D Secure verification"
	switch ch.Kind {
	case KindAlipay:
		name, v.Title = "alipay", "Pay with Alipay"
	case KindPSE:
		name, v.Title = "pse", "PSE: pay from your bank account"
	}
	if !post {
		p.render(w, http.StatusOK, name, v)
		return
	}
	if !p.tokenOK(r.PostFormValue("token"), step, mid, id) {
		p.fail(w, http.StatusForbidden, "Form expired", "The form's token does not belong to this charge. Open the payment page again.")
		return
	}
	var err error
	switch action := r.PostFormValue("action"); {
	case step == stepChallenge && action == "approve", step == stepAlipay && action == "pay", step == stepPSE && action == "approve":
		err = p.b.CompleteCharge(mid, id)
	case step == stepChallenge && action == "fail", step == stepPSE && action == "fail":
		// As the fail control without a code: 3001, card declined.
		err = p.b.FailCharge(mid, id, 0)
	case step == stepAlipay && action == "cancel":
		err = p.b.CancelCharge(mid, id)
	case (step == stepChallenge || step == stepPSE) && action == actionLeave:
		p.leave(w, r, ch, mid)
		return
	default:
		p.fail(w, http.StatusBadRequest, "Unknown action", "The form sent an action this page does not take.")
		return
	}
	if err != nil {
		p.conflict(w, mid, id)
		return
	}
	p.sendBack(w, r, ch, mid)
}

// receipt: the printable payment instructions of a store or bank charge.
func (p *Pages) receipt(w http.ResponseWriter, ch PageCharge, mid string, kind PageKind, name string) {
	if ch.Kind != kind || ch.Transaction.PaymentMethod == nil {
		p.fail(w, http.StatusNotFound, "No receipt", "This charge has no receipt of this kind.")
		return
	}
	v := pageView{Title: "Payment receipt", Charge: ch.Transaction}
	if kind == KindStore {
		v.Networks = p.b.StoreNetworks(mid, ch.Transaction.Amount)
	}
	p.render(w, http.StatusOK, name, v)
}

// actionLeave is the action of the "back to the shop" button of a page
// where a charge waits for its payer.
const actionLeave = "leave"

// leave is the payer going back to the shop from a page where the charge
// waits: the charge is cancelled, as the payer abandoned it (the API's
// cancel), and the payer goes back to the charge's redirect_url with its
// id, where the shop reads it cancelled. A link's payment so left leaves
// the link open for another try.
func (p *Pages) leave(w http.ResponseWriter, r *http.Request, ch PageCharge, mid string) {
	if err := p.b.CancelCharge(mid, ch.Transaction.ID); err != nil {
		p.conflict(w, mid, ch.Transaction.ID)
		return
	}
	p.sendBack(w, r, ch, mid)
}

// final answers a page of a charge the payer can no longer act on: GET
// shows its status and the way back; POST is a conflict.
func (p *Pages) final(w http.ResponseWriter, ch PageCharge, post bool) {
	status := http.StatusOK
	if post {
		status = http.StatusConflict
	}
	v := pageView{Title: "Your payment", Charge: ch.Transaction, ReturnURL: returnURL(ch.RedirectURL, ch.Transaction.ID)}
	p.render(w, status, "final", v)
}

// conflict answers a change the backend refused (the charge moved on
// meanwhile).
func (p *Pages) conflict(w http.ResponseWriter, mid, id string) {
	ch, err := p.b.Charge(mid, id)
	if err != nil {
		p.fail(w, http.StatusNotFound, "Charge not found", "The merchant has no charge with this id.")
		return
	}
	p.final(w, ch, true)
}

// sendBack sends the payer to the shop's redirect_url with the charge id;
// a charge without one (a 3-D Secure test card charged without
// redirect_url) shows its new status instead.
func (p *Pages) sendBack(w http.ResponseWriter, r *http.Request, ch PageCharge, mid string) {
	back := returnURL(ch.RedirectURL, ch.Transaction.ID)
	if back == "" {
		now, err := p.b.Charge(mid, ch.Transaction.ID)
		if err != nil {
			p.fail(w, http.StatusNotFound, "Charge not found", "The merchant has no charge with this id.")
			return
		}
		p.final(w, now, false)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// ReturnURLAllowed reports whether a shop's redirect_url is one a browser
// may be sent to: an absolute http or https URL, or a relative one (the
// gateway takes "/" and "shop.example.com/back"), with no space or control
// character. Any other scheme (javascript:, data:, file:) is refused where
// the URL is given (the API checks redirect_url with it) and never sent as
// a Location or a link, whatever a data directory holds.
func ReturnURLAllowed(s string) bool {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return false
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "":
		return true
	case "http", "https":
		return u.Host != ""
	}
	return false
}

// returnURL is the shop's redirect_url with the gateway's parameter id
// added: after "?" or, when the URL has a query already, "&"; before a
// fragment. The URL is otherwise kept as the shop gave it (the gateway
// takes relative ones). A URL a browser may not be sent to
// (ReturnURLAllowed) gives "", as no redirect_url does.
func returnURL(redirectURL, chargeID string) string {
	if !ReturnURLAllowed(redirectURL) {
		return ""
	}
	base, frag, hasFrag := strings.Cut(redirectURL, "#")
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
		if strings.HasSuffix(base, "?") || strings.HasSuffix(base, "&") {
			sep = ""
		}
	}
	out := base + sep + "id=" + url.QueryEscape(chargeID)
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// render writes a page.
func (p *Pages) render(w http.ResponseWriter, status int, name string, v pageView) {
	writePage(w, status, p.pages[name], v)
}

// fail writes the error page.
func (p *Pages) fail(w http.ResponseWriter, status int, title, message string) {
	p.render(w, status, "error", pageView{Title: title, Message: message})
}

// typedCard is the card the payer typed in a posted card form (the fields
// of the card_fields template).
func typedCard(r *http.Request) PayerCard {
	return PayerCard{Holder: strings.TrimSpace(r.PostFormValue("holder_name")), Number: cardDigits(r.PostFormValue("card_number")),
		ExpMonth: strings.TrimSpace(r.PostFormValue("expiration_month")), ExpYear: strings.TrimSpace(r.PostFormValue("expiration_year")),
		CVV: strings.TrimSpace(r.PostFormValue("cvv2"))}
}

// cardDigits drops the spaces and dashes a payer types in a card number.
func cardDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, s)
}
