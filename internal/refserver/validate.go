package refserver

import (
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/openpay-go/openpay"
)

// checker collects the first failed rule of a request. Rules name the field
// they check. The convention, from section 8 of the specification:
//
//   - 1001 (HTTP 400): a required field is missing, or a field has the
//     wrong type or format (required, format);
//   - 1003 (HTTP 422): a value is out of range (maxLen, amount, currency,
//     oneOf, ...).
//
// Use it as
//
//	var v checker
//	v.required(f, "amount", "description")
//	v.amount("amount", req.Amount)
//	v.maxLen("description", req.Description, 250)
//	if v.err != nil { return nil, v.err }
type checker struct {
	err *Error
}

// failf records a formatted error unless an earlier rule already failed.
func (v *checker) failf(code openpay.Code, format string, args ...any) {
	if v.err == nil {
		v.err = errorf(code, format, args...)
	}
}

// required checks that every named member is present and not null (1001).
func (v *checker) required(f fields, names ...string) {
	for _, n := range names {
		if !f.has(n) {
			v.failf(openpay.ErrBadRequest, "The field '%s' is required", n)
			return
		}
	}
}

// nonEmpty checks that a required string is not blank (1001).
func (v *checker) nonEmpty(name, value string) {
	if strings.TrimSpace(value) == "" {
		v.failf(openpay.ErrBadRequest, "The field '%s' is required and cannot be empty", name)
	}
}

// maxLen checks that a string has at most n characters (1003).
func (v *checker) maxLen(name, value string, n int) {
	if utf8.RuneCountInString(value) > n {
		v.failf(openpay.ErrInvalidParameter, "The field '%s' must be at most %d characters long", name, n)
	}
}

// amount checks a request amount: greater than zero, at most two decimals
// (1003).
func (v *checker) amount(name string, a openpay.Amount) {
	switch {
	case !a.IsPositive():
		v.failf(openpay.ErrInvalidParameter, "The field '%s' must be greater than zero", name)
	case !a.HasValidPrecision():
		v.failf(openpay.ErrInvalidParameter, "The field '%s' must have at most two decimal places", name)
	}
}

// email checks an e-mail address's form (1003).
func (v *checker) email(name, value string) {
	if a, err := mail.ParseAddress(value); err != nil || a.Address != value {
		v.failf(openpay.ErrInvalidParameter, "The field '%s' must be an e-mail address", name)
	}
}

// absoluteURL checks an http or https URL (1003).
func (v *checker) absoluteURL(name, value string) {
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.failf(openpay.ErrInvalidParameter, "The field '%s' must be an absolute http or https URL", name)
	}
}

// address checks the member address of the object whose members are f:
// its required members (1001) and the country code (1003). prefix names
// that object in errors ("card.", "customer.", "" for the body itself): f
// holds the members of the object that carries the address, so the address
// is always f's member "address", wherever the object sits in the body.
func (v *checker) address(prefix string, f fields, a *openpay.Address) {
	if a == nil {
		return
	}
	name := prefix + "address"
	sub := f.object("address")
	for _, m := range []string{"line1", "postal_code", "state", "city", "country_code"} {
		if !sub.has(m) {
			v.failf(openpay.ErrBadRequest, "The field '%s.%s' is required", name, m)
			return
		}
	}
	if len(a.CountryCode) != 2 {
		v.failf(openpay.ErrInvalidParameter, "The field '%s.country_code' must be a two-letter country code", name)
	}
	for _, fld := range []struct{ n, s string }{{"line1", a.Line1}, {"line2", a.Line2}, {"line3", a.Line3},
		{"city", a.City}, {"state", a.State}, {"postal_code", a.PostalCode}} {
		v.maxLen(name+"."+fld.n, fld.s, 255)
	}
	// The gateway refuses a line2 over 50 characters (facts-vendor.md,
	// section 1, errors seen).
	v.maxLen(name+".line2", a.Line2, 50)
}

// identifier checks an id sent in a body: at most 45 characters (1003).
func (v *checker) identifier(name, value string) {
	v.nonEmpty(name, value)
	v.maxLen(name, value, 45)
}
