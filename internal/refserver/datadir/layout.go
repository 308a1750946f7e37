package datadir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Names of the meta bucket and the key it holds the format under.
var (
	bucketMeta = []byte("meta")
	metaFormat = []byte("format")
)

// MetaWriter writes the server-wide values (State.PutMeta) into the meta
// bucket of a commit's transaction.
type MetaWriter struct{ b *bolt.Bucket }

// Put stores value under key. The key "format" is the store's own.
func (w MetaWriter) Put(key string, value []byte) error {
	if key == string(metaFormat) {
		return errors.New("datadir: the meta key format is the store's")
	}
	return w.b.Put([]byte(key), value)
}

// write stores recs in btx, and those of the server-wide values cur that
// differ from last.
func (s *Store[O, M]) write(btx *bolt.Tx, recs []Record[O], cur, last M) error {
	meta, err := btx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(metaFormat, []byte(Format)); err != nil {
		return err
	}
	if err := s.st.PutMeta(MetaWriter{meta}, cur, last); err != nil {
		return err
	}
	var (
		prev  O
		kinds = make([]*bolt.Bucket, len(s.kinds)) // of the current owner
		ob    *bolt.Bucket
	)
	for _, r := range recs {
		if r.Owner != prev || ob == nil {
			prev = r.Owner
			clear(kinds)
			if ob, err = ownerBucket(btx, s.st.Place(r.Owner)); err != nil {
				return err
			}
		}
		b := kinds[r.Kind]
		if b == nil {
			if b, err = ob.CreateBucketIfNotExists([]byte(s.kinds[r.Kind].Name)); err != nil {
				return err
			}
			kinds[r.Kind] = b
		}
		key := []byte(r.ID)
		if r.Data == nil {
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
		val := make([]byte, 8+len(r.Data))
		binary.BigEndian.PutUint64(val, ord)
		copy(val[8:], r.Data)
		if err := b.Put(key, val); err != nil {
			return err
		}
	}
	return nil
}

// ownerBucket returns the owner's bucket, creating it (and entering the
// owner in its list, in creation order) on first use.
func ownerBucket(btx *bolt.Tx, p Place) (*bolt.Bucket, error) {
	if b := btx.Bucket([]byte(p.Bucket)); b != nil {
		return b, nil
	}
	list, err := btx.CreateBucketIfNotExists([]byte(p.List))
	if err != nil {
		return nil, err
	}
	ord, err := list.NextSequence()
	if err != nil {
		return nil, err
	}
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], ord)
	if err := list.Put([]byte(p.ID), v[:]); err != nil {
		return nil, err
	}
	return btx.CreateBucket([]byte(p.Bucket))
}

// load reads the stored state through State.Load, reporting whether there
// was one. Its pages were checked before bbolt opened the file
// (checkFile); a panic of bbolt or a memory fault meanwhile is an error
// here too, never a crash or an empty start.
func (s *Store[O, M]) load() (found bool, err error) {
	defer panicOnFault(&err)()
	err = s.db.View(func(btx *bolt.Tx) error {
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
		if f := string(meta.Get(metaFormat)); f != Format {
			return fmt.Errorf("the store has format %q; this server reads format %q", f, Format)
		}
		if err := s.st.Load(&Reader[O, M]{s: s, tx: btx, meta: meta}); err != nil {
			return err
		}
		found = true
		return nil
	})
	if err != nil {
		return false, err
	}
	if found {
		s.last = s.st.Meta()
	}
	return found, nil
}

// Reader reads a stored state, during State.Load only.
type Reader[O, M comparable] struct {
	s    *Store[O, M]
	tx   *bolt.Tx
	meta *bolt.Bucket
}

// Meta returns the value stored under key by State.PutMeta, nil when none.
func (r *Reader[O, M]) Meta(key string) []byte { return r.meta.Get([]byte(key)) }

// Owners returns the ids of the owners entered in the list bucket list, in
// creation order.
func (r *Reader[O, M]) Owners(list string) []string {
	b := r.tx.Bucket([]byte(list))
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

// Records calls f with the id and the bytes of every stored record of o
// of kind k, in creation order; an error of f stops it, and is returned
// naming the record. The owner's bucket must exist; a kind it has no
// bucket of has no records.
func (r *Reader[O, M]) Records(o O, k Kind, f func(id string, data []byte) error) error {
	name := r.s.st.Place(o).Bucket
	ob := r.tx.Bucket([]byte(name))
	if ob == nil {
		return fmt.Errorf("the bucket of %s is missing", name)
	}
	kind := r.s.kinds[k].Name
	b := ob.Bucket([]byte(kind))
	if b == nil {
		return nil
	}
	type stored struct {
		ord  uint64
		id   string
		data []byte
	}
	var recs []stored
	if err := b.ForEach(func(k, v []byte) error {
		if len(v) < 8 {
			return fmt.Errorf("a record %q is truncated", k)
		}
		recs = append(recs, stored{binary.BigEndian.Uint64(v), string(k), slices.Clone(v[8:])})
		return nil
	}); err != nil {
		return fmt.Errorf("%s %s: %v", name, kind, err)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ord < recs[j].ord })
	for _, rec := range recs {
		if err := f(rec.id, rec.data); err != nil {
			return fmt.Errorf("%s %s %q: %v", name, kind, rec.id, err)
		}
	}
	return nil
}

// Diff compares the store with the whole state encoded afresh and
// describes each difference: a record changed without being marked, or
// one the store holds that the state no longer has. Background kinds and
// records marked but not committed yet are not compared. Tests call it (it
// reads everything).
func (s *Store[O, M]) Diff() []string {
	// No commit runs meanwhile (this one holds the committer's place), and
	// a record marked but not written yet is skipped: it is read under its
	// owner's lock together with the marks, so a change is seen with its
	// mark or not at all.
	s.mu.Lock()
	for s.flushing {
		s.flushed.Wait()
	}
	s.flushing = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.flushing = false
		s.flushed.Broadcast()
		s.mu.Unlock()
	}()
	var recs []Record[O]
	skip := map[string]bool{} // owner bucket/kind/id
	for _, o := range s.st.Owners() {
		s.st.Lock(o)
		s.mu.Lock()
		pending := maps.Clone(s.seen)
		s.mu.Unlock()
		recs = s.st.Records(recs, o)
		bucket := s.st.Place(o).Bucket
		for r := range pending {
			if r.Owner == o {
				skip[bucket+"/"+s.kinds[r.Kind].Name+"/"+r.ID] = true
			}
		}
		s.st.Unlock(o)
	}
	background := map[string]bool{}
	for _, k := range s.kinds {
		background[k.Name] = k.Background
	}
	want := make(map[string]map[string][]byte) // owner bucket/kind -> id -> data
	for _, r := range recs {
		if s.kinds[r.Kind].Background {
			continue
		}
		key := s.st.Place(r.Owner).Bucket + "/" + s.kinds[r.Kind].Name
		if want[key] == nil {
			want[key] = make(map[string][]byte)
		}
		want[key][r.ID] = r.Data
	}
	var diff []string
	_ = s.db.View(func(btx *bolt.Tx) error {
		have := make(map[string]map[string][]byte)
		_ = btx.ForEach(func(name []byte, b *bolt.Bucket) error {
			return b.ForEach(func(kind, _ []byte) error {
				kb := b.Bucket(kind)
				if kb == nil || background[string(kind)] {
					return nil // a list's entry, or a background kind
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
