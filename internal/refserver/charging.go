package refserver

import (
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/cardrules"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/shopspring/decimal"
)

// The charge machine: what makes and moves a charge whoever asks for it:
// the charge API (charges_api.go, which parses a request into a
// chargeRequest), a checkout's payment (checkouts_api.go), a subscription's
// period (subscriptions_api.go), the simulation controls (simulate_api.go)
// and the hosted pages (pages.go). A checked chargeRequest becomes a stored
// transaction (newChargeTx) and starts (startCharge): a card is charged at
// once (chargeCard; chargeStoredCard from inside the server), any other
// method waits for its payer. completeCharge and cancel end a pending
// charge. The states a charge goes through are charges_api.go's table.

// Fixed data of the payment instructions the server hands out.
const (
	// ivrPhoneNumber is the number the payer of an IVR charge calls.
	ivrPhoneNumber = "525588969143"
	// bankAgreement and bankName are the collection agreement and the bank
	// of bank-transfer charges (the gateway's agreement, the same for every
	// merchant).
	bankAgreement = "1411217"
	bankName      = "BBVA Bancomer"
	bankCode      = "012"
	// alipayFeeRate is the share of an Alipay charge the gateway keeps as
	// its fee (the gateway's example: 2.00 on 2000.00).
	alipayFeeRate = "0.001"
)

// Default payment windows of charges sent without a due_date.
const (
	storeDueAfter   = 48 * time.Hour
	bankDueAfter    = 72 * time.Hour
	pendingDueAfter = 24 * time.Hour // alipay and IVR
	// pseDueAfter is how long a PSE payer has at the bank; the gateway does
	// not say, and a bank session is short.
	pseDueAfter = time.Hour
	// payerDueAfter is how long a card charge waits for its payer on the
	// gateway's card form (redirect, confirm false) or 3-D Secure page.
	// The gateway ends such a charge itself (the vendor's Magento card
	// plug-in cancels the order of a card charge on transaction.expired or
	// charge.cancelled) and publishes no window; a payer's session at the
	// bank is short, as PSE's, so the same hour (openapi.yaml,
	// Transaction.due_date).
	payerDueAfter = time.Hour
)

// chargeRequest is a validated charge request, whatever its variant.
type chargeRequest struct {
	kind          chargeKind
	amount        openpay.Amount
	currency      openpay.Currency
	description   string
	orderID       string
	customer      *openpay.ChargeCustomer // merchant scope only
	capture       bool
	sourceID      string
	inline        bool   // card data sent inline, checked, in inlineCard
	number        string // the charge API's inline card number, a view of the body: chargeCard keeps its mask
	cvv2          string
	useCardPoints openpay.UseCardPoints
	use3DS        bool
	redirectURL   string
	dueDate       time.Time
	metadata      openpay.Metadata    // echoed on the charge
	iva           string              // Colombia; checked, not echoed (the gateway shows no echo)
	country       *countryrules.Rules // the merchant's
	// method, card and inlineCard are where parseCharge decodes the method,
	// a card charge's members and the card data (storage the request has anyway).
	method     openpay.ChargeMethod
	card       openpay.CardCharge
	inlineCard card
}

