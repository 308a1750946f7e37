package listquery

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
)

// The required parameters of reports (a year and a month, a kind) and the
// numeric ones of the store search.

// Int reads a required integer parameter within [lo, hi].
func Int(q url.Values, name string, lo, hi int) (int, *apierr.Error) {
	v, ok := Value(q, name)
	if !ok || v == "" {
		return 0, apierr.Errorf(openpay.ErrBadRequest, "The parameter '%s' is required", name)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, apierr.Errorf(openpay.ErrBadRequest, "The parameter '%s' must be an integer", name)
	}
	if n < lo || n > hi {
		return 0, apierr.Errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be from %d to %d", name, lo, hi)
	}
	return n, nil
}

// Kind reads a required parameter that names one of valid's values.
func Kind[T ~string](q url.Values, name string, valid func(T) bool) (T, *apierr.Error) {
	v, ok := Value(q, name)
	if !ok || v == "" {
		return "", apierr.Errorf(openpay.ErrBadRequest, "The parameter '%s' is required", name)
	}
	if !valid(T(v)) {
		return "", apierr.Errorf(openpay.ErrInvalidParameter, "The parameter '%s' has an unknown value", name)
	}
	return T(v), nil
}

// Month reads the required year (2000 to 9999) and month (1 to 12) and
// returns the month's bounds in zone, the merchant's: [from, to).
func Month(q url.Values, zone *time.Location) (from, to time.Time, e *apierr.Error) {
	year, e := Int(q, "year", 2000, 9999)
	if e != nil {
		return from, to, e
	}
	month, e := Int(q, "month", 1, 12)
	if e != nil {
		return from, to, e
	}
	from = time.Date(year, time.Month(month), 1, 0, 0, 0, 0, zone)
	return from, from.AddDate(0, 1, 0), nil
}

// Number parses a numeric query parameter and checks that it is
// finite and within [lo, hi] (1003 naming the parameter otherwise).
func Number(raw, name string, lo, hi float64) (float64, *apierr.Error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, apierr.Errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be a number", name)
	}
	if x < lo || x > hi {
		return 0, apierr.Errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be from %g to %g", name, lo, hi)
	}
	return x, nil
}
