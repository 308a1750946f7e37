package refserver

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAuthorizationHeadersKnownAgain: once an Authorization header has
// authenticated a merchant it is known again without decoding
// (keymatch.Memo.Known), and every request is still answered as the first:
// two merchants alternating their private and public keys, a wrong key
// right after a right one, the same key written another way, a merchant's
// remembered header on the other merchant's path, the public key's header on
// a private route and the private key's from a browser. The charges made
// along the way are each the merchant's own.
func TestAuthorizationHeadersKnownAgain(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	basic := func(user string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":")) }
	with := func(method, path, header string, body any, more ...string) resp {
		return env.do(method, path, "", body, append([]string{"Authorization", header}, more...)...)
	}
	mPath, oPath := env.mp(""), "/v1/"+env.other.ID
	mPriv, mPub, oPriv, oPub := basic(env.m.PrivateKey), basic(env.m.PublicKey), basic(env.other.PrivateKey), basic(env.other.PublicKey)
	charge := map[string]any{"method": "card", "card": validCard("4111111111111111"), "amount": 100, "description": "Cargo"}
	for round := range 3 {
		requireOK(t, with(http.MethodGet, mPath, mPriv, nil), http.StatusOK)
		requireOK(t, with(http.MethodGet, oPath, oPriv, nil), http.StatusOK)
		requireOK(t, with(http.MethodPost, mPath+"/tokens", mPub, validCard("4111111111111111")), http.StatusOK)
		requireOK(t, with(http.MethodPost, oPath+"/tokens", oPub, validCard("4111111111111111")), http.StatusOK)
		// A wrong key right after the right one.
		key := env.m.PrivateKey
		for _, wrong := range []string{basic(key[:len(key)-1] + "x"), basic(key + "x"), mPriv + "=", mPriv[:len(mPriv)-1], "Basic " + mPriv, mPriv[len("Basic "):]} {
			requireOK(t, with(http.MethodGet, mPath, mPriv, nil), http.StatusOK)
			requireError(t, with(http.MethodGet, mPath, wrong, nil), 1002)
		}
		// The same key written another way is the same key.
		requireOK(t, with(http.MethodGet, mPath, "basic "+mPriv[len("Basic "):], nil), http.StatusOK)
		requireOK(t, with(http.MethodGet, mPath, basic(key+":"), nil), http.StatusOK)
		// Each merchant's headers are its own.
		requireError(t, with(http.MethodGet, oPath, mPriv, nil), 1002)
		requireError(t, with(http.MethodGet, mPath, oPriv, nil), 1002)
		requireError(t, with(http.MethodPost, oPath+"/tokens", mPub, validCard("4111111111111111")), 1002)
		// The public key's header opens only what the public key opens; the
		// private key's is refused from a browser.
		requireError(t, with(http.MethodGet, mPath+"/charges", mPub, nil), 1010)
		requireError(t, with(http.MethodGet, mPath, mPriv, nil, "Origin", "https://shop.example"), 1010)
		// A charge with each merchant's header lands in its own books.
		requireOK(t, with(http.MethodPost, mPath+"/charges", mPriv, charge), env.created())
		requireOK(t, with(http.MethodPost, oPath+"/charges", oPriv, charge), env.created())
		require.False(t, t.Failed(), "round %d", round)
	}
	require.Len(t, with(http.MethodGet, mPath+"/charges", mPriv, nil).arr(t), 3)
	require.Len(t, with(http.MethodGet, oPath+"/charges", oPriv, nil).arr(t), 3)
}

// TestMerchantLookupSeesEveryChange: the merchants read without the
// server's lock (merchantByID's copy) are the server's after each change:
// a merchant added after requests were answered answers at once; a
// merchant reset (a new record) forgets what it made at once; a whole
// reset (new records for all, a merchant added since among them, as a
// configuration step) forgets what each made.
func TestMerchantLookupSeesEveryChange(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	customer := map[string]any{"name": "Ana", "email": "ana@example.com"}
	id := requireOK(t, env.post("/customers", customer), env.created())["id"].(string)
	requireOK(t, env.get("/customers/"+id), http.StatusOK)
	late, err := env.s.AddMerchant(MerchantConfig{Name: "Late merchant"})
	require.NoError(t, err)
	lateList := func() []map[string]any {
		r := env.do(http.MethodGet, "/v1/"+late.ID+"/customers", late.PrivateKey, nil)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		return r.arr(t)
	}
	require.Empty(t, lateList())
	r := env.do(http.MethodPost, "/v1/"+late.ID+"/customers", late.PrivateKey, customer)
	require.Equal(t, env.created(), r.status, "%s", r.body)
	require.Len(t, lateList(), 1)
	require.NoError(t, env.s.ResetMerchant(env.m.ID))
	requireError(t, env.get("/customers/"+id), 1005)
	require.Len(t, lateList(), 1, "the other merchants keep theirs")
	id = requireOK(t, env.post("/customers", customer), env.created())["id"].(string)
	require.NoError(t, env.s.Reset())
	require.Empty(t, lateList())
	requireError(t, env.get("/customers/"+id), 1005)
}
