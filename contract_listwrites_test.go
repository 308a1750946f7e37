package openpay_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reconciliation job ranges over the charges while the shop keeps
// selling: against the reference server, every charge that was there when
// the loop started is yielded, and nothing is yielded twice.

// shop is a merchant taking card charges on a reference server whose
// clock the test moves.
type shop struct {
	*contract
	card string
	n    int
}

func newShop(t *testing.T) *shop {
	t.Helper()
	k := newContract(t, openpaytest.Deterministic())
	card, err := k.c.Cards.Create(context.Background(), cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	return &shop{contract: k, card: card.ID}
}

// sell makes n card charges. A second passes on the server's clock before
// the first and after every seventh, so that some charges share a second
// and some do not.
func (s *shop) sell(t *testing.T, n int) []string {
	t.Helper()
	ids := make([]string, 0, n)
	_, err := s.srv.AdvanceClock(time.Second)
	require.NoError(t, err)
	for i := range n {
		if i > 0 && i%7 == 0 {
			_, err := s.srv.AdvanceClock(time.Second)
			require.NoError(t, err)
		}
		s.n++
		ch, err := s.c.Charges.Create(context.Background(), openpay.CardCharge{SourceID: s.card, Amount: openpay.MustAmount("10"),
			Description: "sale", OrderID: fmt.Sprintf("sale-%d", s.n)})
		require.NoError(t, err)
		ids = append(ids, ch.ID)
	}
	return ids
}

// checkOnceEach checks that yielded holds each of want once, and nothing
// twice.
func checkOnceEach(t *testing.T, want, yielded []string) {
	t.Helper()
	count := map[string]int{}
	for _, id := range yielded {
		count[id]++
	}
	assert.Len(t, count, len(yielded), "yielded %d charges, %d distinct", len(yielded), len(count))
	for _, id := range want {
		assert.Equal(t, 1, count[id], "charge %s there when the loop started", id)
	}
}

func TestContractListWhileCharging(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 20} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			t.Parallel()
			s := newShop(t)
			originals := s.sell(t, 150)
			var yielded []string
			for ch, err := range s.c.Charges.List(context.Background(), &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: limit}}) {
				require.NoError(t, err)
				yielded = append(yielded, ch.ID)
				switch len(yielded) {
				case 50:
					s.sell(t, 3)
				case 120:
					s.sell(t, 4)
				}
			}
			checkOnceEach(t, originals, yielded)
		})
	}
}

// More than a whole page is created between two page fetches: the next
// page holds only new charges or charges already yielded, and the loop
// goes on past it.
func TestContractListWhileChargingMoreThanAPage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit, after, sold int
	}{{limit: 0, after: 100, sold: 120}, {limit: 20, after: 20, sold: 45}, {limit: 20, after: 60, sold: 75}} {
		t.Run(fmt.Sprintf("limit %d, %d sold after %d", tc.limit, tc.sold, tc.after), func(t *testing.T) {
			t.Parallel()
			s := newShop(t)
			originals := s.sell(t, 150)
			var yielded []string
			for ch, err := range s.c.Charges.List(context.Background(), &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: tc.limit}}) {
				require.NoError(t, err)
				yielded = append(yielded, ch.ID)
				if len(yielded) == tc.after {
					s.sell(t, tc.sold)
				}
			}
			checkOnceEach(t, originals, yielded)
		})
	}
}