// newChargeTx starts the record of a charge of the given customer (nil at
// merchant level): id, amount, currency and exchange rate, dates, the
// payer's e-mail. Its status is for the caller to set. The record's
// fields are set as setWire would set them from the wire form, without it.
func (s *Server) newChargeTx(m *merchant, cu *customer, req *chargeRequest) *tx {
	now := s.nowOf(m).In(req.country.Zone)
	t := &tx{kind: req.kind, amountC: centsOf(req.amount), typeC: txTypes.Code(string(openpay.TransactionTypeCharge)),
		methodC: txMethods.Code(string(openpay.TransactionMethodCard)), opTypeC: txOpTypes.Code(string(openpay.OperationTypeIn))}
	s.startTx(t, now, req.orderID, req.description, ownerID(cu))
	if t.setCurrency(req.currency); t.amountC == notCents || len(req.metadata) > 0 {
		t.more().Metadata = req.metadata
		if t.amountC == notCents {
			t.x.Amount = req.amount
		}
	}
	if req.redirectURL != "" {
		t.later = &txLater{redirectURL: strings.Clone(req.redirectURL), email: strings.Clone(payerEmail(cu, req))} // not views of the body
	}
	if req.currency == openpay.CurrencyUSD {
		rate := s.usdRate
		if req.country != countryrules.Mexico {
			rate = openpay.MustDecimal(req.country.USDRate)
		}
		t.more().ExchangeRate = &openpay.ExchangeRate{From: "USD", To: openpay.Currency(req.country.Currency), Value: rate, Date: openpay.DateOf(now)}
	}
	return t
}

// payerEmail is the e-mail of the charge's payer: the customer's, or the
// one the request gives at merchant level.
func payerEmail(cu *customer, req *chargeRequest) string {
	if cu != nil {
		return cu.Email()
	}
	if req.customer != nil {
		return req.customer.Email
	}
	return ""
}

// dueOr returns due, or def when due is zero.
func dueOr(due, def time.Time) time.Time {
	if due.IsZero() {
		return def
	}
	return due
}

// chargeURL is the address of charge t of m on the server at baseURL, under
// which its payer's pages are (built only for the charges that have them).
func chargeURL(baseURL string, m *merchant, t *tx) string {
	return baseURL + "/v1/" + m.id + "/charges/" + t.id()
}

// startCharge carries out a validated charge request of any kind for the
// customer cu (nil at merchant level), recorded as t (newChargeTx), with
// the server's address as the merchant sees it: a card is charged
// (chargeCard); the other kinds start waiting for the payer with their
// payment instructions. It is the one place charges are made, through the
// API or a checkout's page; it returns t. The caller holds m.mu, and the
// lock of whoever owns cards.
func (s *Server) startCharge(m *merchant, cards cardSet, cu *customer, req *chargeRequest, t *tx, baseURL string) (*tx, *Error) {
	now := t.created()
	echo := func() {
		if req.customer != nil {
			t.more().Customer = &openpay.Customer{Name: req.customer.Name, LastName: req.customer.LastName,
				Email: req.customer.Email, PhoneNumber: req.customer.PhoneNumber, Address: req.customer.Address,
				CustomerAddress: req.customer.CustomerAddress, CreationDate: now}
		}
	}

	switch req.kind {
	case kindCard:
		return s.chargeCard(m, cards, cu, req, t, baseURL)
	case kindRedirect:
		echo()
		m.setStatus(t, openpay.TransactionStatusChargePending)
		t.more().DueDate = dueOr(req.dueDate, now.Add(payerDueAfter))
		t.more().PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeRedirect, URL: chargeURL(baseURL, m, t) + "/card_capture"}
	case kindIVR:
		echo()
		m.setStatus(t, openpay.TransactionStatusChargePending)
		t.more().DueDate = now.Add(pendingDueAfter)
		t.more().PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeIVR, PhoneNumber: ivrPhoneNumber, IVRKey: s.ids.IVRKey()}
	case kindAlipay:
		t.setMethod(openpay.TransactionMethodAlipay)
		m.setStatus(t, openpay.TransactionStatusChargePending)
		t.more().DueDate = dueOr(req.dueDate, now.Add(pendingDueAfter))
		t.more().PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeRedirect, URL: chargeURL(baseURL, m, t) + "/redirect/"}
		fee := req.amount.Decimal().Mul(decimal.RequireFromString(alipayFeeRate)).Round(2)
		feeAmount, _ := openpay.AmountFromDecimal(fee)
		t.more().Fee = &openpay.TransactionFee{Amount: feeAmount, Currency: openpay.CurrencyMXN}
	case kindStore:
		t.setMethod(openpay.TransactionMethodStore)
		m.setStatus(t, openpay.TransactionStatusInProgress)
		t.more().DueDate = dueOr(req.dueDate, now.Add(storeDueAfter))
		ref := s.ids.StoreReference(t.id())
		s.registerBarcodeRef(ref)
		t.more().PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeStore, Reference: ref, BarcodeURL: barcodeURL(baseURL, ref)}
		if m.country == countryrules.Mexico {
			// Paybin is a Mexican network; Colombian store charges answer
			// the reference and its barcode only (facts-vendor.md, section 3).
			paybin := s.ids.PaybinReference()
			s.registerBarcodeRef(paybin)
			t.rare().PaymentMethod.PaybinReference, t.rare().PaymentMethod.BarcodePaybinURL = paybin, barcodeURL(baseURL, paybin)
		}
	case kindPSE:
		echo()
		t.setMethod(openpay.TransactionMethodBankAccount)
		m.setStatus(t, openpay.TransactionStatusChargePending)
		t.more().DueDate = dueOr(req.dueDate, now.Add(pseDueAfter))
		t.more().PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeRedirect, URL: chargeURL(baseURL, m, t) + "/redirect/"}
	case kindBank:
		t.setMethod(openpay.TransactionMethodBankAccount)
		m.setStatus(t, openpay.TransactionStatusInProgress)
		t.more().DueDate = dueOr(req.dueDate, now.Add(bankDueAfter))
		t.more().PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeBankTransfer, Agreement: bankAgreement,
			Bank: bankName, CLABE: s.newCLABE(bankCode), Name: s.ids.BankReference()}
	}
	m.addTx(t)
	s.emitAt(m, openpay.EventTypeChargeCreated, t, now)
	return t, nil
}

