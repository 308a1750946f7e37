package apierr

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
)

func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		e    *Error
		want int
	}{
		{"from the code", Errorf(openpay.ErrNotFound, "x"), http.StatusNotFound},
		{"overridden", &Error{Code: openpay.ErrBadRequest, Status: http.StatusMethodNotAllowed}, http.StatusMethodNotAllowed},
		{"a code with no status", &Error{Code: 1}, http.StatusInternalServerError},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.e.HTTPStatus(), c.name)
	}
}

func TestErrorReadsBackWithErrorsAs(t *testing.T) {
	t.Parallel()
	var err error = NotFound("customer", "a1")
	var e *Error
	if assert.True(t, errors.As(err, &e)) {
		assert.Equal(t, openpay.ErrNotFound, e.Code)
		assert.Equal(t, "The customer with id 'a1' does not exist", e.Description)
	}
	assert.Equal(t, "refserver: error 1005: The customer with id 'a1' does not exist", err.Error())
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 60)
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"cus_123", "cus_123"},
		{long, long[:45] + "..."},
		{"4111111111111111", "(hidden)"},
		{"4111 1111 1111 1111", "(hidden)"},
		{"12345678901", "12345678901"}, // eleven digits: not a card number
		{"id-" + long + "411111111111", "(hidden)"},
	} {
		assert.Equal(t, c.want, Truncate(c.in), c.in)
	}
	assert.Equal(t, "The card with id '(hidden)' does not exist", NotFound("card", "4111111111111111").Description)
	assert.Equal(t, NoSuchResource, NotFound("plan", "4111111111111111").Description)
}

// MethodNotAllowed answers 405 with the methods the path takes, and hides
// a method that looks like a card number.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	e := MethodNotAllowed(openpay.ErrBadRequest, "PATCH", []string{"GET", "POST"})
	assert.Equal(t, http.StatusMethodNotAllowed, e.HTTPStatus())
	assert.Equal(t, openpay.ErrBadRequest, e.Code)
	assert.Equal(t, "The method PATCH is not allowed on this resource; allowed: GET, POST", e.Description)
	assert.Equal(t, "The method (hidden) is not allowed on this resource; allowed: GET", MethodNotAllowed(openpay.ErrBadRequest, "4111111111111111", []string{"GET"}).Description)
}
