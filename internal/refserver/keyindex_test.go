package refserver

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// collidingKeys returns two different keys with the same hash in x, found
// by trying keys until two meet (about 80,000 tries on average for a 32-bit
// hash).
func collidingKeys(t *testing.T, x *keyIndex) (string, string) {
	t.Helper()
	seen := make(map[uint32]string)
	for i := range 10_000_000 {
		k := "key-" + strconv.Itoa(i)
		h := x.hash(k)
		if other, ok := seen[h]; ok {
			return other, k
		}
		seen[h] = k
	}
	t.Fatal("no two keys with the same hash")
	return "", ""
}

func TestKeyIndexCollisions(t *testing.T) {
	t.Parallel()
	x := newKeyIndex(func(t *tx) string { return t.t.OrderID })
	a, b := collidingKeys(t, &x)
	require.Equal(t, x.hash(a), x.hash(b))
	var txs []*tx
	add := func(k string) *tx {
		tr := &tx{t: txFields{OrderID: k}, seq: uint32(len(txs) + 1)}
		txs = append(txs, tr)
		x.put(txs, k, tr)
		return tr
	}
	ta, tc, tb := add(a), add("other"), add(b)
	assert.Same(t, ta, x.get(txs, a))
	assert.Same(t, tb, x.get(txs, b), "a key whose hash is taken is still found")
	assert.Same(t, tc, x.get(txs, "other"))
	assert.Nil(t, x.get(txs, "missing"))

	x.remove(txs, a)
	assert.Nil(t, x.get(txs, a))
	assert.Same(t, tb, x.get(txs, b), "removing the first key keeps the second")

	// The key changes (an order_id changed), then comes back.
	ta.t.OrderID = "renamed"
	x.put(txs, "renamed", ta)
	assert.Same(t, ta, x.get(txs, "renamed"))
	x.remove(txs, "renamed")
	ta.t.OrderID = a
	x.put(txs, a, ta)
	assert.Same(t, ta, x.get(txs, a))
	assert.Same(t, tb, x.get(txs, b))

	x.remove(txs, b)
	assert.Nil(t, x.get(txs, b))
	assert.Same(t, ta, x.get(txs, a), "removing the second key keeps the first")
	x.remove(txs, a)
	assert.Nil(t, x.get(txs, a))
	assert.Same(t, tc, x.get(txs, "other"))
}
