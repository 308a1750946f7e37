package reqbody

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The strings of a card charge read by ReadOwn and decoded as views
// (ShareStrings) are the ones a copy gives, and stay so once the request
// is done and its lent storage cleared and lent again to another body:
// they are views of storage of their own, never of the lent storage. The
// views cost fewer allocations than a copy per string.
func TestReadOwnViewsOutliveTheLentStorage(t *testing.T) {
	const body = `{"method":"card","source_id":"kqgykn96i7bcs1wwhvgw","amount":100.50,"description":"Cargo \u00e9 1",` +
		`"order_id":"oid-00051","device_session_id":"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f",` +
		`"customer":{"name":"Juan","email":"juan@example.com","address":{"city":"Queretaro"}}}`
	buf := make([]byte, 0, 2048)
	read := func(share bool) (openpay.CardCharge, func()) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		var b Body
		b.Preread(r, 4096, buf)
		require.True(t, b.lent)
		f, e := ReadOwn(r, 4096)
		require.Nil(t, e)
		if share {
			f.ShareStrings()
		}
		var w openpay.CardCharge
		require.Nil(t, f.IntoCardCharge(&w))
		return w, func() { b.Done(r) }
	}
	check := func(w openpay.CardCharge) {
		assert.Equal(t, "kqgykn96i7bcs1wwhvgw", w.SourceID)
		assert.Equal(t, "Cargo é 1", w.Description)
		assert.Equal(t, "oid-00051", w.OrderID)
		assert.Equal(t, "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f", w.DeviceSessionID)
		assert.Equal(t, "100.50", w.Amount.String())
		require.NotNil(t, w.Customer)
		assert.Equal(t, "Juan", w.Customer.Name)
		assert.Equal(t, "juan@example.com", w.Customer.Email)
		require.NotNil(t, w.Customer.Address)
		assert.Equal(t, "Queretaro", w.Customer.Address.City)
	}
	for _, share := range []bool{false, true} {
		w, done := read(share)
		check(w)
		done() // clears the lent storage
		assert.Equal(t, make([]byte, len(body)), buf[:len(body)], "the lent storage is cleared")
		other := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", len(body))))
		var b Body
		b.Preread(other, 4096, buf) // lent to the next request
		check(w)
		b.Done(other)
	}
	copies := testing.AllocsPerRun(50, func() { _, done := read(false); done() })
	views := testing.AllocsPerRun(50, func() { _, done := read(true); done() })
	assert.Less(t, views, copies)
}

// ShareStrings leaves the members of a body read otherwise (Read, Parse)
// as they are: their strings are copies.
func TestShareStringsNeedsOwnStorage(t *testing.T) {
	data := []byte(`{"source_id":"abc"}`)
	f, e := Parse(data, false)
	require.Nil(t, e)
	f.ShareStrings()
	var w openpay.CardCharge
	require.Nil(t, f.IntoCardCharge(&w))
	copy(data, strings.Repeat("x", len(data)))
	assert.Equal(t, "abc", w.SourceID)
}

// ReadOwn answers what Read answers, body by body: the members, or the
// same refusal (not an object, data after it, too large, cut short); a
// body of more members than its store holds is read as Read reads it.
// Once the request is done its members' store serves the next body.
func TestReadOwnAnswersAsRead(t *testing.T) {
	many := "{" + strings.Repeat(`"a":1,`, pooledFields) + `"b":"x"}`
	bodies := []string{`{"method":"card","amount":1.50,"card":{"holder_name":"A"},"tags":["x"],"n":null}`, `{}`, `[]`, `{"a":1} x`,
		`{"a":{"b":1,"c":{"d":"e"}},"f":{},"g":{` + strings.Repeat(`"h":2,`, pooledFields) + `"i":3},"j":{"k":"l"}}`,
		`{"a":`, many, `{"a":"` + strings.Repeat("y", 300) + `"}`, ` {"a" : "b" } `}
	buf := make([]byte, 0, 2048)
	for _, body := range bodies {
		for _, cut := range []bool{false, true} {
			read := func(own bool) (Fields, string, func()) {
				r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
				if cut {
					r.Body = io.NopCloser(io.LimitReader(strings.NewReader(body), int64(len(body)/2)))
				}
				var b Body
				b.Preread(r, 200, buf)
				var f Fields
				var e *apierr.Error
				if own {
					f, e = ReadOwn(r, 200)
				} else {
					f, e = Read(r, 200, false)
				}
				got := ""
				if e != nil {
					got = e.Error()
				}
				for _, m := range f {
					got += fmt.Sprintf("|%s=%s", m.name, m.raw)
					for _, sm := range f.Object(m.name) { // split by ReadOwn while its store has room
						got += fmt.Sprintf("|%s.%s=%s", m.name, sm.name, sm.raw)
					}
				}
				return f, got, func() { b.Done(r) }
			}
			_, want, done := read(false)
			done()
			f, got, done := read(true)
			assert.Equal(t, want, got, "%q cut %v", body, cut)
			if len(f) > 0 && f[0].raw[0] == '"' {
				assert.True(t, f[0].own)
			}
			done()
		}
	}
}

