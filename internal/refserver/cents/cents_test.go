package cents

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// amountOf makes the amount coef×10^exp, with its exponent as it is
// (an amount read from JSON keeps it: more decimals than cents, or a
// positive exponent), times 10^15 when huge (more digits than an int64).
func amountOf(coef int64, exp int32, huge bool) openpay.Amount {
	text := strconv.FormatInt(coef, 10)
	if huge {
		text += "000000000000000"
	}
	var a openpay.Amount
	if err := a.UnmarshalJSON(fmt.Appendf(nil, "%se%d", text, exp)); err != nil {
		panic(err)
	}
	return a
}

// checkSame fails unless b answers what the decimal balance want answers.
func checkSame(t *testing.T, b Balance, want openpay.Amount, step string) {
	t.Helper()
	got := b.Amount()
	require.Equal(t, 0, got.Cmp(want), "%s: %s, decimal %s", step, got, want)
	require.Equal(t, want.String(), got.String(), step)
	require.Equal(t, want.String(), b.String(), step)
	wantText, wantErr := want.AppendText(nil)
	gotText, gotErr := got.AppendText(nil)
	require.Equal(t, wantErr == nil, gotErr == nil, step)
	require.Equal(t, string(wantText), string(gotText), step)
	require.Equal(t, want.IsPositive(), b.IsPositive(), step)
}

// FuzzBalanceIsTheDecimalArithmetic: a balance moved by any sequence of
// additions and subtractions, of amounts in cents and of any other
// amount, opened at any amount, answers what openpay.Amount's decimal
// arithmetic answers after each step: the same value, written the same,
// compared the same.
func FuzzBalanceIsTheDecimalArithmetic(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 10, 0})
	f.Add([]byte{1, 0x39, 0x30, 0, 0, 0, 0, 0, 0, 0xfe, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0})
	f.Add([]byte{2, 5, 0, 0, 0, 0, 0, 0, 0, 0xfd, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0xff, 1})
	f.Add([]byte{3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0x80, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Each step: an operation byte, eight bytes of coefficient, an
		// exponent byte, a byte saying whether to make it huge.
		const step = 11
		read := func(p []byte) openpay.Amount {
			coef := int64(binary.LittleEndian.Uint64(p[1:9]))
			if p[0]&4 == 0 {
				coef %= 1_000_000_00 // most amounts are ordinary
			}
			exp := int32(int8(p[9])) % 6
			return amountOf(coef, exp, p[10]&1 == 1)
		}
		if len(data) < step {
			return
		}
		open := read(data[:step])
		b, want := Of(open), open
		if data[0]&8 == 0 {
			b, want = Balance{}, openpay.Amount{}
		}
		checkSame(t, b, want, "opening")
		for p := data[step:]; len(p) >= step; p = p[step:] {
			a := read(p)
			require.Equal(t, want.Cmp(a), b.Cmp(a), "compared with %s", a)
			if p[0]&1 == 0 {
				b.Add(a)
				want = want.Add(a)
			} else {
				b.Sub(a)
				want = want.Sub(a)
			}
			checkSame(t, b, want, "after "+a.String())
		}
	})
}

// FuzzMoveIsTheDecimalArithmetic: moving any sequence of amounts between
// two balances opened at any amounts, one way or the other, answers what
// openpay.Amount's decimal arithmetic answers: a move the paying balance
// cannot cover moves nothing and reports false, any other takes the amount
// from one and adds it to the other, written and compared the same.
func FuzzMoveIsTheDecimalArithmetic(f *testing.F) {
	f.Add([]byte{8, 0x10, 0x27, 0, 0, 0, 0, 0, 0, 0xfe, 0, 8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x97, 0x3a, 0, 0, 0, 0, 0, 0, 0xfe, 0})
	f.Add([]byte{8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xfe, 0, 12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xfe, 0,
		4, 1, 0, 0, 0, 0, 0, 0, 0x80, 0xfe, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0x80, 0xfe, 0})
	f.Add([]byte{8, 0x10, 0x27, 0, 0, 0, 0, 0, 0, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x27, 0, 0, 0, 0, 0, 0, 0xfe, 0}) // the whole balance
	f.Add([]byte{8, 5, 0, 0, 0, 0, 0, 0, 0, 2, 1, 8, 3, 0, 0, 0, 0, 0, 0, 0, 0xfd, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0xff, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		const step = 11 // as FuzzBalanceIsTheDecimalArithmetic's
		read := func(p []byte) openpay.Amount {
			coef := int64(binary.LittleEndian.Uint64(p[1:9]))
			if p[0]&4 == 0 {
				coef %= 1_000_000_00
			}
			return amountOf(coef, int32(int8(p[9]))%6, p[10]&1 == 1)
		}
		if len(data) < 2*step {
			return
		}
		var bal [2]Balance
		var want [2]openpay.Amount
		for i := range bal {
			if p := data[i*step:]; p[0]&8 != 0 {
				want[i] = read(p)
				bal[i] = Of(want[i])
			}
		}
		for p := data[2*step:]; len(p) >= step; p = p[step:] {
			a, from := read(p), int(p[0]&1)
			to := 1 - from
			moved := Move(&bal[from], &bal[to], a)
			require.Equal(t, want[from].Cmp(a) >= 0, moved, "moving %s out of %s", a, want[from])
			if moved {
				want[from], want[to] = want[from].Sub(a), want[to].Add(a)
			}
			checkSame(t, bal[from], want[from], "paying "+a.String())
			checkSame(t, bal[to], want[to], "receiving "+a.String())
		}
	})
}

// A balance in cents moves without allocating; past an int64 of cents it
// keeps the amount whole and goes on exactly.
func TestBalanceInCents(t *testing.T) {
	var b Balance
	a := openpay.MustAmount("100.50")
	b.Add(openpay.MustAmount("0.01")) // the amount's cents were worked out once
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		b.Add(a)
		b.Sub(a)
		_ = b.Cmp(a)
		var to Balance
		b.Add(a)
		if !Move(&b, &to, a) || !Move(&to, &b, a) || Move(&to, &b, a) {
			panic("a move of what the balance holds is refused, or one of more is not")
		}
		b.Sub(a)
	}))
	assert.Equal(t, "0.01", b.String())

	max := Of(openpay.AmountFromCents(math.MaxInt64 - 5))
	require.NotNil(t, max.whole, "over 15 digits: kept whole")
	b = Of(openpay.MustAmount("900000000000000.00")) // 9e16 cents
	for range 200 {
		b.Add(openpay.MustAmount("900000000000000.00"))
	}
	assert.NotNil(t, b.whole, "the sum overflowed cents")
	assert.Equal(t, "180900000000000000.00", b.String())
	b.Sub(openpay.MustAmount("180900000000000000"))
	assert.False(t, b.IsPositive())
	assert.Equal(t, 0, b.Cmp(openpay.Amount{}))
}
