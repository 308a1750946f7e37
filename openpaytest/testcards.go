package openpaytest

import (
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
)

// The sandbox test cards. The gateway documents the numbers marked
// "documented"; where it publishes none (3001, 3005, 3006, 3009-3012, a
// Carnet card), the project chose numbers that pass the Luhn check, in the
// pattern 4000 0000 0003 0CC plus a check digit, where 30CC is the error
// code. Charges to any other valid card succeed. Use [TestCVV] for a
// security code of the right length. CardExpired, CardStolen and CardLost
// cannot be stored either (saving one answers its code); charge them
// inline or through a token.
const (
	CardVisa             = "4111111111111111" // documented: success (Visa debit, Banamex)
	CardVisaCredit       = "4242424242424242" // documented: success (Visa credit, BANCOMER)
	CardMastercard       = "5555555555554444" // documented: success (Mastercard debit)
	CardMastercardPoints = "5105105105105100" // documented: success; has a points programme
	CardAmex             = "345678000000007"  // documented: success (American Express, 4-digit CVV)
	CardAmex2            = "343434343434343"  // documented: success (American Express, 4-digit CVV)
	CardCarnet           = "5062100000000002" // chosen: success (Carnet)

	CardExpired           = "4000000000000069" // documented: 3002 card expired
	CardInsufficientFunds = "4444444444444448" // documented: 3003 insufficient funds
	CardStolen            = "4000000000000119" // documented: 3004 reported stolen
	CardNotOnline         = "4222222222222220" // documented: 3008 not supported online
	Card3DSecure          = "5454545454545454" // documented: 3-D Secure, the charge waits in charge_pending

	CardDeclined          = "4000000000030017" // chosen: 3001 declined
	CardFraud             = "4000000000030058" // chosen: 3005 fraud risk
	CardNotAllowed        = "4000000000030066" // chosen: 3006 operation not allowed
	CardLost              = "4000000000030090" // chosen: 3009 reported lost
	CardRestricted        = "4000000000030108" // chosen: 3010 restricted by the bank
	CardRetained          = "4000000000030116" // chosen: 3011 the bank asks to retain it
	CardBankAuthorization = "4000000000030124" // chosen: 3012 bank authorization required
)

// FraudEmail is the customer e-mail address that makes any card charge fail
// with 3005 (compared without regard to case).
const FraudEmail = "ERROR.FRAUD@OPENPAY.MX"

// TestCard is one card of the sandbox table.
type TestCard struct {
	Number   string
	Brand    string // visa, mastercard, american_express, carnet
	Type     string // debit or credit
	BankName string
	BankCode string
	// PointsCard: the card has a points programme (its points endpoints
	// answer a balance; use_card_points works).
	PointsCard bool
	// Code is the error a charge to the card fails with, 0 when it does not.
	Code openpay.Code
	// Requires3DS: a charge waits in charge_pending for 3-D Secure.
	Requires3DS bool
	// Documented: the gateway documents this card; false for the numbers
	// the project chose.
	Documented  bool
	Description string
}

// TestCards returns the whole sandbox table.
func TestCards() []TestCard {
	src := cardnum.TestCards()
	out := make([]TestCard, len(src))
	for i, c := range src {
		out[i] = TestCard{Number: c.Number, Brand: c.Brand, Type: c.Type, BankName: c.BankName, BankCode: c.BankCode,
			PointsCard: c.PointsCard, Code: openpay.Code(c.Outcome.Code), Requires3DS: c.Outcome.Requires3DS,
			Documented: c.Documented, Description: c.Description}
	}
	return out
}

// TestCVV returns a security code the server accepts for the card number:
// "1234" for American Express (34 or 37), "123" for the others.
func TestCVV(number string) string {
	if strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37") {
		return "1234"
	}
	return "123"
}
