package datadir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// The store file's layout, as bbolt (v1.4, its file format version 2)
// writes it: the facts checkFile needs, read from bbolt's source. Integers
// are in the machine's byte order, as bbolt writes its structs.
//
// Every page starts with a 16-byte header: the page id (8 bytes), flags
// (2: one page type), a count of elements (2) and the number of overflow
// pages that follow it (4). Pages 0 and 1 are meta pages; after the header
// comes the meta: magic, version, page size, flags (4 bytes each), the
// root bucket (its root page id and sequence, 8 each), the freelist page
// id, the high-water mark (the number of pages in use), the transaction id
// and a checksum (8 each): FNV-64a of the meta bytes before it.
//
// A branch page holds count elements of 16 bytes (the key's offset from
// the element, the key's length, 4 each, and the child page id, 8); a
// leaf page count elements of 16 bytes (flags, the key's offset from the
// element, the key's and the value's lengths, 4 each), the value right
// after the key. A leaf element with the bucket flag is a bucket: its
// value starts with the bucket's root page id and sequence (8 each); a
// root of 0 means an inline bucket, whose leaf page follows in the value.
const (
	pageHeaderSize = 16
	elementSize    = 16
	metaSize       = 56 // up to the checksum, which follows

	boltMagic   = 0xED0CDAED
	boltVersion = 2

	pageBranch   = 0x01
	pageLeaf     = 0x02
	pageMeta     = 0x04
	pageFreelist = 0x10

	leafBucket = 0x01

	noFreelist = ^uint64(0)

	bucketHeaderSize = 16

	// Page sizes bbolt may have chosen: the OS page size, 1 KB to 64 KB.
	minPageSize, maxPageSize = 1 << 10, 1 << 16
)

var order = binary.NativeEndian

// meta is a meta page's fields that checkFile uses.
type meta struct {
	pageSize   uint32
	root       uint64
	freelist   uint64
	hwm, txid  uint64
	damagedWhy string // why the page does not check, "" when it does
}

// readMeta reads meta page id (0 or 1) of f, at offset off.
func readMeta(f *os.File, id uint64, off int64) meta {
	buf := make([]byte, pageHeaderSize+metaSize+8)
	if _, err := f.ReadAt(buf, off); err != nil {
		return meta{damagedWhy: "it is past the end of the file"}
	}
	h, m := buf[:pageHeaderSize], buf[pageHeaderSize:]
	var why string
	switch {
	case order.Uint32(m[0:]) != boltMagic:
		why = "no bbolt magic number"
	case order.Uint32(m[4:]) != boltVersion:
		why = fmt.Sprintf("bbolt file version %d, not %d", order.Uint32(m[4:]), boltVersion)
	case order.Uint64(m[metaSize:]) != fnv64a(m[:metaSize]):
		why = "its checksum does not match"
	case order.Uint64(h) != id || order.Uint16(h[8:]) != pageMeta:
		why = "its page header is not a meta page's"
	}
	return meta{pageSize: order.Uint32(m[8:]), root: order.Uint64(m[16:]), freelist: order.Uint64(m[32:]),
		hwm: order.Uint64(m[40:]), txid: order.Uint64(m[48:]), damagedWhy: why}
}

