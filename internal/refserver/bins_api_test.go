package refserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBINLookup(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	o := requireOK(t, env.get("/bines/424242"), http.StatusOK)
	assert.Equal(t, map[string]any{"bin": "424242", "bank": "BANCOMER", "bank_code": "012", "brand": "visa",
		"type": "credit", "category": BINCategory, "country": "Mexico", "country_code": "MX",
		"allowed_online": true, "allowed_santander_points": false}, o)

	for _, tc := range []struct {
		bin            string
		bank, typ      string
		online, points bool
	}{
		{"411111", "Banamex", "debit", true, false},
		{"510510", "SANTANDER", "credit", true, true},  // the points card
		{"422222", "BANCOPPEL", "debit", false, false}, // the card refused online (3008)
		{"400000", "BANORTE", "credit", true, false},   // shared by the chosen cards: the first one's
	} {
		o := requireOK(t, env.get("/bines/"+tc.bin), http.StatusOK)
		assert.Equal(t, tc.bank, o["bank"], tc.bin)
		assert.Equal(t, tc.typ, o["type"], tc.bin)
		assert.Equal(t, tc.online, o["allowed_online"], tc.bin)
		assert.Equal(t, tc.points, o["allowed_santander_points"], tc.bin)
	}

	requireError(t, env.get("/bines/123456"), 1005)
	for _, bad := range []string{"42424", "4242424", "42424x"} {
		requireError(t, env.get("/bines/"+bad), 1003)
	}
}

// TestPluginBINChecks: the plug-ins' BIN checks, per country, over raw
// HTTP: six or eight digits, the type in capitals, the credentials each
// plug-in sends (the private key in Mexico, none in Colombia and Peru).
func TestPluginBINChecks(t *testing.T) {
	t.Parallel()
	mx := newTestEnv(t, Options{})
	co := countryEnv(t, "CO")
	pe := countryEnv(t, "PE")

	// Mexico: /bines/man/{bin} with the private key.
	assert.Equal(t, map[string]any{"bin": "42424242", "type": "CREDIT"},
		requireOK(t, mx.get("/bines/man/42424242"), http.StatusOK))
	assert.Equal(t, map[string]any{"bin": "411111", "type": "DEBIT"},
		requireOK(t, mx.get("/bines/man/411111"), http.StatusOK))
	requireError(t, mx.do(http.MethodGet, mx.mp("/bines/man/424242"), "", nil), 1002)
	requireError(t, mx.do(http.MethodGet, mx.mp("/bines/man/424242"), mx.m.PublicKey, nil), 1010)

	// Colombia: /v1/cards/validate-bin?bin=, no merchant, no credentials.
	assert.Equal(t, map[string]any{"card_type": "CREDIT"},
		requireOK(t, co.do(http.MethodGet, "/v1/cards/validate-bin?bin=51051051", "", nil), http.StatusOK))
	assert.Equal(t, map[string]any{"card_type": "DEBIT"},
		requireOK(t, co.do(http.MethodGet, "/v1/cards/validate-bin?bin=411111", "", nil), http.StatusOK))

	// Peru: /bines/{bin}/promotions, no credentials; the country's
	// instalments for a credit BIN.
	assert.Equal(t, map[string]any{"cardType": "CREDIT", "installments": []any{3.0, 6.0, 9.0, 12.0, 18.0}, "withInterest": true},
		requireOK(t, pe.do(http.MethodGet, pe.mp("/bines/42424242/promotions"), "", nil), http.StatusOK))
	assert.Equal(t, map[string]any{"cardType": "DEBIT", "installments": []any{}, "withInterest": false},
		requireOK(t, pe.do(http.MethodGet, pe.mp("/bines/411111/promotions"), "", nil), http.StatusOK))
	co2to36 := requireOK(t, co.do(http.MethodGet, co.mp("/bines/424242/promotions"), "", nil), http.StatusOK)["installments"]
	assert.Len(t, co2to36, 35, "Colombia's 2 to 36")
	requireError(t, pe.do(http.MethodGet, "/v1/mnosuchmerchant/bines/424242/promotions", "", nil), 1005)

	for _, bad := range []string{"42424", "424242424", "42424x42"} {
		requireError(t, mx.get("/bines/man/"+bad), 1003)
		requireError(t, co.do(http.MethodGet, "/v1/cards/validate-bin?bin="+bad, "", nil), 1003)
		requireError(t, pe.do(http.MethodGet, pe.mp("/bines/"+bad+"/promotions"), "", nil), 1003)
	}
	requireError(t, co.do(http.MethodGet, "/v1/cards/validate-bin", "", nil), 1003)
	requireError(t, mx.get("/bines/man/12345678"), 1005)
	requireError(t, co.do(http.MethodGet, "/v1/cards/validate-bin?bin=123456", "", nil), 1005)
	requireError(t, pe.do(http.MethodGet, pe.mp("/bines/123456/promotions"), "", nil), 1005)
}
