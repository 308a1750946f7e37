package datadir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openpay-go/openpay/internal/refserver/datadir/datadirtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// The kinds of the fake state.
const (
	kindNote Kind = iota
	kindTag
	numKinds
)

var fakeKinds = []KindSpec{kindNote: {Name: "notes"}, kindTag: {Name: "tags", Background: true}}

// fakeOwner holds records of each kind, by id, in creation order.
type fakeOwner struct {
	mu   sync.Mutex
	id   string
	ids  [numKinds][]string
	data [numKinds]map[string]string
}

type fakeMeta struct{ clock string }

// fakeState is a State of owners holding strings.
type fakeState struct {
	mu     sync.Mutex
	owners []*fakeOwner
	clock  string // guarded by mu
	store  *Store[*fakeOwner, fakeMeta]
}

func (f *fakeState) Meta() fakeMeta {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fakeMeta{f.clock}
}

func (f *fakeState) PutMeta(w MetaWriter, cur, last fakeMeta) error {
	if cur.clock != last.clock {
		return w.Put("clock", []byte(cur.clock))
	}
	return nil
}

func (f *fakeState) Owners() []*fakeOwner {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.owners)
}

func (f *fakeState) Has(o *fakeOwner) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Contains(f.owners, o)
}

func (f *fakeState) Lock(o *fakeOwner)   { o.mu.Lock() }
func (f *fakeState) Unlock(o *fakeOwner) { o.mu.Unlock() }

func (f *fakeState) Place(o *fakeOwner) Place {
	return Place{List: "owners", ID: o.id, Bucket: "o:" + o.id}
}

func (f *fakeState) Records(out []Record[*fakeOwner], o *fakeOwner) []Record[*fakeOwner] {
	for k := range numKinds {
		for _, id := range o.ids[k] {
			r := Ref[*fakeOwner]{o, k, id}
			out = append(out, Record[*fakeOwner]{r, f.Encode(r)})
		}
	}
	return out
}

func (f *fakeState) Encode(r Ref[*fakeOwner]) []byte {
	v, ok := r.Owner.data[r.Kind][r.ID]
	if !ok {
		return nil
	}
	return []byte(v)
}

func (f *fakeState) Load(r *Reader[*fakeOwner, fakeMeta]) error {
	f.clock = string(r.Meta("clock"))
	for _, id := range r.Owners("owners") {
		o := f.newOwner(id)
		for k := range numKinds {
			if err := r.Records(o, k, func(id string, data []byte) error {
				if string(data) == "refuse" {
					return fmt.Errorf("refused")
				}
				o.put(k, id, string(data))
				return nil
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fakeState) newOwner(id string) *fakeOwner {
	o := &fakeOwner{id: id}
	for k := range numKinds {
		o.data[k] = map[string]string{}
	}
	f.mu.Lock()
	f.owners = append(f.owners, o)
	f.mu.Unlock()
	return o
}

// put sets a record. The caller holds o.mu.
func (o *fakeOwner) put(k Kind, id, v string) {
	if _, ok := o.data[k][id]; !ok {
		o.ids[k] = append(o.ids[k], id)
	}
	o.data[k][id] = v
}

// set sets a record and marks it, as the server changes its state.
func (f *fakeState) set(o *fakeOwner, k Kind, id, v string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.put(k, id, v)
	f.store.Mark(Ref[*fakeOwner]{o, k, id})
}

// remove removes a record and marks it.
func (f *fakeState) remove(o *fakeOwner, k Kind, id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.data[k], id)
	o.ids[k] = slices.DeleteFunc(o.ids[k], func(x string) bool { return x == id })
	f.store.Mark(Ref[*fakeOwner]{o, k, id})
}

// dump lists every record of every owner, in order.
func (f *fakeState) dump() []string {
	var out []string
	for _, o := range f.Owners() {
		for _, r := range f.Records(nil, o) {
			out = append(out, fmt.Sprintf("%s/%d/%s=%s", o.id, r.Kind, r.ID, r.Data))
		}
	}
	return out
}

// open opens dir with a fresh fake state.
func open(t *testing.T, dir string) (*fakeState, bool) {
	t.Helper()
	f := &fakeState{}
	s, found, err := Open(dir, fakeKinds, State[*fakeOwner, fakeMeta](f))
	require.NoError(t, err)
	f.store = s
	t.Cleanup(func() { _ = s.Close() })
	return f, found
}

// A state written, changed record by record and reopened comes back the
// same, lists in creation order, with its server-wide values.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, found := open(t, dir)
	require.False(t, found)
	a := f.newOwner("a")
	a.put(kindNote, "n1", "first")
	require.NoError(t, f.store.Replace())
	b := f.newOwner("b")
	for i := range 20 {
		f.set(b, kindNote, fmt.Sprintf("z%02d", 20-i), fmt.Sprint(i)) // ids in reverse order of creation
	}
	f.set(a, kindTag, "t", "tag")
	f.set(a, kindNote, "n1", "changed")
	f.set(a, kindNote, "n2", "gone")
	f.remove(a, kindNote, "n2")
	f.mu.Lock()
	f.clock = "noon"
	f.mu.Unlock()
	require.NoError(t, f.store.Commit())
	assert.Empty(t, f.store.Diff())
	want := f.dump()
	require.NoError(t, f.store.Close())

	again, found := open(t, dir)
	require.True(t, found)
	assert.Equal(t, want, again.dump())
	assert.Equal(t, "noon", again.clock)
}

// Diff finds a change left unmarked and a record stored that the state no
// longer has; background kinds and records marked but not committed are
// not compared.
func TestDiffFindsUnmarkedChanges(t *testing.T) {
	t.Parallel()
	f, _ := open(t, t.TempDir())
	o := f.newOwner("o")
	o.put(kindNote, "kept", "1")
	o.put(kindNote, "dropped", "1")
	require.NoError(t, f.store.Replace())
	assert.Empty(t, f.store.Diff())

	o.put(kindNote, "kept", "2")
	delete(o.data[kindNote], "dropped")
	o.ids[kindNote] = []string{"kept"}
	o.put(kindTag, "bg", "x")
	diff := f.store.Diff()
	require.Len(t, diff, 2)
	assert.Contains(t, diff[0], `o:o/notes "dropped" is stored but no longer in the state`)
	assert.Contains(t, diff[1], `o:o/notes "kept" changed without being marked`)

	f.set(o, kindNote, "kept", "3")
	f.remove(o, kindNote, "dropped")
	assert.Len(t, f.store.Diff(), 0, "marked, not committed yet: not compared")
	require.NoError(t, f.store.Commit())
	assert.Empty(t, f.store.Diff())
}

// Commits from many goroutines at once group, and every change is stored
// when its Commit returns.
func TestConcurrentCommits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _ := open(t, dir)
	owners := []*fakeOwner{f.newOwner("a"), f.newOwner("b")}
	require.NoError(t, f.store.Replace())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				id := fmt.Sprintf("g%d-%02d", g, i)
				f.set(owners[i%2], kindNote, id, id)
				assert.NoError(t, f.store.Commit())
				o := owners[i%2]
				o.mu.Lock()
				_, ok := o.data[kindNote][id]
				o.mu.Unlock()
				assert.True(t, ok)
			}
		})
	}
	wg.Wait()
	assert.Empty(t, f.store.Diff())
	want := f.dump()
	require.NoError(t, f.store.Close())
	again, _ := open(t, dir)
	assert.Equal(t, want, again.dump())
}

