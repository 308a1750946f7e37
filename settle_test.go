package openpay_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a merchant's checkout does around a lost or retried answer, against
// the reference server with faults: the SDK settles the call's own outcome
// by order_id, and only its own.

// checkoutFlow is a shop's checkout: a customer with cards, charged by the
// SDK against srv.
type checkoutFlow struct {
	t    *testing.T
	srv  *openpaytest.Server
	c    *openpay.Client
	cust *openpay.CustomerScope
}

func newCheckoutFlow(t *testing.T, opts ...openpaytest.Option) *checkoutFlow {
	t.Helper()
	srv := openpaytest.NewServer(t, opts...)
	c := faultClient(t, srv)
	cu, err := c.Customers.Create(context.Background(), openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	return &checkoutFlow{t: t, srv: srv, c: c, cust: c.Customer(cu.ID)}
}

// card saves a card of the given number on the customer.
func (f *checkoutFlow) card(number string) string {
	f.t.Helper()
	d := testCard()
	d.CardNumber = number
	k, err := f.cust.Cards.Create(context.Background(), openpay.CardRequest{Card: d})
	require.NoError(f.t, err)
	return k.ID
}

// token makes a token of the given number with the public key, as the
// payer's browser does.
func (f *checkoutFlow) token(number string) string {
	f.t.Helper()
	pub, err := openpay.New(f.srv.MerchantID, f.srv.PublicKey, openpay.WithBaseURL(f.srv.URL))
	require.NoError(f.t, err)
	d := testCard()
	d.CardNumber = number
	tok, err := pub.Tokens.Create(context.Background(), d)
	require.NoError(f.t, err)
	return tok.ID
}

// fault arms a fault on the customer's charges collection.
func (f *checkoutFlow) fault(ft openpaytest.Fault) {
	f.t.Helper()
	ft.Method, ft.Path = "POST", "/v1/"+f.srv.MerchantID+"/customers/"+f.cust.ID+"/charges"
	require.NoError(f.t, f.srv.InjectFault(ft))
}

// charges lists the customer's charges.
func (f *checkoutFlow) charges() []*openpay.Transaction {
	f.t.Helper()
	var out []*openpay.Transaction
	for tx, err := range f.cust.Charges.List(context.Background(), nil) {
		require.NoError(f.t, err)
		out = append(out, tx)
	}
	return out
}

// A declined charge whose answer is lost is a decline, never a success: the
// merchant's `if err != nil { ... }; markPaid()` must not mark the order
// paid. The error is the decline the gateway would have answered, with the
// failed charge reachable from it.
func TestLostDeclineIsADecline(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		number string
		code   openpay.Code
		req    func(f *checkoutFlow, number string) openpay.ChargeRequest
	}{
		{"saved card", openpaytest.EmulatorCardDeclined, openpay.ErrCardDeclined, func(f *checkoutFlow, n string) openpay.ChargeRequest {
			return openpay.CardCharge{SourceID: f.card(n), Amount: openpay.MustAmount("180.00"), Description: "Order 9", OrderID: "order-9"}
		}},
		{"token", openpaytest.CardInsufficientFunds, openpay.ErrCardInsufficientFunds, func(f *checkoutFlow, n string) openpay.ChargeRequest {
			return openpay.CardCharge{SourceID: f.token(n), Amount: openpay.MustAmount("180.00"), Description: "Order 9", OrderID: "order-9"}
		}},
		{"card in the request", openpaytest.CardStolen, openpay.ErrCardStolen, func(f *checkoutFlow, n string) openpay.ChargeRequest {
			d := testCard()
			d.CardNumber = n
			return openpay.InlineCardCharge{Card: d, Amount: openpay.MustAmount("180.00"), Description: "Order 9", OrderID: "order-9"}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newCheckoutFlow(t)
			req := tt.req(f, tt.number)
			f.fault(openpaytest.Fault{Drop: openpaytest.DropAfter})
			var info openpay.ResponseInfo
			tx, err := f.cust.Charges.Create(context.Background(), req, openpay.WithResponseInfo(&info))
			require.Error(t, err, "a lost decline is not a payment")
			assert.Nil(t, tx)
			assert.ErrorIs(t, err, tt.code)
			assert.NotErrorIs(t, err, openpay.ErrOutcomeUnknown, "the outcome is known: declined")
			assert.Equal(t, openpay.ClassDeclined, openpay.ClassOf(err))
			var oe *openpay.Error
			require.ErrorAs(t, err, &oe)
			require.NotNil(t, oe.Transaction, "the failed charge is reachable from the error")
			assert.Equal(t, openpay.TransactionStatusFailed, oe.Transaction.Status)
			assert.Equal(t, "order-9", oe.Transaction.OrderID)
			assert.Equal(t, 402, oe.HTTPStatus)
			assert.True(t, info.Reconciled)
			assert.Equal(t, 402, info.HTTPStatus, "the status of the decline the result stands for, not the 409")
			charges := f.charges()
			require.Len(t, charges, 1)
			assert.Equal(t, charges[0].ID, oe.Transaction.ID)
		})
	}
}

