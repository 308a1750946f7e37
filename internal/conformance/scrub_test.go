package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

func TestScrubJSON(t *testing.T) {
	body := `{"card":{"card_number":"4000 0000 0000 0119","cvv2":"123","holder_name":"Ana"},
		"number":4242424242424242,"clabe":"012680012426485980","note":"key sk_e568c42a6c384b7ab02cd47d2e407cab and card 5555-5555-5555-4444",
		"webhook":{"url":"https://shop.example/hook","user":"juan","password":"s3cret"},"typo":{"card_number":"4111111111111112"},
		"order_id":"4111111111111111","amount":250.50}`
	out, cards, ok := scrubJSON([]byte(body))
	require.True(t, ok)
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	card := got["card"].(map[string]any)
	assert.Equal(t, "400000XXXXXX0119", card["card_number"])
	assert.Equal(t, Scrubbed, card["cvv2"])
	assert.Equal(t, "Ana", card["holder_name"])
	assert.Equal(t, "424242XXXXXX4242", got["number"], "a number sent as a JSON number is masked too")
	// A CLABE is personal data: masked as the gateway shows it, its bank
	// code and validity kept (the rule changed: it used to stay in clear).
	assert.Equal(t, "012XXXXXXXXXX85980", got["clabe"])
	assert.Equal(t, map[string]Clabe{"$.clabe": {Bank: "012", Length: 18, Valid: true}}, cards.clabes)
	assert.Equal(t, map[string]Code{"$.card.cvv2": {Layout: "999"}}, cards.codes)
	assert.Equal(t, "key [scrubbed] and card XXXXXXXXXXXXXXXXXXX", got["note"])
	hook := got["webhook"].(map[string]any)
	assert.Equal(t, Scrubbed, hook["user"])
	assert.Equal(t, Scrubbed, hook["password"])
	assert.Equal(t, "https://shop.example/hook", hook["url"])
	assert.Equal(t, "411111XXXXXX1112", got["typo"].(map[string]any)["card_number"], "a card number failing the Luhn check is masked too")
	assert.Equal(t, "411111XXXXXX1111", got["order_id"], "a card number anywhere is masked")
	assert.Contains(t, string(out), `"amount":250.50`, "numbers are kept exactly")
	assert.Equal(t, map[string]Card{
		"$.card.card_number": {Brand: "visa", Class: "stolen", Layout: "9999 9999 9999 9999"},
		"$.number":           {Brand: "visa", Class: "approved"},
		"$.typo.card_number": {Brand: "visa", Class: ClassLuhnInvalid},
		"$.order_id":         {Brand: "visa", Class: "approved"},
	}, cards.cards)

	found, err := Scan(bytes.NewReader(append(out, '\n')))
	require.NoError(t, err)
	assert.Empty(t, found)

	_, _, ok = scrubJSON([]byte("<html>"))
	assert.False(t, ok)
}

func TestScanFindsSecrets(t *testing.T) {
	lines := strings.Join([]string{
		`{"format":"openpay-cassette/1"}`,
		`{"request":{"card_number":"4111111111111111"}}`,
		`{"request":{"card":{"cvv2":"123"}}}`,
		`{"request":{"password":"hunter2"}}`,
		`{"response":{"private_key":"sk_abc"},"note":"pk_e568c42a6c384b7ab02cd47d2e407cab"}`,
		`{"response":{"text":"card 4111 1111 1111 1111 on file"}}`,
		`not json 5555555555554444`,
		`{"request":{"card_number":"411111XXXXXX1111","cvv2":"[scrubbed]","clabe":"012XXXXXXXXXX85980","reference":"0101990000001065"}}`,
		`{"response":{"clabe":"012680012426485980","metadata":{"api_token":"t0k3n","order":"A-1","pin":"[scrubbed]"}}}`,
	}, "\n")
	found, err := Scan(strings.NewReader(lines))
	require.NoError(t, err)
	want := []Finding{
		{Line: 2, Path: "$.request.card_number", Kind: "card number"},
		{Line: 3, Path: "$.request.card.cvv2", Kind: "security code"},
		{Line: 4, Path: "$.request.password", Kind: "credential"},
		{Line: 5, Path: "$.note", Kind: "API key"},
		{Line: 5, Path: "$.response.private_key", Kind: "API key"},
		{Line: 6, Path: "$.response.text", Kind: "card number"},
		{Line: 7, Path: "(text)", Kind: "card number"},
		{Line: 9, Path: "$.response.clabe", Kind: "CLABE"},
		{Line: 9, Path: "$.response.metadata.api_token", Kind: "metadata secret"},
	}
	assert.ElementsMatch(t, want, found)
	for _, f := range found {
		assert.NotContains(t, f.String(), "4111", "a finding never shows the value")
	}
}

