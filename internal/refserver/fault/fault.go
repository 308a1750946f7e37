// Package fault is the reference server's fault model: failures a test
// arms from outside, so that a client's handling of them can be tried
// against a server that otherwise behaves. It holds what a fault is, how
// one is checked, the set of armed faults with its bounds, and the writing
// of the answers a fault puts in place of the server's. It imports nothing
// of the server but its error object (package apierr); the server finds a
// fault's route and says which merchant a path belongs to.
//
// A fault names a method and a path, either a route pattern of the API
// (/v1/{merchant_id}/charges) or a concrete path (/v1/m123.../charges:
// that merchant only), or an SDK operation ([Fault.Operation]), and how
// many requests it takes; each matching request, from the first one that
// arrives, fails its way and counts one, and after the last one the fault
// is gone. When several faults match, the one armed first applies. The
// kinds, exactly one per fault:
//
//	"error_code": 1004      the gateway's error object with that code and its status and category (1000: 500
//	                        internal, 1004: 503 internal, 1007: 402 gateway; any documented code), optional "description"
//	"delay_ms": 2000        the request waits that long (at most MaxDelay), then is answered as usual;
//	                        a client that gives up meanwhile does not stop it
//	"drop": "before"        the connection is closed before the server does anything: no answer
//	"drop": "after"         the request is carried out (a charge is made), then the connection is closed
//	                        without the answer: the lost answer that order_id reconciliation exists for
//	"page": 502             a proxy's HTML page with that status (400 to 599) instead of any answer
//
// With "error_code" or "page", "acted": true first carries the request out
// (a charge is made, a refund taken), then answers the error or the page in
// place of the server's answer: a front that failed after the gateway
// behind it acted, which no status proves did nothing.
//
// Contract:
//   - [Check] refuses a fault that is not complete (1001) or holds a value
//     out of range (1003), naming the field as the caller calls it
//     ([WireNames] over HTTP, [GoNames] from Go) and repeating no value; it
//     does not look for the route, which is the caller's.
//   - A [Set] holds at most [MaxArmed] faults and [MaxPerOwner] of one
//     owner (a merchant or a group, whose paths alone they match); [Set.Arm]
//     past a bound answers 1003. An owner's faults are kept apart, so a
//     request looks at the server-wide faults and its own owner's only,
//     never at another's ([Set.Take]). With no fault armed, Take costs one
//     atomic load and takes no lock.
//   - A [Set] is safe for concurrent use; its lock is its own and is never
//     held while the caller runs.
package fault

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
)

// Drop says when a fault closes the connection.
type Drop string

// The two moments a fault may close the connection.
const (
	// DropBefore closes the connection before the server acts.
	DropBefore Drop = "before"
	// DropAfter lets the server carry the request out, then closes the
	// connection without answering.
	DropAfter Drop = "after"
)

// The bounds of a fault and of a [Set]: far more than a test arms, and
// small enough that the list and the check stay cheap.
const (
	// MaxDelay bounds a fault's delay.
	MaxDelay = 5 * time.Minute
	// MaxCount bounds how many requests one fault takes.
	MaxCount = 1000
	// MaxArmed bounds the faults armed in a Set.
	MaxArmed = 1000
	// MaxPerOwner bounds the faults armed on one owner's paths.
	MaxPerOwner = 100
	// MaxPath bounds a fault's path (and operation) in bytes.
	MaxPath = 1024
)

