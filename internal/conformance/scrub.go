package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/openpay-go/openpay/internal/ascii"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/clabe"
)

// Scrubbed replaces every secret value a cassette would otherwise hold.
const Scrubbed = "[scrubbed]"

// ClassLuhnInvalid is the class of a card number that fails the Luhn check
// (a flow testing error 2004): a replay sends a test card of the same brand
// with its check digit broken.
const ClassLuhnInvalid = "luhn_invalid"

// secretMembers are the members whose values are secret wherever they
// appear: security codes, webhook credentials, keys.
var secretMembers = map[string]bool{
	"cvv2": true, "cvv": true, "cvc": true, "security_code": true,
	"user": true, "username": true, "password": true,
	"private_key": true, "public_key": true, "api_key": true, "secret": true,
}

// codeMembers are the security codes among them: the cassette keeps their
// layout (Code).
var codeMembers = map[string]bool{"cvv2": true, "cvv": true, "cvc": true, "security_code": true}

// cardMembers hold card numbers; their value is masked whatever its form.
var cardMembers = map[string]bool{"card_number": true, "number": true}

// keyShape matches an API key: the gateway's (sk_ or pk_ and 32 hex digits)
// and the reference server's, which have the same form; a Basic
// credential, in case a body quotes a header.
var keyShape = regexp.MustCompile(`\b[sp]k_[A-Za-z0-9]{8,}|\bBasic [A-Za-z0-9+/]{8,}={0,2}`)

// notes is what scrubbing keeps of the secrets it removed, by JSON path
// (query parameters by "?name"): enough for a replay to send an equivalent
// value, valid or not as the recorded one was.
type notes struct {
	cards  map[string]Card
	codes  map[string]Code
	clabes map[string]Clabe
}

func (n *notes) card(path string, c Card) {
	if n.cards == nil {
		n.cards = map[string]Card{}
	}
	n.cards[path] = c
}

func (n *notes) code(path string, c Code) {
	if n.codes == nil {
		n.codes = map[string]Code{}
	}
	n.codes[path] = c
}

func (n *notes) clabe(path string, c Clabe) {
	if n.clabes == nil {
		n.clabes = map[string]Clabe{}
	}
	n.clabes[path] = c
}

// scrubJSON scrubs a JSON body: it returns the scrubbed body, what it noted
// of the secrets it removed, and false when body is not JSON.
func scrubJSON(body []byte) (json.RawMessage, notes, bool) {
	var n notes
	v, ok := decodeJSON(body)
	if !ok {
		return nil, n, false
	}
	v = scrubValue(v, "$", "", &n)
	out, err := marshalLine(v)
	if err != nil {
		return nil, notes{}, false
	}
	return json.RawMessage(bytes.TrimRight(out, "\n")), n, true
}

// decodeJSON decodes one JSON value keeping numbers exact.
func decodeJSON(b []byte) (any, bool) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// scrubQuery scrubs a raw query string parameter by parameter, as bodies
// are scrubbed: a parameter named like a secret member (cvv2=...) becomes
// [Scrubbed], a card number is masked; the notes are by "?name".
func scrubQuery(raw string, n *notes) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		name, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			parts[i] = scrubText(p)
			continue
		}
		scrubbed := scrubValue(val, "?"+name, name, n)
		parts[i] = url.QueryEscape(scrubText(name)) + "=" + url.QueryEscape(fmt.Sprint(scrubbed))
	}
	return strings.Join(parts, "&")
}

// layoutOf describes a secret's form without its value: each digit is 9,
// each letter a, anything else is kept ("4111 1111 ..." is "9999 9999
// ...", a CVV "1234" is "9999").
func layoutOf(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			b[i] = '9'
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			b[i] = 'a'
		case c >= 0x80:
			b[i] = '?'
		}
	}
	return string(b)
}

// metadataSecret matches the names of metadata members whose values are
// taken for secrets: metadata is the merchant's free-form object.
var metadataSecret = regexp.MustCompile(`(?i)pass|secret|token|key|pin|cvv|cvc|nip|auth|credential|clabe`)

func scrubValue(v any, path, member string, n *notes) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, child := range x {
			// Member names are free text too.
			sk := scrubText(k)
			if member == "metadata" && metadataSecret.MatchString(k) && child != nil {
				out[sk] = Scrubbed
				continue
			}
			out[sk] = scrubValue(child, childPath(path, sk), k, n)
		}
		return out
	case []any:
		for i, child := range x {
			x[i] = scrubValue(child, indexPath(path, i), "", n)
		}
		return x
	case nil, bool:
		return v
	}
	s := fmt.Sprint(v) // a string, or a json.Number
	if secretMembers[member] {
		if s == "" {
			return v
		}
		if codeMembers[member] {
			n.code(path, Code{Layout: layoutOf(s)})
		}
		return Scrubbed
	}
	if member == "clabe" && len(s) >= 12 && ascii.Digits(s) {
		bank := s[:3]
		n.clabe(path, Clabe{Bank: bank, Length: len(s), Valid: clabe.Valid(s)})
		return clabe.Mask(s)
	}
	if digits, ok := cardDigits(s); ok && (cardMembers[member] || cardnum.LuhnValid(digits) && cardnum.Brand(digits) != "") {
		class := cardnum.Class(digits)
		if !cardnum.LuhnValid(digits) {
			class = ClassLuhnInvalid
		}
		c := Card{Brand: cardnum.Brand(digits), Class: class}
		usual := 16
		if c.Brand == cardnum.AmericanExpress {
			usual = 15
		}
		if s != digits || len(digits) != usual {
			// Spaces, dashes, or a length its brand does not have.
			c.Layout = layoutOf(s)
		}
		n.card(path, c)
		return cardnum.Mask(digits)
	}
	if _, isNum := v.(json.Number); isNum {
		return v
	}
	return scrubText(s)
}

