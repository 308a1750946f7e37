package openpay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contract tests for the token list, the fees and payout reports and the
// typed webhook payloads.

func TestContractTokenList(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	var made []string
	numbers := []string{openpaytest.CardVisa, openpaytest.CardMastercard, openpaytest.CardAmex}
	for _, n := range numbers {
		tok, err := k.public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Juan", CardNumber: n, CVV2: openpaytest.CVV(n),
			ExpirationMonth: "12", ExpirationYear: futureYear()})
		require.NoError(t, err)
		made = append([]string{tok.ID}, made...) // newest first
	}
	var got []string
	for tok, err := range k.c.Tokens.List(ctx, &openpay.ListParams{Limit: 2}) { // pages of 2
		require.NoError(t, err)
		assert.Contains(t, tok.Card.CardNumber, "XXXXX", "masked")
		assert.NotContains(t, numbers, tok.Card.CardNumber)
		got = append(got, tok.ID)
	}
	assert.Equal(t, made, got)
	page, err := k.c.Tokens.ListPage(ctx, &openpay.ListParams{Offset: 1, Limit: 1})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, made[1], page[0].ID)
	_, err = k.public.Tokens.ListPage(ctx, nil)
	assert.ErrorIs(t, err, openpay.ErrPublicKeyNotAllowed, "listing needs the private key")
}

func TestContractReports(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.WithClock(time.Date(2026, 5, 20, 10, 0, 0, 0, time.UTC)))
	ctx := context.Background()

	// Fees: an Alipay charge carries the gateway's fee once completed.
	ch, err := k.c.Charges.Create(ctx, openpay.AlipayCharge{Amount: openpay.MustAmount("3000"), Description: "wallet",
		RedirectURL: "https://shop.example/back"})
	require.NoError(t, err)
	_, err = k.srv.CompleteCharge(ch.ID)
	require.NoError(t, err)
	fees, err := k.c.Reports.Fees(ctx, 2026, time.May)
	require.NoError(t, err)
	assert.Equal(t, "3.00", fees.Charged.String())
	assert.Equal(t, "3.00", fees.Total.String())
	assert.True(t, fees.Refunded.IsZero())
	var detail []string
	for tx, err := range k.c.Reports.FeeDetails(ctx, 2026, time.May, openpay.FeeReportTypeCharged, nil) {
		require.NoError(t, err)
		require.NotNil(t, tx.Fee)
		assert.Equal(t, fees.Charged, tx.Fee.Amount)
		detail = append(detail, tx.ID)
	}
	assert.Equal(t, []string{ch.ID}, detail)
	june, err := k.c.Reports.Fees(ctx, 2026, time.June)
	require.NoError(t, err)
	assert.True(t, june.Total.IsZero())
	_, err = k.c.Reports.Fees(ctx, 2026, 13)
	assert.ErrorContains(t, err, "month", "refused before sending")
	_, err = k.c.Reports.FeeDetailsPage(ctx, 2026, time.May, "all", nil)
	assert.ErrorContains(t, err, "fee report type")

	// Payouts: what the payout settled adds up to its details.
	card, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("700"), Description: "sale"})
	require.NoError(t, err)
	_, err = k.c.Charges.Refund(ctx, card.ID, openpay.RefundRequest{Amount: openpay.MustAmount("100")})
	require.NoError(t, err)
	po, err := k.c.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{CLABE: "032180000118359719", HolderName: "Mi empresa"},
		Amount: openpay.MustAmount("500"), Description: "withdrawal"})
	require.NoError(t, err)
	sum, err := k.c.Reports.Payout(ctx, po.ID)
	require.NoError(t, err)
	assert.Equal(t, "3700.00", sum.In.String(), "the Alipay and card charges")
	assert.Equal(t, "100.00", sum.Out.String(), "the refund")
	assert.True(t, sum.ChargedAdjustments.IsZero())
	for kind, want := range map[openpay.PayoutReportType]openpay.Amount{openpay.PayoutReportTypeIn: sum.In, openpay.PayoutReportTypeOut: sum.Out} {
		var total openpay.Amount
		for tx, err := range k.c.Reports.PayoutDetails(ctx, po.ID, kind, &openpay.PageParams{Limit: 1}) {
			require.NoError(t, err)
			assert.EqualValues(t, kind, tx.OperationType)
			total = total.Add(tx.Amount)
		}
		assert.Equal(t, want.String(), total.String(), kind)
	}
	page, err := k.c.Reports.PayoutDetailsPage(ctx, po.ID, openpay.PayoutReportTypeRefundedAdjustments, nil)
	require.NoError(t, err)
	assert.Empty(t, page)
	_, err = k.c.Reports.Payout(ctx, card.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound, "a charge is no payout")
	_, err = k.c.Reports.PayoutDetailsPage(ctx, po.ID, openpay.PayoutReportTypeIn, &openpay.PageParams{Limit: 101})
	assert.Error(t, err)
}