func TestCheckUpstream(t *testing.T) {
	for _, ok := range []string{"https://sandbox-api.openpay.mx", "https://sandbox-api.openpay.co/", "https://SANDBOX-API.openpay.pe"} {
		_, _, err := CheckUpstream(ok, false, "")
		assert.NoError(t, err, ok)
	}
	_, c, _ := CheckUpstream("https://sandbox-api.openpay.co", false, "")
	assert.Equal(t, "CO", string(c))
	for _, prod := range []string{"https://api.openpay.mx", "https://api.openpay.co", "https://API.openpay.pe.", "http://api.openpay.mx:443"} {
		_, _, err := CheckUpstream(prod, true, "")
		assert.ErrorIs(t, err, ErrProductionUpstream, "%s is refused even when other hosts are allowed", prod)
	}
	for _, bad := range []string{"http://sandbox-api.openpay.mx", "https://sandbox-api.openpay.mx/v1", "ftp://x", "https://sk_e568c42a6c384b7ab02cd47d2e407cab@sandbox-api.openpay.mx",
		"https://sandbox-api.openpay.mx/?key=sk_e568c42a6c384b7ab02cd47d2e407cab", "%zz sk_e568c42a6c384b7ab02cd47d2e407cab"} {
		_, _, err := CheckUpstream(bad, true, "")
		if assert.Error(t, err, bad) {
			assert.NotContains(t, err.Error(), "sk_", "an error never repeats a key")
		}
	}
	_, _, err := CheckUpstream("http://127.0.0.1:8080", false, "")
	assert.Error(t, err, "another host needs to be allowed")
	_, c, err = CheckUpstream("http://127.0.0.1:8080", true, "")
	assert.NoError(t, err)
	assert.Equal(t, openpay.CountryMexico, c)
	_, c, err = CheckUpstream("http://127.0.0.1:8080", true, openpay.CountryPeru)
	assert.NoError(t, err)
	assert.Equal(t, openpay.CountryPeru, c)
	_, _, err = CheckUpstream("https://sandbox-api.openpay.pe", false, openpay.CountryMexico)
	assert.ErrorContains(t, err, "does not match")
}

// TestRecorderScrubsMemberNames: a key echoed as a member name is scrubbed
// like a value, and the client still gets the upstream's answer unchanged.
func TestRecorderScrubsMemberNames(t *testing.T) {
	const key = "sk_e568c42a6c384b7ab02cd47d2e407cab"
	answer := `{"` + key + `":"echoed","error_code":1001}`
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(answer))
	}))
	defer up.Close()
	var out bytes.Buffer
	rec, err := NewRecorder(RecorderConfig{Upstream: up.URL, AllowUpstream: true, Out: &out})
	require.NoError(t, err)
	defer rec.Close()
	proxy := httptest.NewServer(rec)
	defer proxy.Close()
	req, _ := http.NewRequest(http.MethodGet, proxy.URL+"/v1/m1/customers?limit=5", nil)
	req.SetBasicAuth(key, "")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, answer, string(got), "the client gets the upstream's answer unchanged")

	assert.NotContains(t, out.String(), key)
	found, err := Scan(bytes.NewReader(out.Bytes()))
	require.NoError(t, err)
	assert.Empty(t, found)
	c, err := DecodeCassette(&out)
	require.NoError(t, err)
	require.Len(t, c.Exchanges, 1)
	e := c.Exchanges[0]
	assert.JSONEq(t, `{"[scrubbed]":"echoed","error_code":1001}`, string(e.Response))
	assert.Equal(t, "listCustomers", e.Operation)
	assert.Equal(t, "limit=5", e.Query)
	assert.Equal(t, "private", e.Auth)
	assert.Equal(t, 400, e.Status)
}

// TestWithholdSecrets: when the scan finds what scrubbing left, the
// exchange is written without its path, query and bodies.
func TestWithholdSecrets(t *testing.T) {
	e := Exchange{Seq: 3, Operation: "getCustomer", Method: "GET", Path: "/v1/m1/customers/a1", Status: 200,
		Response: json.RawMessage(`{"id":"a1","note":"4111111111111111"}`)}
	line, err := marshalLine(e)
	require.NoError(t, err)
	line, err = withholdSecrets(e, line)
	require.NoError(t, err)
	assert.NotContains(t, string(line), "4111111111111111")
	var got Exchange
	require.NoError(t, json.Unmarshal(line, &got))
	assert.Equal(t, "the scan found card number at $.response.note", got.Withheld)
	assert.Empty(t, got.Response)
	assert.Equal(t, Scrubbed, got.Path)
	assert.Equal(t, "getCustomer", got.Operation)
}
