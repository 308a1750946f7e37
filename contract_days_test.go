package openpay_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A merchant's nightly job, run on a server whose clock is UTC: "yesterday"
// is the merchant's country's yesterday, and a list of it holds exactly
// that day's sales as the gateway counts them.

// yesterdaysSales is the job: the ids of the completed charges of the
// country's yesterday at the instant now.
func yesterdaysSales(t *testing.T, c *openpay.Client, country openpay.Country, now time.Time) []string {
	t.Helper()
	yesterday := country.Today(now).AddDays(-1)
	var ids []string
	for ch, err := range c.Charges.List(context.Background(), &openpay.TransactionListParams{
		Status: openpay.TransactionStatusCompleted, ListParams: openpay.ListParams{Creation: yesterday}}) {
		require.NoError(t, err)
		ids = append(ids, ch.ID)
	}
	slices.Sort(ids)
	return ids
}

func TestContractNightlyJobInUTC(t *testing.T) {
	t.Parallel()
	utc := func(day, hour, minute int) time.Time {
		return time.Date(2026, time.March, day, hour, minute, 0, 0, time.UTC)
	}
	// Day D is March 10 in the merchant's country. Each sale is given as
	// the UTC instant it happens at: the job's computer knows no other
	// zone.
	cases := []struct {
		country openpay.Country
		sales   []time.Time // in order
		ofD     []int       // the indexes of the sales of day D
		job     time.Time   // when the nightly job runs
	}{{
		// Mexico City is UTC-6.
		country: openpay.CountryMexico,
		sales: []time.Time{
			utc(10, 5, 30), // 23:30 on March 9 in Mexico City: the day before
			utc(10, 16, 0), // 10:00 on D
			utc(11, 0, 0),  // 18:00 on D
			utc(11, 5, 0),  // 23:00 on D
			utc(11, 6, 0),  // 00:00 on March 11: the day after
			utc(11, 15, 0), // 09:00 on March 11
		},
		ofD: []int{1, 2, 3},
		job: utc(12, 0, 30), // 18:30 on March 11 in Mexico City
	}, {
		// Bogotá is UTC-5.
		country: openpay.CountryColombia,
		sales: []time.Time{
			utc(10, 4, 50), // 23:50 on March 9 in Bogotá
			utc(10, 5, 0),  // 00:00 on D
			utc(11, 0, 0),  // 19:00 on D
			utc(11, 4, 30), // 23:30 on D (22:30 in Mexico City)
			utc(11, 5, 15), // 00:15 on March 11 (23:15 on D in Mexico City)
		},
		ofD: []int{1, 2, 3},
		job: utc(12, 0, 30),
	}, {
		// Lima is UTC-5; the job runs late at night UTC.
		country: openpay.CountryPeru,
		sales: []time.Time{
			utc(10, 4, 59), // 23:59 on March 9 in Lima
			utc(10, 23, 0), // 18:00 on D
			utc(11, 4, 0),  // 23:00 on D
			utc(11, 5, 0),  // 00:00 on March 11
		},
		ofD: []int{1, 2},
		job: utc(12, 4, 30), // 23:30 on March 11 in Lima, March 12 in UTC
	}}
	for _, tc := range cases {
		t.Run(string(tc.country), func(t *testing.T) {
			t.Parallel()
			k := newContract(t, openpaytest.WithSeed(1), openpaytest.WithClock(tc.sales[0]), openpaytest.WithCountry(tc.country))
			ctx := context.Background()
			card, err := k.c.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
			require.NoError(t, err)
			var ofD []string
			for i, at := range tc.sales {
				if d := at.Sub(k.srv.Now()); d > 0 {
					_, err := k.srv.AdvanceClock(d)
					require.NoError(t, err)
				}
				ch, err := k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("100"),
					Description: "sale", OrderID: fmt.Sprintf("sale-%d", i)})
				require.NoError(t, err)
				if slices.Contains(tc.ofD, i) {
					ofD = append(ofD, ch.ID)
				}
			}
			_, err = k.srv.AdvanceClock(tc.job.Sub(k.srv.Now()))
			require.NoError(t, err)

			now := k.srv.Now().UTC() // what time.Now() gives in a UTC container
			require.Equal(t, tc.job, now)
			require.NotEqual(t, openpay.DateOf(now).AddDays(-1), tc.country.Today(now).AddDays(-1),
				"the case is one where the UTC calendar names another day")
			assert.Equal(t, openpay.NewDate(2026, time.March, 10), tc.country.Today(now).AddDays(-1))
			slices.Sort(ofD)
			assert.Equal(t, ofD, yesterdaysSales(t, k.c, tc.country, now), "exactly the sales of the country's day")

			// The same day through both bounds.
			d := tc.country.Today(now).AddDays(-1)
			page, err := k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{CreationGte: d, CreationLte: d, Limit: 100}})
			bounded := pageIDs(t, page, err, txID)
			slices.Sort(bounded)
			assert.Equal(t, ofD, bounded)
		})
	}
}
