package refserver

import (
	"net/http"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/answer"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
)

// Error is an error the server answers with: a gateway error code and a
// description (package apierr holds it and says what it promises). A known
// path called with the wrong method is answered 405 (see
// [MethodNotAllowedCode]).
//
// The simulation methods of [Server] return *Error too, so a caller can read
// the code with errors.As.
type Error = apierr.Error

// errorf builds an *Error with a formatted description ([apierr.Errorf]).
func errorf(code openpay.Code, format string, args ...any) *Error {
	return apierr.Errorf(code, format, args...)
}

// Descriptions shared by several answers. The first three are the texts the
// gateway is known to use.
const (
	descUnauthorized        = "The api key or merchant id are invalid"
	descNoSuchPath          = apierr.NoSuchResource
	descDuplicateOrder      = "The order_id has already been processed"
	descFinalStatus         = "The card charge is on a final status"
	descPublicKey           = "The public key can only create cards and tokens; use the private key"
	descPrivateKeyInBrowser = "The private key cannot be used from a browser; use the public key"
	descInternal            = answer.InternalError
)

// MethodNotAllowedCode is the error code of the answer to a known path
// called with a method it does not take. The gateway documents no such
// answer; the server answers HTTP 405, with an Allow header, and code 1001
// (the request is malformed), category request, so that clients get the
// usual error object and a status that says what went wrong.
const MethodNotAllowedCode = openpay.ErrBadRequest

// errNotFound is the 1005 answer for a resource that does not exist.
func errNotFound(kind, id string) *Error { return apierr.NotFound(kind, id) }

// truncateForMessage bounds a client-supplied value echoed in a message and
// hides anything that looks like a card number ([apierr.Truncate]).
func truncateForMessage(s string) string { return apierr.Truncate(s) }

// writeError writes e as the gateway's error object.
func writeError(w http.ResponseWriter, requestID string, e *Error) {
	status := e.HTTPStatus()
	cat := e.Code.Category()
	if cat == "" {
		cat = openpay.CategoryInternal
	}
	body := answer.ErrorResponse{
		Category:    cat,
		Description: e.Description,
		Code:        e.Code,
		FraudRules:  e.FraudRules,
		HTTPCode:    status,
		RequestID:   requestID,
	}
	answer.Write(w, status, body)
}
