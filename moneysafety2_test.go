package openpay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of issue 31: what the SDK tells a merchant to do after a call
// went wrong never moves money twice. Each fault that answers "after the
// server acted" carries the request out, then answers an error or a page
// in its place.

// afterActing are the answers a front may give after the gateway acted.
var afterActing = []struct {
	name  string
	fault openpaytest.Fault
}{
	{"gateway's 503", openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable, Acted: true}},
	{"proxy's 503 page", openpaytest.Fault{Page: http.StatusServiceUnavailable, Acted: true}},
	{"gateway's 500", openpaytest.Fault{ErrorCode: openpay.ErrInternalServer, Acted: true}},
	{"proxy's 502 page", openpaytest.Fault{Page: http.StatusBadGateway, Acted: true}},
}

// arm arms f on method and path.
func arm(t *testing.T, srv *openpaytest.Server, method, path string, f openpaytest.Fault) {
	t.Helper()
	f.Method, f.Path = method, path
	require.NoError(t, srv.InjectFault(f))
}

// Item 1: a charge, payout, transfer or fee carried out and answered with
// a 503 (the gateway's object or a page), or another error after acting,
// is settled by the lookup: the call returns the one transaction made, and
// the books show it once.
func TestErrorAfterActingIsSettled(t *testing.T) {
	t.Parallel()
	for _, tt := range afterActing {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := newContract(t, openpaytest.WithMerchantBalance(openpay.MustAmount("1000")))
			c := faultClient(t, k.srv)
			ctx := context.Background()
			seller := k.fundedCustomer(t, "Vendedor", "")
			other := k.fundedCustomer(t, "Otro", "")
			sc := c.Customer(seller.ID)

			var info openpay.ResponseInfo
			arm(t, k.srv, "POST", "/v1/{merchant_id}/customers/{customer_id}/charges", tt.fault)
			ch, err := sc.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("400"),
				Description: "order 1", OrderID: "m1-charge"}, openpay.WithResponseInfo(&info))
			require.NoError(t, err)
			assert.True(t, info.Reconciled)
			assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)

			arm(t, k.srv, "POST", "/v1/{merchant_id}/customers/{customer_id}/transfers", tt.fault)
			tr, err := sc.Transfers.Create(ctx, openpay.TransferRequest{CustomerID: other.ID, Amount: openpay.MustAmount("100"),
				Description: "split", OrderID: "m1-split"}, openpay.WithResponseInfo(&info))
			require.NoError(t, err)
			assert.True(t, info.Reconciled)
			assert.Equal(t, "m1-split", tr.OrderID)

			arm(t, k.srv, "POST", "/v1/{merchant_id}/fees", tt.fault)
			fee, err := c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: seller.ID, Amount: openpay.MustAmount("30"),
				Description: "commission", OrderID: "m1-fee"}, openpay.WithResponseInfo(&info))
			require.NoError(t, err)
			assert.True(t, info.Reconciled)
			assert.Equal(t, "m1-fee", fee.OrderID)

			arm(t, k.srv, "POST", "/v1/{merchant_id}/customers/{customer_id}/payouts", tt.fault)
			po, err := sc.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{
				CLABE: "032180000118359719", HolderName: "Vendedor"}, Amount: openpay.MustAmount("200"),
				Description: "payout", OrderID: "m1-payout"}, openpay.WithResponseInfo(&info))
			require.NoError(t, err)
			assert.True(t, info.Reconciled)
			assert.Equal(t, "m1-payout", po.OrderID)

			// Each moved once: 400 - 100 - 30 - 200 = 70 with the seller,
			// 100 with the other, 30 more with the merchant.
			assert.Equal(t, "70.00", k.balance(t, seller.ID).String())
			assert.Equal(t, "100.00", k.balance(t, other.ID).String())
			assert.Equal(t, "1030.00", k.srv.Balance().String())
			assert.Len(t, merchantCharges(t, c), 1)
		})
	}
}

