package openpay

import "strconv"

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

// Error returns the category name; it makes Category usable with errors.Is.
func (c Category) Error() string { return "openpay: " + string(c) + " error" }

// Code is a gateway error code (error_code in error bodies). Every
// documented code is a constant of this type named after its meaning, and
// each is an error value, so errors.Is(err, openpay.ErrCardDeclined) works.
type Code int

// Error describes the code; it makes Code usable with errors.Is.
func (c Code) Error() string {
	return "openpay: error " + strconv.Itoa(int(c))
}
