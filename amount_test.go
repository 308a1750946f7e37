package openpay

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{in: "250", want: "250.00"},
		{in: "250.5", want: "250.50"},
		{in: "250.50", want: "250.50"},
		{in: "0.01", want: "0.01"},
		{in: "0", want: "0.00"},
		{in: "-10.25", want: "-10.25"},
		{in: "1.005", wantErr: ErrAmountPrecision},
		{in: "0.001", wantErr: ErrAmountPrecision},
		{in: "1.000", wantErr: ErrAmountPrecision}, // a thousand, where a point separates thousands
		{in: "1.500", wantErr: ErrAmountPrecision},
		{in: "250,50", wantErr: ErrInvalidAmount},
		{in: "007.50", want: "7.50"},
		{in: "abc", wantErr: ErrInvalidAmount},
		{in: "", wantErr: ErrInvalidAmount},
		// Only plain decimals: what a person may mean by anything else is
		// a guess (issue 22, item 7).
		{in: "1e3", wantErr: ErrInvalidAmount},
		{in: "1E+2", wantErr: ErrInvalidAmount},
		{in: "2.5e1", wantErr: ErrInvalidAmount},
		{in: "1,000", wantErr: ErrInvalidAmount},
		{in: "1,000.50", wantErr: ErrInvalidAmount},
		{in: "1.000,50", wantErr: ErrInvalidAmount},
		{in: "1_000", wantErr: ErrInvalidAmount},
		{in: "1'000", wantErr: ErrInvalidAmount},
		{in: "1.2.3", wantErr: ErrInvalidAmount},
		{in: " 250", wantErr: ErrInvalidAmount},
		{in: "250 ", wantErr: ErrInvalidAmount},
		{in: "2 500", wantErr: ErrInvalidAmount},
		{in: "250\n", wantErr: ErrInvalidAmount},
		{in: "+250", wantErr: ErrInvalidAmount},
		{in: "--250", wantErr: ErrInvalidAmount},
		{in: "-", wantErr: ErrInvalidAmount},
		{in: "0x10", wantErr: ErrInvalidAmount},
		{in: ".5", wantErr: ErrInvalidAmount},
		{in: "-.5", wantErr: ErrInvalidAmount},
		{in: "5.", wantErr: ErrInvalidAmount},
		{in: ".", wantErr: ErrInvalidAmount},
		{in: "$250", wantErr: ErrInvalidAmount},
		{in: "250 MXN", wantErr: ErrInvalidAmount},
		{in: "Inf", wantErr: ErrInvalidAmount},
		{in: "NaN", wantErr: ErrInvalidAmount},
		{in: "\uff15", wantErr: ErrInvalidAmount}, // a full-width 5
		{in: "1" + strings.Repeat("0", 60), wantErr: ErrInvalidAmount},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := NewAmount(tt.in)
			if tt.want == "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.wantErr)
				assert.Panics(t, func() { MustAmount(tt.in) })
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, a.String())
		})
	}
}

// A card number typed into the amount box is refused without being
// echoed into the error (which may be logged or shown).
func TestNewAmountDoesNotEchoItsInput(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"4111 1111 1111 1111", "4111-1111-1111-1111", "sk_e568c42a6c384b7ab02cd47d2e407cab"} {
		_, err := NewAmount(in)
		require.ErrorIs(t, err, ErrInvalidAmount)
		assert.NotContains(t, err.Error(), "4111")
		assert.NotContains(t, err.Error(), "e568c42a")
	}
}

func TestAmountFromCents(t *testing.T) {
	t.Parallel()
	a := AmountFromCents(12550)
	assert.Equal(t, "125.50", a.String())
	c, ok := a.Cents()
	assert.True(t, ok)
	assert.Equal(t, int64(12550), c)
	assert.True(t, a.Equal(MustAmount("125.5")))
}

func TestAmountArithmeticIsExact(t *testing.T) {
	t.Parallel()
	// 0.1 + 0.2 is the classic float failure.
	sum := MustAmount("0.10").Add(MustAmount("0.20"))
	assert.True(t, sum.Equal(MustAmount("0.30")), sum.String())
	total := Amount{}
	for range 1000 {
		total = total.Add(MustAmount("0.01"))
	}
	assert.Equal(t, "10.00", total.String())
	assert.Equal(t, 1, MustAmount("10").Cmp(MustAmount("9.99")))
	assert.Equal(t, "-0.01", MustAmount("9.99").Sub(MustAmount("10")).String())
	assert.True(t, MustAmount("5").Neg().Add(MustAmount("5")).IsZero())
}

func TestAmountMarshalJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(struct {
		A Amount `json:"amount"`
		B Amount `json:"fee,omitzero"`
	}{A: MustAmount("250.50")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"amount":250.5}`, string(b))
	assert.Equal(t, `{"amount":250.5}`, string(b), "a JSON number, never a string, and zero omitted")
	for in, want := range map[string]string{"100": "100.0", "100.00": "100.0", "1000.50": "1000.5", "0": "0.0", "-7": "-7.0", "11.11": "11.11"} {
		b, err := json.Marshal(MustAmount(in))
		require.NoError(t, err)
		assert.Equal(t, want, string(b), "an amount always carries a decimal point, as the gateway's answers do")
	}

	// Precision added by arithmetic is refused at marshal time, never rounded.
	third, err := AmountFromDecimal(decimal.RequireFromString("100"))
	require.NoError(t, err)
	bad := Amount{d: third.Decimal().Div(decimal.NewFromInt(3))}
	_, err = json.Marshal(bad)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrAmountPrecision)
	assert.False(t, bad.HasValidPrecision())
	_, ok := bad.Cents()
	assert.False(t, ok)
}

func TestAmountUnmarshalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{in: `100.0`, want: "100.00"},
		{in: `2000`, want: "2000.00"},
		{in: `10.5`, want: "10.50"},
		{in: `"22.5"`, want: "22.50"},
		{in: `99999.99`, want: "99999.99"},
		{in: `1.005`, want: "1.005"}, // kept exactly; receivers check precision
		{in: `"x"`, wantErr: true},
		{in: `true`, wantErr: true},
		{in: `{}`, wantErr: true},
		{in: `""`, wantErr: true},
		{in: `1e999999999`, wantErr: true}, // would format to a billion digits
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var a Amount
			err := json.Unmarshal([]byte(tt.in), &a)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, a.String())
		})
	}
	a := MustAmount("7")
	require.NoError(t, json.Unmarshal([]byte(`null`), &a))
	assert.Equal(t, "7.00", a.String(), "null leaves the amount unchanged")
}

// The SDK must not depend on, or change, the decimal library's global JSON
// setting: a program that sets it either way gets the same wire format.
func TestAmountIgnoresDecimalGlobals(t *testing.T) {
	old := decimal.MarshalJSONWithoutQuotes
	t.Cleanup(func() { decimal.MarshalJSONWithoutQuotes = old })
	for _, setting := range []bool{false, true} {
		decimal.MarshalJSONWithoutQuotes = setting
		b, err := json.Marshal(MustAmount("12.30"))
		require.NoError(t, err)
		assert.Equal(t, `12.3`, string(b))
		b, err = json.Marshal(MustDecimal("19.6452"))
		require.NoError(t, err)
		assert.Equal(t, `19.6452`, string(b))
		assert.Equal(t, setting, decimal.MarshalJSONWithoutQuotes, "the SDK must not change the setting")
	}
}

func TestAmountText(t *testing.T) {
	t.Parallel()
	b, err := MustAmount("1500").MarshalText()
	require.NoError(t, err)
	assert.Equal(t, "1500", string(b))
	var a Amount
	require.NoError(t, a.UnmarshalText([]byte("12.34")))
	assert.Equal(t, "12.34", a.String())
	assert.Error(t, a.UnmarshalText([]byte("12,34")))
}

func TestMustAmountPanicsOnBadLiteral(t *testing.T) {
	t.Parallel()
	assert.Panics(t, func() { MustAmount("1.234") })
	assert.NotPanics(t, func() { MustAmount("1.23") })
}

func TestDecimal(t *testing.T) {
	t.Parallel()
	var d Decimal
	require.NoError(t, json.Unmarshal([]byte(`"300"`), &d))
	assert.Equal(t, "300", d.String())
	require.NoError(t, json.Unmarshal([]byte(`0.160000`), &d))
	assert.True(t, d.Equal(MustDecimal("0.16")))
	b, err := json.Marshal(MustDecimal("0.160000"))
	require.NoError(t, err)
	assert.Equal(t, `0.16`, string(b))
	assert.Error(t, json.Unmarshal([]byte(`[1]`), &d))
	_, err = NewDecimal("1e")
	assert.Error(t, err)
}

func TestFlexInt(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]flexInt{`404`: 404, `"404"`: 404, `" 6 "`: 6, `-1`: -1} {
		var n flexInt
		require.NoError(t, json.Unmarshal([]byte(in), &n), in)
		assert.Equal(t, want, n, in)
	}
	for _, in := range []string{`"x"`, `1.5`, `{}`, `true`} {
		var n flexInt
		assert.Error(t, json.Unmarshal([]byte(in), &n), in)
	}
	n := flexInt(9)
	require.NoError(t, json.Unmarshal([]byte(`null`), &n))
	assert.Equal(t, flexInt(9), n)
	b, err := json.Marshal(flexInt(412))
	require.NoError(t, err)
	assert.Equal(t, `412`, string(b))
}

func TestFlexString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]flexString{`4913`: "4913", `"4913"`: "4913", `12.50`: "12.50", `"a\"b"`: `a"b`} {
		var s flexString
		require.NoError(t, json.Unmarshal([]byte(in), &s), in)
		assert.Equal(t, want, s, in)
	}
	for _, in := range []string{`{}`, `[1]`, `true`} {
		var s flexString
		assert.Error(t, json.Unmarshal([]byte(in), &s), in)
	}
	b, err := json.Marshal(flexString("4913"))
	require.NoError(t, err)
	assert.Equal(t, `"4913"`, string(b))
}

