package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestServeLibrary(t *testing.T) {
	t.Parallel()
	paths := LibraryPaths()
	assert.Equal(t, []string{"/openpay-data.v1.js", "/openpay-data.v1.min.js", "/openpay.v1.js", "/openpay.v1.min.js"}, paths)
	for _, p := range paths {
		w := httptest.NewRecorder()
		assert.True(t, ServeLibrary(w, httptest.NewRequest(http.MethodGet, p, nil)), p)
		assert.Equal(t, http.StatusOK, w.Code, p)
		assert.Equal(t, "text/javascript; charset=utf-8", w.Header().Get("Content-Type"))
		assert.Contains(t, w.Body.String(), "OpenPay", p)

		w = httptest.NewRecorder()
		assert.True(t, ServeLibrary(w, httptest.NewRequest(http.MethodHead, p, nil)), p)
		assert.Empty(t, w.Body.String(), "HEAD has no body")
	}
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodPost, "/openpay.v1.js", nil),
		httptest.NewRequest(http.MethodGet, "/openpay.v2.js", nil),
		httptest.NewRequest(http.MethodGet, "/static/openpay.v1.js", nil),
		httptest.NewRequest(http.MethodGet, "/v1/m1/tokens", nil),
	} {
		w := httptest.NewRecorder()
		assert.False(t, ServeLibrary(w, r), "%s %s", r.Method, r.URL)
		assert.Zero(t, w.Body.Len())
	}
}
