package refserver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Persistence: the server's state kept in a data directory across restarts
// (openpay-refserver --data DIR).
//
// The store is bbolt (go.etcd.io/bbolt), an embedded key/value store in
// pure Go: one file, B+tree pages, ACID transactions with one writer at a
// time, and an fsync of every commit. It fits the server's state, which is
// a set of records looked up by kind and id, better than SQL would: there
// is no query to run on disk (the server answers from memory and the store
// is only read at start), no schema to migrate per field (a record is the
// JSON of its kind's persisted form), and no cgo. modernc.org/sqlite, the
// pure-Go SQLite, would cost a large dependency and a translation of every
// record to columns for nothing the server reads back.
//
// What is written, and when. Every record of the state belongs to an owner
// (a merchant or a group) and is one of the kinds of persist_kinds.go,
// keyed by its id: a customer, a card, a transaction, an event, ... The code
// that changes a record marks it (merchant.mark, group.mark); marks
// collect in one list, and ServeHTTP, after the handler returns and before
// the answer is written, flushes them (commitData): each marked record is
// read under its owner's lock and written (or deleted, when it no longer
// exists) in ONE bbolt transaction, together with the fake clock and the
// seeded id generator's state. So an answered request's changes are on
// disk, and a request costs the records it changed, whatever the size of
// the store. Marking a record that did not change costs a write, never a
// wrong state; a change left unmarked is caught by the tests (dataDiff,
// run after every request by TestDataMarksEveryChange, and by the whole
// package's tests with OPENPAY_REFSERVER_DATA_CHECK=1). Pending webhook
// deliveries are records too; the delivering goroutines mark them done,
// and the next flush writes that (after a crash a delivery may go out
// twice, as the gateway's may). Without a data directory (s.data nil)
// marking is one nil check and nothing else runs.
//
// Code that changes state outside a route's handler (the server's Go
// methods, the hosted pages, which call them) ends with the same flush:
// `defer s.durable(&err)()` at the start of an exported method that
// changes state.
//
// One flush runs at a time and reads what it writes under the owners'
// locks, so commits land in the order of the values they hold. Commits are
// grouped: a flush takes the marks of every request that has finished its
// handler, and a request whose marks another flush took waits for that
// flush to commit before it answers (commitData).
//
// Layout: bucket "meta" (format, clock, ids, reserved), bucket "merchants"
// and "groups" (their ids, in creation order) and one bucket per owner
// ("m:" or "g:" and its id) holding one bucket per kind. A value is an
// 8-byte creation ordinal (bbolt's bucket sequence, kept when a record is
// rewritten) followed by the JSON of the record: loading reads each kind in
// creation order, so lists keep their order.

// dataFileName is the file the store keeps in the data directory.
const dataFileName = "refserver.db"

// dataFormat is the layout version written in meta; a store of another
// version is refused rather than misread.
const dataFormat = "1"

// Names of the store's top-level buckets and meta keys.
var (
	bucketMeta      = []byte("meta")
	bucketMerchants = []byte("merchants")
	bucketGroups    = []byte("groups")
	metaFormat      = []byte("format")
	metaClock       = []byte("clock")
	metaIDs         = []byte("ids")
	metaReserved    = []byte("reserved")
)

// ErrDataDir is the error OpenData returns, wrapped, for a data directory
// that cannot be used: unreadable, corrupted, of an unknown format, or held
// by another process. The server never starts empty over such a directory.
var ErrDataDir = errors.New("refserver: data directory unusable")

// dataStore is the server's persistence: the open store and the marks not
// yet written.
type dataStore struct {
	db *bolt.DB

	mu    sync.Mutex // guards what follows, up to check
	dirty []dirtyRef // in the order first marked: creation order within a flush
	seen  map[dirtyRef]struct{}
	// marks counts the marks made, done those written: a request is
	// durable once done reaches the count its own marks brought marks to.
	marks, done uint64
	// flushing: a flush (or SaveData) is under way; one runs at a time,
	// the others wait on flushed.
	flushing bool
	flushed  *sync.Cond
	// last is what was last written of the server-wide values, so that a
	// flush writes them only when they changed.
	last metaValues

	// check, set by tests, is called after each flush with the differences
	// between the store and the whole state written afresh (none expected).
	check func(diff []string)
}

