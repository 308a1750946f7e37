package refserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCountryTimeZones: every timestamp a merchant is answered carries its
// country's zone (Mexico City -06:00, Bogotá and Lima -05:00), and times
// sent without an offset are read in it.
func TestCountryTimeZones(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country openpay.Country
		offset  string // RFC 3339
		compact string // the checkouts' form
	}{
		{"MX", "-06:00", "-0600"},
		{"CO", "-05:00", "-0500"},
		{"PE", "-05:00", "-0500"},
	} {
		t.Run(string(tc.country), func(t *testing.T) {
			t.Parallel()
			env := countryEnv(t, tc.country)
			// testStart is 2026-03-10 12:00 in Mexico City, 13:00 in Bogotá and Lima.
			local := testStart.In(mustZone(t, tc.offset)).Format("2006-01-02T15:04:05")

			cu := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), env.created())
			assert.Equal(t, local+tc.offset, cu["creation_date"], "customer")

			card := requireOK(t, env.post("/cards", validCard("4111111111111111")), env.created())
			assert.Equal(t, local+tc.offset, card["creation_date"], "card")
			charge := requireOK(t, env.post("/charges", cardCharge(card["id"].(string))), http.StatusOK)
			assert.Equal(t, local+tc.offset, charge["creation_date"], "charge")
			assert.Equal(t, local+tc.offset, charge["operation_date"], "charge")

			// A due date without an offset is the merchant's wall-clock time.
			store := requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 100,
				"description": "d", "due_date": "2026-03-12T10:00:00"}), http.StatusOK)
			assert.Equal(t, "2026-03-12T10:00:00"+tc.offset, store["due_date"], "store due date")
			// One given with an offset is the same instant, in the merchant's zone.
			store = requireOK(t, env.post("/charges", map[string]any{"method": "store", "amount": 100,
				"description": "d", "due_date": "2026-03-12T10:00:00Z"}), http.StatusOK)
			due, err := time.Parse(time.RFC3339, store["due_date"].(string))
			require.NoError(t, err)
			assert.True(t, due.Equal(time.Date(2026, 3, 12, 10, 0, 0, 0, time.UTC)), "%v", due)
			assert.Equal(t, tc.offset, due.Format("-07:00"))

			tok := requireOK(t, env.post("/tokens", map[string]any{"card_number": "4111111111111111", "holder_name": "Ana",
				"expiration_month": "12", "expiration_year": "30", "cvv2": "123"}), env.created())
			assert.Equal(t, local+tc.offset, tok["card"].(map[string]any)["creation_date"], "token")

			// The checkout's expiration, yyyy-MM-dd HH:mm, is the merchant's
			// time and echoes in its offset (facts-vendor.md section 4, Peru:
			// 2021-10-15 23:36 echoes 2021-10-15T23:36:00.000-0500).
			ck := requireOK(t, env.post("/checkouts", map[string]any{"amount": 100, "description": "d",
				"expiration_date": "2026-03-15 23:36", "customer": map[string]any{"name": "Ana", "email": "ana@example.com"}}),
				http.StatusOK)
			assert.Equal(t, "2026-03-15T23:36:00.000"+tc.compact, ck["expiration_date"])
			assert.Equal(t, local+".000"+tc.compact, ck["creation_date"])

			// Webhook payloads: event_date too.
			evs := env.s.Events(env.m.ID)
			require.NotEmpty(t, evs)
			data, err := json.Marshal(evs[len(evs)-1].Wire())
			require.NoError(t, err)
			var ev map[string]any
			require.NoError(t, json.Unmarshal(data, &ev))
			assert.Equal(t, local+tc.offset, ev["event_date"])
		})
	}
}

// TestCountryListDays: a list's creation dates name days of the merchant's
// zone. At 00:30 on 11 March in Bogotá and Lima it is still 10 March in
// Mexico City.
func TestCountryListDays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country openpay.Country
		day     string // the day of the charge for the merchant
	}{
		{"MX", "2026-03-10"},
		{"CO", "2026-03-11"},
		{"PE", "2026-03-11"},
	} {
		env := countryEnv(t, tc.country)
		at := time.Date(2026, 3, 11, 5, 30, 0, 0, time.UTC)
		env.clock.Set(at)
		// The SDK names the same day for the same instant.
		assert.Equal(t, tc.day, tc.country.Today(at).String(), "openpay.Country.Today")
		requireOK(t, env.post("/charges", cardCharge(storedCard(t, env, "", "4111111111111111"))), http.StatusOK)
		got := requireOKList(t, env.get("/charges?creation="+tc.day))
		assert.Len(t, got, 1, "%s %s", tc.country, tc.day)
		other := "2026-03-11"
		if tc.day == other {
			other = "2026-03-10"
		}
		assert.Empty(t, requireOKList(t, env.get("/charges?creation="+other)), "%s %s", tc.country, other)
	}
}

// mustZone is a fixed zone of an RFC 3339 offset ("-05:00").
func mustZone(t *testing.T, offset string) *time.Location {
	t.Helper()
	ref, err := time.Parse(time.RFC3339, "2026-01-01T00:00:00"+offset)
	require.NoError(t, err)
	return ref.Location()
}

// TestCountryAbsentResourceOtherMethod: a path a country lacks answers 404
// 1005 whatever the method, after the credentials, as its existing method
// does; where the country has the resource a wrong method stays 405.
func TestCountryAbsentResourceOtherMethod(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country openpay.Country
		method  string
		path    string
		status  int
	}{
		{"PE", http.MethodGet, "/pse", http.StatusNotFound},
		{"PE", http.MethodDelete, "/pse", http.StatusNotFound},
		{"MX", http.MethodGet, "/pse", http.StatusNotFound},
		{"MX", http.MethodGet, "/customers/{c}/pse", http.StatusNotFound},
		{"CO", http.MethodGet, "/pse", http.StatusMethodNotAllowed},
		{"CO", http.MethodPut, "/payouts", http.StatusNotFound},
		{"MX", http.MethodPut, "/payouts", http.StatusMethodNotAllowed},
		{"PE", http.MethodPut, "/charges", http.StatusMethodNotAllowed},
	} {
		env := countryEnv(t, tc.country)
		cu := createCustomerHTTP(t, env, "Ana", false)
		path := env.mp(strings.ReplaceAll(tc.path, "{c}", cu))
		r := env.do(tc.method, path, env.m.PrivateKey, nil)
		assert.Equal(t, tc.status, r.status, "%s %s %s: %s", tc.country, tc.method, tc.path, r.body)
		if tc.status == http.StatusNotFound {
			assert.Equal(t, descNoSuchPath, requireError(t, r, 1005))
			assert.Empty(t, r.header.Get("Allow"))
		}
		// Without credentials the answer is the credentials', as for the
		// method the path takes.
		r = env.do(tc.method, path, "", nil)
		if tc.status == http.StatusNotFound {
			assert.Equal(t, http.StatusUnauthorized, r.status, "%s %s %s", tc.country, tc.method, tc.path)
		}
	}
}
