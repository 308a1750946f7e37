package openpay

// Servers that echo secrets back in the places an error shows: the request
// id, the description in escaped or prose forms, a response line net/http
// quotes, a body too large for a message. Built on the harness of
// transport_test.go, which checks every debug record for the key, its
// Basic encoding and the card number.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileCharge is an inline card charge carrying secretNumber and
// secretCVV, for a server to echo.
func hostileCharge() InlineCardCharge {
	return InlineCardCharge{Amount: MustAmount("100.00"), Description: "Order 42", Card: CardDetails{
		CardNumber: secretNumber, CVV2: secretCVV, HolderName: "Juan Perez", ExpirationMonth: "12", ExpirationYear: "30"}}
}

// cvvShownRE finds the security codes of these tests (secretCVV, and 4
// followed by it) as a number of their own: timings and timestamps in log
// records hold any three digits in a row now and then.
var cvvShownRE = regexp.MustCompile(`(^|\D)4?` + secretCVV + `(\D|$)`)

// assertNothingSecret fails when text holds the key, its Basic encoding,
// the card number (whole, grouped or its first eight digits) or the
// security code.
func assertNothingSecret(t *testing.T, where, text string) {
	t.Helper()
	assertNoSecrets(t, where, text)
	for _, s := range []string{secretNumber[:8], "4111 1111", "4111-1111"} {
		assert.NotContains(t, text, s, "%s shows a secret", where)
	}
	assert.NotRegexp(t, cvvShownRE, text, "%s shows the security code", where)
}

// errorBody is the gateway's error object with the given description and
// request_id.
func errorBody(description, requestID string) string {
	b, _ := json.Marshal(map[string]any{"category": "request", "error_code": 1001, "description": description,
		"http_code": 400, "request_id": requestID})
	return string(b)
}

// echoedCard is the card data of a request body, as JSON.
func echoedCard(body []byte) string {
	var req struct {
		Card struct {
			Number string `json:"card_number"`
			CVV2   string `json:"cvv2"`
		} `json:"card"`
	}
	json.Unmarshal(body, &req)
	b, _ := json.Marshal(req.Card)
	return string(b)
}

// echo answers 400 with what answer makes of the request.
func echo(answer func(body []byte, r *http.Request) (header http.Header, payload string)) step {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		header, payload := answer(body, r)
		for k, v := range header {
			w.Header()[k] = v
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, payload)
	}
}

