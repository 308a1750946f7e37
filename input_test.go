package openpay

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The UTF-8 check reads the encoded body rather than the request's fields,
// relying on how encoding/json writes strings: each invalid byte as the
// escape \ufffd, a genuine U+FFFD as the character itself, a backslash as
// \\. These cases pin that down, through the SDK's own encoding of real
// request types (custom MarshalJSON methods and the card wire forms
// included).
func TestCheckUTF8OnEncodedBodies(t *testing.T) {
	t.Parallel()
	card := CardDetails{HolderName: "Juan", CardNumber: "4111111111111111", CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}
	withHolder := func(name string) CardDetails { c := card; c.HolderName = name; return c }
	tests := []struct {
		name  string
		body  any
		where string // "" when the body must pass
	}{
		{name: "plain", body: CardCharge{Description: "Pedido 42, añejo ☕", OrderID: "o-1"}},
		{name: "genuine U+FFFD", body: CardCharge{Description: "a \ufffd b", Metadata: Metadata{"\ufffd": "\ufffd"}}},
		{name: "the text \\ufffd", body: CardCharge{Description: `\ufffd`, OrderID: `\\ufffd`, Metadata: Metadata{`\ufffd`: `\\\ufffd`}}},
		{name: "backslash then U+FFFD", body: CardCharge{Description: "\\\ufffd"}},
		{name: "U+2028", body: CardCharge{Description: "a\u2028b"}},

		{name: "description", body: CardCharge{Description: "caf\xe9"}, where: "description"},
		{name: "order id", body: CardCharge{OrderID: "o-\xff"}, where: "order_id"},
		{name: "after a backslash", body: CardCharge{Description: "\\\xff"}, where: "description"},
		{name: "after two backslashes", body: CardCharge{Description: "\\\\\xff"}, where: "description"},
		{name: "cut in a character", body: CardCharge{Description: "añ"[:2]}, where: "description"},
		{name: "metadata value", body: CardCharge{Metadata: Metadata{"a": "ok", "note": "\xc3("}}, where: "metadata.note"},
		{name: "metadata key", body: CardCharge{Metadata: Metadata{"no\xfate": "x"}}, where: "a member name in metadata"},
		{name: "customer name", body: StoreCharge{Customer: &ChargeCustomer{Name: "Jos\xe9", Email: "j@example.com"}}, where: "customer.name"},
		{name: "card holder, wire form", body: InlineCardCharge{Card: withHolder("Jos\xe9")}, where: "card.holder_name"},
		{name: "subscription card", body: SubscriptionRequest{PlanID: "p", Card: &CardDetails{HolderName: "\xff"}}, where: "card.holder_name"},
		{name: "customer request", body: CustomerRequest{Name: "Ana", LastName: "P\xe9rez"}, where: "last_name"},
		{name: "address", body: CustomerRequest{Name: "Ana", Address: &Address{Line1: "\xff", City: "c"}}, where: "address.line1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body, err := json.Marshal(wireForm(tt.body))
			require.NoError(t, err)
			err = checkUTF8("POST", "/v1/m/charges", body, nil)
			if tt.where == "" {
				assert.NoError(t, err, "%s", body)
				return
			}
			require.ErrorIs(t, err, ErrInvalidUTF8, "%s", body)
			assert.Equal(t, "openpay: POST /v1/m/charges: not sent: "+tt.where+" is not valid UTF-8", err.Error())
		})
	}
}

// rawText is a MarshalJSON that writes its bytes unescaped, as a careless
// one might: encoding/json passes them through, invalid UTF-8 included.
type rawText string

func (r rawText) MarshalJSON() ([]byte, error) { return []byte(`"` + string(r) + `"`), nil }

// Invalid bytes a MarshalJSON method wrote raw are caught too, and the
// SDK's own string-writing MarshalJSON methods (flexString, the card
// masking) escape, so their invalid bytes become \ufffd.
func TestCheckUTF8RawMarshalerOutput(t *testing.T) {
	t.Parallel()
	body, err := json.Marshal(struct {
		A rawText `json:"a"`
		B rawText `json:"b"`
	}{A: "ok", B: "\xff"})
	require.NoError(t, err)
	require.False(t, utf8.Valid(body), "encoding/json passed the raw byte through")
	err = checkUTF8("POST", "/p", body, nil)
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.Contains(t, err.Error(), "not sent: b is not")

	for _, v := range []any{flexString("\xff"), CardDetails{HolderName: "\xff"}, CardRequest{Card: CardDetails{HolderName: "\xff"}}} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		assert.True(t, utf8.Valid(b), "%T", v)
		assert.True(t, hasReplacementEscape(b), "%T: %s", v, b)
	}
}

