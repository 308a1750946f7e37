package cardnum

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// checkInTurn is what Check must answer: the three rules called in turn.
func checkInTurn(number string) (*Profile, Verdict) {
	switch {
	case !FormatValid(number):
		return nil, BadFormat
	case !LuhnValid(number):
		return nil, BadLuhn
	}
	if p := ProfileOf(number); p != nil {
		return p, Valid
	}
	return nil, NoBrand
}

// luhnDigit completes number (digits) with its Luhn check digit.
func luhnDigit(number string) string {
	for d := '0'; d <= '9'; d++ {
		if LuhnValid(number + string(d)) {
			return number + string(d)
		}
	}
	panic("no check digit")
}

func TestCheckAnswersAsTheRulesInTurn(t *testing.T) {
	t.Parallel()
	numbers := []string{"", "4", "411111111111111", "41111111111111111", "411111111111111111",
		"4111 1111 1111 1111", "4111-1111-1111-111", "411111111111111a", "４111111111111111",
		"343434343434343", "343434343434344", "411111111111111" + "1", "4111111111111112",
		"5062100000000002", "5061990000000000", luhnDigit("506199000000000"), luhnDigit("506221000000000"),
		luhnDigit("506222000000000"), luhnDigit("222100000000000"), luhnDigit("272099999999999"),
		luhnDigit("272100000000000"), luhnDigit("60111111111111"), luhnDigit("601111111111111"),
		luhnDigit("37000000000000"), luhnDigit("3400000000000000"), luhnDigit("410000000000000000"),
		luhnDigit("620000000000000000"), luhnDigit("000000000000000")}
	for _, tc := range testCards {
		numbers = append(numbers, tc.Number, tc.Number[:len(tc.Number)-1]+string('0'+(tc.Number[len(tc.Number)-1]-'0'+1)%10))
	}
	r := rand.New(rand.NewPCG(38, 42))
	for range 20000 {
		n := []int{13, 14, 15, 16, 17, 18, 19, 20}[r.IntN(8)]
		var b strings.Builder
		b.WriteString([]string{"4", "34", "37", "51", "55", "2221", "2720", "5062", "6", "0", "9"}[r.IntN(11)])
		for b.Len() < n-1 {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		if r.IntN(2) == 0 {
			numbers = append(numbers, luhnDigit(b.String()))
		} else {
			numbers = append(numbers, b.String()+string(byte('0'+r.IntN(10))))
		}
	}
	verdicts := map[Verdict]int{}
	for _, n := range numbers {
		p, v := Check(n)
		wantP, wantV := checkInTurn(n)
		assert.Equal(t, wantV, v, n)
		assert.Same(t, wantP, p, n)
		verdicts[v]++
	}
	// Each verdict is reached, or the comparison proves little.
	for _, v := range []Verdict{Valid, BadFormat, BadLuhn, NoBrand} {
		assert.Positive(t, verdicts[v], "verdict %d", v)
	}
}

func FuzzCheck(f *testing.F) {
	for _, tc := range testCards {
		f.Add(tc.Number)
	}
	f.Add("4111111111111112")
	f.Add("601111111111111")
	f.Fuzz(func(t *testing.T, number string) {
		p, v := Check(number)
		wantP, wantV := checkInTurn(number)
		if v != wantV || p != wantP {
			t.Fatalf("Check(%q) = %p, %d; the rules in turn give %p, %d", number, p, v, wantP, wantV)
		}
	})
}
