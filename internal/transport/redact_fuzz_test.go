package transport

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// plants are secrets in the forms a server may echo them; seen is the text
// that must not come out.
var plants = []struct{ text, seen string }{
	{testKey, testKey},
	{testBasic, testBasic},
	{"Authorization: Basic " + testBasic, testBasic},
	{testCard, testCard},
	{"4111 1111 1111 1111", "4111 1111 1111 1111"},
	{"4111-1111-1111-1111", "4111-1111-1111-1111"},
	{"4111.1111.1111.1111", "4111.1111.1111.1111"},
	{"345678000000007", "345678000000007"},
	{`"cvv2":"739"`, `"cvv2":"739"`},
	{`\"cvv2\":\"739\"`, `\"cvv2\":\"739\"`},
	{`&#34;cvv2&#34;:&#34;739&#34;`, `&#34;cvv2&#34;:&#34;739&#34;`},
	{`&quot;cvv2&quot;:&quot;739&quot;`, `&quot;cvv2&quot;:&quot;739&quot;`},
	{`\u0022cvv2\u0022:\u0022739\u0022`, `\u0022cvv2\u0022:\u0022739\u0022`},
	{"CVV2 739", "CVV2 739"},
	{"security code 1234", "security code 1234"},
}

// FuzzRedact plants a key, a card number or a security code in arbitrary
// text; neither Redact nor Excerpt may let it through, and an excerpt stays
// valid UTF-8 within its bound.
func FuzzRedact(f *testing.F) {
	f.Add("", "", uint8(0), 200)
	f.Add("card", "declined", uint8(3), 50)
	f.Add(`{"description":"bad body {`, `}"}`, uint8(9), 10)
	f.Add("<html>"+strings.Repeat(" ", 1600)+"<p>", "</p>"+strings.Repeat("\n  <br>", 100), uint8(4), 200)
	f.Add("Basic abcdefghijklmnop", "x", uint8(13), 30)
	f.Add("4111 1111 1111", "1111 1111", uint8(5), 1)
	f.Fuzz(func(t *testing.T, prefix, suffix string, which uint8, maxRunes int) {
		if len(prefix)+len(suffix) > 8<<10 {
			return // long texts add nothing the window logic does not see in short ones, and slow the search
		}
		p := plants[int(which)%len(plants)]
		in := prefix + " " + p.text + " " + suffix
		if out := Redact(in, testKey, testBasic); strings.Contains(out, p.seen) {
			t.Fatalf("Redact(%q) = %q", in, out)
		}
		maxRunes = 1 + int(uint(maxRunes)%400)
		out := Excerpt(in, maxRunes, testKey, testBasic)
		if strings.Contains(out, p.seen) {
			t.Fatalf("Excerpt(%q, %d) = %q", in, maxRunes, out)
		}
		if !utf8.ValidString(out) || utf8.RuneCountInString(out) > maxRunes+1 {
			t.Fatalf("Excerpt(%q, %d) = %q: not valid UTF-8 or too long", in, maxRunes, out)
		}
	})
}
