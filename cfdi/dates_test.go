package cfdi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	d, err := ParseDate("2020-02-29")
	require.NoError(t, err)
	assert.Equal(t, Date{Year: 2020, Month: time.February, Day: 29}, d)
	assert.Equal(t, "2020-02-29", d.String())

	for _, bad := range []string{"", "2021-02-29", "2020-13-01", "2020-1-01", "20200101", "2020/01/01", "2020-01-01T00:00:00Z", " 2020-01-01", "0000-01-01"} {
		_, err := ParseDate(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestDateValid(t *testing.T) {
	t.Parallel()
	assert.True(t, Date{Year: 1, Month: 1, Day: 1}.IsValid())
	assert.True(t, Date{Year: 9999, Month: 12, Day: 31}.IsValid())
	for _, d := range []Date{{}, {Year: 2021, Month: 2, Day: 29}, {Year: 2021, Month: 4, Day: 31}, {Year: 2021, Month: 0, Day: 1},
		{Year: 2021, Month: 1, Day: 0}, {Year: 10000, Month: 1, Day: 1}, {Year: -1, Month: 1, Day: 1}} {
		assert.False(t, d.IsValid(), "%+v", d)
	}
	assert.True(t, Date{}.IsZero())
	assert.Equal(t, Date{Year: 2024, Month: 5, Day: 1}, DateOf(time.Date(2024, 5, 1, 23, 59, 0, 0, time.FixedZone("", -6*3600))))
}

func TestDateJSON(t *testing.T) {
	t.Parallel()
	var c DoneeComplement
	require.NoError(t, json.Unmarshal([]byte(`{"no_autorizacion":"1","fecha_autorizacion":"2019-07-04","leyenda":"x"}`), &c))
	assert.Equal(t, Date{Year: 2019, Month: time.July, Day: 4}, c.FechaAutorizacion)

	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{"no_autorizacion":"1","fecha_autorizacion":"2019-07-04","leyenda":"x"}`, string(b))

	assert.Error(t, json.Unmarshal([]byte(`{"fecha_autorizacion":"04/07/2019"}`), &c))
	assert.Error(t, json.Unmarshal([]byte(`{"fecha_autorizacion":20190704}`), &c))

	// An invalid date is never sent.
	_, err = json.Marshal(DoneeComplement{FechaAutorizacion: Date{Year: 2019, Month: 2, Day: 30}})
	assert.Error(t, err)
	// A missing date encodes as null; Validate reports it as required
	// (validate_test.go, "fecha_autorizacion missing").
	b, err = json.Marshal(DoneeComplement{})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"fecha_autorizacion":null`)
}

func TestParseDateTime(t *testing.T) {
	t.Parallel()
	cst := time.FixedZone("", -6*3600)
	cases := []struct {
		in   string
		want time.Time
	}{
		{"2014-05-26T13:51:25-05:00", time.Date(2014, 5, 26, 13, 51, 25, 0, time.FixedZone("", -5*3600))},
		{"2014-05-26T18:51:25Z", time.Date(2014, 5, 26, 18, 51, 25, 0, time.UTC)},
		{"2014-05-26T13:51:25.123-05:00", time.Date(2014, 5, 26, 13, 51, 25, 123e6, time.FixedZone("", -5*3600))},
		{"2014-05-26T13:51:25-0500", time.Date(2014, 5, 26, 13, 51, 25, 0, time.FixedZone("", -5*3600))},
		{"2014-05-26 13:51:25-05:00", time.Date(2014, 5, 26, 13, 51, 25, 0, time.FixedZone("", -5*3600))},
		{"2014-05-26T12:51:25", time.Date(2014, 5, 26, 12, 51, 25, 0, cst)},
		{"2014-05-26 12:51:25", time.Date(2014, 5, 26, 12, 51, 25, 0, cst)},
		{"2014-05-26T12:51:25.5", time.Date(2014, 5, 26, 12, 51, 25, 5e8, cst)},
		{"2014-05-26", time.Date(2014, 5, 26, 0, 0, 0, 0, cst)},
		{" 2014-05-26T13:51:25+01:00 ", time.Date(2014, 5, 26, 13, 51, 25, 0, time.FixedZone("", 3600))},
	}
	for _, tc := range cases {
		got, err := ParseDateTime(tc.in)
		require.NoError(t, err, tc.in)
		assert.True(t, tc.want.Equal(got.Time), "%q: got %v, want %v", tc.in, got.Time, tc.want)
		_, off := got.Zone()
		_, wantOff := tc.want.Zone()
		assert.Equal(t, wantOff, off, "%q keeps its offset", tc.in)
	}

	zero, err := ParseDateTime("")
	require.NoError(t, err)
	assert.True(t, zero.IsZero())

	for _, bad := range []string{"yesterday", "2014-05-26T25:00:00Z", "2014-13-01", "26/05/2014", "2014-05-26T13:51:25+25:00", "2014-05-26T13:51:25-1500", "1401134285"} {
		_, err := ParseDateTime(bad)
		assert.Error(t, err, "%q", bad)
	}
}

func TestDateTimeJSON(t *testing.T) {
	t.Parallel()
	var r GenerationResponse
	require.NoError(t, json.Unmarshal([]byte(`{"date":"2014-05-26T13:51:25-05:00"}`), &r))
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{"date":"2014-05-26T13:51:25-05:00"}`, string(b))

	// null leaves the value as it was; "" is no date; zero is left out.
	require.NoError(t, json.Unmarshal([]byte(`{"date":null}`), &r))
	assert.Equal(t, 2014, r.Date.Year())
	require.NoError(t, json.Unmarshal([]byte(`{"date":""}`), &r))
	assert.True(t, r.Date.IsZero())
	b, err = json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(b))

	assert.Error(t, json.Unmarshal([]byte(`{"date":1401134285}`), &r))
	assert.Error(t, json.Unmarshal([]byte(`{"date":"soon"}`), &r))

	// The text form agrees with the JSON form (the embedded time.Time's
	// stricter methods are not used).
	var dt DateTime
	require.NoError(t, dt.UnmarshalText([]byte("2014-05-26 13:51:25")))
	txt, err := dt.MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "2014-05-26T13:51:25-06:00", string(txt))
	assert.Equal(t, "", DateTime{}.String())
}
