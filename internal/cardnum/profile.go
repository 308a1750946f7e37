package cardnum

import (
	"sync"
	"time"

	"github.com/openpay-go/openpay/internal/clabe"
)

// Profile is what a card number tells about its card besides its digits:
// the brand, the type and the issuing bank as the gateway's answers show
// them, whether the card has a points programme, and what a charge to it
// does. Many cards have the same profile (every Visa card that is not a
// sandbox test card has one), so a stored card keeps a pointer to a shared
// Profile instead of five strings and an outcome of its own.
//
// Contract: [ProfileOf] and [Intern] return the same pointer for equal
// profiles, and the value behind it is never modified (callers must not
// modify it either); both are safe for concurrent use.
type Profile struct {
	Brand    string // a brand constant
	Type     string // "debit" or "credit"
	BankName string // clabe.UnknownBankName for any card but a test card
	BankCode string
	Points   bool
	Outcome  Outcome
}

// ProfileOf returns the profile of a card number, or nil when the number
// is of no brand the gateway takes ([Brand] gives "").
func ProfileOf(number string) *Profile { return profileOf(number, Brand(number)) }

// profileOf is [ProfileOf] of a number of the given brand.
func profileOf(number, brand string) *Profile {
	if i, ok := testCardIndex[number]; ok {
		return testProfiles[i]
	}
	switch brand {
	case Visa:
		return brandProfiles[0]
	case Mastercard:
		return brandProfiles[1]
	case AmericanExpress:
		return brandProfiles[2]
	case Carnet:
		return brandProfiles[3]
	}
	return nil
}

// testProfiles are the profiles of testCards, in their order, and
// brandProfiles those of the other numbers of each brand.
var testProfiles, brandProfiles = func() (tests, brands []*Profile) {
	for i := range testCards {
		tc := &testCards[i]
		tests = append(tests, Intern(Profile{Brand: tc.Brand, Type: tc.Type, BankName: tc.BankName, BankCode: tc.BankCode,
			Points: tc.PointsCard, Outcome: tc.Outcome}))
	}
	for _, b := range []string{Visa, Mastercard, AmericanExpress, Carnet} {
		typ := "credit"
		if b == Carnet {
			typ = "debit"
		}
		brands = append(brands, Intern(Profile{Brand: b, Type: typ, BankName: clabe.UnknownBankName, BankCode: clabe.UnknownBankCode}))
	}
	return tests, brands
}()

// profiles holds the profiles given out, by value.
var profiles struct {
	sync.RWMutex
	m map[Profile]*Profile
}

// Intern returns the shared pointer to a profile equal to p (a stored
// card's profile read back from disk, say).
func Intern(p Profile) *Profile {
	profiles.RLock()
	shared := profiles.m[p]
	profiles.RUnlock()
	if shared != nil {
		return shared
	}
	profiles.Lock()
	defer profiles.Unlock()
	if shared = profiles.m[p]; shared == nil {
		if profiles.m == nil {
			profiles.m = make(map[Profile]*Profile)
		}
		shared = &p
		profiles.m[p] = shared
	}
	return shared
}

// twoDigits holds "00" to "99", the strings an [Expiry] gives back.
var twoDigits = func() (t [100]string) {
	for i := range t {
		t[i] = string([]byte{byte('0' + i/10), byte('0' + i%10)})
	}
	return t
}()

// Expiry is a card's expiration month and year (two digits each) as two
// bytes: a stored card keeps no strings for them.
type Expiry [2]uint8

// ParseExpiry returns the expiry of a month and a year of two digits each
// ("07", "29"); anything else reads as 00.
func ParseExpiry(month, year string) Expiry {
	return Expiry{parseTwoDigits(month), parseTwoDigits(year)}
}

func parseTwoDigits(s string) uint8 {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0
	}
	return (s[0]-'0')*10 + s[1] - '0'
}

// Month returns the month, two digits.
func (e Expiry) Month() string { return twoDigits[e[0]%100] }

// Year returns the year, two digits.
func (e Expiry) Year() string { return twoDigits[e[1]%100] }

// Passed is [ExpiryPassed] of the expiry's month and year: ok is false
// when the month is not 01 to 12.
func (e Expiry) Passed(now time.Time) (expired, ok bool) {
	if e[0] < 1 || e[0] > 12 {
		return false, false
	}
	return monthPassed(2000+int(e[1]), int(e[0]), now), true
}
