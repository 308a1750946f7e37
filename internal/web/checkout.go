package web

import (
	"errors"
	"net/http"
	"slices"

	"github.com/openpay-go/openpay"
)

// The hosted checkout page: what the payer sees at a checkout's
// checkout_link, /checkout/{merchant_id}/{checkout_id} (no source shows the
// gateway's own address, so this one is the server's). While the checkout
// is available it shows the amount, a card form and a button for each
// other method of the merchant's country (PageCheckout.Methods): cash at a
// store, and PSE in Colombia. A card the rules refuse or the bank declines
// shows why and the form again; a card that asks for 3-D Secure goes on to
// the charge's challenge page; a paid checkout sends the payer to its
// redirect_url with the charge id, as the other pages do. A store payment
// sends the payer to the receipt of its store charge (or, with
// redirect_store_payment, back to the shop with the charge id), PSE to the bank's
// page of its charge; while such a payment waits, the link shows where it
// goes on and takes no other. A checkout that is completed, expired or
// cancelled shows its status, in the past, and takes nothing. Every state
// links back to the shop's redirect_url (linkBack), and cash at a store is
// offered only when some store chain takes the amount.

// ErrNoCheckout is what a CheckoutBackend answers for a checkout that does
// not exist (or belongs to another merchant).
var ErrNoCheckout = errors.New("web: no such checkout")

// PageCheckout is a checkout as its page sees it.
type PageCheckout struct {
	// RedirectURL is where the payer goes back to (the checkout's
	// redirect_url); empty when it has none.
	RedirectURL string
	Checkout    openpay.Checkout
	// Methods are the ways to pay the page offers besides a card, in its
	// order: store (cash at a store) and bank_account (PSE).
	Methods []openpay.ChargeMethod
	// StoreBack (the checkout's redirect_store_payment) sends a payer who
	// picks the store to RedirectURL, when there is one, rather than to
	// the receipt.
	StoreBack bool
}

// CheckoutPayment is what came of a card typed on the checkout page.
type CheckoutPayment struct {
	// Invalid, when not empty, says why the card data were refused; no
	// charge was made.
	Invalid string
	// Declined, when not empty, is the error message of the declined
	// charge; the payer may try another card.
	Declined string
	// NextURL, when not empty, is the page where the charge waits for the
	// payer: the 3-D Secure challenge, or the PSE bank's page.
	NextURL string
	// ChargeID is the charge made, if any.
	ChargeID string
}

// CheckoutBackend is what the checkout page needs of the reference server.
// A PageBackend that also implements it gets the checkout page.
type CheckoutBackend interface {
	// Checkout returns a merchant's checkout, or ErrNoCheckout.
	Checkout(merchantID, checkoutID string) (PageCheckout, error)
	// PayCheckout charges a typed card for the checkout as the payer's
	// payment: the card rules and the test-card table decide, and the
	// charge sends its events. It answers an error only when the checkout
	// takes no payment (any more): ErrNoCheckout, or another error, whose
	// text the payer reads, when it is not available or cannot take one
	// now.
	PayCheckout(merchantID, checkoutID string, card PayerCard) (CheckoutPayment, error)
	// StartCheckoutPayment starts the payer's payment of the checkout by
	// one of its Methods: a store charge that waits for the payer's cash,
	// or a PSE charge that waits on the bank's page (NextURL). Its errors
	// are those of PayCheckout.
	StartCheckoutPayment(merchantID, checkoutID string, method openpay.ChargeMethod) (CheckoutPayment, error)
}

// stepCheckout is the step the checkout form's token is bound to.
const stepCheckout = "checkout"

