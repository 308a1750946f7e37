package refserver

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpay-go/openpay"
)

// Faults: failures a test arms from outside, so that a client's handling of
// them can be tried against a server that otherwise behaves. A fault names
// a method and a path, either a route pattern of the API
// (/v1/{merchant_id}/charges: every merchant) or a concrete path
// (/v1/m123.../charges: that merchant only), and how many requests it
// takes; each matching request, from the first one that arrives, fails its
// way and counts one, and after the last one the fault is gone. When
// several faults match, the one armed first applies. A fault acts before
// authentication, as a failing gateway front would, on any request to the
// API; the server's own controls (/_simulate/..., /_health) are never
// failed.
//
//	POST /_simulate/faults  {"method": "POST", "path": "/v1/{merchant_id}/charges", "count": 1, <one kind>}  201, the fault with its id
//	GET  /_simulate/faults                                                                                   the armed faults, "count" what is left
//	DELETE /_simulate/faults                                                                                 204, all disarmed
//
// The kinds, exactly one per fault:
//
//	"error_code": 1004      the gateway's error object with that code and its status and category (1000: 500
//	                        internal, 1004: 503 internal, 1007: 402 gateway; any documented code), optional "description"
//	"delay_ms": 2000        the request waits that long (at most maxFaultDelay), then is answered as usual;
//	                        a client that gives up meanwhile does not stop it
//	"drop": "before"        the connection is closed before the server does anything: no answer
//	"drop": "after"         the request is carried out (a charge is made), then the connection is closed
//	                        without the answer: the lost answer that order_id reconciliation exists for

// FaultDrop says when a fault closes the connection.
type FaultDrop string

// The two moments a fault may close the connection.
const (
	// DropBefore closes the connection before the server acts.
	DropBefore FaultDrop = "before"
	// DropAfter lets the server carry the request out, then closes the
	// connection without answering.
	DropAfter FaultDrop = "after"
)

// maxFaultDelay bounds a fault's delay.
const maxFaultDelay = 5 * time.Minute

// maxFaultCount bounds how many requests one fault takes.
const maxFaultCount = 1000

// Fault is a failure armed with [Server.InjectFault] for the next requests
// that match Method and Path. Exactly one of ErrorCode, Delay and Drop says
// how they fail.
type Fault struct {
	// ID identifies an armed fault (set by InjectFault).
	ID string
	// Method is the request method (GET, POST, PUT, DELETE).
	Method string
	// Path is a route pattern of the API ("/v1/{merchant_id}/charges"),
	// which matches the route for every merchant, or a concrete path
	// ("/v1/mzdtln0bmtms6o3kck8f/charges").
	Path string
	// Count is how many requests the fault takes (0 means 1); in
	// [Server.Faults], how many it still takes.
	Count int
	// ErrorCode answers the gateway's error object with this documented
	// code, with the code's HTTP status and category.
	ErrorCode openpay.Code
	// Description is the text of that error object; empty means the
	// server's text for the code.
	Description string
	// Delay holds the request that long before it is answered as usual.
	Delay time.Duration
	// Drop closes the connection without an answer, before or after the
	// server carries the request out.
	Drop FaultDrop
}

// faultWire is a fault on the wire (the JSON of /_simulate/faults).
type faultWire struct {
	ID          string       `json:"id,omitempty"`
	Method      string       `json:"method"`
	Path        string       `json:"path"`
	Count       int          `json:"count"`
	ErrorCode   openpay.Code `json:"error_code,omitempty"`
	Description string       `json:"description,omitempty"`
	DelayMS     int64        `json:"delay_ms,omitempty"`
	Drop        FaultDrop    `json:"drop,omitempty"`
}

func (f Fault) wire() faultWire {
	return faultWire{ID: f.ID, Method: f.Method, Path: f.Path, Count: f.Count, ErrorCode: f.ErrorCode,
		Description: f.Description, DelayMS: f.Delay.Milliseconds(), Drop: f.Drop}
}

func wireFaults(fs []Fault) []faultWire {
	out := make([]faultWire, len(fs))
	for i, f := range fs {
		out[i] = f.wire()
	}
	return out
}

// armedFault is a fault with what it matches.
type armedFault struct {
	f     Fault
	route *route
	exact string // the concrete path, "" for a pattern
}

// faultSet is the server's armed faults.
type faultSet struct {
	n    atomic.Int32 // len(list): requests skip the lock while it is 0
	mu   sync.Mutex
	list []*armedFault
	seq  int
}

// faultErrorText is the description of an injected error object, by code.
var faultErrorText = map[openpay.Code]string{
	openpay.ErrInternalServer:        descInternal,
	openpay.ErrServiceUnavailable:    "A required service is unavailable; try again later",
	openpay.ErrFundsTransferRejected: "The transfer of funds between the bank account or card and the merchant account was rejected",
}

