package openpay

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// The request types that carry card data (card numbers, security codes)
// never show it, however a program prints, logs or encodes them:
//
//   - every fmt verb (%v, %+v, %#v, %s, %q, %x, %d...) prints the value with
//     the card number cut to its last four digits and the security code
//     replaced by "***" (the Format method);
//   - json.Marshal writes the JSON the gateway takes, with the same masking
//     (the MarshalJSON method);
//   - slog's handlers log the masked value, as fmt shows it (the LogValue
//     method).
//
// This holds for the value itself, a pointer to it, and the value nested in
// slices, maps, other request types and a program's own structs, as long as
// the enclosing field is exported. One gap remains, and no method can close
// it: fmt prints an unexported struct field by reflection without calling
// its methods, so a program's own struct holding a CardDetails in an
// unexported field prints the card in full. Keep card data in exported
// fields, or out of logged values. And a struct that embeds one of these
// types inherits its MarshalJSON and Format methods: it encodes and prints
// as the masked card alone, without its own fields.
//
// Only the SDK's own request encoding sends the real values: [Client]
// encodes a request body through its wire method. A program that builds
// gateway requests by itself with json.Marshal gets the masked form.

// wireBody is implemented by the request types whose default JSON encoding
// masks card data, or writes a member in another form than the gateway
// takes (a Colombian iva, an Amount the gateway takes as a string): wire
// returns a value whose JSON encoding is the request as the gateway must
// receive it.
type wireBody interface{ wire() any }

// wireForm returns what to encode as a request body: the real card data of
// a masking type, the body itself otherwise.
func wireForm(body any) any {
	if w, ok := body.(wireBody); ok {
		return w.wire()
	}
	return body
}

// lastFour shows the last four digits of a card number, as on a receipt.
// A value too short to be a card number, or not ending in digits, shows
// nothing of itself: four digits of it could be most of a secret.
func lastFour(number string) string {
	if number == "" {
		return ""
	}
	n := len(number)
	if n < 12 || strings.IndexFunc(number[n-4:], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return "****"
	}
	return "****" + number[n-4:]
}

// cvvShown shows whether a security code is set, never the code.
func cvvShown(cvv string) string {
	if cvv == "" {
		return ""
	}
	return "***"
}

// maskCard is the one place where a request's card data is masked for
// people: the number cut to its last four digits, the security code
// replaced by "***". A type without one of them passes nil for it.
func maskCard(number, cvv *string) {
	if number != nil {
		*number = lastFour(*number)
	}
	if cvv != nil {
		*cvv = cvvShown(*cvv)
	}
}

// formatMasked prints masked, a masked copy of a request of type name (a
// defined type without methods, so fmt prints its fields), for any verb:
// %q and %x quote or hex-encode its %+v text; %#v prints Go syntax under
// the public type's name; every other verb prints it as a struct.
func formatMasked(f fmt.State, verb rune, name string, masked any) {
	switch verb {
	case 'q', 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), fmt.Sprintf("%+v", masked))
	case 'v':
		if f.Flag('#') {
			s := fmt.Sprintf("%#v", masked)
			io.WriteString(f, "openpay."+name+s[strings.IndexByte(s, '{'):])
			return
		}
		fmt.Fprintf(f, fmt.FormatString(f, verb), masked)
	default:
		// %d on a struct would print each string field as an error
		// marker; the fields themselves are what a reader wants.
		fmt.Fprintf(f, "%+v", masked)
	}
}

// The wire types are the request types without their methods: they encode
// and print the fields as they are. Each request type converts itself to
// its wire type, masked for display or plain for the gateway.
type (
	cardRequestShown              CardRequest
	cardDetailsWire               CardDetails
	payoutCardDetailsWire         PayoutCardDetails
	cardUpdateRequestWire         CardUpdateRequest
	cardChargeWire                CardCharge
	inlineCardChargeWire          InlineCardCharge
	inlineCardPayoutWire          InlineCardPayout
	subscriptionRequestWire       SubscriptionRequest
	subscriptionUpdateRequestWire SubscriptionUpdateRequest
)

// Requests that nest another card type encode its real form in wire by
// shadowing the nested field: encoding/json takes the shallower of two
// fields with the same name.

// cardRequestWire is a card to store as the gateway takes it: the card's
// members with device_session_id beside them in one object.
type cardRequestWire struct {
	cardDetailsWire
	DeviceSessionID string `json:"device_session_id,omitempty"`
}

// masked is the request as people see it, in its Go shape: the nested card
// masks itself.
func (r CardRequest) masked() cardRequestShown { return cardRequestShown(r) }

func (r CardRequest) wire() any { return cardRequestWire{cardDetailsWire(r.Card), r.DeviceSessionID} }

