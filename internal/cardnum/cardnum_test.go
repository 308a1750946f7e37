package cardnum

import (
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay/internal/ascii"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLuhnValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number string
		want   bool
	}{
		{"4111111111111111", true},
		{"4111111111111112", false},
		{"79927398713", true}, // the textbook example
		{"79927398710", false},
		{"345678000000007", true},
		{"5062100000000002", true},
		{"00", true},
		{"18", true},
		{"19", false},
		{"0", false}, // a single digit is not a number with a check digit
		{"", false},
		{"4111 1111 1111 1111", false},
		{"4111-1111-1111-1111", false},
		{"411111111111111a", false},
		{"٤١١١١١١١١١١١١١١١", false}, // Arabic-Indic digits are not ASCII digits
		{"+4111111111111111", false},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, LuhnValid(tt.number))
		})
	}
}

func TestBrand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number string
		want   string
	}{
		{"4111111111111111", Visa},
		{"4000000000000069", Visa},
		{"5555555555554444", Mastercard},
		{"5105105105105100", Mastercard},
		{"5454545454545454", Mastercard},
		{"2221000000000009", Mastercard},
		{"2720990000000007", Mastercard},
		{"2220990000000000", ""},
		{"2721000000000000", ""},
		{"5000000000000000", ""}, // 50 outside the Carnet BINs is no brand the gateway knows
		{"5600000000000000", ""},
		{"345678000000007", AmericanExpress},
		{"343434343434343", AmericanExpress},
		{"371449635398431", AmericanExpress},
		{"351449635398431", ""},
		{"5061990000000000", Carnet},
		{"5062100000000002", Carnet},
		{"5062210000000000", Carnet},
		{"5061980000000000", ""},
		{"5062220000000000", ""},
		{"6011111111111117", ""}, // Discover
		{"411111", Visa},
		{"41111", ""}, // shorter than a BIN
		{"", ""},
		{"4111 1111 1111 1111", ""},
		{"x4111111111111111", ""},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Brand(tt.number))
		})
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number string
		want   string
	}{
		{"4111111111111111", "411111XXXXXX1111"},
		{"343434343434343", "343434XXXXX4343"},
		{"5555555555554444", "555555XXXXXX4444"},
		{"4111111111111111234", "411111XXXXXXXXX1234"},
		{"4111111111111", "411111XXX1111"},
		{"411111111111", "XXXXXXXXXXXX"}, // too short to show 10 digits safely
		{"1234", "XXXX"},
		{"", ""},
		{"4111 1111 1111 1111", "XXXXXXXXXXXXXXXXXXX"},
		{"4111111111111111\n", "XXXXXXXXXXXXXXXXX"},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			t.Parallel()
			got := Mask(tt.number)
			assert.Equal(t, tt.want, got)
			assert.Len(t, got, len(tt.number))
		})
	}
}

func TestFormatValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number string
		want   bool
	}{
		{"4111111111111111", true},
		{"4111111111111111000", true},
		{"345678000000007", true},
		{"371449635398431", true},
		{"411111111111111", false}, // 15 digits are for American Express only
		{"41111111111111110", false},
		{"411111111111111100", false},
		{"41111111111111110000", false},
		{"4111-1111-1111-111", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, FormatValid(tt.number))
		})
	}
}

func TestCVVValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cvv, brand string
		want       bool
	}{
		{"123", Visa, true},
		{"1234", Visa, false},
		{"123", Mastercard, true},
		{"123", Carnet, true},
		{"1234", AmericanExpress, true},
		{"123", AmericanExpress, false},
		{"123", "", true},
		{"1234", "", true},
		{"12", "", false},
		{"12345", "", false},
		{"12a", Visa, false},
		{" 123", Visa, false},
		{"", Visa, false},
	}
	for _, tt := range tests {
		t.Run(tt.brand+"/"+tt.cvv, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, CVVValid(tt.cvv, tt.brand))
		})
	}
}