func fnv64a(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// checkFile checks the store file at path before bbolt opens it: both meta
// pages, every page reachable from the current one, the freelist page
// when there is one. It finds what bbolt's own checker (bolt.Tx.Check)
// finds, but reads the file with bounds-checked code in the calling
// goroutine: bbolt's checker walks the memory map in a goroutine of its
// own, and bbolt.Open's rebuild of the freelist walks it with a goroutine
// that panics on what it finds; either kills the process on a damaged
// file, where no recover reaches.
//
// One damaged meta page is refused too, although bbolt would open the file
// from the other: the damaged page may be the newer of the two, and the
// other then misses the last commit, a change the server answered (a
// commit returns once its meta page is synced). A meta page is a few dozen
// bytes written in one piece, so a crash, kill -9 included, leaves the old
// page or the new one, never a mix: a damaged one is damage, not a crash
// that bbolt's fallback is meant for.
func checkFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	m0 := readMeta(f, 0, 0)
	if m0.damagedWhy != "" {
		return fmt.Errorf("meta page 0 is damaged (%s); starting from meta page 1 could lose the last saved change", m0.damagedWhy)
	}
	ps := m0.pageSize
	if ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0 {
		return fmt.Errorf("meta page 0 gives a page size of %d bytes", ps)
	}
	m1 := readMeta(f, 1, int64(ps))
	if m1.damagedWhy == "" && m1.pageSize != ps {
		m1.damagedWhy = fmt.Sprintf("a page size of %d bytes, not %d", m1.pageSize, ps)
	}
	if m1.damagedWhy != "" {
		return fmt.Errorf("meta page 1 is damaged (%s); starting from meta page 0 could lose the last saved change", m1.damagedWhy)
	}
	cur := m0
	if m1.txid > m0.txid {
		cur = m1
	}
	c := &checker{f: f, pageSize: int64(ps), hwm: cur.hwm, seen: map[uint64]bool{}}
	switch {
	case cur.hwm < 3 || cur.hwm > uint64(info.Size())/uint64(ps):
		return fmt.Errorf("the store claims %d pages of %d bytes; the file has %d bytes", cur.hwm, ps, info.Size())
	case cur.root < 2 || cur.root >= cur.hwm:
		return fmt.Errorf("the root page %d is out of bounds", cur.root)
	case cur.freelist != noFreelist && (cur.freelist < 2 || cur.freelist >= cur.hwm):
		return fmt.Errorf("the freelist page %d is out of bounds", cur.freelist)
	}
	var freed map[uint64]bool
	if cur.freelist != noFreelist {
		if freed, err = c.freelist(cur.freelist); err != nil {
			return err
		}
	}
	if _, err := c.tree(cur.root, nil, nil); err != nil {
		return err
	}
	for id := range c.seen {
		if freed[id] {
			return fmt.Errorf("page %d is in use and free", id)
		}
	}
	if freed != nil {
		for id := uint64(2); id < cur.hwm; id++ {
			if !c.seen[id] && !freed[id] {
				return fmt.Errorf("page %d is neither in use nor free", id)
			}
		}
	}
	return nil
}

// checker walks the pages of a store file.
type checker struct {
	f        *os.File
	pageSize int64
	hwm      uint64
	seen     map[uint64]bool // pages reached, overflow included
}

// page reads page id with its overflow, after checking that it lies below
// the high-water mark, calls itself id, is of a known type, and is reached
// once.
func (c *checker) page(id uint64) ([]byte, error) {
	if id < 2 || id >= c.hwm {
		return nil, fmt.Errorf("page %d is out of bounds (%d pages)", id, c.hwm)
	}
	h := make([]byte, pageHeaderSize)
	if _, err := c.f.ReadAt(h, int64(id)*c.pageSize); err != nil {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	if got := order.Uint64(h); got != id {
		return nil, fmt.Errorf("page %d calls itself page %d", id, got)
	}
	switch order.Uint16(h[8:]) {
	case pageBranch, pageLeaf, pageFreelist:
	default:
		return nil, fmt.Errorf("page %d has an unknown type (flags %#x)", id, order.Uint16(h[8:]))
	}
	over := uint64(order.Uint32(h[12:]))
	if over >= c.hwm-id {
		return nil, fmt.Errorf("page %d overflows past the last page", id)
	}
	for i := id; i <= id+over; i++ {
		if c.seen[i] {
			return nil, fmt.Errorf("page %d is reached twice", i)
		}
		c.seen[i] = true
	}
	p := make([]byte, int64(over+1)*c.pageSize)
	if _, err := c.f.ReadAt(p, int64(id)*c.pageSize); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("page %d: %v", id, err)
	}
	return p, nil
}

// freelist reads the freelist page id: the free pages, each below the
// high-water mark and listed once.
func (c *checker) freelist(id uint64) (map[uint64]bool, error) {
	p, err := c.page(id)
	if err != nil {
		return nil, err
	}
	if order.Uint16(p[8:]) != pageFreelist {
		return nil, fmt.Errorf("the freelist page %d is not a freelist page", id)
	}
	start, n := uint64(pageHeaderSize), uint64(order.Uint16(p[10:]))
	if n == 0xFFFF { // the count does not fit the header: it is the first id
		if len(p) < pageHeaderSize+8 {
			return nil, fmt.Errorf("the freelist page %d is truncated", id)
		}
		n, start = order.Uint64(p[pageHeaderSize:]), pageHeaderSize+8
	}
	if n > (uint64(len(p))-start)/8 {
		return nil, fmt.Errorf("the freelist page %d lists more pages than it holds", id)
	}
	freed := make(map[uint64]bool, n)
	for i := range n {
		f := order.Uint64(p[start+8*i:])
		if f < 2 || f >= c.hwm || freed[f] {
			return nil, fmt.Errorf("the freelist page %d lists page %d wrongly", id, f)
		}
		freed[f] = true
	}
	return freed, nil
}

