package refserver

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
}

// objectFields answers what json.Unmarshal into fields answers: the same
// members with the same raw bytes, or a refusal.
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
	var want fields
	err := json.Unmarshal([]byte(in), &want)
	got, ok := objectFields([]byte(in))
	if err != nil || want == nil {
		assert.False(t, ok, "%q", in)
		return
	}
	if assert.True(t, ok, "%q", in) {
		assert.Equal(t, want, got, "%q", in)
	}
}

// TestMemberNamesInterned checks that the members of a body are keyed by the
// wire types' own name strings: a body of known names allocates one string
// fewer per member than the same body with unknown names, and both split
// alike.
func TestMemberNamesInterned(t *testing.T) {
	jsonMembersOf(reflect.TypeFor[openpay.CardCharge]())
	known := []byte(`{"amount":100,"description":"x","order_id":"o-1","method":"card"}`)
	unknown := []byte(`{"zamount":100,"zdescription":"x","zorder_id":"o-1","zmethod":"card"}`)
	f, ok := objectFields(known)
	require.True(t, ok)
	assert.Equal(t, fields{"amount": []byte("100"), "description": []byte(`"x"`), "order_id": []byte(`"o-1"`), "method": []byte(`"card"`)}, f)
	split := func(body []byte) func() {
		return func() {
			if _, ok := memberFields(body); !ok {
				t.Fatal("not split")
			}
		}
	}
	knownAllocs := testing.AllocsPerRun(100, split(known))
	unknownAllocs := testing.AllocsPerRun(100, split(unknown))
	assert.Equal(t, unknownAllocs-4, knownAllocs, "known names: %v allocations, unknown: %v", knownAllocs, unknownAllocs)
	// Known names cost nothing per member: two members allocate what four do.
	two := testing.AllocsPerRun(100, split([]byte(`{"amount":100,"description":"x"}`)))
	assert.Equal(t, two, knownAllocs, "two known members: %v allocations, four: %v", two, knownAllocs)
}

// TestMemberTypeErrorsNameTheirPath checks the error of a member of the
// wrong type: it names the member with its dotted path, nested or not.
func TestMemberTypeErrorsNameTheirPath(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{cardCharge("", "source_id", nil, "card", with(validCard("4111111111111111"), "holder_name", 5)), "'card.holder_name' must be a string"},
		{cardCharge("", "source_id", nil, "card", with(validCard("4111111111111111"), "address", with(map[string]any{}, "city", true))), "'card.address.city' must be a string"},
		{cardCharge("kxyz", "amount", "many"), "'amount' must be a number"},
		{cardCharge("kxyz", "capture", "perhaps"), "'capture' has the wrong type"},
	} {
		assert.Contains(t, requireError(t, env.post("/charges", c.body), 1001), c.want)
	}
}
