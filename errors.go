package openpay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/openpay-go/openpay/internal/transport"
)

// Error is an error answered by the gateway: any response with a status
// outside 2xx. When the body is the gateway's error object every field is
// kept; when it is not (a proxy's HTML page, an empty or truncated body),
// Code is zero and Description holds a short, redacted excerpt of the body.
//
// Use errors.Is with a [Code] or a [Category]:
//
//	if errors.Is(err, openpay.ErrCardDeclined) { ... }
//	if errors.Is(err, openpay.CategoryGateway) { ... }
//
// or errors.As to read the fields.
type Error struct {
	// Category is the gateway's class of error; empty when the body was not
	// the gateway's error object.
	Category Category
	// Code is the gateway's error_code; zero when the body was not the
	// gateway's error object.
	Code Code
	// Description is the gateway's text on one line, with anything shaped
	// like a card number, a security code or a secret removed, and cut to
	// 200 characters (and an ellipsis).
	Description string
	// HTTPStatus is the status of the response (0 for an error raised by
	// the SDK before sending anything).
	HTTPStatus int
	// RequestID identifies the request for the gateway's support: the
	// request_id of the error body, else the X-Request-Id header. An id
	// that is not shaped like one (a UUID, or 1 to 64 letters, digits and
	// . _ : -) or that holds anything shaped like a card number or a
	// secret is replaced by "(invalid request id)".
	RequestID string
	// FraudRules lists the anti-fraud rules the request broke, if any
	// (at most 20, each cut as Description is).
	FraudRules []string
	// RiskData is the gateway's anti-fraud assessment of the request, when
	// the body carries one (nil otherwise). Its score and rules are
	// redacted and cut like FraudRules.
	RiskData *RiskData
	// Method and Path name the call. The path never includes a query, and
	// a segment holding 12 digits or more (a card number given as an id)
	// shows as "(hidden)".
	Method, Path string
	// Transaction is the failed transaction when the error stands for a
	// decline whose answer was lost and that the SDK found by the
	// request's order_id (ResponseInfo.Reconciled); HTTPStatus is then the
	// status the gateway answers the code with, and RequestID is empty.
	// Nil for every other error: a decline answered as usual carries no
	// transaction.
	Transaction *Transaction

	// cause is why a 2xx answer was not usable (the decoding failure),
	// its text redacted.
	cause error
	// hint is the SDK's own advice, said after the gateway's text (a 1002
	// from a sandbox host: production keys need WithProduction).
	hint string
}

// Unwrap returns why a 2xx answer was not usable (for example a
// *json.UnmarshalTypeError), or nil.
func (e *Error) Unwrap() error { return e.cause }

// Error summarises the error. It never contains a key, a card number, a
// security code or a query string, and its length is bounded whatever the
// server answered.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("openpay: ")
	if e.Method != "" {
		b.WriteString(shown(e.Method) + " " + shown(e.Path) + ": ")
	}
	if e.Code != 0 {
		b.WriteString(e.Code.meaning())
		b.WriteString(" (" + strconv.Itoa(int(e.Code)))
		if e.Category != "" {
			b.WriteString(", " + shown(string(e.Category)))
		}
	} else {
		b.WriteString("unexpected response (")
	}
	if e.HTTPStatus != 0 {
		b.WriteString(", HTTP " + strconv.Itoa(e.HTTPStatus))
	} else {
		b.WriteString(", not sent")
	}
	b.WriteString(")")
	if e.Description != "" {
		b.WriteString(": " + shown(e.Description))
	}
	if e.RequestID != "" {
		b.WriteString(" [request " + cleanRequestID(e.RequestID) + "]")
	}
	if e.hint != "" {
		b.WriteString(" (" + e.hint + ")")
	}
	return strings.Replace(b.String(), "(, ", "(", 1)
}

// Is reports whether target is e's [Code] or e's [Category], or
// [ErrOutcomeUnknown] when e answers a call that changes state and the
// gateway may have acted all the same: any server error (a 503 too: a
// front may answer it after the gateway acted), or a 2xx answer whose body
// was not the expected object.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case Code:
		return e.Code == t
	case Category:
		return e.Category == t
	}
	return target == ErrOutcomeUnknown && e.outcomeUnknown()
}