// tree checks the B+tree whose root is page id, whose keys must lie in
// [lo, hi) (nil: no bound), and the buckets it holds; it returns its last
// key.
func (c *checker) tree(id uint64, lo, hi []byte) (last []byte, err error) {
	p, err := c.page(id)
	if err != nil {
		return nil, err
	}
	switch order.Uint16(p[8:]) {
	case pageBranch:
		n := int(order.Uint16(p[10:]))
		if n == 0 {
			return nil, fmt.Errorf("page %d is a branch page with no children", id)
		}
		keys := make([][]byte, n)
		for i := range n {
			if keys[i], _, err = element(p, i, false); err != nil {
				return nil, fmt.Errorf("page %d: %v", id, err)
			}
		}
		for i := range n {
			if err := inOrder(keys[i], lo, hi, i == 0, last); err != nil {
				return nil, fmt.Errorf("page %d: %v", id, err)
			}
			next := hi
			if i+1 < n {
				next = keys[i+1]
			}
			child := order.Uint64(p[pageHeaderSize+i*elementSize+8:])
			if last, err = c.tree(child, keys[i], next); err != nil {
				return nil, err
			}
		}
		return last, nil
	case pageLeaf:
		last, err := c.leaf(p, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("page %d: %v", id, err)
		}
		return last, nil
	default:
		return nil, fmt.Errorf("page %d is a freelist page inside a tree", id)
	}
}

// leaf checks the leaf page p (a page of the file, or an inline bucket's)
// and the buckets it holds; it returns its last key.
func (c *checker) leaf(p []byte, lo, hi []byte) (last []byte, err error) {
	n := int(order.Uint16(p[10:]))
	for i := range n {
		k, v, err := element(p, i, true)
		if err != nil {
			return nil, err
		}
		if err := inOrder(k, lo, hi, i == 0, last); err != nil {
			return nil, err
		}
		last = k
		if order.Uint32(p[pageHeaderSize+i*elementSize:])&leafBucket == 0 {
			continue
		}
		if len(v) < bucketHeaderSize {
			return nil, fmt.Errorf("bucket %q has a truncated header", k)
		}
		root := order.Uint64(v)
		if root != 0 {
			if _, err := c.tree(root, nil, nil); err != nil {
				return nil, err
			}
			continue
		}
		inline := v[bucketHeaderSize:]
		if len(inline) < pageHeaderSize || order.Uint16(inline[8:]) != pageLeaf {
			return nil, fmt.Errorf("inline bucket %q is not a leaf page", k)
		}
		if _, err := c.leaf(inline, nil, nil); err != nil {
			return nil, fmt.Errorf("inline bucket %q: %v", k, err)
		}
	}
	return last, nil
}

// element returns the key (and, on a leaf, the value) of element i of the
// page p, after checking that they lie within the page.
func element(p []byte, i int, leaf bool) (k, v []byte, err error) {
	at := pageHeaderSize + i*elementSize
	if at+elementSize > len(p) {
		return nil, nil, fmt.Errorf("element %d lies past the page", i)
	}
	e := p[at:]
	start := uint64(at) + uint64(order.Uint32(e[4:]))
	klen, vlen := uint64(order.Uint32(e[8:])), uint64(0)
	if !leaf {
		start, klen = uint64(at)+uint64(order.Uint32(e)), uint64(order.Uint32(e[4:]))
	} else {
		vlen = uint64(order.Uint32(e[12:]))
	}
	if start+klen+vlen > uint64(len(p)) {
		return nil, nil, fmt.Errorf("element %d's key or value lies past the page", i)
	}
	return p[start : start+klen], p[start+klen : start+klen+vlen], nil
}

// inOrder checks that key k lies in [lo, hi) and, unless first, after prev.
func inOrder(k, lo, hi []byte, first bool, prev []byte) error {
	switch {
	case lo != nil && bytes.Compare(k, lo) < 0:
		return fmt.Errorf("key %x comes before its parent's %x", k, lo)
	case hi != nil && bytes.Compare(k, hi) >= 0:
		return fmt.Errorf("key %x does not come before its parent's next key %x", k, hi)
	case !first && bytes.Compare(k, prev) <= 0:
		return fmt.Errorf("key %x does not come after the key %x before it", k, prev)
	}
	return nil
}
