package reqbody

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var objectFieldsSeeds = []string{
	`{}`,
	` { } `,
	`{"a":1}`,
	"{\n\t\"amount\" : 100.50 ,\r\n \"method\":\"card\"}\n",
	`{"a":"x\"}],{[","b":[1,{"c":"]"},[]],"d":{"e":{"f":null}},"g":true,"h":false,"i":-1.5e3}`,
	`{"a":1,"a":2}`,
	`{"n\u0061me":"\u00e9","k\\":"v"}`,
	"{\"\xff\":1}",
	`{"a":"\\"}`,
	`[1]`, `null`, `"x"`, `1`, ``, `{`, `{"a":1}x`, `{"a":1}{}`, `{"a"}`, `{"a":1,}`,
	`{"description":"Cargo de prueba número 1","order_id":"abcdefghijklmnop","x\"yzabcdefgh":"abcdefgh\\ijkl"}`,
	`{"card":{"holder_name":"Juan Pérez Ramírez","card_number":"4111111111111111"},"k":"abcdefghijklmnopq\u00e9"}`,
}

// objectFields answers what json.Unmarshal into a map of raw messages
// answers: the same members with the same raw bytes (the last of a repeated
// name), or a refusal.
func TestObjectFieldsMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, in := range objectFieldsSeeds {
		assertSameFields(t, in)
	}
}

func FuzzObjectFields(f *testing.F) {
	for _, s := range objectFieldsSeeds {
		f.Add(s)
	}
	f.Fuzz(assertSameFields)
}

func assertSameFields(t *testing.T, in string) {
	var want map[string]json.RawMessage
	err := json.Unmarshal([]byte(in), &want)
	got, ok := objectFields([]byte(in))
	if err != nil || want == nil {
		assert.False(t, ok, "%q", in)
		return
	}
	if assert.True(t, ok, "%q", in) {
		assertPlainFlags(t, got)
		assert.Equal(t, want, fieldsMap(got), "%q", in)
		for name, raw := range want {
			gotRaw, _ := got.get(name)
			assert.Equal(t, raw, gotRaw, "%q: member %q", in, name)
		}
	}
}

// assertPlainFlags checks the members' plain flags, and those of the
// members of their objects (memberFields): a member is plain when, and
// only when, it is a string of ASCII without a backslash.
func assertPlainFlags(t *testing.T, f Fields) {
	for i := range f {
		m := &f[i]
		raw := m.raw
		want := len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"'
		for _, c := range raw[min(1, len(raw)):max(len(raw)-1, 1)] {
			want = want && c != '\\' && c != '"' && c < 0x80
		}
		assert.Equal(t, want, m.plain, "%q", raw)
		if sub, ok := m.object(); ok {
			assertPlainFlags(t, sub)
		}
	}
}

// fieldsMap returns f as a map, the later of repeated names winning.
func fieldsMap(f Fields) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(f))
	for _, mem := range f {
		m[mem.name] = mem.raw
	}
	return m
}

// TestMemberNamesAllocateNothing checks that splitting a body costs one
// allocation, its members' slice, whatever the names and their number: a
// name is a view of the body. A name with an escape is decoded, and the
// view is of the right bytes.
func TestMemberNamesAllocateNothing(t *testing.T) {
	known := []byte(`{"amount":100,"description":"x","order_id":"o-1","method":"card"}`)
	f, ok := objectFields(known)
	require.True(t, ok)
	assert.Equal(t, Fields{{name: "amount", raw: []byte("100")}, {name: "description", raw: []byte(`"x"`), plain: true}, {name: "order_id", raw: []byte(`"o-1"`), plain: true}, {name: "method", raw: []byte(`"card"`), plain: true}}, f)
	split := func(body []byte) func() {
		return func() {
			if _, ok := memberFields(body); !ok {
				t.Fatal("not split")
			}
		}
	}
	for _, body := range []string{
		string(known),
		`{"zamount":100,"zdescription":"x","zorder_id":"o-1","zmethod":"card"}`,
		`{"amount":100,"description":"x"}`,
		`{"":1}`,
	} {
		assert.Equal(t, 1.0, testing.AllocsPerRun(100, split([]byte(body))), body)
	}
	escaped, ok := objectFields([]byte(`{"n\u0061me":"x","\u00e9":1}`))
	require.True(t, ok)
	assert.Equal(t, []string{"name", "é"}, []string{escaped[0].name, escaped[1].name})
}

// TestApplyAliasesOnFields checks the alias rule on split bodies: the alias
// fills an absent or null canonical member, wherever the null one is sent,
// and never replaces a canonical member that has a value.
func TestApplyAliasesOnFields(t *testing.T) {
	t.Parallel()
	sub := reflect.TypeFor[openpay.SubscriptionRequest]()
	for body, want := range map[string]string{
		`{"card_id":"a"}`:                        `"a"`,
		`{"card_id":"a","source_id":null}`:       `"a"`,
		`{"source_id":null,"card_id":"a"}`:       `"a"`,
		`{"source_id":"s","card_id":"a"}`:        `"s"`,
		`{"card_id":"a","source_id":"s"}`:        `"s"`,
		`{"card_id":null}`:                       ``,
		`{"source_id":"s","card_id":null}`:       `"s"`,
		`{"card_id":"a","card_id":"b"}`:          `"b"`,
		`{"card_id":"a","source_id":null,"x":1}`: `"a"`,
	} {
		f, ok := objectFields([]byte(body))
		require.True(t, ok, body)
		f.applyAliases(planOf(sub).aliases)
		raw, _ := f.get("source_id")
		if want == "" {
			assert.False(t, f.Has("source_id"), body)
			continue
		}
		assert.Equal(t, want, string(raw), body)
	}
}

// The method and currency of a charge, values most requests send, are read
// without allocating: a body with them costs two allocations less than the
// same body with other values of the same length.
func TestCommonValuesReadWithoutAllocating(t *testing.T) {
	var dst struct {
		Method   string `json:"method"`
		Currency string `json:"currency"`
	}
	read := func(body string) float64 {
		f, e := Parse([]byte(body), false)
		require.Nil(t, e)
		return testing.AllocsPerRun(100, func() {
			if e := f.Into(&dst); e != nil {
				t.Fatal(e)
			}
		})
	}
	common := read(`{"method":"card","currency":"MXN"}`)
	assert.Equal(t, "card", dst.Method)
	assert.Equal(t, "MXN", dst.Currency)
	other := read(`{"method":"cxrd","currency":"MXP"}`)
	assert.Equal(t, "MXP", dst.Currency)
	assert.Equal(t, other-2, common)
}