// dirtyRef names a marked record: its owner, kind and id.
type dirtyRef struct {
	owner
	kind recKind
	id   string
}

// owner is the merchant or the group a record belongs to (one of the two
// is set).
type owner struct {
	m *merchant
	g *group
}

// bucket is the name of the owner's bucket.
func (o owner) bucket() []byte {
	if o.m != nil {
		return []byte("m:" + o.m.id)
	}
	return []byte("g:" + o.g.id)
}

// lock takes the owner's lock and returns its release.
func (o owner) lock() func() {
	if o.m != nil {
		o.m.mu.Lock()
		return o.m.mu.Unlock
	}
	o.g.mu.Lock()
	return o.g.mu.Unlock
}

// mark records that the merchant's record of kind k and id changed (was
// created, modified or removed). The caller holds m.mu.
func (m *merchant) mark(k recKind, id string) {
	if m.data != nil {
		m.data.mark(dirtyRef{owner{m: m}, k, id})
	}
}

// mark records that the group's record of kind k and id changed. The
// caller holds g.mu.
func (g *group) mark(k recKind, id string) {
	if g.data != nil {
		g.data.mark(dirtyRef{owner{g: g}, k, id})
	}
}

func (d *dataStore) mark(r dirtyRef) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.seen[r]; ok {
		return
	}
	d.seen[r] = struct{}{}
	d.dirty = append(d.dirty, r)
	d.marks++
}

// OpenData opens (creating it when needed) the data directory dir. When it
// holds a saved state, that state is loaded into the server, which must
// have no merchant or group yet, persistence starts and restored is true.
// When it holds none, nothing is loaded and restored is false: the caller
// then builds the starting state (a seed) and calls [Server.SaveData],
// which writes it and starts persistence. An unreadable or corrupted
// directory, one written by another format, or one another process holds
// gives an error wrapping [ErrDataDir], never an empty start. Call it
// before serving; [Server.Close] closes the store.
func (s *Server) OpenData(dir string) (restored bool, err error) {
	return s.openData(dir, true)
}

// openData is OpenData; closeWithServer false leaves closing the store to
// the caller (tests that go on using a server after Close).
func (s *Server) openData(dir string, closeWithServer bool) (restored bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("%w: %v", ErrDataDir, err)
	}
	path := filepath.Join(dir, dataFileName)
	db, err := openBolt(path)
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return false, fmt.Errorf("%w: %s is in use by another process", ErrDataDir, path)
		}
		return false, fmt.Errorf("%w: %s: %v", ErrDataDir, path, err)
	}
	d := &dataStore{db: db, seen: make(map[dirtyRef]struct{})}
	d.flushed = sync.NewCond(&d.mu)
	restored, err = s.loadData(d)
	if err != nil {
		_ = db.Close()
		return false, fmt.Errorf("%w: %s: %v", ErrDataDir, path, err)
	}
	s.data = d
	if restored {
		s.restored.Store(true)
		s.attachData()
		s.deliveries.Resume()
	}
	if closeWithServer {
		s.onClose(func() { _ = db.Close() })
	}
	return restored, nil
}

// openBolt opens the store file. bbolt reads it through a memory map: a
// truncated file faults on a page past its end, which would kill the
// process; with panicOnFault it is an error like any other corruption.
func openBolt(path string) (db *bolt.DB, err error) {
	defer panicOnFault(&err)()
	// The freelist is rebuilt at open rather than written at every commit,
	// whose cost would grow with the store's free pages.
	return bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoFreelistSync: true,
		FreelistType: bolt.FreelistMapType})
}

