package openpay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contract tests for checkouts (payment links): the SDK against the
// reference server on its fake clock (openpaytest.Deterministic, which
// stands at 2026-01-05 10:00 in the gateway's zone).

func linkRequest(orderID string) openpay.CheckoutRequest {
	return openpay.CheckoutRequest{Amount: openpay.MustAmount("349.90"), Description: "Order " + orderID, OrderID: orderID,
		RedirectURL: "https://shop.example/paid", ExpirationDate: time.Date(2026, 1, 6, 10, 0, 0, 0, openpay.CountryMexico.Location()),
		Customer: &openpay.ChargeCustomer{Name: "Ana", LastName: "López", Email: "ana@example.com"}}
}

func TestContractCheckouts(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	rc := newReceiver(t, "", "")
	_, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.srv.URL,
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeFailed}})
	require.NoError(t, err)

	co, err := k.c.Checkouts.Create(ctx, linkRequest("o-1001"))
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusAvailable, co.Status)
	assert.Equal(t, "349.90", co.Amount.String())
	assert.Equal(t, openpay.CurrencyMXN, co.Currency)
	assert.Equal(t, "o-1001", co.OrderID)
	assert.True(t, strings.HasPrefix(co.CheckoutLink, k.srv.URL+"/checkout/"), co.CheckoutLink)
	assert.True(t, co.CreationDate.Equal(k.srv.Now()), "created now: %v", co.CreationDate)
	wantExpiry := time.Date(2026, 1, 6, 10, 0, 0, 0, time.FixedZone("", -6*3600))
	assert.True(t, co.ExpirationDate.Equal(wantExpiry), "expires as sent, in the gateway's zone: %v", co.ExpirationDate)
	require.NotNil(t, co.Customer)
	assert.Equal(t, "ana@example.com", co.Customer.Email)
	assert.Nil(t, co.Transaction)

	for _, key := range []string{co.ID, "o-1001"} {
		got, err := k.c.Checkouts.Get(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, co.ID, got.ID, "by id or order_id: %s", key)
	}

	// A declined card: the link stays open, its transaction is the failed charge.
	_, err = k.srv.PayCheckout(co.ID, openpaytest.EmulatorCardDeclined)
	assert.ErrorIs(t, err, openpay.ErrCardDeclined)
	got, err := k.c.Checkouts.Get(ctx, co.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusAvailable, got.Status)
	require.NotNil(t, got.Transaction)
	assert.Equal(t, openpay.TransactionStatusFailed, got.Transaction.Status)
	assert.Equal(t, openpay.EventTypeChargeFailed, rc.waitFor(t, openpay.EventTypeChargeFailed).Type)

	// Paid.
	paid, err := k.srv.PayCheckout(co.ID, openpaytest.CardVisa)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusCompleted, paid.Status)
	require.NotNil(t, paid.Transaction)
	charge := paid.Transaction
	assert.Equal(t, openpay.TransactionStatusCompleted, charge.Status)
	assert.Equal(t, "349.90", charge.Amount.String())
	assert.Equal(t, "o-1001", charge.OrderID)
	ev := rc.waitFor(t, openpay.EventTypeChargeSucceeded)
	require.NotNil(t, ev.Transaction)
	assert.Equal(t, charge.ID, ev.Transaction.ID)
	assert.Equal(t, "o-1001", ev.Transaction.OrderID, "the webhook ties the payment to the shop's order")
	fromAPI, err := k.c.Charges.Get(ctx, charge.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, fromAPI.Status)

	// Paid links take nothing more, and cannot change.
	_, err = k.srv.PayCheckout(co.ID, openpaytest.CardVisa)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = k.c.Checkouts.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusCancelled})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)

	// The order_id is the shop's for good: no checkout and no charge may reuse it.
	_, err = k.c.Checkouts.Create(ctx, linkRequest("o-1001"))
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
	_, err = k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("1"),
		Description: "reuse", OrderID: "o-1001"})
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)

	// Errors.
	bad := linkRequest("o-bad")
	bad.Amount = openpay.MustAmount("0")
	_, err = k.c.Checkouts.Create(ctx, bad)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	bad = linkRequest("o-bad")
	bad.Currency = openpay.CurrencyUSD
	_, err = k.c.Checkouts.Create(ctx, bad)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "MXN only")
	bad = linkRequest("o-bad")
	bad.ExpirationDate = time.Date(2026, 1, 5, 9, 0, 0, 0, openpay.CountryMexico.Location())
	_, err = k.c.Checkouts.Create(ctx, bad)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "expired already")
	// A malformed expiration ("06/01/2026", 1001) can no longer be written
	// with the SDK (a time.Time); internal/refserver's tests send it raw.
	bad = linkRequest("o-bad")
	bad.Description = ""
	_, err = k.c.Checkouts.Create(ctx, bad)
	assert.ErrorIs(t, err, openpay.ErrBadRequest)
	_, err = k.c.Checkouts.Get(ctx, "cnothere")
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = k.c.Checkouts.Get(ctx, "a/b")
	assert.Error(t, err, "ids are checked before sending")
}

