package refserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/openpay-go/openpay/internal/refserver/datadir"
)

// Persistence: the server's state kept in a data directory across restarts
// (openpay-refserver --data DIR). Package datadir is the engine (bbolt, the
// marks, group commit, the layout; its package doc says how); this file is
// the server's side of it, and persist_kinds.go the schema: the kinds of
// record and what becomes of every field of the state.
//
// Every record of the state belongs to an owner (a merchant or a group) and
// is one of the kinds of persist_kinds.go, keyed by its id. The code that
// changes a record marks it (merchant.mark, group.mark), under the owner's
// lock, and ServeHTTP, after the handler returns and before the answer is
// written, commits (commitData): each marked record is read under its
// owner's lock and written, with the fake clock and the seeded id
// generator's state, in one bbolt transaction. A change left unmarked is
// caught by the tests (Store.Diff, run after each request by
// TestDataMarksEveryChange and by every server test run again under
// TestWithDataDir, bothways_test.go: see checkData). Pending webhook deliveries are records
// too; the delivery queue reports them changed (markDelivery), and the
// next commit writes that (after a crash a delivery may go out twice, as
// the gateway's may). Without a data directory (s.data nil) marking is one
// nil check and nothing else runs.
//
// Code that changes state outside a route's handler (the server's Go
// methods, the hosted pages, which call them) ends with the same commit:
// `defer s.durable(&err)()` at the start of an exported method that
// changes state.

// ErrDataDir is the error OpenData returns, wrapped, for a data directory
// that cannot be used: unreadable, corrupted, its store lost, of an unknown
// format, or held by another process. The server never starts empty over such a directory.
var ErrDataDir = datadir.ErrUnusable

// The engine's types as the server instantiates them: concrete, on the
// hot path (every change marks).
type (
	dataStore  = datadir.Store[owner, metaValues]
	dataReader = datadir.Reader[owner, metaValues]
	dirtyRef   = datadir.Ref[owner]
	dataRecord = datadir.Record[owner]
)

// owner is the merchant or the group a record belongs to (one of the two
// is set). Two owners are the same when they are the same object: a
// merchant that a reset replaced is another owner than its successor.
type owner struct {
	m *merchant
	g *group
}

// mark records that the merchant's record of kind k and id changed (was
// created, modified or removed). The caller holds m.mu.
func (m *merchant) mark(k recKind, id string) {
	if m.data != nil {
		m.data.Mark(dirtyRef{Owner: owner{m: m}, Kind: k, ID: id})
	}
}

// mark records that the group's record of kind k and id changed. The
// caller holds g.mu.
func (g *group) mark(k recKind, id string) {
	if g.data != nil {
		g.data.Mark(dirtyRef{Owner: owner{g: g}, Kind: k, ID: id})
	}
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
	kinds := make([]datadir.KindSpec, len(recKinds))
	for k, rk := range recKinds {
		kinds[k] = datadir.KindSpec{Name: rk.name, Background: rk.background}
	}
	d, restored, err := datadir.Open(dir, kinds, (*dataState)(s))
	if err != nil {
		return false, err
	}
	s.data = d
	if restored {
		s.restored.Store(true)
		s.attachData()
		s.rebaseStoredURLs()
		s.deliveries.Resume()
	}
	if closeWithServer {
		s.onClose(func() { _ = d.Close() })
	}
	return restored, nil
}