// panicOnFault turns, until its result is called, a memory fault of the
// calling goroutine (a page of the mapped store past the end of a
// truncated file) and a panic of bbolt (a page it cannot make sense of)
// into *err:
//
//	defer panicOnFault(&err)()
func panicOnFault(err *error) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			*err = fmt.Errorf("the store is corrupted (%v)", p)
		}
	}
}

// SaveData replaces the stored state with the server's current state,
// wholesale: everything in the store is removed and every record written
// again, in one transaction; persistence of each request then goes on (it
// starts here after an OpenData that restored nothing). It is what a reset
// of the whole server calls after replacing the in-memory state. Without
// a data directory it does nothing.
func (s *Server) SaveData() error {
	d := s.data
	if d == nil {
		return nil
	}
	s.attachData()
	d.mu.Lock()
	for d.flushing {
		d.flushed.Wait()
	}
	d.flushing = true
	d.dirty = nil
	clear(d.seen)
	upto := d.marks
	d.mu.Unlock()
	snap := s.dataSnapshot()
	cur := s.dataMeta()
	err := d.db.Update(func(btx *bolt.Tx) error {
		var names [][]byte
		if err := btx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			names = append(names, slices.Clone(name))
			return nil
		}); err != nil {
			return err
		}
		for _, name := range names {
			if err := btx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return d.write(btx, s, snap.records, cur, metaValues{reserved: -1})
	})
	d.flushDone(upto, cur, err, nil)
	return err
}

// flushDone ends a flush: on success what it wrote is done, on failure its
// marks are made again for the next flush; the waiting requests are woken.
func (d *dataStore) flushDone(upto uint64, cur metaValues, err error, dirty []dirtyRef) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err == nil {
		d.done, d.last = upto, cur
	} else {
		for _, r := range dirty {
			if _, ok := d.seen[r]; !ok {
				d.seen[r] = struct{}{}
				d.dirty = append(d.dirty, r)
			}
		}
	}
	d.flushing = false
	d.flushed.Broadcast()
}

// attachData points every merchant and group at the store, so that their
// marks are collected.
func (s *Server) attachData() {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, m := range s.merchants {
		m.mu.Lock()
		m.data = s.data
		m.mu.Unlock()
	}
	for _, g := range s.groups {
		g.mu.Lock()
		g.data = s.data
		g.mu.Unlock()
	}
}

// encodedRecord is a record read for writing: nil data removes it.
type encodedRecord struct {
	dirtyRef
	data []byte
}

// dataSnapshot is the whole state encoded, read owner by owner under each
// owner's lock.
type dataSnapshot struct {
	records []encodedRecord
	skip    []dirtyRef // marked records not written yet (dataDiff)
}

// dataSnapshot encodes every record of every owner, in creation order.
func (s *Server) dataSnapshot() dataSnapshot {
	var snap dataSnapshot
	for _, o := range s.dataOwners() {
		unlock := o.lock()
		snap.records = s.ownerRecords(snap.records, o)
		unlock()
	}
	return snap
}

// ownerRecords appends to recs every record of o, encoded, kind by kind in
// creation order. The caller holds o's lock.
func (s *Server) ownerRecords(recs []encodedRecord, o owner) []encodedRecord {
	for k := range recKinds {
		rk := &recKinds[k]
		if (o.m != nil) != rk.merchant {
			continue
		}
		rk.each(s, o, func(id string) {
			r := dirtyRef{o, recKind(k), id}
			recs = append(recs, encodedRecord{r, s.encodeRecord(r)})
		})
	}
	return recs
}

// dataOwners returns the merchants in creation order, then the groups in
// id order.
func (s *Server) dataOwners() []owner {
	var out []owner
	for _, m := range s.merchantsInOrder() {
		out = append(out, owner{m: m})
	}
	s.mu.RLock()
	ids := make([]string, 0, len(s.groups))
	for id := range s.groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		out = append(out, owner{g: s.groups[id]})
	}
	s.mu.RUnlock()
	return out
}

