package openpay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// flexInt is an integer that the gateway sends sometimes as a JSON number and
// sometimes as a string holding one (http_code in error bodies, the payments
// of a payment plan, store ids). It always encodes as a JSON number. The
// fields themselves are plain ints, read through flexInt by the
// UnmarshalJSON methods at the end of this file.
type flexInt int64

// MarshalJSON writes the value as a JSON number.
func (n flexInt) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(n), 10), nil
}

// UnmarshalJSON accepts 404, "404", and null or "" (which leave n
// unchanged).
func (n *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = bytes.TrimSpace(b[1 : len(b)-1])
		if len(b) == 0 {
			return nil
		}
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("openpay: %.20q is not an integer", b)
	}
	*n = flexInt(v)
	return nil
}

// flexString is a string that the gateway sometimes sends as a JSON number
// (for example a store's id_store, documented as a string but numeric in real
// responses). It always encodes as a JSON string. The fields themselves are
// plain strings, read through flexString like flexInt's.
type flexString string

// MarshalJSON writes the value as a JSON string.
func (s flexString) MarshalJSON() ([]byte, error) { return json.Marshal(string(s)) }

// UnmarshalJSON accepts a string, a number (kept exactly as written) or null
// (which leaves s unchanged).
func (s *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("openpay: malformed string: %w", err)
		}
		*s = flexString(v)
		return nil
	default:
		var num json.Number
		if err := json.Unmarshal(b, &num); err != nil {
			return fmt.Errorf("openpay: expected a string or a number")
		}
		*s = flexString(num.String())
		return nil
	}
}

// checkoutTimeLayout is the form in which the gateway writes a checkout's
// timestamps (2021-10-15T23:36:00.000-0500): milliseconds, and an offset
// without the colon that RFC 3339 has, so time.Time alone cannot read it.
const checkoutTimeLayout = "2006-01-02T15:04:05.000-0700"

// flexTime is a timestamp that the gateway writes as checkoutTimeLayout or
// as RFC 3339 (the timestamps of checkouts). It encodes as
// checkoutTimeLayout, the gateway's form; the zero flexTime encodes as
// null. The time keeps the offset it was written with. The fields
// themselves are time.Time, read and written through flexTime by
// Checkout's JSON methods.
type flexTime time.Time

// MarshalJSON writes the time as checkoutTimeLayout, or null when zero.
func (t flexTime) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(time.Time(t).Format(checkoutTimeLayout))
}

// IsZero reports whether the time is zero, for omitzero.
func (t flexTime) IsZero() bool { return time.Time(t).IsZero() }

// UnmarshalJSON accepts checkoutTimeLayout (with any number of fractional
// digits, or none), RFC 3339, and null or "" (which leave t unchanged).
func (t *flexTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("openpay: a timestamp must be a string")
	}
	if s == "" {
		return nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700"} {
		if v, err := time.Parse(layout, s); err == nil {
			*t = flexTime(v)
			return nil
		}
	}
	return fmt.Errorf("openpay: %.40q is not a timestamp", s)
}

// The wire types whose members the gateway writes loosely decode those
// members through flexInt and flexString, so that their fields stay plain
// Go types. Each method decodes into the type's own fields (a local type
// without methods, so no recursion) and lets the loose members, declared
// with the same keys one level up, take precedence.

// UnmarshalJSON reads payments as a number or a string holding one.
func (p *PaymentPlan) UnmarshalJSON(b []byte) error {
	type plain PaymentPlan
	aux := struct {
		*plain
		Payments flexInt `json:"payments"`
	}{plain: (*plain)(p), Payments: flexInt(p.Payments)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	p.Payments = int(aux.Payments)
	return nil
}

// UnmarshalJSON reads id as a number or a string holding one, and
// id_store as a string or a number.
func (s *Store) UnmarshalJSON(b []byte) error {
	type plain Store
	aux := struct {
		*plain
		ID      flexInt    `json:"id"`
		IDStore flexString `json:"id_store"`
	}{plain: (*plain)(s), ID: flexInt(s.ID), IDStore: flexString(s.IDStore)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	s.ID, s.IDStore = int(aux.ID), string(aux.IDStore)
	return nil
}

// UnmarshalJSON reads score as a string or a number (kept as written).
func (r *RiskData) UnmarshalJSON(b []byte) error {
	type plain RiskData
	aux := struct {
		*plain
		Score flexString `json:"score"`
	}{plain: (*plain)(r), Score: flexString(r.Score)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	r.Score = string(aux.Score)
	return nil
}

// UnmarshalJSON reads http_code as a number or a string holding one.
func (e *errorResponse) UnmarshalJSON(b []byte) error {
	type plain errorResponse
	aux := struct {
		*plain
		HTTPCode flexInt `json:"http_code"`
	}{plain: (*plain)(e), HTTPCode: flexInt(e.HTTPCode)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	e.HTTPCode = int(aux.HTTPCode)
	return nil
}

// UnmarshalText reads a transaction's method; bank, the interface's name
// for a bank transfer, reads as [TransactionMethodBankAccount], the name
// the gateway's answers use, so that one constant stands for the idea.
func (m *TransactionMethod) UnmarshalText(b []byte) error {
	if string(b) == "bank" {
		*m = TransactionMethodBankAccount
		return nil
	}
	*m = TransactionMethod(b)
	return nil
}

// UnmarshalText reads a card type in either case: cards write debit, the
// BIN lookups DEBIT; both read as [CardTypeDebit]. A value the SDK does not
// know is kept as written.
func (t *CardType) UnmarshalText(b []byte) error {
	*t = CardType(b)
	if lower := CardType(strings.ToLower(string(b))); lower.Valid() {
		*t = lower
	}
	return nil
}
