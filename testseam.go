package openpay

import (
	"reflect"

	"github.com/openpay-go/openpay/internal/testseam"
)

// The spec tests of the nested module tests/ reach these unexported pieces
// through package testseam.
func init() {
	testseam.WireForm = func(body any) any {
		// A variant goes out with the members the SDK writes itself.
		switch r := body.(type) {
		case ChargeRequest:
			body, _, _ = r.chargeRequest()
		case PayoutRequest:
			body, _ = r.payoutRequest()
		}
		return wireForm(body)
	}
	testseam.ErrorResponse = reflect.TypeFor[errorResponse]()
	testseam.FlexInt = reflect.TypeFor[flexInt]()
	testseam.FlexString = reflect.TypeFor[flexString]()
}
