package gatewayhost

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryBaseURLLooksUpAsItsCountry(t *testing.T) {
	for c := range byCountry {
		for _, production := range []bool{false, true} {
			base, ok := BaseURL(c, production)
			assert.True(t, ok, c)
			u, err := url.Parse(base)
			assert.NoError(t, err)
			assert.Equal(t, "https", u.Scheme)
			got, prod, ok := Lookup(u.Hostname())
			assert.True(t, ok, base)
			assert.Equal(t, c, got, base)
			assert.Equal(t, production, prod, base)
		}
	}
	_, ok := BaseURL("US", false)
	assert.False(t, ok)
	c, prod, ok := Lookup("API.OpenPay.MX.")
	assert.Equal(t, []any{"MX", true, true}, []any{c, prod, ok})
	for _, h := range []string{"openpay.mx", "sandbox-api.openpay.mx.evil.example", "localhost", ""} {
		_, _, ok := Lookup(h)
		assert.False(t, ok, h)
	}
}
