package openpay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// FlexInt is an integer that the gateway sends sometimes as a JSON number and
// sometimes as a string holding one (http_code in error bodies, the payments
// of a payment plan, store ids). It always encodes as a JSON number.
type FlexInt int64

// MarshalJSON writes the value as a JSON number.
func (n FlexInt) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(n), 10), nil
}

// UnmarshalJSON accepts 404, "404", and null or "" (which leave n
// unchanged).
func (n *FlexInt) UnmarshalJSON(b []byte) error {
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
	*n = FlexInt(v)
	return nil
}

// FlexString is a string that the gateway sometimes sends as a JSON number
// (for example a store's id_store, documented as a string but numeric in real
// responses). It always encodes as a JSON string.
type FlexString string

// MarshalJSON writes the value as a JSON string.
func (s FlexString) MarshalJSON() ([]byte, error) { return json.Marshal(string(s)) }

// UnmarshalJSON accepts a string, a number (kept exactly as written) or null
// (which leaves s unchanged).
func (s *FlexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil
	case len(b) > 0 && b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return fmt.Errorf("openpay: malformed string: %w", err)
		}
		*s = FlexString(v)
		return nil
	default:
		var num json.Number
		if err := json.Unmarshal(b, &num); err != nil {
			return fmt.Errorf("openpay: expected a string or a number")
		}
		*s = FlexString(num.String())
		return nil
	}
}