// TestContractCheckoutExpiry: the fake clock expires a link; an update
// opens it again or cancels it.
func TestContractCheckoutExpiry(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	co, err := k.c.Checkouts.Create(ctx, linkRequest("o-late"))
	require.NoError(t, err)

	_, err = k.srv.AdvanceClock(25 * time.Hour)
	require.NoError(t, err)
	got, err := k.c.Checkouts.Get(ctx, co.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusExpired, got.Status)
	_, err = k.srv.PayCheckout(co.ID, openpaytest.CardVisa)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "an expired link takes no payment")
	_, err = k.c.Checkouts.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusAvailable})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "available needs a future expiration")

	upd, err := k.c.Checkouts.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusAvailable,
		ExpirationDate: time.Date(2026, 1, 8, 16, 0, 0, 0, time.UTC)}) // 10:00 in Mexico City
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusAvailable, upd.Status)
	assert.Equal(t, "2026-01-08T10:00:00.000-0600", upd.ExpirationDate.Format("2006-01-02T15:04:05.000-0700"))

	upd, err = k.c.Checkouts.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusCancelled})
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusCancelled, upd.Status)
	_, err = k.srv.PayCheckout(co.ID, openpaytest.CardVisa)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "a cancelled link takes no payment")
	upd, err = k.c.Checkouts.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusAvailable})
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusAvailable, upd.Status)
	paid, err := k.srv.PayCheckout(co.ID, openpaytest.CardMastercard)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusCompleted, paid.Status)
	_, err = k.c.Checkouts.Update(ctx, "cnothere", openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusCancelled})
	assert.ErrorIs(t, err, openpay.ErrNotFound)
}

// TestContractCustomerCheckouts: a customer's links are paid by that
// customer, read at both scopes, and updated at the merchant's path.
func TestContractCustomerCheckouts(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	cust, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Sofia", Email: "sofia@example.com", RequiresAccount: true})
	require.NoError(t, err)
	other, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Luis", Email: "luis@example.com"})
	require.NoError(t, err)
	links := k.c.Customer(cust.ID).Checkouts

	withPayer := linkRequest("o-cust")
	_, err = links.Create(ctx, withPayer)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "the customer is the payer")
	req := linkRequest("o-cust")
	req.Customer = nil
	co, err := links.Create(ctx, req)
	require.NoError(t, err)
	require.NotNil(t, co.Customer)
	assert.Equal(t, cust.ID, co.Customer.ID)
	mine, err := k.c.Checkouts.Create(ctx, linkRequest("o-merchant"))
	require.NoError(t, err)

	got, err := links.Get(ctx, co.ID)
	require.NoError(t, err)
	assert.Equal(t, co.ID, got.ID)
	_, err = k.c.Checkouts.Get(ctx, co.ID)
	assert.NoError(t, err, "the merchant reads its customers' links")
	_, err = k.c.Customer(other.ID).Checkouts.Get(ctx, co.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound, "another customer's")
	_, err = links.Get(ctx, mine.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound, "the merchant's own")
	_, err = k.c.Customer("anothere").Checkouts.Create(ctx, req)
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	upd, err := links.Update(ctx, co.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusAvailable,
		ExpirationDate: time.Date(2026, 1, 9, 12, 0, 0, 0, openpay.CountryMexico.Location())})
	require.NoError(t, err)
	assert.Equal(t, "2026-01-09 12:00", upd.ExpirationDate.Format("2006-01-02 15:04"))

	ids := func(seq iter.Seq2[*openpay.Checkout, error]) []string {
		var out []string
		for c, err := range seq {
			require.NoError(t, err)
			out = append(out, c.ID)
		}
		return out
	}
	assert.Equal(t, []string{co.ID}, ids(links.List(ctx, nil)))
	assert.Equal(t, []string{mine.ID, co.ID}, ids(k.c.Checkouts.List(ctx, nil)))

	paid, err := k.srv.PayCheckout(co.ID, openpaytest.CardVisa)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusCompleted, paid.Status)
	assert.Equal(t, cust.ID, paid.Transaction.CustomerID)
	charges, err := k.c.Customer(cust.ID).Charges.ListPage(ctx, nil)
	require.NoError(t, err)
	require.Len(t, charges, 1)
	assert.Equal(t, paid.Transaction.ID, charges[0].ID)
	bal, ok := k.srv.CustomerBalance(cust.ID)
	require.True(t, ok)
	assert.Equal(t, "349.90", bal.String(), "the customer's account is credited as by any of its charges")
}