// TestContractTypedWebhookPayloads receives each kind of event the server
// sends and reads it through WebhookEvent.Payload.
func TestContractTypedWebhookPayloads(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	rc := newReceiver(t, "u", "p")
	_, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.srv.URL, User: "u", Password: "p", EventTypes: []openpay.EventType{
		openpay.EventTypeChargeSucceeded, openpay.EventTypeChargebackCreated, openpay.EventTypeSPEIReceived,
		openpay.EventTypePayoutCreated, openpay.EventTypeTransferSucceeded, openpay.EventTypeFeeSucceeded,
		openpay.EventTypeFeeRefundSucceeded}})
	require.NoError(t, err)

	ver, ok := rc.waitFor(t, openpay.EventTypeVerification).Payload().(*openpay.VerificationEvent)
	require.True(t, ok)
	assert.Len(t, ver.Code, 8)

	ch, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("500"), Description: "sale"})
	require.NoError(t, err)
	_, err = k.srv.OpenChargeback(ch.ID)
	require.NoError(t, err)
	a := k.fundedCustomer(t, "Ana", "")
	b := k.fundedCustomer(t, "Beto", "")
	spei, err := k.srv.ReceiveSPEI(a.ID, openpay.MustAmount("300"))
	require.NoError(t, err)
	tr, err := k.c.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("50"), Description: "rent"})
	require.NoError(t, err)
	fee, err := k.c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: a.ID, Amount: openpay.MustAmount("10"), Description: "fee"})
	require.NoError(t, err)
	feeRefund, err := k.c.Fees.Refund(ctx, fee.ID, openpay.FeeRefundRequest{})
	require.NoError(t, err)
	po, err := k.c.Customer(a.ID).Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{CLABE: "032180000118359719", HolderName: "Ana"},
		Amount: openpay.MustAmount("20"), Description: "withdrawal"})
	require.NoError(t, err)

	idOf := func(p openpay.EventPayload) string {
		switch p := p.(type) {
		case *openpay.ChargeEvent:
			return "charge " + p.Charge.ID
		case *openpay.ChargebackEvent:
			return "chargeback " + p.Charge.ID + " " + string(p.Charge.Status)
		case *openpay.BankReceiptEvent:
			return "receipt " + p.Receipt.ID
		case *openpay.TransferEvent:
			return "transfer " + p.Transfer.ID
		case *openpay.FeeEvent:
			return "fee " + p.Fee.ID
		case *openpay.FeeRefundEvent:
			return "fee refund " + p.Refund.ID
		case *openpay.PayoutEvent:
			return "payout " + p.Payout.ID
		}
		return "unexpected"
	}
	for typ, want := range map[openpay.EventType]string{
		openpay.EventTypeChargeSucceeded:    "charge " + ch.ID,
		openpay.EventTypeChargebackCreated:  "chargeback " + ch.ID + " chargeback_pending",
		openpay.EventTypeSPEIReceived:       "receipt " + spei.ID,
		openpay.EventTypeTransferSucceeded:  "transfer " + tr.ID,
		openpay.EventTypeFeeSucceeded:       "fee " + fee.ID,
		openpay.EventTypeFeeRefundSucceeded: "fee refund " + feeRefund.ID,
		openpay.EventTypePayoutCreated:      "payout " + po.ID,
	} {
		ev := rc.waitFor(t, typ)
		assert.Equal(t, want, idOf(ev.Payload()), typ)
		assert.True(t, strings.Contains(string(ev.Raw), `"`+string(typ)+`"`), "the body as delivered is kept")
	}

	// Every event the server recorded, delivered or not, has the shape its
	// type carries (openapi.yaml, x-openpay-event-payloads).
	_, err = k.srv.SettlePayout(po.ID)
	require.NoError(t, err)
	_, err = k.srv.ResolveChargeback(ch.ID, false)
	require.NoError(t, err)
	seen := map[openpay.EventType]bool{}
	for _, ev := range k.srv.Events() {
		seen[ev.Type] = true
		_, unknown := ev.Payload().(*openpay.UnknownEvent)
		assert.False(t, unknown, "%s event", ev.Type)
	}
	assert.True(t, seen[openpay.EventTypePayoutSucceeded] && seen[openpay.EventTypeChargebackRejected], "%v", seen)
}
