package openpay

import (
	"testing"

	"github.com/shopspring/decimal"
)

// parsePlainDecimal, the short way of reading an amount, gives what
// decimal.NewFromString gives (the same coefficient and exponent, so the
// same text on the way out), and declines every form it does not read.
func FuzzPlainDecimal(f *testing.F) {
	for _, s := range []string{"100.50", "100", "-3", "0.5", "-0", "-0.00", "007.10", "123456789012345678", "1234567890123456789",
		"1.", ".5", "-", "", "1e3", "+1", "1.2.3", "12a", "0.000000000000000001", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parsePlainDecimal(s)
		if !ok {
			return
		}
		want, err := decimal.NewFromString(s)
		if err != nil {
			t.Fatalf("%q: read %s, which decimal refuses: %v", s, got, err)
		}
		if got.Exponent() != want.Exponent() || got.Coefficient().Cmp(want.Coefficient()) != 0 {
			t.Fatalf("%q: read %se%d, decimal reads %se%d", s, got.Coefficient(), got.Exponent(), want.Coefficient(), want.Exponent())
		}
	})
}

// The forms the short way declines go the long way, with the same result
// as before it existed.
func TestPlainDecimalDeclines(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"1.", ".5", "-", "", "1e3", "+1", "1.2.3", "12a", "1234567890123456789", " 1", "0x10"} {
		if d, ok := parsePlainDecimal(s); ok {
			t.Errorf("%q read as %s", s, d)
		}
	}
	for s, want := range map[string]string{"100.50": "100.5", "1e3": "1000", "-0.00": "0", "007.10": "7.1"} {
		d, err := parseDecimal(s)
		if err != nil || d.String() != want {
			t.Errorf("parseDecimal(%q) = %s, %v; want %s", s, d, err, want)
		}
	}
}
