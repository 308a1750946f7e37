package cardnum

import (
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfilesAreShared: numbers of one profile give one pointer, the
// profile says what the number's card is, and a profile read back
// (Intern) is the same pointer again.
func TestProfilesAreShared(t *testing.T) {
	t.Parallel()
	visa, other := ProfileOf("4532015112830366"), ProfileOf("4916338506082832")
	require.NotNil(t, visa)
	assert.Same(t, visa, other)
	assert.Equal(t, Profile{Brand: Visa, Type: "credit", BankName: clabe.UnknownBankName, BankCode: clabe.UnknownBankCode}, *visa)
	assert.Equal(t, "debit", ProfileOf("5062100000000002").Type, "a Carnet test card")
	assert.Equal(t, "debit", ProfileOf("5062000000000009").Type, "any Carnet card")
	assert.Nil(t, ProfileOf("6011111111111117"), "a brand the gateway does not take")
	assert.Nil(t, ProfileOf("4111x"))
	for _, tc := range TestCards() {
		p := ProfileOf(tc.Number)
		require.NotNil(t, p, tc.Number)
		assert.Equal(t, Profile{Brand: tc.Brand, Type: tc.Type, BankName: tc.BankName, BankCode: tc.BankCode,
			Points: tc.PointsCard, Outcome: tc.Outcome}, *p, tc.Number)
		assert.Same(t, p, Intern(*p), tc.Number)
	}
	odd := Profile{Brand: Visa, Type: "prepaid", BankName: "X", BankCode: "999"}
	assert.Same(t, Intern(odd), Intern(odd))
}

// TestExpiryRoundTrips: every month and year of two digits reads back as
// given.
func TestExpiryRoundTrips(t *testing.T) {
	t.Parallel()
	for m := range 100 {
		s := string([]byte{byte('0' + m/10), byte('0' + m%10)})
		e := ParseExpiry(s, s)
		assert.Equal(t, s, e.Month())
		assert.Equal(t, s, e.Year())
	}
	assert.Equal(t, "00", ParseExpiry("7", "2031").Month(), "not two digits: 00")
}

// TestKeepKeepsNoDigitsBetween: what a stored card keeps is its id, the
// masked number and the holder, in one allocation, and no digit of the
// number but the first six and the last four.
func TestKeepKeepsNoDigitsBetween(t *testing.T) {
	number := "4532015112830366"
	head, masked, holder := Keep([]byte("kid"), number, "Ana Uno")
	assert.Equal(t, "kid", head)
	assert.Equal(t, Mask(number), masked)
	assert.Equal(t, "Ana Uno", holder)
	assert.Equal(t, uintptr(unsafe.Pointer(unsafe.StringData(head)))+3, uintptr(unsafe.Pointer(unsafe.StringData(masked))), "one allocation")
	assert.Equal(t, uintptr(unsafe.Pointer(unsafe.StringData(masked)))+16, uintptr(unsafe.Pointer(unsafe.StringData(holder))), "one allocation")
	all := head + masked + holder
	assert.NotContains(t, all, number[6:12])
	assert.False(t, strings.Contains(masked, "151128"))
	_, masked, _ = Keep(nil, "12ab", "x")
	assert.Equal(t, "XXXX", masked, "no card number: all X's")
	var buf [64]byte
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { sinkHead, sinkMasked, sinkHolder = Keep(append(buf[:0], "kid"...), number, "Ana") }))
}

var sinkHead, sinkMasked, sinkHolder string

// TestExpiryPassedAsTheStrings: an Expiry says what ExpiryPassed of its
// month and year says, at the edges of months, in the gateway's zone and in
// UTC, and refuses a month out of range as it does.
func TestExpiryPassedAsTheStrings(t *testing.T) {
	t.Parallel()
	mx, err := time.LoadLocation("America/Mexico_City")
	require.NoError(t, err)
	instants := []time.Time{
		time.Date(2030, 12, 31, 23, 59, 59, 999999999, mx), time.Date(2031, 1, 1, 0, 0, 0, 0, mx),
		time.Date(2031, 1, 1, 5, 59, 59, 0, time.UTC), time.Date(2031, 1, 1, 6, 0, 0, 0, time.UTC),
		time.Date(2030, 6, 30, 23, 59, 59, 0, mx), time.Date(2030, 7, 1, 0, 0, 0, 0, mx),
	}
	for _, now := range instants {
		for _, y := range []string{"29", "30", "31"} {
			for _, m := range []string{"00", "01", "06", "07", "11", "12", "13"} {
				want, wantOK := ExpiryPassed(m, y, now)
				got, ok := ParseExpiry(m, y).Passed(now)
				assert.Equal(t, wantOK, ok, "%s/%s at %s", m, y, now)
				if wantOK {
					assert.Equal(t, want, got, "%s/%s at %s", m, y, now)
				}
			}
		}
	}
}

var sinkMask string

// TestMaskAllocatesOnce: the masked number is the one allocation.
func TestMaskAllocatesOnce(t *testing.T) {
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { sinkMask = Mask("4532015112830366") }))
}
