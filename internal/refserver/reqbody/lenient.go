package reqbody

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/web"
	"github.com/shopspring/decimal"
)

// Loose request forms. openapi.yaml's schemas give the canonical form of each
// request member, the one the SDK sends; the gateway also takes some other
// forms, and the vendor's own clients and plug-ins rely on them
// (facts-vendor.md, section 1, which cites the evidence). The server accepts
// exactly these, wherever the member appears (charges, captures, refunds,
// cards, tokens, customers, plans, subscriptions, payouts, transfers, fees,
// webhooks), and reads every other form as strictly as before, with the same
// error codes. openapi.yaml lists the same rules, by these names, under
// components.x-openpay-lenient.
//
//	rule                 accepted form                               read as
//	number-strings       "493.00" for an amount, "30" for an integer the number (its precision and range checked as usual)
//	integral-numbers     1.0 or 1e1 for an integer                   1, 10
//	numeric-strings      8576 for order_id, card_number, cvv2,       "8576", as written
//	                     expiration_month, expiration_year
//	boolean-strings      "true" and "false" for a boolean            true, false
//	enum-case            "mxn", "CARD", "CANCELLED", "none"          MXN, card, cancelled, NONE
//	card-points-boolean  use_card_points true or "true",             MIXED, NONE
//	                     false or "false"
//	confirm-string       confirm "false", true or "true" on a card   the payment form, an ordinary card charge
//	                     charge ("ivr" and false as before)
//	member-aliases       card_id on a subscription                   source_id
//	local-due-date       due_date without a UTC offset               the merchant's time (parseFlexibleTime, decode.go)
//	relative-redirect    redirect_url "/" or "shop.example.com/back" the URL as sent
//	iva-number           iva 1900 (Colombia)                         "1900", as written
//	checkout-expiration  a checkout's expiration_date in ISO 8601    the time (CheckoutExpiration)
//	                     besides yyyy-MM-dd HH:mm
//	unknown-members      origin_channel, force_host_ssl, trial_end   ignored (Fields.Into)
//	read-echo            a subscription update that sends back the   what it changes (cancel_at_period_end...):
//	                     subscription as read: its card masked, its  the card it has and the trial's end as
//	                     trial_end_date, id, status null             read change nothing (subscriptions_api.go)
//
// Still refused, as before: a number string that is not exactly a JSON
// number ("abc", "1,000", " 5") and a fraction for an integer (1.5): 1001; an
// amount with three decimals, as a number or a string: 1003; any other
// form of a boolean ("maybe", "FALSE", 1): 1001; an enum word unknown in
// every case ("XYZ"): the code of its rule, as before.
//
// The readings of member.go apply the member rules, driven by the Go type
// of the wire field, as Fields.Into decodes each member (by reflection,
// decodeMember, or by the generated decoders of decode_gen.go): no extra
// pass over the body, and a member in its canonical form is decoded as
// before.

// numericStringMembers are the string members a client may send as a JSON
// number (numeric-strings); the number is kept as written.
var numericStringMembers = map[string]bool{
	"order_id": true, "card_number": true, "cvv2": true, "expiration_month": true, "expiration_year": true,
	"iva": true, // iva-number: vendor clients send a string, a number is taken as written
}

// readByHandler are the members that decoding into a wire type leaves
// alone, by wire request type, for the handler to read from the body as
// written: their Go type (an Amount, a time.Time) reads other forms than
// the gateway takes, or not all of them. The iva (iva-number) is read by
// Checker.IVA, a checkout's expiration_date (checkout-expiration, a
// wall-clock minute of the merchant's zone) by CheckoutExpiration.
var readByHandler = map[reflect.Type]map[string]bool{
	reflect.TypeFor[openpay.CardCharge]():            {"iva": true},
	reflect.TypeFor[openpay.InlineCardCharge]():      {"iva": true},
	reflect.TypeFor[openpay.StoreCharge]():           {"iva": true},
	reflect.TypeFor[openpay.PSECharge]():             {"iva": true},
	reflect.TypeFor[openpay.CheckoutRequest]():       {"iva": true, "expiration_date": true},
	reflect.TypeFor[openpay.CheckoutUpdateRequest](): {"expiration_date": true},
}

// enumBooleans gives the boolean forms of enum members
// (card-points-boolean): the values false and true stand for. The points
// flag was a boolean before it became NONE, ONLY_POINTS or MIXED, and true
// paid with the points first and the rest from the card, which is MIXED.
var enumBooleans = map[reflect.Type]map[bool]string{
	reflect.TypeFor[openpay.UseCardPoints](): {false: string(openpay.UseCardPointsNone), true: string(openpay.UseCardPointsMixed)},
}

// memberAliases are other names of members, by wire request type
// (member-aliases): alias -> canonical name. The canonical member wins when
// both are sent.
var memberAliases = map[reflect.Type]map[string]string{
	reflect.TypeFor[openpay.SubscriptionRequest]():       {"card_id": "source_id"},
	reflect.TypeFor[openpay.SubscriptionUpdateRequest](): {"card_id": "source_id"},
}

// validatorT is the method set of the generated enum types.
var validatorT = reflect.TypeFor[interface{ Valid() bool }]()

