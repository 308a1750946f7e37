package reqbody

import (
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
)

// Checker collects the first failed rule of a request; its zero value is
// ready to use. Rules name the field they check. The convention, from
// section 8 of the specification:
//
//   - 1001 (HTTP 400): a required field is missing, or a field has the
//     wrong type or format (Required, NonEmpty, Email, the shape of an
//     Address's country code);
//   - 1003 (HTTP 422): a well-formed value that is not allowed, out of
//     range (MaxLen, Amount, IVA, ...).
//
// Use it as
//
//	var v Checker
//	v.Required(f, "amount", "description")
//	v.Amount("amount", req.Amount)
//	v.MaxLen("description", req.Description, 250)
//	if v.Err != nil { return nil, v.Err }
type Checker struct {
	// Err is the first rule that failed, nil while none has.
	Err *apierr.Error
}

// Failf records a formatted error unless an earlier rule already failed.
func (v *Checker) Failf(code openpay.Code, format string, args ...any) {
	if v.Err == nil {
		v.Err = apierr.Errorf(code, format, args...)
	}
}

// Required checks that every named member is present and not null (1001).
func (v *Checker) Required(f Fields, names ...string) {
	for _, n := range names {
		if !f.Has(n) {
			v.Failf(openpay.ErrBadRequest, "The field '%s' is required", n)
			return
		}
	}
}

// RequiredUnlessGiven is Required for members the caller has decoded:
// given says every one of them decoded to a value other than its zero
// value, which only a member present and not null gives, and then no
// member is looked up.
func (v *Checker) RequiredUnlessGiven(given bool, f Fields, names ...string) {
	if !given {
		v.Required(f, names...)
	}
}

// NonEmpty checks that a required string is not blank (1001).
func (v *Checker) NonEmpty(name, value string) {
	if strings.TrimSpace(value) == "" {
		v.Failf(openpay.ErrBadRequest, "The field '%s' is required and cannot be empty", name)
	}
}

// MaxLen checks that a string has at most n characters (1003).
func (v *Checker) MaxLen(name, value string, n int) {
	// A string of at most n bytes has at most n characters: only a longer
	// one is counted.
	if len(value) > n && utf8.RuneCountInString(value) > n {
		v.Failf(openpay.ErrInvalidParameter, "The field '%s' must be at most %d characters long", name, n)
	}
}

// Amount checks a request amount: greater than zero, at most two decimals
// (1003).
func (v *Checker) Amount(name string, a openpay.Amount) {
	switch {
	case !a.IsPositive():
		v.Failf(openpay.ErrInvalidParameter, "The field '%s' must be greater than zero", name)
	case !a.HasValidPrecision():
		v.Failf(openpay.ErrInvalidParameter, "The field '%s' must have at most two decimal places", name)
	}
}

// Email checks an e-mail address's form: 1001, described as the gateway
// describes it ("'foo' is not a valid email address": the vendor's Ruby
// customers specs of the three countries, and exceptions_spec.rb reads 400
// and 1001). The description names the value, not the field.
func (v *Checker) Email(name, value string) {
	if plainAddress(value) {
		return // what mail.ParseAddress reads as itself, known without it
	}
	if a, err := mail.ParseAddress(value); err != nil || a.Address != value {
		v.Failf(openpay.ErrBadRequest, "'%s' is not a valid email address", apierr.Truncate(value))
	}
}

// plainAddress reports whether s is an address of the plain form
// local@domain, two dot-atoms of ASCII letters, digits and '-' (and '_'
// and '+' in the local part): mail.ParseAddress reads such an address as
// itself (FuzzPlainAddress), so it passes without being parsed.
func plainAddress(s string) bool {
	at := strings.IndexByte(s, '@')
	return at >= 0 && dotAtom(s[:at], true) && dotAtom(s[at+1:], false)
}

// dotAtom reports whether s is a dot-atom of plainAddress's characters.
func dotAtom(s string, local bool) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-':
		case c == '.':
			if s[i-1] == '.' {
				return false
			}
		case local && (c == '_' || c == '+'):
		default:
			return false
		}
	}
	return true
}

