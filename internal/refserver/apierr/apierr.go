// Package apierr is the reference server's error object: what a failed
// request is answered with, as a gateway error code and a description.
//
// Contract:
//   - An [*Error] carries an [openpay.Code], a description, and optionally
//     the anti-fraud rules the request broke. Its HTTP status and category
//     come from the code ([openpay.Code.HTTPStatus], [openpay.Code.Category])
//     unless [Error.Status] overrides the status; a code that has neither is
//     answered as 500, category internal.
//   - A description never holds a key, a card number or a security code.
//     Every value a client sent that a description repeats goes through
//     [Truncate], which bounds it and hides anything that looks like a card
//     number.
//   - Errors are plain values: built once, never changed after they are
//     returned, and safe to share between goroutines. The package holds no
//     state and takes no locks.
//
// Writing the object on the wire (the gateway's error body) is the server's
// job; this package only builds it.
package apierr

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/openpay-go/openpay"
)

// Error is an error the server answers with: a gateway error code and a
// description. The HTTP status and the category come from the code
// ([openpay.Code.HTTPStatus], [openpay.Code.Category]) unless Status says
// otherwise, which only two answers do: a known path called with the wrong
// method (405) and an operation the server does not implement yet (501 with
// code 1004).
type Error struct {
	// Code is the gateway error code (error_code).
	Code openpay.Code
	// Description is the text of the answer. It never holds a key, a card
	// number or a security code.
	Description string
	// Status overrides the HTTP status of Code when not zero.
	Status int
	// FraudRules lists anti-fraud rules the request broke, if any.
	FraudRules []string
}

// Error formats the code and the description.
func (e *Error) Error() string {
	return fmt.Sprintf("refserver: error %d: %s", int(e.Code), e.Description)
}

// HTTPStatus is the HTTP status the error is answered with.
func (e *Error) HTTPStatus() int {
	if e.Status != 0 {
		return e.Status
	}
	if st := e.Code.HTTPStatus(); st != 0 {
		return st
	}
	return http.StatusInternalServerError
}

// Errorf builds an *Error with a formatted description. Values a client
// sent go through [Truncate] first.
func Errorf(code openpay.Code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...)}
}

// NoSuchResource is the gateway's description of 1005 (facts.md, and the
// vendor's Ruby plans specs of Mexico and Colombia read it exactly).
const NoSuchResource = "The requested resource doesn't exist"

// NotFound is the 1005 answer for a resource of the given kind ("customer",
// "card") that does not exist. A plan is described in the gateway's generic
// words, [NoSuchResource]: the vendor's Ruby plans specs (Mexico and
// Colombia) read exactly that for a plan that does not exist, while its
// exceptions_spec.rb reads "The customer with id '1111' does not exist" for
// a customer, the form every other kind keeps for want of evidence.
func NotFound(kind, id string) *Error {
	if kind == "plan" {
		return &Error{Code: openpay.ErrNotFound, Description: NoSuchResource}
	}
	return Errorf(openpay.ErrNotFound, "The %s with id '%s' does not exist", kind, Truncate(id))
}

// MethodNotAllowed is the 405 answer to a known path called with a method
// it does not take (allowed lists those it takes): code, the server's
// MethodNotAllowedCode (1001), as the gateway documents no such answer.
func MethodNotAllowed(code openpay.Code, method string, allowed []string) *Error {
	return &Error{Code: code, Status: http.StatusMethodNotAllowed, Description: fmt.Sprintf(
		"The method %s is not allowed on this resource; allowed: %s", Truncate(method), strings.Join(allowed, ", "))}
}

// maxEcho is the longest client value a description repeats in full.
const maxEcho = 45

// Truncate bounds a client-supplied value echoed in a message and hides
// anything that looks like a card number (twelve digits or more): the server
// never repeats card data, not even in errors about it.
func Truncate(s string) string {
	digits := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digits++
		}
	}
	if digits >= 12 {
		return "(hidden)"
	}
	if len(s) > maxEcho {
		return s[:maxEcho] + "..."
	}
	return s
}
