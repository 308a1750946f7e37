package openpaytest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMoneySimulationsThroughTheSDK moves money between a merchant and two
// customers with the SDK and the simulation methods: bank receipts fund the
// balances, a payout settles, another fails and returns its money.
func TestMoneySimulationsThroughTheSDK(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	ctx := context.Background()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)
	seller, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Marta", Email: "marta@example.com", RequiresAccount: true})
	require.NoError(t, err)
	buyer, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Pablo", Email: "pablo@example.com", RequiresAccount: true})
	require.NoError(t, err)
	plain, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Luis", Email: "luis@example.com"})
	require.NoError(t, err)

	in, err := srv.ReceiveSPEI(buyer.ID, openpay.MustAmount("1000.00"))
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, in.Status)
	assert.Equal(t, openpay.TransactionMethodBankAccount, in.Method)
	_, err = srv.ReceiveMerchantSPEI(openpay.MustAmount("50.00"))
	require.NoError(t, err)
	assert.Equal(t, "50.00", srv.Balance().String())
	_, err = srv.ReceiveSPEI(plain.ID, openpay.MustAmount("1"))
	assert.True(t, errors.Is(err, openpay.ErrInvalidParameter), "%v", err)
	_, err = srv.ReceiveSPEI("anothere", openpay.MustAmount("1"))
	assert.True(t, errors.Is(err, openpay.ErrNotFound), "%v", err)

	_, err = c.Customer(buyer.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: seller.ID,
		Amount: openpay.MustAmount("400.00"), Description: "order 3001", OrderID: "t-1"})
	require.NoError(t, err)
	_, err = c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: seller.ID, Amount: openpay.MustAmount("20.00"), Description: "commission"})
	require.NoError(t, err)
	acct, err := c.Customer(seller.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Marta", CLABE: "032180000118359719"})
	require.NoError(t, err)
	assert.Equal(t, "032XXXXXXXXXX59719", acct.CLABE)

	p1, err := c.Customer(seller.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: acct.ID,
		Amount: openpay.MustAmount("300.00"), Description: "withdrawal", OrderID: "p-1"})
	require.NoError(t, err)
	p2, err := c.Customer(seller.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: acct.ID,
		Amount: openpay.MustAmount("80.00"), Description: "withdrawal"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusInProgress, p1.Status)
	b, ok := srv.CustomerBalance(seller.ID)
	require.True(t, ok)
	assert.Equal(t, "0.00", b.String())
	_, err = c.Customer(seller.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: acct.ID,
		Amount: openpay.MustAmount("0.01"), Description: "one cent too many"})
	assert.True(t, errors.Is(err, openpay.ErrMerchantInsufficientFunds), "%v", err)

	settled, err := srv.SettlePayout(p1.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, settled.Status)
	failed, err := srv.FailPayout(p2.ID, "account closed")
	require.NoError(t, err)
	assert.Equal(t, "account closed", failed.ErrorMessage)
	b, _ = srv.CustomerBalance(seller.ID)
	assert.Equal(t, "80.00", b.String())
	_, err = srv.SettlePayout(p2.ID)
	assert.True(t, errors.Is(err, openpay.ErrInvalidParameter), "%v", err)
	_, err = srv.FailPayout("trnothere", "")
	assert.True(t, errors.Is(err, openpay.ErrNotFound), "%v", err)
	got, err := c.Customer(seller.ID).Payouts.Get(ctx, p1.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, got.Status)

	_, ok = srv.CustomerBalance(plain.ID)
	assert.False(t, ok)
	b, _ = srv.CustomerBalance(buyer.ID)
	assert.Equal(t, "600.00", b.String())
	assert.Equal(t, "70.00", srv.Balance().String())

	var types []string
	for _, ev := range srv.Events() {
		types = append(types, string(ev.Type))
	}
	assert.Equal(t, []string{"spei.received", "spei.received", "transfer.succeeded", "fee.succeeded",
		"payout.created", "payout.created", "payout.succeeded", "payout.failed"}, types)
}