// An owner the state no longer has is skipped: its marks do not write.
func TestCommitSkipsReplacedOwner(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _ := open(t, dir)
	old := f.newOwner("a")
	require.NoError(t, f.store.Replace())
	f.set(old, kindNote, "stale", "x")
	f.mu.Lock()
	f.owners = nil
	f.mu.Unlock()
	successor := f.newOwner("a")
	f.set(successor, kindNote, "fresh", "y")
	require.NoError(t, f.store.Commit())
	require.NoError(t, f.store.Close())
	again, _ := open(t, dir)
	assert.Equal(t, []string{"a/0/fresh=y"}, again.dump())
}

// A data directory that cannot be used is an error wrapping ErrUnusable,
// never an empty start.
func TestUnusable(t *testing.T) {
	t.Parallel()
	// saved stores one record holding v.
	saved := func(t *testing.T, v string) string {
		dir := t.TempDir()
		f, _ := open(t, dir)
		f.newOwner("a").put(kindNote, "n", v)
		require.NoError(t, f.store.Replace())
		require.NoError(t, f.store.Close())
		return dir
	}
	edit := func(t *testing.T, dir string, fn func(*bolt.Tx) error) {
		db, err := bolt.Open(filepath.Join(dir, FileName), 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, db.Update(fn))
		require.NoError(t, db.Close())
	}
	cases := []struct {
		name  string
		dir   func(t *testing.T) string
		wants string
	}{
		{"garbage file", func(t *testing.T) string {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(strings.Repeat("not a store ", 2000)), 0o600))
			return dir
		}, FileName},
		{"truncated store", func(t *testing.T) string {
			dir := saved(t, "v")
			path := filepath.Join(dir, FileName)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data[:len(data)/3], 0o600))
			return dir
		}, FileName},
		{"a file, not a directory", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "file")
			require.NoError(t, os.WriteFile(path, []byte("x"), 0o600))
			return path
		}, "file"},
		{"held by another store", func(t *testing.T) string {
			dir := saved(t, "v")
			open(t, dir)
			return dir
		}, "in use by another process"},
		{"another format", func(t *testing.T) string {
			dir := saved(t, "v")
			edit(t, dir, func(btx *bolt.Tx) error { return btx.Bucket(bucketMeta).Put(metaFormat, []byte("0")) })
			return dir
		}, `format "0"`},
		{"data without a format record", func(t *testing.T) string {
			dir := saved(t, "v")
			edit(t, dir, func(btx *bolt.Tx) error { return btx.DeleteBucket(bucketMeta) })
			return dir
		}, "no format record"},
		{"a record the state refuses", func(t *testing.T) string { return saved(t, "refuse") }, `o:a notes "n": refused`},
		{"store missing where one was created", func(t *testing.T) string {
			dir := saved(t, "v")
			require.NoError(t, os.Remove(filepath.Join(dir, FileName)))
			return dir
		}, "the store is missing, though " + MarkerName + " says one was created"},
		{"store empty where one was created", func(t *testing.T) string {
			dir := saved(t, "v")
			require.NoError(t, os.Truncate(filepath.Join(dir, FileName), 0))
			return dir
		}, "the store is empty (0 bytes), though " + MarkerName + " says one was created"},
		{"a key out of order", func(t *testing.T) string {
			dir := saved(t, "v")
			// The root's keys are "meta", "o:a", "owners": renamed
			// "p:a", the owner's bucket comes after "owners".
			replaceOnce(t, filepath.Join(dir, FileName), "o:a", "p:a")
			return dir
		}, "does not come after"},
	}
	for page := range 2 {
		for _, fill := range []string{"zeros", "random bytes"} {
			cases = append(cases, struct {
				name  string
				dir   func(t *testing.T) string
				wants string
			}{fmt.Sprintf("meta page %d overwritten with %s", page, fill), func(t *testing.T) string {
				dir := saved(t, "v")
				require.NoError(t, datadirtest.OverwritePage(filepath.Join(dir, FileName), page, fill == "random bytes"))
				return dir
			}, fmt.Sprintf("meta page %d is damaged", page)})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dir(t)
			_, found, err := Open(dir, fakeKinds, State[*fakeOwner, fakeMeta](&fakeState{}))
			require.ErrorIs(t, err, ErrUnusable)
			assert.Contains(t, err.Error(), c.wants)
			assert.False(t, found)
		})
	}
}