// encodeRecord returns the record's stored form, nil when it no longer
// exists. The caller holds the owner's lock.
func (s *Server) encodeRecord(r dirtyRef) []byte {
	v, ok := recKinds[r.kind].get(s, r.owner, r.id)
	if !ok {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		// The persisted forms are plain structs of strings, numbers and
		// times: this cannot happen; were it to, it must not pass silently.
		panic(fmt.Sprintf("refserver: record %s %q cannot be encoded: %v", recKinds[r.kind].name, r.id, err))
	}
	return data
}

// commitData writes the records marked since the last flush. ServeHTTP
// calls it after every handler, before the answer is written; without a
// data directory it returns at once.
func (s *Server) commitData() error {
	d := s.data
	if d == nil {
		return nil
	}
	// Group commit: the marks of every request that finished meanwhile
	// go in one transaction (one fsync); a request whose marks another
	// request's flush took waits for that flush and is done.
	d.mu.Lock()
	target := d.marks
	for {
		if d.done >= target && s.dataMeta() == d.last {
			d.mu.Unlock()
			return nil
		}
		if !d.flushing {
			break
		}
		d.flushed.Wait()
	}
	d.flushing = true
	dirty := d.dirty
	d.dirty = nil
	clear(d.seen)
	upto := d.marks
	d.mu.Unlock()
	recs := make([]encodedRecord, 0, len(dirty))
	// Marks of one owner are read in one critical section. An owner the
	// server no longer has (replaced by a reset since it was marked) is
	// skipped: its records must not overwrite its successor's.
	for i := 0; i < len(dirty); {
		o := dirty[i].owner
		j := i
		for j < len(dirty) && dirty[j].owner == o {
			j++
		}
		if s.hasOwner(o) {
			unlock := o.lock()
			for ; i < j; i++ {
				recs = append(recs, encodedRecord{dirty[i], s.encodeRecord(dirty[i])})
			}
			unlock()
		}
		i = j
	}
	cur := s.dataMeta()
	d.mu.Lock()
	last := d.last
	d.mu.Unlock()
	err := d.db.Update(func(btx *bolt.Tx) error { return d.write(btx, s, recs, cur, last) })
	d.flushDone(upto, cur, err, dirty)
	if err != nil {
		return err
	}
	if d.check != nil {
		d.check(s.dataDiff())
	}
	return nil
}

// hasOwner reports whether o is still one of the server's merchants or
// groups.
func (s *Server) hasOwner(o owner) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if o.m != nil {
		return s.merchants[o.m.id] == o.m
	}
	return s.groups[o.g.id] == o.g
}

// durable ends the server's Go methods that change state, as commitData
// ends each request: called at the method's start as
//
//	defer s.durable(&err)()
//
// its result runs after the method has released its locks, writes what
// the call changed and, when that fails, makes it the call's error (unless
// it had one).
func (s *Server) durable(err *error) func() {
	d := s.data
	if d == nil {
		return func() {}
	}
	return func() {
		if e := s.commitData(); e != nil && *err == nil {
			*err = e
		}
	}
}

// metaValues are the server-wide values the store keeps: the fake clock's
// time ("" on the wall clock), the seeded id generator's state ("" when
// ids are drawn at random) and the number of reserved ids.
type metaValues struct {
	clock, ids string
	reserved   int
}

// dataMeta returns the server's current metaValues.
func (s *Server) dataMeta() metaValues {
	var v metaValues
	if fc, ok := s.clock.(*FakeClock); ok {
		b, _ := fc.Now().MarshalText()
		v.clock = string(b)
	}
	v.ids = string(s.ids.State())
	v.reserved = s.ids.ReservedCount()
	return v
}