// TestMoneySimulationsOverHTTP drives the same controls as a program that
// runs the server as a process would.
func TestMoneySimulationsOverHTTP(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	api := srv.URL + "/v1/" + srv.MerchantID
	sim := srv.URL + "/_simulate/" + srv.MerchantID
	status, cu := call(t, http.MethodPost, api+"/customers", srv.PrivateKey, map[string]any{"name": "Ana", "email": "ana@example.com", "requires_account": true})
	require.Equal(t, http.StatusOK, status)
	id := cu["id"].(string)
	status, o := call(t, http.MethodPost, sim+"/customers/"+id+"/spei", srv.PrivateKey, map[string]any{"amount": 100})
	require.Equal(t, http.StatusOK, status, "%v", o)
	assert.Equal(t, "completed", o["status"])
	status, o = call(t, http.MethodPost, api+"/customers/"+id+"/payouts", srv.PrivateKey, map[string]any{"method": "bank_account",
		"amount": 60, "description": "x", "bank_account": map[string]any{"holder_name": "Ana", "clabe": "032180000118359719"}})
	require.Equal(t, http.StatusOK, status, "%v", o)
	status, o = call(t, http.MethodPost, sim+"/payouts/"+o["id"].(string)+"/fail", srv.PrivateKey, nil)
	require.Equal(t, http.StatusOK, status, "%v", o)
	assert.Equal(t, "failed", o["status"])
	b, _ := srv.CustomerBalance(id)
	assert.Equal(t, "100.00", b.String())
	status, o = call(t, http.MethodPost, sim+"/spei", srv.PublicKey, map[string]any{"amount": 1})
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, 1010.0, o["error_code"])
}

// A customer's balance funded by a bank transfer, paid out, and the payout
// settled by the simulated bank.
func ExampleMerchant_SettlePayout() {
	srv, err := openpaytest.Start(openpaytest.Deterministic())
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	c, _ := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com", RequiresAccount: true})
	if err != nil {
		panic(err)
	}
	if _, err := srv.ReceiveSPEI(cu.ID, openpay.MustAmount("500.00")); err != nil {
		panic(err)
	}
	p, err := c.Customer(cu.ID).Payouts.Create(ctx, openpay.InlineBankAccountPayout{
		BankAccount: openpay.BankAccountRequest{HolderName: "Ana", CLABE: "032180000118359719"},
		Amount:      openpay.MustAmount("200.00"), Description: "withdrawal"})
	if err != nil {
		panic(err)
	}
	balance, _ := srv.CustomerBalance(cu.ID)
	fmt.Println(p.Status, p.BankAccount.CLABE, balance)
	p, err = srv.SettlePayout(p.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Status)
	// Output:
	// in_progress 032XXXXXXXXXX59719 300.00
	// completed
}

// A deactivated account refuses movements of funds with 1008 until it is
// reactivated; reads still answer.
func TestDeactivateCustomerAccount(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	ctx := context.Background()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"))
	require.NoError(t, err)
	cust, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Inés", Email: "ines@example.com", RequiresAccount: true})
	require.NoError(t, err)
	charge := openpay.StoreCharge{Amount: openpay.MustAmount("25"), Description: "store"}

	require.NoError(t, srv.DeactivateCustomerAccount(cust.ID))
	_, err = c.Customer(cust.ID).Charges.Create(ctx, charge)
	assert.ErrorIs(t, err, openpay.ErrAccountDeactivated)
	_, err = srv.ReceiveSPEI(cust.ID, openpay.MustAmount("10"))
	assert.ErrorIs(t, err, openpay.ErrAccountDeactivated)
	_, err = c.Customers.Get(ctx, cust.ID)
	assert.NoError(t, err, "reads still answer")

	require.NoError(t, srv.ReactivateCustomerAccount(cust.ID))
	_, err = c.Customer(cust.ID).Charges.Create(ctx, charge)
	assert.NoError(t, err)
	assert.ErrorIs(t, srv.DeactivateCustomerAccount("anotthere"), openpay.ErrNotFound)
}
