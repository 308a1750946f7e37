package refserver

import "hash/maphash"

// keyIndex finds a merchant's transaction by a string key (its id, or its
// order_id) without holding a pointer per entry: it maps a 32-bit hash of
// the key to the transaction's seq, and the transaction is
// merchant.txList[seq-1]. A store of a million charges keeps two such
// indexes; as map[string]*tx they cost about twice the memory, and the
// garbage collector scanned their two million keys and values at every
// cycle, where a map without pointers is not scanned at all.
//
// A hash is not the key: a lookup checks the key of the transaction found,
// and a key whose hash is already taken by another key goes to more, an
// ordinary map, so collisions cost a little room and never a wrong answer.
// The caller holds the merchant's lock.
type keyIndex struct {
	seed maphash.Seed
	// key is the key the index is by, read from a stored transaction.
	key  func(*tx) string
	seqs map[uint32]uint32
	more map[string]uint32
}

func newKeyIndex(key func(*tx) string) keyIndex {
	return keyIndex{seed: maphash.MakeSeed(), key: key, seqs: make(map[uint32]uint32)}
}

func (x *keyIndex) hash(k string) uint32 {
	h := maphash.String(x.seed, k)
	return uint32(h) ^ uint32(h>>32)
}

// get returns the transaction of txs (the merchant's txList) with key k, or
// nil.
func (x *keyIndex) get(txs []*tx, k string) *tx {
	if seq, ok := x.seqs[x.hash(k)]; ok {
		if t := txs[seq-1]; x.key(t) == k {
			return t
		}
	}
	if seq, ok := x.more[k]; ok {
		return txs[seq-1]
	}
	return nil
}

// put records that t (already in txs, its seq set) has key k.
func (x *keyIndex) put(txs []*tx, k string, t *tx) {
	h := x.hash(k)
	if seq, ok := x.seqs[h]; ok && x.key(txs[seq-1]) != k {
		if x.more == nil {
			x.more = make(map[string]uint32)
		}
		x.more[k] = t.seq
		return
	}
	x.seqs[h] = t.seq
	delete(x.more, k)
}

// remove forgets key k. It is called before the transaction's key changes
// (an order_id changed), while x.key still gives the old one.
func (x *keyIndex) remove(txs []*tx, k string) {
	h := x.hash(k)
	if seq, ok := x.seqs[h]; ok && x.key(txs[seq-1]) == k {
		delete(x.seqs, h)
		return
	}
	delete(x.more, k)
}

// txByID returns the merchant's transaction with the given id, or nil. The
// caller holds m.mu.
func (m *merchant) txByID(id string) *tx { return m.txs.get(m.txList, id) }

// txByOrderID returns the merchant's transaction with the given order_id,
// or nil. The caller holds m.mu.
func (m *merchant) txByOrderID(orderID string) *tx { return m.orderIDs.get(m.txList, orderID) }