func (e *Error) outcomeUnknown() bool {
	return transport.ChangesState(e.Method) && e.HTTPStatus != 0 && transport.StatusMayHaveActed(e.HTTPStatus)
}

// Category is the class of an error reported by the gateway. Each category
// is an error value, so errors.Is(err, openpay.CategoryGateway) asks whether
// err came from the gateway in that category.
type Category string

// The error categories of the gateway.
const (
	// CategoryRequest: the request was at fault (invalid data, no funds,
	// transfer to a missing account).
	CategoryRequest Category = "request"
	// CategoryInternal: the gateway failed on its side (rare).
	CategoryInternal Category = "internal"
	// CategoryGateway: moving funds between the card or bank and the
	// merchant account failed.
	CategoryGateway Category = "gateway"
)

// Error returns the category's name ("gateway"), so that printing a
// Category shows just that; it makes Category usable with errors.Is.
func (c Category) Error() string { return string(c) }

// Code is a gateway error code (error_code in error bodies). Every
// documented code is a constant of this type named after its meaning
// (ErrCardDeclined is 3001), listed below, and each is an error value:
// errors.Is(err, openpay.ErrCardDeclined) asks whether err is an [*Error]
// with that code. The SDK's own error values (ErrClientIPRequired,
// ErrOutcomeUnknown, ErrZeroClient, ...) are under Variables.
//
// Three vocabularies describe a failure. The code says what happened; the
// [Category] is the gateway's own grouping, sent with the code; the
// [ErrorClass] ([ClassOf]) is the SDK's advice on what to do next. They do
// not line up: the card-data codes 2004 to 2009 come in category request
// but are class declined (the payer must give other card data), because
// the class follows the payer, not the gateway's grouping. Each documented
// code with the HTTP status it comes with, its category and its class (for
// a request whose outcome is clear; a call that may have acted is
// [ClassUnknown] whatever its code):
//
//	code  HTTP category  class      meaning
//	1000  500  internal  temporary  internal server error
//	1001  400  request   fault      malformed request
//	1002  401  request   fault      authentication failed
//	1003  422  request   fault      invalid parameter
//	1004  503  internal  temporary  service unavailable
//	1005  404  request   fault      resource not found
//	1006  409  request   fault      duplicate order_id
//	1007  402  gateway   declined   funds transfer rejected
//	1008  423  request   fault      account deactivated
//	1009  413  request   fault      request too large
//	1010  403  request   fault      operation not allowed with this key
//	2001  409  request   fault      bank account already registered
//	2002  409  request   fault      card already registered
//	2003  409  request   fault      external_id already in use
//	2004  422  request   declined   invalid card number
//	2005  400  request   declined   card expiration date in the past
//	2006  400  request   declined   security code missing
//	2007  412  request   declined   test card used in production
//	2008  412  request   declined   card not valid for points
//	2009  412  request   declined   security code invalid
//	3001  402  gateway   declined   card declined
//	3002  402  gateway   declined   card expired
//	3003  402  gateway   declined   insufficient funds on card
//	3004  402  gateway   declined   card reported stolen
//	3005  402  gateway   declined   card identified as fraudulent
//	3006  412  gateway   declined   operation not allowed
//	3008  412  gateway   declined   card not supported online
//	3009  402  gateway   declined   card reported lost
//	3010  402  gateway   declined   card restricted
//	3011  402  gateway   declined   card retained by the bank
//	3012  412  gateway   declined   bank authorization required
//	4001  412  request   fault      merchant account has insufficient funds
type Code int

