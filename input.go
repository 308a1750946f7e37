package openpay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Checks of careless input, made before anything is sent.

// ErrNilRequest is returned (wrapped), before anything is sent, by a call
// given a nil request where it takes one of several request types: a nil
// [ChargeRequest] or [PayoutRequest], or a nil pointer to one of their
// variants.
var ErrNilRequest = errors.New("openpay: nil request")

// checkRequest refuses a nil request of the interface type named kind,
// or one holding a nil pointer (whose methods would dereference it).
func checkRequest(req any, kind string) error {
	if req == nil {
		return fmt.Errorf("%w: pass one of the %s types", ErrNilRequest, kind)
	}
	if v := reflect.ValueOf(req); v.Kind() == reflect.Pointer && v.IsNil() {
		return fmt.Errorf("%w: a nil %T", ErrNilRequest, req)
	}
	return nil
}

// ErrInvalidUTF8 is returned (wrapped), before anything is sent, for a
// request with text that is not valid UTF-8 in any of its strings: a
// description, an order id, a name, a metadata key or value, a list filter
// such as OrderID or ExternalID, an id. Go strings may hold any bytes, such
// as text read in another encoding (Latin-1 "é" is the byte 0xE9) or cut in
// the middle of a character; sent as they are, the gateway would store a
// replacement character in their place. The error names the request member
// ("description", "metadata.note", "customer.name") or the query parameter,
// never its text.
var ErrInvalidUTF8 = errors.New("openpay: text is not valid UTF-8")

// argumentError is an ErrInvalidArgument with its own message.
type argumentError string

// invalidArgument returns an error that says msg and matches
// ErrInvalidArgument.
func invalidArgument(msg string) error { return argumentError(msg) }

func (e argumentError) Error() string { return string(e) }

func (e argumentError) Is(target error) bool { return target == ErrInvalidArgument }

// invalidUTF8Error is the ErrInvalidUTF8 of one member.
type invalidUTF8Error struct {
	method, path string
	// where names the member or query parameter, or the kind of text.
	where string
}

func (e *invalidUTF8Error) Error() string {
	call := ""
	if e.method != "" {
		call = e.method + " " + e.path + ": "
	}
	return "openpay: " + call + "not sent: " + e.where + " is not valid UTF-8"
}

func (e *invalidUTF8Error) Is(target error) bool { return target == ErrInvalidUTF8 }

// replacementEscape is how encoding/json writes each byte of a string that
// is not valid UTF-8; a genuine U+FFFD it writes as the character itself.
var replacementEscape = []byte(`\ufffd`)

// checkUTF8 refuses a request whose encoded body or query holds text that
// is not valid UTF-8. The body is checked as encoding/json wrote it, at the
// cost of a scan of its bytes rather than a walk of the request's fields:
// encoding/json turns each invalid byte of a string into the escape \ufffd
// and writes a genuine U+FFFD raw, so an escape \ufffd in the body is
// invalid input (the escape preceded by an escaped backslash is the text
// "\ufffd" typed as such). Invalid bytes that a MarshalJSON method wrote
// raw are caught by the UTF-8 check of the whole body. Only on failure is
// the body walked, to name the member.
func checkUTF8(method, path string, body []byte, query url.Values) error {
	if len(body) > 0 && (!utf8.Valid(body) || hasReplacementEscape(body)) {
		where := "the request body"
		if m := invalidMember(body); m != "" {
			where = m
		}
		return &invalidUTF8Error{method: method, path: path, where: where}
	}
	for key, vs := range query {
		if !utf8.ValidString(key) || slices.ContainsFunc(vs, func(v string) bool { return !utf8.ValidString(v) }) {
			return &invalidUTF8Error{method: method, path: path, where: "the query parameter " + printableName(key)}
		}
	}
	return nil
}

// hasReplacementEscape reports whether b holds the escape \ufffd, that is
// a backslash that starts an escape (preceded by an even number of
// backslashes) followed by ufffd.
func hasReplacementEscape(b []byte) bool {
	for {
		i := bytes.Index(b, replacementEscape)
		if i < 0 {
			return false
		}
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
		b = b[i+len(replacementEscape):]
	}
}

// invalidMember returns the path of the first member of the JSON document
// body whose name or string value is not valid UTF-8 as written (raw
// invalid bytes, or the escape \ufffd): "metadata.note", "items[2].name".
// A member whose own name is invalid is named by its parent
// ("a member name in metadata"). It returns "" when it finds none.
func invalidMember(body []byte) string {
	type level struct {
		object bool
		member bool   // in an object: a member's name was read, its value not yet
		key    string // that member's name
		index  int    // in an array: the number of elements begun
	}
	var stack []level
	path := func() string {
		var b []byte
		for _, l := range stack {
			switch {
			case !l.object:
				b = append(b, '[')
				b = strconv.AppendInt(b, int64(l.index-1), 10)
				b = append(b, ']')
			case l.member:
				if len(b) > 0 {
					b = append(b, '.')
				}
				b = append(b, printableName(l.key)...)
			}
		}
		return string(b)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var prev int64
	for {
		tok, err := dec.Token()
		if err != nil { // io.EOF, or a body that is not JSON: nothing to name
			return ""
		}
		raw := body[prev:dec.InputOffset()] // the token, after its separator
		prev = dec.InputOffset()
		bad := !utf8.Valid(raw) || hasReplacementEscape(raw)
		var top *level
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch {
		case tok == json.Delim('{') || tok == json.Delim('['):
			if top != nil && !top.object {
				top.index++
			}
			stack = append(stack, level{object: tok == json.Delim('{')})
		case tok == json.Delim('}') || tok == json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].member = false // the member's value ended
			}
		case top != nil && top.object && !top.member: // a member name
			if bad {
				if p := path(); p != "" {
					return "a member name in " + p
				}
				return "a member name"
			}
			top.key, _ = tok.(string)
			top.member = true
		default: // a value
			if top != nil && !top.object {
				top.index++
			}
			if bad {
				return path()
			}
			if top != nil && top.object {
				top.member = false
			}
		}
	}
}

// printableName returns a member or parameter name fit for an error
// message: as it is when it is plain, else quoted and cut short.
func printableName(s string) string {
	if s != "" && len(s) <= 64 && !slices.ContainsFunc([]rune(s), func(r rune) bool {
		return r == utf8.RuneError || r < ' ' || r == '"' || r == '\\' || r == 0x7f
	}) {
		return s
	}
	return strconv.QuoteToASCII(s[:min(len(s), 64)])
}
