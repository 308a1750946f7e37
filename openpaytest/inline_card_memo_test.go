package openpaytest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A payer pays with a card sent inline, is declined with another, tries a
// third under the declined order_id (refused: one transaction per
// order_id), pays with it under a new order, and pays again with the
// first card, under its own name and then under a name of the same length
// and another expiry, while other requests with other strings come and go.
// Every charge's card object reads back byte for byte as it was answered
// (number masked, holder, expiry, brand and bank of its own card, never
// another charge's), before and after a restart on the data directory;
// no answer holds a card number or a CVV; the books add up to the cent.
func TestInlineCardChargesKeepTheirOwnCard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, key = "minlinememo000000001", "sk_00000000000000000000000000000045"
	srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	defer func() { srv.Close() }()
	opening := srv.Balance()

	// post sends body to path as a shop's client would and answers the
	// status and the raw answer.
	post := func(path, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/"+id+path, strings.NewReader(body))
		require.NoError(t, err)
		req.SetBasicAuth(key, "")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(res.Body)
		require.NoError(t, err)
		return res.StatusCode, b.Bytes()
	}
	get := func(path string) []byte {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/v1/"+id+path, nil)
		require.NoError(t, err)
		req.SetBasicAuth(key, "")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		var b bytes.Buffer
		_, err = b.ReadFrom(res.Body)
		require.NoError(t, err)
		return b.Bytes()
	}
	type answer struct {
		ID        string          `json:"id"`
		Status    string          `json:"status"`
		OrderID   string          `json:"order_id"`
		ErrorCode int             `json:"error_code"`
		Card      json.RawMessage `json:"card"`
	}
	read := func(b []byte) answer {
		t.Helper()
		var a answer
		require.NoError(t, json.Unmarshal(b, &a), "%s", b)
		return a
	}
	numbers := []string{openpaytest.CardVisa, openpaytest.CardInsufficientFunds, openpaytest.CardMastercard}
	address := "" // the card's billing address member, when it has one
	charge := func(number, holder, year, orderID, amount string) (int, []byte) {
		t.Helper()
		status, b := post("/charges", fmt.Sprintf(`{"method":"card","card":{"holder_name":%q,"card_number":%q,"cvv2":%q,"expiration_month":"12","expiration_year":%q%s},"amount":%s,"currency":"MXN","description":"Pedido %s","order_id":%q}`,
			holder, number, openpaytest.CVV(number), year, address, amount, orderID, orderID))
		for _, n := range numbers {
			assert.NotContains(t, string(b), n, "an answer holds a card number")
		}
		assert.NotContains(t, string(b), `"cvv2"`, "an answer holds a CVV")
		return status, b
	}
	// noise posts customers whose strings have the lengths of a card's,
	// so that a card kept as a view of a body would read theirs.
	noise := func(i int) {
		t.Helper()
		status, b := post("/customers", fmt.Sprintf(`{"name":"Zzzzzzzzzz %d","last_name":"Qqqq","email":"q%d@example.com"}`, i, i))
		require.Equal(t, http.StatusOK, status, "%s", b)
	}

	// card is a card object as the answers write it.
	card := func(masked, holder, year, brand, typ, bank, bankCode string, payouts bool) string {
		wireAddress := "null"
		if address != "" {
			wireAddress = address[len(`,"address":`):]
		}
		return fmt.Sprintf(`{"type":%q,"brand":%q,"address":%s,"card_number":%q,"holder_name":%q,"expiration_year":%q,"expiration_month":"12","allows_charges":true,"allows_payouts":%t,"bank_name":%q,"bank_code":%q}`,
			typ, brand, wireAddress, masked, holder, year, payouts, bank, bankCode)
	}
	type want struct {
		orderID, amount, status, card string
	}
	var kept []want
	var ids []string
	credited := openpay.MustAmount("0")
	pay := func(number, holder, year, orderID, amount, wantCard string) {
		t.Helper()
		status, b := charge(number, holder, year, orderID, amount)
		require.Equal(t, http.StatusOK, status, "%s", b)
		a := read(b)
		require.Equal(t, "completed", a.Status)
		require.JSONEq(t, wantCard, string(a.Card), orderID)
		kept, ids = append(kept, want{orderID, amount, "completed", string(a.Card)}), append(ids, a.ID)
		credited = credited.Add(openpay.MustAmount(amount))
		noise(len(kept))
	}

	visaAna := card("411111XXXXXX1111", "Ana Perez", "30", "visa", "debit", "Banamex", "002", true)
	pay(openpaytest.CardVisa, "Ana Perez", "30", "o-1", "100.50", visaAna)

	// Declined: the failed charge keeps the declined card, and its order_id.
	status, b := charge(openpaytest.CardInsufficientFunds, "Ana Perez", "30", "o-2", "55.55")
	require.Equal(t, http.StatusPaymentRequired, status, "%s", b)
	assert.Equal(t, 3003, read(b).ErrorCode)
	noise(100)
	status, b = charge(openpaytest.CardMastercard, "Ana Perez", "30", "o-2", "55.55")
	require.Equal(t, http.StatusConflict, status, "%s", b)
	assert.Equal(t, 1006, read(b).ErrorCode, "one transaction per order_id")

	mcAna := card("555555XXXXXX4444", "Ana Perez", "30", "mastercard", "debit", "MASARI", "602", true)
	pay(openpaytest.CardMastercard, "Ana Perez", "30", "o-3", "55.55", mcAna)
	// Back to the first card: the same card object as its first charge's.
	pay(openpaytest.CardVisa, "Ana Perez", "30", "o-4", "0.05", visaAna)
	// The same number under a name of the same length, then another expiry.
	pay(openpaytest.CardVisa, "Ana Pereq", "30", "o-5", "7.10", card("411111XXXXXX1111", "Ana Pereq", "30", "visa", "debit", "Banamex", "002", true))
	pay(openpaytest.CardVisa, "Ana Pereq", "31", "o-6", "1234567.89", card("411111XXXXXX1111", "Ana Pereq", "31", "visa", "debit", "Banamex", "002", true))
	pay(openpaytest.CardVisa, "Ana Perez", "30", "o-7", "1.00", visaAna)
	// With a billing address, twice, then another one of the same lengths:
	// each charge's address is its own, kept apart from its body.
	address = `,"address":{"line1":"Av. Juarez 1","line2":"Int. 4","line3":null,"state":"Qro","city":"Queretaro","postal_code":"76000","country_code":"MX"}`
	visaHome := card("411111XXXXXX1111", "Ana Perez", "30", "visa", "debit", "Banamex", "002", true)
	pay(openpaytest.CardVisa, "Ana Perez", "30", "o-8", "2.00", visaHome)
	pay(openpaytest.CardVisa, "Ana Perez", "30", "o-9", "3.00", visaHome)
	address = strings.ReplaceAll(address, "Juarez 1", "Juarez 2")
	pay(openpaytest.CardVisa, "Ana Perez", "30", "o-10", "4.00", card("411111XXXXXX1111", "Ana Perez", "30", "visa", "debit", "Banamex", "002", true))
	address = ""
	pay(openpaytest.CardVisa, "Ana Perez", "30", "o-11", "5.00", visaAna)

	check := func(when string) {
		t.Helper()
		for i, w := range kept {
			a := read(get("/charges/" + ids[i]))
			assert.Equal(t, w.orderID, a.OrderID, when)
			assert.Equal(t, w.status, a.Status, when)
			assert.Equal(t, w.card, string(a.Card), "%s: the card of %s, byte for byte", when, w.orderID)
			var list []answer
			require.NoError(t, json.Unmarshal(get("/charges?order_id="+w.orderID), &list))
			require.Len(t, list, 1, "%s: one transaction for %s", when, w.orderID)
			assert.Equal(t, w.card, string(list[0].Card), when)
		}
		var list []answer
		require.NoError(t, json.Unmarshal(get("/charges?order_id=o-2"), &list))
		require.Len(t, list, 1, "%s: one transaction for o-2", when)
		assert.Equal(t, "failed", list[0].Status, when)
		require.JSONEq(t, card("444444XXXXXX4448", "Ana Perez", "30", "visa", "debit", "HSBC", "021", true), string(list[0].Card), when)
		assert.Equal(t, opening.Add(credited).String(), srv.Balance().String(), "%s: the books to the cent", when)
	}
	check("before the restart")
	srv.Close()
	srv, err = openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	check("after the restart")
}
