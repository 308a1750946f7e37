package openpay_test

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every list of the SDK against the reference server, through its iterator
// and its one-page call: newest first, paging with offset and limit across
// several pages, and the creation filters. Each list's own filters follow.

// listing is one list of the SDK seen through the common parameters.
type listing[T any] struct {
	iter func(ctx context.Context, p openpay.ListParams) iter.Seq2[*T, error]
	page func(ctx context.Context, p openpay.ListParams) ([]*T, error)
	id   func(*T) string
}

// collect ranges over a list to its end.
func collect[T any](t *testing.T, seq iter.Seq2[*T, error], id func(*T) string) []string {
	t.Helper()
	var out []string
	for v, err := range seq {
		require.NoError(t, err)
		out = append(out, id(v))
	}
	return out
}

// pageIDs is the ids of one page.
func pageIDs[T any](t *testing.T, items []*T, err error, id func(*T) string) []string {
	t.Helper()
	require.NoError(t, err)
	out := make([]string, 0, len(items))
	for _, item := range items {
		out = append(out, id(item))
	}
	return out
}

// checkListing checks a list that holds exactly the records created, oldest
// first, as ids, the i-th of them on the day days[i] (one record a day, at
// least five).
func checkListing[T any](t *testing.T, l listing[T], ids []string, days []openpay.Date) {
	t.Helper()
	require.GreaterOrEqual(t, len(ids), 5)
	ctx := context.Background()
	newest := slices.Clone(ids)
	slices.Reverse(newest)

	assert.Equal(t, newest, collect(t, l.iter(ctx, openpay.ListParams{Limit: 2}), l.id), "the iterator pages through all of them, newest first")
	assert.Equal(t, newest, collect(t, l.iter(ctx, openpay.ListParams{}), l.id))
	assert.Equal(t, newest[1:], collect(t, l.iter(ctx, openpay.ListParams{Offset: 1, Limit: 2}), l.id), "the iterator starts at the offset")
	var first []string
	for v, err := range l.iter(ctx, openpay.ListParams{Limit: 2}) {
		require.NoError(t, err)
		first = append(first, l.id(v))
		break
	}
	assert.Equal(t, newest[:1], first, "breaking out of the loop stops it")

	got, err := l.page(ctx, openpay.ListParams{Limit: 2})
	assert.Equal(t, newest[:2], pageIDs(t, got, err, l.id), "one page")
	got, err = l.page(ctx, openpay.ListParams{Offset: 2, Limit: 2})
	assert.Equal(t, newest[2:4], pageIDs(t, got, err, l.id), "the next page")
	got, err = l.page(ctx, openpay.ListParams{Offset: len(ids)})
	assert.Empty(t, pageIDs(t, got, err, l.id), "past the end")

	got, err = l.page(ctx, openpay.ListParams{Creation: days[1]})
	assert.Equal(t, []string{ids[1]}, pageIDs(t, got, err, l.id), "creation: that day")
	got, err = l.page(ctx, openpay.ListParams{CreationGte: days[2]})
	assert.Equal(t, newest[:len(ids)-2], pageIDs(t, got, err, l.id), "creation[gte]")
	got, err = l.page(ctx, openpay.ListParams{CreationLte: days[1]})
	assert.Equal(t, newest[len(ids)-2:], pageIDs(t, got, err, l.id), "creation[lte]")
	assert.Equal(t, []string{ids[2], ids[1]}, collect(t, l.iter(ctx, openpay.ListParams{CreationGte: days[1], CreationLte: days[2], Limit: 1}), l.id),
		"both bounds, through the iterator one record a page")
}

// daily calls create n times, a day apart on the server's clock, and returns
// the ids and days (the merchant's) of what it created.
func daily(t *testing.T, k *contract, n int, create func(i int) string) (ids []string, days []openpay.Date) {
	t.Helper()
	for i := range n {
		days = append(days, k.srv.Country.Today(k.srv.Now()))
		ids = append(ids, create(i))
		_, err := k.srv.AdvanceClock(24 * time.Hour)
		require.NoError(t, err)
	}
	return ids, days
}

func txID(tx *openpay.Transaction) string { return tx.ID }

