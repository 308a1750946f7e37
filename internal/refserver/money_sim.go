package refserver

import (
	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"

	"github.com/openpay-go/openpay/internal/clabe"
)

// Simulation controls of money movements: what the banks do. Go methods of
// Server, and POST endpoints under /_simulate/ authenticated with the
// merchant's private key:
//
//	POST /_simulate/{merchant_id}/payouts/{transaction_id}/settle       the payout reaches its destination
//	POST /_simulate/{merchant_id}/payouts/{transaction_id}/fail         the bank rejects it; body {"error_message": "..."} (optional)
//	POST /_simulate/{merchant_id}/spei                                  a bank transfer (SPEI) arrives at the merchant's CLABE
//	POST /_simulate/{merchant_id}/customers/{customer_id}/spei          one arrives at a customer's CLABE
//
// The payout controls answer the payout; the SPEI controls answer the
// incoming transaction. SPEI bodies: {"amount": n, "description": "..."}
// (description optional).
//
// A bank transfer received is stored as the gateway's account statement
// shows one: a completed transaction of type charge, method bank_account,
// operation in, conciliated, carrying the sender's bank account (CLABE
// masked, and the generic RFC of the general public, XAXX010101000, as the
// sender's tax id) and an authorization number; its amount is credited to
// the receiving balance, and a spei.received event is emitted. Only a
// customer with an account has a CLABE to receive at (1003 otherwise);
// money does not enter a deactivated account (1008).

// senderRFC is the tax id shown for the sender of a simulated bank
// transfer: Mexico's generic RFC for the general public.
const senderRFC = "XAXX010101000"

// defaultPayoutFailure is the error_message of a payout failed without one.
const defaultPayoutFailure = "The receiving bank rejected the transfer"

// registerMoneySimulation registers the simulation controls of payouts and
// bank receipts.
func (s *Server) registerMoneySimulation(r *routeTable) {
	r.simulate("settlePayout", "/_simulate/{merchant_id}/payouts/{transaction_id}/settle", func(c *call) (any, *Error) {
		t, err := s.SettlePayout(c.m.id, c.param("transaction_id"))
		if err != nil {
			return nil, err.(*Error)
		}
		return t, nil
	})
	r.simulate("failPayout", "/_simulate/{merchant_id}/payouts/{transaction_id}/fail", func(c *call) (any, *Error) {
		f, e := readBody(c, true)
		if e != nil {
			return nil, e
		}
		var body struct {
			ErrorMessage string `json:"error_message"`
		}
		if e := f.Into(&body); e != nil {
			return nil, e
		}
		t, err := s.FailPayout(c.m.id, c.param("transaction_id"), body.ErrorMessage)
		if err != nil {
			return nil, err.(*Error)
		}
		return t, nil
	})
	spei := func(c *call) (any, *Error) {
		f, e := readBody(c, false)
		if e != nil {
			return nil, e
		}
		var body struct {
			Amount      openpay.Amount `json:"amount"`
			Description string         `json:"description"`
		}
		if e := f.Into(&body); e != nil {
			return nil, e
		}
		if !f.Has("amount") {
			return nil, errorf(openpay.ErrBadRequest, "The field 'amount' is required")
		}
		t, err := s.ReceiveSPEI(c.m.id, c.param("customer_id"), body.Amount, body.Description)
		if err != nil {
			return nil, err.(*Error)
		}
		return t, nil
	}
	r.simulate("receiveSPEI", "/_simulate/{merchant_id}/spei", spei)
	r.simulate("receiveCustomerSPEI", "/_simulate/{merchant_id}/customers/{customer_id}/spei", spei)
	accountState := func(active bool) handlerFunc {
		return func(c *call) (any, *Error) {
			if err := s.SetCustomerAccountActive(c.m.id, c.param("customer_id"), active); err != nil {
				return nil, err.(*Error)
			}
			c.m.mu.Lock()
			defer c.m.mu.Unlock()
			return c.m.customers.get(c.param("customer_id")).wire(c.baseURL()), nil
		}
	}
	r.simulate("deactivateCustomerAccount", "/_simulate/{merchant_id}/customers/{customer_id}/deactivate", accountState(false))
	r.simulate("reactivateCustomerAccount", "/_simulate/{merchant_id}/customers/{customer_id}/reactivate", accountState(true))
}