// Done clears every member the request wrote into its store, the nested
// ones and those a nested object too long for the store left behind, so
// that a store waiting in the pool holds no part of a past body.
func TestDoneClearsTheStore(t *testing.T) {
	buf := make([]byte, 0, 2048)
	for _, body := range []string{
		`{"method":"card","card":{"holder_name":"A","card_number":"4111111111111111"},"amount":1.50}`,
		`{"a":1,"b":{` + strings.Repeat(`"c":"d",`, pooledFields) + `"e":"f"}}`,
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		var b Body
		b.Preread(r, 4096, buf)
		f, e := ReadOwn(r, 4096)
		require.Nil(t, e)
		require.NotEmpty(t, f)
		store := b.fields
		require.NotNil(t, store, body)
		b.Done(r)
		assert.Equal(t, fieldStore{}, *store, body)
	}
}

// ReadOwn splits a body's object members as it checks the body (one pass
// over a card's data), so that reading them afterwards splits nothing; a
// nested object too many for the store is checked all the same and split
// when asked; a malformed nested object refuses the body as before.
func TestReadOwnSplitsObjectMembersAsItChecks(t *testing.T) {
	buf := make([]byte, 0, 4096)
	read := func(body string) (Fields, *apierr.Error, func()) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		var b Body
		b.Preread(r, 4096, buf)
		f, e := ReadOwn(r, 4096)
		return f, e, func() { b.Done(r) }
	}
	const inline = `{"method":"card","card":{"holder_name":"Juan Perez","card_number":"4111111111111111","cvv2":"123",` +
		`"expiration_month":"12","expiration_year":"30","address":{"city":"Queretaro"}},"amount":100.50,"description":"d","empty":{}}`
	f, e, done := read(inline)
	require.Nil(t, e)
	assert.Zero(t, testing.AllocsPerRun(20, func() { f.Object("card"); f.Object("empty") }), "split as the body was checked")
	card := f.Object("card")
	require.Len(t, card, 6)
	assert.NotNil(t, f.Object("empty"))
	assert.Empty(t, f.Object("empty"))
	var w openpay.InlineCardCharge
	require.Nil(t, f.ShareStrings().IntoInlineCardCharge(&w))
	done()
	other := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", len(inline))))
	var b Body
	b.Preread(other, 4096, buf) // the lent storage, cleared and lent again
	assert.Equal(t, openpay.CardDetails{HolderName: "Juan Perez", CardNumber: "4111111111111111", CVV2: "123",
		ExpirationMonth: "12", ExpirationYear: "30", Address: &openpay.Address{City: "Queretaro"}}, w.Card)
	b.Done(other)

	// More nested members than the store holds: the rest are split when read.
	var many strings.Builder
	many.WriteString(`{"a":{`)
	for i := range pooledFields + 3 {
		fmt.Fprintf(&many, `"m%d":"v%d",`, i, i)
	}
	many.WriteString(`"last":1},"b":{"x":"y"}}`)
	f, e, done = read(many.String())
	require.Nil(t, e)
	require.Len(t, f.Object("a"), pooledFields+4)
	var s string
	require.Nil(t, f.Object("a").MemberString("m17", &s))
	assert.Equal(t, "v17", s)
	require.Nil(t, f.Object("b").MemberString("x", &s))
	assert.Equal(t, "y", s)
	done()

	for _, bad := range []string{`{"card":{"a":1,}}`, `{"card":{"a":1}`, `{"card":{"a" 1}}`, `{"card":{"a":"\x01"}}`, `{"card":{"a":[}}`} {
		_, e, done := read(bad)
		require.NotNil(t, e, bad)
		assert.Equal(t, openpay.ErrBadRequest, openpay.Code(e.Code), bad)
		done()
	}
}