func TestExpiryPassed(t *testing.T) {
	t.Parallel()
	mexicoCity := time.FixedZone("CST", -6*60*60) // the gateway's zone
	mid := time.Date(2025, 6, 15, 12, 0, 0, 0, mexicoCity)
	lastInstant := time.Date(2025, 6, 30, 23, 59, 59, 999999999, mexicoCity)
	nextMonth := time.Date(2025, 7, 1, 0, 0, 0, 0, mexicoCity)
	tests := []struct {
		name        string
		month, year string
		now         time.Time
		wantExpired bool
		wantOK      bool
	}{
		{"current month", "06", "25", mid, false, true},
		{"current month no leading zero", "6", "25", mid, false, true},
		{"four-digit year", "06", "2025", mid, false, true},
		{"last instant of the month", "06", "25", lastInstant, false, true},
		{"first instant after", "06", "25", nextMonth, true, true},
		{"previous month", "05", "25", mid, true, true},
		{"previous year", "12", "2024", mid, true, true},
		{"next year", "01", "26", mid, false, true},
		{"december rolls into january", "12", "25", time.Date(2025, 12, 31, 23, 0, 0, 0, mexicoCity), false, true},
		{"december expired in january", "12", "25", time.Date(2026, 1, 1, 0, 0, 0, 0, mexicoCity), true, true},
		// 03:00 UTC on July 1st is still June 30th in Mexico City: the card is valid.
		{"judged in now's zone", "06", "25", time.Date(2025, 7, 1, 3, 0, 0, 0, time.UTC).In(mexicoCity), false, true},
		{"month zero", "0", "25", mid, false, false},
		{"month 13", "13", "25", mid, false, false},
		{"month three digits", "006", "25", mid, false, false},
		{"month empty", "", "25", mid, false, false},
		{"month letters", "ab", "25", mid, false, false},
		{"year one digit", "06", "5", mid, false, false},
		{"year three digits", "06", "025", mid, false, false},
		{"year five digits", "06", "20255", mid, false, false},
		{"year negative", "06", "-25", mid, false, false},
		{"year empty", "06", "", mid, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			expired, ok := ExpiryPassed(tt.month, tt.year, tt.now)
			require.Equal(t, tt.wantOK, ok)
			if ok {
				assert.Equal(t, tt.wantExpired, expired)
			}
		})
	}
}

// FuzzLuhnValid checks properties that hold for any input: a valid number is
// all digits, and exactly one check digit completes any string of digits.
func FuzzLuhnValid(f *testing.F) {
	for _, s := range []string{"4111111111111111", "7992739871", "", "0", "12 34", "٤"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if LuhnValid(s) && !ascii.Digits(s) {
			t.Fatalf("LuhnValid(%q) true for a non-digit string", s)
		}
		if !ascii.Digits(s) {
			return
		}
		valid := 0
		for d := '0'; d <= '9'; d++ {
			if LuhnValid(s + string(d)) {
				valid++
			}
		}
		if valid != 1 {
			t.Fatalf("%d check digits complete %q, want exactly 1", valid, s)
		}
	})
}

// FuzzBrand checks that any input gets a known brand or none, and that a
// brand is only given to digit strings.
func FuzzBrand(f *testing.F) {
	for _, s := range []string{"4111111111111111", "345678000000007", "5062100000000002", "2221000000000009", "", "50619"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		switch b := Brand(s); b {
		case "":
		case Visa, Mastercard, AmericanExpress, Carnet:
			if !ascii.Digits(s) || len(s) < 6 {
				t.Fatalf("Brand(%q) = %q for a string that is not a number", s, b)
			}
		default:
			t.Fatalf("Brand(%q) = unknown brand %q", s, b)
		}
	})
}

// FuzzMask checks that masking keeps the length, shows at most the
// first six and last four characters, and shows nothing of odd input.
func FuzzMask(f *testing.F) {
	for _, s := range []string{"4111111111111111", "343434343434343", "", "1234567890123", "4111 1111", "ñ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m := Mask(s)
		if len(m) != len(s) {
			t.Fatalf("Mask(%q) = %q: length changed", s, m)
		}
		if len(s) < 13 || !ascii.Digits(s) {
			if m != strings.Repeat("X", len(s)) {
				t.Fatalf("Mask(%q) = %q, want all X", s, m)
			}
			return
		}
		if m[:6] != s[:6] || m[len(m)-4:] != s[len(s)-4:] {
			t.Fatalf("Mask(%q) = %q: ends not kept", s, m)
		}
		if mid := m[6 : len(m)-4]; mid != strings.Repeat("X", len(mid)) {
			t.Fatalf("Mask(%q) = %q: middle digits shown", s, m)
		}
	})
}
