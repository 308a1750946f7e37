package seqindex

import (
	"math"
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay/internal/refserver/listquery"
)

// rec is a stored record as the tests keep them: a key and its seq.
type rec struct {
	key string
	seq uint32
}

// collidingKeys returns two different keys with the same hash in x, found
// by trying keys until two meet (about 80,000 tries on average for a 32-bit
// hash).
func collidingKeys(t *testing.T, x *Keys[*rec]) (string, string) {
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

func TestKeysCollisions(t *testing.T) {
	t.Parallel()
	x := NewKeys(func(r *rec) string { return r.key })
	a, b := collidingKeys(t, &x)
	require.Equal(t, x.hash(a), x.hash(b))
	var list []*rec
	add := func(k string) *rec {
		r := &rec{key: k, seq: uint32(len(list) + 1)}
		list = append(list, r)
		x.Put(list, k, r.seq)
		return r
	}
	get := func(k string) *rec {
		r, ok := x.Get(list, k)
		assert.Equal(t, r != nil, ok, "Get's bool says whether a record was found")
		return r
	}
	ra, rc, rb := add(a), add("other"), add(b)
	assert.Same(t, ra, get(a))
	assert.Same(t, rb, get(b), "a key whose hash is taken is still found")
	assert.Same(t, rc, get("other"))
	assert.Nil(t, get("missing"))

	x.Remove(list, a)
	assert.Nil(t, get(a))
	assert.Same(t, rb, get(b), "removing the first key keeps the second")

	// The key changes (an order_id changed), then comes back.
	ra.key = "renamed"
	x.Put(list, "renamed", ra.seq)
	assert.Same(t, ra, get("renamed"))
	x.Remove(list, "renamed")
	ra.key = a
	x.Put(list, a, ra.seq)
	assert.Same(t, ra, get(a))
	assert.Same(t, rb, get(b))

	x.Remove(list, b)
	assert.Nil(t, get(b))
	assert.Same(t, ra, get(a), "removing the second key keeps the first")
	x.Remove(list, a)
	assert.Nil(t, get(a))
	assert.Same(t, rc, get("other"))
}

func bounds(t *testing.T, q string) listquery.AmountBounds {
	t.Helper()
	v, err := url.ParseQuery(q)
	require.NoError(t, err)
	b, e := listquery.Amounts(v)
	require.Nil(t, e)
	return b
}

func TestAmountsSkipWholeBlocks(t *testing.T) {
	t.Parallel()
	var s Amounts
	// 10,000 records of 1.00, but record 5000 of 500.00.
	for seq := uint32(1); seq <= 10_000; seq++ {
		c := int64(100)
		if seq == 5000 {
			c = 50_000
		}
		s.Widen(seq, c)
	}
	big := bounds(t, "amount[gte]=100")
	// Seq 1: the block of 4096 (1..4096) holds no amount of 100.00 or more.
	start, ok := s.Skip(1, big)
	require.True(t, ok)
	assert.Equal(t, uint32(1), start)
	// Seq 5000 is in a block that may match, at every size.
	_, ok = s.Skip(5000, big)
	assert.False(t, ok, "the block holding 500.00 cannot be skipped")
	// Seq 4100 is in the block of 64 from 4097, which holds only 1.00; the
	// block of 4096 from 4097 holds 500.00.
	start, ok = s.Skip(4100, big)
	require.True(t, ok)
	assert.Equal(t, uint32(4097), start)

	// An amount that changes widens its blocks: seq 10 becomes 200.00.
	s.Widen(10, 20_000)
	_, ok = s.Skip(10, big)
	assert.False(t, ok, "a widened block is no longer skipped")

	// An amount without exact cents makes its blocks unbounded.
	s.Widen(9000, NoCents)
	_, ok = s.Skip(9000, bounds(t, "amount=3.00"))
	assert.False(t, ok)
	start, ok = s.Skip(100, bounds(t, "amount=3.00"))
	assert.True(t, ok, "other blocks keep their bounds")
	assert.Equal(t, uint32(65), start, "the block of 64 from 65 holds only 1.00")

	// Beyond the records, or without filters in cents, nothing is skipped.
	_, ok = s.Skip(1, bounds(t, ""))
	assert.False(t, ok)
	_, ok = s.Skip(1<<20, big)
	assert.False(t, ok)
}

func TestListIndex(t *testing.T) {
	t.Parallel()
	l := List{2, 5, 9}
	for seq, want := range map[uint32]int{1: 0, 2: 0, 3: 1, 5: 1, 9: 2, 10: 3} {
		assert.Equal(t, want, l.Index(seq), "seq %d", seq)
	}
	assert.Equal(t, 0, List(nil).Index(7))
}

// TestListAddRemove: Add and Remove keep a list in order without
// duplicates, whatever the order of the changes.
func TestListAddRemove(t *testing.T) {
	t.Parallel()
	var l List
	for _, seq := range []uint32{5, 9, 2, 9, 7, 1, 12, 5} {
		l.Add(seq)
	}
	assert.Equal(t, List{1, 2, 5, 7, 9, 12}, l)
	for _, seq := range []uint32{5, 3, 12, 1, 1} {
		l.Remove(seq)
	}
	assert.Equal(t, List{2, 7, 9}, l)
}

// TestLists: a list changed through Edit reads back through Get; a key
// without a list reads nil; a list read before an append keeps its
// length; changes that go from one list to another and back (the last
// list changed, then another) reach the list of their key.
func TestLists(t *testing.T) {
	t.Parallel()
	var ls Lists[string]
	assert.Nil(t, ls.Get("a"))
	ls.Edit("a").Add(1)
	before := ls.Get("a")
	ls.Edit("a").Add(2)
	ls.Edit("b").Add(3)
	assert.Equal(t, List{1}, before)
	assert.Equal(t, List{1, 2}, ls.Get("a"))
	assert.Equal(t, List{3}, ls.Get("b"))
	ls.Edit("a").Add(4)
	ls.Edit("b").Add(5)
	ls.Edit("b").Remove(3)
	ls.Edit("c").Add(6)
	ls.Edit("a").Remove(1)
	assert.Equal(t, List{2, 4}, ls.Get("a"))
	assert.Equal(t, List{5}, ls.Get("b"))
	assert.Equal(t, List{6}, ls.Get("c"))
	assert.Len(t, ls.byKey, 3)
}

// TestListsPastTheRecentOnes changes lists of more keys than Edit keeps
// at hand, in runs and in turns (a transfer's sides: the type's list, then
// each customer's), and checks each list against the seqs given it.
func TestListsPastTheRecentOnes(t *testing.T) {
	t.Parallel()
	var ls Lists[string]
	want := map[string]List{}
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"transfer", "transfer/a", "transfer/b", "charge", "charge/a", "charge/c"}
	for seq := uint32(1); seq <= 3000; seq++ {
		k := keys[rng.IntN(len(keys))]
		if seq%7 < 4 { // runs of a type with alternating customers
			k = keys[(seq%7)%3]
		}
		ls.Edit(k).Add(seq)
		want[k] = append(want[k], seq)
		if seq%50 == 0 { // a record leaves a list (a status changed)
			l := want[k]
			ls.Edit(k).Remove(l[0])
			want[k] = l[1:]
		}
	}
	for _, k := range keys {
		assert.Equal(t, want[k], ls.Get(k), k)
	}
	assert.Len(t, ls.byKey, len(keys), "one list per key")
}

