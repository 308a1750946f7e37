package openpay_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SDK against faults the reference server injects (openpaytest's
// InjectFault): the real server, the real transport, no proxy.

// faultClient is a client of srv that retries quickly.
func faultClient(t *testing.T, srv *openpaytest.Server) *openpay.Client {
	t.Helper()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"),
		openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond}))
	require.NoError(t, err)
	return c
}

// merchantCharges lists every charge of the merchant.
func merchantCharges(t *testing.T, c *openpay.Client) []*openpay.Transaction {
	t.Helper()
	var out []*openpay.Transaction
	for tx, err := range c.Charges.List(context.Background(), nil) {
		require.NoError(t, err)
		out = append(out, tx)
	}
	return out
}

// A 503 (1004) on a charge with an order_id (which makes the charge safe
// to repeat) is retried, and the retry makes the one charge.
func TestInjectedUnavailableIsRetried(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	c := faultClient(t, srv)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrServiceUnavailable}))
	var info openpay.ResponseInfo
	tx, err := c.Charges.Create(context.Background(), openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("40.00"), Description: "after 503",
		OrderID: "retry-1"}, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.Equal(t, 2, info.Attempts)
	assert.False(t, info.Reconciled, "a 503 says nothing was done: the retry's answer is the result")
	assert.Equal(t, openpay.TransactionStatusCompleted, tx.Status)
	assert.Empty(t, srv.Faults(), "the fault took the first attempt")
	charges := merchantCharges(t, c)
	require.Len(t, charges, 1)
	assert.Equal(t, tx.ID, charges[0].ID)
}

// The answer of a charge with an order_id is lost after the server made
// it: the SDK finds it by order_id and returns it; the merchant has exactly
// that one charge.
func TestInjectedLostAnswerIsReconciled(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	c := faultClient(t, srv)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/" + srv.MerchantID + "/charges", Drop: openpaytest.DropAfter}))
	var info openpay.ResponseInfo
	tx, err := c.Charges.Create(context.Background(), openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("250.00"),
		Description: "lost answer", OrderID: "lost-1"}, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.True(t, info.Reconciled, "the result is the charge found by order_id")
	assert.Equal(t, 2, info.Attempts, "the lost answer, then the retry that met 1006")
	assert.Equal(t, "lost-1", tx.OrderID)
	assert.Empty(t, srv.Faults())
	charges := merchantCharges(t, c)
	require.Len(t, charges, 1, "no double charge")
	assert.Equal(t, charges[0].ID, tx.ID)
	assert.Equal(t, "250.00", srv.Balance().String())
}

// A refused payout (1007) is the SDK's typed error with that code.
func TestInjectedPayoutRefusal(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithMerchantBalance(openpay.MustAmount("1000")))
	c := faultClient(t, srv)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/payouts", ErrorCode: openpay.ErrFundsTransferRejected}))
	_, err := c.Payouts.Create(context.Background(), openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{
		CLABE: "032180000118359719", HolderName: "Proveedor"}, Amount: openpay.MustAmount("100"), Description: "refused"})
	require.Error(t, err)
	assert.ErrorIs(t, err, openpay.ErrFundsTransferRejected)
	assert.ErrorIs(t, err, openpay.CategoryGateway)
	var oe *openpay.Error
	require.True(t, errors.As(err, &oe))
	assert.Equal(t, 402, oe.HTTPStatus)
	assert.Equal(t, "1000.00", srv.Balance().String(), "nothing was paid out")
}
