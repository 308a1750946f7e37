package reqbody

import (
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

// A body read ahead answers as one read at the handler would: whole, cut
// at the limit (1009) with or without an announced length, or 1001 when
// the client's body ended early.
func TestPreread(t *testing.T) {
	t.Parallel()
	read := func(r *http.Request, limit int64) (Fields, *apierr.Error) {
		var b Body
		b.Preread(r, limit, nil)
		return Read(r, limit, false)
	}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":1}`))
	f, err := read(r, 100)
	require.Nil(t, err)
	assert.True(t, f.Has("a"))

	for _, length := range []int64{-1, 20} { // without a length (chunked), announced over the limit
		r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"a":"0123456789"}`))
		r.ContentLength = length
		_, err = read(r, 10)
		require.NotNil(t, err)
		assert.Equal(t, openpay.ErrRequestTooLarge, err.Code, "length %d", length)
	}

	r = httptest.NewRequest(http.MethodPost, "/", io.LimitReader(strings.NewReader(`{"a":1}`), 3))
	r.ContentLength = 7
	_, err = read(r, 100)
	require.NotNil(t, err)
	assert.Equal(t, openpay.ErrBadRequest, err.Code)
}

// A body that fits in lent storage is read into it; Done gives the request
// its own body back and clears the storage, so that nothing can read the
// body's bytes through it afterwards. A larger body gets storage of its
// own, which Done leaves alone.
func TestPrereadLentStorage(t *testing.T) {
	t.Parallel()
	buf := make([]byte, 0, 16)
	orig := io.NopCloser(strings.NewReader(`{"a":"xyz"}`))
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Body, r.ContentLength = orig, int64(len(`{"a":"xyz"}`))
	var b Body
	b.Preread(r, 100, buf)
	f, err := Read(r, 100, false)
	require.Nil(t, err)
	var v struct {
		A string `json:"a"`
	}
	require.Nil(t, f.Into(&v))
	assert.Equal(t, "xyz", v.A)
	assert.Equal(t, `{"a":"xyz"}`, string(buf[:11]), "read into the lent storage")
	b.Done(r)
	assert.Equal(t, make([]byte, 11), buf[:11], "cleared")
	assert.Equal(t, "xyz", v.A, "a decoded string is a copy, not a view of the lent storage")
	assert.Equal(t, orig, r.Body, "the request's own body again")

	long := `{"a":"0123456789abcdef"}`
	r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(long))
	b.Preread(r, 100, buf)
	f, err = Read(r, 100, false)
	require.Nil(t, err)
	require.Nil(t, f.Into(&v))
	b.Done(r)
	assert.Equal(t, "0123456789abcdef", v.A)
	assert.Equal(t, make([]byte, 16), buf[:16], "not used for a body larger than it")
}

// closeCounter is a client's body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// The client's body is closed once read whole to its end (with an
// announced length or chunked), so that net/http has nothing left to
// read of it after the handler; a body cut at the limit, or one that ended
// early, is left to net/http, which decides whether the connection can
// go on.
func TestPrereadClosesABodyReadWhole(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		body   string
		length int64
		cut    int // the client's bytes stop after cut (0: never)
		closed int
	}{
		{"announced length", `{"a":1}`, 7, 0, 1},
		{"chunked", `{"a":1}`, -1, 0, 1},
		{"announced length over the limit", `{"a":"0123456789"}`, 18, 0, 0},
		{"chunked over the limit", `{"a":"0123456789"}`, -1, 0, 0},
		{"ended early", `{"a":1}`, 7, 3, 0},
	} {
		var rd io.Reader = strings.NewReader(c.body)
		if c.cut > 0 {
			rd = io.LimitReader(rd, int64(c.cut))
		}
		orig := &closeCounter{Reader: rd}
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		r.Body, r.ContentLength = orig, c.length
		var b Body
		b.Preread(r, 10, nil)
		assert.Equal(t, c.closed, orig.closed, c.name)
		b.Done(r)
		assert.Equal(t, c.closed, orig.closed, "%s: Done closes nothing", c.name)
	}
}

// Borrowed members decode to views of the body (they read zeros once lent
// storage is given back), in every decoding entry, escaped or not plain
// strings aside; a nested object's members, and members of a body not
// borrowed, stay copies.
func TestBorrowGivesViewsOfTheOwnMembersOnly(t *testing.T) {
	t.Parallel()
	body := `{"holder_name":"Ana López","card_number":"4111111111111111","cvv2":"123","expiration_month":"12",` +
		`"expiration_year":"30","device_session_id":"s\u0031","address":{"city":"Puebla","line1":"Calle 1"}}`
	buf := make([]byte, 0, 256)
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
	var b Body
	b.Preread(r, 1000, buf)
	f, err := Read(r, 1000, false)
	require.Nil(t, err)
	var d openpay.CardDetails
	require.Nil(t, f.Borrow().IntoCardDetails(&d))
	var session string
	require.Nil(t, f.MemberString("device_session_id", &session))
	want := openpay.CardDetails{HolderName: "Ana López", CardNumber: "4111111111111111", CVV2: "123",
		ExpirationMonth: "12", ExpirationYear: "30", Address: &openpay.Address{City: "Puebla", Line1: "Calle 1"}}
	assert.Equal(t, want, d)
	assert.Equal(t, "s1", session)
	b.Done(r)
	assert.Equal(t, strings.Repeat("\x00", len("Ana López")), d.HolderName, "a view of the lent storage")
	assert.Equal(t, strings.Repeat("\x00", 16), d.CardNumber, "a view: the number is never copied")
	assert.Equal(t, "\x00\x00\x00", d.CVV2)
	assert.Equal(t, "s1", session, "an escaped string is decoded into a copy")
	assert.Equal(t, &openpay.Address{City: "Puebla", Line1: "Calle 1"}, d.Address, "a nested object's members are copies")

	// Without Borrow, the same body decodes to copies.
	r = httptest.NewRequest(http.MethodPost, "/", nil)
	r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
	b.Preread(r, 1000, buf)
	f, err = Read(r, 1000, false)
	require.Nil(t, err)
	var own openpay.CardDetails
	require.Nil(t, f.IntoCardDetails(&own))
	b.Done(r)
	assert.Equal(t, want, own)
}
