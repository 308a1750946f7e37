package refserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOperation(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	op, params, ok := s.Operation(http.MethodPost, "/v1/m123/customers/a456/charges")
	assert.True(t, ok)
	assert.Equal(t, "createCustomerCharge", op)
	assert.Equal(t, map[string]string{"merchant_id": "m123", "customer_id": "a456"}, params)

	op, params, ok = s.Operation(http.MethodGet, "/v1/groups/g1/customers/a2")
	assert.True(t, ok)
	assert.Equal(t, "getGroupCustomer", op)
	assert.Equal(t, "g1", params["group_id"])

	for _, p := range []string{"/_simulate/m1/charges/tr1/pay", "/_health", "/v1/m1/nothing", "/"} {
		_, _, ok := s.Operation(http.MethodPost, p)
		assert.False(t, ok, p)
	}
}
