package openpay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contract tests: the SDK against the reference server, for every operation
// and its failures, checked through errors.Is on the documented codes.

type contract struct {
	srv    *openpaytest.Server
	c      *openpay.Client
	public *openpay.Client
}

func newContract(t *testing.T, opts ...openpaytest.Option) *contract {
	t.Helper()
	srv := openpaytest.NewServer(t, opts...)
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("198.51.100.4"))
	require.NoError(t, err)
	pub, err := openpay.New(srv.MerchantID, srv.PublicKey, openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)
	return &contract{srv: srv, c: c, public: pub}
}

func futureYear() string { return fmt.Sprint(time.Now().Year()%100 + 3) }

func cardRequest(number string) openpay.CardRequest {
	return openpay.CardRequest{Card: inlineCard(number)}
}

func inlineCard(number string) openpay.CardDetails {
	return openpay.CardDetails{HolderName: "Juan Pérez", CardNumber: number, CVV2: openpaytest.CVV(number),
		ExpirationMonth: "12", ExpirationYear: futureYear()}
}

func TestContractTestCards(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	for _, tc := range openpaytest.SandboxCards() {
		t.Run(tc.Number, func(t *testing.T) {
			ch, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(tc.Number),
				Amount: openpay.MustAmount("10.00"), Description: tc.Description})
			switch {
			case tc.Code != 0:
				require.Error(t, err)
				assert.ErrorIs(t, err, tc.Code)
				assert.ErrorIs(t, err, tc.Code.Category())
				var oe *openpay.Error
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, tc.Code.HTTPStatus(), oe.HTTPStatus)
				assert.NotContains(t, err.Error(), tc.Number)
			case tc.Requires3DS:
				require.NoError(t, err)
				assert.Equal(t, openpay.TransactionStatusChargePending, ch.Status)
				require.NotNil(t, ch.PaymentMethod)
				assert.NotEmpty(t, ch.PaymentMethod.URL)
			default:
				require.NoError(t, err)
				assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
				require.NotNil(t, ch.Card)
				assert.Equal(t, tc.Brand, string(ch.Card.Brand))
				n := tc.Number
				assert.Equal(t, n[:6]+strings.Repeat("X", len(n)-10)+n[len(n)-4:], ch.Card.CardNumber, "masked")
			}
		})
	}
	// The fraud e-mail declines any card.
	_, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("10"),
		Description: "d", Customer: &openpay.ChargeCustomer{Name: "F", Email: openpaytest.FraudEmail}})
	assert.ErrorIs(t, err, openpay.ErrCardFraud)
}

func TestContractCardsAndTokens(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()

	// Merchant cards: create, get, update, list, points, delete.
	card, err := k.c.Cards.Create(ctx, cardRequest(openpaytest.CardMastercardPoints))
	require.NoError(t, err)
	assert.Equal(t, openpay.CardBrandMastercard, card.Brand)
	assert.Equal(t, "510510XXXXXX5100", card.CardNumber)
	got, err := k.c.Cards.Get(ctx, card.ID)
	require.NoError(t, err)
	assert.Equal(t, card.ID, got.ID)
	require.NoError(t, k.c.Cards.Update(ctx, card.ID, openpay.CardUpdateRequest{HolderName: "Juan P. Pérez"}))
	got, err = k.c.Cards.Get(ctx, card.ID)
	require.NoError(t, err)
	assert.Equal(t, "Juan P. Pérez", got.HolderName)
	points, err := k.c.Cards.Points(ctx, card.ID)
	require.NoError(t, err)
	assert.NotEmpty(t, points)
	var ids []string
	for c, err := range k.c.Cards.List(ctx, nil) {
		require.NoError(t, err)
		ids = append(ids, c.ID)
	}
	assert.Contains(t, ids, card.ID)

	plain, err := k.c.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	_, err = k.c.Cards.Points(ctx, plain.ID)
	assert.ErrorIs(t, err, openpay.ErrCardNotValidForPoints)

	require.NoError(t, k.c.Cards.Delete(ctx, card.ID))
	_, err = k.c.Cards.Get(ctx, card.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	// Card validation, each with its code.
	bad := map[openpay.Code]openpay.CardRequest{}
	r := cardRequest(openpaytest.CardVisa)
	r.Card.CardNumber = "4111111111111112"
	bad[openpay.ErrCardNumberInvalid] = r
	r = cardRequest(openpaytest.CardVisa)
	r.Card.ExpirationYear = "20"
	bad[openpay.ErrCardExpirationPast] = r
	r = cardRequest(openpaytest.CardVisa)
	r.Card.CVV2 = "12"
	bad[openpay.ErrCVVInvalid] = r
	for code, req := range bad {
		_, err := k.c.Cards.Create(ctx, req)
		assert.ErrorIs(t, err, code, "%d", code)
	}
	r = cardRequest(openpaytest.CardVisa)
	r.Card.CVV2 = ""
	_, err = k.c.Cards.Create(ctx, r)
	assert.ErrorIs(t, err, openpay.ErrCVVMissing)
	r = cardRequest(openpaytest.CardVisa)
	r.Card.HolderName = strings.Repeat("a", 81)
	_, err = k.c.Cards.Create(ctx, r)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)

	// Tokens: created with the public key, used once.
	tok, err := k.public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Ana", CardNumber: openpaytest.CardMastercardPoints,
		CVV2: "123", ExpirationMonth: "12", ExpirationYear: futureYear()})
	require.NoError(t, err)
	assert.Equal(t, "510510XXXXXX5100", tok.Card.CardNumber)
	gotTok, err := k.c.Tokens.Get(ctx, tok.ID)
	require.NoError(t, err)
	assert.Equal(t, tok.ID, gotTok.ID)
	_, err = k.c.Tokens.Points(ctx, tok.ID)
	require.NoError(t, err)
	fromTok, err := k.public.Cards.CreateFromToken(ctx, openpay.TokenCardRequest{TokenID: tok.ID, DeviceSessionID: "s1"})
	require.NoError(t, err)
	assert.Equal(t, "510510XXXXXX5100", fromTok.CardNumber)
	_, err = k.c.Cards.CreateFromToken(ctx, openpay.TokenCardRequest{TokenID: tok.ID, DeviceSessionID: "s1"})
	assert.Error(t, err, "a token is single-use")

	// The public key may do nothing else; the SDK refuses before sending.
	_, err = k.public.Cards.Get(ctx, fromTok.ID)
	assert.ErrorIs(t, err, openpay.ErrPublicKeyNotAllowed)
	var oe *openpay.Error
	require.ErrorAs(t, err, &oe)
	assert.Zero(t, oe.HTTPStatus, "not sent")
}

