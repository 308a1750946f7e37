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
		{"411111", "BANAMEX", "debit", true, false},
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
