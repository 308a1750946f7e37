package openpaytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A marketplace moves money between its sellers' balances with transfers,
// reads each side back and checks the books to the cent: what one balance
// loses the other gains, a transfer the balance cannot pay changes nothing
// (and leaves its order_id free), and every transfer reads back from both
// customers, also among other transactions and after many transfers.
func TestTransfersMoveBalancesToTheCent(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	ctx := context.Background()
	c, err := srv.Client(openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	newSeller := func(name string) *openpay.Customer {
		cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: name + "@example.com", RequiresAccount: true})
		require.NoError(t, err)
		return cu
	}
	ana, beto, caro := newSeller("ana"), newSeller("beto"), newSeller("caro")
	balance := func(cu *openpay.Customer) string {
		b, ok := srv.CustomerBalance(cu.ID)
		require.True(t, ok)
		read, err := c.Customers.Get(ctx, cu.ID)
		require.NoError(t, err)
		require.Equal(t, b.String(), read.Balance.String(), "the customer's answer and the books")
		return b.String()
	}
	_, err = srv.ReceiveSPEI(ana.ID, openpay.MustAmount("100.00"))
	require.NoError(t, err)
	received := openpay.MustAmount("100.00") // what entered the three balances from banks
	send := func(from, to *openpay.Customer, amount, orderID string) (*openpay.Transaction, error) {
		return c.Customer(from.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: to.ID,
			Amount: openpay.MustAmount(amount), Description: "sale " + orderID, OrderID: orderID})
	}

	out, err := send(ana, beto, "33.33", "t-1")
	require.NoError(t, err)
	assert.Equal(t, "66.67", balance(ana))
	assert.Equal(t, "33.33", balance(beto))
	assert.Equal(t, openpay.TransactionStatusCompleted, out.Status)
	assert.Equal(t, openpay.OperationTypeOut, out.OperationType)
	assert.Equal(t, ana.ID, out.CustomerID)
	// The answer carries the paying customer's store reference and CLABE,
	// as the customer's own answer shows them.
	require.NotNil(t, out.Store)
	assert.Equal(t, *ana.Store, *out.Store)
	assert.Equal(t, ana.CLABE, out.CLABE)

	// Each side reads its own transaction under the transfer's id.
	got, err := c.Customer(ana.ID).Transfers.Get(ctx, out.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.OperationTypeOut, got.OperationType)
	assert.Equal(t, "t-1", got.OrderID)
	in, err := c.Customer(beto.ID).Transfers.Get(ctx, out.ID)
	require.NoError(t, err)
	assert.Equal(t, out.ID, in.ID)
	assert.Equal(t, openpay.OperationTypeIn, in.OperationType)
	assert.Equal(t, beto.ID, in.CustomerID)
	assert.Empty(t, in.OrderID)
	assert.Equal(t, "33.33", in.Amount.String())
	_, err = c.Customer(caro.ID).Transfers.Get(ctx, out.ID)
	assert.True(t, errors.Is(err, openpay.ErrNotFound), "a third customer: %v", err)

	// Back the other way, by a cent more than a round amount.
	_, err = send(beto, ana, "10.01", "t-2")
	require.NoError(t, err)
	assert.Equal(t, "76.68", balance(ana))
	assert.Equal(t, "23.32", balance(beto))

	// One cent more than the balance: refused, both balances as they
	// were, no transaction made, the order_id still free.
	_, err = send(ana, beto, "76.69", "t-3")
	require.True(t, errors.Is(err, openpay.ErrMerchantInsufficientFunds), "%v", err)
	assert.Equal(t, "76.68", balance(ana))
	assert.Equal(t, "23.32", balance(beto))
	_, err = c.Customer(ana.ID).Transfers.GetByOrderID(ctx, "t-3")
	assert.True(t, errors.Is(err, openpay.ErrNotFound), "the refused transfer: %v", err)
	// The whole balance, with the order_id the refused one had.
	all, err := send(ana, beto, "76.68", "t-3")
	require.NoError(t, err)
	assert.Equal(t, "0.00", balance(ana))
	assert.Equal(t, "100.00", balance(beto))
	// An empty balance pays nothing, not even a peso and a cent.
	_, err = send(ana, caro, "1.01", "")
	require.True(t, errors.Is(err, openpay.ErrMerchantInsufficientFunds), "%v", err)
	assert.Equal(t, "0.00", balance(ana))
	assert.Equal(t, "0.00", balance(caro))

	// Many transfers around the three sellers, with other transactions
	// of the merchant between them (a charge, a bank receipt): every
	// transfer reads back from both its sides, and the money is all there.
	type sent struct {
		id, from, to, amount string
	}
	transfers := []sent{{all.ID, ana.ID, beto.ID, "76.68"}}
	sellers := []*openpay.Customer{ana, beto, caro}
	for i := range 30 {
		from, to := sellers[(i+1)%3], sellers[(i+2)%3]
		b, _ := srv.CustomerBalance(from.ID)
		amount := fmt.Sprintf("%d.%02d", 1+i%4, 3+i)
		if b.Cmp(openpay.MustAmount(amount)) < 0 {
			_, err := srv.ReceiveSPEI(from.ID, openpay.MustAmount("50.00"))
			require.NoError(t, err)
			received = received.Add(openpay.MustAmount("50.00"))
		}
		tr, err := send(from, to, amount, fmt.Sprintf("many-%d", i))
		require.NoError(t, err)
		transfers = append(transfers, sent{tr.ID, from.ID, to.ID, amount})
		if i%7 == 0 {
			_, err := c.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "20.00", fmt.Sprintf("charge-%d", i)))
			require.NoError(t, err)
		}
	}
	for _, s := range transfers {
		out, err := c.Customer(s.from).Transfers.Get(ctx, s.id)
		require.NoError(t, err)
		assert.Equal(t, openpay.OperationTypeOut, out.OperationType, s.id)
		assert.Equal(t, s.from, out.CustomerID, s.id)
		in, err := c.Customer(s.to).Transfers.Get(ctx, s.id)
		require.NoError(t, err)
		assert.Equal(t, openpay.OperationTypeIn, in.OperationType, s.id)
		assert.Equal(t, s.to, in.CustomerID, s.id)
		assert.Equal(t, s.amount, in.Amount.String(), s.id)
		assert.Equal(t, s.amount, out.Amount.String(), s.id)
		// Neither side is a charge of the merchant.
		_, err = c.Charges.Get(ctx, s.id)
		assert.True(t, errors.Is(err, openpay.ErrNotFound), "%s at /charges: %v", s.id, err)
	}
	// The balances hold what entered from banks: transfers only move
	// money between the three.
	var held openpay.Amount
	for _, cu := range sellers {
		b, _ := srv.CustomerBalance(cu.ID)
		held = held.Add(b)
		for tr, err := range c.Customer(cu.ID).Transfers.List(ctx, nil) {
			require.NoError(t, err)
			require.Equal(t, openpay.TransactionTypeTransfer, tr.TransactionType)
		}
	}
	assert.Equal(t, received.String(), held.String())
}

