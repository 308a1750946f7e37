package openpay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// TestPaymentInstructionsOfPendingCharges: a shop takes an order paid in
// cash at a store and one paid by SPEI transfer, shows each payer the
// instructions the gateway answered (read as PaymentInstructions, by the
// gateway's payment_method member), and books each order once when the
// payer pays.
func TestPaymentInstructionsOfPendingCharges(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	c, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"))
	require.NoError(t, err)
	ctx := context.Background()
	require.True(t, srv.Balance().IsZero(), "a new merchant starts at zero")

	// The store order: a reference and its barcode for the payer.
	store, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("150"), Description: "Order S-1", OrderID: "S-1"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusInProgress, store.Status)
	var storeWay *openpay.PaymentInstructions = store.PaymentMethod
	require.NotNil(t, storeWay, "a store charge answers with instructions for the payer")
	assert.Equal(t, openpay.PaymentInstructionsTypeStore, storeWay.Type)
	assert.True(t, storeWay.Type.Valid())
	assert.NotEmpty(t, storeWay.Reference)
	assert.Contains(t, storeWay.BarcodeURL, storeWay.Reference, "the barcode encodes the reference")
	assert.Empty(t, storeWay.CLABE, "a store payment has no account to transfer to")
	assert.Empty(t, storeWay.URL)

	// The SPEI order: an account (CLABE), its bank and the reference to quote.
	bank, err := c.Charges.Create(ctx, openpay.BankCharge{Amount: openpay.MustAmount("2400.50"), Description: "Order B-1", OrderID: "B-1"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusInProgress, bank.Status)
	var bankWay *openpay.PaymentInstructions = bank.PaymentMethod
	require.NotNil(t, bankWay)
	assert.Equal(t, openpay.PaymentInstructionsTypeBankTransfer, bankWay.Type)
	assert.Regexp(t, regexp.MustCompile(`^\d{18}$`), bankWay.CLABE)
	assert.NotEmpty(t, bankWay.Bank)
	assert.NotEmpty(t, bankWay.Name)
	assert.NotEmpty(t, bankWay.Agreement)
	assert.Empty(t, bankWay.Reference, "a transfer has no store reference")

	// The shop shows the instructions again later, from the order id.
	again, err := c.Charges.GetByOrderID(ctx, "B-1")
	require.NoError(t, err)
	require.NotNil(t, again.PaymentMethod)
	assert.Equal(t, *bankWay, *again.PaymentMethod)

	// The wire form keeps the gateway's member name.
	raw, err := json.Marshal(store)
	require.NoError(t, err)
	var wire map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &wire))
	require.Contains(t, wire, "payment_method")
	var member map[string]any
	require.NoError(t, json.Unmarshal(wire["payment_method"], &member))
	assert.Equal(t, "store", member["type"])
	assert.Equal(t, storeWay.Reference, member["reference"])

	// Nothing is booked until the payers pay; then each order once.
	assert.True(t, srv.Balance().IsZero(), "pending charges are not money yet")
	paid, err := srv.PayCharge(store.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, paid.Status)
	paid, err = srv.PayCharge(bank.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, paid.Status)
	assert.Equal(t, "2550.50", srv.Balance().String())
	for _, order := range []string{"S-1", "B-1"} {
		page, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: order})
		require.NoError(t, err)
		require.Len(t, page, 1, "one transaction for order %s", order)
		assert.Equal(t, openpay.TransactionStatusCompleted, page[0].Status)
	}
}

// TestWebhooksListGivesPointers: a merchant registers two webhooks, one at a
// receiver that answers and one at a URL that does not, and reads them back
// from Webhooks.List as the same *Webhook that Create and Get return.
func TestWebhooksListGivesPointers(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	c, err := srv.Client()
	require.NoError(t, err)
	ctx := context.Background()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(receiver.Close)

	answering, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: receiver.URL, User: "hook-user", Password: "hook-secret",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
	require.NoError(t, err)
	silent, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: "http://127.0.0.1:1/hooks",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeRefunded, openpay.EventTypePayoutSucceeded}})
	require.NoError(t, err)

	var hooks []*openpay.Webhook
	hooks, err = c.Webhooks.List(ctx)
	require.NoError(t, err)
	require.Len(t, hooks, 2)
	byID := map[string]*openpay.Webhook{}
	for _, h := range hooks {
		require.NotNil(t, h)
		byID[h.ID] = h
	}
	require.Contains(t, byID, answering.ID)
	require.Contains(t, byID, silent.ID)

	a := byID[answering.ID]
	assert.Equal(t, receiver.URL, a.URL)
	assert.Equal(t, "hook-user", a.User)
	assert.Equal(t, openpay.WebhookStatusVerified, a.Status, "the receiver answered the verification event")
	assert.Equal(t, []openpay.EventType{openpay.EventTypeChargeSucceeded}, a.EventTypes)

	s := byID[silent.ID]
	assert.Equal(t, "http://127.0.0.1:1/hooks", s.URL)
	assert.Empty(t, s.User)
	assert.Equal(t, openpay.WebhookStatusUnverified, s.Status, "nothing answered its verification event")
	assert.ElementsMatch(t, []openpay.EventType{openpay.EventTypeChargeRefunded, openpay.EventTypePayoutSucceeded}, s.EventTypes)

	for _, h := range hooks {
		got, err := c.Webhooks.Get(ctx, h.ID)
		require.NoError(t, err)
		assert.Equal(t, got, h, "List and Get give the same webhook")
	}

	require.NoError(t, c.Webhooks.Delete(ctx, silent.ID))
	hooks, err = c.Webhooks.List(ctx)
	require.NoError(t, err)
	require.Len(t, hooks, 1)
	assert.Equal(t, answering.ID, hooks[0].ID)
}
