package openpay

import (
	"errors"
	"net/http"
)

// ErrorClass sorts a failed call by what the program should do next. Get
// it with [ClassOf]:
//
//	switch openpay.ClassOf(err) {
//	case openpay.ClassDeclined: // tell the payer: another card or way to pay
//	case openpay.ClassTemporary: // try again later (after a lookup if the outcome is unknown)
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
	// ClassTemporary: the gateway or the network failed (HTTP 5xx and 429,
	// codes 1000 and 1004, no answer, a timeout, an answer that was not
	// usable). Try again later. When the error also matches
	// [ErrOutcomeUnknown] the call may have taken effect: look the object up
	// (by order_id) before repeating a call that moves money.
	ClassTemporary
	// ClassFault: anything else. The request, its data or the account must
	// change before the same call can succeed: a bug, a missing resource,
	// a duplicate, a wrong key, insufficient merchant funds, arguments the
	// SDK refused before sending.
	ClassFault
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
	}
	return "unknown"
}

// ClassOf returns the class of an error returned by the SDK: exactly one
// of [ClassDeclined], [ClassTemporary] and [ClassFault] for a non-nil
// error, [ClassNone] for nil. An unknown outcome is temporary even when
// the answer behind it (a duplicate order_id met by a retry) would
// otherwise be a fault.
func ClassOf(err error) ErrorClass {
	if err == nil {
		return ClassNone
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		return ClassTemporary
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