// The meta key of the format is the store's own.
func TestMetaWriterKeepsFormat(t *testing.T) {
	t.Parallel()
	f, _ := open(t, t.TempDir())
	require.NoError(t, f.store.db.Update(func(btx *bolt.Tx) error {
		b, err := btx.CreateBucketIfNotExists(bucketMeta)
		require.NoError(t, err)
		assert.Error(t, MetaWriter{b}.Put("format", []byte("2")))
		return nil
	}))
}

// replaceOnce replaces the one occurrence of old in the file at path by
// new, of the same length.
func replaceOnce(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, 1, bytes.Count(data, []byte(old)), "%q in the store", old)
	require.NoError(t, os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o600))
}

// A new directory, and one whose store file is empty and that has no
// marker (bbolt's creation stopped before it wrote anything), start a new
// store and get the marker; a store saved before markers existed gets it
// at its next open.
func TestNewStoreWritesMarker(t *testing.T) {
	t.Parallel()
	fresh := filepath.Join(t.TempDir(), "data")
	emptyFile := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(emptyFile, FileName), nil, 0o600))
	for _, dir := range []string{fresh, emptyFile} {
		f, found := open(t, dir)
		assert.False(t, found)
		assert.FileExists(t, filepath.Join(dir, MarkerName))
		require.NoError(t, f.store.Close())
	}

	f, _ := open(t, fresh)
	f.newOwner("a").put(kindNote, "n", "v")
	require.NoError(t, f.store.Replace())
	require.NoError(t, f.store.Close())
	require.NoError(t, os.Remove(filepath.Join(fresh, MarkerName)))
	f, found := open(t, fresh)
	assert.True(t, found)
	assert.FileExists(t, filepath.Join(fresh, MarkerName))
	require.NoError(t, f.store.Close())
}

// Every 8 bytes of the start of each page of a saved store (its header,
// its elements, its first keys and values), damaged in turn, never panic
// the process: Open either loads the store or refuses it.
func TestDamageNeverPanics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _ := open(t, dir)
	for i := range 3 {
		o := f.newOwner(fmt.Sprint("owner", i))
		for j := range 40 {
			o.put(kindNote, fmt.Sprintf("note%02d", j), strings.Repeat("x", 100))
		}
		o.put(kindTag, "t", "inline")
	}
	require.NoError(t, f.store.Replace())
	require.NoError(t, f.store.Close())
	path := filepath.Join(dir, FileName)
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	damaged := t.TempDir()
	ps := os.Getpagesize()
	for page := 0; page < len(good)/ps; page++ {
		for off := page * ps; off < page*ps+512; off += 8 {
			data := slices.Clone(good)
			for i := off; i < off+8; i++ {
				data[i] ^= 0xA5
			}
			require.NoError(t, os.WriteFile(filepath.Join(damaged, FileName), data, 0o600))
			s, _, err := Open(damaged, fakeKinds, State[*fakeOwner, fakeMeta](&fakeState{}))
			if err == nil {
				require.NoError(t, s.Close())
				continue
			}
			require.ErrorIs(t, err, ErrUnusable, "bytes %d-%d", off, off+8)
		}
	}
}