// write stores recs in btx, and those of the server-wide values cur that
// differ from last.
func (d *dataStore) write(btx *bolt.Tx, s *Server, recs []encodedRecord, cur, last metaValues) error {
	meta, err := btx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(metaFormat, []byte(dataFormat)); err != nil {
		return err
	}
	if cur.clock != last.clock && cur.clock != "" {
		if err := meta.Put(metaClock, []byte(cur.clock)); err != nil {
			return err
		}
	}
	if cur.ids != last.ids && cur.ids != "" {
		if err := meta.Put(metaIDs, []byte(cur.ids)); err != nil {
			return err
		}
	}
	if cur.reserved != last.reserved {
		data, err := json.Marshal(s.ids.Reserved())
		if err != nil {
			return err
		}
		if err := meta.Put(metaReserved, data); err != nil {
			return err
		}
	}
	var (
		prev  owner
		kinds map[recKind]*bolt.Bucket
		ob    *bolt.Bucket
	)
	for _, r := range recs {
		if r.owner != prev || ob == nil {
			prev, kinds = r.owner, make(map[recKind]*bolt.Bucket)
			if ob, err = d.ownerBucket(btx, r.owner); err != nil {
				return err
			}
		}
		b := kinds[r.kind]
		if b == nil {
			if b, err = ob.CreateBucketIfNotExists([]byte(recKinds[r.kind].name)); err != nil {
				return err
			}
			kinds[r.kind] = b
		}
		key := []byte(r.id)
		if r.data == nil {
			if err := b.Delete(key); err != nil {
				return err
			}
			continue
		}
		var ord uint64
		if old := b.Get(key); len(old) >= 8 {
			ord = binary.BigEndian.Uint64(old)
		} else if ord, err = b.NextSequence(); err != nil {
			return err
		}
		val := make([]byte, 8+len(r.data))
		binary.BigEndian.PutUint64(val, ord)
		copy(val[8:], r.data)
		if err := b.Put(key, val); err != nil {
			return err
		}
	}
	return nil
}

// ownerBucket returns the owner's bucket, creating it (and listing the
// owner in creation order) on first use.
func (d *dataStore) ownerBucket(btx *bolt.Tx, o owner) (*bolt.Bucket, error) {
	name := o.bucket()
	if b := btx.Bucket(name); b != nil {
		return b, nil
	}
	listName, id := bucketMerchants, ""
	if o.m != nil {
		id = o.m.id
	} else {
		listName, id = bucketGroups, o.g.id
	}
	list, err := btx.CreateBucketIfNotExists(listName)
	if err != nil {
		return nil, err
	}
	ord, err := list.NextSequence()
	if err != nil {
		return nil, err
	}
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], ord)
	if err := list.Put([]byte(id), v[:]); err != nil {
		return nil, err
	}
	return btx.CreateBucket(name)
}

// storedRecord is a record as the store holds it.
type storedRecord struct {
	ord  uint64
	id   string
	data []byte
}

// readKind returns the records of a kind bucket in creation order.
func readKind(b *bolt.Bucket) ([]storedRecord, error) {
	var out []storedRecord
	err := b.ForEach(func(k, v []byte) error {
		if len(v) < 8 {
			return fmt.Errorf("a record %q is truncated", k)
		}
		out = append(out, storedRecord{binary.BigEndian.Uint64(v), string(k), slices.Clone(v[8:])})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ord < out[j].ord })
	return out, err
}

// readList returns the ids of a list bucket (merchants, groups) in
// creation order.
func readList(b *bolt.Bucket) []string {
	if b == nil {
		return nil
	}
	type entry struct {
		ord uint64
		id  string
	}
	var es []entry
	_ = b.ForEach(func(k, v []byte) error {
		if len(v) == 8 {
			es = append(es, entry{binary.BigEndian.Uint64(v), string(k)})
		}
		return nil
	})
	sort.Slice(es, func(i, j int) bool { return es[i].ord < es[j].ord })
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.id
	}
	return ids
}

