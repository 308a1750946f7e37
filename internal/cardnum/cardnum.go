// Package cardnum holds the rules of payment card numbers as the gateway
// applies them: the Luhn check, the brand of a BIN, the accepted lengths and
// security codes, the masked form responses show and the expiry date check.
// It also holds the sandbox's test cards and what a charge to each does.
package cardnum

import (
	"strconv"
	"time"

	"github.com/openpay-go/openpay/internal/ascii"
)

// Card brand values as the gateway writes them on the wire.
//
// The interface specification's table spells the American Express brand
// "american express", but every response example that carries such a card
// (the subscription examples with card 343434XXXXX4343) writes
// "american_express", with an underscore. The server answers with the form
// real responses use.
const (
	Visa            = "visa"
	Mastercard      = "mastercard"
	AmericanExpress = "american_express"
	Carnet          = "carnet"
)

// Carnet is a Mexican domestic card network whose numbers start with 50; it
// has no published, stable BIN list. The server recognises the six-digit BINs
// carnetBINLow..carnetBINHigh (506199 to 506221), a range commonly attributed
// to Carnet. It lies outside Mastercard's 51-55 and 2221-2720 prefixes and no
// sandbox test card falls in it (a test checks both).
const (
	carnetBINLow  = 506199
	carnetBINHigh = 506221
)

