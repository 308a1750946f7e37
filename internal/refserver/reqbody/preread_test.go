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
		b.Preread(r, limit)
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
