package calendar

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

func TestPeriodsFollowTheCalendar(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		require.NoError(t, err)
		return d
	}
	month := &openpay.Plan{RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitMonth}
	quarter := &openpay.Plan{RepeatEvery: 3, RepeatUnit: openpay.RepeatUnitMonth}
	year := &openpay.Plan{RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitYear}
	week := &openpay.Plan{RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitWeek}
	for _, c := range []struct {
		anchor string
		n      int
		p      *openpay.Plan
		want   string
	}{
		{"2026-01-31", 0, month, "2026-01-31"},
		{"2026-01-31", 1, month, "2026-02-28"},
		{"2026-01-31", 2, month, "2026-03-31"},
		{"2026-01-31", 3, month, "2026-04-30"},
		{"2026-01-31", 13, month, "2027-02-28"},
		{"2027-12-31", 2, month, "2028-02-29"},
		{"2026-11-30", 1, quarter, "2027-02-28"},
		{"2028-02-29", 1, year, "2029-02-28"},
		{"2028-02-29", 4, year, "2032-02-29"},
		{"2026-12-29", 1, week, "2027-01-05"},
	} {
		assert.Equal(t, c.want, PeriodStart(day(c.anchor), c.n, c.p).Format(time.DateOnly), "%s + %d", c.anchor, c.n)
	}
	// Days are read in the zone given: the gateway's (UTC-6) here.
	assert.Equal(t, "2026-03-10", Day(time.Date(2026, 3, 11, 5, 59, 0, 0, time.UTC), openpay.CountryMexico.Location()).Format(time.DateOnly))
	assert.Equal(t, "2026-03-11", Day(time.Date(2026, 3, 11, 6, 0, 0, 0, time.UTC), openpay.CountryMexico.Location()).Format(time.DateOnly))
}

func TestDaysRoundTrip(t *testing.T) {
	t.Parallel()
	zone := openpay.CountryColombia.Location()
	at := time.Date(2026, 3, 11, 4, 59, 0, 0, time.UTC) // 23:59 of the 10th in Bogotá
	day := Day(at, zone)
	assert.Equal(t, "2026-03-10", day.Format(time.DateOnly))
	start := StartOfDay(day, zone)
	assert.Equal(t, "2026-03-10T00:00:00-05:00", start.Format(time.RFC3339))
	assert.Equal(t, day, Day(start, zone), "the first instant of a day is in that day")
	assert.Equal(t, "2026-01-10", AddMonths(day, -2).Format(time.DateOnly))
	d := openpay.DateOf(time.Date(2026, 7, 4, 23, 0, 0, 0, zone))
	assert.Equal(t, time.Date(2026, 7, 4, 0, 0, 0, 0, time.UTC), DateOnly(d))
}