// LuhnValid reports whether number, a string of at least two ASCII digits
// with no spaces or dashes, passes the Luhn (mod 10) check. Anything else,
// including the empty string, is not valid.
func LuhnValid(number string) bool {
	if len(number) < 2 || !ascii.Digits(number) {
		return false
	}
	sum := 0
	double := false
	for i := len(number) - 1; i >= 0; i-- {
		d := int(number[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// Brand returns the brand of a card number from its leading digits (the
// BIN): [Visa], [Mastercard], [AmericanExpress],
// [Carnet], or "" when the number is not made of digits, is shorter than
// a six-digit BIN, or belongs to no brand the gateway accepts. It does not
// check the length or the Luhn digit: see [FormatValid] and
// [LuhnValid].
func Brand(number string) string {
	if len(number) < 6 || !ascii.Digits(number) {
		return ""
	}
	bin, _ := strconv.Atoi(number[:6]) // six digits always parse
	return binBrand(bin)
}

// binBrand is [Brand] of a number whose first six digits are bin.
func binBrand(bin int) string {
	two := bin / 10000
	four := bin / 100
	switch {
	case bin >= carnetBINLow && bin <= carnetBINHigh:
		return Carnet
	case bin/100000 == 4:
		return Visa
	case two == 34 || two == 37:
		return AmericanExpress
	case two >= 51 && two <= 55, four >= 2221 && four <= 2720:
		return Mastercard
	}
	return ""
}

// Mask returns number in the form the gateway shows in responses:
// the first six and last four digits kept, every digit between them replaced
// by 'X', the length unchanged ("4111111111111111" -> "411111XXXXXX1111",
// "343434343434343" -> "343434XXXXX4343").
//
// Input that could not be a card number (anything but digits, or fewer than
// thirteen of them) is replaced by X's entirely, so that no caller can leak
// digits through this function whatever it is given.
func Mask(number string) string {
	var buf [32]byte // a card number's length, with room to spare: one allocation, the string's
	return string(AppendMask(buf[:0], number))
}

// Keep returns what a stored card keeps of its data, in one allocation:
// head (the bytes b holds already, the card's id), the masked number
// ([Mask]) and the holder's name. Nothing of the full number is kept.
func Keep(b []byte, number, holder string) (head, masked, holderKept string) {
	n := len(b)
	b = AppendMask(b, number)
	m := len(b)
	s := string(append(b, holder...))
	if n > 0 {
		head = s[:n]
	}
	return head, s[n:m], s[m:]
}

// AppendMask appends the masked number ([Mask]) to dst, so that a caller
// keeping it beside other strings allocates them once.
func AppendMask(dst []byte, number string) []byte {
	if len(number) < 13 || !ascii.Digits(number) {
		for range len(number) {
			dst = append(dst, 'X')
		}
		return dst
	}
	dst = append(dst, number[:6]...)
	for range len(number) - 10 {
		dst = append(dst, 'X')
	}
	return append(dst, number[len(number)-4:]...)
}

// FormatValid reports whether number has the shape the gateway
// accepts: digits only, 16 or 19 of them, or 15 for an American Express
// number. The specification's limits say "16 or 19 digits", but the
// sandbox's own test list has 15-digit American Express numbers, which is
// the length of every American Express card. The Luhn check is separate
// (error 2004 rather than 1001): see [LuhnValid].
func FormatValid(number string) bool {
	if !ascii.Digits(number) {
		return false
	}
	switch len(number) {
	case 16, 19:
		return true
	case 15:
		return Brand(number) == AmericanExpress
	}
	return false
}

// Verdict is what [Check] finds of a card number: [Valid] or the first
// rule it breaks, in the order the gateway applies them.
type Verdict uint8

// The verdicts of [Check], each with the error the gateway answers.
const (
	Valid     Verdict = iota
	BadFormat         // not 16 or 19 digits, 15 for American Express ([FormatValid]): 1001
	BadLuhn           // the Luhn check fails ([LuhnValid]): 2004
	NoBrand           // of no brand the gateway takes ([ProfileOf] is nil): 1003
)

// luhnDoubled is the Luhn check's value of a doubled digit.
var luhnDoubled = [10]uint8{0, 2, 4, 6, 8, 1, 3, 5, 7, 9}

// Check applies the rules of a card number in one pass over its digits:
// [FormatValid], then [LuhnValid], then [ProfileOf], and returns the
// number's profile when it passes them all (nil and the rule it breaks
// otherwise). It answers as the three functions called in turn do.
func Check(number string) (*Profile, Verdict) {
	n := len(number)
	if n != 15 && n != 16 && n != 19 {
		return nil, BadFormat
	}
	var sum, bin uint
	for i := range n {
		d := uint(number[i] - '0')
		if d > 9 {
			return nil, BadFormat
		}
		if i < 6 {
			bin = bin*10 + d
		}
		if (n-i)%2 == 0 {
			d = uint(luhnDoubled[d])
		}
		sum += d
	}
	brand := binBrand(int(bin))
	switch {
	case n == 15 && brand != AmericanExpress:
		return nil, BadFormat
	case sum%10 != 0:
		return nil, BadLuhn
	}
	if p := profileOf(number, brand); p != nil {
		return p, Valid
	}
	return nil, NoBrand
}

// CVVValid reports whether cvv is an acceptable security code for a card of
// the given brand (one of the brand constants, or "" when unknown).
//
// The specification allows "3 or 4 digits" overall. Per brand the server is
// stricter, as the cards themselves are: American Express codes (CID) have
// exactly 4 digits, and the vendor's own client tests send "1234" for its
// cards; Visa, Mastercard and Carnet codes have exactly 3. An unknown brand
// gets the specification's rule, 3 or 4 digits.
func CVVValid(cvv string, brand string) bool {
	if !ascii.Digits(cvv) {
		return false
	}
	switch brand {
	case AmericanExpress:
		return len(cvv) == 4
	case Visa, Mastercard, Carnet:
		return len(cvv) == 3
	}
	return len(cvv) == 3 || len(cvv) == 4
}

// ExpiryPassed reports whether a card expiring in the given month and year
// has expired at the instant now. month is "1" to "12", with or without a
// leading zero; year has two digits (20yy, the form the gateway returns) or
// four. A card is valid through the last instant of its expiry month, in the
// time zone of now (the server's clock runs in the gateway's zone), so a
// card marked 12/25 expires at 2026-01-01T00:00 local time.
//
// ok is false, and expired meaningless, when month or year is malformed.
func ExpiryPassed(month, year string, now time.Time) (expired bool, ok bool) {
	if len(month) < 1 || len(month) > 2 || !ascii.Digits(month) {
		return false, false
	}
	m, _ := strconv.Atoi(month)
	if m < 1 || m > 12 {
		return false, false
	}
	if (len(year) != 2 && len(year) != 4) || !ascii.Digits(year) {
		return false, false
	}
	y, _ := strconv.Atoi(year)
	if len(year) == 2 {
		y += 2000
	}
	return monthPassed(y, m, now), true
}

// monthPassed reports whether now, in its zone, is past month m of year y:
// at or after the first instant of the month that follows.
func monthPassed(y, m int, now time.Time) bool {
	ny, nm, _ := now.Date()
	return ny*12+int(nm) > y*12+m
}
