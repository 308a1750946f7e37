package answer

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/openpay-go/openpay"
)

// InternalError is the description of the gateway's 500 answer, which
// Write gives when v cannot be encoded.
const InternalError = "Internal server error"

// Write encodes v (by its generated encoder when it has one, see [Append],
// else by encoding/json), with the keys the gateway always sends
// ([AddWireKeys]), and writes it with the given status, Content-Type
// application/json and X-Content-Type-Options nosniff. Encoding is done
// before anything is written, so a value that cannot be encoded still gets
// a proper error object.
func Write(w http.ResponseWriter, status int, v any) {
	ab := answerBuffers.Get().(*answerBuffer)
	defer ab.release()
	buf := &ab.enc
	// The generated encoders write the keys of the plans themselves.
	data, ok, err := Append(ab.gen[:0], v)
	if ok {
		if cap(data) > cap(ab.gen) {
			ab.gen = data // keep the larger storage for the next answer
		}
	} else {
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err = enc.Encode(v); err == nil {
			data = AddWireKeysInto(ab.keys, buf.Bytes(), v)
			if cap(data) > cap(ab.keys) && &data[0] != &buf.Bytes()[0] {
				ab.keys = data // keep the larger storage for the next answer
			}
		}
	}
	if err != nil {
		buf.Reset()
		status = http.StatusInternalServerError
		_ = json.NewEncoder(buf).Encode(ErrorResponse{
			Category: openpay.CategoryInternal, Description: InternalError,
			Code: openpay.ErrInternalServer, HTTPCode: http.StatusInternalServerError,
		})
		data = buf.Bytes()
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["X-Content-Type-Options"] = NoSniff // a browser never reads an answer as another type
	// Without a length, an answer larger than net/http's buffer goes out
	// chunked and clients cannot size their read. A smaller one gets its
	// length from net/http (documented at ResponseWriter.Write), which spares
	// the header an entry.
	if len(data) >= smallAnswer {
		h["Content-Length"] = []string{strconv.Itoa(len(data))} // the key in canonical form: Set would check it
	}
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// WriteRaw writes data as the answer with the given status and
// Content-Type (the barcode images), with X-Content-Type-Options nosniff
// and Cache-Control no-store.
func WriteRaw(w http.ResponseWriter, status int, contentType string, data []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h["X-Content-Type-Options"] = NoSniff
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// smallAnswer is the size below which net/http sets an answer's
// Content-Length itself: its buffer before chunking is 2048 bytes.
const smallAnswer = 2048

// jsonContentType is the Content-Type of JSON answers, one shared value so
// that every answer does not allocate its own (net/http only reads it);
// NoSniff is their X-Content-Type-Options, which the server's raw answers
// (images) carry too.
var (
	jsonContentType = []string{"application/json"}
	NoSniff         = []string{"nosniff"}
)

// answerBuffer is Write's storage, reused from answer to answer so that
// a large answer (a page of 100 transactions) does not grow fresh buffers
// every time: the encoding and the copy with the added keys.
type answerBuffer struct {
	enc  bytes.Buffer // encoding/json's output
	gen  []byte       // the generated encoders' output
	keys []byte
}

// maxPooledAnswer is the largest storage kept for reuse; a rare huge answer
// does not pin its memory.
const maxPooledAnswer = 1 << 20

var answerBuffers = sync.Pool{New: func() any { return new(answerBuffer) }}

// release returns ab to the pool, unless it grew past maxPooledAnswer.
func (ab *answerBuffer) release() {
	if ab.enc.Cap() > maxPooledAnswer || cap(ab.gen) > maxPooledAnswer || cap(ab.keys) > maxPooledAnswer {
		return
	}
	ab.enc.Reset()
	answerBuffers.Put(ab)
}