// Fault is a failure armed for the next requests that match Method and
// Path (or Operation). Exactly one of ErrorCode, Delay, Drop and Page says
// how they fail.
type Fault struct {
	// ID identifies an armed fault (set by [Set.Arm]).
	ID string
	// Method is the request method (GET, POST, PUT, DELETE).
	Method string
	// Path is a route pattern of the API ("/v1/{merchant_id}/charges"),
	// which matches the route for every merchant, or a concrete path
	// ("/v1/mzdtln0bmtms6o3kck8f/charges").
	Path string
	// Count is how many requests the fault takes (0 means 1); in a list
	// of armed faults, how many it still takes.
	Count int
	// ErrorCode answers the gateway's error object with this documented
	// code, with the code's HTTP status and category.
	ErrorCode openpay.Code
	// Description is the text of that error object; empty means the
	// server's text for the code.
	Description string
	// Delay holds the request that long, then the server carries it out
	// and answers as usual, even when the client gave up meanwhile.
	Delay time.Duration
	// Drop closes the connection without an answer, before or after the
	// server carries the request out.
	Drop Drop
	// Operation, in place of Method and Path, matches the requests whose
	// OperationHeader names it: the SDK method that sent them
	// ("Charges.GetByOrderID"), as openpaytest's clients say. The server
	// does not check the name; openpaytest does. Go API only.
	Operation string
	// PerCall makes Count a number of calls rather than requests: the
	// requests of one call (the same CallHeader id: an SDK call's
	// retries) count once, and every attempt of the calls taken fails.
	// Requests without the header count one each. Go API only.
	PerCall bool
	// Page answers a proxy's HTML page with this status (400 to 599).
	Page int
	// Acted, with ErrorCode or Page, carries the request out first and
	// answers the error or the page in place of the server's answer.
	Acted bool
}

// The headers a client made by openpaytest sends with each attempt, so that
// a fault can be aimed in the SDK's terms: the SDK method that sent the
// request, and "<call id> <attempt> <most attempts>" for the call it is an
// attempt of. The server reads them for faults only.
const (
	OperationHeader = "X-Openpaytest-Operation"
	CallHeader      = "X-Openpaytest-Call"
)

// Wire is a fault on the wire (the JSON of the server's fault control).
type Wire struct {
	ID          string       `json:"id,omitempty"`
	Method      string       `json:"method"`
	Path        string       `json:"path"`
	Count       int          `json:"count"`
	ErrorCode   openpay.Code `json:"error_code,omitempty"`
	Description string       `json:"description,omitempty"`
	DelayMS     int64        `json:"delay_ms,omitempty"`
	Drop        Drop         `json:"drop,omitempty"`
	Page        int          `json:"page,omitempty"`
	Acted       bool         `json:"acted,omitempty"`
}

// Wire returns f as it goes on the wire.
func (f Fault) Wire() Wire {
	return Wire{ID: f.ID, Method: f.Method, Path: f.Path, Count: f.Count, ErrorCode: f.ErrorCode,
		Description: f.Description, DelayMS: f.Delay.Milliseconds(), Drop: f.Drop, Page: f.Page, Acted: f.Acted}
}

// Wires returns faults as they go on the wire.
func Wires(fs []Fault) []Wire {
	out := make([]Wire, len(fs))
	for i, f := range fs {
		out[i] = f.Wire()
	}
	return out
}

// Fault returns the fault a client sent, refusing (1003) a delay out of
// range before it is turned into a duration; the rest is [Check]'s.
func (w Wire) Fault() (Fault, *apierr.Error) {
	if w.DelayMS < 0 || w.DelayMS > MaxDelay.Milliseconds() {
		return Fault{}, apierr.Errorf(openpay.ErrInvalidParameter, "The field 'delay_ms' must be from 1 to %d", MaxDelay.Milliseconds())
	}
	return Fault{Method: w.Method, Path: w.Path, Count: w.Count, ErrorCode: w.ErrorCode, Description: w.Description,
		Delay: time.Duration(w.DelayMS) * time.Millisecond, Drop: w.Drop, Page: w.Page, Acted: w.Acted}, nil
}

// Names are the names a refusal gives a fault's fields: the JSON names
// over HTTP, the Go fields of openpaytest.Fault from Go.
type Names struct {
	Method, Path, Count, ErrorCode, Description, Delay, Drop, DelayRange, Page, Acted string
}

