package openpay_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Browser payments at their edges, as a web shop meets them: a payment
// link that expires while its payer is at 3-D Secure, a 3-D Secure charge
// abandoned, the disputes and the unpaid ends of cash and bank charges.
// The books are checked (balance, the charge's and the link's state, the
// events), not only the errors.

// eventTypesOf lists the types of the merchant's events about a charge.
func eventTypesOf(m *openpaytest.Merchant, chargeID string) []openpay.EventType {
	var out []openpay.EventType
	for _, ev := range m.Events() {
		if ev.Transaction != nil && ev.Transaction.ID == chargeID {
			out = append(out, ev.Type)
		}
	}
	return out
}

// TestEdgeExpiredLinkTakesNoLatePayment: the payer of a link reaches the
// 3-D Secure page, the link expires, and the approval that comes later
// moves no money: the charge waited until the link's expiration only, and
// is cancelled; the link reads expired. A 3-D Secure charge made through
// the API waits an hour (its due_date) and is then cancelled.
func TestEdgeExpiredLinkTakesNoLatePayment(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 2, 10, 0, 0, 0, time.FixedZone("CST", -6*3600))
	k := newContract(t, openpaytest.WithClock(start))
	ctx := context.Background()

	expires := start.Add(30 * time.Minute) // sooner than the hour 3-D Secure gives
	co, err := k.c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("250.00"), Description: "Order 77",
		OrderID: "order-77", RedirectURL: "https://shop.example/back", ExpirationDate: expires})
	require.NoError(t, err)
	paying, err := k.srv.PayCheckout(co.ID, openpaytest.Card3DSecure)
	require.NoError(t, err)
	require.NotNil(t, paying.Transaction)
	ch := paying.Transaction
	assert.Equal(t, openpay.TransactionStatusChargePending, ch.Status)

	// The link expires before the 3-D Secure hour is over: the payment
	// waited until the link's expiration only.
	_, err = k.srv.AdvanceClock(31 * time.Minute)
	require.NoError(t, err)
	got, err := k.c.Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, got.Status, "cancelled when the link expired")
	_, err = k.srv.AdvanceClock(5 * time.Hour)
	require.NoError(t, err)
	_, err = k.srv.CompleteCharge(ch.ID)
	require.ErrorIs(t, err, openpay.ErrInvalidParameter, "an approval after the link expired completes nothing")

	got, err = k.c.Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, got.Status)
	link, err := k.c.Checkouts.Get(ctx, co.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusExpired, link.Status)
	assert.Equal(t, "0.00", k.srv.Balance().String(), "no money moved for the dropped order")
	assert.Equal(t, []openpay.EventType{openpay.EventTypeChargeCreated, openpay.EventTypeChargeCancelled, openpay.EventTypeTransactionExpired},
		eventTypesOf(&k.srv.Merchant, ch.ID))
	_, err = k.srv.PayCheckout(co.ID, openpaytest.CardVisa)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "an expired link takes no payment")

	// A 3-D Secure charge through the API: an hour, then cancelled.
	tds, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("90.00"),
		Description: "3ds", Use3DSecure: true, RedirectURL: "https://shop.example/back"})
	require.NoError(t, err)
	require.Equal(t, openpay.TransactionStatusChargePending, tds.Status)
	assert.True(t, tds.DueDate.IsZero(), "the gateway's answer shows no due_date on a 3-D Secure charge")
	_, err = k.srv.AdvanceClock(59 * time.Minute)
	require.NoError(t, err)
	got, err = k.c.Charges.Get(ctx, tds.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusChargePending, got.Status, "still within its hour")
	_, err = k.srv.AdvanceClock(2 * time.Minute)
	require.NoError(t, err)
	got, err = k.c.Charges.Get(ctx, tds.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, got.Status, "abandoned at 3-D Secure: cancelled after an hour")
	_, err = k.srv.CompleteCharge(tds.ID)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	assert.Equal(t, "0.00", k.srv.Balance().String())
}

