package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// FileName is the file the store keeps in the data directory.
const FileName = "refserver.db"

// MarkerName is the file written next to FileName when the store is
// created: while it exists, a missing or empty FileName is refused rather
// than started over empty.
const MarkerName = "refserver.db.created"

// markerText is what the marker says to whoever opens it.
const markerText = "An openpay-refserver store was created in this directory (" + FileName + ").\n" +
	"While this file exists, the server refuses to start when " + FileName + " is missing or empty.\n"

// Format is the layout version written in meta; a store of another version
// is refused rather than misread.
const Format = "1"

// ErrUnusable is the error Open returns, wrapped, for a data directory that
// cannot be used: unreadable, corrupted, its store lost, of an unknown
// format, or held by another process.
var ErrUnusable = errors.New("refserver: data directory unusable")

// Kind numbers a kind of record: it indexes the kinds given to Open.
type Kind uint8

// KindSpec describes a kind of record.
type KindSpec struct {
	// Name is its bucket in the owner's bucket.
	Name string
	// Background: work outside requests changes such records too; the
	// store may lag the state for them, and Diff does not compare them.
	Background bool
}

// Ref names a record: its owner, kind and id.
type Ref[O comparable] struct {
	Owner O
	Kind  Kind
	ID    string
}

// Record is a record read for writing: nil Data removes it.
type Record[O comparable] struct {
	Ref[O]
	Data []byte
}

// Place is where an owner's records are stored.
type Place struct {
	// List is the bucket listing the owners of its class ("merchants"),
	// in creation order, and ID its id there.
	List, ID string
	// Bucket is the name of the owner's bucket.
	Bucket string
}

// State is what a Store keeps: the server's state, described to the
// store. O identifies an owner of records (compared with ==); M holds the
// server-wide values, compared with == to tell whether they changed, and
// whose zero value means none is stored.
type State[O, M comparable] interface {
	// Meta returns the server-wide values now.
	Meta() M
	// PutMeta writes to w the values of cur that differ from last.
	PutMeta(w MetaWriter, cur, last M) error
	// Owners returns every owner, in the order Replace writes them (new
	// owners enter their list in that order).
	Owners() []O
	// Has reports whether o is still an owner of the state.
	Has(o O) bool
	// Lock and Unlock take and release o's lock, the one its records are
	// changed and marked under.
	Lock(o O)
	Unlock(o O)
	// Place says where o's records are stored.
	Place(o O) Place
	// Records appends every record of o, encoded, each kind in creation
	// order. The store holds o's lock.
	Records(out []Record[O], o O) []Record[O]
	// Encode returns the stored form of r, nil when it no longer exists.
	// The store holds the lock of r's owner.
	Encode(r Ref[O]) []byte
	// Load puts a stored state back (see Reader); it runs only when the
	// store holds one. An error refuses the directory: Load then leaves
	// nothing of what it put back (nor when it panics, on a page bbolt
	// cannot read, which is such an error too).
	Load(r *Reader[O, M]) error
}

// Store is an open data directory. See the package doc.
type Store[O, M comparable] struct {
	db    *bolt.DB
	path  string
	kinds []KindSpec
	st    State[O, M]

	mu    sync.Mutex // guards what follows, up to afterCommit
	dirty []Ref[O]   // in the order first marked: creation order within a commit
	seen  map[Ref[O]]struct{}
	// marks counts the marks made, done those written: a Commit is done
	// once done reaches the count marks had when it started.
	marks, done uint64
	// flushing: a commit (or Replace, or Diff) is under way; one runs at a
	// time, the others wait on flushed.
	flushing bool
	flushed  *sync.Cond
	// last is what was last written of the server-wide values, so that a
	// commit writes them only when they changed.
	last M

	// afterCommit, set by tests, is called after each commit.
	afterCommit func()
}

// Open opens (creating it when needed) the data directory dir, and loads
// the state it holds through st.Load, reporting whether there was one. An
// error wraps ErrUnusable.
func Open[O, M comparable](dir string, kinds []KindSpec, st State[O, M]) (s *Store[O, M], found bool, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrUnusable, err)
	}
	path := filepath.Join(dir, FileName)
	created, err := checkDir(dir)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s: %v", ErrUnusable, path, err)
	}
	db, err := openBolt(path)
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, false, fmt.Errorf("%w: %s is in use by another process", ErrUnusable, path)
		}
		return nil, false, fmt.Errorf("%w: %s: %v", ErrUnusable, path, err)
	}
	s = &Store[O, M]{db: db, path: path, kinds: kinds, st: st, seen: make(map[Ref[O]]struct{})}
	s.flushed = sync.NewCond(&s.mu)
	if found, err = s.load(); err != nil {
		_ = db.Close()
		return nil, false, fmt.Errorf("%w: %s: %v", ErrUnusable, path, err)
	}
	if !created {
		if err := writeMarker(dir); err != nil {
			_ = db.Close()
			return nil, false, fmt.Errorf("%w: %v", ErrUnusable, err)
		}
	}
	return s, found, nil
}

