// Package datadir keeps the reference server's state in a data directory
// across restarts (openpay-refserver --data DIR): the bbolt engine under
// the server's persistence. It knows nothing of what the records mean: the
// server describes its state through a [State] (its owners, their records
// encoded, the server-wide values) and the package stores it.
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
//	st, found, err := datadir.Open(dir, kinds, state) // found: the state was loaded (State.Load)
//	st.Replace()                                      // a fresh state, or a reset: written wholesale
//	...
//	st.Mark(datadir.Ref[O]{Owner: o, Kind: k, ID: id}) // under o's lock, where the record changes
//	err = st.Commit()                                 // after the request's handler, before its answer
//
// Contract:
//   - [Open] creates the directory and the file [FileName] when needed and
//     loads what the file holds through State.Load. A directory that cannot
//     be used gives an error wrapping [ErrUnusable], never an empty start
//     and never a panic: unreadable; a file bbolt cannot read or whose
//     pages do not check; data without a format record; another [Format];
//     held by another process (one second's wait); or a missing or empty
//     file where a store was created (below).
//   - Before bbolt opens the file, Open checks it with code of its own
//     (check.go): both meta pages (magic, version, page size, checksum,
//     page header), then every page reachable from the current one (in
//     bounds, of its type, reached once, keys in order, inline buckets)
//     and the freelist page when there is one: what bbolt's checker finds.
//     bbolt's checker cannot be used for it: it walks the memory map in a
//     goroutine of its own (Tx.Check), and bbolt.Open rebuilds the
//     freelist with a walk whose findings panic another goroutine, so a
//     damaged file would kill the process where no recover reaches. A
//     fault of the memory map or a panic of bbolt in the opening goroutine
//     after the check is an error too.
//   - One damaged meta page is refused, though bbolt would open the file
//     from the other: the damaged page may be the newer, and the other then
//     lacks the last commit, which the server answered. A crash cannot tear
//     a meta page (a few dozen bytes written in one piece, synced before
//     the commit returns), so a damaged one is damage to report.
//   - A store created in a directory leaves the marker [MarkerName] next
//     to it (written and synced once the store file is). Where the marker
//     is, a missing or empty (0 bytes) store file is refused: the store
//     was lost, and starting over empty would hide it. Without the marker
//     (a new directory, or bbolt's creation stopped before writing) a new
//     store starts; a directory whose store predates the marker gets it at
//     its next open.
//   - Every record belongs to an owner and is of a [Kind], keyed by its id
//     ([Ref]). Code that changes a record marks it ([Store.Mark]); [Store.Commit]
//     reads each marked record under its owner's lock (State.Encode: nil
//     when the record no longer exists, which removes it) and writes them,
//     together with the server-wide values when they changed (State.Meta,
//     State.PutMeta), in ONE bbolt transaction. So what a request changed
//     is on disk when Commit returns, and a commit costs the records marked,
//     whatever the size of the store. Marking a record that did not change
//     costs a write, never a wrong state; a change left unmarked is what
//     [Store.Diff] finds.
//   - Commits are grouped: one runs at a time; a Commit takes the marks of
//     every caller that has marked meanwhile, and a Commit whose marks
//     another took waits for that one to be written and returns. Commits
//     land in the order of the values they read. A commit that fails keeps
//     its marks for the next.
//   - An owner the State no longer has (State.Has false: a reset replaced
//     it) is skipped by Commit: its records must not overwrite its
//     successor's. Owners are compared with ==, so a successor with the
//     same id is another owner.
//   - [Store.Replace] writes the whole state (State.Owners, State.Records)
//     in place of everything stored, in one transaction, and drops the
//     marks made before it.
//   - Kinds marked Background in [KindSpec] change outside requests too
//     (the server's webhook deliveries): the store may lag the state for
//     them until the next commit, and Diff does not compare them.
//
// Layout (format 1): bucket "meta" (the key "format" and the State's keys),
// one bucket per list of owners (State.Place: "merchants", "groups") holding
// their ids in creation order, and one bucket per owner holding one bucket
// per kind. A value is an 8-byte creation ordinal (the bucket's sequence,
// kept when a record is rewritten) followed by the record's bytes: a load
// reads each kind in creation order, so lists keep their order.
//
// Locks. Every method of Store is safe for concurrent use. Mark is called
// under the owner's lock and takes the store's lock; so the store calls
// State.Lock only while it does not hold its own lock, and State.Encode and
// State.Records only between State.Lock and State.Unlock. State.Meta and
// State.PutMeta are called with the store's lock held: they must not mark
// or take a lock held while marking. State.Load runs inside Open, before
// the store is returned: it must not mark.
//
// Hot path: Mark runs on every change and Commit on every request, so
// [Store] is generic over the State's owner and server-wide values, which
// stay concrete types (no interface conversion, no allocation on Mark
// beyond its list's growth).
package datadir
