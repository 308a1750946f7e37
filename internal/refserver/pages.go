package refserver

import (
	"errors"
	"slices"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/openpay-go/openpay/internal/storedata"
	"github.com/openpay-go/openpay/internal/web"
)

// The hosted pages (package web) are the payer's side of redirect, 3-D
// Secure, Alipay and PSE charges, the receipts of store and bank charges,
// and the checkouts' payment links.
// The server mounts them ahead of its API routes (ServeHTTP) and serves
// them their charges through pageBackend, which moves charges with the
// very operations of the simulation controls: CompleteCharge, FailCharge,
// and for the payer's cancel the charge machine's cancel (charging.go).
// This file is the integration point between the server and the pages;
// the checkout page's part of pageBackend is the checkout resource's
// (checkouts_api.go: it pays through payCheckout, the pay control's
// payment).

// newPages builds the server's hosted pages. Their templates are embedded,
// so a failure is a programming error that every test run catches.
func (s *Server) newPages() *web.Pages {
	p, err := web.NewPages(pageBackend{s})
	if err != nil {
		panic("refserver: hosted pages: " + err.Error())
	}
	return p
}

// pageBackend is the server as the hosted pages see it.
type pageBackend struct{ s *Server }

var _ web.PageBackend = pageBackend{}

// pageKind tells the pages what a charge is.
func pageKind(t *tx) web.PageKind {
	switch t.kind {
	case kindRedirect:
		return web.KindCardForm
	case kindCard:
		if t.rare().PaymentMethod != nil && t.rare().PaymentMethod.Type == openpay.PaymentInstructionsTypeRedirect {
			return web.KindThreeDS
		}
	case kindAlipay:
		return web.KindAlipay
	case kindStore:
		return web.KindStore
	case kindBank:
		return web.KindBank
	case kindPSE:
		return web.KindPSE
	}
	return web.KindOther
}

// pageError turns the server's not-found into the pages' ErrNoCharge.
func pageError(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Code == openpay.ErrNotFound {
		return web.ErrNoCharge
	}
	return err
}

// Charge implements web.PageBackend.
func (b pageBackend) Charge(merchantID, chargeID string) (web.PageCharge, error) {
	var ch web.PageCharge
	_, err := b.s.withCharge(merchantID, chargeID, func(_ *merchant, t *tx) *Error {
		ch = web.PageCharge{Kind: pageKind(t), Transaction: t.snapshot()}
		if t.later != nil {
			ch.RedirectURL = t.later.redirectURL
		}
		return nil
	})
	return ch, pageError(err)
}

// EnterCard implements web.PageBackend: the card rules of card creation
// (checkCardData) and what a charge to the card does (its outcome, with the payer's
// e-mail) decide; a valid card is shown on the charge, as on a card charge.
func (b pageBackend) EnterCard(merchantID, chargeID string, c web.PayerCard) (web.CardOutcome, error) {
	k, e := b.s.checkTypedCard(b.s.merchantByID(merchantID), typedCard(c))
	if e != nil {
		// Whether the charge exists is checked first.
		if _, err := b.Charge(merchantID, chargeID); err != nil {
			return web.CardOutcome{}, err
		}
		return web.CardOutcome{Invalid: e.Description}, nil
	}
	var out web.CardOutcome
	_, err := b.s.withCharge(merchantID, chargeID, func(_ *merchant, t *tx) *Error {
		if t.kind != kindRedirect || t.status() != openpay.TransactionStatusChargePending {
			return errorf(openpay.ErrInvalidParameter, "Only a redirect charge waiting for the payer takes a card")
		}
		email := ""
		if t.later != nil {
			email = t.later.email
		}
		o := k.prof.Outcome.ForPayer(email)
		out = web.CardOutcome{Decline: openpay.Code(o.Code), Requires3DS: o.Requires3DS}
		k.cvvPending = false
		wireCard := k.wire()
		wireCard.ID, wireCard.CreationDate, wireCard.CustomerID = "", time.Time{}, ""
		t.card = &wireCard
		return nil
	})
	return out, pageError(err)
}

// typedCard is the card data the payer typed on a page.
func typedCard(c web.PayerCard) openpay.CardDetails {
	return openpay.CardDetails{HolderName: c.Holder, CardNumber: c.Number, CVV2: c.CVV, ExpirationMonth: c.ExpMonth, ExpirationYear: c.ExpYear}
}

// CompleteCharge implements web.PageBackend with the complete control.
func (b pageBackend) CompleteCharge(merchantID, chargeID string) error {
	_, err := b.s.CompleteCharge(merchantID, chargeID)
	return pageError(err)
}

// FailCharge implements web.PageBackend with the fail control.
func (b pageBackend) FailCharge(merchantID, chargeID string, code openpay.Code) error {
	_, err := b.s.FailCharge(merchantID, chargeID, code)
	return pageError(err)
}

// CancelCharge implements web.PageBackend as the API's cancel does.
func (b pageBackend) CancelCharge(merchantID, chargeID string) error {
	_, err := b.s.withCharge(merchantID, chargeID, func(m *merchant, t *tx) *Error {
		if !t.pending() {
			return errorf(openpay.ErrInvalidParameter, descFinalStatus)
		}
		b.s.cancel(m, t)
		return nil
	})
	return pageError(err)
}

// StoreNetworks implements web.PageBackend: the chains of the bundled store
// data in the merchant's country whose limit takes the amount.
func (b pageBackend) StoreNetworks(merchantID string, amount openpay.Amount) []string {
	country := countryrules.Mexico
	if m := b.s.merchantByID(merchantID); m != nil {
		country = m.country
	}
	var names []string
	for _, st := range storedata.ForCountry(string(country.Code)).All() {
		if st.Chain.MaxAmount.GreaterThanOrEqual(amount.Decimal()) && !slices.Contains(names, st.Chain.Name) {
			names = append(names, st.Chain.Name)
		}
	}
	slices.Sort(names)
	return names
}