// checkDir checks the store of dir before bbolt opens it, and reports
// whether dir has the marker of a store created there. A missing or empty
// store file is a new store only in a directory without the marker: with
// it, the store was lost, and starting over empty would hide that. A store
// file with data must check (checkFile).
func checkDir(dir string) (created bool, err error) {
	switch _, err := os.Stat(filepath.Join(dir, MarkerName)); {
	case err == nil:
		created = true
	case !errors.Is(err, fs.ErrNotExist):
		return false, err
	}
	info, err := os.Stat(filepath.Join(dir, FileName))
	switch {
	case errors.Is(err, fs.ErrNotExist) && created:
		return false, fmt.Errorf("the store is missing, though %s says one was created in this directory", MarkerName)
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case info.Size() == 0 && created:
		return false, fmt.Errorf("the store is empty (0 bytes), though %s says one was created in this directory", MarkerName)
	case info.Size() == 0:
		return false, nil // bbolt's creation stopped before writing anything
	}
	return created, checkFile(filepath.Join(dir, FileName))
}

// writeMarker writes the marker of a store created in dir, once the store
// file is on disk, and syncs the directory so that both entries are.
func writeMarker(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, MarkerName), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(markerText)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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

// Close closes the store's file.
func (s *Store[O, M]) Close() error { return s.db.Close() }

// Mark records that the record r changed (was created, modified or
// removed), for the next Commit. The caller holds the lock of r's owner,
// where the change was made (a change of a Background kind may be marked
// without it).
func (s *Store[O, M]) Mark(r Ref[O]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[r]; ok {
		return
	}
	s.seen[r] = struct{}{}
	s.dirty = append(s.dirty, r)
	s.marks++
}

// Commit writes the records marked so far, and the server-wide values when
// they changed, in one transaction; when another commit took the marks, it
// waits for that one. See the package doc.
func (s *Store[O, M]) Commit() error {
	s.mu.Lock()
	target := s.marks
	for {
		if s.done >= target && s.st.Meta() == s.last {
			s.mu.Unlock()
			return nil
		}
		if !s.flushing {
			break
		}
		s.flushed.Wait()
	}
	s.flushing = true
	dirty := s.dirty
	s.dirty = nil
	clear(s.seen)
	upto := s.marks
	s.mu.Unlock()
	recs := make([]Record[O], 0, len(dirty))
	// Marks of one owner are read in one critical section.
	for i := 0; i < len(dirty); {
		o := dirty[i].Owner
		j := i
		for j < len(dirty) && dirty[j].Owner == o {
			j++
		}
		if s.st.Has(o) {
			s.st.Lock(o)
			for ; i < j; i++ {
				recs = append(recs, Record[O]{dirty[i], s.st.Encode(dirty[i])})
			}
			s.st.Unlock(o)
		}
		i = j
	}
	cur := s.st.Meta()
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	err := s.db.Update(func(btx *bolt.Tx) error { return s.write(btx, recs, cur, last) })
	s.flushDone(upto, cur, err, dirty)
	if err != nil {
		return err
	}
	if s.afterCommit != nil {
		s.afterCommit()
	}
	return nil
}

// Replace replaces the stored state with the whole state, wholesale:
// everything stored is removed and every record written again, in one
// transaction. Marks made before it are dropped.
func (s *Store[O, M]) Replace() error {
	s.mu.Lock()
	for s.flushing {
		s.flushed.Wait()
	}
	s.flushing = true
	s.dirty = nil
	clear(s.seen)
	upto := s.marks
	s.mu.Unlock()
	var recs []Record[O]
	for _, o := range s.st.Owners() {
		s.st.Lock(o)
		recs = s.st.Records(recs, o)
		s.st.Unlock(o)
	}
	cur := s.st.Meta()
	err := s.db.Update(func(btx *bolt.Tx) error {
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
		var none M // nothing is stored
		return s.write(btx, recs, cur, none)
	})
	s.flushDone(upto, cur, err, nil)
	return err
}

// flushDone ends a commit: on success what it wrote is done, on failure its
// marks are made again for the next commit; the waiting callers are woken.
func (s *Store[O, M]) flushDone(upto uint64, cur M, err error, dirty []Ref[O]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.done, s.last = upto, cur
	} else {
		for _, r := range dirty {
			if _, ok := s.seen[r]; !ok {
				s.seen[r] = struct{}{}
				s.dirty = append(s.dirty, r)
			}
		}
	}
	s.flushing = false
	s.flushed.Broadcast()
}

// AfterCommit makes every successful Commit call f before it returns, on
// the committing goroutine, holding no lock: tests call Diff there to find
// changes left unmarked. Call it before the store is used.
func (s *Store[O, M]) AfterCommit(f func()) { s.afterCommit = f }
