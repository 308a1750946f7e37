package openpaytest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shop keeps its customers' cards: a number already stored on a customer
// answers 2002 on that customer only, whatever other customers and the
// merchant hold; a deleted card frees its number; a restarted server (data
// directory) still knows each customer's cards; the cards charge and the
// books follow.
func TestCustomerCardsDuplicatesBySequence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, key = "mcarddup000000000001", "sk_00000000000000000000000000000038"
	srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	ctx := context.Background()
	c, err := openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	card := func(number string) openpay.CardRequest {
		return openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana", CardNumber: number, CVV2: openpaytest.CVV(number),
			ExpirationMonth: "12", ExpirationYear: "30"}, DeviceSessionID: "s1"}
	}
	code := func(err error) openpay.Code {
		t.Helper()
		var oe *openpay.Error
		require.True(t, errors.As(err, &oe), "%v", err)
		return oe.Code
	}
	newCustomer := func(c *openpay.Client, name string) string {
		cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: name + "@example.com"})
		require.NoError(t, err)
		return cu.ID
	}
	a, b := newCustomer(c, "ana"), newCustomer(c, "beto")

	// Many cards elsewhere: other customers' and the merchant's, some of
	// them of the same number.
	for range 3 {
		other := newCustomer(c, "otro")
		_, err := c.Customer(other).Cards.Create(ctx, card(openpaytest.CardVisa))
		require.NoError(t, err)
		_, err = c.Cards.Create(ctx, card(openpaytest.CardVisa))
		require.NoError(t, err, "the merchant's cards have no duplicates")
	}
	visaA, err := c.Customer(a).Cards.Create(ctx, card(openpaytest.CardVisa))
	require.NoError(t, err)
	_, err = c.Customer(b).Cards.Create(ctx, card(openpaytest.CardVisa))
	require.NoError(t, err, "another customer's same number is not a duplicate")
	_, err = c.Customer(a).Cards.Create(ctx, card(openpaytest.CardVisa))
	assert.Equal(t, openpay.ErrCardExists, code(err), "the customer's own duplicate")
	_, err = c.Customer(a).Cards.Create(ctx, card(openpaytest.CardMastercard))
	require.NoError(t, err, "another number on the same customer")

	// A charge to the stored card; the books follow.
	before := srv.Balance()
	ch, err := c.Customer(a).Charges.Create(ctx, openpay.CardCharge{SourceID: visaA.ID, Amount: openpay.MustAmount("150"),
		Description: "Pedido 1", OrderID: "dup-o-1", DeviceSessionID: "s1"})
	require.NoError(t, err)
	require.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	assert.Equal(t, before.Add(ch.Amount).String(), srv.Balance().String(), "the sandbox books a card charge whole")
	// Sent again (a retry), the order is not charged twice.
	same, err := c.Customer(a).Charges.Create(ctx, openpay.CardCharge{SourceID: visaA.ID, Amount: openpay.MustAmount("150"),
		Description: "Pedido 1", OrderID: "dup-o-1", DeviceSessionID: "s1"})
	if err == nil {
		assert.Equal(t, ch.ID, same.ID)
	}
	assert.Equal(t, before.Add(ch.Amount).String(), srv.Balance().String())
	charges, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: "dup-o-1"})
	require.NoError(t, err)
	assert.Len(t, charges, 1)

	// Deleting frees the number on that customer; the deleted card charges
	// no more.
	require.NoError(t, c.Customer(a).Cards.Delete(ctx, visaA.ID))
	_, err = c.Customer(a).Charges.Create(ctx, openpay.CardCharge{SourceID: visaA.ID, Amount: openpay.MustAmount("10"),
		Description: "Pedido 2", OrderID: "dup-o-2", DeviceSessionID: "s1"})
	assert.Equal(t, openpay.ErrNotFound, code(err))
	again, err := c.Customer(a).Cards.Create(ctx, card(openpaytest.CardVisa))
	require.NoError(t, err, "a deleted card's number can be stored again")
	assert.NotEqual(t, visaA.ID, again.ID)
	_, err = c.Customer(a).Cards.Create(ctx, card(openpaytest.CardVisa))
	assert.Equal(t, openpay.ErrCardExists, code(err), "the card stored again is a duplicate in turn")
	balance := srv.Balance()
	srv.Close()

	// The restarted server knows each customer's cards.
	srv = openpaytest.NewServer(t, openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	c, err = openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	assert.Equal(t, balance.String(), srv.Balance().String())
	_, err = c.Customer(a).Cards.Create(ctx, card(openpaytest.CardVisa))
	assert.Equal(t, openpay.ErrCardExists, code(err), "after a restart")
	_, err = c.Customer(b).Cards.Create(ctx, card(openpaytest.CardVisa))
	assert.Equal(t, openpay.ErrCardExists, code(err), "after a restart")
	_, err = c.Customer(b).Cards.Create(ctx, card(openpaytest.CardMastercard))
	require.NoError(t, err)
	_, err = c.Customer(newCustomer(c, "nueva")).Cards.Create(ctx, card(openpaytest.CardVisa))
	require.NoError(t, err, "a customer made after the restart")
	ch, err = c.Customer(a).Charges.Create(ctx, openpay.CardCharge{SourceID: again.ID, Amount: openpay.MustAmount("20"),
		Description: "Pedido 3", OrderID: "dup-o-3", DeviceSessionID: "s1"})
	require.NoError(t, err)
	assert.Equal(t, balance.Add(ch.Amount).String(), srv.Balance().String())
}