// applyAliases gives each alias member of a type's table (memberAliases)
// its canonical name when the canonical member is absent or null: the alias
// member is renamed, or its value goes to a null canonical member sent
// after it.
func (f Fields) applyAliases(aliases map[string]string) {
	for alias, name := range aliases {
		if f.Has(name) || !f.Has(alias) {
			continue
		}
		a := f.last(alias)
		if c := f.last(name); c > a {
			f[c].raw, f[c].plain = f[a].raw, f[a].plain
		} else {
			f[a].name = name
		}
	}
}

// looseNumber returns the JSON number raw holds: raw itself when it is a
// number, or the content of a string that is exactly a JSON number
// (number-strings).
func looseNumber(raw []byte) ([]byte, bool) {
	quoted := len(raw) > 0 && raw[0] == '"'
	if quoted {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		raw = []byte(s)
	}
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil, false
	}
	// Unquoted, raw is a JSON value the body's parser has checked.
	return raw, !quoted || json.Valid(raw)
}

// looseInt reads an integer member: a number or a number string
// (number-strings) whose value is whole (integral-numbers).
func looseInt(raw []byte) (int64, bool) {
	lit, ok := looseNumber(raw)
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
		return n, true
	}
	d, err := decimal.NewFromString(string(lit))
	// The exponent bound keeps "1e999999999" from being expanded.
	if err != nil || d.Exponent() > 18 || d.Exponent() < -64 || !d.IsInteger() {
		return 0, false
	}
	b := d.BigInt()
	if !b.IsInt64() {
		return 0, false
	}
	return b.Int64(), true
}

// looseBool reads a boolean member: true, false, "true" or "false"
// (boolean-strings).
func looseBool(raw []byte) (v, ok bool) {
	switch string(raw) {
	case "true", `"true"`:
		return true, true
	case "false", `"false"`:
		return false, true
	}
	return false, false
}

// isEnum reports whether t is a generated enum type.
func isEnum(t reflect.Type) bool {
	return t.Kind() == reflect.String && t.PkgPath() != "" && reflect.PointerTo(t).Implements(validatorT)
}

// foldEnum replaces the value of fv, an addressable enum, by the known value
// it names in another case (enum-case). An unknown value is left as sent for
// the handler's rule to refuse.
func foldEnum(fv reflect.Value) {
	valid := fv.Addr().Interface().(interface{ Valid() bool })
	if valid.Valid() {
		return
	}
	sent := fv.String()
	fv.SetString(foldWord(sent, func(s string) bool {
		fv.SetString(s)
		return valid.Valid()
	}))
}

// foldWord returns the known value, by valid, that sent names in another
// case (enum-case): its lower case, else its upper case, else sent as it is.
func foldWord(sent string, valid func(string) bool) string {
	for _, s := range []string{strings.ToLower(sent), strings.ToUpper(sent)} {
		if valid(s) {
			return s
		}
	}
	return sent
}

// Values of a card charge's confirm member, as ChargeConfirm reads them.
const (
	ConfirmNo      = "false" // the payment form (RedirectCharge)
	ConfirmYes     = "true"  // an ordinary card charge, as when confirm is absent
	ConfirmIVR     = "ivr"   // a phone payment (IVRCharge)
	ConfirmUnknown = ""      // any other value, for the caller to refuse
)

// ChargeConfirm reads the confirm member of a card charge (confirm-string):
// the vendor's clients type it as a string, "false", "true" or "ivr", and
// send true with ordinary charges. It returns one of the Confirm values.
func ChargeConfirm(f Fields) string {
	if !f.Has("confirm") {
		return ConfirmYes
	}
	raw, _ := f.get("confirm")
	raw = bytes.TrimSpace(raw)
	if b, ok := looseBool(raw); ok {
		return strconv.FormatBool(b)
	}
	if string(raw) == `"`+ConfirmIVR+`"` {
		return ConfirmIVR
	}
	return ConfirmUnknown
}

// ReturnURL checks a URL the payer is sent back to (relative-redirect): the
// gateway takes a relative one ("/") or one without a scheme
// ("shop.example.com/back"), so any http or https URL and any relative
// reference passes. Blank text, text with spaces or control characters, and
// what does not parse answer 1003; another scheme (javascript:, data:),
// which the hosted pages would send a browser to, answers 1001
// (web.ReturnURLAllowed).
func (v *Checker) ReturnURL(name, value string) {
	_, err := url.Parse(value)
	switch {
	case err != nil || value == "" || strings.ContainsFunc(value, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		v.Failf(openpay.ErrInvalidParameter, "The field '%s' must be a URL", name)
	case !web.ReturnURLAllowed(value):
		// A scheme a browser must not be sent to (javascript:, data:):
		// a malformed field, 1001.
		v.Failf(openpay.ErrBadRequest, "The field '%s' must be an http or https URL, or a relative one", name)
	}
}

// CheckoutExpiration reads a checkout's expiration_date
// (checkout-expiration): yyyy-MM-dd HH:mm in the merchant's zone, the form
// the vendor's READMEs show, or the ISO 8601 forms of parseFlexibleTime
// (the .NET client sends a DateTime), with a fraction of a second too.
func CheckoutExpiration(s string, zone *time.Location) (time.Time, bool) {
	if t, err := time.ParseInLocation("2006-01-02 15:04", s, zone); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.In(zone), true
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, zone); err == nil {
		return t, true
	}
	if len(s) > len("2006-01-02") {
		return parseFlexibleTime(s, zone) // 2006-01-02T15:04
	}
	return time.Time{}, false
}
