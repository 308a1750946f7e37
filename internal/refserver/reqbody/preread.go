package reqbody

import (
	"io"
	"net/http"
)

// Body is a request body read whole before the request is answered (see
// [Body.Preread]): what answers the request then reads it from memory and
// never waits on the client.
type Body struct {
	data []byte
	off  int
	// err is what a read returns once data is used up: io.EOF, the error
	// the client's body gave, or an *http.MaxBytesError when the body was
	// longer than the limit.
	err  error
	orig io.ReadCloser
	// lent: data is the caller's storage (Preread's buf).
	lent bool
	// fields is the storage of the body's members when Read or ReadOwn
	// split it (splitLent).
	fields *fieldStore
}

// lentUnread reports whether b's data is storage lent for the request
// that no reading has taken yet, so that its members may be split into
// storage lent too (splitLent).
func (b *Body) lentUnread() bool { return b.lent && b.fields == nil && b.off == 0 }

// Done ends the request's use of b: r's body is its own again, and storage
// lent to Preread is cleared, so that anything that still held a view
// of it would read zeros, never a later request's bytes. b is then empty.
func (b *Body) Done(r *http.Request) {
	if r.Body == b {
		r.Body = b.orig
	}
	if b.lent {
		clear(b.data)
	}
	if b.fields != nil {
		b.fields.release(b.fields.used)
	}
	*b = Body{}
}

// Preread reads r's body, at most limit bytes of it, and puts b in its
// place. A body whose announced length is over the limit is not read at
// all, and one without a length is read to one byte past the limit: b
// then gives the first limit bytes at most and an *http.MaxBytesError, as
// http.MaxBytesReader would, so a handler refuses it with 1009 (Read does)
// without reading on. A body that fails to arrive (the client went away,
// a read deadline) gives what came and then that error. A request without
// a body is left as it is. A body read whole, to its end, is closed.
//
// A body whose announced length fits in buf's capacity is read into buf
// (nil: none is): storage the caller lends for the request, and takes back
// with [Body.Done]. What is decoded from the body must then not refer to
// its bytes after the request: the strings of the decoded values are
// copies (only member names are views of the body, and those of
// [Fields.Borrow], and nothing keeps them past the request).
func (b *Body) Preread(r *http.Request, limit int64, buf []byte) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	*b = Body{orig: r.Body, err: io.EOF}
	switch n := r.ContentLength; {
	case n > limit:
		b.err = &http.MaxBytesError{Limit: limit}
	case n > 0:
		if n <= int64(cap(buf)) {
			b.data, b.lent = buf[:n], true
		} else {
			b.data = make([]byte, n)
		}
		var got int
		got, b.err = io.ReadFull(r.Body, b.data)
		b.data = b.data[:got]
		if b.err == nil {
			b.err = io.EOF
			b.closeRead()
		}
	case n < 0: // no announced length (chunked)
		data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		b.data = data
		if err != nil {
			b.err = err
		} else if int64(len(data)) > limit {
			b.data, b.err = data[:limit], &http.MaxBytesError{Limit: limit}
		} else {
			b.closeRead()
		}
	}
	r.Body = b
}

// closeRead closes the client's body once it is read whole, to its end:
// net/http, which reads a body's rest before it answers, then has nothing
// to look for (it would otherwise read the body again to its end, with a
// reader and a pooled buffer of its own, on every request with a body).
// Closing reads nothing more: the body's end was seen.
func (b *Body) closeRead() { _ = b.orig.Close() }

// Read reads the body from memory.
func (b *Body) Read(p []byte) (int, error) {
	if b.off >= len(b.data) {
		return 0, b.err
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

// Close closes the client's body.
func (b *Body) Close() error { return b.orig.Close() }

// rest returns what is left to read of b and the error that ends it (nil
// for the end of the body).
func (b *Body) rest() ([]byte, error) {
	data := b.data[b.off:]
	b.off = len(b.data)
	if b.err == io.EOF {
		return data, nil
	}
	return data, b.err
}