// SetCustomerAccountActive deactivates (active false) or reactivates a
// customer's account, as the gateway's back office does; the API has no
// operation for it. A deactivated account refuses every movement of funds
// into or out of it with 1008 (charges, payouts, transfers, fees, bank
// receipts), and reads still answer. An unknown merchant or customer
// answers 1005.
func (s *Server) SetCustomerAccountActive(merchantID, customerID string, active bool) (err error) {
	defer s.durable(&err)()
	m := s.merchantByID(merchantID)
	if m == nil {
		return errNotFound("merchant", merchantID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cu := m.customers.get(customerID)
	if cu == nil {
		return errNotFound("customer", customerID)
	}
	cu.deactivated = !active
	m.customers.mark(cu.id())
	return nil
}

// withPayout runs op on a merchant's payout in progress, under the
// merchant's lock, and returns the payout as it stands afterwards.
func (s *Server) withPayout(merchantID, payoutID string, op func(m *merchant, t *tx)) (openpay.Transaction, error) {
	m := s.merchantByID(merchantID)
	if m == nil {
		return openpay.Transaction{}, errNotFound("merchant", merchantID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.txByID(payoutID)
	if t == nil || t.typ() != openpay.TransactionTypePayout {
		return openpay.Transaction{}, errNotFound("payout", payoutID)
	}
	if t.status() != openpay.TransactionStatusInProgress {
		return openpay.Transaction{}, errorf(openpay.ErrInvalidParameter, "Only a payout in progress can settle or fail; this one is %s", t.status())
	}
	op(m, t)
	m.markTx(t)
	return t.snapshot(), nil
}

// SettlePayout simulates a payout in progress reaching its destination: it
// completes (payout.succeeded). Its amount had left the balance when it was
// created.
func (s *Server) SettlePayout(merchantID, payoutID string) (_ openpay.Transaction, err error) {
	defer s.durable(&err)()
	return s.withPayout(merchantID, payoutID, func(m *merchant, t *tx) {
		s.endPayout(m, t, openpay.TransactionStatusCompleted, "")
		s.emit(m, openpay.EventTypePayoutSucceeded, t)
	})
}

// FailPayout simulates the receiving bank rejecting a payout in progress:
// it fails with message as its error_message ("" gives a default; at most
// 250 characters, 1003 otherwise), its amount returns to the balance it
// left, and payout.failed is emitted.
func (s *Server) FailPayout(merchantID, payoutID, message string) (_ openpay.Transaction, err error) {
	defer s.durable(&err)()
	var v reqbody.Checker
	v.MaxLen("error_message", message, 250)
	if v.Err != nil {
		return openpay.Transaction{}, v.Err
	}
	if message == "" {
		message = defaultPayoutFailure
	}
	return s.withPayout(merchantID, payoutID, func(m *merchant, t *tx) {
		s.endPayout(m, t, openpay.TransactionStatusFailed, message)
		s.emit(m, openpay.EventTypePayoutFailed, t)
	})
}

// ReceiveSPEI simulates a bank transfer (SPEI) arriving at the CLABE of a
// customer with an account (customerID), or of the merchant (customerID
// ""): the amount (greater than zero, two decimals at most, 1003) is
// credited and the incoming transaction stored and returned. description
// (at most 250 characters) defaults to a fixed text.
func (s *Server) ReceiveSPEI(merchantID, customerID string, amount openpay.Amount, description string) (_ openpay.Transaction, err error) {
	defer s.durable(&err)()
	var v reqbody.Checker
	v.Amount("amount", amount)
	v.MaxLen("description", description, 250)
	if v.Err != nil {
		return openpay.Transaction{}, v.Err
	}
	if description == "" {
		description = "SPEI transfer received"
	}
	m := s.merchantByID(merchantID)
	if m == nil {
		return openpay.Transaction{}, errNotFound("merchant", merchantID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var cu *customer
	if customerID != "" {
		if cu = m.customers.get(customerID); cu == nil {
			return openpay.Transaction{}, errNotFound("customer", customerID)
		}
	}
	if e := checkActive(m, cu); e != nil {
		return openpay.Transaction{}, e
	}
	if cu != nil && !cu.hasAccount() {
		return openpay.Transaction{}, errNoAccount("", cu.id())
	}
	t := s.newMoneyTx(new(tx), m, openpay.TransactionTypeCharge, openpay.TransactionMethodBankAccount, openpay.OperationTypeIn,
		amount, description, "", customerID)
	t.kind = kindBank
	t.setCurrency(m.country.Currency)
	m.setStatus(t, openpay.TransactionStatusCompleted)
	t.conciliated = true
	t.setText(fieldAuthorization, s.ids.AuthorizationNumber())
	sender := s.newCLABE("002")
	name, _ := clabe.Bank("002")
	t.more().BankAccount = &openpay.BankAccount{CLABE: clabe.Mask(sender), BankCode: "002", BankName: name,
		HolderName: "SPEI sender", RFC: senderRFC}
	m.accountFor(customerID).credit(amount)
	t.setCredited(amount)
	m.addTx(t)
	s.emit(m, openpay.EventTypeSPEIReceived, t)
	return t.snapshot(), nil
}