// chargeCard carries out a charge to a card: a card of cards stored at the
// scope of cu, a token of the merchant, or inline card data. The caller
// holds m.mu, and the lock of whoever owns cards.
func (s *Server) chargeCard(m *merchant, cards cardSet, cu *customer, req *chargeRequest, t *tx, baseURL string) (*tx, *Error) {
	// k is the card charged, read in place (stored, a token's, or inline).
	var k, stored *card
	var tk *token
	if req.inline {
		k = &req.inlineCard
	} else {
		if sc := cards.find(cu, req.sourceID); sc != nil {
			stored, k = sc, sc
		} else if m.tokens[req.sourceID] != nil {
			var e *Error
			if tk, e = m.unusedToken(req.sourceID); e != nil {
				return nil, e
			}
			k = &tk.card
		} else {
			return nil, errorf(openpay.ErrNotFound, "The card or token with id '%s' does not exist", truncateForMessage(req.sourceID))
		}
		if req.cvv2 != "" && !cardnum.CVVValid(req.cvv2, k.prof.Brand) {
			return nil, errorf(openpay.ErrCVVInvalid, "The CVV2 security code is invalid")
		}
	}
	if req.useCardPoints != "" && req.useCardPoints != "NONE" && !k.prof.Points {
		return nil, errorf(openpay.ErrCardNotValidForPoints, "The card is not valid for points")
	}
	// The security code serves this charge and is then dropped, whatever
	// the outcome (a stored card's, a token's); the token is consumed.
	if k.cvvPending = false; tk != nil {
		tk.used = true
	}
	switch {
	case stored != nil:
		// Charges to a stored card share its wire form while it does not
		// change (card.charged): a charge then costs no copy of the card.
		if stored.charged == nil {
			w := stored.wire()
			stored.charged = &w
		}
		t.card = stored.charged
	default:
		// Card data sent inline or a token: the charges that follow with the
		// same card share the wire form, as those to a stored card do. The
		// charge API's card (req.number, k.holder: views of the body) is
		// masked on the stack and copied only when the memo lacks it.
		var buf [32]byte
		wireCard, memo := k.wire(), m.inlineCharged
		wireCard.ID, wireCard.CreationDate, wireCard.CustomerID = "", time.Time{}, ""
		if req.number != "" && memo != nil && memo.CardNumber == string(cardnum.AppendMask(buf[:0], req.number)) {
			wireCard.CardNumber = memo.CardNumber
			if a := memo.Address; a != nil && wireCard.Address != nil && *a == *wireCard.Address {
				wireCard.Address = a
			}
		}
		if memo == nil || *memo != wireCard {
			kept := wireCard
			if req.number != "" { // the address's strings too: the body holds the number and CVV
				_, kept.CardNumber, kept.HolderName = cardnum.Keep(buf[:0], req.number, k.holder)
				kept.Address = cardrules.KeepAddress(kept.Address)
			}
			m.inlineCharged = &kept
		}
		t.card = m.inlineCharged
	}

	now := t.created()
	// A card is charged as the gateway charges it on the charge's day: a
	// stored card or a token whose expiry month has passed since it was
	// saved declines with 3002 (card data sent inline was checked when the
	// request was read).
	if expired, ok := k.exp.Passed(now); ok && expired && !req.inline {
		return nil, s.declineCharge(m, t, errorf(openpay.ErrCardExpired, "%s", declineMessage(openpay.ErrCardExpired)))
	}
	// The payer's e-mail decides here (the fraud trigger); only a charge
	// that waits for its payer keeps it (newChargeTx).
	outcome := k.prof.Outcome.ForPayer(payerEmail(cu, req))
	if outcome.Code != 0 {
		e := errorf(openpay.Code(outcome.Code), "%s", declineMessage(openpay.Code(outcome.Code)))
		if outcome.FraudRule != "" {
			e.FraudRules = []string{outcome.FraudRule}
		}
		return nil, s.declineCharge(m, t, e)
	}
	if req.useCardPoints == "ONLY_POINTS" || req.useCardPoints == "MIXED" {
		value := openpay.MustAmount(cardrules.PointsValueMXN)
		if req.useCardPoints == "ONLY_POINTS" && req.amount.Cmp(value) > 0 {
			return nil, s.declineCharge(m, t, errorf(openpay.ErrCardInsufficientFunds, "The card does not have enough points for this charge"))
		}
		used := value
		if req.amount.Cmp(value) < 0 {
			used = req.amount
		}
		t.more().CardPoints = &openpay.CardPoints{Amount: used, Used: openpay.MustDecimal(cardrules.PointsRemaining),
			Remaining: openpay.MustDecimal("0"), Caption: "Points used with this charge"}
	}
	if outcome.Requires3DS || req.use3DS {
		m.setStatus(t, openpay.TransactionStatusChargePending)
		t.captureOnCompletion = req.capture
		t.more().DueDate = dueOr(req.dueDate, now.Add(payerDueAfter))
		t.more().PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeRedirect, URL: chargeURL(baseURL, m, t) + "/redirect/"}
		m.addTx(t)
		s.emitAt(m, openpay.EventTypeChargeCreated, t, now)
		return t, nil
	}
	t.setText(fieldAuthorization, s.ids.AuthorizationNumber())
	if !req.capture {
		t.preauth = true
		t.operatedNs, t.operatedZone = t.createdNs, t.createdZone // now
		t.putStatus(openpay.TransactionStatusInProgress)          // before addTx: its indexes take it once
		m.addTx(t)
		s.emitAt(m, openpay.EventTypeChargeCreated, t, now)
		return t, nil
	}
	s.completeCharge(m, t, now) // stores t
	return t, nil
}

