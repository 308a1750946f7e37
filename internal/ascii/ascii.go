// Package ascii holds character-class tests on ASCII text that card
// numbers, CLABEs and the reference server's field rules share.
package ascii

// Digits reports whether s is non-empty and made only of ASCII digits.
func Digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
