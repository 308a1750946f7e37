package openpay

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Date is a calendar day, with no time of day and no time zone: the
// gateway's yyyy-mm-dd dates (a subscription's charge, period-end and
// trial-end days, the day of an exchange rate). Keeping the day apart from
// any instant means a day read from the gateway prints and compares as the
// same day whatever the local zone.
//
// The zero Date means "no date": it is left out of requests (omitzero),
// encodes as JSON null and prints as "". Dates compare with ==.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// NewDate returns the day year-month-day, normalised as [time.Date] does:
// NewDate(2025, 1, 32) is 2025-02-01.
func NewDate(year int, month time.Month, day int) Date {
	return DateOf(time.Date(year, month, day, 0, 0, 0, 0, time.UTC))
}

// DateOf returns the day of t in t's own location. For the day a merchant
// is living, which the gateway's day filters mean, use [Country.Today].
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{Year: y, Month: m, Day: d}
}

// ParseDate reads a day written yyyy-mm-dd (years 1 to 9999).
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if d := DateOf(t); err == nil && d.IsValid() {
		return d, nil
	}
	return Date{}, fmt.Errorf("openpay: %.40q is not a yyyy-mm-dd date", s)
}

// dateTimeLayouts are the other forms in which the gateway writes days:
// a full timestamp, with or without a zone (echoes such as
// 2021-10-15T23:36:00.000-0500 appear). Only the day as written is kept.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
}

// parseWireDate reads a day as the gateway sends it: yyyy-mm-dd, or a
// timestamp whose day (in the offset it is written with) is taken.
func parseWireDate(s string) (Date, error) {
	if d, err := ParseDate(s); err == nil {
		return d, nil
	}
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return DateOf(t), nil
		}
	}
	return Date{}, fmt.Errorf("openpay: %.40q is not a yyyy-mm-dd date", s)
}

// String returns the day as yyyy-mm-dd, or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// IsZero reports whether d is the zero Date (no date).
func (d Date) IsZero() bool { return d == Date{} }

// IsValid reports whether d names a real day of the years 1 to 9999 (the
// years yyyy-mm-dd can write, without the year 0 that the calendar lacks).
// The zero Date is not valid.
func (d Date) IsValid() bool {
	return d.Year >= 1 && d.Year <= 9999 && NewDate(d.Year, d.Month, d.Day) == d
}

// In returns the instant at which d starts (midnight) in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// AddDays returns the day n days after d (before it when n is negative).
func (d Date) AddDays(n int) Date { return NewDate(d.Year, d.Month, d.Day+n) }

// Compare returns -1 if d is before e, 0 if they are the same day and +1 if
// d is after e.
func (d Date) Compare(e Date) int {
	if c := cmp.Compare(d.Year, e.Year); c != 0 {
		return c
	}
	if c := cmp.Compare(d.Month, e.Month); c != 0 {
		return c
	}
	return cmp.Compare(d.Day, e.Day)
}

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// ErrInvalidDate is returned (wrapped) when a Date to be sent names no
// real day (February 30, month 0): the request is not sent rather than
// carry a different day.
var ErrInvalidDate = errors.New("openpay: invalid date")

// MarshalText writes the day as yyyy-mm-dd (empty for the zero Date). It
// fails for a Date that names no real day, such as February 30, rather than
// send a different day than the one given.
func (d Date) MarshalText() ([]byte, error) {
	if d.IsZero() {
		return nil, nil
	}
	if !d.IsValid() {
		return nil, fmt.Errorf("%w: year %d, month %d, day %d", ErrInvalidDate, d.Year, int(d.Month), d.Day)
	}
	return []byte(d.String()), nil
}

// UnmarshalText reads yyyy-mm-dd, or a timestamp (whose day as written is
// kept); empty text leaves d unchanged.
func (d *Date) UnmarshalText(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	v, err := parseWireDate(string(bytes.TrimSpace(b)))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON writes the day as a "yyyy-mm-dd" string, or null for the zero
// Date. Like MarshalText it refuses a Date that names no real day.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	text, err := d.MarshalText()
	if err != nil {
		return nil, err
	}
	return json.Marshal(string(text))
}

// UnmarshalJSON reads a string holding yyyy-mm-dd or a timestamp (whose
// day as written is kept). null and "" leave d unchanged.
func (d *Date) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("openpay: a date must be a \"yyyy-mm-dd\" string, not %.20s", b)
	}
	return d.UnmarshalText([]byte(s))
}

// The time zones of the gateway's countries. None of them has daylight
// saving time (Mexico abolished it in October 2022), so fixed offsets are
// exact today and need no time zone database on the host.
var (
	mexicoCityTime = time.FixedZone("CST", -6*60*60)
	bogotaTime     = time.FixedZone("COT", -5*60*60)
	limaTime       = time.FixedZone("PET", -5*60*60)
)

// Location returns the country's time zone: Mexico City time (UTC-06:00),
// Bogotá or Lima time (UTC-05:00). The gateway counts a merchant's days in
// it: the day filters of lists, and the days and times it writes. An empty
// or unknown Country is Mexico, the country of a Client built without
// [WithCountry].
func (c Country) Location() *time.Location {
	switch c {
	case CountryColombia:
		return bogotaTime
	case CountryPeru:
		return limaTime
	}
	return mexicoCityTime
}

// Today returns the country's day at the instant now: the day a merchant of
// the country is living, whatever the zone of now or of the computer. It is
// the day to give the Creation filters of lists. A nightly job in a UTC
// container asks for Mexico's yesterday with
//
//	yesterday := openpay.CountryMexico.Today(time.Now()).AddDays(-1)
//
// where time.Now().AddDate(0, 0, -1) would name the wrong day between 18:00
// and midnight in Mexico City.
func (c Country) Today(now time.Time) Date { return DateOf(now.In(c.Location())) }
