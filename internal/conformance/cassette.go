package conformance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Format names the cassette format in its header; a reader refuses any
// other.
const Format = "openpay-cassette/1"

// Header is the first line of a cassette.
type Header struct {
	Format string `json:"format"`
	// Country is the country of the merchant recorded ("MX", "CO", "PE"):
	// a replay starts the reference server's merchant in it.
	Country string `json:"country"`
	// Upstream is the base URL recorded against (scheme and host only).
	Upstream string    `json:"upstream"`
	Recorded time.Time `json:"recorded"`
}

// Exchange is one request and its answer, as the cassette keeps them.
type Exchange struct {
	// Seq numbers the exchanges from 1 in the order their requests reached
	// the recorder, which is the cassette's order: exchange Seq is on line
	// Seq+1, after the header. Reports name an exchange #Seq.
	Seq int `json:"seq"`
	// Line is the line of the file the exchange was read from (not
	// written: a cassette edited by hand may have moved it).
	Line int `json:"-"`
	// Operation is the operationId of openapi.yaml the request matched, ""
	// when none did.
	Operation string `json:"operation"`
	Method    string `json:"method"`
	// Path is the escaped request path, with the sandbox's ids.
	Path string `json:"path"`
	// Query is the raw query string, scrubbed like bodies.
	Query string `json:"query,omitempty"`
	// Auth is which kind of key the request carried: "private", "public"
	// or "none". The key itself is never kept.
	Auth string `json:"auth"`
	// Credential is "refused" when the upstream answered 401 to a request
	// that carried a key: the key was wrong (a negative test). A replay
	// then sends a key of the same kind that the target does not know.
	Credential string `json:"credential,omitempty"`
	// ClientIP is set when the request carried the payer's address
	// (X-Forwarded-For); the address is not kept, a replay sends a
	// documentation address (192.0.2.1) in its place.
	ClientIP bool `json:"client_ip,omitempty"`
	// Request is the request body when it was JSON, scrubbed.
	Request json.RawMessage `json:"request,omitempty"`
	// RequestText is a request body that was not JSON, scrubbed.
	RequestText string `json:"request_text,omitempty"`
	// Cards describes each card number of the request body, by the JSON
	// path where its masked form now stands ("$.card.card_number").
	Cards map[string]Card `json:"cards,omitempty"`
	// Codes describes each security code of the request (body or query:
	// "?cvv2"), by the path where [Scrubbed] now stands.
	Codes map[string]Code `json:"codes,omitempty"`
	// Clabes describes each CLABE of the request, by the path where its
	// masked form now stands.
	Clabes map[string]Clabe `json:"clabes,omitempty"`
	// Status is the answer's HTTP status.
	Status int `json:"status"`
	// Response is the answer body when it was JSON, scrubbed.
	Response json.RawMessage `json:"response,omitempty"`
	// ResponseType is the answer's Content-Type when the body was not JSON
	// (a barcode image, an HTML page): such bodies are not kept, and only
	// the status and the type are compared.
	ResponseType string `json:"response_type,omitempty"`
	// Started is when the request reached the recorder; DurationMS how
	// long the upstream took to answer, in milliseconds.
	Started    time.Time `json:"started"`
	DurationMS float64   `json:"duration_ms"`
	// Withheld is set when the scan still found something secret after
	// scrubbing: the bodies were then left out rather than written.
	Withheld string `json:"withheld,omitempty"`
}

// Card is what a cassette keeps of a card number: enough to pick an
// equivalent sandbox test card (cardnum.ClassCard), nothing that is secret.
type Card struct {
	Brand string `json:"brand"`
	// Class is what a charge to the card does in the sandbox
	// (cardnum.Class: "approved", "declined", "stolen", "3ds", ...).
	Class string `json:"class"`
	// Layout is the number's form when it was not plain digits ("9999
	// 9999 9999 9999": each digit a 9) or not of its brand's usual length
	// (16 digits, 15 for American Express): a replay sends its test card
	// in the same form and length, so that a refusal of the form replays.
	Layout string `json:"layout,omitempty"`
}

// Code is what a cassette keeps of a security code: its layout, each digit
// a 9 and each letter an a ("999", "9999", "99a"). A replay sends a code of
// that layout, so a code of the wrong length for its card is refused again.
type Code struct {
	Layout string `json:"layout"`
}

// Clabe is what a cassette keeps of a CLABE besides its masked form: its
// bank code, its length and whether its check digit was right. A replay
// sends a CLABE of that bank, length and validity.
type Clabe struct {
	Bank   string `json:"bank"`
	Length int    `json:"length"`
	Valid  bool   `json:"valid"`
}

// Cassette is a header and its exchanges.
type Cassette struct {
	Header    Header
	Exchanges []Exchange
	// Warnings says what reading the cassette passed over (a partial last
	// line, as a recording cut short leaves).
	Warnings []string
}

// ErrNoExchanges is the error of replaying a cassette that holds no
// exchange: it would check nothing.
var ErrNoExchanges = errors.New("the cassette holds no exchange: it checks nothing (was the recording empty, or cut short?)")

// ReadCassette reads a cassette file.
func ReadCassette(path string) (*Cassette, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := DecodeCassette(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// maxLine bounds one cassette line: an answer of a long list is big, but not
// this big.
const maxLine = 64 << 20

// DecodeCassette reads a cassette from r. A member the format does not
// define is an error naming its line (a misspelt "staus" would otherwise
// read as status 0); a UTF-8 byte order mark is skipped. A last line that is
// not JSON, as a recording cut short by a failed write leaves, is dropped
// with a warning.
func DecodeCassette(r io.Reader) (*Cassette, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var c Cassette
	line := 0
	var pending error // a line that was not JSON: fatal unless it was the last
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(b) == 0 {
			continue
		}
		if pending != nil {
			return nil, pending
		}
		if c.Header.Format == "" {
			if err := strictUnmarshal(b, &c.Header); err != nil {
				return nil, fmt.Errorf("line %d: header: %w", line, err)
			}
			if c.Header.Format != Format {
				return nil, fmt.Errorf("line %d: not a cassette of format %s", line, Format)
			}
			continue
		}
		if !json.Valid(b) {
			pending = fmt.Errorf("line %d: not JSON", line)
			continue
		}
		var e Exchange
		if err := strictUnmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		e.Line = line
		c.Exchanges = append(c.Exchanges, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if c.Header.Format == "" {
		return nil, errors.New("empty cassette: no header line")
	}
	if pending != nil {
		c.Warnings = append(c.Warnings, pending.Error()+": a partial last line, dropped (was the recording cut short?)")
	}
	return &c, nil
}

// strictUnmarshal decodes one JSON value refusing members the type does
// not have.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Encode writes the cassette as JSON lines.
func (c *Cassette) Encode(w io.Writer) error {
	if err := writeLine(w, c.Header); err != nil {
		return err
	}
	for _, e := range c.Exchanges {
		if err := writeLine(w, e); err != nil {
			return err
		}
	}
	return nil
}

// marshalLine encodes v as one line of JSON (no HTML escaping: bodies stay
// readable).
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeLine(w io.Writer, v any) error {
	b, err := marshalLine(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