// declineCharge records a new card charge t as failed with the error e
// that answers it (failTx) and emits charge.failed, dated when t was made;
// it returns e. The caller holds m.mu.
func (s *Server) declineCharge(m *merchant, t *tx, e *Error) *Error {
	failTx(m, t, e.Code, e.Description)
	m.addTx(t)
	s.emitAt(m, openpay.EventTypeChargeFailed, t, t.created())
	return e
}

// failTx moves a transaction to failed with its error_code and the
// error_message that explains it. Every failed transaction is failed here,
// so that none lacks its code: the gateway sends both on a failed
// transaction (the vendor's Java client reads error_code and error_message
// from it), and a merchant's dunning rules read the code, not the text. The
// caller holds m.mu.
func failTx(m *merchant, t *tx, code openpay.Code, message string) {
	m.setStatus(t, openpay.TransactionStatusFailed)
	t.more().ErrorCode, t.more().ErrorMessage = code, message
}

// chargeStoredCard charges a card of cards stored at the scope of cu (a
// merchant card when cu is nil) from inside the server, as subscriptions do
// on schedule: the same outcome rules as a card charge through the API
// (test cards, fraud e-mail, expiry on the charge's day), recorded the same
// way. It returns the transaction it recorded and, unless the charge
// completed, the error: a decline's; 1005 for a card of the owner deleted
// since it was named (no one sent the charge to be told, so it is recorded
// as a failed charge of that card, with charge.failed, as a decline is),
// and 1005 with nothing recorded for a card that was never the owner's; or
// 3012 for a card that asks for 3-D Secure, whose charge is cancelled at
// once since no payer is there to authenticate. The caller holds m.mu and
// the lock of whoever owns cards.
func (s *Server) chargeStoredCard(m *merchant, cards cardSet, cu *customer, cardID string, amount openpay.Amount,
	currency openpay.Currency, description string) (*tx, *Error) {
	if currency == "" {
		currency = m.country.Currency
	}
	req := &chargeRequest{kind: kindCard, amount: amount, currency: currency, description: description,
		capture: true, sourceID: cardID, country: m.country}
	t := s.newChargeTx(m, cu, req)
	if k := cards.get(cardID); k != nil && k.deleted && k.customerID == ownerID(cu) {
		w := k.wire()
		t.card = &w
		return t, s.declineCharge(m, t, errorf(openpay.ErrNotFound, "The card with id '%s' does not exist", cardID))
	}
	if _, e := s.chargeCard(m, cards, cu, req, t, ""); e != nil {
		if m.txByID(t.id()) != t { // refused before anything was recorded
			return nil, e
		}
		return t, e
	}
	if t.status() == openpay.TransactionStatusCompleted {
		return t, nil
	}
	s.cancel(m, t)
	return t, errorf(openpay.ErrBankAuthorizationRequired,
		"The card requires the payer's authentication (3-D Secure) and cannot be charged without the payer")
}

