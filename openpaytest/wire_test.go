package openpaytest_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateWire = flag.Bool("update-wire", false, "rewrite testdata/wire.golden from the server's answers")

// wireRequest is one request as bytes go on the wire: its method, its path
// under /v1/{merchant_id} (or from the root when root is set), its key
// (the merchant's private key when empty, "-" for none), Origin and the
// headers of a browser's preflight, and its body.
type wireRequest struct {
	name, method, path, key, origin, preflight, body string
	root                                             bool
	header                                           string // more header lines, each ending in \r\n
	chunked                                          bool   // the body without a length, in two chunks
}

// wireSession sends requests on one kept-alive connection, as a client's
// pool does, and reads each answer whole, as it came: the status line,
// every header in the order net/http wrote it, and the body.
type wireSession struct {
	t    *testing.T
	srv  *openpaytest.Server
	conn net.Conn
	rd   *bufio.Reader
}

func newWireSession(t *testing.T, srv *openpaytest.Server) *wireSession {
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return &wireSession{t: t, srv: srv, conn: conn, rd: bufio.NewReader(conn)}
}

// do sends rq and returns its answer's bytes.
func (s *wireSession) do(rq wireRequest) string {
	path := rq.path
	if !rq.root {
		path = "/v1/" + s.srv.MerchantID + path
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: wire-test\r\n", rq.method, path, strings.TrimPrefix(s.srv.URL, "http://"))
	key := rq.key
	if key == "" {
		key = s.srv.PrivateKey
	}
	if key != "-" {
		b.WriteString("Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(key+":")) + "\r\n")
	}
	if rq.origin != "" {
		b.WriteString("Origin: " + rq.origin + "\r\n")
	}
	if rq.preflight != "" {
		b.WriteString("Access-Control-Request-Method: " + rq.preflight + "\r\nAccess-Control-Request-Headers: authorization, content-type\r\n")
	}
	b.WriteString(rq.header)
	switch {
	case rq.chunked:
		half := len(rq.body) / 2
		fmt.Fprintf(&b, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n",
			half, rq.body[:half], len(rq.body)-half, rq.body[half:])
	case rq.body != "" || rq.method == http.MethodPost || rq.method == http.MethodPut:
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(rq.body), rq.body)
	default:
		b.WriteString("\r\n")
	}
	_, err := io.WriteString(s.conn, b.String())
	require.NoError(s.t, err)

	var out strings.Builder
	length, chunked := -1, false
	for {
		line, err := s.rd.ReadString('\n')
		require.NoError(s.t, err, rq.name)
		out.WriteString(line)
		if line == "\r\n" {
			break
		}
		name, value, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ": ")
		switch name {
		case "Content-Length":
			length, _ = strconv.Atoi(value)
		case "Transfer-Encoding":
			chunked = value == "chunked"
		}
	}
	if rq.method == http.MethodHead {
		return out.String()
	}
	switch {
	case chunked:
		for {
			line, err := s.rd.ReadString('\n')
			require.NoError(s.t, err)
			out.WriteString(line)
			n, err := strconv.ParseInt(strings.TrimRight(line, "\r\n"), 16, 64)
			require.NoError(s.t, err)
			chunk := make([]byte, n+2)
			_, err = io.ReadFull(s.rd, chunk)
			require.NoError(s.t, err)
			out.Write(chunk)
			if n == 0 {
				break
			}
		}
	case length > 0:
		body := make([]byte, length)
		_, err := io.ReadFull(s.rd, body)
		require.NoError(s.t, err)
		out.Write(body)
	}
	return out.String()
}

var (
	wireRequestID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)
	wireDate      = regexp.MustCompile(`(?m)^Date: [A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT\r$`)
	wireMerchant  = regexp.MustCompile(`\bm[a-z0-9]{19}\b`)
)