var (
	// WireNames are the fields' names on the wire.
	WireNames = Names{Method: "'method'", Path: "'path'", Count: "'count'", ErrorCode: "'error_code'",
		Description: "'description'", Delay: "'delay_ms'", Drop: "'drop'", Page: "'page'", Acted: "'acted'",
		DelayRange: "from 1 to " + strconv.FormatInt(MaxDelay.Milliseconds(), 10)}
	// GoNames are the fields' names in openpaytest.Fault.
	GoNames = Names{Method: "Fault.Method", Path: "Fault.Path", Count: "Fault.Count (or Fault.Calls)", ErrorCode: "Fault.ErrorCode",
		Description: "Fault.Description", Delay: "Fault.Delay", Drop: "Fault.Drop", Page: "Fault.Page", Acted: "Fault.Acted",
		DelayRange: "from 1ms to " + MaxDelay.String()}
)

// Check validates a fault's fields and returns it as it is armed: the
// method in upper case, a Count of 0 taken as 1. A refusal names the fields
// by names.
func Check(f Fault, names Names) (Fault, *apierr.Error) {
	f.Method = strings.ToUpper(f.Method)
	switch {
	case f.Operation != "" && (f.Method != "" || f.Path != ""):
		return f, apierr.Errorf(openpay.ErrBadRequest, "A fault names its requests by Fault.Operation or by %s and %s, not both", names.Method, names.Path)
	case f.Operation == "" && (f.Method == "" || f.Path == ""):
		return f, apierr.Errorf(openpay.ErrBadRequest, "A fault needs a %s and a %s", names.Method, names.Path)
	}
	if f.Count == 0 {
		f.Count = 1
	}
	if f.Count < 0 || f.Count > MaxCount {
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s must be from 1 to %d", names.Count, MaxCount)
	}
	kinds := 0
	for _, set := range []bool{f.ErrorCode != 0, f.Delay != 0, f.Drop != "", f.Page != 0} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "A fault takes exactly one of %s, %s, %s and %s", names.ErrorCode, names.Delay, names.Drop, names.Page)
	}
	switch {
	case f.Page != 0 && (f.Page < 400 || f.Page > 599):
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s must be an HTTP status from 400 to 599", names.Page)
	case f.Acted && f.ErrorCode == 0 && f.Page == 0:
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s goes with %s or %s", names.Acted, names.ErrorCode, names.Page)
	case f.ErrorCode != 0 && !f.ErrorCode.Documented():
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s must be a documented error code", names.ErrorCode)
	case f.Delay < 0 || f.Delay > MaxDelay:
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s must be %s", names.Delay, names.DelayRange)
	case f.Drop != "" && f.Drop != DropBefore && f.Drop != DropAfter:
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s must be %q or %q", names.Drop, DropBefore, DropAfter)
	case len(f.Description) > 255:
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s must be at most 255 characters", names.Description)
	case len(f.Path) > MaxPath || len(f.Operation) > MaxPath:
		return f, apierr.Errorf(openpay.ErrInvalidParameter, "The field %s must be at most %d characters", names.Path, MaxPath)
	}
	return f, nil
}

