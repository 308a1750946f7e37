package answer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteKeepsItsContract holds Write to the package's contract: the
// wire keys added, the headers, a length from 2048 bytes on, and the 500
// error object for a value that cannot be encoded.
func TestWriteKeepsItsContract(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, http.StatusCreated, &openpay.Customer{ID: "c1", Name: "Ana"})
	assert.Equal(t, http.StatusCreated, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
	assert.Empty(t, rec.Header().Get("Content-Length"), "net/http sets a small answer's length itself")
	var got map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	assert.Equal(t, "c1", got["id"])
	assert.Contains(t, got, "last_name", "a key the gateway always sends, null included")

	rec = httptest.NewRecorder()
	big := map[string]string{"description": strings.Repeat("x", 4000)}
	Write(rec, http.StatusOK, big)
	assert.Equal(t, strconv.Itoa(rec.Body.Len()), rec.Header().Get("Content-Length"))

	rec = httptest.NewRecorder()
	Write(rec, http.StatusOK, map[string]any{"bad": make(chan int)})
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	var e ErrorResponse
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
	assert.Equal(t, InternalError, e.Description)
	assert.Equal(t, openpay.ErrInternalServer, e.Code)
	assert.Equal(t, http.StatusInternalServerError, e.HTTPCode)
}