// TestEdgeChargebackOnlyOnCards: a paid store charge and a completed PSE
// charge are not disputed (no chargeback_pending, the balance stays); a
// completed card charge is.
func TestEdgeChargebackOnlyOnCards(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	payer := &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.mx"}

	st, err := k.c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("250.00"), Description: "cash", Customer: payer})
	require.NoError(t, err)
	_, err = k.srv.PayCharge(st.ID)
	require.NoError(t, err)
	require.Equal(t, "250.00", k.srv.Balance().String())
	_, err = k.srv.OpenChargeback(st.ID)
	require.ErrorIs(t, err, openpay.ErrInvalidParameter)
	got, err := k.c.Charges.Get(ctx, st.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, got.Status)
	assert.Equal(t, "250.00", k.srv.Balance().String(), "a store payment is not disputed")

	card, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("100.00"), Description: "card"})
	require.NoError(t, err)
	cb, err := k.srv.OpenChargeback(card.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusChargebackPending, cb.Status)
	assert.Equal(t, "250.00", k.srv.Balance().String(), "the disputed card charge's 100.00 left the balance")

	co := newCountryContract(t, openpay.CountryColombia)
	pse, err := co.c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("50000"), Description: "pse", RedirectURL: "/",
		Customer: &openpay.ChargeCustomer{Name: "Juan", Email: "juan@example.co"}})
	require.NoError(t, err)
	_, err = co.srv.PayCharge(pse.ID)
	require.NoError(t, err)
	before := co.srv.Balance().String()
	_, err = co.srv.OpenChargeback(pse.ID)
	require.ErrorIs(t, err, openpay.ErrInvalidParameter)
	assert.Equal(t, before, co.srv.Balance().String(), "a PSE payment is not disputed")
}

// TestEdgeFailControlEndsCashUnpaid: the fail control never declines a
// card that is not there: an unpaid store charge and an unpaid SPEI
// charge end cancelled with their own words (charge.cancelled), as a due
// date passing ends them; a code is refused for them; a card charge at
// 3-D Secure still fails with its decline.
func TestEdgeFailControlEndsCashUnpaid(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	payer := &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.mx"}

	st, err := k.c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("250.00"), Description: "cash", Customer: payer})
	require.NoError(t, err)
	_, err = k.srv.FailCharge(st.ID, openpay.ErrCardInsufficientFunds)
	require.ErrorIs(t, err, openpay.ErrInvalidParameter, "a store charge has no card decline")
	ended, err := k.srv.FailCharge(st.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, ended.Status)
	assert.Equal(t, "The payer did not pay at the store", ended.ErrorMessage)
	assert.NotContains(t, ended.ErrorMessage, "card")
	assert.Equal(t, []openpay.EventType{openpay.EventTypeChargeCreated, openpay.EventTypeChargeCancelled}, eventTypesOf(&k.srv.Merchant, st.ID))
	_, err = k.srv.PayCharge(st.ID)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "the ended store charge takes no payment")

	spei, err := k.c.Charges.Create(ctx, openpay.BankCharge{Amount: openpay.MustAmount("300.00"), Description: "spei", Customer: payer})
	require.NoError(t, err)
	ended, err = k.srv.FailCharge(spei.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, ended.Status)
	assert.Equal(t, "The payer did not make the bank transfer", ended.ErrorMessage)
	assert.Equal(t, "0.00", k.srv.Balance().String())

	tds, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.Card3DSecure), Amount: openpay.MustAmount("90.00"),
		Description: "3ds", RedirectURL: "https://shop.example/back"})
	require.NoError(t, err)
	ended, err = k.srv.FailCharge(tds.ID, openpay.ErrCardInsufficientFunds)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusFailed, ended.Status)
	assert.Equal(t, "The card doesn't have sufficient funds", ended.ErrorMessage)
}

// TestEdgeRefusalsBeforeSending: every call the SDK refuses before sending
// has a sentinel for errors.Is, and the README's
// list of those refusals names each sentinel.
func TestEdgeRefusalsBeforeSending(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	for _, id := range []string{"a/b", "tr1?limit=100", "", "..", "x#y", "50%"} {
		_, err := k.c.Charges.Get(ctx, id)
		assert.ErrorIs(t, err, openpay.ErrInvalidID, "id %q", id)
		_, err = k.c.Checkouts.Get(ctx, id)
		assert.ErrorIs(t, err, openpay.ErrInvalidID, "checkout id %q", id)
	}
	_, err := k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: 500}})
	assert.ErrorIs(t, err, openpay.ErrInvalidArgument)
	_, err = k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{Offset: -1}})
	assert.ErrorIs(t, err, openpay.ErrInvalidArgument)
	_, err = k.c.Reports.Fees(ctx, 99, time.March)
	assert.ErrorIs(t, err, openpay.ErrInvalidArgument)
	_, err = k.c.Reports.Fees(ctx, 2026, 13)
	assert.ErrorIs(t, err, openpay.ErrInvalidArgument)
	_, err = k.c.Charges.GetByOrderID(ctx, "")
	assert.ErrorIs(t, err, openpay.ErrInvalidArgument)
	//lint:ignore SA1012 a nil context is the mistake under test
	_, err = k.c.Charges.Get(nil, "tr1") //nolint:staticcheck
	assert.ErrorIs(t, err, openpay.ErrInvalidArgument)

	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	for _, name := range []string{"ErrInvalidID", "ErrInvalidArgument", "ErrInvalidUTF8", "ErrNilRequest", "ErrZeroClient"} {
		assert.Contains(t, string(readme), "`openpay."+name+"`", "the README's list of refusals before sending names %s", name)
	}
}