// Item 2: a refund or fee refund carried out and answered with an error is
// read back and returned as this call's success; the buyer is refunded
// once. A fee refund retried after a lost answer ("already refunded") is
// a success too.
func TestRefundAfterActingRefundsOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range afterActing {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			k := newContract(t, openpaytest.WithMerchantBalance(openpay.MustAmount("1000")))
			c := faultClient(t, k.srv)
			ctx := context.Background()
			seller := k.fundedCustomer(t, "Vendedor", "")
			sc := c.Customer(seller.ID)
			ch, err := sc.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("400"),
				Description: "order 2", OrderID: "m2-charge"})
			require.NoError(t, err)

			var info openpay.ResponseInfo
			arm(t, k.srv, "POST", "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/refund", tt.fault)
			got, err := sc.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50")}, openpay.WithResponseInfo(&info))
			require.NoError(t, err, "the refund was made: this call's success")
			assert.True(t, info.Reconciled)
			require.NotNil(t, got.Refund)
			assert.Equal(t, "50.00", got.Refund.Amount.String())
			assert.Equal(t, "350.00", k.balance(t, seller.ID).String(), "refunded once")

			// An exact re-send of the refund is idempotent too.
			again, err := sc.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50")})
			require.NoError(t, err)
			assert.Equal(t, got.Refund.ID, again.Refund.ID)
			assert.Equal(t, "350.00", k.balance(t, seller.ID).String(), "still refunded once")
			// Another amount is refused: this call refunded nothing.
			_, err = sc.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("20")})
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
			assert.Equal(t, "350.00", k.balance(t, seller.ID).String())

			fee, err := c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: seller.ID, Amount: openpay.MustAmount("30"), Description: "commission"})
			require.NoError(t, err)
			arm(t, k.srv, "POST", "/v1/{merchant_id}/fees/{fee_id}/refund", tt.fault)
			ref, err := c.Fees.Refund(ctx, fee.ID, openpay.FeeRefundRequest{Description: "waived"}, openpay.WithResponseInfo(&info))
			require.NoError(t, err, "the fee refund was made: this call's success, never 'already refunded'")
			assert.True(t, info.Reconciled)
			assert.Equal(t, openpay.TransactionTypeRefund, ref.TransactionType)
			assert.Equal(t, "350.00", k.balance(t, seller.ID).String(), "the fee came back once")
			assert.Equal(t, "1000.00", k.srv.Balance().String())
		})
	}
}

// Item 2, continued: when the refund's answer is lost and reading back
// fails too, the call is unknown (never temporary), and the documented way
// to settle it, re-sending the same refund, refunds once.
func TestUnknownRefundSettledByResending(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	c := faultClient(t, k.srv)
	ctx := context.Background()
	ch, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("400"), Description: "order 3"})
	require.NoError(t, err)
	arm(t, k.srv, "POST", "/v1/{merchant_id}/charges/{transaction_id}/refund", openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable, Acted: true})
	arm(t, k.srv, "GET", "/v1/{merchant_id}/charges/{transaction_id}", openpaytest.Fault{ErrorCode: openpay.ErrInternalServer, Count: 10})
	_, err = c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50")})
	var ue *openpay.OutcomeUnknownError
	require.ErrorAs(t, err, &ue)
	assert.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))
	k.srv.ClearFaults()

	got, err := c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50")})
	require.NoError(t, err)
	assert.Equal(t, "50.00", got.Refund.Amount.String())
	assert.Equal(t, "350.00", k.srv.Balance().String(), "refunded once")
}

