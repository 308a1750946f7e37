package listquery

import (
	"math"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

func TestInt(t *testing.T) {
	t.Parallel()
	n, e := Int(url.Values{"month": {"12"}}, "month", 1, 12)
	require.Nil(t, e)
	assert.Equal(t, 12, n)
	for q, code := range map[string]openpay.Code{"": openpay.ErrBadRequest, "month=": openpay.ErrBadRequest,
		"month=x": openpay.ErrBadRequest, "month=13": openpay.ErrInvalidParameter, "month=0": openpay.ErrInvalidParameter} {
		v, err := url.ParseQuery(q)
		require.NoError(t, err)
		_, e := Int(v, "month", 1, 12)
		require.NotNil(t, e, q)
		assert.Equal(t, code, e.Code, q)
		assert.Contains(t, e.Description, "'month'", q)
	}
}

func TestKind(t *testing.T) {
	t.Parallel()
	k, e := Kind(url.Values{"fee_type": {"charged"}}, "fee_type", openpay.FeeReportType.Valid)
	require.Nil(t, e)
	assert.True(t, k.Valid())
	_, e = Kind(url.Values{}, "fee_type", openpay.FeeReportType.Valid)
	require.NotNil(t, e)
	assert.Equal(t, openpay.ErrBadRequest, e.Code)
	_, e = Kind(url.Values{"fee_type": {"sometimes"}}, "fee_type", openpay.FeeReportType.Valid)
	require.NotNil(t, e)
	assert.Equal(t, openpay.ErrInvalidParameter, e.Code)
	assert.NotContains(t, e.Description, "sometimes", "the value sent is not echoed")
}

func TestMonth(t *testing.T) {
	t.Parallel()
	zone := openpay.CountryPeru.Location()
	from, to, e := Month(url.Values{"year": {"2026"}, "month": {"2"}}, zone)
	require.Nil(t, e)
	assert.Equal(t, "2026-02-01T00:00:00-05:00", from.Format(time.RFC3339))
	assert.Equal(t, "2026-03-01T00:00:00-05:00", to.Format(time.RFC3339))
	_, _, e = Month(url.Values{"year": {"1999"}, "month": {"2"}}, zone)
	require.NotNil(t, e)
	assert.Contains(t, e.Description, "'year'")
	_, _, e = Month(url.Values{"year": {"2026"}}, zone)
	require.NotNil(t, e)
	assert.Contains(t, e.Description, "'month'")
}

func TestNumber(t *testing.T) {
	t.Parallel()
	x, e := Number(" 19.43 ", "latitud", -90, 90)
	require.Nil(t, e)
	assert.InDelta(t, 19.43, x, 1e-9)
	for _, raw := range []string{"", "north", "NaN", "Inf", "90.5"} {
		_, e := Number(raw, "latitud", -90, 90)
		require.NotNil(t, e, raw)
		assert.Equal(t, openpay.ErrInvalidParameter, e.Code, raw)
		assert.Contains(t, e.Description, "'latitud'", raw)
	}
	_, e = Number("1e308", "kilometers", -math.MaxFloat64, math.MaxFloat64)
	assert.Nil(t, e)
}
