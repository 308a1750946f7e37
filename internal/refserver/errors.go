package refserver

import (
	"fmt"
	"net/http"

	"github.com/openpay-go/openpay"
)

// Error is an error the server answers with: a gateway error code and a
// description. The HTTP status and the category come from the code
// ([openpay.Code.HTTPStatus], [openpay.Code.Category]) unless Status says
// otherwise, which only two answers do: a known path called with the wrong
// method (405, see [MethodNotAllowedCode]) and an operation the server does
// not implement yet (501 with code 1004).
//
// The simulation methods of [Server] return *Error too, so a caller can read
// the code with errors.As.
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

// errorf builds an *Error with a formatted description.
func errorf(code openpay.Code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...)}
}

// Descriptions shared by several answers. The first three are the texts the
// gateway is known to use.
const (
	descUnauthorized        = "The api key or merchant id are invalid"
	descNoSuchPath          = "The requested resource doesn't exist"
	descDuplicateOrder      = "The order_id has already been processed"
	descFinalStatus         = "The card charge is on a final status"
	descPublicKey           = "The public key can only create cards and tokens; use the private key"
	descPrivateKeyInBrowser = "The private key cannot be used from a browser; use the public key"
	descBodyTooLarge        = "The request body is too large"
	descInternal            = "Internal server error"
)

// MethodNotAllowedCode is the error code of the answer to a known path
// called with a method it does not take. The gateway documents no such
// answer; the server answers HTTP 405, with an Allow header, and code 1001
// (the request is malformed), category request, so that clients get the
// usual error object and a status that says what went wrong.
const MethodNotAllowedCode = openpay.ErrBadRequest

// errNotFound is the 1005 answer for a resource that does not exist.
func errNotFound(kind, id string) *Error {
	return errorf(openpay.ErrNotFound, "The %s with id '%s' does not exist", kind, truncateForMessage(id))
}

// truncateForMessage bounds a client-supplied value echoed in a message and
// hides anything that looks like a card number: the server never repeats
// card data, not even in errors about it.
func truncateForMessage(s string) string {
	const max = 45
	digits := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digits++
		}
	}
	if digits >= 12 {
		return "(hidden)"
	}
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// writeError writes e as the gateway's error object.
func writeError(w http.ResponseWriter, requestID string, e *Error) {
	status := e.HTTPStatus()
	cat := e.Code.Category()
	if cat == "" {
		cat = openpay.CategoryInternal
	}
	body := openpay.ErrorResponse{
		Category:    cat,
		Description: e.Description,
		ErrorCode:   e.Code,
		FraudRules:  e.FraudRules,
		HTTPCode:    openpay.FlexInt(status),
		RequestID:   requestID,
	}
	writeJSON(w, status, body)
}