// txListing adapts a transaction list.
func txListing(it func(context.Context, *openpay.TransactionListParams, ...openpay.CallOption) iter.Seq2[*openpay.Transaction, error],
	pg func(context.Context, *openpay.TransactionListParams, ...openpay.CallOption) ([]*openpay.Transaction, error)) listing[openpay.Transaction] {
	return listing[openpay.Transaction]{
		iter: func(ctx context.Context, p openpay.ListParams) iter.Seq2[*openpay.Transaction, error] {
			return it(ctx, &openpay.TransactionListParams{ListParams: p})
		},
		page: func(ctx context.Context, p openpay.ListParams) ([]*openpay.Transaction, error) {
			return pg(ctx, &openpay.TransactionListParams{ListParams: p})
		},
		id: txID,
	}
}

// plainListing adapts a list that takes ListParams.
func plainListing[T any](it func(context.Context, *openpay.ListParams, ...openpay.CallOption) iter.Seq2[*T, error],
	pg func(context.Context, *openpay.ListParams, ...openpay.CallOption) ([]*T, error), id func(*T) string) listing[T] {
	return listing[T]{
		iter: func(ctx context.Context, p openpay.ListParams) iter.Seq2[*T, error] { return it(ctx, &p) },
		page: func(ctx context.Context, p openpay.ListParams) ([]*T, error) { return pg(ctx, &p) },
		id:   id,
	}
}

func TestContractListsOfCharges(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	cust, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Lista", Email: "lista@example.com"})
	require.NoError(t, err)
	card, err := k.c.Customer(cust.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	charges := k.c.Customer(cust.ID).Charges
	ids, days := daily(t, k, 5, func(i int) string {
		ch, err := charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount(fmt.Sprint(100 * (i + 1))),
			Description: "list", OrderID: fmt.Sprintf("list-%d", i)})
		require.NoError(t, err)
		return ch.ID
	})
	checkListing(t, txListing(charges.List, charges.ListPage), ids, days)
	// At merchant scope the customer's charges are listed too.
	checkListing(t, txListing(k.c.Charges.List, k.c.Charges.ListPage), ids, days)

	// The transaction filters.
	filter := func(p openpay.TransactionListParams) []string {
		return collect(t, charges.List(ctx, &p), txID)
	}
	assert.Equal(t, []string{ids[3]}, filter(openpay.TransactionListParams{OrderID: "list-3"}))
	assert.Empty(t, filter(openpay.TransactionListParams{OrderID: "list-9"}))
	assert.Equal(t, []string{ids[2]}, filter(openpay.TransactionListParams{Amount: openpay.MustAmount("300")}))
	assert.Equal(t, []string{ids[4], ids[3]}, filter(openpay.TransactionListParams{AmountGte: openpay.MustAmount("400")}))
	assert.Equal(t, []string{ids[1], ids[0]}, filter(openpay.TransactionListParams{AmountLte: openpay.MustAmount("200")}))
	assert.Equal(t, []string{ids[2], ids[1]}, filter(openpay.TransactionListParams{AmountGte: openpay.MustAmount("150"),
		AmountLte: openpay.MustAmount("300.00")}))
	// A declined charge is recorded failed; the status filter tells them apart.
	_, err = charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.EmulatorCardDeclined), Amount: openpay.MustAmount("50"), Description: "declined"})
	require.ErrorIs(t, err, openpay.ErrCardDeclined)
	failed := filter(openpay.TransactionListParams{Status: openpay.TransactionStatusFailed})
	require.Len(t, failed, 1)
	assert.NotContains(t, ids, failed[0])
	completed := filter(openpay.TransactionListParams{Status: openpay.TransactionStatusCompleted})
	want := slices.Clone(ids)
	slices.Reverse(want)
	assert.Equal(t, want, completed)
	// A bad filter value is the gateway's 1003, not a client-side guess.
	_, err = charges.ListPage(ctx, &openpay.TransactionListParams{Status: "teleported"})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
}

