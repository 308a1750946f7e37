package refserver

import (
	"net/http"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the server keeps of a card sent inline with a charge (the memo
// merchant.inlineCharged, which the charge's record shares) holds no view
// of the request's body, which holds the card's number and CVV: the masked
// number and holder are one copy (cardnum.Keep), the billing address's
// strings another (cardrules.KeepAddress), laid out one after the other,
// which views of the body are not. A second charge with the same card and
// address shares the memo; another address makes another.
func TestInlineCardKeepsNoViewOfTheBody(t *testing.T) {
	env := newTestEnv(t, Options{})
	body := func(line1, order string) string {
		return `{"method":"card","card":{"holder_name":"Ana Perez","card_number":"4111111111111111","cvv2":"123",` +
			`"expiration_month":"12","expiration_year":"30","address":{"city":"Queretaro","line1":"` + line1 + `",` +
			`"postal_code":"76000","state":"Qro","country_code":"MX"}},"amount":10.00,"description":"d","order_id":"` + order + `"}`
	}
	requireOK(t, env.post("/charges", body("Av. Juarez 1", "kept-1")), http.StatusOK)
	m := env.s.merchantByID(env.m.ID)
	m.mu.Lock()
	first := m.inlineCharged
	m.mu.Unlock()
	require.NotNil(t, first)
	require.NotNil(t, first.Address)
	next := func(s string) *byte { return (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), len(s))) }
	a := first.Address
	assert.Equal(t, "Queretaro", a.City)
	assert.Same(t, next(a.City), unsafe.StringData(a.CountryCode), "the address's strings are one copy")
	assert.Same(t, next(a.CountryCode), unsafe.StringData(a.Line1))
	assert.Same(t, next(first.CardNumber), unsafe.StringData(first.HolderName), "the mask and holder are one copy")
	assert.Equal(t, "411111XXXXXX1111", first.CardNumber)

	requireOK(t, env.post("/charges", body("Av. Juarez 1", "kept-2")), http.StatusOK)
	m.mu.Lock()
	assert.Same(t, first, m.inlineCharged, "the same card and address share the memo")
	m.mu.Unlock()
	requireOK(t, env.post("/charges", body("Av. Juarez 2", "kept-3")), http.StatusOK)
	m.mu.Lock()
	assert.NotSame(t, first, m.inlineCharged)
	assert.Equal(t, "Av. Juarez 2", m.inlineCharged.Address.Line1)
	m.mu.Unlock()
}