func TestHostileErrorAnswers(t *testing.T) {
	t.Parallel()
	htmlType := http.Header{"Content-Type": {"text/html"}}
	tests := []struct {
		name   string
		answer func(body []byte, r *http.Request) (http.Header, string)
		check  func(t *testing.T, e *Error)
	}{
		{"request_id echoes the request body", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid request", string(body))
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"request_id echoes the Authorization header", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid request", r.Header.Get("Authorization"))
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"request_id is the Basic encoding alone", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid request", strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"request_id is the key", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid request", tpKey)
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"request_id is the card number", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid request", secretNumber)
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"X-Request-Id echoes the Authorization header", func(body []byte, r *http.Request) (http.Header, string) {
			return http.Header{"X-Request-Id": {r.Header.Get("Authorization")}, "Content-Type": {"text/html"}}, "<html>Bad Request</html>"
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"X-Request-Id is the card number, the body has no request_id", func(body []byte, r *http.Request) (http.Header, string) {
			return http.Header{"X-Request-Id": {secretNumber}}, `{"category":"request","error_code":1001,"description":"Invalid"}`
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"X-Request-Id is too long", func(body []byte, r *http.Request) (http.Header, string) {
			return http.Header{"X-Request-Id": {strings.Repeat("a", 65)}}, "{}"
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"UUIDs with long digit runs are kept whole", func(body []byte, r *http.Request) (http.Header, string) {
			return http.Header{"X-Request-Id": {"12345678-1234-4234-8234-123456789012"}}, "<html></html>"
		}, func(t *testing.T, e *Error) { assert.Equal(t, "12345678-1234-4234-8234-123456789012", e.RequestID) }},
		{"a UUID in the body wins over the header", func(body []byte, r *http.Request) (http.Header, string) {
			return http.Header{"X-Request-Id": {"r-1"}}, errorBody("Invalid", "98765432-1098-4765-8321-098765432109")
		}, func(t *testing.T, e *Error) { assert.Equal(t, "98765432-1098-4765-8321-098765432109", e.RequestID) }},
		{"a token with an underscore is kept", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid", "req_01.abc:9-Z")
		}, func(t *testing.T, e *Error) { assert.Equal(t, "req_01.abc:9-Z", e.RequestID) }},
		{"a token with a space is refused", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid", "req 1")
		}, func(t *testing.T, e *Error) { assert.Equal(t, invalidRequestID, e.RequestID) }},
		{"a short token is kept", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("Invalid", "r-1001.abc:9Z")
		}, func(t *testing.T, e *Error) { assert.Equal(t, "r-1001.abc:9Z", e.RequestID) }},
		{"description with HTML-escaped JSON", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("bad body "+html.EscapeString(echoedCard(body)), "r-1")
		}, func(t *testing.T, e *Error) {
			assert.Contains(t, e.Description, "&#34;cvv2&#34;:&#34;[redacted]&#34;}")
		}},
		{"description with &quot;-escaped JSON", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("bad body "+strings.ReplaceAll(echoedCard(body), `"`, "&quot;"), "r-1")
		}, func(t *testing.T, e *Error) {
			assert.Contains(t, e.Description, "&quot;cvv2&quot;:&quot;[redacted]&quot;}")
		}},
		{`description with \u0022-escaped JSON`, func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("bad body "+strings.ReplaceAll(echoedCard(body), `"`, `\u0022`), "r-1")
		}, func(t *testing.T, e *Error) {
			assert.Contains(t, e.Description, `\u0022cvv2\u0022:\u0022[redacted]\u0022}`)
		}},
		{"description in prose", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("CVV2 "+secretCVV+" does not match card 4111 1111 1111 1111; cvv: "+secretCVV+
				"; security code 4"+secretCVV+" refused; card 4111.1111.1111.1111", "r-1")
		}, func(t *testing.T, e *Error) {
			assert.Contains(t, e.Description, "CVV2 [redacted] does not match card [redacted]")
		}},
		{"fraud rules echo the card", func(body []byte, r *http.Request) (http.Header, string) {
			b, _ := json.Marshal(map[string]any{"category": "gateway", "error_code": 3005, "description": "Fraud",
				"fraud_rules": []string{"card " + secretNumber + " cvv2=" + secretCVV, string(body)}})
			return nil, string(b)
		}, func(t *testing.T, e *Error) { assert.Len(t, e.FraudRules, 2) }},
		{"an HTML page with HTML-escaped JSON", func(body []byte, r *http.Request) (http.Header, string) {
			return htmlType, "<html><body><pre>" + html.EscapeString(string(body)) + "</pre><p>" +
				html.EscapeString("Authorization: "+r.Header.Get("Authorization")) + "</p></body></html>"
		}, func(t *testing.T, e *Error) { assert.Contains(t, e.Description, "not a gateway error object") }},
		{"a description of 10 MB", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody(strings.Repeat("x", 10<<20)+secretNumber, "r-1")
		}, func(t *testing.T, e *Error) {
			assert.LessOrEqual(t, utf8.RuneCountInString(e.Description), excerptRunes+1)
			assert.True(t, strings.HasSuffix(e.Description, "…"))
			assert.Less(t, len(e.Error()), 1000)
		}},
		{"10 MB of fraud rules and category", func(body []byte, r *http.Request) (http.Header, string) {
			rules := make([]string, 10_000)
			for i := range rules {
				rules[i] = strings.Repeat("r", 1000)
			}
			b, _ := json.Marshal(map[string]any{"category": strings.Repeat("c", 1<<20), "error_code": 3005,
				"description": "Fraud", "fraud_rules": rules})
			return nil, string(b)
		}, func(t *testing.T, e *Error) {
			assert.Len(t, e.FraudRules, maxFraudRules)
			for _, r := range e.FraudRules {
				assert.LessOrEqual(t, utf8.RuneCountInString(r), excerptRunes+1)
			}
			assert.LessOrEqual(t, utf8.RuneCountInString(string(e.Category)), excerptRunes+1)
			assert.Less(t, len(e.Error()), 1000)
		}},
		{"a description that forges log lines", func(body []byte, r *http.Request) (http.Header, string) {
			return nil, errorBody("declined\ntime=2024-01-01 level=ERROR msg=forged\r\n", "r-1")
		}, func(t *testing.T, e *Error) {
			assert.Equal(t, "declined time=2024-01-01 level=ERROR msg=forged", e.Description)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, echo(tt.answer))
			h := newHarness(t, srv.URL)
			_, err := h.c.Charges.Create(context.Background(), hostileCharge(), WithClientIP("203.0.113.7"))
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Contains(t, srv.requests()[0].Body, secretNumber, "the server was sent the card")
			assertNothingSecret(t, "error", errorText(err))
			assertNothingSecret(t, "error fields", fmt.Sprint(e.Description, e.RequestID, e.FraudRules, e.Path, e.Category))
			assertNothingSecret(t, "debug log", h.logs.String())
			tt.check(t, e)
		})
	}
}

