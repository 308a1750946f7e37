package openpaytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shop charges stored cards and card data in every form its clients
// write amounts in, retries an order after a decline, sends a payer
// through 3-D Secure while other charges go on, and restarts on its data
// directory. What each charge was sent (its order_id, description,
// amount, the card's holder and billing address, the payer's return
// address) reads back exactly, from the answer, GET, the list by order_id
// and the books, after the many requests that followed it and after the
// restart; each order_id has one transaction.
func TestChargesKeepWhatTheyWereSentAcrossRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, key = "mkeptstrings00000001", "sk_00000000000000000000000000000044"
	srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	defer func() { srv.Close() }()
	ctx := context.Background()
	c, err := openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	opening := srv.Balance()

	address := &openpay.Address{Line1: "Av. Juárez 1", Line2: "Int. 4", City: "Querétaro", State: "Qro", PostalCode: "76000", CountryCode: "MX"}
	cardData := func(number, holder string) openpay.CardDetails {
		return openpay.CardDetails{HolderName: holder, CardNumber: number, CVV2: openpaytest.CVV(number),
			ExpirationMonth: "12", ExpirationYear: "30", Address: address}
	}
	saved, err := c.Cards.Create(ctx, openpay.CardRequest{Card: cardData(openpaytest.CardVisa, "Ana Saved")})
	require.NoError(t, err)

	// raw posts a charge as a client that writes amounts its own way.
	raw := func(body string) (int, map[string]any) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/"+id+"/charges", bytes.NewBufferString(body))
		require.NoError(t, err)
		req.SetBasicAuth(key, "")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", payerIP)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var o map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&o))
		return res.StatusCode, o
	}

	type sent struct{ orderID, description, amount, holder string }
	var kept []sent
	var answers []*openpay.Transaction
	credited := openpay.MustAmount("0")
	keep := func(ch *openpay.Transaction, err error, s sent) {
		t.Helper()
		require.NoError(t, err, s.orderID)
		require.Equal(t, openpay.TransactionStatusCompleted, ch.Status, s.orderID)
		kept, answers = append(kept, s), append(answers, ch)
		credited = credited.Add(openpay.MustAmount(s.amount))
	}
	for i, amount := range []string{"100.50", "0.05", "7.10", "1234567.89"} {
		s := sent{fmt.Sprintf("stored-%d", i), fmt.Sprintf("Pedido ñ %d", i), amount, "Ana Saved"}
		ch, err := c.Charges.Create(ctx, openpay.CardCharge{SourceID: saved.ID, Amount: openpay.MustAmount(amount),
			Description: s.description, OrderID: s.orderID, DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"})
		keep(ch, err, s)
		s = sent{fmt.Sprintf("inline-%d", i), fmt.Sprintf("Pedido en línea %d", i), amount, fmt.Sprintf("Beto %d", i)}
		ch, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Card: cardData(openpaytest.CardMastercard, s.holder),
			Amount: openpay.MustAmount(amount), Description: s.description, OrderID: s.orderID})
		keep(ch, err, s)
	}
	// Amounts as other clients write them: a whole number, one decimal,
	// a number string, a tenth.
	for i, amount := range []struct{ wire, value string }{{`7`, "7.00"}, {`12.5`, "12.50"}, {`"33.33"`, "33.33"}, {`0.10`, "0.10"}} {
		s := sent{fmt.Sprintf("raw-%d", i), fmt.Sprintf("Pedido crudo %d", i), amount.value, "Ana Saved"}
		status, o := raw(fmt.Sprintf(`{"method":"card","source_id":%q,"amount":%s,"description":%q,"order_id":%q}`,
			saved.ID, amount.wire, s.description, s.orderID))
		require.Equal(t, http.StatusOK, status, o)
		got, err := c.Charges.Get(ctx, o["id"].(string))
		keep(got, err, s)
	}

	// A declined card keeps its order_id; the payer's second card for the
	// same order is refused, a new order with it goes through.
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Card: cardData(openpaytest.CardInsufficientFunds, "Caro"),
		Amount: openpay.MustAmount("55.55"), Description: "declined", OrderID: "retry-1"})
	require.True(t, errors.Is(err, openpay.ErrCardInsufficientFunds), "%v", err)
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Card: cardData(openpaytest.CardVisa, "Caro"),
		Amount: openpay.MustAmount("55.55"), Description: "second card", OrderID: "retry-1"})
	require.True(t, errors.Is(err, openpay.ErrDuplicateOrderID), "%v", err)
	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: cardData(openpaytest.CardVisa, "Caro"),
		Amount: openpay.MustAmount("55.55"), Description: "second card", OrderID: "retry-2"})
	keep(ch, err, sent{"retry-2", "second card", "55.55", "Caro"})

	// A payer sent through 3-D Secure comes back to the shop's address
	// once many other charges have been made.
	back := "https://tienda.example/vuelta/pedido-3ds?lang=es"
	pending, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: cardData(openpaytest.Card3DSecure, "Dora"),
		Amount: openpay.MustAmount("99.99"), Description: "3ds", OrderID: "3ds-1", RedirectURL: back})
	require.NoError(t, err)
	require.Equal(t, openpay.TransactionStatusChargePending, pending.Status)
	for i := range 20 {
		s := sent{fmt.Sprintf("after-%d", i), fmt.Sprintf("Después %d", i), "1.00", fmt.Sprintf("Eva %d", i)}
		ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: cardData(openpaytest.CardVisaCredit, s.holder),
			Amount: openpay.MustAmount(s.amount), Description: s.description, OrderID: s.orderID})
		keep(ch, err, s)
	}
	location := approveOnPage(t, pending.PaymentMethod.URL)
	assert.Equal(t, back+"&id="+pending.ID, location, "the payer returns to the address the charge was sent")
	ch, err = c.Charges.Get(ctx, pending.ID)
	keep(ch, err, sent{"3ds-1", "3ds", "99.99", "Dora"})
	answers[len(answers)-1] = ch

	check := func(when string) {
		t.Helper()
		for i, s := range kept {
			got, err := c.Charges.Get(ctx, answers[i].ID)
			require.NoError(t, err, when)
			assert.Equal(t, s.orderID, got.OrderID, when)
			assert.Equal(t, s.description, got.Description, when)
			assert.Equal(t, s.amount, got.Amount.String(), "%s %s", when, s.orderID)
			require.NotNil(t, got.Card, when)
			assert.Equal(t, s.holder, got.Card.HolderName, "%s %s", when, s.orderID)
			assert.Equal(t, address, got.Card.Address, "%s %s", when, s.orderID)
			assert.Equal(t, answers[i].Card, got.Card, "%s %s", when, s.orderID)
			byOrder, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: s.orderID})
			require.NoError(t, err, when)
			require.Len(t, byOrder, 1, "%s: one transaction for %s", when, s.orderID)
			assert.Equal(t, got.ID, byOrder[0].ID, when)
		}
		byOrder, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: "retry-1"})
		require.NoError(t, err, when)
		require.Len(t, byOrder, 1, when)
		assert.Equal(t, openpay.TransactionStatusFailed, byOrder[0].Status, when)
		assert.Equal(t, opening.Add(credited).String(), srv.Balance().String(), "%s: the books to the cent", when)
	}
	check("before the restart")
	srv.Close()
	srv, err = openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	c, err = openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	check("after the restart")
}

var pageTokenRE = regexp.MustCompile(`name="token" value="([^"]+)"`)

// approveOnPage authenticates a 3-D Secure charge on its page as the payer
// would and returns where the page sends the payer.
func approveOnPage(t *testing.T, pageURL string) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(pageURL)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	m := pageTokenRE.FindSubmatch(body)
	require.NotNil(t, m, "a form token on %s", pageURL)
	res, err = client.PostForm(pageURL, url.Values{"token": {string(m[1])}, "action": {"approve"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	return res.Header.Get("Location")
}
