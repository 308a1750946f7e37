package listquery

import (
	"net/url"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var mexico = func() *time.Location {
	l, err := time.LoadLocation("America/Mexico_City")
	if err != nil {
		panic(err)
	}
	return l
}()

func query(t *testing.T, raw string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(raw)
	require.NoError(t, err)
	return q
}

// The defaults, the cap on limit, and each refusal naming its parameter
// with code 1003.
func TestParse(t *testing.T) {
	t.Parallel()
	p, e := Parse(url.Values{}, mexico)
	require.Nil(t, e)
	assert.Equal(t, 0, p.Offset)
	assert.Equal(t, DefaultLimit, p.Limit)
	assert.False(t, p.Dated())

	p, e = Parse(query(t, "offset=5&limit=10000"), mexico)
	require.Nil(t, e)
	assert.Equal(t, 5, p.Offset)
	assert.Equal(t, MaxLimit, p.Limit, "a limit above the cap is taken as the cap")

	for raw, name := range map[string]string{
		"offset=-1":            "'offset'",
		"offset=x":             "'offset'",
		"limit=0":              "'limit'",
		"limit=":               "'limit'",
		"creation=2026-13-01":  "'creation'",
		"creation[gte]=monday": "'creation[gte]'",
		"creation[lte]=1/2/26": "'creation[lte]'",
	} {
		_, e := Parse(query(t, raw), mexico)
		if assert.NotNil(t, e, raw) {
			assert.Equal(t, openpay.ErrInvalidParameter, e.Code, raw)
			assert.Contains(t, e.Description, name, raw)
		}
	}
}

// A day is the zone's day: creation=2026-11-28 in Mexico City keeps
// 06:00 UTC of the 28th to 05:59 UTC of the 29th; the bounds are
// inclusive and narrow one another.
func TestDatesAreDaysOfTheZone(t *testing.T) {
	t.Parallel()
	p, e := Parse(query(t, "creation=2026-11-28"), mexico)
	require.Nil(t, e)
	assert.True(t, p.Dated())
	assert.False(t, p.KeepDate(time.Date(2026, 11, 28, 5, 59, 59, 0, time.UTC)))
	assert.True(t, p.KeepDate(time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)))
	assert.True(t, p.KeepDate(time.Date(2026, 11, 29, 5, 59, 59, 0, time.UTC)))
	assert.False(t, p.KeepDate(time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)))

	p, e = Parse(query(t, "creation[gte]=2026-11-01&creation[lte]=2026-11-30"), mexico)
	require.Nil(t, e)
	p.Narrow(time.Date(2026, 11, 10, 0, 0, 0, 0, mexico), time.Time{}) // a list's own filter
	assert.False(t, p.KeepDate(time.Date(2026, 11, 9, 12, 0, 0, 0, mexico)))
	assert.True(t, p.KeepDate(time.Date(2026, 11, 10, 0, 0, 0, 0, mexico)))
	assert.True(t, p.KeepDate(time.Date(2026, 11, 30, 23, 59, 0, 0, mexico)))
	assert.False(t, p.KeepDate(time.Date(2026, 12, 1, 0, 0, 0, 0, mexico)))
}

type rec struct {
	n       int
	created time.Time
	gone    bool
}

// Page walks newest first, skips what keep refuses and what the dates
// leave out, then applies offset and limit; DateRange finds the same
// dated records by binary search.
func TestPageAndDateRange(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, mexico)
	var recs []rec
	for i := range 30 {
		recs = append(recs, rec{n: i, created: start.AddDate(0, 0, i), gone: i%5 == 0})
	}
	keep := func(r rec) (time.Time, bool) { return r.created, !r.gone }
	num := func(r rec) int { return r.n }

	p, e := Parse(query(t, "offset=2&limit=4"), mexico)
	require.Nil(t, e)
	assert.Equal(t, []int{27, 26, 24, 23}, Page(p, recs, keep, num), "29 and 28 skipped, 25 gone")

	p, e = Parse(query(t, "creation[gte]=2026-11-03&creation[lte]=2026-11-07&limit=100"), mexico)
	require.Nil(t, e)
	assert.Equal(t, []int{6, 4, 3, 2}, Page(p, recs, keep, num))
	lo, hi := DateRange(p, recs, func(r rec) time.Time { return r.created })
	assert.Equal(t, 2, lo)
	assert.Equal(t, 7, hi)

	p, e = Parse(query(t, "creation=2027-01-01"), mexico)
	require.Nil(t, e)
	assert.Empty(t, Page(p, recs, keep, num))
	lo, hi = DateRange(p, recs, func(r rec) time.Time { return r.created })
	assert.Equal(t, lo, hi, "an empty range, never lo > hi")
}

// The amount filters compare in cents when every bound fits, exactly
// otherwise, and refuse more than two decimals; Excludes tells a range of
// cents no amount of which can pass.
func TestAmounts(t *testing.T) {
	t.Parallel()
	amt := func(s string) openpay.Amount {
		a, err := Amount(s)
		require.NoError(t, err)
		return a
	}
	b, e := Amounts(url.Values{})
	require.Nil(t, e)
	assert.False(t, b.Set())
	assert.True(t, b.Keep(amt("1")))

	b, e = Amounts(query(t, "amount[gte]=10&amount[lte]=1e2"))
	require.Nil(t, e)
	assert.True(t, b.Set())
	assert.False(t, b.Keep(amt("9.99")))
	assert.True(t, b.Keep(amt("10.00")))
	assert.True(t, b.Keep(amt("100")))
	assert.False(t, b.Keep(amt("100.01")))
	assert.False(t, b.Keep(amt("1e20")), "an amount beyond int64 cents is compared exactly")
	assert.True(t, b.Excludes(10001, 20000))
	assert.True(t, b.Excludes(0, 999))
	assert.False(t, b.Excludes(500, 1500))

	b, e = Amounts(query(t, "amount= 12.5 "))
	require.Nil(t, e)
	assert.True(t, b.Keep(amt("12.50")))
	assert.False(t, b.Keep(amt("12.51")))

	for _, raw := range []string{"amount=1.234", "amount[gte]=x", "amount[lte]="} {
		_, e := Amounts(query(t, raw))
		if assert.NotNil(t, e, raw) {
			assert.Equal(t, openpay.ErrInvalidParameter, e.Code)
		}
	}

	c, ok := Cents(amt("1.5"))
	assert.True(t, ok)
	assert.Equal(t, int64(150), c)
	_, ok = Cents(amt("1e30"))
	assert.False(t, ok)
}

func TestStatus(t *testing.T) {
	t.Parallel()
	st, e := Status(url.Values{})
	require.Nil(t, e)
	assert.Empty(t, st)
	st, e = Status(query(t, "status=COMPLETED"))
	require.Nil(t, e)
	assert.Equal(t, openpay.TransactionStatus("completed"), st)
	_, e = Status(query(t, "status=DONE"))
	if assert.NotNil(t, e) {
		assert.Contains(t, e.Description, "'status'")
	}
}