// declineMessage is the error_message of a declined card charge.
func declineMessage(code openpay.Code) string { return cardnum.DeclineMessage(int(code)) }

// completeCharge moves a charge to completed at its amount at now (the
// merchant's time, nowFor), credits the balance it belongs to, and emits
// charge.succeeded. A new charge completed at once is stored here, complete,
// so that its indexes take it once (chargeCard). The caller holds m.mu.
func (s *Server) completeCharge(m *merchant, t *tx, now time.Time) {
	t.preauth = false
	amount := t.amount()
	m.setStatus(t, openpay.TransactionStatusCompleted)
	t.setOperated(now)
	if t.authorization() == "" && t.byCard() {
		t.setText(fieldAuthorization, s.ids.AuthorizationNumber())
	}
	credit := s.toMXN(t, amount)
	if t.rare().Fee != nil {
		credit = credit.Sub(t.rare().Fee.Amount).Sub(t.rare().Fee.Tax)
		t.after().feeCharged = now
		addFeeCharged(m, t)
	}
	if credit.IsPositive() {
		m.accountFor(t.customerID()).credit(credit)
		if t.creditedIs == creditedNone {
			t.setCredited(credit) // no sum to allocate for the usual single credit
		} else {
			t.setCredited(t.credited().Add(credit))
		}
	}
	if t.seq == 0 {
		m.addTx(t)
	}
	s.emitAt(m, openpay.EventTypeChargeSucceeded, t, now)
}

