package openpaytest

import "github.com/openpay-go/openpay"

// Simulation methods of money movements: what the banks do to payouts, and
// bank transfers (SPEI) arriving at a CLABE. A payout starts in_progress
// with its amount already taken from the balance; it stays so until it is
// cancelled through the API or one of SettlePayout and FailPayout moves it.
// The same controls exist over HTTP under /_simulate/{merchant_id}/payouts/
// {id}/settle and /fail, /_simulate/{merchant_id}/spei and
// /_simulate/{merchant_id}/customers/{customer_id}/spei.

// SettlePayout simulates a payout in progress reaching its destination: it
// completes and a payout.succeeded event is recorded. A payout in any other
// status fails with [openpay.ErrInvalidParameter]; an unknown one with
// [openpay.ErrNotFound].
func (m *Merchant) SettlePayout(payoutID string) (*openpay.Transaction, error) {
	return m.sim(m.srv.ref.SettlePayout, payoutID)
}

// FailPayout simulates the receiving bank rejecting a payout in progress:
// it ends failed with message as its error_message ("" for a default
// text), its amount returns to the balance it left, and a payout.failed
// event is recorded.
func (m *Merchant) FailPayout(payoutID, message string) (*openpay.Transaction, error) {
	return m.sim(func(mid, id string) (openpay.Transaction, error) { return m.srv.ref.FailPayout(mid, id, message) }, payoutID)
}

// ReceiveSPEI simulates a bank transfer of amount arriving at the CLABE of
// a customer created with requires_account: the customer's balance grows,
// the incoming transaction (type charge, method bank_account, completed) is
// stored and returned, and a spei.received event is recorded. A customer
// without an account has no CLABE ([openpay.ErrInvalidParameter]); a
// deactivated one refuses it ([openpay.ErrAccountDeactivated]). An empty
// customerID is the merchant's CLABE, as in [Merchant.ReceiveMerchantSPEI].
func (m *Merchant) ReceiveSPEI(customerID string, amount openpay.Amount) (*openpay.Transaction, error) {
	return m.sim(func(mid, cid string) (openpay.Transaction, error) {
		return m.srv.ref.ReceiveSPEI(mid, cid, amount, "")
	}, customerID)
}

// ReceiveMerchantSPEI simulates a bank transfer of amount arriving at the
// merchant's CLABE: the merchant's balance grows (funding payouts and fee
// refunds), as ReceiveSPEI does for a customer.
func (m *Merchant) ReceiveMerchantSPEI(amount openpay.Amount) (*openpay.Transaction, error) {
	return m.ReceiveSPEI("", amount)
}

// DeactivateCustomerAccount deactivates a customer's account, as the
// gateway's back office can: from then on every movement of funds into or
// out of it (charges, payouts, transfers, fees, bank receipts) fails with
// [openpay.ErrAccountDeactivated] until ReactivateCustomerAccount. An
// unknown customer is [openpay.ErrNotFound].
func (m *Merchant) DeactivateCustomerAccount(customerID string) error {
	return kitError(m.srv.ref.SetCustomerAccountActive(m.MerchantID, customerID, false))
}

// ReactivateCustomerAccount undoes DeactivateCustomerAccount.
func (m *Merchant) ReactivateCustomerAccount(customerID string) error {
	return kitError(m.srv.ref.SetCustomerAccountActive(m.MerchantID, customerID, true))
}

// CustomerBalance returns the balance of a customer created with
// requires_account, and false for any other customer or an unknown id.
func (m *Merchant) CustomerBalance(customerID string) (openpay.Amount, bool) {
	_, cs, err := m.srv.ref.Balances(m.MerchantID)
	if err != nil {
		return openpay.Amount{}, false
	}
	b, ok := cs[customerID]
	return b, ok
}