// Order X is declined with card A; the payer tries card B under the same
// order_id, the first POST meets a 500 and the retry 1006. Card A's
// decline is not card B's answer: the order_id is taken, nothing was
// charged, and a new attempt id charges card B.
func TestNewCardAfterDeclineIsNotAnsweredWithTheOldCharge(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		cards func(f *checkoutFlow) (a, b string)
		clock bool
	}{
		{"saved cards", func(f *checkoutFlow) (string, string) {
			return f.card(openpaytest.EmulatorCardDeclined), f.card(openpaytest.CardVisa)
		}, false},
		{"tokens", func(f *checkoutFlow) (string, string) {
			return f.token(openpaytest.EmulatorCardDeclined), f.token(openpaytest.CardVisa)
		}, false},
		// The same card a minute later is an exact re-send: since issue 31
		// it gets the earlier attempt's decline (the creation time no
		// longer makes it a conflict), and nothing more is charged.
		{"the same saved card, later", func(f *checkoutFlow) (string, string) {
			k := f.card(openpaytest.EmulatorCardDeclined)
			return k, k
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var opts []openpaytest.Option
			if tt.clock {
				opts = append(opts, openpaytest.WithClock(time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)))
			}
			f := newCheckoutFlow(t, opts...)
			cardA, cardB := tt.cards(f)
			ctx := context.Background()
			_, err := f.cust.Charges.Create(ctx, openpay.CardCharge{SourceID: cardA, Amount: openpay.MustAmount("95.50"),
				Description: "Order 77", OrderID: "order-77"})
			require.ErrorIs(t, err, openpay.ErrCardDeclined)
			declined := f.charges()
			require.Len(t, declined, 1)
			if tt.clock {
				_, err := f.srv.AdvanceClock(time.Minute)
				require.NoError(t, err)
			}

			f.fault(openpaytest.Fault{ErrorCode: openpay.ErrInternalServer})
			var info openpay.ResponseInfo
			tx, err := f.cust.Charges.Create(ctx, openpay.CardCharge{SourceID: cardB, Amount: openpay.MustAmount("95.50"),
				Description: "Order 77", OrderID: "order-77"}, openpay.WithResponseInfo(&info))
			require.Error(t, err, "card A's decline is not card B's result")
			assert.Nil(t, tx)
			if tt.clock {
				var oe *openpay.Error
				require.ErrorAs(t, err, &oe)
				assert.ErrorIs(t, err, openpay.ErrCardDeclined, "an exact re-send gets the attempt's decline")
				require.NotNil(t, oe.Transaction)
				assert.Equal(t, declined[0].ID, oe.Transaction.ID)
				assert.Equal(t, openpay.ClassDeclined, openpay.ClassOf(err))
				assert.Len(t, f.charges(), 1, "nothing more was charged")
				return
			}
			var oc *openpay.OrderConflictError
			require.ErrorAs(t, err, &oc)
			assert.Equal(t, declined[0].ID, oc.Existing.ID)
			assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
			assert.NotErrorIs(t, err, openpay.ErrCardDeclined, "card B was not declined: it was not charged")
			assert.Equal(t, openpay.ClassFault, openpay.ClassOf(err))
			assert.False(t, info.Reconciled)
			assert.Len(t, f.charges(), 1, "card B was never charged")

			// The pattern: one order_id per payment attempt.
			tx, err = f.cust.Charges.Create(ctx, openpay.CardCharge{SourceID: cardB, Amount: openpay.MustAmount("95.50"),
				Description: "Order 77", OrderID: "order-77-2"})
			if cardB == cardA {
				require.ErrorIs(t, err, openpay.ErrCardDeclined, "the same declining card, declined again")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, openpay.TransactionStatusCompleted, tx.Status)
			assert.Len(t, f.charges(), 2)
		})
	}
}