// SamePattern reports whether a fault's path pattern names the route
// pattern: the same literal segments, whatever its {placeholders} are
// called ("/v1/{merchant_id}/charges/{id}" names
// "/v1/{merchant_id}/charges/{transaction_id}").
func SamePattern(pattern, given string) bool {
	ps, gs := strings.Split(pattern, "/"), strings.Split(given, "/")
	if len(ps) != len(gs) {
		return false
	}
	isParam := func(seg string) bool { return len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' }
	for i, p := range ps {
		if isParam(p) != isParam(gs[i]) || !isParam(p) && p != gs[i] {
			return false
		}
	}
	return true
}

// Armed is a checked fault with what it matches: a route of the caller's
// (R, compared with ==), a concrete path or "" for a pattern, and the owner
// whose paths it matches, "" for every owner's.
type Armed[R comparable] struct {
	Fault Fault
	Route R
	Exact string
	Owner string
	seq   int // the order it was armed in
	// lastCall is the call (CallHeader id) a PerCall fault took last:
	// its further attempts fail too, even once Count is spent.
	lastCall string
}

// Set is the armed faults, indexed by their owner, so that a request looks
// only at the faults that can match it. The zero Set is empty and ready.
type Set[R comparable] struct {
	n     atomic.Int32 // armed faults in all: requests skip the lock while it is 0
	mu    sync.Mutex
	all   []*Armed[R]            // owner "": for every owner
	owned map[string][]*Armed[R] // by owner
	seq   int
}

// listOf returns the list the faults of owner are kept in. The caller
// holds s.mu.
func (s *Set[R]) listOf(owner string) []*Armed[R] {
	if owner == "" {
		return s.all
	}
	return s.owned[owner]
}

// setList replaces the list of owner. The caller holds s.mu.
func (s *Set[R]) setList(owner string, list []*Armed[R]) {
	switch {
	case owner == "":
		s.all = list
	case len(list) == 0:
		delete(s.owned, owner)
	default:
		if s.owned == nil {
			s.owned = make(map[string][]*Armed[R])
		}
		s.owned[owner] = list
	}
}

// Arm arms a within the bounds and gives its fault an id. It returns the
// fault as armed, copied under the set's lock: a request may take the
// fault (and count it down) as soon as it is armed, so a's fields are not
// the caller's to read afterwards.
func (s *Set[R]) Arm(a *Armed[R]) (Fault, *apierr.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n.Load() >= MaxArmed {
		return Fault{}, apierr.Errorf(openpay.ErrInvalidParameter, "The server holds %d armed faults, its limit: disarm some first", MaxArmed)
	}
	list := s.listOf(a.Owner)
	if a.Owner != "" && len(list) >= MaxPerOwner {
		return Fault{}, apierr.Errorf(openpay.ErrInvalidParameter, "The merchant's paths hold %d armed faults, the limit: disarm some first", MaxPerOwner)
	}
	s.seq++
	a.seq = s.seq
	a.Fault.ID = "f" + strconv.Itoa(s.seq)
	s.setList(a.Owner, append(list, a))
	s.n.Add(1)
	return a.Fault, nil
}

// Any reports whether any fault is armed, without a lock.
func (s *Set[R]) Any() bool { return s.n.Load() != 0 }

// Consulted returns the owners of the faults a request whose path names
// owner looks at, one per fault: "" for the server-wide ones, owner for
// its own, never another's.
func (s *Set[R]) Consulted(owner string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, list := range s.candidates(owner) {
		for _, a := range list {
			out = append(out, a.Owner)
		}
	}
	return out
}

// candidates are the lists a request whose path names owner looks at. The
// caller holds s.mu.
func (s *Set[R]) candidates(owner string) [2][]*Armed[R] {
	if owner == "" {
		return [2][]*Armed[R]{s.all}
	}
	return [2][]*Armed[R]{s.all, s.owned[owner]}
}

// List returns the faults of owner (every fault when owner is nil) in the
// order they were armed, each with the number of requests it still takes.
func (s *Set[R]) List(owner *string) []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	var as []*Armed[R]
	if owner != nil {
		as = s.owned[*owner]
	} else {
		as = slices.Clone(s.all)
		for _, l := range s.owned {
			as = append(as, l...)
		}
		slices.SortFunc(as, func(a, b *Armed[R]) int { return a.seq - b.seq })
	}
	out := make([]Fault, 0, len(as))
	for _, a := range as {
		if a.Fault.PerCall && a.Fault.Count == 0 {
			continue // only the retries of its last call are left
		}
		out = append(out, a.Fault)
	}
	return out
}

// Clear disarms the faults of owner, or every fault when owner is nil.
func (s *Set[R]) Clear(owner *string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if owner == nil {
		s.all, s.owned = nil, nil
		s.n.Store(0)
		return
	}
	s.n.Add(-int32(len(s.owned[*owner])))
	delete(s.owned, *owner)
}

// Request is what a fault is matched against: the route the request
// found and whether it is one of the server's own controls (which an
// Operation fault never fails), its method and path, the owner its path
// names ("" for none), and its headers (OperationHeader, CallHeader).
type Request[R comparable] struct {
	Route      R
	Simulation bool
	Method     string
	Path       string
	Owner      string
	Header     http.Header
}

