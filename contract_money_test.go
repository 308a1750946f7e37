package openpay_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fundedCustomer creates a customer with an account and credits it with a
// card charge made for the customer.
func (k *contract) fundedCustomer(t *testing.T, name string, amount string) *openpay.Customer {
	t.Helper()
	ctx := context.Background()
	cust, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: strings.ToLower(name) + "@example.com", RequiresAccount: true})
	require.NoError(t, err)
	if amount != "" {
		_, err = k.c.Customer(cust.ID).Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa),
			Amount: openpay.MustAmount(amount), Description: "top-up"})
		require.NoError(t, err)
	}
	return cust
}

func (k *contract) balance(t *testing.T, customerID string) openpay.Amount {
	t.Helper()
	cust, err := k.c.Customers.Get(context.Background(), customerID)
	require.NoError(t, err)
	return cust.Balance
}

func TestContractCustomersAndBankAccounts(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()

	cust, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Rodrigo", LastName: "Velazco", Email: "rodrigo@example.com",
		PhoneNumber: "4425667045", ExternalID: "cliente1", RequiresAccount: true,
		Address: &openpay.Address{Line1: "Av. 5 de febrero 1080", PostalCode: "76000", State: "Querétaro", City: "Querétaro", CountryCode: "MX"}})
	require.NoError(t, err)
	assert.Len(t, cust.CLABE, 18)
	require.NotNil(t, cust.Store)
	assert.NotEmpty(t, cust.Store.Reference)
	_, err = k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Otro", Email: "otro@example.com", ExternalID: "cliente1"})
	assert.ErrorIs(t, err, openpay.ErrExternalIDExists)
	_, err = k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Sin correo"})
	assert.ErrorIs(t, err, openpay.ErrBadRequest)

	upd, err := k.c.Customers.Update(ctx, cust.ID, openpay.CustomerUpdateRequest{Name: "Rodrigo", LastName: "Velazco Pérez", Email: "rodrigo@example.com"})
	require.NoError(t, err)
	assert.Equal(t, "Velazco Pérez", upd.LastName)
	got, err := k.c.Customers.Get(ctx, cust.ID)
	require.NoError(t, err)
	assert.Equal(t, "Velazco Pérez", got.LastName)
	page, err := k.c.Customers.ListPage(ctx, &openpay.CustomerListParams{ExternalID: "cliente1"})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, cust.ID, page[0].ID)

	// Bank accounts of the customer.
	banks := k.c.Customer(cust.ID).BankAccounts
	ba, err := banks.Create(ctx, openpay.BankAccountRequest{HolderName: "Rodrigo Velazco", CLABE: "032180000118359719", Alias: "principal"})
	require.NoError(t, err)
	assert.Equal(t, "032XXXXXXXXXX59719", ba.CLABE)
	assert.Equal(t, "IXE", ba.BankName)
	_, err = banks.Create(ctx, openpay.BankAccountRequest{HolderName: "Rodrigo Velazco", CLABE: "032180000118359719"})
	assert.ErrorIs(t, err, openpay.ErrBankAccountExists)
	_, err = banks.Create(ctx, openpay.BankAccountRequest{HolderName: "Rodrigo Velazco", CLABE: "032180000118359710"})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "check digit")
	gotBA, err := banks.Get(ctx, ba.ID)
	require.NoError(t, err)
	assert.Equal(t, ba.ID, gotBA.ID)
	var n int
	for _, err := range banks.List(ctx, nil) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n)
	require.NoError(t, banks.Delete(ctx, ba.ID))
	_, err = banks.Get(ctx, ba.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	// Bank accounts of the merchant itself: a scope of their own.
	own, err := k.c.BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Mi empresa", CLABE: "032180000118359719"})
	require.NoError(t, err)
	gotOwn, err := k.c.BankAccounts.Get(ctx, own.ID)
	require.NoError(t, err)
	assert.Equal(t, "032XXXXXXXXXX59719", gotOwn.CLABE)
	ownPage, err := k.c.BankAccounts.ListPage(ctx, nil)
	require.NoError(t, err)
	require.Len(t, ownPage, 1)
	assert.Equal(t, own.ID, ownPage[0].ID)
	_, err = banks.Get(ctx, own.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound, "not an account of the customer")
	require.NoError(t, k.c.BankAccounts.Delete(ctx, own.ID))
	_, err = k.c.BankAccounts.Get(ctx, own.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	// Customer cards: the same number twice is refused.
	_, err = k.c.Customer(cust.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	_, err = k.c.Customer(cust.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	assert.ErrorIs(t, err, openpay.ErrCardExists)

	// Delete: refused while the balance is positive.
	rich := k.fundedCustomer(t, "Rica", "50.00")
	assert.Error(t, k.c.Customers.Delete(ctx, rich.ID))
	require.NoError(t, k.c.Customers.Delete(ctx, cust.ID))
	_, err = k.c.Customers.Get(ctx, cust.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)
}

func TestContractMoneyMovement(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.WithMerchantBalance(openpay.MustAmount("1000.00")))
	ctx := context.Background()
	a := k.fundedCustomer(t, "Ana", "500.00")
	b := k.fundedCustomer(t, "Beto", "")
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("500")))

	// Transfers: out on the origin, in on the destination, atomically.
	tr, err := k.c.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("120.00"), Description: "rent", OrderID: "tr-1"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionTypeTransfer, tr.TransactionType)
	assert.Equal(t, openpay.OperationTypeOut, tr.OperationType)
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("380")))
	assert.True(t, k.balance(t, b.ID).Equal(openpay.MustAmount("120")))
	gotTr, err := k.c.Customer(a.ID).Transfers.Get(ctx, tr.ID)
	require.NoError(t, err)
	assert.Equal(t, tr.ID, gotTr.ID)
	var in int
	for tx, err := range k.c.Customer(b.ID).Transfers.List(ctx, nil) {
		require.NoError(t, err)
		if tx.OperationType == openpay.OperationTypeIn {
			in++
		}
	}
	assert.Equal(t, 1, in)
	_, err = k.c.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("1000.00"), Description: "too much"})
	assert.Error(t, err, "insufficient funds")
	_, err = k.c.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("0.50"), Description: "under one peso"})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = k.c.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: "anobody00000000000000", Amount: openpay.MustAmount("5"), Description: "x"})
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = k.c.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("5"), Description: "x", OrderID: "tr-1"})
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)

	// Fees: from the customer to the merchant; refundable once.
	before := k.srv.Balance()
	fee, err := k.c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: a.ID, Amount: openpay.MustAmount("30.00"), Description: "commission"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionTypeFee, fee.TransactionType)
	assert.True(t, k.srv.Balance().Sub(before).Equal(openpay.MustAmount("30")))
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("350")))
	gotFee, err := k.c.Fees.Get(ctx, fee.ID)
	require.NoError(t, err)
	assert.Equal(t, fee.ID, gotFee.ID)
	ref, err := k.c.Fees.Refund(ctx, fee.ID, openpay.FeeRefundRequest{Description: "waived"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionTypeRefund, ref.TransactionType)
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("380")))
	// A fee refunds once: a second refund moves nothing, and answers the
	// refund already made (a refund is safe to repeat, issue 31).
	again, err := k.c.Fees.Refund(ctx, fee.ID, openpay.FeeRefundRequest{})
	require.NoError(t, err)
	assert.Equal(t, ref.ID, again.ID)
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("380")), "refunded once")
	fees, err := k.c.Fees.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, fees)

	// Payouts: customer scope to a registered account, merchant scope inline.
	ba, err := k.c.Customer(a.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Ana", CLABE: "012680012426485980"})
	require.NoError(t, err)
	po, err := k.c.Customer(a.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: ba.ID, Amount: openpay.MustAmount("80.00"), Description: "withdrawal", OrderID: "po-1"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusInProgress, po.Status)
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("300")), "debited at once")
	cancelled, err := k.c.Customer(a.ID).Payouts.Cancel(ctx, po.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, cancelled.Status)
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("380")), "returned on cancel")
	_, err = k.c.Customer(a.ID).Payouts.Cancel(ctx, po.ID)
	assert.Error(t, err, "only while in_progress")

	mpo, err := k.c.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{CLABE: "032180000118359719", HolderName: "Mi empresa"},
		Amount: openpay.MustAmount("100.00"), Description: "merchant withdrawal"})
	require.NoError(t, err)
	gotPo, err := k.c.Payouts.Get(ctx, mpo.ID)
	require.NoError(t, err)
	assert.Equal(t, mpo.ID, gotPo.ID)
	require.NotNil(t, gotPo.BankAccount)
	assert.Equal(t, "032XXXXXXXXXX59719", gotPo.BankAccount.CLABE)
	_, err = k.c.Payouts.Create(ctx, openpay.InlineCardPayout{Card: openpay.PayoutCardDetails{CardNumber: openpaytest.CardVisa, HolderName: "Juan", BankCode: "002"},
		Amount: openpay.MustAmount("1000000.00"), Description: "too much"})
	assert.ErrorIs(t, err, openpay.ErrMerchantInsufficientFunds)
	payouts, err := k.c.Payouts.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, payouts)

	// Card payout to a stored customer card.
	card, err := k.c.Customer(a.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	require.True(t, card.AllowsPayouts, "a debit card takes payouts")
	cpo, err := k.c.Customer(a.ID).Payouts.Create(ctx, openpay.CardPayout{DestinationID: card.ID, Amount: openpay.MustAmount("10.00"), Description: "to card"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionMethodCard, cpo.Method)
	assert.Equal(t, openpay.TransactionStatusInProgress, cpo.Status)
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("370")), "debited at once")
	// A credit card does not take payouts.
	credit, err := k.c.Customer(a.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisaCredit))
	require.NoError(t, err)
	require.False(t, credit.AllowsPayouts)
	_, err = k.c.Customer(a.ID).Payouts.Create(ctx, openpay.CardPayout{DestinationID: credit.ID, Amount: openpay.MustAmount("10.00"), Description: "to credit card"})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	assert.True(t, k.balance(t, a.ID).Equal(openpay.MustAmount("370")), "nothing debited")
}