func TestContractCharges(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	card, err := k.c.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	payer := &openpay.ChargeCustomer{Name: "Luis", Email: "luis@example.com"}

	// Card by source id, then get, refund partially, refund the rest.
	ch, err := k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("300.00"),
		Description: "Order 1", OrderID: "o-1", DeviceSessionID: "s"}, openpay.WithClientIP("2001:db8::7"))
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	assert.NotEmpty(t, ch.Authorization)
	got, err := k.c.Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	assert.Equal(t, ch.ID, got.ID)
	refunded, err := k.c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("100.00"), Description: "partial"})
	require.NoError(t, err)
	require.NotNil(t, refunded.Refund)
	assert.Equal(t, openpay.TransactionTypeRefund, refunded.Refund.TransactionType)
	assert.True(t, refunded.Refund.Amount.Equal(openpay.MustAmount("100")))
	_, err = k.c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("500.00")})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "never more than captured")

	// Duplicate order_id.
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("1.00"), Description: "d", OrderID: "o-1"})
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)

	// Metadata goes to the anti-fraud system and comes back on the charge,
	// at creation and on every later read.
	sent := openpay.Metadata{"segment": "vip", "channel": "app"}
	meta, err := k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("12.00"), Description: "with metadata",
		Metadata: sent})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, meta.Status)
	assert.Equal(t, sent, meta.Metadata)
	again, err := k.c.Charges.Get(ctx, meta.ID)
	require.NoError(t, err)
	assert.Equal(t, sent, again.Metadata)
	assert.Empty(t, got.Metadata, "a charge sent without metadata carries none")

	// Pre-authorization: capture part of it; a second capture is refused.
	pre, err := k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("200.00"), Description: "pre", Capture: openpay.Ptr(false)})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusInProgress, pre.Status)
	_, err = k.c.Charges.Capture(ctx, pre.ID, openpay.CaptureRequest{Amount: openpay.MustAmount("250.00")})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "at most the authorized amount")
	captured, err := k.c.Charges.Capture(ctx, pre.ID, openpay.CaptureRequest{Amount: openpay.MustAmount("150.00")})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, captured.Status)
	assert.True(t, captured.Amount.Equal(openpay.MustAmount("150")))
	_, err = k.c.Charges.Capture(ctx, pre.ID, openpay.CaptureRequest{})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "a final charge cannot be captured")

	// Refunding a pre-authorization voids it; cancelling one too.
	pre2, err := k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("20.00"), Description: "pre", Capture: openpay.Ptr(false)})
	require.NoError(t, err)
	voided, err := k.c.Charges.Refund(ctx, pre2.ID, openpay.RefundRequest{})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, voided.Status)

	// The other variants and their states.
	for name, tt := range map[string]struct {
		req    openpay.ChargeRequest
		status openpay.TransactionStatus
		pm     openpay.PaymentInstructionsType
	}{
		"redirect": {openpay.RedirectCharge{Amount: openpay.MustAmount("10"), Description: "d", RedirectURL: "https://shop.example/r", Customer: payer},
			openpay.TransactionStatusChargePending, openpay.PaymentInstructionsTypeRedirect},
		"3-D Secure": {openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("10"), Description: "d", Use3DSecure: true, RedirectURL: "https://shop.example/r"},
			openpay.TransactionStatusChargePending, openpay.PaymentInstructionsTypeRedirect},
		"store": {openpay.StoreCharge{Amount: openpay.MustAmount("10"), Description: "d", Customer: payer},
			openpay.TransactionStatusInProgress, openpay.PaymentInstructionsTypeStore},
		"bank": {openpay.BankCharge{Amount: openpay.MustAmount("10"), Description: "d", Customer: payer},
			openpay.TransactionStatusInProgress, openpay.PaymentInstructionsTypeBankTransfer},
		"alipay": {openpay.AlipayCharge{Amount: openpay.MustAmount("10"), Description: "d", RedirectURL: "https://shop.example/a", Customer: payer},
			openpay.TransactionStatusChargePending, openpay.PaymentInstructionsTypeRedirect},
		"ivr": {openpay.IVRCharge{Amount: openpay.MustAmount("10"), Description: "d", Customer: payer},
			openpay.TransactionStatusChargePending, openpay.PaymentInstructionsTypeIVR},
	} {
		ch, err := k.c.Charges.Create(ctx, tt.req)
		if !assert.NoError(t, err, name) {
			continue
		}
		assert.Equal(t, tt.status, ch.Status, name)
		if assert.NotNil(t, ch.PaymentMethod, name) {
			assert.Equal(t, tt.pm, ch.PaymentMethod.Type, name)
		}
		if tt.status == openpay.TransactionStatusChargePending {
			cancelled, err := k.c.Charges.Cancel(ctx, ch.ID)
			require.NoError(t, err, name)
			assert.Equal(t, openpay.TransactionStatusCancelled, cancelled.Status, name)
		}
	}

	// USD carries an exchange rate.
	usd, err := k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("10"), Description: "d", Currency: openpay.CurrencyUSD})
	require.NoError(t, err)
	require.NotNil(t, usd.ExchangeRate)
	assert.Equal(t, openpay.CurrencyUSD, usd.ExchangeRate.From)

	// Validation failures.
	// An amount that cannot move money is refused before sending (issue 31).
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("-5"), Description: "d"})
	assert.ErrorIs(t, err, openpay.ErrInvalidAmount)
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Description: "zero amount"})
	assert.ErrorIs(t, err, openpay.ErrInvalidAmount, "amount is required, so a zero amount is refused before sending")
	var precise openpay.Amount
	require.NoError(t, precise.UnmarshalJSON([]byte("10.005")))
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: precise, Description: "d"})
	assert.ErrorIs(t, err, openpay.ErrAmountPrecision, "refused before sending, never rounded")
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{Amount: openpay.MustAmount("1"), Description: "no source"})
	assert.ErrorIs(t, err, openpay.ErrBadRequest)
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("1"), Description: strings.Repeat("x", 251)})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("1"), Description: "d", OrderID: strings.Repeat("o", 101)})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("1"), Description: "d", PaymentPlan: &openpay.PaymentPlan{Payments: 5}})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("1"), Description: "d", UseCardPoints: openpay.UseCardPointsOnlyPoints})
	assert.Error(t, err, "points on a card without a programme")
	_, err = k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: "kdoesnotexist00000000", Amount: openpay.MustAmount("1"), Description: "d"})
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = k.c.Charges.Get(ctx, "trdoesnotexist0000000")
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	// Lists: filters and paging.
	var completed int
	for tx, err := range k.c.Charges.List(ctx, &openpay.TransactionListParams{Status: openpay.TransactionStatusCompleted, ListParams: openpay.ListParams{Limit: 2}}) {
		require.NoError(t, err)
		assert.Equal(t, openpay.TransactionStatusCompleted, tx.Status)
		completed++
	}
	assert.GreaterOrEqual(t, completed, 2)
	page, err := k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: "o-1"})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, ch.ID, page[0].ID)
	_, err = k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{AmountGte: openpay.MustAmount("250"), AmountLte: openpay.MustAmount("300")})
	require.NoError(t, err)

	// The merchant saw the money.
	m, err := k.c.Merchant.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, k.srv.MerchantID, m.ID)
	assert.True(t, m.Balance.Equal(k.srv.Balance()))
}

func TestContractAuth(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	wrong, err := openpay.New(k.srv.MerchantID, "sk_00000000000000000000000000000000", openpay.WithBaseURL(k.srv.URL))
	require.NoError(t, err)
	_, err = wrong.Merchant.Get(ctx)
	assert.ErrorIs(t, err, openpay.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "sk_0000")

	other, err := k.srv.AddMerchant("", "", "")
	require.NoError(t, err)
	cross, err := openpay.New(other.MerchantID, k.srv.PrivateKey, openpay.WithBaseURL(k.srv.URL))
	require.NoError(t, err)
	_, err = cross.Merchant.Get(ctx)
	assert.ErrorIs(t, err, openpay.ErrUnauthorized, "a key of merchant A on merchant B's path")
}
