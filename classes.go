package openpay

import (
	"errors"
	"net/http"
	"strconv"
)

// ErrorClass sorts a failed call by what the program should do next. Get
// it with [ClassOf]:
//
//	switch openpay.ClassOf(err) {
//	case openpay.ClassUnknown: // the gateway may have acted: settle first (re-send the same request, same order_id)
//	case openpay.ClassDeclined: // tell the payer: another card or way to pay
//	case openpay.ClassTemporary: // nothing was done: try again later
//	case openpay.ClassFault: // fix the request, the data or the account; log it
//	}
type ErrorClass int

// The classes of [ClassOf].
const (
	// ClassNone is the class of a nil error.
	ClassNone ErrorClass = iota
	// ClassDeclined: the payer's card or bank refused, or the card data the
	// payer gave is wrong (error codes 3001 to 3012, 2004 to 2009, 1007,
	// and any other error the gateway reports in its "gateway" category).
	// Tell the payer; trying the same card again will not help.
	ClassDeclined
	// ClassTemporary: the gateway or the network failed and nothing was
	// done (HTTP 5xx and 429, codes 1000 and 1004, no answer, a timeout, an
	// answer that was not usable, on a read or a request that certainly
	// never reached the gateway). Try again later.
	ClassTemporary
	// ClassFault: anything else. The request, its data or the account must
	// change before the same call can succeed: a bug, a missing resource,
	// a duplicate, a wrong key, insufficient merchant funds, arguments the
	// SDK refused before sending.
	ClassFault
	// ClassUnknown: a call that changes state may have been carried out
	// all the same (the error matches [ErrOutcomeUnknown]: no answer, a
	// server error or an unusable answer after the request may have
	// reached the gateway, or a cancelled context). Settle it before
	// anything else, and never with a new order_id while this attempt may
	// be in flight: re-send the very same request with the same order_id
	// (or the same refund) from a recovery job. An exact re-send is
	// idempotent: it returns what the first attempt made, or makes it once.
	ClassUnknown
)

// String names the class ("declined").
func (c ErrorClass) String() string {
	switch c {
	case ClassNone:
		return "none"
	case ClassDeclined:
		return "declined"
	case ClassTemporary:
		return "temporary"
	case ClassFault:
		return "fault"
	case ClassUnknown:
		return "unknown"
	}
	return "ErrorClass(" + strconv.Itoa(int(c)) + ")"
}

// ClassOf returns the class of an error returned by the SDK: exactly one
// of [ClassUnknown], [ClassDeclined], [ClassTemporary] and [ClassFault]
// for a non-nil error, [ClassNone] for nil. An unknown outcome is
// [ClassUnknown] whatever the answer behind it (a server error, a
// duplicate order_id met by a retry), so that no other advice is followed
// before it is settled.
func ClassOf(err error) ErrorClass {
	if err == nil {
		return ClassNone
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		return ClassUnknown
	}
	var (
		te *TransportError
		oc *OrderConflictError
		e  *Error
	)
	switch {
	case errors.As(err, &te):
		return ClassTemporary
	case errors.As(err, &oc):
		return ClassFault
	case errors.As(err, &e):
		return e.class()
	}
	return ClassFault
}

func (e *Error) class() ErrorClass {
	switch {
	case e.Code == ErrFundsTransferRejected,
		e.Code >= ErrCardNumberInvalid && e.Code <= ErrCVVInvalid,
		e.Code >= ErrCardDeclined && e.Code <= ErrBankAuthorizationRequired,
		e.Category == CategoryGateway:
		return ClassDeclined
	case e.Code == ErrInternalServer, e.Code == ErrServiceUnavailable,
		e.HTTPStatus == http.StatusTooManyRequests, e.HTTPStatus >= 500,
		e.HTTPStatus >= 200 && e.HTTPStatus <= 299:
		return ClassTemporary
	}
	return ClassFault
}
