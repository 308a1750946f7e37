package openpay

import (
	"fmt"
	"log/slog"
)

// Request types that carry card data print and log without it: fmt's %v,
// %+v and %#v and slog (text or JSON) show the last four digits of a card
// number and never a security code. Only json.Marshal, which builds the
// request body, sees the real values.

// lastFour shows the last four digits of a card number, as on a receipt.
func lastFour(number string) string {
	if len(number) <= 4 {
		return "****"
	}
	return "****" + number[len(number)-4:]
}

func cvvShown(cvv string) string {
	if cvv == "" {
		return ""
	}
	return "***"
}

func cardAttrs(holder, number, cvv, month, year string) []slog.Attr {
	return []slog.Attr{
		slog.String("holder_name", holder),
		slog.String("card_number", lastFour(number)),
		slog.String("cvv2", cvvShown(cvv)),
		slog.String("expiration_month", month),
		slog.String("expiration_year", year),
	}
}

func cardString(typ, holder, number, cvv, month, year string) string {
	return fmt.Sprintf("openpay.%s{HolderName:%q CardNumber:%q CVV2:%q Expiration:%s/%s}", typ, holder, lastFour(number), cvvShown(cvv), month, year)
}

// String shows the card without its number or security code.
func (r CardRequest) String() string {
	return cardString("CardRequest", r.HolderName, r.CardNumber, r.CVV2, r.ExpirationMonth, r.ExpirationYear)
}

// GoString is String, for %#v.
func (r CardRequest) GoString() string { return r.String() }

// LogValue logs the card without its number or security code.
func (r CardRequest) LogValue() slog.Value {
	return slog.GroupValue(cardAttrs(r.HolderName, r.CardNumber, r.CVV2, r.ExpirationMonth, r.ExpirationYear)...)
}

// String shows the card without its number or security code.
func (r TokenRequest) String() string {
	return cardString("TokenRequest", r.HolderName, r.CardNumber, r.CVV2, r.ExpirationMonth, r.ExpirationYear)
}

// GoString is String, for %#v.
func (r TokenRequest) GoString() string { return r.String() }

// LogValue logs the card without its number or security code.
func (r TokenRequest) LogValue() slog.Value {
	return slog.GroupValue(cardAttrs(r.HolderName, r.CardNumber, r.CVV2, r.ExpirationMonth, r.ExpirationYear)...)
}

// String shows the card without its number or security code.
func (r CardDetails) String() string {
	return cardString("CardDetails", r.HolderName, r.CardNumber, r.CVV2, r.ExpirationMonth, r.ExpirationYear)
}

// GoString is String, for %#v.
func (r CardDetails) GoString() string { return r.String() }

// LogValue logs the card without its number or security code.
func (r CardDetails) LogValue() slog.Value {
	return slog.GroupValue(cardAttrs(r.HolderName, r.CardNumber, r.CVV2, r.ExpirationMonth, r.ExpirationYear)...)
}

// String shows the card without its number.
func (r PayoutCardDetails) String() string {
	return fmt.Sprintf("openpay.PayoutCardDetails{HolderName:%q CardNumber:%q BankCode:%q}", r.HolderName, lastFour(r.CardNumber), r.BankCode)
}

// GoString is String, for %#v.
func (r PayoutCardDetails) GoString() string { return r.String() }

// LogValue logs the card without its number.
func (r PayoutCardDetails) LogValue() slog.Value {
	return slog.GroupValue(slog.String("holder_name", r.HolderName), slog.String("card_number", lastFour(r.CardNumber)), slog.String("bank_code", r.BankCode))
}

// String shows the update without the security code.
func (r CardUpdateRequest) String() string {
	return fmt.Sprintf("openpay.CardUpdateRequest{HolderName:%q CVV2:%q Expiration:%s/%s}", r.HolderName, cvvShown(r.CVV2), r.ExpirationMonth, r.ExpirationYear)
}

// GoString is String, for %#v.
func (r CardUpdateRequest) GoString() string { return r.String() }

// LogValue logs the update without the security code.
func (r CardUpdateRequest) LogValue() slog.Value {
	return slog.GroupValue(slog.String("holder_name", r.HolderName), slog.String("cvv2", cvvShown(r.CVV2)),
		slog.String("expiration_month", r.ExpirationMonth), slog.String("expiration_year", r.ExpirationYear))
}

// String shows the charge without the security code.
func (r CardCharge) String() string {
	return fmt.Sprintf("openpay.CardCharge{SourceID:%q Amount:%s Currency:%q Description:%q OrderID:%q CVV2:%q}",
		r.SourceID, r.Amount, r.Currency, r.Description, r.OrderID, cvvShown(r.CVV2))
}

// GoString is String, for %#v.
func (r CardCharge) GoString() string { return r.String() }

// LogValue logs the charge without the security code.
func (r CardCharge) LogValue() slog.Value {
	return slog.GroupValue(slog.String("source_id", r.SourceID), slog.String("amount", r.Amount.String()),
		slog.String("currency", string(r.Currency)), slog.String("description", r.Description),
		slog.String("order_id", r.OrderID), slog.String("cvv2", cvvShown(r.CVV2)))
}

// Requests that hold card data in a nested value log through fmt, which
// uses the nested value's masking String method; slog's JSON handler
// would otherwise marshal the raw fields.

// LogValue logs the charge with its card masked.
func (r InlineCardCharge) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", r)) }

// LogValue logs the payout with its card masked.
func (r InlineCardPayout) LogValue() slog.Value { return slog.StringValue(fmt.Sprintf("%+v", r)) }

// LogValue logs the subscription request with its card masked.
func (r SubscriptionRequest) LogValue() slog.Value {
	return slog.StringValue(fmt.Sprintf("%+v", struct {
		PlanID, SourceID string
		Card             *CardDetails
	}{r.PlanID, r.SourceID, r.Card}))
}

// LogValue logs the subscription update with its card masked.
func (r SubscriptionUpdateRequest) LogValue() slog.Value {
	return slog.StringValue(fmt.Sprintf("%+v", struct {
		SourceID string
		Card     *CardDetails
	}{r.SourceID, r.Card}))
}