// TestContractCheckoutThreeDSecure: a card that asks for 3-D Secure makes
// the link wait; the payer's completion on the bank's page completes it.
func TestContractCheckoutThreeDSecure(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	co, err := k.c.Checkouts.Create(ctx, linkRequest("o-3ds"))
	require.NoError(t, err)
	pending, err := k.srv.PayCheckout(co.ID, openpaytest.Card3DSecure)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusAvailable, pending.Status)
	require.NotNil(t, pending.Transaction)
	assert.Equal(t, openpay.TransactionStatusChargePending, pending.Transaction.Status)
	_, err = k.srv.PayCheckout(co.ID, openpaytest.CardVisa)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "one payment at a time")
	_, err = k.srv.CompleteCharge(pending.Transaction.ID)
	require.NoError(t, err)
	got, err := k.c.Checkouts.Get(ctx, co.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
}

func TestContractListsOfCheckouts(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	ids, days := daily(t, k, 5, func(i int) string {
		co, err := k.c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("10"), Description: fmt.Sprint("link ", i)})
		require.NoError(t, err)
		return co.ID
	})
	checkListing(t, listing[openpay.Checkout]{
		iter: func(ctx context.Context, p openpay.ListParams) iter.Seq2[*openpay.Checkout, error] {
			return k.c.Checkouts.List(ctx, &openpay.CheckoutListParams{ListParams: p})
		},
		page: func(ctx context.Context, p openpay.ListParams) ([]*openpay.Checkout, error) {
			return k.c.Checkouts.ListPage(ctx, &openpay.CheckoutListParams{ListParams: p})
		},
		id: func(c *openpay.Checkout) string { return c.ID },
	}, ids, days)

	// The vendor clients' day filters.
	page := func(p openpay.CheckoutListParams) []string {
		got, err := k.c.Checkouts.ListPage(ctx, &p)
		return pageIDs(t, got, err, func(c *openpay.Checkout) string { return c.ID })
	}
	assert.Equal(t, []string{ids[3], ids[2], ids[1]}, page(openpay.CheckoutListParams{StartDate: days[1], EndDate: days[3]}))
	assert.Equal(t, []string{ids[4], ids[3]}, page(openpay.CheckoutListParams{StartDate: days[3]}))
	assert.Equal(t, []string{ids[0]}, page(openpay.CheckoutListParams{EndDate: days[0]}))
	assert.Equal(t, []string{ids[2]}, page(openpay.CheckoutListParams{StartDate: days[1], EndDate: days[3], ListParams: openpay.ListParams{Offset: 1, Limit: 1}}))
	// 23:00 in Mexico City is already the next day in Tokyo (and in UTC);
	// the merchant's day is still Mexico's.
	tokyo := time.FixedZone("JST", 9*3600)
	evening := days[2].In(openpay.CountryMexico.Location()).Add(23 * time.Hour).In(tokyo)
	require.Equal(t, days[3], openpay.DateOf(evening))
	mexicoDay := openpay.CountryMexico.Today(evening)
	assert.Equal(t, []string{ids[2]}, page(openpay.CheckoutListParams{StartDate: mexicoDay, EndDate: mexicoDay}))
	_, err := k.c.Checkouts.ListPage(ctx, &openpay.CheckoutListParams{ListParams: openpay.ListParams{Limit: 101}})
	assert.Error(t, err, "checked before sending")
}