// The caller's context ends while the SDK waits to retry a charge whose
// answer was lost: the call returns at once (no lookup past the caller's
// context, issue 31 item 6), unknown, matching both ErrOutcomeUnknown and
// the context's error; the recovery job settles it by re-sending the very
// same request, which returns the charge the gateway made. The context
// ends as soon as the first attempt has failed (after the server made the
// charge), so that the test does not race the server. (Until issue 31 the
// lookup outlived the context by up to 10 seconds.)
func TestLookupOutlivesTheCallersDeadline(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		if r.Method == http.MethodPost && err != nil {
			cancel(context.DeadlineExceeded) // the caller's deadline passes during the backoff
		}
		return resp, err
	})}
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"),
		openpay.WithHTTPClient(hc), openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 2, WaitMin: 5 * time.Second, WaitMax: 5 * time.Second}))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropAfter}))
	var info openpay.ResponseInfo
	start := time.Now()
	req := openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("120.00"), Description: "Order 5", OrderID: "order-5"}
	_, err = c.Charges.Create(ctx, req, openpay.WithResponseInfo(&info))
	var ue *openpay.OutcomeUnknownError
	require.ErrorAs(t, err, &ue)
	assert.ErrorIs(t, err, openpay.ErrOutcomeUnknown)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))
	assert.Less(t, time.Since(start), 5*time.Second, "the backoff wait ended with the context, and no lookup followed")
	assert.False(t, info.Reconciled)
	assert.Equal(t, 1, info.Attempts, "the context ended before a retry")

	// The recovery job re-sends the same request: the charge made, once.
	tx, err := c.Charges.Create(context.Background(), req, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.Equal(t, "order-5", tx.OrderID)
	assert.Equal(t, openpay.TransactionStatusCompleted, tx.Status)
	assert.True(t, info.Reconciled)
	assert.Len(t, merchantCharges(t, c), 1)
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A recovery job settles later an order whose Create ended unknown: the
// lookup itself failed then, and GetByOrderID finds the charge.
func TestRecoveryJobSettlesAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	c := faultClient(t, srv)
	ctx := context.Background()
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropAfter}))
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/charges", Count: 20, ErrorCode: openpay.ErrInternalServer}))
	_, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("75.00"),
		Description: "Order 31", OrderID: "order-31"})
	var ue *openpay.OutcomeUnknownError
	require.ErrorAs(t, err, &ue)
	require.Error(t, ue.Lookup)
	assert.Equal(t, openpay.ClassUnknown, openpay.ClassOf(err))
	srv.ClearFaults()

	// Later, the job.
	tx, err := c.Charges.GetByOrderID(ctx, ue.OrderID)
	require.NoError(t, err)
	assert.Equal(t, "order-31", tx.OrderID)
	assert.Equal(t, openpay.TransactionStatusCompleted, tx.Status)
	assert.Equal(t, "75.00", tx.Amount.String())

	_, err = c.Charges.GetByOrderID(ctx, "order-never-sent")
	assert.ErrorIs(t, err, openpay.ErrNotFound, "no transaction holds it now")
	_, err = c.Charges.GetByOrderID(ctx, "")
	assert.Error(t, err)
}

// GetByOrderID of payouts, transfers and fees, as for charges.
func TestGetByOrderIDOfEveryTransaction(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.WithMerchantBalance(openpay.MustAmount("5000")))
	c := faultClient(t, srv)
	ctx := context.Background()
	a, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "A", Email: "a@example.com", RequiresAccount: true})
	require.NoError(t, err)
	b, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "B", Email: "b@example.com", RequiresAccount: true})
	require.NoError(t, err)
	_, err = c.Customer(a.ID).Charges.Create(ctx, openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("500"), Description: "top up"})
	require.NoError(t, err)

	po, err := c.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{
		CLABE: "032180000118359719", HolderName: "Proveedor"}, Amount: openpay.MustAmount("100"), Description: "p", OrderID: "po-1"})
	require.NoError(t, err)
	tr, err := c.Customer(a.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("50"), Description: "t", OrderID: "tr-1"})
	require.NoError(t, err)
	fee, err := c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: a.ID, Amount: openpay.MustAmount("10"), Description: "f", OrderID: "fee-1"})
	require.NoError(t, err)

	for _, tt := range []struct {
		name string
		id   string
		get  func(orderID string) (*openpay.Transaction, error)
		oid  string
	}{
		{"payout", po.ID, func(o string) (*openpay.Transaction, error) { return c.Payouts.GetByOrderID(ctx, o) }, "po-1"},
		{"transfer", tr.ID, func(o string) (*openpay.Transaction, error) { return c.Customer(a.ID).Transfers.GetByOrderID(ctx, o) }, "tr-1"},
		{"fee", fee.ID, func(o string) (*openpay.Transaction, error) { return c.Fees.GetByOrderID(ctx, o) }, "fee-1"},
	} {
		got, err := tt.get(tt.oid)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.id, got.ID, tt.name)
		_, err = tt.get("missing-" + tt.oid)
		assert.True(t, errors.Is(err, openpay.ErrNotFound), "%s: %v", tt.name, err)
	}
}