// TestAmountsBoundEveryAmountWidened widens blocks with random seqs (in
// order and out of it) and amounts (some without cents) and checks each
// level's bounds against the least and greatest amount given to its
// blocks, so that Widen's shortcut (the smallest block already holds the
// amount) never leaves a larger block too narrow.
func TestAmountsBoundEveryAmountWidened(t *testing.T) {
	t.Parallel()
	var s Amounts
	type bound struct{ least, most int64 }
	want := [3]map[int]bound{{}, {}, {}}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 20_000 {
		seq := uint32(i + 1)
		if i%5 == 0 {
			seq = uint32(1 + rng.IntN(i+1)) // an amount changed
		}
		c := int64(rng.IntN(1000))
		if i%997 == 0 {
			c = NoCents
		}
		s.Widen(seq, c)
		for lv, shift := range amountBlockShift {
			b := int((seq - 1) >> shift)
			w, ok := want[lv][b]
			switch {
			case c == NoCents:
				w = bound{math.MinInt64, math.MaxInt64}
			case !ok:
				w = bound{c, c}
			default:
				w = bound{min(w.least, c), max(w.most, c)}
			}
			want[lv][b] = w
		}
	}
	for lv := range amountBlockShift {
		for b, w := range want[lv] {
			require.Equal(t, w, bound{s.least[lv][b], s.most[lv][b]}, "level %d block %d", lv, b)
		}
	}
}

// TestKeysAgreeWithAMap stores, renames and removes keys at random, many
// thousands (the table grows, its runs wrap around its end, removals move
// words back), and checks after each step against a map of the same keys.
func TestKeysAgreeWithAMap(t *testing.T) {
	t.Parallel()
	x := NewKeys(func(r *rec) string { return r.key })
	var list []*rec
	want := map[string]*rec{}
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(k string) {
		r, ok := x.Get(list, k)
		if w := want[k]; w != nil {
			require.True(t, ok, k)
			require.Same(t, w, r, k)
		} else {
			require.False(t, ok, k)
		}
	}
	for step := range 60_000 {
		k := "k" + strconv.Itoa(rng.IntN(20_000))
		switch r := want[k]; {
		case r == nil: // store it
			r = &rec{key: k, seq: uint32(len(list) + 1)}
			list = append(list, r)
			x.Put(list, k, r.seq)
			want[k] = r
		case step%3 == 0: // its key changes and comes back (an order_id)
			x.Remove(list, k)
			r.key = k + "-renamed"
			x.Put(list, r.key, r.seq)
			_, found := x.Get(list, k)
			require.False(t, found, "the old key is gone")
			got, _ := x.Get(list, r.key)
			require.Same(t, r, got)
			x.Remove(list, r.key)
			r.key = k
			x.Put(list, k, r.seq)
		default: // it goes
			x.Remove(list, k)
			delete(want, k)
		}
		check(k)
		check("k" + strconv.Itoa(rng.IntN(20_000)))
	}
	for i := range 20_000 {
		check("k" + strconv.Itoa(i))
	}
	assert.Equal(t, len(want), x.n+len(x.more), "one slot per key stored, or one entry of more when its hash is taken")
}