// Item 3: a charge whose answer is lost and whose lookup fails ends
// unknown, in its own class; re-sending the very same request returns the
// charge the first attempt made (or the decline it met), never a plain
// 1006. Another amount or card under the taken order_id is a conflict.
func TestExactResendAfterUnknownIsIdempotent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		number   string
		declined bool
	}{{"completed", openpaytest.CardVisa, false}, {"declined", openpaytest.CardInsufficientFunds, true}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newCheckoutFlow(t)
			ctx := context.Background()
			tok := f.token(tt.number)
			req := openpay.CardCharge{SourceID: tok, Amount: openpay.MustAmount("640.00"), Description: "Order 77", OrderID: "order-77-1"}
			f.fault(openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable, Acted: true})
			arm(t, f.srv, "GET", "/v1/{merchant_id}/customers/{customer_id}/charges", openpaytest.Fault{ErrorCode: openpay.ErrInternalServer, Count: 20})
			arm(t, f.srv, "GET", "/v1/{merchant_id}/charges", openpaytest.Fault{ErrorCode: openpay.ErrInternalServer, Count: 20})
			_, err := f.cust.Charges.Create(ctx, req)
			var ue *openpay.OutcomeUnknownError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err), "settle first, never 'try again' nor 'fix the request'")
			f.srv.ClearFaults()

			var info openpay.ResponseInfo
			tx, err := f.cust.Charges.Create(ctx, req, openpay.WithResponseInfo(&info))
			charges := f.charges()
			require.Len(t, charges, 1, "the payer is charged at most once")
			assert.True(t, info.Reconciled)
			if tt.declined {
				assert.ErrorIs(t, err, openpay.ErrCardInsufficientFunds)
				assert.Equal(t, openpay.ClassDeclined, openpay.ClassOf(err))
				var oe *openpay.Error
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, charges[0].ID, oe.Transaction.ID)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, charges[0].ID, tx.ID)
			assert.Equal(t, openpay.TransactionStatusCompleted, tx.Status)

			other := req
			other.Amount = openpay.MustAmount("641.00")
			_, err = f.cust.Charges.Create(ctx, other)
			var oc *openpay.OrderConflictError
			require.ErrorAs(t, err, &oc)
			assert.Equal(t, charges[0].ID, oc.Existing.ID)
			other = req
			other.SourceID = f.card(openpaytest.CardMastercard)
			_, err = f.cust.Charges.Create(ctx, other)
			require.ErrorAs(t, err, &oc, "another card under a taken order_id stays a conflict")
			assert.Len(t, f.charges(), 1)
		})
	}
}

// Item 4: an attempt held at the gateway after the client gave up. The
// lookup finds nothing yet, which proves nothing; the recovery job settles
// by re-sending the same attempt, and the order is paid once whichever
// request the gateway carries out first.
func TestRecoveryWhileAnAttemptIsInFlight(t *testing.T) {
	t.Parallel()
	f := newCheckoutFlow(t)
	const hold = 1500 * time.Millisecond
	f.fault(openpaytest.Fault{Delay: hold})
	req := openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("640.00"), Description: "Order 77", OrderID: "order-77-1"}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := f.cust.Charges.Create(ctx, req)
	require.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))

	// GetByOrderID reads only: nothing yet, which is no proof.
	_, err = f.cust.Charges.GetByOrderID(context.Background(), "order-77-1")
	require.ErrorIs(t, err, openpay.ErrNotFound)

	// The recovery job re-sends the attempt as it was.
	tx, err := f.cust.Charges.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "order-77-1", tx.OrderID)
	time.Sleep(hold) // the held attempt reaches the gateway, and meets the order_id taken
	charges := f.charges()
	require.Len(t, charges, 1, "order 77 paid once")
	assert.Equal(t, "640.00", charges[0].Amount.String())
	again, err := f.cust.Charges.GetByOrderID(context.Background(), "order-77-1")
	require.NoError(t, err)
	assert.Equal(t, tx.ID, again.ID)
}