// MarshalJSON encodes the request in the flat form the gateway takes, with
// the card number cut to the last four digits and no security code. The SDK
// sends the real values by other means.
func (r CardRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(cardRequestWire{r.Card.masked(), r.DeviceSessionID})
}

// UnmarshalJSON reads the flat form the gateway takes, and MarshalJSON
// writes: the card's members with device_session_id beside them.
func (r *CardRequest) UnmarshalJSON(data []byte) error {
	var w cardRequestWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = CardRequest{Card: CardDetails(w.cardDetailsWire), DeviceSessionID: w.DeviceSessionID}
	return nil
}

// Format prints the request, for every verb, without its card number or
// security code.
func (r CardRequest) Format(f fmt.State, verb rune) { formatMasked(f, verb, "CardRequest", r.masked()) }

// String shows the request without its card number or security code.
func (r CardRequest) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the request in Go syntax without its card number or
// security code.
func (r CardRequest) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the request without its card number or security code.
func (r CardRequest) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

func (r CardDetails) masked() cardDetailsWire {
	maskCard(&r.CardNumber, &r.CVV2)
	return cardDetailsWire(r)
}

func (r CardDetails) wire() any { return cardDetailsWire(r) }

// MarshalJSON encodes the card with its number cut to the last four digits
// and no security code. The SDK sends the real values by other means.
func (r CardDetails) MarshalJSON() ([]byte, error) { return json.Marshal(r.masked()) }

// Format prints the card, for every verb, without its number or security code.
func (r CardDetails) Format(f fmt.State, verb rune) { formatMasked(f, verb, "CardDetails", r.masked()) }

// String shows the card without its number or security code.
func (r CardDetails) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the card in Go syntax without its number or security code.
func (r CardDetails) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the card without its number or security code.
func (r CardDetails) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

func (r PayoutCardDetails) masked() payoutCardDetailsWire {
	maskCard(&r.CardNumber, nil)
	return payoutCardDetailsWire(r)
}

func (r PayoutCardDetails) wire() any { return payoutCardDetailsWire(r) }

// MarshalJSON encodes the card with its number cut to the last four
// digits. The SDK sends the real number by other means.
func (r PayoutCardDetails) MarshalJSON() ([]byte, error) { return json.Marshal(r.masked()) }

// Format prints the card, for every verb, without its number.
func (r PayoutCardDetails) Format(f fmt.State, verb rune) {
	formatMasked(f, verb, "PayoutCardDetails", r.masked())
}

// String shows the card without its number.
func (r PayoutCardDetails) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the card in Go syntax without its number.
func (r PayoutCardDetails) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the card without its number.
func (r PayoutCardDetails) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

func (r CardUpdateRequest) masked() cardUpdateRequestWire {
	maskCard(nil, &r.CVV2)
	return cardUpdateRequestWire(r)
}

func (r CardUpdateRequest) wire() any { return cardUpdateRequestWire(r) }

// MarshalJSON encodes the update without its security code. The SDK sends
// the real code by other means.
func (r CardUpdateRequest) MarshalJSON() ([]byte, error) { return json.Marshal(r.masked()) }

// Format prints the update, for every verb, without its security code.
func (r CardUpdateRequest) Format(f fmt.State, verb rune) {
	formatMasked(f, verb, "CardUpdateRequest", r.masked())
}

// String shows the update without its security code.
func (r CardUpdateRequest) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the update in Go syntax without its security code.
func (r CardUpdateRequest) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the update without its security code.
func (r CardUpdateRequest) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

func (r CardCharge) masked() cardChargeWire {
	maskCard(nil, &r.CVV2)
	return cardChargeWire(r)
}

func (r CardCharge) wire() any {
	return struct {
		cardChargeWire
		IVA quotedAmount `json:"iva,omitzero"`
	}{cardChargeWire(r), quotedAmount(r.IVA)}
}

// MarshalJSON encodes the charge without its security code. The SDK sends
// the real code by other means.
func (r CardCharge) MarshalJSON() ([]byte, error) { return json.Marshal(r.masked()) }

// Format prints the charge, for every verb, without its security code.
func (r CardCharge) Format(f fmt.State, verb rune) { formatMasked(f, verb, "CardCharge", r.masked()) }

// String shows the charge without its security code.
func (r CardCharge) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the charge in Go syntax without its security code.
func (r CardCharge) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the charge without its security code.
func (r CardCharge) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

// The nested card masks itself, so the outer masked forms need no change.

func (r InlineCardCharge) masked() inlineCardChargeWire { return inlineCardChargeWire(r) }

func (r InlineCardCharge) wire() any {
	return struct {
		inlineCardChargeWire
		Card cardDetailsWire `json:"card"`
		IVA  quotedAmount    `json:"iva,omitzero"`
	}{inlineCardChargeWire(r), cardDetailsWire(r.Card), quotedAmount(r.IVA)}
}

