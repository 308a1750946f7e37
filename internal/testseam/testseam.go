// Package testseam hands the project's spec tests what they check of
// package openpay that its exported API does not show. Those tests live in
// the nested module tests/ (tests/openpay), so that the SDK's module does
// not require their tools (kin-openapi, chromedp), and a test outside
// package openpay cannot name its unexported identifiers; package openpay
// fills these variables when it is initialised (testseam.go). Nothing else
// reads them, and a program using the SDK has no use for them.
package testseam

import "reflect"

var (
	// WireForm is the body of a request as the client sends it, card data
	// in clear (openpay's wireForm); a charge or payout variant carries the
	// members the SDK writes itself, such as its method.
	WireForm func(body any) any

	// ErrorResponse is the Go type the gateway's error object decodes
	// into, which openpay does not export.
	ErrorResponse reflect.Type

	// FlexInt and FlexString are openpay's loose number and string types:
	// a number may arrive quoted, a string as a number.
	FlexInt, FlexString reflect.Type
)