// pending reports whether a charge still waits for the payer or for its
// capture.
func (t *tx) pending() bool {
	switch {
	case t.typ() != "charge":
		return false
	case t.preauth, t.status() == openpay.TransactionStatusChargePending:
		return true
	case t.status() == openpay.TransactionStatusInProgress && (t.kind == kindStore || t.kind == kindBank):
		return true
	}
	return false
}

// cancel moves a pending charge to cancelled. The caller holds m.mu.
func (s *Server) cancel(m *merchant, t *tx) {
	t.preauth = false
	m.setStatus(t, openpay.TransactionStatusCancelled)
	t.setOperated(s.nowFor(m))
	s.emit(m, openpay.EventTypeChargeCancelled, t)
}

// toMXN converts an amount of the charge's currency to MXN at the charge's
// exchange rate, to the cent.
func (s *Server) toMXN(t *tx, a openpay.Amount) openpay.Amount {
	if t.rare().ExchangeRate == nil {
		return a
	}
	mxn, _ := openpay.AmountFromDecimal(a.Decimal().Mul(t.rare().ExchangeRate.Value.Decimal()).Round(2))
	return mxn
}

// withCharge runs op on a merchant's charge under the merchant's lock and
// returns the charge as it stands afterwards.
func (s *Server) withCharge(merchantID, chargeID string, op func(m *merchant, t *tx) *Error) (_ openpay.Transaction, err error) {
	defer s.durable(&err)()
	m := s.merchantByID(merchantID)
	if m == nil {
		return openpay.Transaction{}, errNotFound("merchant", merchantID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.txByID(chargeID)
	if t == nil || t.typ() != "charge" {
		return openpay.Transaction{}, errNotFound("charge", chargeID)
	}
	if e := op(m, t); e != nil {
		return openpay.Transaction{}, e
	}
	m.markTx(t)
	return t.snapshot(), nil
}

// expiring reports whether t is a pending charge that the passing of its
// due date cancels. The caller holds m.mu.
func (t *tx) expiring() bool {
	return t.pending() && !t.preauth && !t.rare().DueDate.IsZero()
}

// byCard reports whether t is a charge paid with a card (at once, on the
// gateway's card form, or by phone): the charges a refund returns and a
// card network's chargeback disputes. Cash at a store, a bank transfer,
// PSE and Alipay are not.
func (t *tx) byCard() bool {
	return t.kind == kindCard || t.kind == kindRedirect || t.kind == kindIVR
}

// lapse cancels t when it is a pending charge whose due date has passed
// by now, as the clock's advance does, and reports whether it did. The
// payer's controls and pages call it first, so that a payment that comes
// after the window (a 3-D Secure approval after the link expired) finds
// the charge cancelled whether or not the clock was advanced meanwhile.
// The caller holds m.mu.
func (s *Server) lapse(m *merchant, t *tx, now time.Time) bool {
	if !t.expiring() || !now.After(t.rare().DueDate) {
		return false
	}
	s.cancel(m, t)
	if t.kind == kindPSE || t.kind == kindCard || t.kind == kindRedirect {
		// The plug-ins wait for this event, then read the charge,
		// cancelled: the Colombian PSE one and the card one
		// (facts-vendor.md, sections 3 and 6).
		s.emit(m, openpay.EventTypeTransactionExpired, t)
	}
	return true
}

// errLapsed is the refusal of a payer's move on a charge whose window
// closed (lapse).
func errLapsed(m *merchant, t *tx) *Error {
	return errorf(openpay.ErrInvalidParameter, "The charge's payment window closed on %s; the charge is cancelled",
		t.rare().DueDate.In(zoneOf(m)).Format("2006-01-02 15:04"))
}
