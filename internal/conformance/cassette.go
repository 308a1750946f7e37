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
	// Seq numbers the exchanges from 1 in cassette order.
	Seq int `json:"seq"`
	// Operation is the operationId of openapi.yaml the request matched, ""
	// when none did.
	Operation string `json:"operation"`
	Method    string `json:"method"`
	// Path is the escaped request path, with the sandbox's ids.
	Path string `json:"path"`
	// Query is the raw query string, scrubbed like bodies.
	Query string `json:"query,omitempty"`
	// Auth is which kind of key authenticated the request: "private",
	// "public" or "none". The key itself is never kept.
	Auth string `json:"auth"`
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
}

// Cassette is a header and its exchanges.
type Cassette struct {
	Header    Header
	Exchanges []Exchange
}

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

// DecodeCassette reads a cassette from r.
func DecodeCassette(r io.Reader) (*Cassette, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var c Cassette
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if c.Header.Format == "" {
			if err := json.Unmarshal(b, &c.Header); err != nil {
				return nil, fmt.Errorf("line %d: header: %w", line, err)
			}
			if c.Header.Format != Format {
				return nil, fmt.Errorf("line %d: not a cassette of format %s", line, Format)
			}
			continue
		}
		var e Exchange
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		c.Exchanges = append(c.Exchanges, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if c.Header.Format == "" {
		return nil, errors.New("empty cassette: no header line")
	}
	return &c, nil
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