// Take returns the fault that applies to req, counting the request, or
// nil. It looks at the server-wide faults and those of req.Owner.
func (s *Set[R]) Take(req Request[R]) *Fault {
	if !s.Any() {
		return nil
	}
	op := req.Header.Get(OperationHeader)
	call, lastAttempt := parseCall(req.Header.Get(CallHeader))
	s.mu.Lock()
	defer s.mu.Unlock()
	var found *Armed[R]
	var spent []*Armed[R]
	for _, list := range s.candidates(req.Owner) {
		for _, a := range list {
			if !a.matches(&req, op) {
				continue
			}
			if a.Fault.PerCall && a.Fault.Count == 0 && (call == "" || call != a.lastCall) {
				spent = append(spent, a) // its last call is over: another one came
				continue
			}
			if found == nil || a.seq < found.seq {
				found = a
			}
			break // the first live match of a list is its oldest
		}
	}
	for _, a := range spent {
		s.remove(a)
	}
	if found == nil {
		return nil
	}
	switch {
	case !found.Fault.PerCall:
		found.Fault.Count--
	case call == "" || call != found.lastCall:
		found.Fault.Count--
		found.lastCall = call
	}
	f := found.Fault
	// A per-call fault stays for the retries of its last call, until
	// that call's last possible attempt or another call.
	if found.Fault.Count == 0 && (!found.Fault.PerCall || call == "" || lastAttempt) {
		s.remove(found)
	}
	return &f
}

// matches reports whether a applies to req, whose OperationHeader is op.
func (a *Armed[R]) matches(req *Request[R], op string) bool {
	if a.Fault.Operation != "" {
		return a.Fault.Operation == op && !req.Simulation
	}
	return a.Route == req.Route && a.Fault.Method == req.Method && (a.Exact == "" || a.Exact == req.Path) &&
		(a.Owner == "" || a.Owner == req.Owner)
}

// remove disarms a. The caller holds s.mu.
func (s *Set[R]) remove(a *Armed[R]) {
	s.setList(a.Owner, slices.DeleteFunc(s.listOf(a.Owner), func(x *Armed[R]) bool { return x == a }))
	s.n.Add(-1)
}

// parseCall reads a CallHeader value ("<id> <attempt> <most attempts>"):
// the call's id, and whether this is its last possible attempt. An
// unreadable value is no call.
func parseCall(v string) (id string, last bool) {
	parts := strings.Fields(v)
	if len(parts) != 3 {
		return "", false
	}
	attempt, err1 := strconv.Atoi(parts[1])
	most, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		return "", false
	}
	return parts[0], attempt >= most
}

// errorText is the description of an injected error object, by code.
var errorText = map[openpay.Code]string{
	openpay.ErrInternalServer:        "Internal server error",
	openpay.ErrServiceUnavailable:    "A required service is unavailable; try again later",
	openpay.ErrFundsTransferRejected: "The transfer of funds between the bank account or card and the merchant account was rejected",
}

// ErrorObject returns the error object an ErrorCode fault answers: its
// Description, else the server's text for the code.
func (f *Fault) ErrorObject() *apierr.Error {
	desc := f.Description
	if desc == "" {
		desc = errorText[f.ErrorCode]
	}
	if desc == "" {
		desc = "The request failed with error " + strconv.Itoa(int(f.ErrorCode))
	}
	return &apierr.Error{Code: f.ErrorCode, Description: desc}
}

// WritePage answers a proxy's HTML page with status.
func WritePage(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	text := strconv.Itoa(status) + " " + http.StatusText(status)
	_, _ = w.Write([]byte("<html><head><title>" + text + "</title></head><body><h1>" + text + "</h1><hr><p>proxy</p></body></html>\n"))
}

// DropConnection closes the request's connection without an answer. Where
// the connection cannot be taken over (HTTP/2), the handler is aborted
// (panic with http.ErrAbortHandler), which net/http answers by resetting
// the stream.
func DropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// Discard returns a ResponseWriter that takes an answer and sends it
// nowhere: where the answer of a request whose connection is dropped after
// the fact, or answered in its place, goes.
func Discard() http.ResponseWriter { return &discardWriter{header: make(http.Header)} }

type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}
