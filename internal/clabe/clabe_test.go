package clabe

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		clabe string
		want  bool
	}{
		// CLABEs from the gateway's documentation examples.
		{"032180000118359719", true},
		{"012680012426485980", true},
		{"646180109400423323", true},
		{"012914002014112176", true},
		{"646180109400000542", true},
		{"646180109400135624", true},
		// Each of the above with a wrong check digit.
		{"032180000118359718", false},
		{"012680012426485981", false},
		{"646180109400423320", false},
		// A swapped pair of digits changes the check digit.
		{"032180000118539719", false},
		{"03218000011835971", false},
		{"0321800001183597190", false},
		{"03218000011835971X", false},
		{"032 180000118359719", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.clabe, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Valid(tt.clabe))
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		bank, branch string
		account      uint64
		want         string // "" when only validity is checked
		wantOK       bool
	}{
		{"rebuilds the IXE example", "032", "180", 11835971, "032180000118359719", true},
		{"rebuilds the STP example", "646", "180", 10940042332, "646180109400423323", true},
		{"zero account", "012", "001", 0, "012001000000000000", true},
		{"all zeros", "000", "000", 0, "000000000000000000", true},
		{"largest account", "014", "320", 99_999_999_999, "", true},
		{"account too long", "014", "320", 100_000_000_000, "", false},
		{"bank code too short", "12", "180", 1, "", false},
		{"bank code not digits", "0a2", "180", 1, "", false},
		{"branch too long", "012", "1800", 1, "", false},
		{"branch empty", "012", "", 1, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := New(tt.bank, tt.branch, tt.account)
			if !tt.wantOK {
				assert.Empty(t, got)
				return
			}
			assert.True(t, Valid(got), got)
			assert.Equal(t, tt.bank, got[:3])
			assert.Equal(t, tt.branch, got[3:6])
			if tt.want != "" {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestBank(t *testing.T) {
	t.Parallel()
	tests := []struct {
		code, want string
		ok         bool
	}{
		{"002", "Banamex", true},
		{"012", "BANCOMER", true},
		{"014", "SANTANDER", true},
		{"021", "HSBC", true},
		{"032", "IXE", true},
		{"072", "BANORTE", true},
		{"113", "VE POR MAS", true},
		{"602", "MASARI", true},
		{"646", "STP", true},
		{"000", "", false},
		{"999", "", false},
		{"12", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			t.Parallel()
			name, ok := Bank(tt.code)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, name)
		})
	}
}

func TestBankOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		clabe, code, name string
		ok                bool
	}{
		{"032180000118359719", "032", "IXE", true},
		{"012680012426485980", "012", "BANCOMER", true},
		{"999180000118359719", "", "", false},
		{"03", "", "", false},
		{"x32180000118359719", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.clabe, func(t *testing.T) {
			t.Parallel()
			code, name, ok := BankOf(tt.clabe)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.name, name)
		})
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		clabe, want string
	}{
		// The bank-account examples show 032180000118359719 as this.
		{"032180000118359719", "032XXXXXXXXXX59719"},
		{"012180001232424616", "012XXXXXXXXXX24616"},
		{"646180109400423323", "646XXXXXXXXXX23323"},
		{"12345678901", "XXXXXXXXXXX"},
		{"03218000011835971X", "XXXXXXXXXXXXXXXXXX"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.clabe, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, Mask(tt.clabe))
		})
	}
}

func TestCheckDigit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s      string
		want   byte
		wantOK bool
	}{
		{"03218000011835971", '9', true},
		{"032180000118359719", '9', true}, // the 18th character is ignored
		{"64618010940042332", '3', true},
		{"01200100000000000", '0', true},
		{"0321800001183597", 0, false},  // 16 digits
		{"0321800001183597X", 0, false}, // not a digit
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := CheckDigit(tt.s)
		assert.Equal(t, tt.wantOK, ok, "%q", tt.s)
		assert.Equal(t, tt.want, got, "%q", tt.s)
	}
}
