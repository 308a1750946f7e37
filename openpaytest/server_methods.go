package openpaytest

import "github.com/openpay-go/openpay"

// The methods of the server's first merchant, declared on Server as well
// so that go doc lists them with the server's: each is the [Merchant]
// method of the same name, acting on srv.Merchant.

// Client is [Merchant.Client]: an SDK client for the first merchant.
func (s *Server) Client(opts ...openpay.Option) (*openpay.Client, error) {
	return s.Merchant.Client(opts...)
}

// PublicClient is [Merchant.PublicClient] for the first merchant.
func (s *Server) PublicClient(opts ...openpay.Option) (*openpay.Client, error) {
	return s.Merchant.PublicClient(opts...)
}

// PayCharge is [Merchant.PayCharge]: the payer pays a store or bank charge.
func (s *Server) PayCharge(chargeID string) (*openpay.Transaction, error) {
	return s.Merchant.PayCharge(chargeID)
}

// CompleteCharge is [Merchant.CompleteCharge]: the payer completes a
// charge_pending charge.
func (s *Server) CompleteCharge(chargeID string) (*openpay.Transaction, error) {
	return s.Merchant.CompleteCharge(chargeID)
}

// FailCharge is [Merchant.FailCharge]: a charge waiting for the payer fails.
func (s *Server) FailCharge(chargeID string, code openpay.Code) (*openpay.Transaction, error) {
	return s.Merchant.FailCharge(chargeID, code)
}

// OpenChargeback is [Merchant.OpenChargeback]: the payer's bank disputes a charge.
func (s *Server) OpenChargeback(chargeID string) (*openpay.Transaction, error) {
	return s.Merchant.OpenChargeback(chargeID)
}

// ResolveChargeback is [Merchant.ResolveChargeback]: an open chargeback is settled.
func (s *Server) ResolveChargeback(chargeID string, accepted bool) (*openpay.Transaction, error) {
	return s.Merchant.ResolveChargeback(chargeID, accepted)
}

// PayCheckout is [Merchant.PayCheckout]: the payer pays a checkout with a card.
func (s *Server) PayCheckout(checkoutID, cardNumber string) (*openpay.Checkout, error) {
	return s.Merchant.PayCheckout(checkoutID, cardNumber)
}

// PayCheckoutBy is [Merchant.PayCheckoutBy]: the payer starts paying a
// checkout at a store or by PSE.
func (s *Server) PayCheckoutBy(checkoutID string, method openpay.ChargeMethod) (*openpay.Checkout, error) {
	return s.Merchant.PayCheckoutBy(checkoutID, method)
}

// SettlePayout is [Merchant.SettlePayout]: a payout reaches its destination.
func (s *Server) SettlePayout(payoutID string) (*openpay.Transaction, error) {
	return s.Merchant.SettlePayout(payoutID)
}

// FailPayout is [Merchant.FailPayout]: the receiving bank rejects a payout.
func (s *Server) FailPayout(payoutID, message string) (*openpay.Transaction, error) {
	return s.Merchant.FailPayout(payoutID, message)
}

// ReceiveSPEI is [Merchant.ReceiveSPEI]: a bank transfer arrives at a
// customer's CLABE.
func (s *Server) ReceiveSPEI(customerID string, amount openpay.Amount) (*openpay.Transaction, error) {
	return s.Merchant.ReceiveSPEI(customerID, amount)
}

// ReceiveMerchantSPEI is [Merchant.ReceiveMerchantSPEI]: a bank transfer
// arrives at the merchant's CLABE.
func (s *Server) ReceiveMerchantSPEI(amount openpay.Amount) (*openpay.Transaction, error) {
	return s.Merchant.ReceiveMerchantSPEI(amount)
}

// DeactivateCustomerAccount is [Merchant.DeactivateCustomerAccount].
func (s *Server) DeactivateCustomerAccount(customerID string) error {
	return s.Merchant.DeactivateCustomerAccount(customerID)
}

// ReactivateCustomerAccount is [Merchant.ReactivateCustomerAccount].
func (s *Server) ReactivateCustomerAccount(customerID string) error {
	return s.Merchant.ReactivateCustomerAccount(customerID)
}

// Balance is [Merchant.Balance]: the first merchant's balance.
func (s *Server) Balance() openpay.Amount { return s.Merchant.Balance() }

// CustomerBalance is [Merchant.CustomerBalance].
func (s *Server) CustomerBalance(customerID string) (openpay.Amount, bool) {
	return s.Merchant.CustomerBalance(customerID)
}

// Events is [Merchant.Events]: the first merchant's events, oldest first.
func (s *Server) Events() []openpay.WebhookEvent { return s.Merchant.Events() }
