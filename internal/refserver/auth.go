package refserver

import (
	"crypto/sha256"
	"crypto/subtle"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/httpedge"
	"github.com/openpay-go/openpay/internal/refserver/keymatch"
)

// Credentials: which key a request carries, and which keys each kind of
// route takes (a merchant's private or public key, a group's key, any
// merchant's private key). Keys are compared as SHA-256 hashes in constant
// time, so the time taken tells nothing of which key or merchant matched
// (a merchant's keys that matched are known again unhashed: keymatch).

// keyKind is which of a merchant's keys authenticated a request.
type keyKind int

const (
	keyNone keyKind = iota
	keyPrivate
	keyPublic
)

// authenticate checks the credentials the route needs and fills c.m, c.g
// and c.key.
func (s *Server) authenticate(c *call) *Error {
	rt := c.route
	if rt.access == accessNone {
		return nil
	}
	if rt.access != accessAnyMerchant && !rt.group {
		return s.authenticateMerchant(c)
	}
	var buf [96]byte
	key, ok := httpedge.BasicAuthUser(c.r, buf[:])
	if !ok || len(key) == 0 {
		return errorf(openpay.ErrUnauthorized, descUnauthorized)
	}
	if rt.access == accessAnyMerchant {
		return s.authenticateAnyMerchant(c, sha256.Sum256(key))
	}
	keyHash := sha256.Sum256(key)
	g := s.groupByID(c.param("group_id"))
	// A dummy comparison keeps an unknown group as slow as a known one.
	want := [32]byte{}
	if g != nil {
		want = g.keyHash
	}
	if subtle.ConstantTimeCompare(keyHash[:], want[:]) != 1 || g == nil {
		return errorf(openpay.ErrUnauthorized, descUnauthorized)
	}
	if httpedge.FromBrowser(c.r) {
		return errorf(openpay.ErrPublicKeyNotAllowed, descPrivateKeyInBrowser)
	}
	c.g, c.key = g, keyPrivate
	if mid := c.param("merchant_id"); mid != "" {
		m := s.merchantByID(mid)
		if m == nil || !g.merchants[mid] {
			return errorf(openpay.ErrUnauthorized, descUnauthorized)
		}
		c.m = m
	}
	return nil
}

// authenticateMerchant authenticates a request on a merchant's path. The
// Authorization header that last carried one of the merchant's keys is
// known again as is (keymatch.Memo.Known), without decoding it.
func (s *Server) authenticateMerchant(c *call) *Error {
	rt := c.route
	m := s.merchantByID(c.param("merchant_id"))
	var priv, pub [32]byte
	var memo *keymatch.Memo // an unknown merchant's key is hashed all the same
	if m != nil {
		priv, pub, memo = m.privHash, m.pubHash, &m.keyMemo
	}
	header := httpedge.Header(c.r.Header, "Authorization")
	isPriv, isPub := memo.Known(header, priv, pub)
	if !isPriv && !isPub {
		var buf [96]byte
		key, ok := httpedge.BasicAuthUser(c.r, buf[:])
		if !ok || len(key) == 0 {
			return errorf(openpay.ErrUnauthorized, descUnauthorized)
		}
		isPriv, isPub = memo.MatchHeader(header, key, priv, pub)
	}
	switch {
	case m == nil || (!isPriv && !isPub):
		return errorf(openpay.ErrUnauthorized, descUnauthorized)
	case isPub && rt.access != accessPublic:
		return errorf(openpay.ErrPublicKeyNotAllowed, descPublicKey)
	case isPriv && httpedge.FromBrowser(c.r):
		return errorf(openpay.ErrPublicKeyNotAllowed, descPrivateKeyInBrowser)
	}
	c.m, c.key = m, keyPrivate
	if isPub {
		c.key = keyPublic
	}
	return nil
}

// authenticateAnyMerchant accepts the private key of any merchant of the
// server (c.m is then that merchant, whose own state the control acts on)
// or the admin key (Options.AdminKey: c.admin, the whole server). Every
// merchant's keys are compared, so the time taken does not tell which one
// matched.
func (s *Server) authenticateAnyMerchant(c *call, keyHash [32]byte) *Error {
	if s.opts.AdminKey != "" {
		admin := sha256.Sum256([]byte(s.opts.AdminKey))
		if subtle.ConstantTimeCompare(keyHash[:], admin[:]) == 1 {
			if httpedge.FromBrowser(c.r) {
				return errorf(openpay.ErrPublicKeyNotAllowed, descPrivateKeyInBrowser)
			}
			c.admin, c.key = true, keyPrivate
			return nil
		}
	}
	var found *merchant
	public := false
	s.mu.RLock()
	for _, m := range s.merchants {
		if subtle.ConstantTimeCompare(keyHash[:], m.privHash[:]) == 1 {
			found = m
		}
		if subtle.ConstantTimeCompare(keyHash[:], m.pubHash[:]) == 1 {
			public = true
		}
	}
	s.mu.RUnlock()
	switch {
	case found != nil && httpedge.FromBrowser(c.r):
		return errorf(openpay.ErrPublicKeyNotAllowed, descPrivateKeyInBrowser)
	case found != nil:
		c.m, c.key = found, keyPrivate
		return nil
	case public:
		return errorf(openpay.ErrPublicKeyNotAllowed, descPublicKey)
	}
	return errorf(openpay.ErrUnauthorized, descUnauthorized)
}
