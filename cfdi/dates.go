package cfdi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Date is a calendar date without a time of day or a zone, written
// YYYY-MM-DD on the wire (fecha_autorizacion of the donee complement): the
// SDK's [openpay.Date]. A time.Time would carry a clock and a zone the field
// does not have, and converting it between zones can move it to the
// neighbouring day. A date that names no real day is refused when encoded.
type Date = openpay.Date

// DateOf returns the date of t in t's own location.
func DateOf(t time.Time) Date { return openpay.DateOf(t) }

// ParseDate parses a date written YYYY-MM-DD.
func ParseDate(s string) (Date, error) { return openpay.ParseDate(s) }

// mexicoCity is the zone of central Mexico (UTC-06:00, no daylight saving
// time since October 2022), the SDK's. It is the reading of a time the
// gateway sends without an offset.
var mexicoCity = openpay.CountryMexico.Location()

// DateTime is an instant as the gateway writes it: ISO 8601 with a UTC offset
// (2014-05-26T13:51:25-05:00). It encodes as RFC 3339 (keeping the offset and
// any fraction of a second) and is lenient on input, so that a notification
// is never lost to a date written a little differently:
//
//   - RFC 3339, with or without a fraction of a second;
//   - an offset without a colon (-0500), or a space instead of the T;
//   - no offset at all: read as central Mexico time (UTC-6);
//   - a date alone (2014-05-26): midnight, central Mexico time;
//   - null or "": the zero DateTime (no date).
//
// The zero DateTime is "no date" and is left out of optional fields.
type DateTime struct {
	time.Time
}

// maxOffset bounds the UTC offsets DateTime accepts.
const maxOffset = 14 * 60 * 60

// dateTimeLayouts are the accepted layouts after a space separator has been
// turned into a T. Layouts without a zone are read in mexicoCity.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	time.DateOnly,
}

// ParseDateTime parses the forms [DateTime] accepts.
func ParseDateTime(s string) (DateTime, error) {
	v := strings.TrimSpace(s)
	if v == "" {
		return DateTime{}, nil
	}
	if len(v) > len(time.DateOnly) && v[len(time.DateOnly)] == ' ' {
		v = v[:len(time.DateOnly)] + "T" + v[len(time.DateOnly)+1:]
	}
	for _, layout := range dateTimeLayouts {
		t, err := time.ParseInLocation(layout, v, mexicoCity)
		if err != nil {
			continue
		}
		// Real offsets lie between -12:00 and +14:00; a larger one is a
		// typing error, and could not be written back as RFC 3339.
		if _, off := t.Zone(); off < -maxOffset || off > maxOffset {
			break
		}
		return DateTime{Time: t}, nil
	}
	return DateTime{}, fmt.Errorf("cfdi: %.40q is not an ISO 8601 date and time", s)
}

// String formats the instant as RFC 3339, or "" for the zero DateTime.
func (t DateTime) String() string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// MarshalJSON writes the instant as an RFC 3339 string; the zero DateTime is
// written as "" (optional fields leave it out with omitzero).
func (t DateTime) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.String())
}

// UnmarshalJSON reads a JSON string in any form [DateTime] accepts; null
// leaves t unchanged.
func (t *DateTime) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("cfdi: a date and time must be a JSON string")
	}
	v, err := ParseDateTime(s)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// MarshalText formats the instant as [DateTime.String] does. It is defined
// so that the embedded time.Time's stricter text form is not used instead.
func (t DateTime) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses the forms [DateTime] accepts.
func (t *DateTime) UnmarshalText(b []byte) error {
	v, err := ParseDateTime(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}
