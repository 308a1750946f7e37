package transport

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// redacted replaces whatever must never be shown.
const redacted = "[redacted]"

// quote is a quotation mark as echoed text carries it: plain, escaped for
// JSON once or more (\" and \u0022), HTML-escaped (&#34; &#x22; &quot;),
// or single.
const quote = `(?:\\*"|\\+u0022|&#0*34;|&#[xX]0*22;|&quot;|'|&#0*39;|&#[xX]0*27;|&apos;)`

// cardSep separates the digit groups of a card number written for people:
// spaces, dots, slashes, underscores, plus signs and dashes, and a space
// escaped for a URL, for HTML or for JSON.
const cardSep = `(?:[\s._/+-]|%20|&#0*32;|&nbsp;|\\u0020){1,3}`

var (
	// Card numbers: 12 to 19 digits, run together or with one space or
	// dash between any two of them, or in groups of four (4-4-4-1 to
	// 4-4-4-7) or 4-6-5 (American Express) with other separators. Dates,
	// times and amounts do not come in such groups.
	cardNumberRE = regexp.MustCompile(`\d(?:[ -]?\d){11,18}|\d{4}(?:` + cardSep + `\d{4}){2}` + cardSep + `\d{1,7}|\d{4}` + cardSep + `\d{6}` + cardSep + `\d{5}`)
	// Security codes after their name, in JSON (also quoted inside JSON,
	// HTML-escaped or \u-escaped), forms and prose ("CVV2 739", "cvv: 739",
	// "security code is 1234"). Only quotes, blanks, ':', '=', '-' and the
	// words is, was and of may stand between the name and the digits.
	cvvRE = regexp.MustCompile(`(?i)(cvv2?|cvc2?|cvn2?|card[_ -]?verification[_ -]?(?:value|code)|security[_ -]?code|c[oó]digo[_ -]de[_ -]seguridad)((?:` +
		quote + `|[\s:=-]|\bis\b|\bwas\b|\bof\b)*)\d{3,4}\b`)
	// Credentials: after an echoed Authorization header name, any token
	// after Basic or Bearer; elsewhere, a long token after those words.
	authRE = regexp.MustCompile(`(?i)(authorization(?:` + quote + `|[\s:=])*(?:basic|bearer)\s+)[A-Za-z0-9+/=._~-]+|((?:basic|bearer)\s+)[A-Za-z0-9+/._~-]{16,}=*`)
	// Openpay private keys (sk_ and 32 characters) and their Basic-auth
	// encodings, which all begin with c2tf (the encoding of "sk_"), even
	// when the key is not the client's own.
	keyRE = regexp.MustCompile(`sk_[A-Za-z0-9]{16,}|c2tf[A-Za-z0-9+/]{16,}=*`)
)

// secretForms are the escapings under which an echoed secret (a key or its
// Basic encoding, whose characters include '+', '/' and '=') can come back:
// JSON that escapes slashes, HTML, and URL encoding.
var secretForms = []*strings.Replacer{
	strings.NewReplacer("/", `\/`),
	strings.NewReplacer("+", "&#43;", "/", "&#47;", "=", "&#61;"),
	strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D"),
}

// Redact removes from s every secret given (API keys and their Basic-auth
// encodings, also escaped for JSON, HTML or a URL), anything shaped like an
// Openpay private key or its encoding, anything shaped like a card number,
// security codes and credentials.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, redacted)
			for _, f := range secretForms {
				if esc := f.Replace(sec); esc != sec {
					s = strings.ReplaceAll(s, esc, redacted)
				}
			}
		}
	}
	// Security codes go before credentials, whose long tokens could
	// swallow a code's name, and card numbers last, once no credential
	// is left for their digit runs to cut in pieces.
	s = keyRE.ReplaceAllString(s, redacted)
	s = cvvRE.ReplaceAllString(s, "${1}${2}"+redacted)
	s = authRE.ReplaceAllString(s, "${1}${2}"+redacted)
	return cardNumberRE.ReplaceAllString(s, redacted)
}

// Excerpt returns a short, printable, redacted beginning of text that came
// from a server (a body that could not be decoded, such as a proxy's HTML
// page, or a field of an error body), for error messages. Control characters
// and runs of white space collapse to one space; the result holds at most
// maxRunes runes plus an ellipsis, however long the text.
func Excerpt[T string | []byte](body T, maxRunes int, secrets ...string) string {
	// Redact a generous window before cutting, so that the cut cannot leave
	// the visible prefix of a secret or a card number behind. White space
	// collapses first: what is redacted is what shows, and no run of blanks
	// or control characters can hide a card number that collapsing would
	// bring together.
	window := body[:min(len(body), 8*maxRunes+64)]
	text := Redact(collapseSpace(strings.ToValidUTF8(string(window), "?")), secrets...)
	cut := len(window) < len(body)
	if cut {
		// Collapsing brings text from far into the window into view; a
		// secret or card number that the window's end cuts in two escaped
		// redaction there. Drop the tail that could hold its first part.
		text = dropTail(text, tailGuard(secrets))
	}
	n := 0
	for i := range text {
		if n == maxRunes {
			text, cut = text[:i], true
			break
		}
		n++
	}
	text = strings.TrimSpace(text)
	if cut {
		text += "…"
	}
	return text
}

// collapseSpace turns every run of white space and control characters
// into one space, and drops it at the start.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// tailGuard is longer than any part of a secret (escaped in any of
// secretForms, at most five bytes for one), card number (19 digits and
// their separators) or security code that a cut can leave unredacted.
func tailGuard(secrets []string) int {
	g := 128
	for _, s := range secrets {
		g = max(g, 5*len(s))
	}
	return g
}

// dropTail removes the last n bytes of s, and the rest of a rune they cut.
func dropTail(s string, n int) string {
	keep := max(len(s)-n, 0)
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep]
}

// hiddenSegment stands for a path segment that DisplayPath hides.
const hiddenSegment = "(hidden)"

// DisplayPath returns a URL path as errors and logs may show it: a segment
// holding 12 digits or more (a card number passed by mistake as an id)
// becomes "(hidden)", as the reference server hides such a value in its
// messages. The gateway's ids are short lowercase strings with few digits,
// so they are kept. The digits of %XX escapes do not count, so the path may
// be given escaped or not.
func DisplayPath(path string) string {
	if countDigits(path) < 12 {
		return path // the usual case: nothing to hide, nothing allocated
	}
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		if countDigits(seg) >= 12 {
			segs[i] = hiddenSegment
		}
	}
	return strings.Join(segs, "/")
}

// countDigits counts the ASCII digits of s outside %XX escapes.
func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		case c >= '0' && c <= '9':
			n++
		}
	}
	return n
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