// loadData reads the stored state into s, reporting whether there was one.
// A store page bbolt cannot read panics inside bbolt; that is an error
// here, never a crash or an empty start.
func (s *Server) loadData(d *dataStore) (restored bool, err error) {
	defer func() {
		if err != nil {
			restored = false
		}
	}()
	defer panicOnFault(&err)()
	err = d.db.View(func(btx *bolt.Tx) error {
		// Every page is checked before anything is believed: the load
		// reads everything anyway.
		for err := range btx.Check() {
			return err
		}
		meta := btx.Bucket(bucketMeta)
		if meta == nil {
			// A new store, or one whose first save never committed: bbolt
			// commits all or nothing, so anything else in it is partial.
			empty := true
			_ = btx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
			if !empty {
				return errors.New("the store holds data but no format record")
			}
			return nil
		}
		if f := string(meta.Get(metaFormat)); f != dataFormat {
			return fmt.Errorf("the store has format %q; this server reads format %q", f, dataFormat)
		}
		s.mu.RLock()
		busy := len(s.merchants) > 0 || len(s.groups) > 0
		s.mu.RUnlock()
		if busy {
			return errors.New("the server already has merchants: a stored state loads into an empty server only")
		}
		if err := s.loadMeta(meta); err != nil {
			return err
		}
		// Merchants before groups: a group names its merchants, and
		// subscriptions of a group's customers name their group, so groups
		// load bare first and fill in after.
		for _, id := range readList(btx.Bucket(bucketGroups)) {
			g := &group{id: id, merchants: make(map[string]bool), cards: make(map[string]*card), customers: newCustomerSet()}
			g.customers.own = owner{g: g}
			s.groups[id] = g
		}
		for _, id := range readList(btx.Bucket(bucketMerchants)) {
			m := newMerchant(MerchantConfig{ID: id}, time.Time{})
			s.merchants[id] = m
			s.merchantList = append(s.merchantList, id)
		}
		for _, id := range readList(btx.Bucket(bucketGroups)) {
			if err := s.loadOwner(btx, owner{g: s.groups[id]}); err != nil {
				return err
			}
		}
		for _, id := range s.merchantList {
			if err := s.loadOwner(btx, owner{m: s.merchants[id]}); err != nil {
				return err
			}
		}
		restored = true
		return nil
	})
	if err != nil {
		// Nothing half-loaded stays behind.
		s.mu.Lock()
		clear(s.merchants)
		clear(s.groups)
		s.merchantList = nil
		s.mu.Unlock()
		return false, err
	}
	if restored {
		d.last = s.dataMeta()
	}
	return restored, nil
}

// loadMeta restores the clock, the id generator and the reserved ids.
func (s *Server) loadMeta(meta *bolt.Bucket) error {
	if c := meta.Get(metaClock); c != nil {
		fc, ok := s.clock.(*FakeClock)
		if !ok {
			return errors.New("the state was saved on a fake clock: start the server with one (its start is replaced by the saved time)")
		}
		var t time.Time
		if err := t.UnmarshalText(c); err != nil {
			return fmt.Errorf("the clock: %v", err)
		}
		fc.Set(t)
	}
	if st := meta.Get(metaIDs); st != nil {
		if err := s.ids.Restore(st); err != nil {
			return fmt.Errorf("the id generator: %v", err)
		}
	}
	if r := meta.Get(metaReserved); r != nil {
		var ids []string
		if err := json.Unmarshal(r, &ids); err != nil {
			return fmt.Errorf("the reserved ids: %v", err)
		}
		s.ids.Reserve(ids)
	}
	return nil
}