// FuzzReadOwnSplitsAsParse checks ReadOwn (a body in lent storage, its
// object members split as it is checked) against Parse: the same bodies
// accepted, the same members and, for each object member, the same
// nested members, names, values and plainness.
func FuzzReadOwnSplitsAsParse(f *testing.F) {
	for _, s := range []string{`{"card":{"holder_name":"J","card_number":"4111"},"a":1}`, `{"a":{},"b":{"c":{"d":[1]}}}`,
		`{"card":{"a":1,}}`, `{"x":{"\u00e9":"\u00e9"}, "y" : { "z" : null } }`, `{"a":{"b":1}} x`} {
		f.Add(s)
	}
	buf := make([]byte, 0, 8192)
	f.Fuzz(func(t *testing.T, body string) {
		want, wantErr := Parse([]byte(body), false)
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		var b Body
		b.Preread(r, 4096, buf)
		defer b.Done(r)
		got, gotErr := ReadOwn(r, 4096)
		if len(body) > 4096 {
			return
		}
		require.Equal(t, wantErr == nil, gotErr == nil, "%q: %v / %v", body, wantErr, gotErr)
		require.Equal(t, len(want), len(got))
		for i := range want {
			require.Equal(t, want[i].name, got[i].name)
			require.Equal(t, string(want[i].raw), string(got[i].raw))
			ws, gs := want.Object(want[i].name), got.Object(got[i].name)
			require.Equal(t, len(ws), len(gs), "%q", body)
			for j := range ws {
				require.Equal(t, [3]any{ws[j].name, string(ws[j].raw), ws[j].plain}, [3]any{gs[j].name, string(gs[j].raw), gs[j].plain}, "%q", body)
			}
		}
	})
}

// Read keeps the members of a body read ahead into lent storage in storage
// lent for the request too: two requests at once never share it, each
// reads its own members, and Done takes it back cleared, so that Fields
// kept past the request would read no member at all, never a later
// request's. A body of more members than the store holds, or not lent
// (no buffer), is split into Fields of its own (those of a body not lent
// outlive Done).
func TestReadLendsTheMembersUntilDone(t *testing.T) {
	read := func(body string, buf []byte) (Fields, func()) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		var b Body
		b.Preread(r, 4096, buf)
		f, e := Read(r, 4096, false)
		require.Nil(t, e)
		return f, func() { b.Done(r) }
	}
	name := func(f Fields) string {
		var v struct {
			Name string `json:"name"`
		}
		require.Nil(t, f.Into(&v))
		return v.Name
	}
	first, doneFirst := read(`{"name":"Ana","email":"ana@example.com"}`, make([]byte, 0, 512))
	second, doneSecond := read(`{"email":"luis@example.com","name":"Luis","phone_number":"5512345678"}`, make([]byte, 0, 512))
	require.Len(t, first, 2)
	require.Len(t, second, 3)
	assert.NotSame(t, &first[0], &second[0], "two requests at once lend two stores")
	assert.Equal(t, "Ana", name(first))
	assert.Equal(t, "Luis", name(second))
	doneFirst()
	assert.Equal(t, "", first[0].name, "the store is cleared once the request is done")
	assert.Nil(t, first[1].raw)
	assert.Equal(t, "Luis", name(second), "another request's members are untouched")
	doneSecond()

	many := `{` + strings.Repeat(`"name":"otro",`, 20) + `"name":"Último","email":"u@example.com"}`
	long, doneLong := read(many, make([]byte, 0, 1024))
	require.Len(t, long, 22)
	assert.Equal(t, "Último", name(long), "the last of a repeated member")
	doneLong()

	own, doneOwn := read(`{"name":"Sin buffer","email":"s@example.com"}`, nil)
	doneOwn()
	assert.Equal(t, "Sin buffer", name(own), "a body not lent is not taken back")
}