// A card number given as an id is sent as it is, but every error and log
// record shows its path segment as (hidden).
func TestCardShapedIDHidden(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	const hidden = "/v1/" + tpMerchant + "/charges/(hidden)"

	for _, id := range []string{secretNumber, "4111 1111 1111 1111", "4111-1111-1111-1111"} {
		t.Run(id+" not found", func(t *testing.T) {
			t.Parallel()
			// The gateway's own answer may name the id too.
			srv := newScriptServer(t, reply(404, `{"category":"request","error_code":1005,"description":"The requested resource with id `+
				id+` does not exist","http_code":404,"request_id":"`+tpRequestID+`"}`))
			h := newHarness(t, srv.URL)
			_, err := h.c.Charges.Get(context.Background(), id)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, hidden, e.Path)
			assert.Contains(t, e.Error(), hidden)
			assertNothingSecret(t, "error", errorText(err)+e.Description)
			assert.Equal(t, "/v1/"+tpMerchant+"/charges/"+id, srv.requests()[0].Path, "the request itself names the id")
			assert.Contains(t, h.logs.String(), hidden)
			assertNothingSecret(t, "debug log", h.logs.String())
		})
		t.Run(id+" dead server", func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, dead)
			_, err := h.c.Charges.Get(context.Background(), id)
			var te *TransportError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, 3, te.Attempts)
			assert.Equal(t, hidden, te.Path)
			assertNothingSecret(t, "error", errorText(err))
			assert.Equal(t, 5, strings.Count(h.logs.String(), hidden), "one record per attempt, one per retry: %s", h.logs.String())
			assertNothingSecret(t, "debug log", h.logs.String())
		})
	}
	t.Run("an ordinary id shows", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, reply(404, `{"category":"request","error_code":1005,"description":"Not found"}`))
		h := newHarness(t, srv.URL)
		_, err := h.c.Charges.Get(context.Background(), "tr6cxbcefzatd10guvvw")
		assert.ErrorContains(t, err, chargePath)
	})
}

// A server that answers garbage where a status line belongs gets it quoted
// by net/http in the transport failure; a 2xx body that does not decode
// gets a number quoted by encoding/json. Neither shows a secret, and
// neither grows with the answer.
func TestHostileUndecodableAnswers(t *testing.T) {
	t.Parallel()
	t.Run("malformed status line", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				go func() {
					defer conn.Close()
					req, err := http.ReadRequest(bufio.NewReader(conn))
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					// The request where the status line belongs, without a
					// space, so that net/http quotes it whole.
					fmt.Fprintf(conn, "%s|%s|Authorization:%s|%s\r\n\r\n", req.URL.Path, body,
						strings.ReplaceAll(req.Header.Get("Authorization"), " ", "_"), strings.Repeat("z", 1<<20))
				}()
			}
		}()
		h := newHarness(t, "http://"+l.Addr().String())
		_, err = h.c.Charges.Create(context.Background(), hostileCharge(), WithClientIP("203.0.113.7"))
		var te *TransportError
		require.ErrorAs(t, err, &te)
		assert.Contains(t, te.Err.Error(), secretNumber, "the failure itself quotes the answer")
		assertNothingSecret(t, "error", errorText(err))
		assert.Less(t, len(te.Error()), 1000)
		assert.Contains(t, h.logs.String(), "malformed HTTP")
		assertNothingSecret(t, "debug log", h.logs.String())
	})
	t.Run("2xx body with a card number where a string belongs", func(t *testing.T) {
		t.Parallel()
		srv := newScriptServer(t, okReply(`{"id":`+secretNumber+`,"cvv2":`+secretCVV+`}`))
		h := newHarness(t, srv.URL)
		_, err := h.c.Charges.Get(context.Background(), "tr6cxbcefzatd10guvvw")
		require.Error(t, err)
		var te *json.UnmarshalTypeError
		assert.True(t, errors.As(err, &te), "the decoding failure is still reachable")
		assertNothingSecret(t, "error", errorText(err))
	})
}

// Error texts stay bounded and redacted however the error was built.
func TestErrorTextsBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("é", 1<<20)
	errs := []error{
		&Error{Code: ErrBadRequest, Description: huge + secretNumber, RequestID: huge, Method: "GET", Path: "/v1/x"},
		&TransportError{Method: "POST", Path: "/v1/x", Attempts: 1, Err: errors.New(huge)},
		&TransportError{Method: "POST", Path: "/v1/x", Attempts: 1, Err: errors.New("malformed HTTP response \"card " + secretNumber + " cvv2=" + secretCVV + "\"")},
		&OrderConflictError{OrderID: "oid-1", Existing: &Transaction{ID: huge, Method: TransactionMethod(huge), Currency: secretNumber}},
		&OrderConflictError{OrderID: huge},
	}
	for _, err := range errs {
		text := err.Error()
		assert.Less(t, utf8.RuneCountInString(text), 1200, "%T", err)
		assertNothingSecret(t, fmt.Sprintf("%T", err), text)
	}
	// A request id built by hand that is not one shows as invalid.
	assert.Contains(t, (&Error{RequestID: "Basic " + tpBasic}).Error(), "[request "+invalidRequestID+"]")
	assert.Contains(t, (&Error{RequestID: tpRequestID}).Error(), "[request "+tpRequestID+"]")
}
