package web

import (
	"fmt"
	"strings"

	"github.com/openpay-go/openpay"
)

// What the payer reads on the hosted pages: amounts written as the
// payer's country writes them, statuses in words. The raw values stay in
// the pages' data-* attributes for a test to read.

// payerMoney writes an amount of a currency as the country of that
// currency writes it, followed by the currency's code: "1,234.50 MXN",
// "119.000,00 COP" (Colombia groups thousands with a point and writes
// decimals after a comma), "1,234.50 PEN".
func payerMoney(a openpay.Amount, currency any) string {
	cur := fmt.Sprint(currency)
	whole, frac, _ := strings.Cut(a.String(), ".")
	neg := strings.HasPrefix(whole, "-")
	whole = strings.TrimPrefix(whole, "-")
	group, point := ",", "."
	if cur == string(openpay.CurrencyCOP) {
		group, point = ".", ","
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(group)
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString(point + frac)
	}
	return b.String() + " " + cur
}

// ivaMoney writes a Colombian checkout's IVA as payerMoney does; "" when
// there is none or the checkout is not in pesos (other countries' charges
// ignore it).
func ivaMoney(iva openpay.Amount, currency any) string {
	if iva.IsZero() || fmt.Sprint(currency) != string(openpay.CurrencyCOP) {
		return ""
	}
	return payerMoney(iva, currency)
}

// chargeWords says a charge's status to its payer.
func chargeWords(s openpay.TransactionStatus) string {
	switch s {
	case openpay.TransactionStatusCompleted:
		return "paid"
	case openpay.TransactionStatusInProgress:
		return "waiting for your payment"
	case openpay.TransactionStatusChargePending:
		return "waiting for you to confirm it"
	case openpay.TransactionStatusFailed:
		return "not paid: it failed"
	case openpay.TransactionStatusCancelled:
		return "not paid: it was cancelled"
	case openpay.TransactionStatusRefunded:
		return "paid, then refunded"
	case openpay.TransactionStatusChargebackPending, openpay.TransactionStatusChargebackAccepted, openpay.TransactionStatusChargebackAdjustment:
		return "paid, then disputed with the bank"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}

// linkWords says a payment link's status to its payer, in the past for
// the states it ends in.
func linkWords(s openpay.CheckoutStatus) string {
	switch s {
	case openpay.CheckoutStatusAvailable:
		return "open for payment"
	case openpay.CheckoutStatusCompleted:
		return "paid"
	case openpay.CheckoutStatusExpired:
		return "expired unpaid"
	case openpay.CheckoutStatusCancelled:
		return "cancelled by the shop"
	}
	return strings.ReplaceAll(string(s), "_", " ")
}
