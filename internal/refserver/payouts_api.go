package refserver

import (
	"net/http"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/ascii"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/openpay-go/openpay/internal/refserver/cardrules"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Payouts: funds sent from a balance to a bank account or a debit card, at
// merchant scope (/v1/{merchant_id}/payouts, the merchant's balance) and at
// customer scope (/customers/{customer_id}/payouts, the customer's balance
// when it has an account, else the merchant's).
//
// Variants, told apart by method and the members that come with it:
//
//	method bank_account + destination_id  a stored bank account: at customer scope one of the
//	                                      customer's; at merchant scope one of the merchant's own
//	                                      or of any customer of the merchant (the merchant paying
//	                                      a customer's account)
//	method bank_account + bank_account    holder_name and clabe in the request (checked as a
//	                                      stored account is: 1001, 1003)
//	method card + destination_id          a stored card of the scope whose allows_payouts is true
//	                                      (1003 otherwise)
//	method card + card                    card_number, holder_name, bank_code in the request:
//	                                      card_number 16 or 19 digits (15 for American Express,
//	                                      1001), Luhn (2004), a brand the gateway takes (1003),
//	                                      bank_code three digits (1003); a sandbox test card that
//	                                      is a credit card does not take payouts (1003); a test
//	                                      card on a production server answers 2007
//
// Common rules: amount required, greater than zero, two decimals at most;
// description required, at most 250 characters; order_id at most 100 and
// unique among all the merchant's transactions (1006); destination_id at
// most 45 (1003), naming nothing answers 1005. A deactivated account
// answers 1008, a balance short of the amount 4001.
//
// States: a payout starts in_progress and its amount leaves the balance at
// once (payout.created). While in_progress it can be cancelled with DELETE
// (cancelled, the amount returns; the answer is the payout, 200; no event:
// the gateway defines none) or, through the simulation controls, settled
// (completed, payout.succeeded) or failed (failed with error_message, the
// amount returns, payout.failed). A payout in any other status answers
// 1003 to a cancel. A payout has no authorization while in_progress; once
// it leaves that status it carries its tracking key, the upper-cased id, as
// the gateway's examples of completed and cancelled payouts show.
//
// Reads and lists at merchant scope see every payout of the merchant,
// customers' included (as charges do); at customer scope only that
// customer's. Lists take the common filters, order_id, amount, amount[gte],
// amount[lte], status and payout_type: the gateway's sample query uses
// payout_type without listing its values, and openapi.yaml has clients
// pass it through as given, so the server refuses no value. ALL and MANUAL
// (payouts requested through the API: all of the server's), in any case,
// list every payout; any other value (AUTOMATIC: payouts the gateway
// schedules by itself) names a kind of payout the server never makes and
// lists none.

// registerPayouts registers payouts at merchant and customer scope and the
// simulation controls of money movements (money_sim.go).
func (s *Server) registerPayouts(r *routeTable) {
	r.add("listPayouts", http.MethodGet, "/v1/{merchant_id}/payouts", http.StatusOK, s.listPayouts)
	r.add("createPayout", http.MethodPost, "/v1/{merchant_id}/payouts", http.StatusOK, s.createPayout)
	r.add("getPayout", http.MethodGet, "/v1/{merchant_id}/payouts/{transaction_id}", http.StatusOK, s.getPayout)
	r.add("cancelPayout", http.MethodDelete, "/v1/{merchant_id}/payouts/{transaction_id}", http.StatusOK, s.cancelPayout)
	r.add("listCustomerPayouts", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/payouts", http.StatusOK, s.listPayouts)
	r.add("createCustomerPayout", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/payouts", http.StatusOK, s.createPayout)
	r.add("getCustomerPayout", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/payouts/{transaction_id}", http.StatusOK, s.getPayout)
	r.add("cancelCustomerPayout", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/payouts/{transaction_id}", http.StatusOK, s.cancelPayout)
	s.registerMoneySimulation(r)
}

// payoutRequest is a validated payout request, whatever its variant.
type payoutRequest struct {
	method        openpay.PayoutMethod
	amount        openpay.Amount
	description   string
	orderID       string
	destinationID string               // stored bank account or card
	bankAccount   *openpay.BankAccount // inline bank account, CLABE masked
	card          *openpay.Card        // inline card, number masked
}

// parsePayout decodes and validates a payout request.
func (s *Server) parsePayout(f reqbody.Fields) (*payoutRequest, *Error) {
	if !f.Has("method") {
		return nil, errorf(openpay.ErrBadRequest, "The field 'method' is required")
	}
	req := &payoutRequest{}
	if e := f.Member("method", &req.method); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	switch {
	case req.method == openpay.PayoutMethodBankAccount && f.Has("bank_account"):
		var w openpay.InlineBankAccountPayout
		if e := f.Into(&w); e != nil {
			return nil, e
		}
		code, name, e := fieldrules.BankAccount(f.Object("bank_account"), "bank_account.", w.BankAccount)
		if e != nil {
			return nil, e
		}
		req.amount, req.description, req.orderID = w.Amount, w.Description, w.OrderID
		req.bankAccount = &openpay.BankAccount{HolderName: w.BankAccount.HolderName, Alias: w.BankAccount.Alias,
			CLABE: clabe.Mask(w.BankAccount.CLABE), BankCode: code, BankName: name}
	case req.method == openpay.PayoutMethodCard && f.Has("card"):
		var w openpay.InlineCardPayout
		if e := f.Into(&w); e != nil {
			return nil, e
		}
		k, e := s.checkPayoutCard(f.Object("card"), w.Card)
		if e != nil {
			return nil, e
		}
		req.amount, req.description, req.orderID, req.card = w.Amount, w.Description, w.OrderID, k
	case req.method == openpay.PayoutMethodBankAccount || req.method == openpay.PayoutMethodCard:
		// Both stored variants have the same members.
		var w openpay.BankAccountPayout
		if e := f.Into(&w); e != nil {
			return nil, e
		}
		v.Required(f, "destination_id")
		v.Identifier("destination_id", w.DestinationID)
		if v.Err != nil {
			return nil, v.Err
		}
		req.amount, req.description, req.orderID, req.destinationID = w.Amount, w.Description, w.OrderID, w.DestinationID
	default:
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'method' must be bank_account or card")
	}
	fieldrules.Money(&v, f, req.amount, req.description, req.orderID)
	if v.Err != nil {
		return nil, v.Err
	}
	return req, nil
}

// checkPayoutCard applies the rules of an inline payout card and returns
// its wire form, number masked.
func (s *Server) checkPayoutCard(f reqbody.Fields, d openpay.PayoutCardDetails) (*openpay.Card, *Error) {
	for _, n := range []string{"card_number", "holder_name", "bank_code"} {
		if !f.Has(n) {
			return nil, errorf(openpay.ErrBadRequest, "The field 'card.%s' is required", n)
		}
	}
	var v reqbody.Checker
	v.NonEmpty("card.holder_name", d.HolderName)
	if v.Err != nil {
		return nil, v.Err
	}
	n := d.CardNumber
	prof, verdict := cardnum.Check(n)
	if e := cardrules.NumberError("card.", verdict); e != nil {
		return nil, e
	}
	brand := prof.Brand
	v.MaxLen("card.holder_name", d.HolderName, 80)
	if len(d.BankCode) != 3 || !ascii.Digits(d.BankCode) {
		v.Failf(openpay.ErrBadRequest, "The field 'card.bank_code' must be a three-digit code of the bank catalogue")
	}
	if v.Err != nil {
		return nil, v.Err
	}
	if s.opts.Production && cardnum.IsTestCard(n) {
		return nil, errorf(openpay.ErrTestCardInProduction, "The card number is a sandbox test card and cannot be used in production")
	}
	if tc, ok := cardnum.LookupTestCard(n); ok && tc.Type != "debit" {
		return nil, errorf(openpay.ErrInvalidParameter, "The card does not take payouts: payouts go to debit cards")
	}
	bankName, ok := clabe.Bank(d.BankCode)
	if !ok {
		bankName = clabe.UnknownBankName
	}
	return &openpay.Card{CardNumber: cardnum.Mask(n), HolderName: d.HolderName, Brand: openpay.CardBrand(brand),
		Type: "debit", BankCode: d.BankCode, BankName: bankName, AllowsPayouts: true}, nil
}

// createPayout starts a payout from the scope's balance.
func (s *Server) createPayout(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	req, e := s.parsePayout(f)
	if e != nil {
		return nil, e
	}
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	if e := checkActive(m, cu); e != nil {
		return nil, e
	}
	if e := m.orderIDTaken(req.orderID); e != nil {
		return nil, e
	}
	customerID := ""
	if cu != nil {
		customerID = cu.id()
	}
	t := s.newMoneyTx(new(tx), m, openpay.TransactionTypePayout, openpay.TransactionMethod(req.method), openpay.OperationTypeOut,
		req.amount, req.description, req.orderID, customerID)
	m.setStatus(t, openpay.TransactionStatusInProgress)
	switch {
	case req.bankAccount != nil:
		t.more().BankAccount = req.bankAccount
	case req.card != nil:
		t.card = req.card
	case req.method == openpay.PayoutMethodBankAccount:
		b := bankAccounts(m).byID[req.destinationID]
		if b == nil || b.deleted || (cu != nil && b.customerID != cu.id()) || (cu == nil && b.customerID != "" && m.customers.get(b.customerID) == nil) {
			return nil, errNotFound("bank account", req.destinationID)
		}
		w := b.wire()
		w.CreationDate = time.Time{}
		t.more().BankAccount = &w
	default:
		k := m.storedCards().get(req.destinationID)
		if k == nil || k.deleted || (cu == nil && k.customerID != "") || (cu != nil && k.customerID != cu.id()) {
			return nil, errNotFound("card", req.destinationID)
		}
		w := k.wire()
		if !w.AllowsPayouts {
			return nil, errorf(openpay.ErrInvalidParameter, "The card '%s' does not take payouts (allows_payouts is false)", k.id)
		}
		t.card = &w
	}
	acct := m.accountFor(customerID)
	if !acct.debit(req.amount, false) {
		return nil, insufficientFunds(acct)
	}
	m.addTx(t)
	s.emit(m, openpay.EventTypePayoutCreated, t)
	return t.snapshot(), nil
}

// scopePayout returns the payout the path names, or 1005: at merchant
// scope any payout of the merchant, at customer scope only the customer's.
// The caller holds c.m.mu.
func (c *call) scopePayout() (*tx, *Error) {
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	id := c.param("transaction_id")
	t := c.m.txByID(id)
	if t == nil || t.typ() != openpay.TransactionTypePayout || (cu != nil && t.customerID() != cu.id()) {
		return nil, errNotFound("payout", id)
	}
	return t, nil
}

// getPayout answers a payout.
func (s *Server) getPayout(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	t, e := c.scopePayout()
	if e != nil {
		return nil, e
	}
	return t.snapshot(), nil
}

// cancelPayout cancels a payout still in progress; its amount returns to
// the balance it left.
func (s *Server) cancelPayout(c *call) (any, *Error) {
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	t, e := c.scopePayout()
	if e != nil {
		return nil, e
	}
	if t.status() != openpay.TransactionStatusInProgress {
		return nil, errorf(openpay.ErrInvalidParameter, "Only a payout in progress can be cancelled; this one is %s", t.status())
	}
	var cu *customer
	if t.customerID() != "" {
		cu = m.customers.lookup(t.customerID())
	}
	if e := checkActive(m, cu); e != nil {
		return nil, e
	}
	s.endPayout(m, t, openpay.TransactionStatusCancelled, "")
	return t.snapshot(), nil
}

// payoutTypeFilter reads the payout_type filter: it reports whether the
// server's payouts (all requested through the API) are listed.
func payoutTypeFilter(v string) bool {
	switch strings.ToUpper(v) {
	case "", "ALL", "MANUAL":
		return true
	}
	return false
}

// listPayouts lists the payouts of the scope, newest first.
func (s *Server) listPayouts(c *call) (any, *Error) {
	q := c.query
	flt, e := parseTxFilter(q, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	if !payoutTypeFilter(q.Get("payout_type")) {
		flt.p.Limit = 0 // no payout is of the type asked for, but a bad customer still answers 1005
	}
	return flt.list(c, openpay.TransactionTypePayout, func(t *tx, cu *customer) bool {
		return t.typ() == openpay.TransactionTypePayout && (cu == nil || t.customerID() == cu.id())
	})
}
