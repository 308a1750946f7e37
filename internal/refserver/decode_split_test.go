package refserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
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
