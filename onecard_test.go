package openpay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One type for a card's data: the payer's card, as one CardDetails value,
// is tokenized, stored (CardRequest.Card) and charged inline; the token's
// card and the stored card read back as the one response type Card. The
// books hold one charge per order_id and the balance their sum, and no
// printing, logging or encoding of these values shows the number or the
// security code.
func TestOneCardTypeTokenStoreCharge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := newContract(t)
	const number, cvv = openpaytest.CardVisa, "739"
	card := openpay.CardDetails{HolderName: "Ana López", CardNumber: number, CVV2: cvv,
		ExpirationMonth: "12", ExpirationYear: futureYear(),
		Address: &openpay.Address{Line1: "Av 5 de Febrero", City: "Querétaro", State: "Querétaro", PostalCode: "76900", CountryCode: "MX"}}
	before := k.srv.Balance()

	// The payer's device tokenizes the card with the public key.
	tok, err := k.public.Tokens.Create(ctx, card)
	require.NoError(t, err)
	// A stored card and a token's card are read the same way.
	sameCard := func(what string, c *openpay.Card) {
		t.Helper()
		require.NotNil(t, c, what)
		assert.Equal(t, "411111XXXXXX1111", c.CardNumber, what)
		assert.Equal(t, "Ana López", c.HolderName, what)
		assert.Equal(t, "12", c.ExpirationMonth, what)
		assert.Equal(t, card.ExpirationYear, c.ExpirationYear, what)
		assert.Equal(t, openpay.CardBrand("visa"), c.Brand, what)
		if assert.NotNil(t, c.Address, what) {
			assert.Equal(t, "76900", c.Address.PostalCode, what)
		}
	}
	sameCard("the new token's card", &tok.Card)
	assert.False(t, tok.Card.CreationDate.IsZero(), "a token's card has its creation date")
	assert.Empty(t, tok.Card.ID, "a token's card is no stored card")
	got, err := k.c.Tokens.Get(ctx, tok.ID)
	require.NoError(t, err)
	sameCard("the token read back", &got.Card)

	// The server stores the same card for a customer.
	cust, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	stored, err := k.c.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: card, DeviceSessionID: "sess-onecard"})
	require.NoError(t, err)
	sameCard("the stored card", stored)
	assert.NotEmpty(t, stored.ID)
	assert.Equal(t, cust.ID, stored.CustomerID)
	assert.True(t, stored.AllowsCharges, "a stored card says what it allows")

	// The same value pays inline; the token pays a second order; the stored
	// card a third.
	inline, err := k.c.Customer(cust.ID).Charges.Create(ctx, openpay.InlineCardCharge{Card: card,
		Amount: openpay.MustAmount("100.00"), Description: "Order 1", OrderID: "onecard-1", DeviceSessionID: "sess-onecard"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, inline.Status)
	sameCard("the inline charge's card", inline.Card)
	byToken, err := k.c.Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: tok.ID,
		Amount: openpay.MustAmount("50.00"), Description: "Order 2", OrderID: "onecard-2", DeviceSessionID: "sess-onecard"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, byToken.Status)
	sameCard("the token charge's card", byToken.Card)
	byStored, err := k.c.Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: stored.ID, CVV2: cvv,
		Amount: openpay.MustAmount("25.50"), Description: "Order 3", OrderID: "onecard-3", DeviceSessionID: "sess-onecard"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, byStored.Status)

	// The books: one charge per order_id, and the balance grew by their sum.
	orders := map[string]int{}
	for tx, err := range k.c.Charges.List(ctx, nil) {
		require.NoError(t, err)
		orders[tx.OrderID]++
	}
	assert.Equal(t, map[string]int{"onecard-1": 1, "onecard-2": 1, "onecard-3": 1}, orders)
	for order, id := range map[string]string{"onecard-1": inline.ID, "onecard-2": byToken.ID, "onecard-3": byStored.ID} {
		tx, err := k.c.Charges.GetByOrderID(ctx, order)
		require.NoError(t, err)
		assert.Equal(t, id, tx.ID, order)
	}
	assert.Equal(t, before.Add(openpay.MustAmount("175.50")).String(), k.srv.Balance().String())

	// A card refused by the gateway: its error does not quote the card.
	expired := card
	expired.ExpirationYear = "20"
	_, err = k.public.Tokens.Create(ctx, expired)
	require.ErrorIs(t, err, openpay.ErrCardExpirationPast)
	_, err = k.c.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: expired})
	require.ErrorIs(t, err, openpay.ErrCardExpirationPast)

	// Every value that held the card, printed, logged and encoded.
	shown := []any{card, &card, openpay.CardRequest{Card: card, DeviceSessionID: "sess-onecard"},
		openpay.InlineCardCharge{Card: card, Amount: openpay.MustAmount("100.00"), Description: "Order 1"},
		openpay.SubscriptionRequest{PlanID: "p1", Card: &card}, err}
	for _, v := range shown {
		var out bytes.Buffer
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			fmt.Fprintf(&out, verb+"\n", v)
		}
		if _, isErr := v.(error); !isErr {
			b, err := json.Marshal(v)
			require.NoError(t, err)
			out.Write(b)
			assert.Contains(t, string(b), "****1111", "%T: the card is shown, masked", v)
		}
		slog.New(slog.NewTextHandler(&out, nil)).Info("card", "v", v)
		slog.New(slog.NewJSONHandler(&out, nil)).Info("card", "v", v)
		assert.NotContains(t, out.String(), number, "%T", v)
		assert.NotContains(t, out.String(), number[:12], "%T", v)
		assert.NotContains(t, out.String(), `"`+cvv+`"`, "%T", v)
		assert.NotContains(t, out.String(), ":"+cvv, "%T", v)
	}
	// The stored card request is encoded in the gateway's flat form, masked.
	b, err := json.Marshal(openpay.CardRequest{Card: card, DeviceSessionID: "sess-onecard"})
	require.NoError(t, err)
	var flat map[string]any
	require.NoError(t, json.Unmarshal(b, &flat))
	assert.Equal(t, "****1111", flat["card_number"])
	assert.Equal(t, "***", flat["cvv2"])
	assert.Equal(t, "sess-onecard", flat["device_session_id"])
	assert.NotContains(t, flat, "card", "the card's members sit beside device_session_id")
	// and the same flat form reads back into the Go shape.
	var read openpay.CardRequest
	require.NoError(t, json.Unmarshal([]byte(`{"holder_name":"Ana López","card_number":"4111111111111111","cvv2":"739",
		"expiration_month":"12","expiration_year":"30","device_session_id":"sess-onecard","address":{"line1":"Av 5","city":"Qro"}}`), &read))
	assert.Equal(t, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana López", CardNumber: number, CVV2: cvv,
		ExpirationMonth: "12", ExpirationYear: "30", Address: &openpay.Address{Line1: "Av 5", City: "Qro"}},
		DeviceSessionID: "sess-onecard"}, read)
}