// The documented error codes, each with the HTTP status the gateway answers
// it with.
const (
	ErrInternalServer            Code = 1000 // HTTP 500: internal server error
	ErrBadRequest                Code = 1001 // HTTP 400: invalid JSON, wrong format or missing fields
	ErrUnauthorized              Code = 1002 // HTTP 401: not authenticated, or wrong key
	ErrInvalidParameter          Code = 1003 // HTTP 422: a parameter value is incorrect
	ErrServiceUnavailable        Code = 1004 // HTTP 503: a required service is unavailable
	ErrNotFound                  Code = 1005 // HTTP 404: the resource does not exist
	ErrDuplicateOrderID          Code = 1006 // HTTP 409: a transaction with this order_id exists
	ErrFundsTransferRejected     Code = 1007 // HTTP 402: funds transfer with the card or bank rejected
	ErrAccountDeactivated        Code = 1008 // HTTP 423: a required account is deactivated
	ErrRequestTooLarge           Code = 1009 // HTTP 413: request body too large
	ErrPublicKeyNotAllowed       Code = 1010 // HTTP 403: public key where the private key is required
	ErrBankAccountExists         Code = 2001 // HTTP 409: CLABE already registered on the customer
	ErrCardExists                Code = 2002 // HTTP 409: card already registered on the customer
	ErrExternalIDExists          Code = 2003 // HTTP 409: a customer with this external_id exists
	ErrCardNumberInvalid         Code = 2004 // HTTP 422: card number fails the Luhn check
	ErrCardExpirationPast        Code = 2005 // HTTP 400: expiration date in the past
	ErrCVVMissing                Code = 2006 // HTTP 400: security code not provided
	ErrTestCardInProduction      Code = 2007 // HTTP 412: sandbox test card used in production
	ErrCardNotValidForPoints     Code = 2008 // HTTP 412: card has no points programme
	ErrCVVInvalid                Code = 2009 // HTTP 412: security code not valid
	ErrCardDeclined              Code = 3001 // HTTP 402: card declined
	ErrCardExpired               Code = 3002 // HTTP 402: card expired
	ErrCardInsufficientFunds     Code = 3003 // HTTP 402: insufficient funds on the card
	ErrCardStolen                Code = 3004 // HTTP 402: card reported stolen
	ErrCardFraud                 Code = 3005 // HTTP 402: card identified as fraudulent
	ErrOperationNotAllowed       Code = 3006 // HTTP 412: operation not allowed for this customer or transaction
	ErrCardNotSupportedOnline    Code = 3008 // HTTP 412: card not supported in online transactions
	ErrCardLost                  Code = 3009 // HTTP 402: card reported lost
	ErrCardRestricted            Code = 3010 // HTTP 402: card restricted by the bank
	ErrCardRetained              Code = 3011 // HTTP 402: the bank asked to hold the card
	ErrBankAuthorizationRequired Code = 3012 // HTTP 412: bank authorization required
	ErrMerchantInsufficientFunds Code = 4001 // HTTP 412: the balance drawn on is short: the merchant's, or a customer's (a payout, transfer, fee or refund at a customer's account)
)

type codeInfo struct {
	status   int
	category Category
	meaning  string
}

