package openpay

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDateUnmarshalJSON(t *testing.T) {
	t.Parallel()
	day := Date{2016, time.January, 11}
	tests := []struct {
		name, in string
		want     Date
		wantErr  bool
	}{
		{"day", `"2016-01-11"`, day, false},
		// A timestamp keeps the day as written, in its own offset, not
		// the day of that instant in UTC (which is the 12th here).
		{"timestamp with offset", `"2016-01-11T23:30:00-06:00"`, day, false},
		{"timestamp in UTC", `"2016-01-11T00:00:00Z"`, day, false},
		{"timestamp, offset without colon", `"2016-01-11T23:36:00.000-0500"`, day, false},
		{"timestamp without offset", `"2016-01-11T10:00:00"`, day, false},
		{"timestamp with a space", `"2016-01-11 10:00:00"`, day, false},
		{"null", `null`, Date{}, false},
		{"empty", `""`, Date{}, false},
		{"slashes", `"2016/01/11"`, Date{}, true},
		{"day first", `"11-01-2016"`, Date{}, true},
		{"no such day", `"2016-02-30"`, Date{}, true},
		{"number", `20160111`, Date{}, true},
		{"object", `{}`, Date{}, true},
		{"trailing junk", `"2016-01-11Tnoon"`, Date{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d Date
			err := json.Unmarshal([]byte(tt.in), &d)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, d)
		})
	}

	// null and "" leave a value in place, as for the other loose types.
	d := day
	require.NoError(t, json.Unmarshal([]byte(`null`), &d))
	assert.Equal(t, day, d)
}

func TestDateMarshal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      Date
		json    string
		text    string
		wantErr bool
	}{
		{"day", NewDate(2016, time.January, 11), `"2016-01-11"`, "2016-01-11", false},
		{"small year", Date{987, time.March, 4}, `"0987-03-04"`, "0987-03-04", false},
		{"zero", Date{}, `null`, "", false},
		{"no such day", Date{2025, time.February, 30}, "", "", true},
		{"no month", Date{2025, 0, 1}, "", "", true},
		{"year too large", Date{10000, time.January, 1}, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.in)
			text, terr := tt.in.MarshalText()
			if tt.wantErr {
				assert.Error(t, err)
				assert.True(t, errors.Is(terr, ErrInvalidDate), "MarshalText: %v", terr)
				return
			}
			require.NoError(t, err)
			require.NoError(t, terr)
			assert.Equal(t, tt.json, string(b))
			assert.Equal(t, tt.text, string(text))
			assert.Equal(t, tt.text, tt.in.String())
		})
	}
}

// Requests leave an unset day out (omitzero) and send a set one as
// yyyy-mm-dd.
func TestDateOmitZero(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(SubscriptionRequest{PlanID: "p1"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"plan_id":"p1"}`, string(b))
	b, err = json.Marshal(SubscriptionRequest{PlanID: "p1", TrialEndDate: NewDate(2026, time.May, 1)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"plan_id":"p1","trial_end_date":"2026-05-01"}`, string(b))
}

func TestDateConversions(t *testing.T) {
	t.Parallel()
	mexico := time.FixedZone("CST", -6*3600)
	late := time.Date(2024, time.February, 29, 23, 30, 0, 0, mexico)
	assert.Equal(t, Date{2024, time.February, 29}, DateOf(late), "the day in the time's own location")
	assert.Equal(t, Date{2024, time.March, 1}, DateOf(late.UTC()))
	assert.Equal(t, time.Date(2024, time.February, 29, 0, 0, 0, 0, mexico), DateOf(late).In(mexico))

	assert.Equal(t, Date{2025, time.February, 1}, NewDate(2025, time.January, 32), "normalised like time.Date")
	assert.Equal(t, Date{2024, time.March, 1}, Date{2024, time.February, 28}.AddDays(2))
	assert.Equal(t, Date{2023, time.December, 31}, Date{2024, time.January, 1}.AddDays(-1))

	d, err := ParseDate("2016-01-11")
	require.NoError(t, err)
	assert.Equal(t, Date{2016, time.January, 11}, d)
	_, err = ParseDate("2016-01-11T00:00:00Z")
	assert.Error(t, err, "ParseDate takes only yyyy-mm-dd")

	assert.True(t, Date{}.IsZero())
	assert.False(t, d.IsZero())
	assert.False(t, Date{}.IsValid())
	assert.True(t, d.IsValid())
	assert.False(t, Date{2023, time.February, 29}.IsValid())
}