func TestContractListsOfMoneyMovements(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	a := k.fundedCustomer(t, "Origen", "10000")
	b := k.fundedCustomer(t, "Destino", "")

	transfers := k.c.Customer(a.ID).Transfers
	ids, days := daily(t, k, 5, func(i int) string {
		tr, err := transfers.Create(ctx, openpay.TransferRequest{CustomerID: b.ID, Amount: openpay.MustAmount("10"),
			Description: "list", OrderID: fmt.Sprintf("tr-%d", i)})
		require.NoError(t, err)
		return tr.ID
	})
	checkListing(t, txListing(transfers.List, transfers.ListPage), ids, days)

	fees := k.c.Fees
	ids, days = daily(t, k, 5, func(i int) string {
		fee, err := fees.Create(ctx, openpay.FeeRequest{CustomerID: a.ID, Amount: openpay.MustAmount("5"),
			Description: "list", OrderID: fmt.Sprintf("fee-%d", i)})
		require.NoError(t, err)
		return fee.ID
	})
	checkListing(t, txListing(fees.List, fees.ListPage), ids, days)

	ba, err := k.c.Customer(a.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{CLABE: "032180000118359719", HolderName: "Origen"})
	require.NoError(t, err)
	payouts := k.c.Customer(a.ID).Payouts
	ids, days = daily(t, k, 5, func(i int) string {
		po, err := payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: ba.ID, Amount: openpay.MustAmount("20"),
			Description: "list", OrderID: fmt.Sprintf("po-%d", i)})
		require.NoError(t, err)
		return po.ID
	})
	payoutListing := func(ps *openpay.PayoutsService) listing[openpay.Transaction] {
		return listing[openpay.Transaction]{
			iter: func(ctx context.Context, p openpay.ListParams) iter.Seq2[*openpay.Transaction, error] {
				return ps.List(ctx, &openpay.PayoutListParams{TransactionListParams: openpay.TransactionListParams{ListParams: p}})
			},
			page: func(ctx context.Context, p openpay.ListParams) ([]*openpay.Transaction, error) {
				return ps.ListPage(ctx, &openpay.PayoutListParams{TransactionListParams: openpay.TransactionListParams{ListParams: p}})
			},
			id: txID,
		}
	}
	checkListing(t, payoutListing(payouts), ids, days)
	checkListing(t, payoutListing(k.c.Payouts), ids, days) // the merchant sees its customers' payouts

	// payout_type: every payout here was requested through the API.
	newest := slices.Clone(ids)
	slices.Reverse(newest)
	byType := func(typ openpay.PayoutType) ([]string, error) {
		var out []string
		for tx, err := range payouts.List(ctx, &openpay.PayoutListParams{PayoutType: typ}) {
			if err != nil {
				return nil, err
			}
			out = append(out, tx.ID)
		}
		return out, nil
	}
	got, err := byType("MANUAL")
	require.NoError(t, err)
	assert.Equal(t, newest, got)
	got, err = byType("AUTOMATIC")
	require.NoError(t, err)
	assert.Empty(t, got)
	// A value the reference server does not know is passed through and
	// taken: it names a kind of payout there is none of.
	got, err = byType("SIDEWAYS")
	require.NoError(t, err)
	assert.Empty(t, got)
	// And the transaction filters apply to payouts as well.
	cancelled, err := payouts.Cancel(ctx, ids[1])
	require.NoError(t, err)
	st := collect(t, payouts.List(ctx, &openpay.PayoutListParams{TransactionListParams: openpay.TransactionListParams{
		Status: openpay.TransactionStatusCancelled}}), txID)
	assert.Equal(t, []string{cancelled.ID}, st)
	oid := collect(t, payouts.List(ctx, &openpay.PayoutListParams{TransactionListParams: openpay.TransactionListParams{OrderID: "po-3"}}), txID)
	assert.Equal(t, []string{ids[3]}, oid)
}