// codes describes every documented code: HTTP status, the category the
// gateway reports it under, and its meaning.
var codes = map[Code]codeInfo{
	ErrInternalServer:            {500, CategoryInternal, "internal server error"},
	ErrBadRequest:                {400, CategoryRequest, "malformed request"},
	ErrUnauthorized:              {401, CategoryRequest, "authentication failed"},
	ErrInvalidParameter:          {422, CategoryRequest, "invalid parameter"},
	ErrServiceUnavailable:        {503, CategoryInternal, "service unavailable"},
	ErrNotFound:                  {404, CategoryRequest, "resource not found"},
	ErrDuplicateOrderID:          {409, CategoryRequest, "duplicate order_id"},
	ErrFundsTransferRejected:     {402, CategoryGateway, "funds transfer rejected"},
	ErrAccountDeactivated:        {423, CategoryRequest, "account deactivated"},
	ErrRequestTooLarge:           {413, CategoryRequest, "request too large"},
	ErrPublicKeyNotAllowed:       {403, CategoryRequest, "operation not allowed with this key"},
	ErrBankAccountExists:         {409, CategoryRequest, "bank account already registered"},
	ErrCardExists:                {409, CategoryRequest, "card already registered"},
	ErrExternalIDExists:          {409, CategoryRequest, "external_id already in use"},
	ErrCardNumberInvalid:         {422, CategoryRequest, "invalid card number"},
	ErrCardExpirationPast:        {400, CategoryRequest, "card expiration date in the past"},
	ErrCVVMissing:                {400, CategoryRequest, "security code missing"},
	ErrTestCardInProduction:      {412, CategoryRequest, "test card used in production"},
	ErrCardNotValidForPoints:     {412, CategoryRequest, "card not valid for points"},
	ErrCVVInvalid:                {412, CategoryRequest, "security code invalid"},
	ErrCardDeclined:              {402, CategoryGateway, "card declined"},
	ErrCardExpired:               {402, CategoryGateway, "card expired"},
	ErrCardInsufficientFunds:     {402, CategoryGateway, "insufficient funds on card"},
	ErrCardStolen:                {402, CategoryGateway, "card reported stolen"},
	ErrCardFraud:                 {402, CategoryGateway, "card identified as fraudulent"},
	ErrOperationNotAllowed:       {412, CategoryGateway, "operation not allowed"},
	ErrCardNotSupportedOnline:    {412, CategoryGateway, "card not supported online"},
	ErrCardLost:                  {402, CategoryGateway, "card reported lost"},
	ErrCardRestricted:            {402, CategoryGateway, "card restricted"},
	ErrCardRetained:              {402, CategoryGateway, "card retained by the bank"},
	ErrBankAuthorizationRequired: {412, CategoryGateway, "bank authorization required"},
	ErrMerchantInsufficientFunds: {412, CategoryRequest, "merchant account has insufficient funds"},
}

// Error describes the code; it makes Code usable with errors.Is. The zero
// Code, no code at all (a transaction that did not fail), is the empty
// text, so that printing a transaction shows nothing for it.
func (c Code) Error() string {
	if c == 0 {
		return ""
	}
	return "openpay: " + c.meaning() + " (" + strconv.Itoa(int(c)) + ")"
}

// String returns the code's number and meaning, "3001 card declined", or
// "3999 undocumented" for a code the SDK does not know; the zero Code (no
// error) is "0".
func (c Code) String() string {
	switch info, ok := codes[c]; {
	case c == 0:
		return "0"
	case ok:
		return strconv.Itoa(int(c)) + " " + info.meaning
	}
	return strconv.Itoa(int(c)) + " undocumented"
}

// UnmarshalJSON reads an error_code sent as a number or as a string
// holding one, like the gateway's other loosely typed numbers.
func (c *Code) UnmarshalJSON(b []byte) error {
	var n flexInt
	if err := n.UnmarshalJSON(b); err != nil {
		return err
	}
	*c = Code(n)
	return nil
}

// HTTPStatus returns the HTTP status the gateway answers with this code,
// or 0 for an undocumented code.
func (c Code) HTTPStatus() int { return codes[c].status }

// Category returns the category the gateway reports this code under, or ""
// for an undocumented code.
func (c Code) Category() Category { return codes[c].category }

// Documented reports whether c is one of the documented codes.
func (c Code) Documented() bool {
	_, ok := codes[c]
	return ok
}

func (c Code) meaning() string {
	if info, ok := codes[c]; ok {
		return info.meaning
	}
	return "error " + strconv.Itoa(int(c))
}

// ErrClientIPRequired is returned, before anything is sent, by charge
// creation when no payer IP address is known: the charge request's
// ClientIP is empty and the client has no [WithDefaultClientIP]. The
// gateway requires the payer device's address in X-Forwarded-For for its
// anti-fraud checks.
var ErrClientIPRequired = errors.New("openpay: charge creation needs the payer's IP address: " +
	"set the charge's ClientIP, or openpay.WithDefaultClientIP(ip) on the client")

// ErrInvalidID is returned, before anything is sent, for an id the SDK
// will not put in a path: empty, longer than 45 characters, "." or "..",
// or with '/', '?', '#', '%', '\\' or a control character ("a/b",
// "tr1?limit=100"), so that an id can never change which resource a request
// addresses. The id is not echoed: a mistaken argument could be a card
// number or a key.
var ErrInvalidID = errors.New("openpay: invalid id: ids are 1 to 45 characters without '/', '?', '#', '%' or control characters")