// InjectFault arms a fault and returns it with its id. It answers 1001 or
// 1003 (as [*Error]) for a fault that is not complete, names no route of
// the API, or holds a value out of range.
func (s *Server) InjectFault(f Fault) (Fault, error) {
	af, e := s.checkFault(f)
	if e != nil {
		return Fault{}, e
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.seq++
	af.f.ID = "f" + strconv.Itoa(s.faults.seq)
	s.faults.list = append(s.faults.list, af)
	s.faults.n.Store(int32(len(s.faults.list)))
	return af.f, nil
}

// checkFault validates a fault and finds its route.
func (s *Server) checkFault(f Fault) (*armedFault, *Error) {
	f.Method = strings.ToUpper(f.Method)
	if f.Method == "" || f.Path == "" {
		return nil, errorf(openpay.ErrBadRequest, "A fault needs a 'method' and a 'path'")
	}
	if f.Count == 0 {
		f.Count = 1
	}
	if f.Count < 0 || f.Count > maxFaultCount {
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'count' must be from 1 to %d", maxFaultCount)
	}
	kinds := 0
	for _, set := range []bool{f.ErrorCode != 0, f.Delay != 0, f.Drop != ""} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, errorf(openpay.ErrInvalidParameter, "A fault takes exactly one of 'error_code', 'delay_ms' and 'drop'")
	}
	switch {
	case f.ErrorCode != 0 && !f.ErrorCode.Documented():
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'error_code' must be a documented error code")
	case f.Delay < 0 || f.Delay > maxFaultDelay:
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'delay_ms' must be from 1 to %d", maxFaultDelay.Milliseconds())
	case f.Drop != "" && f.Drop != DropBefore && f.Drop != DropAfter:
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'drop' must be 'before' or 'after'")
	case len(f.Description) > 255:
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'description' must be at most 255 characters")
	}
	af := &armedFault{f: f}
	if strings.Contains(f.Path, "{") {
		for _, rt := range s.routes.routes {
			if rt.method == f.Method && rt.pattern == f.Path && !rt.simulation {
				af.route = rt
			}
		}
	} else if u, err := url.ParseRequestURI(f.Path); err == nil && u.RawQuery == "" {
		if rt, _, _ := s.routes.match(f.Method, u, nil); rt != nil && !rt.simulation {
			af.route, af.exact = rt, u.Path
		}
	}
	if af.route == nil {
		return nil, errorf(openpay.ErrInvalidParameter, "The fault's method and path name no operation of the API")
	}
	return af, nil
}

// Faults returns the armed faults in the order they were armed, each with
// the number of requests it still takes.
func (s *Server) Faults() []Fault {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	out := make([]Fault, len(s.faults.list))
	for i, af := range s.faults.list {
		out[i] = af.f
	}
	return out
}

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() { s.faults.clear() }

func (fs *faultSet) clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.list = nil
	fs.n.Store(0)
}

// take returns the fault that applies to a request for rt, counting the
// request, or nil. Requests the server makes to itself (a seed's) are
// never failed.
func (fs *faultSet) take(rt *route, r *http.Request) *Fault {
	if fs.n.Load() == 0 || rt == nil {
		return nil
	}
	if _, own := r.Context().Value(fixedIDKey{}).(string); own {
		return nil
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, af := range fs.list {
		if af.route != rt || af.f.Method != r.Method || (af.exact != "" && af.exact != r.URL.Path) {
			continue
		}
		f := af.f
		if af.f.Count--; af.f.Count == 0 {
			fs.list = slices.Delete(fs.list, i, i+1)
			fs.n.Store(int32(len(fs.list)))
		}
		return &f
	}
	return nil
}

// applyFault acts out the fault that took the request, and reports
// whether the request is done with (answered or dropped). A delay waits
// and lets the request go on; a drop after the fact sends the answer
// nowhere (ServeHTTP then closes the connection).
func (s *Server) applyFault(f *Fault, c *call, w http.ResponseWriter, sw *statusWriter) bool {
	switch {
	case f.ErrorCode != 0:
		desc := f.Description
		if desc == "" {
			desc = faultErrorText[f.ErrorCode]
		}
		if desc == "" {
			desc = "The request failed with error " + strconv.Itoa(int(f.ErrorCode))
		}
		writeError(sw, c.requestID, &Error{Code: f.ErrorCode, Description: desc})
		return true
	case f.Drop == DropBefore:
		dropConnection(w)
		return true
	case f.Drop == DropAfter:
		sw.ResponseWriter = &discardWriter{header: make(http.Header)}
	case f.Delay > 0:
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.r.Context().Done():
		}
	}
	return false
}

// dropConnection closes the request's connection without an answer. Where
// the connection cannot be taken over (HTTP/2), the handler is aborted,
// which net/http answers by resetting the stream.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// discardWriter is where the answer of a request whose connection is
// dropped after the fact goes.
type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// armFault answers POST /_simulate/faults.
func (s *Server) armFault(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var body faultWire
	if e := f.Into(&body); e != nil {
		return nil, e
	}
	if body.DelayMS < 0 || body.DelayMS > maxFaultDelay.Milliseconds() {
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'delay_ms' must be from 1 to %d", maxFaultDelay.Milliseconds())
	}
	armed, err := s.InjectFault(Fault{Method: body.Method, Path: body.Path, Count: body.Count, ErrorCode: body.ErrorCode,
		Description: body.Description, Delay: time.Duration(body.DelayMS) * time.Millisecond, Drop: body.Drop})
	if err != nil {
		return nil, err.(*Error)
	}
	return armed.wire(), nil
}