// Item 5: an order_id held by another customer's charge. A retry meeting
// 1006 at this customer's scope, and GetByOrderID there, both find the
// holder at the merchant's scope: a conflict carrying it, never an unknown
// outcome or "none made".
func TestOrderIDHeldByAnotherCustomer(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	c := faultClient(t, k.srv)
	ctx := context.Background()
	a := k.fundedCustomer(t, "Ana", "")
	b := k.fundedCustomer(t, "Beto", "")
	held, err := c.Customer(a.ID).Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("80"),
		Description: "a's order", OrderID: "shared-5"})
	require.NoError(t, err)

	// B's first attempt meets a proxy's page (which may have acted), the
	// retry 1006.
	arm(t, k.srv, "POST", "/v1/{merchant_id}/customers/{customer_id}/charges", openpaytest.Fault{Page: http.StatusBadGateway})
	_, err = c.Customer(b.ID).Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("80"),
		Description: "b's order", OrderID: "shared-5"})
	var oc *openpay.OrderConflictError
	require.ErrorAs(t, err, &oc)
	assert.Equal(t, held.ID, oc.Existing.ID)
	assert.Equal(t, openpay.ClassFault, openpay.ClassOf(err))
	assert.NotErrorIs(t, err, openpay.ErrOutcomeUnknown)

	_, err = c.Customer(b.ID).Charges.GetByOrderID(ctx, "shared-5")
	require.ErrorAs(t, err, &oc, "the order_id is taken, though not by this customer")
	assert.Equal(t, held.ID, oc.Existing.ID)
	assert.NotErrorIs(t, err, openpay.ErrNotFound)
	assert.Equal(t, "80.00", k.balance(t, a.ID).String())
	assert.Equal(t, "0.00", k.balance(t, b.ID).String())
}

// Item 6: a POST with an order_id cancelled during the backoff after a 503
// returns at once, unknown, matching both ErrOutcomeUnknown and the
// context's error; the recovery job settles it.
func TestCancelledCallReturnsAtOnce(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if r.Method == http.MethodPost && resp != nil && resp.StatusCode == http.StatusServiceUnavailable {
			cancel() // the caller gives up during the backoff
		}
		return resp, err
	})}
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"),
		openpay.WithHTTPClient(hc), openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 2, WaitMin: 20 * time.Second, WaitMax: 20 * time.Second}))
	require.NoError(t, err)
	arm(t, srv, "POST", "/v1/{merchant_id}/charges", openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable, Acted: true})
	req := openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("99"), Description: "Order 6", OrderID: "order-6-1"}
	start := time.Now()
	_, err = c.Charges.Create(ctx, req)
	assert.Less(t, time.Since(start), 10*time.Second, "neither the backoff nor a lookup outlived the context")
	var ue *openpay.OutcomeUnknownError
	require.ErrorAs(t, err, &ue)
	assert.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	assert.ErrorIs(t, err, context.Canceled)

	tx, err := c.Charges.Create(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "order-6-1", tx.OrderID)
	assert.Len(t, merchantCharges(t, c), 1)
	assert.Equal(t, "99.00", srv.Balance().String())
}

// Item 7: a charge is refunded once (openapi.yaml, refundCharge), so its
// refunded total is always readable: the nested refund. A second refund is
// refused, and the first stays visible.
func TestRefundedTotalIsReadable(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	ch, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("100"), Description: "order 7"})
	require.NoError(t, err)
	_, err = k.c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("10")})
	require.NoError(t, err)
	_, err = k.c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("20")})
	require.ErrorIs(t, err, openpay.ErrInvalidParameter, "a refunded charge takes no second refund")
	assert.Equal(t, openpay.ClassFault, openpay.ClassOf(err))
	got, err := k.c.Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Refund)
	assert.Equal(t, "10.00", got.Refund.Amount.String(), "the refunded total, from the gateway's state")
	assert.Equal(t, "90.00", k.srv.Balance().String(), "the books agree: 100 - 10")
}