// A store or PSE charge has no card data; its wire form writes its iva as
// the string the gateway takes.
type (
	storeChargeWire StoreCharge
	pseChargeWire   PSECharge
)

func (r StoreCharge) wire() any {
	return struct {
		storeChargeWire
		IVA quotedAmount `json:"iva,omitzero"`
	}{storeChargeWire(r), quotedAmount(r.IVA)}
}

func (r PSECharge) wire() any {
	return struct {
		pseChargeWire
		IVA quotedAmount `json:"iva,omitzero"`
	}{pseChargeWire(r), quotedAmount(r.IVA)}
}

// MarshalJSON encodes the charge with its card number cut to the last four
// digits and no security code. The SDK sends the real values by other means.
func (r InlineCardCharge) MarshalJSON() ([]byte, error) { return json.Marshal(r.masked()) }

// Format prints the charge, for every verb, without its card number or
// security code.
func (r InlineCardCharge) Format(f fmt.State, verb rune) {
	formatMasked(f, verb, "InlineCardCharge", r.masked())
}

// String shows the charge without its card number or security code.
func (r InlineCardCharge) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the charge in Go syntax without its card number or
// security code.
func (r InlineCardCharge) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the charge without its card number or security code.
func (r InlineCardCharge) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

func (r InlineCardPayout) masked() inlineCardPayoutWire { return inlineCardPayoutWire(r) }

func (r InlineCardPayout) wire() any {
	return struct {
		inlineCardPayoutWire
		Card payoutCardDetailsWire `json:"card"`
	}{inlineCardPayoutWire(r), payoutCardDetailsWire(r.Card)}
}

// MarshalJSON encodes the payout with its card number cut to the last four
// digits. The SDK sends the real number by other means.
func (r InlineCardPayout) MarshalJSON() ([]byte, error) { return json.Marshal(r.masked()) }

// Format prints the payout, for every verb, without its card number.
func (r InlineCardPayout) Format(f fmt.State, verb rune) {
	formatMasked(f, verb, "InlineCardPayout", r.masked())
}

// String shows the payout without its card number.
func (r InlineCardPayout) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the payout in Go syntax without its card number.
func (r InlineCardPayout) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the payout without its card number.
func (r InlineCardPayout) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

func (r SubscriptionRequest) masked() subscriptionRequestWire { return subscriptionRequestWire(r) }

func (r SubscriptionRequest) wire() any {
	return struct {
		subscriptionRequestWire
		Card *cardDetailsWire `json:"card,omitempty"`
	}{subscriptionRequestWire(r), (*cardDetailsWire)(r.Card)}
}

// MarshalJSON encodes the subscription request with its card number cut to
// the last four digits and no security code. The SDK sends the real values
// by other means.
func (r SubscriptionRequest) MarshalJSON() ([]byte, error) { return json.Marshal(r.masked()) }

// Format prints the subscription request, for every verb, without its card
// number or security code.
func (r SubscriptionRequest) Format(f fmt.State, verb rune) {
	formatMasked(f, verb, "SubscriptionRequest", r.masked())
}

// String shows the subscription request without its card number or
// security code.
func (r SubscriptionRequest) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the subscription request in Go syntax without its card
// number or security code.
func (r SubscriptionRequest) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the subscription request without its card number or
// security code.
func (r SubscriptionRequest) LogValue() slog.Value { return slog.AnyValue(r.masked()) }

func (r SubscriptionUpdateRequest) masked() subscriptionUpdateRequestWire {
	return subscriptionUpdateRequestWire(r)
}

func (r SubscriptionUpdateRequest) wire() any {
	return struct {
		subscriptionUpdateRequestWire
		Card *cardDetailsWire `json:"card,omitempty"`
	}{subscriptionUpdateRequestWire(r), (*cardDetailsWire)(r.Card)}
}

// MarshalJSON encodes the update with its card number cut to the last four
// digits and no security code. The SDK sends the real values by other means.
func (r SubscriptionUpdateRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.masked())
}

// Format prints the update, for every verb, without its card number or
// security code.
func (r SubscriptionUpdateRequest) Format(f fmt.State, verb rune) {
	formatMasked(f, verb, "SubscriptionUpdateRequest", r.masked())
}

// String shows the update without its card number or security code.
func (r SubscriptionUpdateRequest) String() string { return fmt.Sprintf("%+v", r) }

// GoString shows the update in Go syntax without its card number or
// security code.
func (r SubscriptionUpdateRequest) GoString() string { return fmt.Sprintf("%#v", r) }

// LogValue logs the update without its card number or security code.
func (r SubscriptionUpdateRequest) LogValue() slog.Value { return slog.AnyValue(r.masked()) }
