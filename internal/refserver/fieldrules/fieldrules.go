// Package fieldrules holds the gateway's rules on request members that
// several resources share: a customer's data (a customer, the customer of
// a charge), an amount with its description and order_id, a bank account,
// a card's expiration. Each rule checks members already decoded (package
// reqbody) and answers the gateway's error object: 1001 for a member
// missing or malformed, 1003 for a value not allowed (section 8 of the
// specification), naming the member with its prefix ("customer.",
// "bank_account.") as the gateway does.
//
// Contract: every function is pure and checks only what its doc says, in
// that order, the first failure winning. The package does not own the
// rules of one resource alone (a card's number and CVV, a charge's method,
// a plan's trial), nor what a check leads to (storing, charging): the
// server does.
package fieldrules

import (
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/ascii"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Customer applies the field rules of a customer create or update.
func Customer(f reqbody.Fields, name, lastName, email, phone string, address *openpay.Address, caddr *openpay.ColombianAddress) *apierr.Error {
	var v reqbody.Checker
	v.RequiredUnlessGiven(name != "" && email != "", f, "name", "email") // decoded: present, not null
	v.NonEmpty("name", name)
	v.NonEmpty("email", email)
	for _, fld := range []struct{ n, s string }{{"name", name}, {"last_name", lastName}, {"email", email}, {"phone_number", phone}} {
		v.MaxLen(fld.n, fld.s, 100)
	}
	v.Email("email", email)
	v.Address("", f, address)
	v.CustomerAddress("", f, caddr)
	return v.Err
}

// ChargeCustomer validates the customer object of a merchant-level
// charge.
func ChargeCustomer(f reqbody.Fields, cu *openpay.ChargeCustomer) *apierr.Error {
	var v reqbody.Checker
	if f == nil {
		return apierr.Errorf(openpay.ErrBadRequest, "The field 'customer' must be an object")
	}
	for _, n := range []string{"name", "email"} {
		if !f.Has(n) {
			v.Failf(openpay.ErrBadRequest, "The field 'customer.%s' is required", n)
		}
	}
	v.NonEmpty("customer.name", cu.Name)
	for _, fld := range []struct{ n, s string }{{"name", cu.Name}, {"last_name", cu.LastName}, {"email", cu.Email}, {"phone_number", cu.PhoneNumber}} {
		v.MaxLen("customer."+fld.n, fld.s, 100)
	}
	v.Email("customer.email", cu.Email)
	v.Address("customer.", f, cu.Address)
	v.CustomerAddress("customer.", f, cu.CustomerAddress)
	return v.Err
}

// Money applies the rules every request that moves money
// shares: amount required, greater than zero, at most two decimals;
// description required, at most 250 characters; order_id, when sent, not
// blank and at most 100 characters.
func Money(v *reqbody.Checker, f reqbody.Fields, amount openpay.Amount, description, orderID string) {
	v.RequiredUnlessGiven(!amount.IsZero() && description != "", f, "amount", "description")
	if v.Err != nil {
		return
	}
	v.Amount("amount", amount)
	v.NonEmpty("description", description)
	v.MaxLen("description", description, 250)
	if orderID != "" || f.Has("order_id") { // one given is one present
		v.NonEmpty("order_id", orderID)
	}
	v.MaxLen("order_id", orderID, 100)
}

// BankAccount applies the bank account rules to a request's
// members (prefix names them in errors: "bank_account." inside a payout)
// and returns the bank's code and name.
func BankAccount(f reqbody.Fields, prefix string, req openpay.BankAccountRequest) (code, name string, e *apierr.Error) {
	var v reqbody.Checker
	for _, n := range []string{"holder_name", "clabe"} {
		if !f.Has(n) {
			return "", "", apierr.Errorf(openpay.ErrBadRequest, "The field '%s%s' is required", prefix, n)
		}
	}
	v.NonEmpty(prefix+"holder_name", req.HolderName)
	v.NonEmpty(prefix+"clabe", req.CLABE)
	v.MaxLen(prefix+"holder_name", req.HolderName, 80)
	v.MaxLen(prefix+"alias", req.Alias, 45)
	v.MaxLen(prefix+"clabe", req.CLABE, 45)
	if v.Err != nil {
		return "", "", v.Err
	}
	if len(req.CLABE) != 18 || !ascii.Digits(req.CLABE) {
		// A format: 1001 (api-spec.md section 7); a well-formed CLABE
		// whose check digit fails is a value not allowed, 1003.
		return "", "", apierr.Errorf(openpay.ErrBadRequest, "The field '%sclabe' must be an 18-digit CLABE", prefix)
	}
	if !clabe.Valid(req.CLABE) {
		return "", "", apierr.Errorf(openpay.ErrInvalidParameter, "The field '%sclabe' must be a CLABE with a valid check digit", prefix)
	}
	code, name, ok := clabe.BankOf(req.CLABE)
	if !ok {
		code, name = req.CLABE[:3], clabe.UnknownBankName
	}
	return code, name, nil
}

// Expiry checks an expiration month and year and returns them as
// two-digit strings. Month: 1 or 2 digits, 1 to 12. Year: 2 digits (4 are
// accepted and shortened).
func Expiry(prefix, month, year string) (string, string, *apierr.Error) {
	if !ascii.Digits(month) || len(month) > 2 {
		return "", "", apierr.Errorf(openpay.ErrBadRequest, "The field '%sexpiration_month' must be a two-digit month", prefix)
	}
	if !ascii.Digits(year) || (len(year) != 2 && len(year) != 4) {
		return "", "", apierr.Errorf(openpay.ErrBadRequest, "The field '%sexpiration_year' must be a two-digit year", prefix)
	}
	if len(month) == 1 {
		month = "0" + month
	}
	if month < "01" || month > "12" {
		return "", "", apierr.Errorf(openpay.ErrInvalidParameter, "The field '%sexpiration_month' must be from 01 to 12", prefix)
	}
	if len(year) == 4 {
		if !strings.HasPrefix(year, "20") {
			return "", "", apierr.Errorf(openpay.ErrInvalidParameter, "The field '%sexpiration_year' is out of range", prefix)
		}
		year = year[2:]
	}
	return month, year, nil
}
