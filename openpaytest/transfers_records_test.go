package openpaytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A marketplace keeps its books in a data directory: a seller is paid by
// transfer, charged a commission (a fee) and withdraws (a payout). Every
// record reads back with the fields the gateway gives it (type, method,
// operation type, currency, status, amount, both dates, order_id and
// description), both sides of the transfer and the events agree with the
// answers, the balances hold to the cent, and all of it reads back the same
// from a server started again on the directory, where the transfer's
// order_id stays taken.
func TestTransferFeeAndPayoutRecordsReadBackAfterARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, key = "mdatadir000000000044", "sk_00000000000000000000000000000044"
	srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""), openpaytest.Deterministic())
	require.NoError(t, err)
	ctx := context.Background()
	c, err := openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	newSeller := func(name string) *openpay.Customer {
		cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: name + "@example.com", RequiresAccount: true})
		require.NoError(t, err)
		return cu
	}
	buyer, seller := newSeller("dora"), newSeller("elias")
	_, err = srv.ReceiveSPEI(buyer.ID, openpay.MustAmount("250.00"))
	require.NoError(t, err)

	out, err := c.Customer(buyer.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: seller.ID,
		Amount: openpay.MustAmount("123.45"), Description: "pedido 77", OrderID: "tr-77"})
	require.NoError(t, err)
	// What the gateway's create example shows of a transfer.
	assert.Equal(t, openpay.TransactionTypeTransfer, out.TransactionType)
	assert.Equal(t, openpay.TransactionMethodCustomer, out.Method)
	assert.Equal(t, openpay.OperationTypeOut, out.OperationType)
	assert.Equal(t, openpay.TransactionStatusCompleted, out.Status)
	assert.Equal(t, openpay.CurrencyMXN, out.Currency)
	assert.Equal(t, "123.45", out.Amount.String())
	assert.Equal(t, "pedido 77", out.Description)
	assert.Equal(t, "tr-77", out.OrderID)
	assert.Equal(t, buyer.ID, out.CustomerID)
	assert.False(t, out.CreationDate.IsZero())
	assert.True(t, out.CreationDate.Equal(out.OperationDate), "%v %v", out.CreationDate, out.OperationDate)
	assert.Regexp(t, `^tr[a-z0-9]{18}$`, out.ID)
	assert.Nil(t, out.Fee)
	assert.Nil(t, out.ExchangeRate)
	require.NotNil(t, out.Store)
	assert.Equal(t, buyer.CLABE, out.CLABE)

	// The receiving side: the same transaction but for its customer, its
	// operation type and the order_id, which only the paying side holds.
	in, err := c.Customer(seller.ID).Transfers.Get(ctx, out.ID)
	require.NoError(t, err)
	wantIn := *out
	wantIn.CustomerID, wantIn.OperationType, wantIn.OrderID = seller.ID, openpay.OperationTypeIn, ""
	wantIn.Store, wantIn.CLABE = nil, ""
	assert.Equal(t, asJSON(t, &wantIn), asJSON(t, in))
	paying, err := c.Customer(buyer.ID).Transfers.Get(ctx, out.ID)
	require.NoError(t, err)
	wantOut := *out
	wantOut.Store, wantOut.CLABE = nil, ""
	assert.Equal(t, asJSON(t, &wantOut), asJSON(t, paying))

	// A commission and a withdrawal from the seller's balance.
	fee, err := c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: seller.ID, Amount: openpay.MustAmount("3.46"), Description: "comision", OrderID: "fee-77"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionTypeFee, fee.TransactionType)
	assert.Equal(t, openpay.TransactionMethodCustomer, fee.Method)
	assert.Equal(t, openpay.OperationTypeOut, fee.OperationType)
	assert.Equal(t, openpay.CurrencyMXN, fee.Currency)
	assert.Equal(t, openpay.TransactionStatusCompleted, fee.Status)
	assert.Equal(t, "3.46", fee.Amount.String())
	assert.True(t, fee.CreationDate.Equal(fee.OperationDate))
	acct, err := c.Customer(seller.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Elias", CLABE: "032180000118359719"})
	require.NoError(t, err)
	payout, err := c.Customer(seller.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: acct.ID,
		Amount: openpay.MustAmount("100.01"), Description: "retiro", OrderID: "po-77"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionTypePayout, payout.TransactionType)
	assert.Equal(t, openpay.TransactionMethodBankAccount, payout.Method)
	assert.Equal(t, openpay.OperationTypeOut, payout.OperationType)
	assert.Equal(t, openpay.CurrencyMXN, payout.Currency)
	assert.Equal(t, openpay.TransactionStatusInProgress, payout.Status)
	assert.Equal(t, "100.01", payout.Amount.String())
	assert.Equal(t, "po-77", payout.OrderID)

	books := func(s *openpaytest.Server) (string, string) {
		b, ok := s.CustomerBalance(buyer.ID)
		require.True(t, ok)
		sb, ok := s.CustomerBalance(seller.ID)
		require.True(t, ok)
		return b.String(), sb.String()
	}
	b, sb := books(srv)
	assert.Equal(t, "126.55", b)                    // 250.00 - 123.45
	assert.Equal(t, "19.98", sb)                    // 123.45 - 3.46 - 100.01
	assert.Equal(t, "3.46", srv.Balance().String()) // the commission

	// The transfer's event carries the paying side as it was answered,
	// dated when the transfer was made.
	var transferEvents []openpay.WebhookEvent
	for _, ev := range srv.Events() {
		if ev.Type == openpay.EventTypeTransferSucceeded {
			transferEvents = append(transferEvents, ev)
		}
	}
	require.Len(t, transferEvents, 1)
	ev := transferEvents[0]
	require.NotNil(t, ev.Transaction)
	assert.Equal(t, asJSON(t, &wantOut), asJSON(t, ev.Transaction))
	assert.True(t, ev.EventDate.Equal(out.CreationDate), "%v %v", ev.EventDate, out.CreationDate)
	events := asJSON(t, srv.Events())
	srv.Close()

	again := openpaytest.NewServer(t, openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""), openpaytest.Deterministic())
	c, err = openpay.New(id, key, openpay.WithBaseURL(again.URL), openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	in2, err := c.Customer(seller.ID).Transfers.Get(ctx, out.ID)
	require.NoError(t, err)
	assert.Equal(t, asJSON(t, in), asJSON(t, in2))
	paying2, err := c.Customer(buyer.ID).Transfers.Get(ctx, out.ID)
	require.NoError(t, err)
	assert.Equal(t, asJSON(t, paying), asJSON(t, paying2))
	payout2, err := c.Customer(seller.ID).Payouts.Get(ctx, payout.ID)
	require.NoError(t, err)
	assert.Equal(t, asJSON(t, payout), asJSON(t, payout2))
	assert.Equal(t, events, asJSON(t, again.Events()))
	b2, sb2 := books(again)
	assert.Equal(t, b, b2)
	assert.Equal(t, sb, sb2)
	assert.Equal(t, "3.46", again.Balance().String())

	// A transfer without its receiving customer, or with it blank, is
	// refused as the gateway refuses a missing or an empty member (1001).
	for body, want := range map[string]string{
		`{"amount":2.00,"description":"x"}`:                                                 "The field 'customer_id' is required",
		`{"customer_id":null,"amount":2.00,"description":"x"}`:                              "The field 'customer_id' is required",
		`{"customer_id":" ","amount":2.00,"description":"x"}`:                               "The field 'customer_id' is required and cannot be empty",
		`{"customer_id":"` + seller.ID + `","description":"x"}`:                             "The field 'amount' is required",
		`{"customer_id":"` + seller.ID + `","amount":2.00}`:                                 "The field 'description' is required",
		`{"customer_id":"` + seller.ID + `","amount":2.00,"description":"x","order_id":""}`: "The field 'order_id' is required and cannot be empty",
	} {
		var apiErr *openpay.Error
		err := c.Do(ctx, "POST", "customers/"+buyer.ID+"/transfers", json.RawMessage(body), nil)
		require.True(t, errors.As(err, &apiErr), "%s: %v", body, err)
		assert.Equal(t, openpay.ErrBadRequest, apiErr.Code, body)
		assert.Equal(t, want, apiErr.Description, body)
	}

	// The order_id stays taken; a refused transfer moves nothing; a new
	// one moves the cents it names.
	_, err = c.Customer(buyer.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: seller.ID,
		Amount: openpay.MustAmount("1.01"), Description: "again", OrderID: "tr-77"})
	assert.True(t, errors.Is(err, openpay.ErrDuplicateOrderID), "%v", err)
	back, err := c.Customer(seller.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: buyer.ID,
		Amount: openpay.MustAmount("19.97"), Description: "devolucion"})
	require.NoError(t, err)
	assert.NotEqual(t, out.ID, back.ID)
	b, sb = books(again)
	assert.Equal(t, "146.52", b)
	assert.Equal(t, "0.01", sb)
	var listed []string
	for tr, err := range c.Customer(seller.ID).Transfers.List(ctx, nil) {
		require.NoError(t, err)
		listed = append(listed, string(tr.OperationType)+" "+tr.Amount.String())
	}
	assert.Equal(t, []string{"out 19.97", "in 123.45"}, listed)
}

// asJSON is v as JSON, for comparing wire forms whole.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
