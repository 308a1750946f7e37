package openpay_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A failed transaction carries its code: a 3001 decline found again by
// GetByOrderID, and a stored card gone past its expiry month declining
// with 3002, each read back with ErrorCode set, so that dunning rules read
// a code, not English.
func TestFailedTransactionCarriesItsErrorCode(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	cust, declined := k.subscriber(t, openpaytest.EmulatorCardDeclined)
	cc := k.c.Customer(cust.ID)
	_, err := cc.Charges.Create(ctx, openpay.CardCharge{SourceID: declined.ID, Amount: openpay.MustAmount("80.00"),
		Description: "Order 1", OrderID: "order-1", DeviceSessionID: "s"})
	require.ErrorIs(t, err, openpay.ErrCardDeclined)
	tx, err := cc.Charges.GetByOrderID(ctx, "order-1")
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusFailed, tx.Status)
	assert.Equal(t, openpay.ErrCardDeclined, tx.ErrorCode)

	// A card valid through this month declines next month with 3002.
	now := k.srv.Now()
	req := cardRequest(openpaytest.CardVisa)
	req.Card.ExpirationMonth, req.Card.ExpirationYear = now.Format("01"), now.Format("06")
	card, err := cc.Cards.Create(ctx, req)
	require.NoError(t, err)
	_, err = k.srv.AdvanceClock(32 * 24 * time.Hour)
	require.NoError(t, err)
	_, err = cc.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("80.00"),
		Description: "Order 2", OrderID: "order-2", DeviceSessionID: "s"})
	require.ErrorIs(t, err, openpay.ErrCardExpired)
	tx, err = cc.Charges.GetByOrderID(ctx, "order-2")
	require.NoError(t, err)
	assert.Equal(t, openpay.ErrCardExpired, tx.ErrorCode)
	assert.Equal(t, "The card has expired", tx.ErrorMessage)
}

// An answer without error_code (an older gateway answer, a recorded body)
// still gives a failed transaction its code, read from its error_message;
// a transaction that did not fail has none.
func TestTransactionErrorCodeFilledFromTheMessage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		want openpay.Code
	}{
		{`{"id":"t1","status":"failed","method":"card","error_message":"The card doesn't have sufficient funds"}`, openpay.ErrCardInsufficientFunds},
		{`{"id":"t2","status":"failed","method":"card","error_message":"The card was reported as stolen."}`, openpay.ErrCardStolen},
		{`{"id":"t3","status":"failed","method":"card","error_message":"Something new"}`, openpay.ErrCardDeclined},
		{`{"id":"t4","status":"failed","method":"bank_account","error_message":"The receiving bank rejected the transfer"}`, openpay.ErrFundsTransferRejected},
		{`{"id":"t5","status":"failed","method":"card","error_code":3004,"error_message":"The card doesn't have sufficient funds"}`, openpay.ErrCardStolen},
		{`{"id":"t6","status":"completed","method":"card"}`, 0},
	} {
		var tx openpay.Transaction
		require.NoError(t, json.Unmarshal([]byte(c.body), &tx))
		assert.Equal(t, c.want, tx.ErrorCode, c.body)
		var ev openpay.WebhookEvent
		require.NoError(t, json.Unmarshal([]byte(`{"type":"charge.failed","transaction":`+c.body+`}`), &ev))
		assert.Equal(t, c.want, ev.Transaction.ErrorCode, "in an event too: "+c.body)
	}
}