// scrubText masks the card numbers and removes the keys that free text
// holds.
func scrubText(s string) string {
	s = keyShape.ReplaceAllString(s, Scrubbed)
	for _, r := range panRuns(s) {
		s = s[:r.start] + strings.Repeat("X", r.end-r.start) + s[r.end:]
	}
	return s
}

// cardDigits returns s without spaces and dashes when what remains is 13
// to 19 digits: the lengths of card numbers.
func cardDigits(s string) (string, bool) {
	d := strings.NewReplacer(" ", "", "-", "").Replace(s)
	if len(d) < 13 || len(d) > 19 {
		return "", false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return "", false
		}
	}
	return d, true
}

// run is a byte range of a string.
type run struct{ start, end int }

// panRuns finds the card numbers in free text: maximal runs of digits,
// single spaces or dashes allowed between them, that hold 13 to 19 digits
// of a brand the gateway takes and pass the Luhn check. Identifiers and
// references of other kinds (a CLABE, a bank reference, a Paybin
// reference) fail the brand or the length.
func panRuns(s string) []run {
	var out []run
	isDigit := func(i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }
	for i := 0; i < len(s); {
		if !isDigit(i) || (i > 0 && isAlnum(s[i-1])) {
			i++
			continue
		}
		j := i
		for isDigit(j) || (j > i && j < len(s) && (s[j] == ' ' || s[j] == '-') && isDigit(j+1)) {
			j++
		}
		if j < len(s) && isAlnum(s[j]) {
			i = j
			continue
		}
		if d, ok := cardDigits(s[i:j]); ok && cardnum.LuhnValid(d) && cardnum.Brand(d) != "" {
			out = append(out, run{i, j})
		}
		i = j
	}
	// Replace from the end so that earlier ranges stay valid.
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// childPath and indexPath build the JSON paths reports and cassettes use:
// $.card.card_number, $[0].id, $["odd name"].
func childPath(path, key string) string {
	if key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func indexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Finding is a secret [Scan] found.
type Finding struct {
	Line int    `json:"line"`
	Path string `json:"path"` // JSON path in the line
	Kind string `json:"kind"` // "card number", "security code", "credential", "API key"
}

func (f Finding) String() string { return fmt.Sprintf("line %d: %s at %s", f.Line, f.Kind, f.Path) }

// ScanFile scans a cassette file: see [Scan].
func ScanFile(path string) ([]Finding, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Scan(f)
}

// Scan reads JSON lines (a cassette) and reports every secret left in
// them: a card number (13 to 19 digits of a known brand passing the Luhn
// check, spaces or dashes allowed between them) in any string or member
// name, an API key or Basic credential, and a security code, webhook user
// or password, or key member holding anything but [Scrubbed]. The finding
// names the line and the JSON path, never the value. A line that is not
// JSON is scanned as text.
func Scan(r io.Reader) ([]Finding, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var out []Finding
	line := 0
	for sc.Scan() {
		line++
		add := func(path, kind string) { out = append(out, Finding{Line: line, Path: path, Kind: kind}) }
		b := sc.Bytes()
		if v, ok := decodeJSON(b); ok {
			scanValue(v, "$", "", add)
		} else if len(bytes.TrimSpace(b)) > 0 {
			scanText(string(b), "(text)", add)
		}
	}
	return out, sc.Err()
}

func scanValue(v any, path, member string, add func(path, kind string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			// The path names a secret member name by its scrubbed form.
			p := childPath(path, scrubText(k))
			scanText(k, p, add)
			if member == "metadata" && metadataSecret.MatchString(k) && child != nil {
				if s, ok := child.(string); !ok || s != Scrubbed {
					add(p, "metadata secret")
				}
				continue
			}
			// A cassette's own members holding raw bodies are scanned
			// as what they hold.
			if s, ok := child.(string); ok && (k == "request" || k == "response") {
				if inner, ok := decodeJSON([]byte(s)); ok {
					scanValue(inner, p, "", add)
					continue
				}
			}
			scanValue(child, p, k, add)
		}
		return
	case []any:
		for i, child := range x {
			scanValue(child, indexPath(path, i), "", add)
		}
		return
	case nil, bool:
		return
	}
	s := fmt.Sprint(v)
	if secretMembers[member] && s != "" && s != Scrubbed {
		kind := "credential"
		switch member {
		case "cvv2", "cvv", "cvc", "security_code":
			kind = "security code"
		case "private_key", "public_key", "api_key":
			kind = "API key"
		}
		add(path, kind)
		return
	}
	if member == "clabe" && len(s) >= 12 && ascii.Digits(s) {
		add(path, "CLABE")
		return
	}
	scanText(s, path, add)
}

func scanText(s, path string, add func(path, kind string)) {
	if len(panRuns(s)) > 0 {
		add(path, "card number")
	}
	if keyShape.MatchString(s) {
		add(path, "API key")
	}
}