// checkoutPage: the payment link's page.
func (p *Pages) checkoutPage(w http.ResponseWriter, r *http.Request, mid, id string, post bool) {
	if p.checkouts == nil {
		p.fail(w, http.StatusNotFound, "No such page", "There is no page at this address.")
		return
	}
	co, err := p.checkouts.Checkout(mid, id)
	if err != nil {
		p.fail(w, http.StatusNotFound, "Payment link not found", "The merchant has no payment link with this id.")
		return
	}
	if co.Checkout.Status != openpay.CheckoutStatusAvailable {
		p.checkoutFinal(w, co, post)
		return
	}
	v := pageView{Title: "Payment link", Checkout: &co.Checkout, Token: p.token(stepCheckout, mid, id), Action: r.URL.Path,
		Methods: co.Methods, Waiting: waitingAt(mid, co.Checkout.Transaction), ReturnURL: linkBack(co)}
	if slices.Contains(co.Methods, openpay.ChargeMethodStore) {
		// A store is offered only when some network takes the amount.
		if v.Networks = p.b.StoreNetworks(mid, co.Checkout.Amount); len(v.Networks) == 0 {
			v.Methods = slices.DeleteFunc(slices.Clone(co.Methods), func(m openpay.ChargeMethod) bool { return m == openpay.ChargeMethodStore })
		}
	}
	if !post {
		p.render(w, http.StatusOK, "checkout", v)
		return
	}
	if err := r.ParseForm(); err != nil {
		p.fail(w, http.StatusBadRequest, "Bad form", "The form could not be read.")
		return
	}
	if !p.tokenOK(r.PostFormValue("token"), stepCheckout, mid, id) {
		p.fail(w, http.StatusForbidden, "Form expired", "The form's token does not belong to this payment link. Open the link again.")
		return
	}
	method := openpay.ChargeMethod(r.PostFormValue("method"))
	if method != "" && method != openpay.ChargeMethodCard && !slices.Contains(v.Methods, method) {
		p.fail(w, http.StatusBadRequest, "Unknown payment method", "This payment link does not take that way to pay.")
		return
	}
	card := typedCard(r)
	retry := func(status int, message string) {
		v.Message, v.Card = message, PayerCard{Holder: card.Holder, ExpMonth: card.ExpMonth, ExpYear: card.ExpYear}
		if now, err := p.checkouts.Checkout(mid, id); err == nil {
			v.Checkout, v.Waiting = &now.Checkout, waitingAt(mid, now.Checkout.Transaction)
		}
		p.render(w, status, "checkout", v)
	}
	var out CheckoutPayment
	if method == "" || method == openpay.ChargeMethodCard {
		out, err = p.checkouts.PayCheckout(mid, id, card)
	} else {
		out, err = p.checkouts.StartCheckoutPayment(mid, id, method)
	}
	if err != nil {
		now, nerr := p.checkouts.Checkout(mid, id)
		switch {
		case nerr != nil:
			p.fail(w, http.StatusNotFound, "Payment link not found", "The merchant has no payment link with this id.")
		case now.Checkout.Status == openpay.CheckoutStatusAvailable:
			// Still open, yet it took no payment now (one waits for 3-D
			// Secure, or an account is deactivated): the backend says why.
			retry(http.StatusConflict, err.Error())
		default:
			// It moved on meanwhile (paid, expired, cancelled).
			p.checkoutFinal(w, now, true)
		}
		return
	}
	back := returnURL(co.RedirectURL, out.ChargeID)
	switch {
	case out.Invalid != "":
		retry(http.StatusUnprocessableEntity, out.Invalid)
	case out.Declined != "":
		retry(http.StatusPaymentRequired, "The payment was declined: "+out.Declined+". Try another card.")
	case out.NextURL != "":
		http.Redirect(w, r, out.NextURL, http.StatusSeeOther)
	case method == openpay.ChargeMethodStore && co.StoreBack && back != "":
		http.Redirect(w, r, back, http.StatusSeeOther)
	case method == openpay.ChargeMethodStore:
		http.Redirect(w, r, storeReceiptPath(mid, out.ChargeID), http.StatusSeeOther)
	case back != "":
		http.Redirect(w, r, back, http.StatusSeeOther)
	default:
		now, err := p.checkouts.Checkout(mid, id)
		if err != nil {
			p.fail(w, http.StatusNotFound, "Payment link not found", "The merchant has no payment link with this id.")
			return
		}
		p.checkoutFinal(w, now, false)
	}
}

// checkoutFinal shows a checkout that takes no payment: GET answers 200,
// POST (a payment that came too late) 409.
func (p *Pages) checkoutFinal(w http.ResponseWriter, co PageCheckout, post bool) {
	status := http.StatusOK
	if post {
		status = http.StatusConflict
	}
	v := pageView{Title: "Payment link " + linkWords(co.Checkout.Status), Checkout: &co.Checkout, ReturnURL: linkBack(co)}
	p.render(w, status, "checkout", v)
}

// linkBack is the way from a link's page back to the shop: its
// redirect_url, with the id of the link's latest charge when it has one
// (the shop reads that charge, as after the other pages), as given when it
// has none; "" without a redirect_url a browser may be sent to.
func linkBack(co PageCheckout) string {
	if t := co.Checkout.Transaction; t != nil {
		return returnURL(co.RedirectURL, t.ID)
	}
	if !ReturnURLAllowed(co.RedirectURL) {
		return ""
	}
	return co.RedirectURL
}

// waitingAt is where a checkout's payment that waits for the payer goes on
// (the challenge or bank page of a charge_pending charge, the receipt of a
// store charge in_progress); empty when none waits.
func waitingAt(mid string, t *openpay.Transaction) string {
	switch {
	case t == nil || t.PaymentMethod == nil:
		return ""
	case t.Status == openpay.TransactionStatusChargePending:
		return t.PaymentMethod.URL
	case t.Status == openpay.TransactionStatusInProgress && t.PaymentMethod.Type == openpay.PaymentInstructionsTypeStore:
		return storeReceiptPath(mid, t.ID)
	}
	return ""
}
