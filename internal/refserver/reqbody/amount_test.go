package reqbody

import (
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An amount read through centsForm is the one the type's own reading
// gives, coefficient and exponent alike, and the forms centsForm does not
// take are read as before; the common form allocates nothing.
func FuzzAmountAsTheTypeReadsIt(f *testing.F) {
	for _, s := range []string{`100.50`, `0.50`, `-0.50`, `-0.00`, `0.05`, `100.5`, `100`, `1.505`, `1e2`, `1.5e2`, `"100.50"`,
		`999999999999999.99`, `9999999999999.99`, `99999999999999.99`, `-99999999999999.99`, `1234567890123456789.12`, `true`, `null`,
		`"1.5"`, `" 2.50"`, `12.3e4`, `-1`, `0.1`, `7.00`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(`{"amount":` + s + `}`)
		fs, e := Parse(data, false)
		if e != nil {
			return
		}
		var got, want openpay.Amount
		ge := fs.at(fs.last("amount") + 1)
		if ge == nil {
			return
		}
		gotErr := ge.amount("", &got)
		lit, ok := looseNumber(trimSpace(ge.raw))
		wantOK := ok && want.UnmarshalJSON(lit) == nil
		require.Equal(t, wantOK, gotErr == nil, s)
		if wantOK {
			assert.Equal(t, want.Decimal().Coefficient().String(), got.Decimal().Coefficient().String(), s)
			assert.Equal(t, want.Decimal().Exponent(), got.Decimal().Exponent(), s)
			assert.Equal(t, want.String(), got.String(), s)
		}
	})
}

func TestCentsFormAllocatesNothing(t *testing.T) {
	fs, e := Parse([]byte(`{"amount":100.50}`), false)
	require.Nil(t, e)
	var a openpay.Amount
	require.Nil(t, fs[0].amount("", &a))
	assert.Equal(t, "100.50", a.String())
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = fs[0].amount("", &a) }))
	c, ok := centsForm([]byte(`-12.34`))
	assert.True(t, ok)
	assert.Equal(t, int64(-1234), c)
	for _, s := range []string{`12.345`, `12.3`, `12`, `1234567890123456.78`, `"1.50"`, `1.5e2`, `-.50`} {
		_, ok := centsForm([]byte(s))
		assert.False(t, ok, s)
	}
}