// loadOwner reads an owner's records, kind by kind in the order of
// recKinds, each kind in creation order.
func (s *Server) loadOwner(btx *bolt.Tx, o owner) error {
	ob := btx.Bucket(o.bucket())
	if ob == nil {
		return fmt.Errorf("the bucket of %s is missing", o.bucket())
	}
	for k := range recKinds {
		rk := &recKinds[k]
		if (o.m != nil) != rk.merchant {
			continue
		}
		b := ob.Bucket([]byte(rk.name))
		if b == nil {
			continue
		}
		recs, err := readKind(b)
		if err != nil {
			return fmt.Errorf("%s %s: %v", o.bucket(), rk.name, err)
		}
		for _, r := range recs {
			if err := rk.load(s, o, r.id, r.data); err != nil {
				return fmt.Errorf("%s %s %q: %v", o.bucket(), rk.name, r.id, err)
			}
		}
	}
	return nil
}

// dataDiff compares the store with the whole state encoded afresh and
// describes each difference: a record changed without being marked, or
// one the store holds that the state no longer has. Tests call it (it
// reads everything).
func (s *Server) dataDiff() []string {
	d := s.data
	// No flush runs meanwhile (this one holds the flusher's place), and a
	// record marked but not written yet is skipped: it is read under its
	// owner's lock together with the marks, so a change is seen with its
	// mark or not at all.
	d.mu.Lock()
	for d.flushing {
		d.flushed.Wait()
	}
	d.flushing = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.flushing = false
		d.flushed.Broadcast()
		d.mu.Unlock()
	}()
	var snap dataSnapshot
	for _, o := range s.dataOwners() {
		unlock := o.lock()
		d.mu.Lock()
		pending := maps.Clone(d.seen)
		d.mu.Unlock()
		snap.records = s.ownerRecords(snap.records, o)
		for r := range pending {
			if r.owner == o {
				snap.skip = append(snap.skip, r)
			}
		}
		unlock()
	}
	skip := map[string]bool{}
	for _, r := range snap.skip {
		skip[string(r.owner.bucket())+"/"+recKinds[r.kind].name+"/"+r.id] = true
	}
	var diff []string
	_ = d.db.View(func(btx *bolt.Tx) error {
		want := make(map[string]map[string][]byte) // owner bucket/kind -> id -> data
		for _, r := range snap.records {
			if recKinds[r.kind].background {
				continue
			}
			key := string(r.owner.bucket()) + "/" + recKinds[r.kind].name
			if want[key] == nil {
				want[key] = make(map[string][]byte)
			}
			want[key][r.id] = r.data
		}
		have := make(map[string]map[string][]byte)
		background := map[string]bool{}
		for _, rk := range recKinds {
			if rk.background {
				background[rk.name] = true
			}
		}
		_ = btx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if !strings.HasPrefix(string(name), "m:") && !strings.HasPrefix(string(name), "g:") {
				return nil
			}
			return b.ForEach(func(kind, _ []byte) error {
				kb := b.Bucket(kind)
				if kb == nil || background[string(kind)] {
					return nil
				}
				key := string(name) + "/" + string(kind)
				have[key] = make(map[string][]byte)
				return kb.ForEach(func(id, v []byte) error {
					have[key][string(id)] = slices.Clone(v[8:])
					return nil
				})
			})
		})
		for key, ids := range want {
			for id, data := range ids {
				if skip[key+"/"+id] {
					continue
				}
				if got, ok := have[key][id]; !ok {
					diff = append(diff, fmt.Sprintf("%s %q is not stored", key, id))
				} else if !bytes.Equal(got, data) {
					diff = append(diff, fmt.Sprintf("%s %q changed without being marked:\n stored %s\n state  %s", key, id, got, data))
				}
			}
		}
		for key, ids := range have {
			for id := range ids {
				if _, ok := want[key][id]; !ok && !skip[key+"/"+id] {
					diff = append(diff, fmt.Sprintf("%s %q is stored but no longer in the state", key, id))
				}
			}
		}
		return nil
	})
	sort.Strings(diff)
	return diff
}