// ErrInvalidArgument matches (with errors.Is) the other arguments a call
// refuses before anything is sent: a nil context, a list offset below 0 or
// a limit outside 1..100, a report's year, month or type the gateway does
// not take, an empty order_id to look up. The message says which.
var ErrInvalidArgument = errors.New("openpay: invalid argument")

// ErrOutcomeUnknown matches (with errors.Is) a failed call that changes
// state when the gateway may have acted all the same: no answer arrived
// after the request may have reached it, or the context ended meanwhile
// ([*TransportError]), it answered with a server error (503 included), or
// with a success whose body was not the expected object ([*Error]). The
// charge, payout or update may or may not have happened. A transaction
// with an order_id is looked up by it, and a refund read back, before the
// SDK gives up (unless the context has ended), so for those the error is
// an [*OutcomeUnknownError]. [ClassOf] puts these errors in
// [ClassUnknown]: settle them before anything else, by re-sending the same
// request with the same order_id (see [OutcomeUnknownError]), never with
// a new one while the first may still be in flight.
var ErrOutcomeUnknown = errors.New("openpay: outcome unknown")

// TransportError is a call that got no usable response: the connection
// failed, the response was cut short, or the context ended. It unwraps to
// the underlying failure, so errors.Is(err, context.DeadlineExceeded) works.
type TransportError struct {
	// Method and Path name the call (the path never includes a query).
	Method, Path string
	// Attempts is how many times the request was tried: 0 when it was not
	// sent at all (the context had ended before the first attempt).
	Attempts int
	// MayHaveReached is false only when no attempt established a
	// connection, so the gateway certainly saw nothing.
	MayHaveReached bool
	// Err is the last failure.
	Err error
}

// Error describes the failure without the URL's query or any secret. The
// failure's text is redacted and cut: net/http quotes a malformed response
// line in it, so a server can choose what it says.
func (e *TransportError) Error() string {
	what := "request failed"
	if e.outcomeUnknown() {
		what = "outcome unknown, the request may have reached the gateway"
	}
	cause := "<nil>"
	if e.Err != nil {
		cause = shown(e.Err.Error())
	}
	if e.Attempts == 0 {
		return fmt.Sprintf("openpay: %s %s: not sent: %s", shown(e.Method), shown(e.Path), cause)
	}
	return fmt.Sprintf("openpay: %s %s: %s after %d attempt(s): %s", shown(e.Method), shown(e.Path), what, e.Attempts, cause)
}

// Unwrap returns the underlying failure.
func (e *TransportError) Unwrap() error { return e.Err }

// Is matches [ErrOutcomeUnknown] for a state-changing call that may have
// reached the gateway.
func (e *TransportError) Is(target error) bool {
	return target == ErrOutcomeUnknown && e.outcomeUnknown()
}

func (e *TransportError) outcomeUnknown() bool {
	return e.MayHaveReached && transport.ChangesState(e.Method)
}

// Bounds on what a server's answer can put in an error: excerptRunes on
// each text kept (a body excerpt, a description, a fraud rule), and the
// number of fraud rules kept.
const (
	excerptRunes  = 200
	maxFraudRules = 20
)

// shown prepares text for an error message: on one line, redacted, and at
// most an excerpt's length (a text already cut to an excerpt, with its
// ellipsis, comes through unchanged).
func shown(s string) string { return transport.Excerpt(s, excerptRunes+1) }

// invalidRequestID stands for a request id that cleanRequestID refuses.
const invalidRequestID = "(invalid request id)"

// cleanRequestID returns id if it is shaped like a request id, and
// invalidRequestID otherwise, so that a server echoing a request or its
// headers in the id cannot put a secret in an error. The gateway's ids are
// UUIDs; other short tokens (1 to 64 of A-Z a-z 0-9 . _ : -) are accepted
// when Redact finds nothing in them. A UUID is kept whole without
// redaction: its hex digit groups often run to 12 digits or more, which
// Redact would take for a card number, and it cannot hold an Openpay key
// (sk_...) or its Basic encoding (c2tf...).
func cleanRequestID(id string, secrets ...string) string {
	switch {
	case id == "" || isUUID(id):
		return id
	case len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r))
	}) || transport.Redact(id, secrets...) != id:
		return invalidRequestID
	}
	return id
}