// The escape is looked for in what encoding/json writes, byte for byte.
func TestReplacementEscapeIsWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal("\xff")
	require.NoError(t, err)
	assert.Equal(t, `"\ufffd"`, string(b), "an invalid byte")
	b, err = json.Marshal("\ufffd")
	require.NoError(t, err)
	assert.Equal(t, "\"\ufffd\"", string(b), "a genuine U+FFFD is written as itself")
	b, err = json.Marshal(`\ufffd`)
	require.NoError(t, err)
	assert.Equal(t, `"\\ufffd"`, string(b), "the text: an escaped backslash")

	for in, want := range map[string]bool{
		`\ufffd`: true, `a\ufffd`: true, `\\ufffd`: false, `\\\ufffd`: true, `\\\\ufffd`: false,
		`\\ufffd\ufffd`: true, `\\ufffd \\ufffd`: false, `\uFFFD`: false, `ufffd`: false, ``: false,
	} {
		assert.Equal(t, want, hasReplacementEscape([]byte(in)), in)
	}
}

func TestInvalidMemberPaths(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"a":"x","b":{"c":[1,"ok",{"d":"\ufffd"}]}}`: "b.c[2].d",
		`{"a":[["ok"],["ok","\ufffd"]]}`:              "a[1][1]",
		`{"a":{"b":1},"c":"\ufffd"}`:                  "c",
		`{"a":{"b":1},"c":["\ufffd"]}`:                "c[0]",
		`{"":"\ufffd"}`:                               `""`,
		`{"a\ufffd":1}`:                               "a member name",
		`{"x":{"a\ufffd":1}}`:                         "a member name in x",
		`{"we\"ird":"\ufffd"}`:                        `"we\"ird"`,
		`["\ufffd"]`:                                  "[0]",
		`"\ufffd"`:                                    "",
		`{"a":"\\ufffd","b":"` + "\xff" + `"}`:        "b",
		`{"a":"ok"}`:                                  "",
		`not json`:                                    "",
		`{"long":{"` + strings.Repeat("k", 80) + `":"\ufffd"}}`: `long."` + strings.Repeat("k", 64) + `"`,
	} {
		assert.Equal(t, want, invalidMember([]byte(body)), body)
	}
}

func TestCheckUTF8Query(t *testing.T) {
	t.Parallel()
	assert.NoError(t, checkUTF8("GET", "/p", nil, url.Values{"order_id": {"añejo \ufffd"}}))
	err := checkUTF8("GET", "/p", nil, url.Values{"limit": {"10"}, "order_id": {"o-\xff"}})
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.Equal(t, "openpay: GET /p: not sent: the query parameter order_id is not valid UTF-8", err.Error())
	err = checkUTF8("GET", "/p", nil, url.Values{"k\xff": {"v"}})
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.NotContains(t, err.Error(), "\xff")

	_, err = buildURL("http://h", []string{"v1", "m"}, []string{"charges", "tr\xff"})
	require.ErrorIs(t, err, ErrInvalidUTF8)
	assert.Equal(t, "openpay: not sent: an id is not valid UTF-8", err.Error())
	assert.False(t, errors.Is(err, ErrAmountPrecision))
}

// BenchmarkCheckUTF8 is the check's cost on the body of a card charge, the
// case every Charges.Create pays.
func BenchmarkCheckUTF8(b *testing.B) {
	req, _, _ := CardCharge{SourceID: "kqgykn96i7bcs1wwhvgw", Amount: MustAmount("100.00"),
		Description: "Cargo inicial a mi cuenta", OrderID: "oid-00052", DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f",
		Metadata: Metadata{"sku": "A-1", "note": "entrega en sucursal"}}.chargeRequest()
	body, err := json.Marshal(wireForm(req))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if err := checkUTF8("POST", "/v1/m/charges", body, nil); err != nil {
			b.Fatal(err)
		}
	}
}
