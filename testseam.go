package openpay

import (
	"reflect"

	"github.com/openpay-go/openpay/internal/testseam"
)

// The spec tests of the nested module tests/ reach these unexported pieces
// through package testseam.
func init() {
	testseam.WireForm = wireForm
	testseam.ErrorResponse = reflect.TypeFor[errorResponse]()
	testseam.FlexInt = reflect.TypeFor[flexInt]()
	testseam.FlexString = reflect.TypeFor[flexString]()
}