func FuzzAmountUnmarshalJSON(f *testing.F) {
	for _, s := range []string{`1`, `"1.50"`, `null`, `1e400`, `"-0.01"`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Amount
		if err := json.Unmarshal(b, &a); err != nil {
			return
		}
		// Whatever decodes either re-encodes exactly or is refused for
		// precision: never silently rounded.
		out, err := json.Marshal(a)
		if err != nil {
			if !errors.Is(err, ErrAmountPrecision) {
				t.Fatalf("unexpected marshal error %v", err)
			}
			return
		}
		var back Amount
		if err := json.Unmarshal(out, &back); err != nil || !back.Equal(a) {
			t.Fatalf("round trip of %s changed %s to %s (%v)", b, a, back, err)
		}
	})
}

// AppendText must write what the decimal library's String writes with its
// default settings, with ".0" after a whole amount, whether or not
// the value takes the path without math/big, and refuse what MarshalJSON
// refuses.
func TestAmountAppendText(t *testing.T) {
	t.Parallel()
	huge, ok := new(big.Int).SetString("-123456789012345678901234567890", 10)
	require.True(t, ok)
	values := []decimal.Decimal{
		{}, decimal.New(0, -2), decimal.New(0, 3), decimal.New(5, -2), decimal.New(-5, -2),
		decimal.New(50, -2), decimal.New(12550, -2), decimal.New(-12550, -2), decimal.New(1000, -1),
		decimal.New(7, 0), decimal.New(-7, 3), decimal.New(999999999999999999, -2),
		decimal.New(-999999999999999999, 0), decimal.New(1<<62, -2), decimal.New(-1<<63, -2),
		decimal.New(math.MaxInt64, 0), decimal.New(12300, -4), decimal.New(-5000, -5),
		decimal.NewFromBigInt(huge, -2), decimal.NewFromBigInt(huge, 2), decimal.NewFromBigInt(huge, -9),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		c := r.Int64() >> r.IntN(63)
		if r.IntN(2) == 0 {
			c = -c
		}
		values = append(values, decimal.New(c, int32(r.IntN(8)-5)))
	}
	for _, d := range values {
		a := Amount{d: d}
		got, err := a.AppendText([]byte("x:"))
		if a.checkPrecision() != nil {
			require.ErrorIs(t, err, ErrAmountPrecision, "%s", d)
			_, err = a.MarshalJSON()
			require.ErrorIs(t, err, ErrAmountPrecision, "%s", d)
			continue
		}
		require.NoError(t, err, "%s", d)
		want := d.String()
		if !strings.Contains(want, ".") {
			want += ".0" // a whole amount is written with a point, as the gateway writes it
		}
		require.Equal(t, "x:"+want, string(got), "coefficient %s, exponent %d", d.Coefficient(), d.Exponent())
		text, err := a.MarshalText()
		require.NoError(t, err)
		require.Equal(t, d.String(), string(text), "query strings keep the plain form")
	}
}

// Not parallel: AllocsPerRun counts the whole process's allocations.
func TestAmountAppendTextDoesNotAllocate(t *testing.T) {
	a, buf := MustAmount("-1234.5"), make([]byte, 0, 64)
	n := testing.AllocsPerRun(100, func() { _, _ = a.AppendText(buf[:0]) })
	assert.Zero(t, n, "an ordinary amount formats without allocating")
}

// The members the gateway writes loosely land in plain fields: a quoted
// number in an int, a number in a string, and the other members as usual.
func TestLooseMembersInPlainFields(t *testing.T) {
	t.Parallel()
	var pp PaymentPlan
	require.NoError(t, json.Unmarshal([]byte(`{"payments":"6","payments_type":"WITHOUT_INTEREST"}`), &pp))
	assert.Equal(t, PaymentPlan{Payments: 6, PaymentsType: InterestFree}, pp)
	require.NoError(t, json.Unmarshal([]byte(`{"payments":9}`), &pp))
	assert.Equal(t, 9, pp.Payments)

	var st Store
	require.NoError(t, json.Unmarshal([]byte(`{"id":"1307","id_store":4913,"name":"Farmacia"}`), &st))
	assert.Equal(t, 1307, st.ID)
	assert.Equal(t, "4913", st.IDStore)
	assert.Equal(t, "Farmacia", st.Name)

	var rd RiskData
	require.NoError(t, json.Unmarshal([]byte(`{"score":0.75,"rules":["velocity"]}`), &rd))
	assert.Equal(t, "0.75", rd.Score)
	assert.Equal(t, []string{"velocity"}, rd.Rules)

	var e errorResponse
	require.NoError(t, json.Unmarshal([]byte(`{"http_code":"404","error_code":1005,"description":"x"}`), &e))
	assert.Equal(t, 404, e.HTTPCode)
	assert.Equal(t, ErrNotFound, e.ErrorCode)

	assert.Error(t, json.Unmarshal([]byte(`{"payments":"six"}`), &pp))

	// Encoding is the plain fields' own: a number, a string.
	b, err := json.Marshal(Store{ID: 12, IDStore: "4913"})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"id":12`)
	assert.Contains(t, string(b), `"id_store":"4913"`)
}