// A shop reads back its charges by id in each state a charge can be in:
// the read answers the charge as the last call about it answered it, at
// the merchant's scope and at its customer's, and nowhere else.
func TestGetChargeInEachState(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	ctx := context.Background()
	c, err := srv.Client(openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	other, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Otro", Email: "otro@example.com"})
	require.NoError(t, err)
	card := func(number string) openpay.CardDetails {
		return openpay.CardDetails{HolderName: "Ana", CardNumber: number, CVV2: openpaytest.CVV(number),
			ExpirationMonth: "12", ExpirationYear: "30"}
	}
	noCapture := false
	type state struct {
		status openpay.TransactionStatus
		last   *openpay.Transaction // the answer of the last call about it
	}
	var states []state
	keep := func(status openpay.TransactionStatus) func(*openpay.Transaction, error) *openpay.Transaction {
		return func(ch *openpay.Transaction, err error) *openpay.Transaction {
			t.Helper()
			require.NoError(t, err, status)
			require.Equal(t, status, ch.Status)
			states = append(states, state{status, ch})
			return ch
		}
	}

	keep(openpay.TransactionStatusCompleted)(c.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "100.00", "completed")))
	_, err = c.Charges.Create(ctx, visaCharge(openpaytest.CardInsufficientFunds, "100.00", "failed"))
	require.True(t, errors.Is(err, openpay.ErrCardInsufficientFunds), "%v", err)
	keep(openpay.TransactionStatusFailed)(c.Charges.GetByOrderID(ctx, "failed"))
	store := keep(openpay.TransactionStatusInProgress)(c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("80.00"),
		Description: "store", OrderID: "in_progress"}))
	keep(openpay.TransactionStatusChargePending)(c.Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("90.00"),
		Description: "3ds", OrderID: "pending", Card: card(openpaytest.Card3DSecure), Use3DSecure: true, RedirectURL: "https://shop.example/back"}))
	pre, err := c.Customer(cu.ID).Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("70.00"),
		Description: "preauth", OrderID: "cancelled", Card: card(openpaytest.CardVisa), Capture: &noCapture})
	require.NoError(t, err)
	keep(openpay.TransactionStatusCancelled)(c.Customer(cu.ID).Charges.Cancel(ctx, pre.ID))
	ref, err := c.Customer(cu.ID).Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("60.00"),
		Description: "to refund", OrderID: "refunded", Card: card(openpaytest.CardVisa)})
	require.NoError(t, err)
	refunded := keep(openpay.TransactionStatusRefunded)(c.Customer(cu.ID).Charges.Refund(ctx, ref.ID, openpay.RefundRequest{Description: "returned"}))
	cb, err := c.Charges.Create(ctx, visaCharge(openpaytest.CardMastercard, "50.00", "chargeback"))
	require.NoError(t, err)
	_, err = srv.OpenChargeback(cb.ID)
	require.NoError(t, err)
	keep(openpay.TransactionStatusChargebackPending)(c.Charges.GetByOrderID(ctx, "chargeback"))

	asJSON := func(tx *openpay.Transaction) string {
		b, err := json.Marshal(tx)
		require.NoError(t, err)
		return string(b)
	}
	for _, st := range states {
		got, err := c.Charges.Get(ctx, st.last.ID)
		require.NoError(t, err, st.status)
		assert.Equal(t, asJSON(st.last), asJSON(got), st.status)
		if st.last.CustomerID == cu.ID {
			got, err := c.Customer(cu.ID).Charges.Get(ctx, st.last.ID)
			require.NoError(t, err, st.status)
			assert.Equal(t, asJSON(st.last), asJSON(got), st.status)
		}
		// Another customer's scope does not hold it.
		_, err = c.Customer(other.ID).Charges.Get(ctx, st.last.ID)
		assert.True(t, errors.Is(err, openpay.ErrNotFound), "%s at another customer: %v", st.status, err)
	}
	// The refunded charge carries its refund; the read does not change
	// the books.
	require.NotNil(t, refunded.Refund)
	before := srv.Balance()
	for range 3 {
		_, err := c.Charges.Get(ctx, states[0].last.ID)
		require.NoError(t, err)
	}
	assert.Equal(t, before.String(), srv.Balance().String())
	_, err = c.Charges.Get(ctx, "trnothere0000000000")
	assert.True(t, errors.Is(err, openpay.ErrNotFound), "%v", err)

	// A store charge paid later reads as paid, at the time it was paid.
	_, err = srv.AdvanceClock(time.Hour)
	require.NoError(t, err)
	paid, err := srv.PayCharge(store.ID)
	require.NoError(t, err)
	got, err := c.Charges.Get(ctx, paid.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, got.Status)
	assert.True(t, paid.OperationDate.Equal(got.OperationDate), "%v, paid %v", got.OperationDate, paid.OperationDate)
	assert.True(t, got.OperationDate.After(got.CreationDate), "%v, created %v", got.OperationDate, got.CreationDate)
}