func TestDateCompare(t *testing.T) {
	t.Parallel()
	days := []Date{{2023, time.December, 31}, {2024, time.January, 1}, {2024, time.January, 2}, {2024, time.February, 1}}
	for i, a := range days {
		for j, b := range days {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			assert.Equal(t, want, a.Compare(b), "%s vs %s", a, b)
			assert.Equal(t, i < j, a.Before(b), "%s before %s", a, b)
			assert.Equal(t, i > j, a.After(b), "%s after %s", a, b)
		}
	}
}

// A Date read from a query-string or form value takes the same forms as
// one read from JSON.
func TestDateUnmarshalText(t *testing.T) {
	t.Parallel()
	var d Date
	require.NoError(t, d.UnmarshalText([]byte("2016-01-11")))
	assert.Equal(t, Date{2016, time.January, 11}, d)
	require.NoError(t, d.UnmarshalText(nil))
	assert.Equal(t, Date{2016, time.January, 11}, d, "empty text leaves the value")
	assert.Error(t, d.UnmarshalText([]byte("tomorrow")))
}

// A country's day at an instant is the day on its own clocks, whatever
// the zone the instant is given in, all year round (no daylight saving
// time in any of the three).
func TestCountryToday(t *testing.T) {
	t.Parallel()
	utc := func(month time.Month, day, hour, minute int) time.Time {
		return time.Date(2026, month, day, hour, minute, 0, 0, time.UTC)
	}
	tokyo := time.FixedZone("JST", 9*3600)
	cases := []struct {
		country Country
		at      time.Time
		want    Date
		offset  int // seconds east of UTC
	}{
		{CountryMexico, utc(time.March, 11, 0, 30), NewDate(2026, time.March, 10), -6 * 3600},
		{CountryMexico, utc(time.March, 11, 5, 59), NewDate(2026, time.March, 10), -6 * 3600},
		{CountryMexico, utc(time.March, 11, 6, 0), NewDate(2026, time.March, 11), -6 * 3600},
		{CountryMexico, utc(time.July, 1, 5, 30).In(tokyo), NewDate(2026, time.June, 30), -6 * 3600}, // no summer time
		{CountryColombia, utc(time.March, 11, 4, 59), NewDate(2026, time.March, 10), -5 * 3600},
		{CountryColombia, utc(time.March, 11, 5, 30), NewDate(2026, time.March, 11), -5 * 3600}, // Mexico is still on the 10th
		{CountryPeru, utc(time.December, 31, 23, 0).In(tokyo), NewDate(2026, time.December, 31), -5 * 3600},
		{CountryPeru, utc(time.January, 1, 5, 0), NewDate(2026, time.January, 1), -5 * 3600},
		{"", utc(time.March, 11, 5, 30), NewDate(2026, time.March, 10), -6 * 3600},   // the default country
		{"XX", utc(time.March, 11, 5, 30), NewDate(2026, time.March, 10), -6 * 3600}, // unknown: Mexico's
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.country.Today(tc.at), "%q at %v", tc.country, tc.at)
		_, offset := tc.at.In(tc.country.Location()).Zone()
		assert.Equal(t, tc.offset, offset, "%q", tc.country)
	}
	assert.Equal(t, time.Date(2026, time.March, 10, 6, 0, 0, 0, time.UTC), NewDate(2026, time.March, 10).In(CountryMexico.Location()).UTC(),
		"the country's day starts at its midnight")
}