// SaveData replaces the stored state with the server's current state,
// wholesale: everything in the store is removed and every record written
// again, in one transaction; persistence of each request then goes on (it
// starts here after an OpenData that restored nothing). It is what a reset
// of the whole server calls after replacing the in-memory state. Without
// a data directory it does nothing.
func (s *Server) SaveData() error {
	if s.data == nil {
		return nil
	}
	s.attachData()
	return s.data.Replace()
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

// commitData writes the records marked since the last commit. ServeHTTP
// calls it after every handler, before the answer is written; without a
// data directory it returns at once.
func (s *Server) commitData() error {
	if s.data == nil {
		return nil
	}
	return s.data.Commit()
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
	if s.data == nil {
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

// Keys of the server-wide values in the store's meta bucket.
const (
	metaClock    = "clock"
	metaIDs      = "ids"
	metaReserved = "reserved"
)

// dataState is the server as package datadir sees it: its owners, their
// records and its server-wide values (datadir.State).
type dataState Server

// Meta returns the server's current metaValues.
func (d *dataState) Meta() metaValues {
	s := (*Server)(d)
	var v metaValues
	if fc, ok := s.clock.(*FakeClock); ok {
		b, _ := fc.Now().MarshalText()
		v.clock = string(b)
	}
	v.ids = string(s.ids.State())
	v.reserved = s.ids.ReservedCount()
	return v
}

// PutMeta writes the values of cur that differ from last.
func (d *dataState) PutMeta(w datadir.MetaWriter, cur, last metaValues) error {
	if cur.clock != last.clock && cur.clock != "" {
		if err := w.Put(metaClock, []byte(cur.clock)); err != nil {
			return err
		}
	}
	if cur.ids != last.ids && cur.ids != "" {
		if err := w.Put(metaIDs, []byte(cur.ids)); err != nil {
			return err
		}
	}
	if cur.reserved != last.reserved {
		data, err := json.Marshal(d.ids.Reserved())
		if err != nil {
			return err
		}
		if err := w.Put(metaReserved, data); err != nil {
			return err
		}
	}
	return nil
}

// Owners returns the merchants in creation order, then the groups in id
// order.
func (d *dataState) Owners() []owner {
	s := (*Server)(d)
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

// Has reports whether o is still one of the server's merchants or groups.
func (d *dataState) Has(o owner) bool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if o.m != nil {
		return d.merchants[o.m.id] == o.m
	}
	return d.groups[o.g.id] == o.g
}

// Lock takes the owner's lock.
func (d *dataState) Lock(o owner) {
	if o.m != nil {
		o.m.mu.Lock()
	} else {
		o.g.mu.Lock()
	}
}

// Unlock releases the owner's lock.
func (d *dataState) Unlock(o owner) {
	if o.m != nil {
		o.m.mu.Unlock()
	} else {
		o.g.mu.Unlock()
	}
}

// Place returns where the owner's records are: "m:" or "g:" and its id,
// entered in the list "merchants" or "groups".
func (d *dataState) Place(o owner) datadir.Place {
	if o.m != nil {
		return datadir.Place{List: "merchants", ID: o.m.id, Bucket: "m:" + o.m.id}
	}
	return datadir.Place{List: "groups", ID: o.g.id, Bucket: "g:" + o.g.id}
}

// Records appends every record of o, encoded, kind by kind in creation
// order. The caller holds o's lock.
func (d *dataState) Records(out []dataRecord, o owner) []dataRecord {
	for k := range recKinds {
		rk := &recKinds[k]
		if (o.m != nil) != rk.merchant {
			continue
		}
		rk.each((*Server)(d), o, func(id string) {
			r := dirtyRef{Owner: o, Kind: recKind(k), ID: id}
			out = append(out, dataRecord{Ref: r, Data: d.Encode(r)})
		})
	}
	return out
}

// Encode returns the record's stored form, nil when it no longer exists.
// The caller holds the owner's lock.
func (d *dataState) Encode(r dirtyRef) []byte {
	v, ok := recKinds[r.Kind].get((*Server)(d), r.Owner, r.ID)
	if !ok {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		// The persisted forms are plain structs of strings, numbers and
		// times: this cannot happen; were it to, it must not pass silently.
		panic(fmt.Sprintf("refserver: record %s %q cannot be encoded: %v", recKinds[r.Kind].name, r.ID, err))
	}
	return data
}

// Load reads a stored state into the server, which must be empty: the
// server-wide values, then the owners and their records, kind by kind in
// the order of recKinds. When it fails (or panics, on a page bbolt cannot
// read), nothing half-loaded stays behind.
func (d *dataState) Load(r *dataReader) error {
	s := (*Server)(d)
	s.mu.RLock()
	busy := len(s.merchants) > 0 || len(s.groups) > 0
	s.mu.RUnlock()
	if busy {
		return errors.New("the server already has merchants: a stored state loads into an empty server only")
	}
	loaded := false
	defer func() {
		if !loaded {
			s.mu.Lock()
			clear(s.merchants)
			clear(s.groups)
			s.merchantList = nil
			s.mu.Unlock()
		}
		s.merchantsRO.Store(nil) // after the load, or its undoing
	}()
	if err := s.loadMeta(r); err != nil {
		return err
	}
	// Merchants before groups: a group names its merchants, and
	// subscriptions of a group's customers name their group, so groups
	// load bare first and fill in after.
	groups := r.Owners("groups")
	for _, id := range groups {
		g := &group{id: id, merchants: make(map[string]bool), cards: newCardKeys(), customers: newCustomerSet()}
		g.customers.own = owner{g: g}
		s.groups[id] = g
	}
	for _, id := range r.Owners("merchants") {
		m := newMerchant(MerchantConfig{ID: id}, time.Time{})
		s.merchants[id] = m
		s.merchantList = append(s.merchantList, id)
	}
	for _, id := range groups {
		if err := s.loadOwner(r, owner{g: s.groups[id]}); err != nil {
			return err
		}
	}
	for _, id := range s.merchantList {
		if err := s.loadOwner(r, owner{m: s.merchants[id]}); err != nil {
			return err
		}
	}
	loaded = true
	return nil
}

// loadMeta restores the clock, the id generator and the reserved ids.
func (s *Server) loadMeta(r *dataReader) error {
	if c := r.Meta(metaClock); c != nil {
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
	if st := r.Meta(metaIDs); st != nil {
		if err := s.ids.Restore(st); err != nil {
			return fmt.Errorf("the id generator: %v", err)
		}
	}
	if res := r.Meta(metaReserved); res != nil {
		var ids []string
		if err := json.Unmarshal(res, &ids); err != nil {
			return fmt.Errorf("the reserved ids: %v", err)
		}
		s.ids.Reserve(ids)
	}
	return nil
}

// loadOwner reads an owner's records, kind by kind in the order of
// recKinds, each kind in creation order.
func (s *Server) loadOwner(r *dataReader, o owner) error {
	for k := range recKinds {
		rk := &recKinds[k]
		if (o.m != nil) != rk.merchant {
			continue
		}
		if err := r.Records(o, recKind(k), func(id string, data []byte) error {
			return rk.load(s, o, id, data)
		}); err != nil {
			return err
		}
	}
	return nil
}
