package reqbody

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// valid answers what json.Valid answers, whatever the input.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` [1, 2.5e-3, -0, true, false, null, "x\u00e9\n"] `, `{"a":}`, `{"a" 1}`,
		`[1,]`, `{,}`, `01`, `-`, `1.`, `1e`, `1e+`, `.5`, `"\x"`, `"\u12"`, "\"\x01\"", "\"\xff\"", `tru`, `nul`, `{"a":1}x`,
		`[[[]]]`, `{"a":[{"b":{}}]}`, "\t\r\n1\t", ``, ` `, `"`, `[`, `{"a"`, `{"a":1,`, `1 2`,
		// strings longer than the eight bytes read at once (plainWord)
		`"abcdefghijklmnopq"`, `"abcdefgh\"ijklmno"`, `"abcdefghijklmno\u00e9"`, "\"abcdefghij\x01klm\"", "\"abcdefghijkl\xc3\xa9\"",
		`"abcdefg"`, `"abcdefgh"`, `"abcdefghijklmnop`, `"abcdefghijklmno\`, `"abcdefghijklmno\u00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := valid(data), json.Valid(data); got != want {
			t.Fatalf("valid(%q) = %v, json.Valid says %v", data, got, want)
		}
	})
}

// The nesting bound is encoding/json's: 10,000 levels pass, one more fails.
func TestValidNesting(t *testing.T) {
	t.Parallel()
	for _, n := range []int{maxNesting, maxNesting + 1} {
		data := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		assert.Equal(t, json.Valid(data), valid(data), n)
	}
	assert.True(t, valid([]byte(strings.Repeat("[", maxNesting)+strings.Repeat("]", maxNesting))))
}

// BenchmarkValid compares valid with json.Valid on a card charge's body.
//
//	go test ./internal/refserver/reqbody -run '^$' -bench Valid
func BenchmarkValid(b *testing.B) {
	body := []byte(`{"method":"card","source_id":"kqgykn96i7bcs1wwhvgw","amount":100.50,"currency":"MXN","description":"Order 1","order_id":"bench-1","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}`)
	b.Run("valid", func(b *testing.B) {
		for b.Loop() {
			if !valid(body) {
				b.Fatal("refused")
			}
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			if !json.Valid(body) {
				b.Fatal("refused")
			}
		}
	})
}
