package keymatch

import (
	"crypto/sha256"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMatchAnswersAsTheHashes: whatever the memo holds, Match answers what
// comparing the key's hash answers.
func TestMatchAnswersAsTheHashes(t *testing.T) {
	priv, pub := sha256.Sum256([]byte("sk_private")), sha256.Sum256([]byte("pk_public"))
	var m Memo
	for range 3 { // the first round hashes, the next ones find the keys remembered
		for _, c := range []struct {
			key           string
			isPriv, isPub bool
		}{
			{"sk_private", true, false}, {"pk_public", false, true}, {"sk_privatE", false, false},
			{"sk_private ", false, false}, {"", false, false}, {"pk_public\x00", false, false},
		} {
			gotPriv, gotPub := m.Match([]byte(c.key), priv, pub)
			assert.Equal(t, c.isPriv, gotPriv, "%q", c.key)
			assert.Equal(t, c.isPub, gotPub, "%q", c.key)
			gotPriv, gotPub = (*Memo)(nil).Match([]byte(c.key), priv, pub)
			assert.Equal(t, [2]bool{c.isPriv, c.isPub}, [2]bool{gotPriv, gotPub}, "nil memo, %q", c.key)
		}
	}
	// Keys swapped, or both the same: the memo answers for the hashes given.
	isPriv, isPub := m.Match([]byte("sk_private"), pub, priv)
	assert.Equal(t, [2]bool{false, true}, [2]bool{isPriv, isPub})
	isPriv, isPub = m.Match([]byte("sk_private"), priv, priv)
	assert.Equal(t, [2]bool{true, true}, [2]bool{isPriv, isPub})
}

// TestAChangedHashVoidsTheMemo: a key remembered for a hash stops matching
// once the hash is another key's (a merchant loaded with other keys).
func TestAChangedHashVoidsTheMemo(t *testing.T) {
	var m Memo
	old, now := sha256.Sum256([]byte("sk_old")), sha256.Sum256([]byte("sk_new"))
	none := [32]byte{}
	isPriv, _ := m.Match([]byte("sk_old"), old, none)
	assert.True(t, isPriv)
	isPriv, isPub := m.Match([]byte("sk_old"), now, none)
	assert.False(t, isPriv || isPub, "the old key after its hash changed")
	isPriv, _ = m.Match([]byte("sk_new"), now, none)
	assert.True(t, isPriv)
}

// TestARememberedKeyIsNotHashed: a key presented again allocates nothing
// and costs no hash (the point of the memo); a wrong one is hashed.
func TestARememberedKeyIsNotHashed(t *testing.T) {
	priv, pub := sha256.Sum256([]byte("sk_e568c42a6c384b7ab02cd47d2e407cab")), sha256.Sum256([]byte("pk_x"))
	var m Memo
	key := []byte("sk_e568c42a6c384b7ab02cd47d2e407cab")
	m.Match(key, priv, pub)
	assert.Zero(t, testing.AllocsPerRun(100, func() { m.Match(key, priv, pub) }))
	assert.NotNil(t, m.known[0].Load())
	assert.Nil(t, m.known[1].Load(), "nothing remembered for a key not presented")
}

// TestMatchConcurrently: concurrent requests with both keys (run with -race).
func TestMatchConcurrently(t *testing.T) {
	priv, pub := sha256.Sum256([]byte("sk_a")), sha256.Sum256([]byte("pk_a"))
	var m Memo
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				key := "sk_a"
				if i%2 == 1 {
					key = "pk_a"
				}
				isPriv, isPub := m.Match([]byte(key), priv, pub)
				if isPriv == (i%2 == 1) || isPub != (i%2 == 1) {
					t.Errorf("%s: %v %v", key, isPriv, isPub)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkMatch(b *testing.B) {
	priv, pub := sha256.Sum256([]byte("sk_e568c42a6c384b7ab02cd47d2e407cab")), sha256.Sum256([]byte("pk_x"))
	key := []byte("sk_e568c42a6c384b7ab02cd47d2e407cab")
	b.Run("hash", func(b *testing.B) {
		for range b.N {
			(*Memo)(nil).Match(key, priv, pub)
		}
	})
	b.Run("memo", func(b *testing.B) {
		var m Memo
		for range b.N {
			m.Match(key, priv, pub)
		}
	})
}

// TestKnownHeaderAnswersAsTheHashes: a header is known again only when it
// is byte for byte the one that carried a matching key, and only for the
// hash that key matched: a wrong header after a right one, the key's hash
// rotated or revoked (zeros), the private and public headers alternating.
func TestKnownHeaderAnswersAsTheHashes(t *testing.T) {
	priv, pub := sha256.Sum256([]byte("sk_private")), sha256.Sum256([]byte("pk_public"))
	privHeader, pubHeader := "Basic c2tfcHJpdmF0ZTo=", "Basic cGtfcHVibGljOg=="
	var m Memo
	isPriv, isPub := m.Known(privHeader, priv, pub)
	assert.False(t, isPriv || isPub, "nothing known before a match")
	m.MatchHeader(privHeader, []byte("sk_private"), priv, pub)
	m.MatchHeader(pubHeader, []byte("pk_public"), priv, pub)
	for range 3 {
		isPriv, isPub = m.Known(privHeader, priv, pub)
		assert.Equal(t, [2]bool{true, false}, [2]bool{isPriv, isPub})
		isPriv, isPub = m.Known(pubHeader, priv, pub)
		assert.Equal(t, [2]bool{false, true}, [2]bool{isPriv, isPub})
		for _, wrong := range []string{"Basic c2tfcHJpdmF0ZTo", "Basic c2tfcHJpdmF0ZTp=", "basic c2tfcHJpdmF0ZTo=", privHeader + " ", ""} {
			isPriv, isPub = m.Known(wrong, priv, pub)
			assert.False(t, isPriv || isPub, "%q", wrong)
		}
	}
	// The hashes swapped: not known (the caller decodes and matches).
	isPriv, isPub = m.Known(privHeader, pub, priv)
	assert.False(t, isPriv || isPub, "swapped hashes")
	// The private key rotated, then revoked: its header is no longer known.
	rotated := sha256.Sum256([]byte("sk_rotated"))
	isPriv, isPub = m.Known(privHeader, rotated, pub)
	assert.False(t, isPriv || isPub, "after rotation")
	isPriv, isPub = m.Known(privHeader, [32]byte{}, pub)
	assert.False(t, isPriv || isPub, "after revocation")
	isPriv, isPub = m.MatchHeader(privHeader, []byte("sk_private"), rotated, pub)
	assert.False(t, isPriv || isPub, "the old key after rotation")
	// A nil memo knows nothing.
	isPriv, isPub = (*Memo)(nil).Known(privHeader, priv, pub)
	assert.False(t, isPriv || isPub)
	// A key remembered by Match (no header) makes no header known.
	var bare Memo
	bare.Match([]byte("sk_private"), priv, pub)
	isPriv, isPub = bare.Known(privHeader, priv, pub)
	assert.False(t, isPriv || isPub)
	bare.MatchHeader(privHeader, []byte("sk_private"), priv, pub)
	isPriv, _ = bare.Known(privHeader, priv, pub)
	assert.True(t, isPriv, "the header learnt on the key's next match")
	assert.Zero(t, testing.AllocsPerRun(100, func() { m.Known(privHeader, priv, pub) }))
}

// TestSame: the word-at-a-time comparison agrees with ==, wherever two
// strings differ (each byte, each bit of it), whatever their length
// (below eight bytes, a multiple of eight, in between).
func TestSame(t *testing.T) {
	for n := range 80 {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte('A' + i)
		}
		assert.True(t, same(string(a), string(a)), "len %d", n)
		assert.False(t, same(string(a), string(a)+"x"), "len %d", n)
		for i := range a {
			for bit := range 8 {
				b := append([]byte(nil), a...)
				b[i] ^= 1 << bit
				assert.False(t, same(string(a), string(b)), "len %d, byte %d, bit %d", n, i, bit)
			}
		}
	}
}

// TestSameHash: the word-at-a-time comparison of hashes agrees with ==
// wherever two hashes differ.
func TestSameHash(t *testing.T) {
	var a [32]byte
	for i := range a {
		a[i] = byte(7 * i)
	}
	b := a
	assert.True(t, sameHash(&a, &b))
	for i := range a {
		for bit := range 8 {
			c := a
			c[i] ^= 1 << bit
			assert.False(t, sameHash(&a, &c), "byte %d, bit %d", i, bit)
		}
	}
}