// headerRequestID is the answer's X-Request-Id, cleaned.
func headerRequestID(resp *transport.Response, secrets []string) string {
	return cleanRequestID(resp.Header.Get("X-Request-Id"), secrets...)
}

// isUUID reports whether s is a UUID in its usual text form, 8-4-4-4-12
// hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// redactedError is a failure whose text may quote the server's answer
// (encoding/json quotes a number it could not decode, whole), shown
// redacted and cut; it unwraps to the failure itself.
type redactedError struct {
	err  error
	text string
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

func redactError(err error, secrets []string) error {
	return &redactedError{err: err, text: transport.Excerpt(err.Error(), excerptRunes, secrets...)}
}

// boundedTexts returns at most maxFraudRules of the server's texts, each
// redacted and cut to an excerpt (nil stays nil).
func boundedTexts(in []string, secrets []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, min(len(in), maxFraudRules))
	for i := range out {
		out[i] = transport.Excerpt(in[i], excerptRunes, secrets...)
	}
	return out
}

// decodeError turns a non-2xx response into an *Error. It never fails: a
// body that is not the gateway's error object still yields a typed error.
// Whatever the server sent, the texts kept are redacted and bounded.
func decodeError(method, path string, resp *transport.Response, secrets []string) *Error {
	e := &Error{Method: method, Path: path, HTTPStatus: resp.Status, RequestID: headerRequestID(resp, secrets)}
	var body errorResponse
	dec := json.NewDecoder(bytes.NewReader(resp.Body))
	if err := dec.Decode(&body); err == nil && (body.ErrorCode != 0 || body.Category != "") {
		e.Category = Category(transport.Excerpt(string(body.Category), excerptRunes, secrets...))
		e.Code = body.ErrorCode
		e.Description = transport.Excerpt(body.Description, excerptRunes, secrets...)
		if body.RequestID != "" {
			e.RequestID = cleanRequestID(body.RequestID, secrets...)
		}
		e.FraudRules = boundedTexts(body.FraudRules, secrets)
		if rd := body.RiskData; rd != nil {
			rd.Score = transport.Excerpt(rd.Score, excerptRunes, secrets...)
			rd.Rules = boundedTexts(rd.Rules, secrets)
			e.RiskData = rd
		}
		if e.Category == "" {
			e.Category = e.Code.Category()
		}
		return e
	}
	e.Description = describeBody(resp, secrets, "is not a gateway error object")
	return e
}

// unusableAnswer is the error of a 2xx answer whose body is not the object
// the call expects (why says how), with an excerpt of that body.
func unusableAnswer(method, path string, resp *transport.Response, why string, secrets []string) *Error {
	e := &Error{Method: method, Path: path, HTTPStatus: resp.Status, RequestID: headerRequestID(resp, secrets)}
	e.Description = "success status without a usable answer (" + why + ")"
	if len(bytes.TrimSpace(resp.Body)) > 0 {
		e.Description += ": " + describeBody(resp, secrets, "")
	}
	return e
}

// describeBody names a body that is not what was expected ("response body
// (text/html)" followed by what, if any) and gives a short, redacted excerpt
// of it.
func describeBody(resp *transport.Response, secrets []string, what string) string {
	if len(bytes.TrimSpace(resp.Body)) == 0 {
		return "empty response body"
	}
	kind := "response body"
	ctype := resp.Header.Get("Content-Type")
	if i := strings.IndexByte(ctype, ';'); i >= 0 {
		ctype = ctype[:i]
	}
	if ctype != "" {
		kind += " (" + ctype + ")"
	}
	if what != "" {
		kind += " " + what
	}
	return kind + ": " + transport.Excerpt(resp.Body, excerptRunes, secrets...)
}