// AbsoluteURL checks an http or https URL (1003).
func (v *Checker) AbsoluteURL(name, value string) {
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.Failf(openpay.ErrInvalidParameter, "The field '%s' must be an absolute http or https URL", name)
	}
}

// Address checks the member address of the object whose members are f:
// its required members and the country code's shape (1001), and the
// lengths (1003). prefix names
// that object in errors ("card.", "customer.", "" for the body itself): f
// holds the members of the object that carries the address, so the address
// is always f's member "address", wherever the object sits in the body.
func (v *Checker) Address(prefix string, f Fields, a *openpay.Address) {
	if a == nil {
		return
	}
	name := prefix + "address"
	sub := f.Object("address")
	for _, m := range []string{"line1", "postal_code", "state", "city", "country_code"} {
		if !sub.Has(m) {
			v.Failf(openpay.ErrBadRequest, "The field '%s.%s' is required", name, m)
			return
		}
	}
	if len(a.CountryCode) != 2 {
		v.Failf(openpay.ErrBadRequest, "The field '%s.country_code' must be a two-letter country code", name)
	}
	for _, fld := range []struct{ n, s string }{{"line1", a.Line1}, {"line2", a.Line2}, {"line3", a.Line3},
		{"city", a.City}, {"state", a.State}, {"postal_code", a.PostalCode}} {
		v.MaxLen(name+"."+fld.n, fld.s, 255)
	}
	// The gateway refuses a line2 over 50 characters (facts-vendor.md,
	// section 1, errors seen).
	v.MaxLen(name+".line2", a.Line2, 50)
}

// Identifier checks an id sent in a body: at most 45 characters (1003).
func (v *Checker) Identifier(name, value string) {
	v.NonEmpty(name, value)
	v.MaxLen(name, value, 45)
}

// ivaRE is the form of iva: a decimal of zero or more with at most two
// decimals (a string, or a number kept as written: iva-number, lenient.go).
var ivaRE = regexp.MustCompile(`^[0-9]{1,13}(\.[0-9]{1,2})?$`)

// IVA reads and checks the iva member of f, a charge's or a checkout's,
// as it was written (a string, or a number: iva-number): a decimal of zero
// or more with at most two decimals (1003), anything but a string or a
// number 1001. It returns the text, "" when the member is absent or
// refused. Decoding into the wire types leaves the member to it
// (readByHandler, lenient.go): the wire field is an Amount, which would
// read forms the gateway refuses ("1e3"). Whether a merchant's country
// takes an iva is the caller's rule.
func (v *Checker) IVA(f Fields) string {
	if !f.Has("iva") {
		return ""
	}
	var text string
	if e := f.Member("iva", &text); e != nil {
		if v.Err == nil {
			v.Err = e
		}
		return ""
	}
	if !ivaRE.MatchString(text) {
		v.Failf(openpay.ErrInvalidParameter, "The field 'iva' must be a decimal of zero or more with at most two decimals")
		return ""
	}
	return text
}

// CustomerAddress checks the member customer_address (a Colombian
// department, city and free text) of the object whose members are f, as
// Address does an address: all three members present (1001), within their
// lengths (1003). Whether a merchant's country takes one is the caller's
// rule.
func (v *Checker) CustomerAddress(prefix string, f Fields, a *openpay.ColombianAddress) {
	if a == nil {
		return
	}
	name := prefix + "customer_address"
	sub := f.Object("customer_address")
	for _, m := range []string{"department", "city", "additional"} {
		if !sub.Has(m) {
			v.Failf(openpay.ErrBadRequest, "The field '%s.%s' is required", name, m)
			return
		}
	}
	v.NonEmpty(name+".city", a.City)
	v.MaxLen(name+".department", a.Department, 100)
	v.MaxLen(name+".city", a.City, 100)
	v.MaxLen(name+".additional", a.Additional, 255)
}
