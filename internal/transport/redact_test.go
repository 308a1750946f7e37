package transport

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

const (
	testKey  = "sk_e568c42a6c384b7ab02cd47d2e407cab"
	testCard = "4111111111111111"
)

var testBasic = base64.StdEncoding.EncodeToString([]byte(testKey + ":"))

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		secrets        []string
	}{
		{name: "key", in: "The api key " + testKey + " is invalid", secrets: []string{testKey, testBasic},
			want: "The api key [redacted] is invalid"},
		{name: "key twice", in: testKey + "/" + testKey, secrets: []string{testKey},
			want: "[redacted]/[redacted]"},
		{name: "our Basic credentials", in: "got " + testBasic + " from you", secrets: []string{testKey, testBasic},
			want: "got [redacted] from you"},
		{name: "echoed header, no secret known", in: "Authorization: Basic dXNlcjpwYXNzd29yZA==",
			want: "Authorization: Basic [redacted]"},
		{name: "echoed header in JSON", in: `{"authorization":"Bearer abc.def-ghi_jkl"}`,
			want: `{"authorization":"Bearer [redacted]"}`},
		{name: "echoed header in JSON quoted inside JSON", in: `{"description":"headers {\"Authorization\":\"Bearer abc.def\"}"}`,
			want: `{"description":"headers {\"Authorization\":\"Bearer [redacted]\"}"}`},
		{name: "secret shorter than 4 ignored", in: "abc", secrets: []string{"ab"}, want: "abc"},
		{name: "card plain", in: "card " + testCard + " declined", want: "card [redacted] declined"},
		{name: "card with spaces", in: "card 4111 1111 1111 1111 declined", want: "card [redacted] declined"},
		{name: "card with dashes", in: "card 4111-1111-1111-1111.", want: "card [redacted]."},
		{name: "card amex 15 digits", in: "345678000000007", want: "[redacted]"},
		{name: "card 19 digits", in: "6011000990139424123", want: "[redacted]"},
		{name: "card in JSON", in: `{"card_number":"5555555555554444"}`, want: `{"card_number":"[redacted]"}`},
		{name: "cvv in JSON", in: `{"cvv2":"123","x":1}`, want: `{"cvv2":"[redacted]","x":1}`},
		{name: "cvv in JSON with spaces", in: `{"cvv2" : "1234"}`, want: `{"cvv2" : "[redacted]"}`},
		{name: "cvv as a JSON number", in: `{"cvv2":123}`, want: `{"cvv2":[redacted]}`},
		{name: "cvv in a form", in: "holder=Juan&cvv2=123&year=30", want: "holder=Juan&cvv2=[redacted]&year=30"},
		{name: "cvc in prose", in: "CVC: 321 rejected", want: "CVC: [redacted] rejected"},
		{name: "security code", in: `"security_code":"999"`, want: `"security_code":"[redacted]"`},
		{name: "cvv in JSON quoted inside JSON", in: `{"description":"bad body {\"cvv2\":\"123\"}"}`,
			want: `{"description":"bad body {\"cvv2\":\"[redacted]\"}"}`},
		{name: "short digit runs kept", in: "order 42, amount 100.00, ref 1234 5678", want: "order 42, amount 100.00, ref 1234 5678"},
		{name: "request id kept", in: "1981cdb8-19cb-4bad-8256-e95d58bc035c", want: "1981cdb8-19cb-4bad-8256-e95d58bc035c"},
		{name: "empty", in: "", want: ""},

		// Security codes in escaped JSON and in prose.
		{name: "cvv in HTML-escaped JSON", in: `{&#34;cvv2&#34;:&#34;739&#34;}`, want: `{&#34;cvv2&#34;:&#34;[redacted]&#34;}`},
		{name: "cvv in HTML-escaped JSON, named entity", in: `&quot;cvv2&quot; : &quot;739&quot;`, want: `&quot;cvv2&quot; : &quot;[redacted]&quot;`},
		{name: "cvv in HTML-escaped JSON, hex entity", in: `&#x22;cvv2&#x22;:&#x22;739&#x22;`, want: `&#x22;cvv2&#x22;:&#x22;[redacted]&#x22;`},
		{name: "cvv in \u0022-escaped JSON", in: `\u0022cvv2\u0022:\u0022739\u0022`, want: `\u0022cvv2\u0022:\u0022[redacted]\u0022`},
		{name: "cvv in JSON quoted twice", in: `\\\"cvv2\\\":\\\"739\\\"`, want: `\\\"cvv2\\\":\\\"[redacted]\\\"`},
		{name: "cvv in single quotes", in: `'cvv2': '739'`, want: `'cvv2': '[redacted]'`},
		{name: "cvv in prose", in: "CVV2 739 rejected", want: "CVV2 [redacted] rejected"},
		{name: "cvv with a colon", in: "cvv: 739.", want: "cvv: [redacted]."},
		{name: "cvv is", in: "the CVV2 is 739", want: "the CVV2 is [redacted]"},
		{name: "security code in prose", in: "security code 1234 invalid", want: "security code [redacted] invalid"},
		{name: "security code camel case", in: `{"securityCode":"1234"}`, want: `{"securityCode":"[redacted]"}`},
		{name: "spanish", in: "código de seguridad: 739", want: "código de seguridad: [redacted]"},
		{name: "gateway texts about the code kept", in: "The CVV2 security code is invalid; cvv2 length must be 3 or 4 (error 2009)",
			want: "The CVV2 security code is invalid; cvv2 length must be 3 or 4 (error 2009)"},
		{name: "a number after other words kept", in: "CVV missing (error 2006)", want: "CVV missing (error 2006)"},

		// Card numbers with other separators.
		{name: "card with dots", in: "4111.1111.1111.1111", want: "[redacted]"},
		{name: "card with underscores", in: "4111_1111_1111_1111", want: "[redacted]"},
		{name: "card with slashes", in: "4111/1111/1111/1111", want: "[redacted]"},
		{name: "card with double spaces", in: "card 4111  1111  1111  1111 x", want: "card [redacted] x"},
		{name: "card with escaped spaces", in: "4111%201111%201111%201111 4111&nbsp;1111&nbsp;1111&nbsp;1111",
			want: "[redacted] [redacted]"},
		{name: "amex grouped", in: "3782 822463 10005 and 3782.822463.10005", want: "[redacted] and [redacted]"},
		{name: "dates, times, amounts and a phone number kept",
			in:   "2024-03-09T12:00:00-06:00, 2024/03/09 12:00, 1,234,567,890.12, 1234567890.12, 55 1234 5678, 12.50",
			want: "2024-03-09T12:00:00-06:00, 2024/03/09 12:00, 1,234,567,890.12, 1234567890.12, 55 1234 5678, 12.50"},

		// Keys and credentials that are not the client's, or escaped.
		{name: "another private key", in: "key sk_0123456789abcdef0123456789abcdef!", want: "key [redacted]!"},
		{name: "a Basic encoding of a private key", in: "x c2tfMDEyMzQ1Njc4OWFiY2RlZjA6 y", want: "x [redacted] y"},
		{name: "bearer token without a header name", in: "got Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc here", want: "got Bearer [redacted] here"},
		{name: "basic in prose kept", in: "basic information missing", want: "basic information missing"},
		{name: "header name HTML-escaped", in: `&quot;Authorization&quot;:&quot;Basic abc&quot;`, want: `&quot;Authorization&quot;:&quot;Basic [redacted]&quot;`},
		{name: "secret escaped for JSON", in: `"Zm9v\/YmFy+YmF6="`, secrets: []string{"Zm9v/YmFy+YmF6="}, want: `"[redacted]"`},
		{name: "secret escaped for HTML", in: `Zm9v&#47;YmFy&#43;YmF6&#61;`, secrets: []string{"Zm9v/YmFy+YmF6="}, want: `[redacted]`},
		{name: "secret escaped for a URL", in: `?a=Zm9v%2FYmFy%2BYmF6%3D`, secrets: []string{"Zm9v/YmFy+YmF6="}, want: `?a=[redacted]`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Redact(tt.in, tt.secrets...), tt.name)
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	html := []byte("<html>\r\n  <head><title>502 Bad Gateway</title></head>\n\t<body>\n\n<center>nginx</center>\n</body>\n</html>\n")
	assert.Equal(t, "<html> <head><title>502 Bad Gateway</title></head> <body> <center>nginx</center> </body> </html>",
		Excerpt(html, 200))

	assert.Equal(t, "", Excerpt([]byte(nil), 200))
	assert.Equal(t, "", Excerpt([]byte(" \n\t "), 200))
	assert.Equal(t, "a b", Excerpt([]byte("a\x00\x01\x7fb"), 200), "control characters collapse")
	assert.Equal(t, "a?b", Excerpt([]byte("a\xffb"), 200), "invalid UTF-8 is replaced")
	assert.Equal(t, "abcde…", Excerpt([]byte("abcdefgh"), 5))
	assert.Equal(t, "abcde", Excerpt([]byte("abcde"), 5), "nothing cut, no ellipsis")
	assert.Equal(t, `{"error_code":1000,"descr…`, Excerpt([]byte(`{"error_code":1000,"description":"cut`), 25))

	t.Run("bounded", func(t *testing.T) {
		t.Parallel()
		for _, body := range [][]byte{
			[]byte(strings.Repeat("x", 10_000)),
			[]byte(strings.Repeat("ñ", 10_000)),
			[]byte(strings.Repeat("😀 ", 10_000)),
			[]byte(strings.Repeat("a\n", 10_000)),
		} {
			out := Excerpt(body, 200)
			assert.True(t, utf8.ValidString(out))
			assert.LessOrEqual(t, utf8.RuneCountInString(out), 201, "200 runes and the ellipsis")
			assert.GreaterOrEqual(t, utf8.RuneCountInString(out), 150, "a useful excerpt is kept")
			assert.True(t, strings.HasSuffix(out, "…"))
		}
	})

	t.Run("UTF-8 cut safety", func(t *testing.T) {
		t.Parallel()
		// Whatever the offset at which a multi-byte rune meets the
		// internal window or the rune limit, the excerpt stays valid.
		for pad := range 8 {
			body := []byte(strings.Repeat("a", pad) + strings.Repeat("é😀ñ", 2000))
			for _, max := range []int{1, 2, 3, 7, 200} {
				out := Excerpt(body, max)
				assert.True(t, utf8.ValidString(out), "pad %d max %d: %q", pad, max, out)
				assert.NotContains(t, out, "\uFFFD")
				assert.LessOrEqual(t, utf8.RuneCountInString(out), max+1)
			}
		}
	})

	t.Run("redacted before the cut", func(t *testing.T) {
		t.Parallel()
		// A card number or a key across the rune limit must not leave its
		// first digits or characters behind.
		for pad := 180; pad < 200; pad++ {
			for _, secret := range []string{testCard, "4111 1111 1111 1111", testKey} {
				body := []byte(strings.Repeat("x", pad) + secret + " tail")
				out := Excerpt(body, 200, testKey)
				assertNoFragment(t, out, secret)
			}
		}
	})

	t.Run("secrets in an echoed page", func(t *testing.T) {
		t.Parallel()
		page := "<html><body><h1>400 Bad Request</h1><pre>POST /v1/m/charges HTTP/1.1\r\nAuthorization: Basic " + testBasic +
			"\r\nContent-Type: application/json\r\n\r\n{\"card_number\":\"" + testCard + "\",\"cvv2\":\"123\"}</pre>" +
			"<p>key " + testKey + "</p></body></html>"
		out := Excerpt([]byte(page), 400, testKey, testBasic)
		assert.NotContains(t, out, testKey)
		assert.NotContains(t, out, testBasic)
		assert.NotContains(t, out, testCard)
		assert.NotContains(t, out, `"cvv2":"123"`)
		assert.Contains(t, out, "400 Bad Request")
	})

	t.Run("indented page cut across a secret", func(t *testing.T) {
		t.Parallel()
		// Indentation collapses to single spaces, so the visible text can
		// reach the end of the part of the body that was redacted: a key
		// or card number cut there must not show its beginning.
		for _, secret := range []string{testKey, testCard} {
			for indent := 1500; indent < 1700; indent += 3 {
				body := []byte("<html>" + strings.Repeat(" ", indent) + "<p>" + secret + "</p>" + strings.Repeat("z", 3000))
				out := Excerpt(body, 200, testKey, testBasic)
				assertNoFragment(t, out, secret)
			}
		}
	})
}

func TestDisplayPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/v1/m/charges/4111111111111111", "/v1/m/charges/(hidden)"},
		{"/v1/m/charges/4111111111111111/refund", "/v1/m/charges/(hidden)/refund"},
		{"/v1/m/charges/4111%201111%201111%201111", "/v1/m/charges/(hidden)"},
		{"/v1/m/charges/4111 1111 1111 1111", "/v1/m/charges/(hidden)"},
		{"/v1/m/charges/x4111-1111-1111-1111y", "/v1/m/charges/(hidden)"},
		{"/v1/mzdtln0bmtms6o3kck8f/charges/tr6cxbcefzatd10guvvw", "/v1/mzdtln0bmtms6o3kck8f/charges/tr6cxbcefzatd10guvvw"},
		{"/v1/m/cards/41111111111", "/v1/m/cards/41111111111"},                             // 11 digits
		{"/v1/m/cards/a%20b%20c%20d%20e%20f%20g", "/v1/m/cards/a%20b%20c%20d%20e%20f%20g"}, // escapes' digits do not count
		{"/v1/123456/customers/123456", "/v1/123456/customers/123456"},                     // 12 digits, in two segments
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DisplayPath(tt.in), tt.in)
	}
}

// assertNoFragment fails when out holds the first 8 characters (or digits)
// of secret: enough of a key to narrow a search, or more than the first six
// digits of a card number that receipts may show.
func assertNoFragment(t *testing.T, out, secret string) {
	t.Helper()
	clean := strings.NewReplacer(" ", "", "-", "").Replace(secret)
	flat := strings.NewReplacer(" ", "", "-", "").Replace(out)
	assert.NotContains(t, flat, clean[:8], "excerpt %q shows the start of %q", out, secret)
}
