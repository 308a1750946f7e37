package conformance

import "testing"

// Two random codes of one alphabet match by shape whatever each sample
// drew (the flake seen in CI: a recorded code with no lower-case letter
// against one with no digit); a change of alphabet or length does not.
func TestSameDrawOfRandomCodes(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"AB12CD34", "aBcDeFgH", true},  // mixed case and digits, two draws
		{"AB12CD34", "Ab12cD34", true},  // one's kinds within the other's
		{"ab12cd34", "ab12cd99", true},  // the same alphabet
		{"AB12CD34", "ab12cd34", false}, // upper-case became lower-case
		{"12345678", "abcdefgh", false}, // digits became letters
		{"AB12CD34", "AB12CD3", false},  // another length
		{"AB12CD34", "AB12-D34", false}, // not letters and digits
	} {
		if got := sameDraw(c.a, c.b); got != c.same {
			t.Errorf("sameDraw(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