func TestContractListsOfStoredThings(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	cardNumbers := []string{openpaytest.CardVisa, openpaytest.CardVisaCredit, openpaytest.CardMastercard, openpaytest.CardAmex, openpaytest.EmulatorCardCarnet}
	cardID := func(c *openpay.Card) string { return c.ID }

	// Merchant cards.
	ids, days := daily(t, k, 5, func(i int) string {
		c, err := k.c.Cards.Create(ctx, cardRequest(cardNumbers[i]))
		require.NoError(t, err)
		return c.ID
	})
	checkListing(t, plainListing(k.c.Cards.List, k.c.Cards.ListPage, cardID), ids, days)

	// Customers, and the external_id filter.
	ids, days = daily(t, k, 5, func(i int) string {
		c, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: fmt.Sprintf("Cliente %d", i),
			Email: fmt.Sprintf("c%d@example.com", i), ExternalID: fmt.Sprintf("ext-%d", i)})
		require.NoError(t, err)
		return c.ID
	})
	custID := func(c *openpay.Customer) string { return c.ID }
	checkListing(t, listing[openpay.Customer]{
		iter: func(ctx context.Context, p openpay.ListParams) iter.Seq2[*openpay.Customer, error] {
			return k.c.Customers.List(ctx, &openpay.CustomerListParams{ListParams: p})
		},
		page: func(ctx context.Context, p openpay.ListParams) ([]*openpay.Customer, error) {
			return k.c.Customers.ListPage(ctx, &openpay.CustomerListParams{ListParams: p})
		},
		id: custID,
	}, ids, days)
	assert.Equal(t, []string{ids[2]}, collect(t, k.c.Customers.List(ctx, &openpay.CustomerListParams{ExternalID: "ext-2"}), custID))
	assert.Empty(t, collect(t, k.c.Customers.List(ctx, &openpay.CustomerListParams{ExternalID: "ext-9"}), custID))

	// A customer's cards and bank accounts.
	owner := ids[0]
	cards := k.c.Customer(owner).Cards
	ids, days = daily(t, k, 5, func(i int) string {
		c, err := cards.Create(ctx, cardRequest(cardNumbers[i]))
		require.NoError(t, err)
		return c.ID
	})
	checkListing(t, plainListing(cards.List, cards.ListPage, cardID), ids, days)

	banks := k.c.Customer(owner).BankAccounts
	clabes := []string{"032180000118359719", "002010077777777771", "012180001234567899", "072580010000000001", "021180040000000008"}
	ids, days = daily(t, k, 5, func(i int) string {
		ba, err := banks.Create(ctx, openpay.BankAccountRequest{CLABE: clabes[i], HolderName: "Cliente"})
		require.NoError(t, err, clabes[i])
		return ba.ID
	})
	checkListing(t, plainListing(banks.List, banks.ListPage, func(b *openpay.BankAccount) string { return b.ID }), ids, days)
}

func TestContractListsOfPlansAndSubscriptions(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	ids, days := daily(t, k, 5, func(i int) string {
		p, err := k.c.Plans.Create(ctx, monthlyPlan(fmt.Sprintf("Plan %d", i)))
		require.NoError(t, err)
		return p.ID
	})
	checkListing(t, plainListing(k.c.Plans.List, k.c.Plans.ListPage, func(p *openpay.Plan) string { return p.ID }), ids, days)

	// Five customers on one plan; each has one subscription.
	plan := ids[0]
	subID := func(s *openpay.Subscription) string { return s.ID }
	var owners []string
	ids, days = daily(t, k, 5, func(i int) string {
		cust, card := k.subscriber(t, openpaytest.CardVisa)
		owners = append(owners, cust.ID)
		s, err := k.c.Customer(cust.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan, SourceID: card.ID})
		require.NoError(t, err)
		return s.ID
	})
	checkListing(t, listing[openpay.Subscription]{
		iter: func(ctx context.Context, p openpay.ListParams) iter.Seq2[*openpay.Subscription, error] {
			return k.c.Plans.Subscriptions(ctx, plan, &p)
		},
		page: func(ctx context.Context, p openpay.ListParams) ([]*openpay.Subscription, error) {
			return k.c.Plans.SubscriptionsPage(ctx, plan, &p)
		},
		id: subID,
	}, ids, days)
	planSubs := ids
	none, err := k.c.Plans.SubscriptionsPage(ctx, k.mustPlan(t, "Empty"), nil)
	assert.Empty(t, pageIDs(t, none, err, subID), "a plan nobody subscribed to")

	// One customer with five subscriptions.
	cust, card := k.subscriber(t, openpaytest.CardMastercard)
	subs := k.c.Customer(cust.ID).Subscriptions
	ids, days = daily(t, k, 5, func(int) string {
		s, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan, SourceID: card.ID})
		require.NoError(t, err)
		return s.ID
	})
	checkListing(t, plainListing(subs.List, subs.ListPage, subID), ids, days)
	mine, err := k.c.Customer(owners[0]).Subscriptions.ListPage(ctx, nil)
	assert.Equal(t, []string{planSubs[0]}, pageIDs(t, mine, err, subID), "another customer's list holds only its own")
}

// mustPlan creates a monthly plan and returns its id.
func (k *contract) mustPlan(t *testing.T, name string) string {
	t.Helper()
	p, err := k.c.Plans.Create(context.Background(), monthlyPlan(name))
	require.NoError(t, err)
	return p.ID
}
