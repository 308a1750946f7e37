package refserver

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBasicAuthUser checks that the server reads the API key from the
// Authorization header exactly as net/http's BasicAuth does, without
// allocating for a key of usual length.
func TestBasicAuthUser(t *testing.T) {
	long := strings.Repeat("k", 200)
	for _, h := range []string{
		"", "Basic", "Basic ", "basic c2tfMTIzOg==", "BASIC c2tfMTIzOg==", "Basic c2tfMTIzOg==",
		"Basic c2tfMTIz", "Basic c2tfMTIzOnB3", "Basic !!!!", "Bearer c2tfMTIzOg==", "Basic Og==",
		"Basic " + base64.StdEncoding.EncodeToString([]byte(long+":")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("sk_ñ:x:y")),
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		if h != "" {
			r.Header.Set("Authorization", h)
		}
		wantUser, _, wantOK := r.BasicAuth()
		var buf [96]byte
		user, ok := basicAuthUser(r, buf[:])
		assert.Equal(t, wantOK, ok, h)
		if wantOK {
			assert.Equal(t, wantUser, string(user), h)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth("sk_e568c42a6c384b7ab02cd47d2e407cab", "")
	var buf [96]byte
	assert.Zero(t, testing.AllocsPerRun(100, func() { basicAuthUser(r, buf[:]) }))
}
