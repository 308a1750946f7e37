package openpaytest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// call sends a raw request and decodes the JSON answer.
func call(t *testing.T, method, url, key string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	req.SetBasicAuth(key, "")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	if len(data) > 0 {
		require.NoError(t, json.Unmarshal(data, &out), "%s", data)
	}
	return res.StatusCode, out
}

func card(number string) map[string]any {
	return map[string]any{"holder_name": "Ana", "card_number": number, "cvv2": openpaytest.CVV(number),
		"expiration_month": "12", "expiration_year": "30"}
}

func TestConstantsMatchTheServersTable(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		code   openpay.Code
		threeD bool
	}{
		openpaytest.CardVisa: {}, openpaytest.CardVisaCredit: {}, openpaytest.CardMastercard: {},
		openpaytest.CardMastercardPoints: {}, openpaytest.CardAmex: {}, openpaytest.CardAmex2: {}, openpaytest.EmulatorCardCarnet: {},
		openpaytest.CardExpired: {code: openpay.ErrCardExpired}, openpaytest.CardInsufficientFunds: {code: openpay.ErrCardInsufficientFunds},
		openpaytest.CardStolen: {code: openpay.ErrCardStolen}, openpaytest.CardNotOnline: {code: openpay.ErrCardNotSupportedOnline},
		openpaytest.Card3DSecure: {threeD: true}, openpaytest.EmulatorCardDeclined: {code: openpay.ErrCardDeclined},
		openpaytest.EmulatorCardFraud: {code: openpay.ErrCardFraud}, openpaytest.EmulatorCardNotAllowed: {code: openpay.ErrOperationNotAllowed},
		openpaytest.EmulatorCardLost: {code: openpay.ErrCardLost}, openpaytest.EmulatorCardRestricted: {code: openpay.ErrCardRestricted},
		openpaytest.EmulatorCardRetained: {code: openpay.ErrCardRetained}, openpaytest.EmulatorCardBankAuthorization: {code: openpay.ErrBankAuthorizationRequired},
	}
	table := openpaytest.SandboxCards()
	require.Len(t, table, len(want), "one constant per card of the table")
	for _, c := range table {
		w, ok := want[c.Number]
		if assert.True(t, ok, "card %s of the table has no constant", c.Number) {
			assert.Equal(t, w.code, c.Code, c.Number)
			assert.Equal(t, w.threeD, c.Requires3DS, c.Number)
		}
	}
	assert.True(t, table[0].Documented)
	assert.Equal(t, "1234", openpaytest.CVV(openpaytest.CardAmex))
	assert.Equal(t, "123", openpaytest.CVV(openpaytest.CardVisa))
}

// TestEveryTestCardBehavesAsListed charges each card of the table on a live
// server.
func TestEveryTestCardBehavesAsListed(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	base := srv.URL + "/v1/" + srv.MerchantID
	for _, c := range openpaytest.SandboxCards() {
		status, tok := call(t, http.MethodPost, base+"/tokens", srv.PublicKey, card(c.Number))
		require.Equal(t, http.StatusOK, status, "%v", tok)
		status, ch := call(t, http.MethodPost, base+"/charges", srv.PrivateKey,
			map[string]any{"method": "card", "source_id": tok["id"], "amount": 10, "description": "test card"})
		switch {
		case c.Code != 0:
			assert.Equal(t, c.Code.HTTPStatus(), status, c.Number)
			assert.Equal(t, float64(c.Code), ch["error_code"], c.Number)
		case c.Requires3DS:
			assert.Equal(t, "charge_pending", ch["status"], c.Number)
		default:
			assert.Equal(t, "completed", ch["status"], c.Number)
		}
	}
	// The fraud e-mail.
	status, ch := call(t, http.MethodPost, base+"/charges", srv.PrivateKey, map[string]any{"method": "card", "amount": 10,
		"description": "x", "card": card(openpaytest.CardVisa), "customer": map[string]any{"name": "F", "email": "error.fraud@openpay.mx"}})
	assert.Equal(t, http.StatusPaymentRequired, status)
	assert.Equal(t, float64(openpay.ErrCardFraud), ch["error_code"])
}

func TestSimulationMethods(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	base := srv.URL + "/v1/" + srv.MerchantID
	status, ch := call(t, http.MethodPost, base+"/charges", srv.PrivateKey, map[string]any{"method": "store", "amount": 150, "description": "x"})
	require.Equal(t, http.StatusOK, status)
	paid, err := srv.PayCharge(ch["id"].(string))
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, paid.Status)
	assert.Equal(t, "150.00", srv.Balance().String())

	_, err = srv.PayCharge("trnothere")
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	var oe *openpay.Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, http.StatusNotFound, oe.HTTPStatus)

	_, ch = call(t, http.MethodPost, base+"/charges", srv.PrivateKey, map[string]any{"method": "alipay", "amount": 100,
		"description": "x", "redirect_url": "https://example.com"})
	failed, err := srv.FailCharge(ch["id"].(string), 0)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusFailed, failed.Status)
	_, err = srv.CompleteCharge(ch["id"].(string))
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)

	_, ch = call(t, http.MethodPost, base+"/charges", srv.PrivateKey, map[string]any{"method": "card", "amount": 100,
		"description": "x", "card": card(openpaytest.CardVisa)})
	cb, err := srv.OpenChargeback(ch["id"].(string))
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusChargebackPending, cb.Status)
	cb, err = srv.ResolveChargeback(ch["id"].(string), false)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, cb.Status)

	before := srv.Now()
	now, err := srv.AdvanceClock(36 * time.Hour)
	require.NoError(t, err)
	assert.Equal(t, before.Add(36*time.Hour), now)
	assert.Equal(t, now, srv.Now())

	var types []openpay.EventType
	for _, ev := range srv.Events() {
		types = append(types, ev.Type)
	}
	assert.Equal(t, []openpay.EventType{"charge.created", "charge.succeeded", "charge.created", "charge.failed",
		"charge.succeeded", "chargeback.created", "chargeback.rejected"}, types)

	real := openpaytest.NewServer(t)
	_, err = real.AdvanceClock(time.Hour)
	assert.ErrorIs(t, err, openpaytest.ErrRealClock)
}