// Every answer of every route family (a created and a read resource, a
// list, a long answer, errors 401, 404, 405, 409, 422 and 400, the CORS
// preflight and a browser's answers, the browser library, HEAD) is, byte for
// byte on the wire (status line, every header in order, body), what it
// was before the request's frame changed (testdata/wire.golden, written
// by the server at cb3f0b3 with -update-wire): a merchant's sequence on a
// deterministic server, whose ids and times are the same on every run,
// with the request ids (random on the wire) and net/http's Date told by
// their form only.
func TestAnswersOnTheWireAsBefore(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	wall := openpaytest.NewServer(t, openpaytest.WithSeed(7))
	s, w := newWireSession(t, srv), newWireSession(t, wall)

	customer := `{"name":"Ana","last_name":"Ruiz","email":"ana@example.com","requires_account":true}`
	card := `{"holder_name":"Ana Ruiz","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}`
	var transcript strings.Builder
	record := func(ws *wireSession, rq wireRequest) string {
		got := ws.do(rq)
		shown := got
		if head, body, _ := strings.Cut(got, "\r\n\r\n"); len(body) > 4000 {
			// A long body (the library, a long list) is told by its length and digest.
			shown = fmt.Sprintf("%s\r\n\r\n<%d bytes, sha256 %x>", head, len(body), sha256.Sum256([]byte(body)))
			if strings.Contains(head, "application/json") {
				shown = head + "\r\n\r\n" + body
			}
		}
		transcript.WriteString("### " + rq.name + "\n" + shown + "\n")
		return got
	}
	idOf := func(answer string) string {
		// The top level's id: the last, as the keys are in order and a
		// charge's card comes before it.
		all := regexp.MustCompile(`"id":"([a-z0-9]+)"`).FindAllStringSubmatch(answer, -1)
		require.NotEmpty(t, all, answer)
		m := all[len(all)-1]
		require.NotNil(t, m, answer)
		return m[1]
	}
	for _, ws := range []*wireSession{s, w} {
		cu := idOf(record(ws, wireRequest{name: "POST customer", method: "POST", path: "/customers", body: customer}))
		cd := idOf(record(ws, wireRequest{name: "POST customer card", method: "POST", path: "/customers/" + cu + "/cards", body: card}))
		mc := idOf(record(ws, wireRequest{name: "POST merchant card", method: "POST", path: "/cards", body: card}))
		ch := idOf(record(ws, wireRequest{name: "POST charge, stored card", method: "POST", path: "/charges",
			body: `{"method":"card","source_id":"` + mc + `","amount":100.50,"currency":"MXN","description":"Order 1","order_id":"o-1","device_session_id":"s1"}`}))
		record(ws, wireRequest{name: "POST charge, inline card", method: "POST", path: "/charges",
			body: `{"method":"card","card":` + card + `,"amount":20,"description":"Order 2","order_id":"o-2"}`})
		record(ws, wireRequest{name: "409 order_id again", method: "POST", path: "/charges",
			body: `{"method":"card","source_id":"` + mc + `","amount":100.50,"description":"Order 1","order_id":"o-1"}`})
		record(ws, wireRequest{name: "POST customer's charge", method: "POST", path: "/customers/" + cu + "/charges",
			body: `{"method":"card","source_id":"` + cd + `","amount":300,"description":"Order 3","order_id":"o-3"}`})
		record(ws, wireRequest{name: "GET charge", method: "GET", path: "/charges/" + ch})
		record(ws, wireRequest{name: "HEAD charge", method: "HEAD", path: "/charges/" + ch})
		to := idOf(record(ws, wireRequest{name: "POST second customer", method: "POST", path: "/customers",
			body: `{"name":"Beto","email":"beto@example.com","requires_account":true}`}))
		record(ws, wireRequest{name: "POST transfer", method: "POST", path: "/customers/" + cu + "/transfers",
			body: `{"customer_id":"` + to + `","amount":10.25,"description":"renta","order_id":"t-1"}`})
		for i := range 30 {
			ws.do(wireRequest{name: "more charges", method: "POST", path: "/charges",
				body: fmt.Sprintf(`{"method":"card","source_id":%q,"amount":1,"description":"d","order_id":"x-%d"}`, mc, i)})
		}
		record(ws, wireRequest{name: "GET list (long: its own Content-Length)", method: "GET", path: "/charges?limit=25"})
		record(ws, wireRequest{name: "GET list, short", method: "GET", path: "/charges?limit=1&offset=3"})
		record(ws, wireRequest{name: "401 wrong key", method: "GET", path: "/charges/" + ch, key: "sk_wrong"})
		record(ws, wireRequest{name: "401 no key", method: "GET", path: "/charges/" + ch, key: "-"})
		record(ws, wireRequest{name: "404 no such charge", method: "GET", path: "/charges/trxxxxxxxxxxxxxxxxxx"})
		record(ws, wireRequest{name: "404 no such path", method: "GET", path: "/nothing/here"})
		record(ws, wireRequest{name: "405", method: "PATCH", path: "/charges"})
		record(ws, wireRequest{name: "422 bad card number", method: "POST", path: "/cards",
			body: `{"holder_name":"Ana","card_number":"4111111111111112","cvv2":"123","expiration_month":"12","expiration_year":"30"}`})
		record(ws, wireRequest{name: "400 bad JSON", method: "POST", path: "/customers", body: `{"name":`})
		record(ws, wireRequest{name: "DELETE card (no body)", method: "DELETE", path: "/customers/" + cu + "/cards/" + cd})
		record(ws, wireRequest{name: "CORS preflight", method: "OPTIONS", path: "/tokens", key: "-",
			origin: "https://shop.example", preflight: "POST"})
		record(ws, wireRequest{name: "CORS preflight, route closed to browsers", method: "OPTIONS", path: "/charges", key: "-",
			origin: "https://shop.example", preflight: "POST"})
		record(ws, wireRequest{name: "browser POST token", method: "POST", path: "/tokens", key: ws.srv.PublicKey,
			origin: "https://shop.example", body: card})
		record(ws, wireRequest{name: "browser POST card, opaque origin", method: "POST", path: "/cards", key: ws.srv.PublicKey,
			origin: "null", body: card})
		record(ws, wireRequest{name: "browser with the private key (1010)", method: "POST", path: "/tokens",
			origin: "https://shop.example", body: card})
		record(ws, wireRequest{name: "browser library", method: "GET", path: "/openpay.v1.js", key: "-", root: true})
	}
	got := wireRequestID.ReplaceAllString(transcript.String(), "<request id>")
	got = wireDate.ReplaceAllString(got, "Date: <net/http's date>\r")
	got = wireMerchant.ReplaceAllString(got, "<merchant>")
	got = regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(got, "<host>")
	// The wall clock's timestamps.
	got = regexp.MustCompile(`20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d-0[56]:00`).ReplaceAllString(got, "<time>")
	const golden = "testdata/wire.golden"
	if *updateWire {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

// A merchant's strict-mode charges, sent on one kept-alive connection as a
// client's pool sends them: a charge without the payer's address (1001) or
// with one that is not an IP address (1003) records nothing, the charge
// with it is recorded once whatever the retries of its order_id (1006),
// its GET answers the bytes its POST did, and every answer keeps the
// connection open (the server reads each body whole, with a length or
// chunked, and net/http finds nothing left of it).
func TestStrictChargesOnOneConnection(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic(), openpaytest.WithStrict())
	s := newWireSession(t, srv)
	body := func(answer string) string {
		_, b, _ := strings.Cut(answer, "\r\n\r\n")
		return b
	}
	status := func(answer string) string { return answer[len("HTTP/1.1 "):len("HTTP/1.1 200")] }
	assertCode := func(answer, wantStatus, wantCode string) {
		t.Helper()
		assert.Equal(t, wantStatus, status(answer), answer)
		assert.Contains(t, body(answer), `"error_code":`+wantCode, answer)
	}
	listed := func(orderID string) int {
		t.Helper()
		got := s.do(wireRequest{name: "list", method: "GET", path: "/charges?order_id=" + orderID})
		require.Equal(t, "200", status(got), got)
		return strings.Count(body(got), `"transaction_type":"charge"`)
	}
	card := `{"holder_name":"Ana Ruiz","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"}`
	cd := s.do(wireRequest{name: "card, chunked", method: "POST", path: "/cards", body: card, chunked: true})
	require.Equal(t, "200", status(cd), cd)
	cardID := regexp.MustCompile(`"id":"([a-z0-9]+)"`).FindStringSubmatch(body(cd))[1]
	charge := `{"method":"card","source_id":"` + cardID + `","amount":250.75,"description":"Order 9","order_id":"o-9","device_session_id":"s9",` +
		`"customer":{"name":"Ana","email":"ana@example.com"}}`

	assertCode(s.do(wireRequest{name: "no address", method: "POST", path: "/charges", body: charge}), "400", "1001")
	assertCode(s.do(wireRequest{name: "not an address", method: "POST", path: "/charges", body: charge,
		header: "X-Forwarded-For: junk, 203.0.113.7\r\n"}), "422", "1003")
	assert.Zero(t, listed("o-9"), "a refused charge records nothing")

	first := s.do(wireRequest{name: "charge", method: "POST", path: "/charges", body: charge, header: "X-Forwarded-For: 203.0.113.7\r\n"})
	require.Equal(t, "200", status(first), first)
	for range 3 { // a client's retries of the same order
		assertCode(s.do(wireRequest{name: "again", method: "POST", path: "/charges", body: charge,
			header: "X-Forwarded-For: 203.0.113.7, 10.0.0.1\r\n"}), "409", "1006")
	}
	assert.Equal(t, 1, listed("o-9"), "one transaction per order_id")
	chargeID := regexp.MustCompile(`"id":"(tr[a-z0-9]+)"`).FindStringSubmatch(body(first))[1]
	got := s.do(wireRequest{name: "GET charge", method: "GET", path: "/charges/" + chargeID})
	assert.Equal(t, body(first), body(got), "GET answers what POST did")
	assert.Contains(t, body(got), `"amount":250.75`)
	assert.NotContains(t, first+got, "Connection: close")
}
