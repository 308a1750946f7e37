package openpaytest

import (
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
)

// The sandbox test cards the gateway documents: a test that charges them
// means the same here and against the gateway's sandbox. Charges to any
// other valid card succeed. Use [CVV] for a security code of the right
// length. CardExpired and CardStolen cannot be stored (saving one answers
// its code); charge them inline or through a token.
const (
	CardVisa             = "4111111111111111" // success (Visa debit, Banamex)
	CardVisaCredit       = "4242424242424242" // success (Visa credit, BANCOMER)
	CardMastercard       = "5555555555554444" // success (Mastercard debit)
	CardMastercardPoints = "5105105105105100" // success; has a points programme
	CardAmex             = "345678000000007"  // success (American Express, 4-digit CVV)
	CardAmex2            = "343434343434343"  // success (American Express, 4-digit CVV)

	CardExpired           = "4000000000000069" // declined: 3002 card expired
	CardInsufficientFunds = "4444444444444448" // declined: 3003 insufficient funds
	CardStolen            = "4000000000000119" // declined: 3004 reported stolen
	CardNotOnline         = "4222222222222220" // declined: 3008 not supported online
	Card3DSecure          = "5454545454545454" // the charge waits in charge_pending for 3-D Secure
)

// Emulator-only cards: numbers the gateway does not document, which the
// reference server gives the outcomes the gateway has no documented card
// for (3001, 3005, 3006, 3009 to 3012, a Carnet card). Against the sandbox
// they are ordinary cards and charges to them succeed, so a test that
// must mean the same there uses the documented cards above
// (CardInsufficientFunds for "a decline"). The numbers pass the Luhn
// check, in the pattern 4000 0000 0003 0CC plus a check digit, where 30CC
// is the error code. EmulatorCardLost cannot be stored either.
const (
	EmulatorCardCarnet            = "5062100000000002" // success (Carnet)
	EmulatorCardDeclined          = "4000000000030017" // declined: 3001
	EmulatorCardFraud             = "4000000000030058" // declined: 3005 fraud risk
	EmulatorCardNotAllowed        = "4000000000030066" // declined: 3006 operation not allowed
	EmulatorCardLost              = "4000000000030090" // declined: 3009 reported lost
	EmulatorCardRestricted        = "4000000000030108" // declined: 3010 restricted by the bank
	EmulatorCardRetained          = "4000000000030116" // declined: 3011 the bank asks to retain it
	EmulatorCardBankAuthorization = "4000000000030124" // declined: 3012 bank authorization required
)

// FraudEmail is the customer e-mail address that makes any card charge fail
// with 3005 (compared without regard to case).
const FraudEmail = "ERROR.FRAUD@OPENPAY.MX"

// SandboxCard is one card of the sandbox table.
type SandboxCard struct {
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
	// Documented: the gateway documents this card; false for the
	// emulator-only numbers (EmulatorCard...), which decline only here.
	Documented  bool
	Description string
}

// SandboxCards returns the whole sandbox table, documented and
// emulator-only cards.
func SandboxCards() []SandboxCard {
	src := cardnum.TestCards()
	out := make([]SandboxCard, len(src))
	for i, c := range src {
		out[i] = SandboxCard{Number: c.Number, Brand: c.Brand, Type: c.Type, BankName: c.BankName, BankCode: c.BankCode,
			PointsCard: c.PointsCard, Code: openpay.Code(c.Outcome.Code), Requires3DS: c.Outcome.Requires3DS,
			Documented: c.Documented, Description: c.Description}
	}
	return out
}

// CVV returns a security code the server (and the sandbox) accepts for
// the card number: "1234" for American Express (34 or 37), "123" for the
// others.
func CVV(number string) string {
	if strings.HasPrefix(number, "34") || strings.HasPrefix(number, "37") {
		return "1234"
	}
	return "123"
}