// A checkout's times read as the gateway writes them and as RFC 3339, and
// write in the gateway's form; its iva reads as a string or a number and
// writes as the string the gateway echoes.
func TestCheckoutJSON(t *testing.T) {
	t.Parallel()
	want := time.Date(2021, 10, 16, 4, 36, 0, 0, time.UTC)
	for _, in := range []string{`"2021-10-15T23:36:00.000-0500"`, `"2021-10-15T23:36:00-05:00"`, `"2021-10-15T23:36:00-0500"`, `"2021-10-16T04:36:00Z"`} {
		var co openpay.Checkout
		require.NoError(t, json.Unmarshal([]byte(`{"creation_date":`+in+`,"expiration_date":`+in+`}`), &co), in)
		assert.True(t, co.CreationDate.Equal(want), "%s read as %v", in, co.CreationDate)
		assert.True(t, co.ExpirationDate.Equal(want), "%s read as %v", in, co.ExpirationDate)
	}
	for _, in := range []string{`null`, `""`} {
		var co openpay.Checkout
		require.NoError(t, json.Unmarshal([]byte(`{"expiration_date":`+in+`}`), &co), in)
		assert.True(t, co.ExpirationDate.IsZero(), in)
	}
	for _, in := range []string{`"2021-10-15 23:36"`, `"yesterday"`, `1634355360`} {
		var co openpay.Checkout
		assert.Error(t, json.Unmarshal([]byte(`{"creation_date":`+in+`}`), &co), in)
	}
	for _, in := range []string{`"1900"`, `1900`, `"1900.00"`} {
		var co openpay.Checkout
		require.NoError(t, json.Unmarshal([]byte(`{"iva":`+in+`}`), &co), in)
		assert.Equal(t, "1900.00", co.IVA.String(), in)
	}
	out, err := json.Marshal(openpay.Checkout{ID: "c1", CreationDate: want.In(time.FixedZone("", -5*3600)), IVA: openpay.MustAmount("1596.64")})
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, "2021-10-15T23:36:00.000-0500", got["creation_date"])
	assert.Equal(t, "1596.64", got["iva"])
	assert.NotContains(t, got, "expiration_date", "a zero expiration is left out")
	assert.Equal(t, "c1", got["id"])
}

func ExampleCheckoutsService_Create() {
	srv := exampleServer() // stands in for the gateway: its merchant id, key and address
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, // your merchant id and private key
		openpay.WithBaseURL(srv.URL)) // leave out against the gateway
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// A payment link for an order; the payer opens co.CheckoutLink.
	co, err := c.Checkouts.Create(ctx, openpay.CheckoutRequest{
		Amount: openpay.MustAmount("349.90"), Description: "Order 1001", OrderID: "order-1001",
		RedirectURL: "https://shop.example/paid", ExpirationDate: time.Date(2026, 1, 31, 23, 59, 0, 0, openpay.CountryMexico.Location()),
		Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(co.Status, co.Amount, co.ExpirationDate.Format("2006-01-02 15:04"))

	// The payer pays on the hosted page (here, the server's simulation of it).
	if _, err := srv.PayCheckout(co.ID, openpaytest.CardVisa); err != nil {
		fmt.Println(err)
		return
	}
	co, err = c.Checkouts.GetByOrderID(ctx, "order-1001")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(co.Status, co.Transaction.Status, co.Transaction.OrderID)
	// Output:
	// available 349.90 2026-01-31 23:59
	// completed completed order-1001
}