// Item 8: amounts that cannot move money are refused before sending; a
// customer's balance short of a payout or transfer answers 4001; a
// transaction with no error code prints nothing for it.
func TestCarelessAmountsAndPrinting(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	seller := k.fundedCustomer(t, "Vendedor", "100")
	other := k.fundedCustomer(t, "Otro", "")
	minus5, err := openpay.NewAmount("-5")
	require.NoError(t, err, "a negative amount parses: a difference, a balance")
	ch, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("100"), Description: "d"})
	require.NoError(t, err)
	sc := k.c.Customer(seller.ID)
	for name, call := range map[string]func(openpay.CallOption) error{
		"charge -5": func(o openpay.CallOption) error {
			_, err := k.c.Charges.Create(ctx, openpay.StoreCharge{Amount: minus5, Description: "d"}, o)
			return err
		},
		"charge 0": func(o openpay.CallOption) error {
			_, err := k.c.Charges.Create(ctx, openpay.StoreCharge{Description: "d"}, o)
			return err
		},
		"payout -5": func(o openpay.CallOption) error {
			_, err := sc.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{
				CLABE: "032180000118359719", HolderName: "V"}, Amount: minus5, Description: "p"}, o)
			return err
		},
		"transfer 0": func(o openpay.CallOption) error {
			_, err := sc.Transfers.Create(ctx, openpay.TransferRequest{CustomerID: other.ID, Description: "t"}, o)
			return err
		},
		"fee -5": func(o openpay.CallOption) error {
			_, err := k.c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: seller.ID, Amount: minus5, Description: "f"}, o)
			return err
		},
		"refund -5": func(o openpay.CallOption) error {
			_, err := k.c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: minus5}, o)
			return err
		},
		"capture -5": func(o openpay.CallOption) error {
			_, err := k.c.Charges.Capture(ctx, ch.ID, openpay.CaptureRequest{Amount: minus5}, o)
			return err
		},
	} {
		info := openpay.ResponseInfo{Attempts: -1}
		err := call(openpay.WithResponseInfo(&info))
		assert.ErrorIs(t, err, openpay.ErrInvalidAmount, name)
		assert.NotEqual(t, 1, info.Attempts, "%s: not sent", name)
	}
	assert.Equal(t, "100.00", k.balance(t, seller.ID).String(), "nothing moved")
	assert.Equal(t, "100.00", k.srv.Balance().String())

	// A seller's balance too small: the gateway answers 4001, whose name
	// says "merchant"; it is the customer's balance here (README, Errors).
	_, err = sc.Transfers.Create(ctx, openpay.TransferRequest{CustomerID: other.ID, Amount: openpay.MustAmount("150"), Description: "t"})
	assert.ErrorIs(t, err, openpay.ErrMerchantInsufficientFunds)
	_, err = sc.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{
		CLABE: "032180000118359719", HolderName: "V"}, Amount: openpay.MustAmount("150"), Description: "p"})
	assert.ErrorIs(t, err, openpay.ErrMerchantInsufficientFunds)
	assert.Equal(t, openpay.ClassFault, openpay.ClassOf(err))

	printed := fmt.Sprintf("%+v", *ch)
	assert.Contains(t, printed, "ErrorCode: ")
	assert.NotContains(t, printed, "error 0", "no code prints as nothing")
	assert.Empty(t, openpay.Code(0).Error())
	assert.Equal(t, "openpay: card declined (3001)", openpay.ErrCardDeclined.Error())
}

// ClassOf never leads a literal reader of the README's switch to a
// second payment: every unknown outcome is ClassUnknown, whatever wraps it.
func TestClassUnknownIsUnmissable(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	c := faultClient(t, srv)
	arm(t, srv, "POST", "/v1/{merchant_id}/customers", openpaytest.Fault{ErrorCode: openpay.ErrServiceUnavailable})
	_, err := c.Customers.Create(context.Background(), openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	assert.ErrorIs(t, err, openpay.ErrOutcomeUnknown, "a 503 after a POST was sent may have acted")
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(fmt.Errorf("checkout: %w", err)))
	assert.Equal(t, "unknown", openpay.ClassUnknown.String())
	assert.True(t, strings.HasPrefix(openpay.ErrorClass(99).String(), "ErrorClass("))
	assert.False(t, errors.Is(nil, openpay.ErrOutcomeUnknown))
}

// The items of issue 31 once more, each with only what the starting main
// (497acb9) had, so that each fails there and passes now: a small proxy
// (after503) lets the server act and then replaces its answer with the
// gateway's 503, as a front does.

// after503 is a client whose POSTs to paths ending in suffix are carried out
// by the server, then answered 503 (the gateway's 1004) once.
func after503(t *testing.T, srv *openpaytest.Server, suffix string) *openpay.Client {
	var used atomic.Bool
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err == nil && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, suffix) && !used.Swap(true) {
			resp.Body.Close()
			body := `{"category":"internal","error_code":1004,"description":"A required service is unavailable","http_code":503,"request_id":"x"}`
			return &http.Response{StatusCode: 503, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)),
				ContentLength: int64(len(body)), Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
		}
		return resp, err
	})}
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"),
		openpay.WithHTTPClient(hc), openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond}))
	require.NoError(t, err)
	return c
}

