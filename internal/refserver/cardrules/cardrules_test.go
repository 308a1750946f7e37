package cardrules

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// check runs Check on a body as a request sends it.
func check(t *testing.T, body string, production bool) (*cardnum.Profile, cardnum.Expiry, int, string) {
	t.Helper()
	f, e := reqbody.Parse([]byte(body), false)
	require.Nil(t, e)
	var d openpay.CardDetails
	require.Nil(t, f.IntoCardDetails(&d))
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p, exp, e := Check(f, "", d, now, production)
	if e != nil {
		return p, exp, int(e.Code), e.Description
	}
	return p, exp, 0, ""
}

func body(kv ...string) string {
	m := map[string]any{"holder_name": "Ana", "card_number": "4111111111111111", "cvv2": "123",
		"expiration_month": "12", "expiration_year": "30"}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "<none>" {
			delete(m, kv[i])
		} else if kv[i+1] == "<null>" {
			m[kv[i]] = nil
		} else {
			m[kv[i]] = kv[i+1]
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// The rules in their order, the first broken winning; a member missing or
// null and a member empty are told apart as before.
func TestCheckAppliesTheRulesInOrder(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body     string
		code     int
		contains string
	}{
		{body(), 0, ""},
		{body("holder_name", "<none>", "card_number", "x"), 1001, "'holder_name' is required"},
		{body("card_number", "<null>"), 1001, "'card_number' is required"},
		{body("holder_name", ""), 1001, "cannot be empty"},
		{body("holder_name", "  "), 1001, "cannot be empty"},
		{body("card_number", ""), 1001, "16 or 19 digits"},
		{body("card_number", "4111111111111112", "cvv2", "<none>"), 2004, "verification digit"},
		{body("card_number", "6011111111111117"), 1003, "brand"},
		{body("expiration_month", "1", "expiration_year", "2019"), 2005, "expired"},
		{body("expiration_month", "13", "cvv2", "<none>"), 1003, "expiration_month"},
		{body("cvv2", "<none>"), 2006, "required"},
		{body("cvv2", "<null>"), 2006, "required"},
		{body("cvv2", ""), 2006, "required"},
		{body("cvv2", "12", "holder_name", strings.Repeat("x", 81)), 2009, "invalid"},
		{body("holder_name", strings.Repeat("x", 81)), 1003, "at most 80"},
		{body("holder_name", strings.Repeat("é", 80)), 0, ""},
	}
	for _, c := range cases {
		p, exp, code, desc := check(t, c.body, false)
		assert.Equal(t, c.code, code, "%s: %s", c.body, desc)
		assert.Contains(t, desc, c.contains, c.body)
		if c.code == 0 {
			assert.NotNil(t, p, c.body)
			assert.Equal(t, "12", exp.Month())
		} else {
			assert.Nil(t, p, c.body)
		}
	}
	_, _, code, _ := check(t, body(), true)
	assert.Equal(t, 2007, code, "a sandbox test card in production")
	_, _, code, _ = check(t, body("card_number", "4532015112830366"), true)
	assert.Equal(t, 0, code, "another card in production")
}

// KeepAddress copies a billing address and its strings, in one allocation
// for the strings, so that nothing kept is a view of the body it came from.
func TestKeepAddressHoldsNoViewOfItsSource(t *testing.T) {
	assert.Nil(t, KeepAddress(nil))
	body := []byte(`Queretaro|MX|Av. Juarez 1|Int. 4||76000|Qro|4111111111111111|123`)
	view := func(from, to int) string { return unsafe.String(&body[from], to-from) }
	a := &openpay.Address{City: view(0, 9), CountryCode: view(10, 12), Line1: view(13, 25), Line2: view(26, 32),
		PostalCode: view(34, 39), State: view(40, 43)}
	want := openpay.Address{City: "Queretaro", CountryCode: "MX", Line1: "Av. Juarez 1", Line2: "Int. 4", PostalCode: "76000", State: "Qro"}
	require.Equal(t, want, *a)
	var kept *openpay.Address
	assert.Equal(t, 2.0, testing.AllocsPerRun(20, func() { kept = KeepAddress(a) }), "the address and its strings")
	for i := range body {
		body[i] = 'x' // the body's storage cleared or reused
	}
	assert.Equal(t, want, *kept)
	assert.NotSame(t, a, kept)
}