func TestDeterministicServersGiveTheSameIDs(t *testing.T) {
	t.Parallel()
	run := func() (string, string) {
		srv := openpaytest.NewServer(t, openpaytest.Deterministic())
		_, ch := call(t, http.MethodPost, srv.URL+"/v1/"+srv.MerchantID+"/charges", srv.PrivateKey,
			map[string]any{"method": "store", "amount": 1, "description": "x"})
		return srv.MerchantID + srv.PrivateKey, ch["id"].(string) + ch["creation_date"].(string)
	}
	m1, c1 := run()
	m2, c2 := run()
	assert.Equal(t, m1, m2)
	assert.Equal(t, c1, c2)
	assert.Contains(t, c1, "2026-01-05T10:00:00-06:00")
}

func TestSeededCredentialsAndTenancy(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithMerchant("mzdtln0bmtms6o3kck8f", "sk_e568c42a6c384b7ab02cd47d2e407cab", ""),
		openpaytest.WithMerchantBalance(openpay.MustAmount("500")), openpaytest.WithStrict())
	assert.Equal(t, "mzdtln0bmtms6o3kck8f", srv.MerchantID)
	assert.Equal(t, "sk_e568c42a6c384b7ab02cd47d2e407cab", srv.PrivateKey)
	assert.Regexp(t, `^pk_[0-9a-f]{32}$`, srv.PublicKey)
	status, m := call(t, http.MethodGet, srv.URL+"/v1/"+srv.MerchantID, srv.PrivateKey, nil)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 500.0, m["balance"])

	other, err := srv.AddMerchant("", "", "")
	require.NoError(t, err)
	status, _ = call(t, http.MethodGet, srv.URL+"/v1/"+srv.MerchantID, other.PrivateKey, nil)
	assert.Equal(t, http.StatusUnauthorized, status)
	status, _ = call(t, http.MethodGet, srv.URL+"/v1/"+other.MerchantID, other.PrivateKey, nil)
	assert.Equal(t, http.StatusOK, status)
	_, err = srv.AddMerchant(srv.MerchantID, "", "")
	assert.Error(t, err)

	gid, gkey, err := srv.AddGroup(srv.MerchantID)
	require.NoError(t, err)
	status, _ = call(t, http.MethodPost, srv.URL+"/v1/groups/"+gid+"/merchants/"+srv.MerchantID+"/charges", gkey,
		map[string]any{"method": "store", "amount": 1, "description": "x", "order_id": "g1", "customer": map[string]any{"name": "a", "email": "a@b.co"}})
	assert.Equal(t, http.StatusBadRequest, status, "strict: no X-Forwarded-For")

	// Production refuses the test cards.
	prod := openpaytest.NewServer(t, openpaytest.WithProduction())
	status, e := call(t, http.MethodPost, prod.URL+"/v1/"+prod.MerchantID+"/tokens", prod.PublicKey, card(openpaytest.CardVisa))
	assert.Equal(t, http.StatusPreconditionFailed, status)
	assert.Equal(t, float64(openpay.ErrTestCardInProduction), e["error_code"])
}

func TestStartAndClose(t *testing.T) {
	t.Parallel()
	srv, err := openpaytest.Start()
	require.NoError(t, err)
	status, _ := call(t, http.MethodGet, srv.URL+"/v1/"+srv.MerchantID, srv.PrivateKey, nil)
	assert.Equal(t, http.StatusOK, status)
	assert.NotNil(t, srv.Handler())
	srv.Close()
	srv.Close()
	_, err = http.Get(srv.URL + "/v1/" + srv.MerchantID)
	assert.Error(t, err, "closed")
	_, err = openpaytest.Start(openpaytest.WithAddr("256.0.0.1:0"))
	assert.Error(t, err)
	_, err = openpaytest.Start(openpaytest.WithMerchantBalance(openpay.MustAmount("-1")))
	assert.True(t, err != nil && !errors.Is(err, openpay.ErrNotFound))
}

// TestCountries: WithCountry makes the server's merchants of a country,
// AddMerchantIn adds one of another country; each merchant's currency
// follows its country, and an unknown country does not start.
func TestCountries(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithCountry(openpay.CountryPeru))
	assert.Equal(t, openpay.CountryPeru, srv.Country)
	other, err := srv.AddMerchant("", "", "")
	require.NoError(t, err)
	assert.Equal(t, openpay.CountryPeru, other.Country, "the server's country is the default")
	co, err := srv.AddMerchantIn(openpay.CountryColombia, "", "", "")
	require.NoError(t, err)
	assert.Equal(t, openpay.CountryColombia, co.Country)
	for _, m := range []struct {
		m        *openpaytest.Merchant
		currency string
	}{{&srv.Merchant, "PEN"}, {co, "COP"}} {
		status, ch := call(t, http.MethodPost, srv.URL+"/v1/"+m.m.MerchantID+"/charges", m.m.PrivateKey,
			map[string]any{"method": "store", "amount": 100, "description": "d"})
		require.Equal(t, http.StatusOK, status, ch)
		assert.Equal(t, m.currency, ch["currency"])
	}
	_, err = openpaytest.Start(openpaytest.WithCountry("AR"))
	assert.ErrorContains(t, err, "unknown country")
}
