package openpaytest_test

import (
	"context"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Answers lost after the server acted, on the paths whose request bodies
// are read into storage the server lends each request and takes back
// (the charge's card data, a transfer's members): the SDK settles each
// lost answer by its order_id, a payer's retry with another card under
// that order_id is refused with 1006, the requests after a dropped
// connection read their own members, never the dropped one's, a recovery
// job's re-send of the lost transfer is settled without moving money
// again, and the books hold one transaction per order_id, to the cent.
func TestLostAnswersLeaveOneTransactionPerOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t)
	c, err := srv.Client(openpay.WithDefaultClientIP(payerIP), openpay.WithRetryPolicy(openpay.RetryPolicy{}))
	require.NoError(t, err)

	// A charge with card data: the answer is lost, the charge was made.
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", Count: 1, Drop: openpaytest.DropAfter}))
	var info openpay.ResponseInfo
	lost, err := c.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "100.50", "o-lost"), openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.True(t, info.Reconciled, "the answer was lost and the SDK's lookup found the charge")
	require.NotNil(t, lost.Card)
	assert.Equal(t, "411111XXXXXX1111", lost.Card.CardNumber)
	assert.Equal(t, "Ana", lost.Card.HolderName)

	// The payer tries again with another card under the same order.
	again := visaCharge(openpaytest.CardMastercard, "100.50", "o-lost")
	again.Card.HolderName = "Beatriz Ana"
	_, err = c.Charges.Create(ctx, again)
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)

	// The next charge, on a new connection, carries its own card.
	next := visaCharge(openpaytest.CardMastercard, "7.25", "o-next")
	next.Card.HolderName = "Carmen"
	ch, err := c.Charges.Create(ctx, next)
	require.NoError(t, err)
	assert.Equal(t, "555555XXXXXX4444", ch.Card.CardNumber)
	assert.Equal(t, "Carmen", ch.Card.HolderName)
	got, err := c.Charges.GetByOrderID(ctx, "o-lost")
	require.NoError(t, err)
	assert.Equal(t, lost.ID, got.ID)
	assert.Equal(t, "Ana", got.Card.HolderName, "the first card, as charged")

	// A transfer: the answer is lost, the money moved once.
	from, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Paga", Email: "paga@example.com", RequiresAccount: true})
	require.NoError(t, err)
	to, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Cobra", Email: "cobra@example.com", RequiresAccount: true})
	require.NoError(t, err)
	_, err = srv.ReceiveSPEI(from.ID, openpay.MustAmount("500"))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers/{customer_id}/transfers",
		Count: 1, Drop: openpaytest.DropAfter}))
	req := openpay.TransferRequest{CustomerID: to.ID, Amount: openpay.MustAmount("120.25"), Description: "Renta", OrderID: "t-lost"}
	tr, err := c.Customer(from.ID).Transfers.Create(ctx, req, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.True(t, info.Reconciled)
	assert.Equal(t, "t-lost", tr.OrderID)
	// The merchant's recovery job re-sends it with its order_id: the SDK
	// answers the transfer made, and nothing moves again.
	resent, err := c.Customer(from.ID).Transfers.Create(ctx, req, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.Equal(t, tr.ID, resent.ID)
	assert.True(t, info.Reconciled, "settled by its order_id, not made again")

	// The books.
	assert.Empty(t, srv.Faults())
	assert.Equal(t, "107.75", srv.Balance().String(), "two charges, each once")
	paid, ok := srv.CustomerBalance(from.ID)
	require.True(t, ok)
	assert.Equal(t, "379.75", paid.String())
	received, ok := srv.CustomerBalance(to.ID)
	require.True(t, ok)
	assert.Equal(t, "120.25", received.String())
	orders := map[string]int{}
	for tx, err := range c.Charges.List(ctx, nil) {
		require.NoError(t, err)
		orders[string(tx.Method)+" "+tx.OrderID]++
	}
	assert.Equal(t, map[string]int{"card o-lost": 1, "card o-next": 1, "bank_account ": 1}, orders, "the SPEI receipt besides")
}
