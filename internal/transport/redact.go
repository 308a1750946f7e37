package transport

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// redacted replaces whatever must never be shown.
const redacted = "[redacted]"

var (
	// Card numbers: 12 to 19 digits, possibly grouped by spaces or dashes.
	cardNumberRE = regexp.MustCompile(`\d(?:[ -]?\d){11,18}`)
	// Security codes next to their field name, in JSON (also JSON quoted
	// inside a JSON string, as an echoed request body is), forms or prose.
	cvvRE = regexp.MustCompile(`(?i)(cvv2?|cvc2?|security[_ ]code)(\\?"?\s*[:=]\s*\\?"?)\d{3,4}`)
	// Credentials in an echoed header (quoted as cvvRE's field names are).
	authRE = regexp.MustCompile(`(?i)(authorization\\?"?\s*[:=]\s*\\?"?(?:basic|bearer)\s+)[A-Za-z0-9+/=._-]+`)
)

// Redact removes from s every secret given (API keys and their Basic-auth
// encodings), anything shaped like a card number, security codes and
// credentials in echoed headers.
func Redact(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	s = authRE.ReplaceAllString(s, "${1}"+redacted)
	s = cvvRE.ReplaceAllString(s, "${1}${2}"+redacted)
	return cardNumberRE.ReplaceAllString(s, redacted)
}

// Excerpt returns a short, printable, redacted beginning of a body that
// could not be decoded (a proxy's HTML page, a truncated JSON document), for
// error messages. Control characters and runs of white space collapse to one
// space; the result holds at most maxRunes runes plus an ellipsis.
func Excerpt(body []byte, maxRunes int, secrets ...string) string {
	// Redact a generous window before cutting, so that the cut cannot leave
	// the visible prefix of a secret or a card number behind.
	window := body[:min(len(body), 8*maxRunes+64)]
	text := Redact(strings.ToValidUTF8(string(window), "?"), secrets...)
	cut := len(window) < len(body)
	if cut {
		// White space collapses, so the visible text can reach the window's
		// end; a secret or card number that the end cuts in two escaped
		// redaction there. Drop the tail that could hold its first part.
		text = dropTail(text, tailGuard(secrets))
	}
	var b strings.Builder
	space, n := false, 0
	for _, r := range text {
		if n >= maxRunes {
			cut = true
			break
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
				n++
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
		n++
	}
	out := strings.TrimSpace(b.String())
	if cut {
		out += "…"
	}
	return out
}

// tailGuard is longer than any part of a secret, card number (19 digits
// and their separators) or security code that a cut can leave unredacted.
func tailGuard(secrets []string) int {
	g := 64
	for _, s := range secrets {
		g = max(g, len(s))
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
