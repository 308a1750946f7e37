package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/openpay-go/openpay/internal/cardnum"
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

// cardMembers hold card numbers; their value is masked whatever its form.
var cardMembers = map[string]bool{"card_number": true, "number": true}

// keyShape matches an API key: the gateway's (sk_ or pk_ and 32 hex digits)
// and the reference server's, which have the same form; a Basic
// credential, in case a body quotes a header.
var keyShape = regexp.MustCompile(`\b[sp]k_[A-Za-z0-9]{8,}|\bBasic [A-Za-z0-9+/]{8,}={0,2}`)

// scrubJSON scrubs a JSON body: it returns the scrubbed body, the card
// numbers it masked by JSON path, and false when body is not JSON.
func scrubJSON(body []byte) (json.RawMessage, map[string]Card, bool) {
	v, ok := decodeJSON(body)
	if !ok {
		return nil, nil, false
	}
	cards := map[string]Card{}
	v = scrubValue(v, "$", "", cards)
	out, err := marshalLine(v)
	if err != nil {
		return nil, nil, false
	}
	if len(cards) == 0 {
		cards = nil
	}
	return json.RawMessage(bytes.TrimRight(out, "\n")), cards, true
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

func scrubValue(v any, path, member string, cards map[string]Card) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, child := range x {
			// Member names are free text too.
			sk := scrubText(k)
			out[sk] = scrubValue(child, childPath(path, sk), k, cards)
		}
		return out
	case []any:
		for i, child := range x {
			x[i] = scrubValue(child, indexPath(path, i), "", cards)
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
		return Scrubbed
	}
	if digits, ok := cardDigits(s); ok && (cardMembers[member] || cardnum.LuhnValid(digits) && cardnum.Brand(digits) != "") {
		class := cardnum.Class(digits)
		if !cardnum.LuhnValid(digits) {
			class = ClassLuhnInvalid
		}
		cards[path] = Card{Brand: cardnum.Brand(digits), Class: class}
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