func TestProxy503AfterChargeIsSettled(t *testing.T) {
	srv := openpaytest.NewServer(t)
	c := after503(t, srv, "/charges")
	ch, err := c.Charges.Create(context.Background(), openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("400"), Description: "d", OrderID: "i1"})
	require.NoError(t, err)
	assert.Equal(t, "i1", ch.OrderID)
}

func TestProxy503AfterRefundIsSettled(t *testing.T) {
	srv := openpaytest.NewServer(t)
	c := after503(t, srv, "/refund")
	ch, err := c.Charges.Create(context.Background(), openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("400"), Description: "d"})
	require.NoError(t, err)
	_, err = c.Charges.Refund(context.Background(), ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50")})
	require.NoError(t, err, "the refund was made")
	assert.Equal(t, "350.00", srv.Balance().String())
}

func TestExactResendReturnsTheChargeMade(t *testing.T) {
	srv := openpaytest.NewServer(t)
	c := faultClient(t, srv)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropAfter}))
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrInternalServer, Count: 20}))
	req := openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("75"), Description: "d", OrderID: "i3"}
	_, err := c.Charges.Create(context.Background(), req)
	require.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	srv.ClearFaults()
	tx, err := c.Charges.Create(context.Background(), req)
	require.NoError(t, err, "an exact re-send returns the charge made")
	assert.Equal(t, "i3", tx.OrderID)
}

func TestRetryMeetsAnotherCustomersOrderID(t *testing.T) {
	k := newContract(t)
	c := faultClient(t, k.srv)
	a := k.fundedCustomer(t, "Ana", "")
	b := k.fundedCustomer(t, "Beto", "")
	_, err := c.Customer(a.ID).Charges.Create(context.Background(), openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("80"), Description: "d", OrderID: "i5"})
	require.NoError(t, err)
	require.NoError(t, k.srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers/{customer_id}/charges", ErrorCode: openpay.ErrInternalServer}))
	_, err = c.Customer(b.ID).Charges.Create(context.Background(), openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("80"), Description: "d", OrderID: "i5"})
	var oc *openpay.OrderConflictError
	require.ErrorAs(t, err, &oc)
}

func TestNoLookupPastTheCallersContext(t *testing.T) {
	srv := openpaytest.NewServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var gets atomic.Int32
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodGet {
			gets.Add(1)
		}
		resp, err := http.DefaultTransport.RoundTrip(r)
		if r.Method == http.MethodPost && resp != nil && resp.StatusCode >= 500 {
			cancel()
		}
		return resp, err
	})}
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"),
		openpay.WithHTTPClient(hc), openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 2, WaitMin: 20 * time.Second, WaitMax: 20 * time.Second}))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", ErrorCode: openpay.ErrInternalServer}))
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("9"), Description: "d", OrderID: "i6"})
	var ue *openpay.OutcomeUnknownError
	require.ErrorAs(t, err, &ue)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, gets.Load(), "no lookup past the caller's context")
}

func TestSecondRefundRefused(t *testing.T) {
	k := newContract(t)
	ch, err := k.c.Charges.Create(context.Background(), openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("100"), Description: "d"})
	require.NoError(t, err)
	_, err = k.c.Charges.Refund(context.Background(), ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("10")})
	require.NoError(t, err)
	_, err = k.c.Charges.Refund(context.Background(), ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("20")})
	require.Error(t, err, "a second refund would hide the first")
	got, err := k.c.Charges.Get(context.Background(), ch.ID)
	require.NoError(t, err)
	assert.Equal(t, "10.00", got.Refund.Amount.String())
}

func TestNegativeAmountRefusedBeforeSending(t *testing.T) {
	k := newContract(t)
	_, err := k.c.Charges.Create(context.Background(), openpay.StoreCharge{Amount: openpay.MustAmount("-5"), Description: "d"})
	assert.True(t, errors.Is(err, openpay.ErrInvalidAmount), "%v", err)
	assert.Empty(t, openpay.Code(0).Error())
}
