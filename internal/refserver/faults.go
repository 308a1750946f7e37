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
// (/v1/{merchant_id}/charges) or a concrete path (/v1/m123.../charges:
// that merchant only), and how many requests it takes; each matching
// request, from the first one that arrives, fails its way and counts one,
// and after the last one the fault is gone. When several faults match, the
// one armed first applies. A fault acts before authentication, as a
// failing gateway front would, on any request to the API; the server's own
// controls (/_simulate/..., /_health) are never failed.
//
//	POST /_simulate/faults  {"method": "POST", "path": "/v1/{merchant_id}/charges", "count": 1, <one kind>}  201, the fault with its id
//	GET  /_simulate/faults                                                                                   the armed faults, "count" what is left
//	DELETE /_simulate/faults                                                                                 204, all disarmed
//
// Whose. Over HTTP a merchant's private key arms, lists and disarms the
// faults of its own paths only: a pattern it arms matches its own requests
// (the {merchant_id} of the request is its id), a concrete path must be one
// of its own (another's answers 1003, as a path of no operation does), and
// the list and DELETE cover its faults alone. The admin key
// (Options.AdminKey) acts for the whole server, as the Go methods do: a
// pattern armed so, or with [Server.InjectFault], matches every merchant.
//
// Bounds. At most maxFaults faults are armed on the server and
// maxFaultsPerMerchant on one merchant's paths; a path is at most
// maxFaultPath bytes. A fault past a bound answers 1003. A request pays for
// faults only when some are armed (an atomic count, read without a lock),
// and then looks at the server-wide ones and those of the merchant its
// path names, never at another merchant's.
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
//	"page": 502             a proxy's HTML page with that status (400 to 599) instead of any answer
//
// With "error_code" or "page", "acted": true first carries the request out
// (a charge is made, a refund taken), then answers the error or the page in
// place of the server's answer: a front that failed after the gateway
// behind it acted, which no status proves did nothing.

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

// The bounds on armed faults (see above): far more than a test arms, and
// small enough that the list and the check stay cheap.
const (
	maxFaults            = 1000
	maxFaultsPerMerchant = 100
	maxFaultPath         = 1024
)

// Fault is a failure armed with [Server.InjectFault] for the next requests
// that match Method and Path. Exactly one of ErrorCode, Delay, Drop and Page says
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
	// Delay holds the request that long, then the server carries it out
	// and answers as usual, even when the client gave up meanwhile.
	Delay time.Duration
	// Drop closes the connection without an answer, before or after the
	// server carries the request out.
	Drop FaultDrop
	// Operation, in place of Method and Path, matches the requests whose
	// FaultOperationHeader names it: the SDK method that sent them
	// ("Charges.GetByOrderID"), as openpaytest's clients say. The server
	// does not check the name; openpaytest does. Go API only.
	Operation string
	// PerCall makes Count a number of calls rather than requests: the
	// requests of one call (the same FaultCallHeader id: an SDK call's
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
	FaultOperationHeader = "X-Openpaytest-Operation"
	FaultCallHeader      = "X-Openpaytest-Call"
)

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
	Page        int          `json:"page,omitempty"`
	Acted       bool         `json:"acted,omitempty"`
}

func (f Fault) wire() faultWire {
	return faultWire{ID: f.ID, Method: f.Method, Path: f.Path, Count: f.Count, ErrorCode: f.ErrorCode,
		Description: f.Description, DelayMS: f.Delay.Milliseconds(), Drop: f.Drop, Page: f.Page, Acted: f.Acted}
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
	seq   int // the order it was armed in
	route *route
	exact string // the concrete path, "" for a pattern
	owner string // the merchant (or group) whose paths it matches, "" for every merchant
	// lastCall is the call (FaultCallHeader id) a PerCall fault took
	// last: its further attempts fail too, even once Count is spent.
	lastCall string
}

// faultSet is the server's armed faults, indexed by the merchant they are
// for, so that a request looks only at the faults that can match it.
type faultSet struct {
	n     atomic.Int32 // armed faults in all: requests skip the lock while it is 0
	mu    sync.Mutex
	all   []*armedFault            // owner "": patterns for every merchant
	owned map[string][]*armedFault // by owner
	seq   int
}

// listOf returns the list the faults of owner are kept in. The caller
// holds fs.mu.
func (fs *faultSet) listOf(owner string) []*armedFault {
	if owner == "" {
		return fs.all
	}
	return fs.owned[owner]
}

// setList replaces the list of owner. The caller holds fs.mu.
func (fs *faultSet) setList(owner string, list []*armedFault) {
	switch {
	case owner == "":
		fs.all = list
	case len(list) == 0:
		delete(fs.owned, owner)
	default:
		if fs.owned == nil {
			fs.owned = make(map[string][]*armedFault)
		}
		fs.owned[owner] = list
	}
}

// add arms af within the bounds. The caller holds fs.mu.
func (fs *faultSet) add(af *armedFault) *Error {
	if fs.n.Load() >= maxFaults {
		return errorf(openpay.ErrInvalidParameter, "The server holds %d armed faults, its limit: disarm some first", maxFaults)
	}
	list := fs.listOf(af.owner)
	if af.owner != "" && len(list) >= maxFaultsPerMerchant {
		return errorf(openpay.ErrInvalidParameter, "The merchant's paths hold %d armed faults, the limit: disarm some first", maxFaultsPerMerchant)
	}
	fs.seq++
	af.seq = fs.seq
	af.f.ID = "f" + strconv.Itoa(fs.seq)
	fs.setList(af.owner, append(list, af))
	fs.n.Add(1)
	return nil
}

// candidates are the lists a request whose path names owner looks at:
// the server-wide faults and owner's, never another merchant's. The caller
// holds fs.mu.
func (fs *faultSet) candidates(owner string) [2][]*armedFault {
	if owner == "" {
		return [2][]*armedFault{fs.all}
	}
	return [2][]*armedFault{fs.all, fs.owned[owner]}
}

// pathOwner is the merchant a request for rt with these parameters acts
// for: its {merchant_id}, else its {group_id}, else "".
func pathOwner(rt *route, params []string) string {
	owner := ""
	for i, name := range rt.params {
		switch {
		case i >= len(params):
		case name == "merchant_id":
			return params[i]
		case name == "group_id":
			owner = params[i]
		}
	}
	return owner
}

// faultErrorText is the description of an injected error object, by code.
var faultErrorText = map[openpay.Code]string{
	openpay.ErrInternalServer:        descInternal,
	openpay.ErrServiceUnavailable:    "A required service is unavailable; try again later",
	openpay.ErrFundsTransferRejected: "The transfer of funds between the bank account or card and the merchant account was rejected",
}

// InjectFault arms a fault and returns it with its id. It answers 1001 or
// 1003 (as [*Error]) for a fault that is not complete, names no route of
// the API, holds a value out of range, or would pass a bound on armed
// faults. A pattern armed here matches every merchant's requests.
func (s *Server) InjectFault(f Fault) (Fault, error) {
	armed, e := s.armFor("", f, goFaultNames)
	if e != nil {
		return Fault{}, e
	}
	return armed, nil
}

// armFor checks and arms a fault for merchant (its paths only), or, with
// merchant "", for the server. It returns the fault as armed (with its
// id), copied under the lock: a request may take the fault at once.
func (s *Server) armFor(merchant string, f Fault, names faultNames) (Fault, *Error) {
	af, e := s.checkFault(f, names)
	if e != nil {
		return Fault{}, e
	}
	if merchant != "" {
		if af.exact != "" && af.owner != merchant || af.exact == "" && !routeHasParam(af.route, "merchant_id") {
			return Fault{}, errorf(openpay.ErrInvalidParameter, "The fault's method and path name no operation of the merchant's API")
		}
		af.owner = merchant
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if e := s.faults.add(af); e != nil {
		return Fault{}, e
	}
	return af.f, nil
}

// routeHasParam reports whether rt's pattern has the parameter name.
func routeHasParam(rt *route, name string) bool { return slices.Contains(rt.params, name) }

// faultNames are the names a refusal gives a fault's fields: the JSON
// names over HTTP, the Go fields of openpaytest.Fault from Go.
type faultNames struct {
	method, path, count, errorCode, description, delay, drop, delayRange, page, acted string
}

var (
	wireFaultNames = faultNames{method: "'method'", path: "'path'", count: "'count'", errorCode: "'error_code'",
		description: "'description'", delay: "'delay_ms'", drop: "'drop'", page: "'page'", acted: "'acted'", delayRange: "from 1 to " + strconv.FormatInt(maxFaultDelay.Milliseconds(), 10)}
	goFaultNames = faultNames{method: "Fault.Method", path: "Fault.Path", count: "Fault.Count (or Fault.Calls)", errorCode: "Fault.ErrorCode",
		description: "Fault.Description", delay: "Fault.Delay", drop: "Fault.Drop", page: "Fault.Page", acted: "Fault.Acted", delayRange: "from 1ms to " + maxFaultDelay.String()}
)

// samePattern reports whether a fault's path pattern names the route
// pattern: the same literal segments, whatever its {placeholders} are
// called ("/v1/{merchant_id}/charges/{id}" names
// "/v1/{merchant_id}/charges/{transaction_id}").
func samePattern(pattern, given string) bool {
	ps, gs := strings.Split(pattern, "/"), strings.Split(given, "/")
	if len(ps) != len(gs) {
		return false
	}
	for i, p := range ps {
		isParam := func(seg string) bool { return len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' }
		if isParam(p) != isParam(gs[i]) || !isParam(p) && p != gs[i] {
			return false
		}
	}
	return true
}

// checkFault validates a fault and finds its route; a refusal names the
// fields by names.
func (s *Server) checkFault(f Fault, names faultNames) (*armedFault, *Error) {
	f.Method = strings.ToUpper(f.Method)
	switch {
	case f.Operation != "" && (f.Method != "" || f.Path != ""):
		return nil, errorf(openpay.ErrBadRequest, "A fault names its requests by Fault.Operation or by %s and %s, not both", names.method, names.path)
	case f.Operation == "" && (f.Method == "" || f.Path == ""):
		return nil, errorf(openpay.ErrBadRequest, "A fault needs a %s and a %s", names.method, names.path)
	}
	if f.Count == 0 {
		f.Count = 1
	}
	if f.Count < 0 || f.Count > maxFaultCount {
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s must be from 1 to %d", names.count, maxFaultCount)
	}
	kinds := 0
	for _, set := range []bool{f.ErrorCode != 0, f.Delay != 0, f.Drop != "", f.Page != 0} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return nil, errorf(openpay.ErrInvalidParameter, "A fault takes exactly one of %s, %s, %s and %s", names.errorCode, names.delay, names.drop, names.page)
	}
	switch {
	case f.Page != 0 && (f.Page < 400 || f.Page > 599):
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s must be an HTTP status from 400 to 599", names.page)
	case f.Acted && f.ErrorCode == 0 && f.Page == 0:
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s goes with %s or %s", names.acted, names.errorCode, names.page)
	case f.ErrorCode != 0 && !f.ErrorCode.Documented():
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s must be a documented error code", names.errorCode)
	case f.Delay < 0 || f.Delay > maxFaultDelay:
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s must be %s", names.delay, names.delayRange)
	case f.Drop != "" && f.Drop != DropBefore && f.Drop != DropAfter:
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s must be %q or %q", names.drop, DropBefore, DropAfter)
	case len(f.Description) > 255:
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s must be at most 255 characters", names.description)
	case len(f.Path) > maxFaultPath || len(f.Operation) > maxFaultPath:
		return nil, errorf(openpay.ErrInvalidParameter, "The field %s must be at most %d characters", names.path, maxFaultPath)
	}
	af := &armedFault{f: f}
	if f.Operation != "" {
		return af, nil
	}
	if strings.Contains(f.Path, "{") {
		for _, rt := range s.routes.routes {
			if rt.method == f.Method && samePattern(rt.pattern, f.Path) && !rt.simulation {
				af.route = rt
			}
		}
	} else if u, err := url.ParseRequestURI(f.Path); err == nil && u.RawQuery == "" {
		if rt, _, params := s.routes.match(f.Method, u, nil); rt != nil && !rt.simulation {
			af.route, af.exact, af.owner = rt, u.Path, pathOwner(rt, params)
		}
	}
	if af.route == nil {
		return nil, errorf(openpay.ErrInvalidParameter, "The %s and %s (%s %s) name no operation of the API", names.method, names.path,
			f.Method, truncateForMessage(f.Path))
	}
	return af, nil
}

// Faults returns the armed faults in the order they were armed, each with
// the number of requests it still takes.
func (s *Server) Faults() []Fault { return s.faults.list(nil) }

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() { s.faults.clear(nil) }

// list returns the faults of owner (every fault when owner is nil) in the
// order they were armed.
func (fs *faultSet) list(owner *string) []Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var afs []*armedFault
	if owner != nil {
		afs = fs.owned[*owner]
	} else {
		afs = slices.Clone(fs.all)
		for _, l := range fs.owned {
			afs = append(afs, l...)
		}
		slices.SortFunc(afs, func(a, b *armedFault) int { return a.seq - b.seq })
	}
	out := make([]Fault, 0, len(afs))
	for _, af := range afs {
		if af.f.PerCall && af.f.Count == 0 {
			continue // only the retries of its last call are left
		}
		out = append(out, af.f)
	}
	return out
}

// clear disarms the faults of owner, or every fault when owner is nil.
func (fs *faultSet) clear(owner *string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if owner == nil {
		fs.all, fs.owned = nil, nil
		fs.n.Store(0)
		return
	}
	fs.n.Add(-int32(len(fs.owned[*owner])))
	delete(fs.owned, *owner)
}

// take returns the fault that applies to a request for rt with these path
// parameters, counting the request, or nil. Requests the server makes to
// itself (a seed's) are never failed. With no fault armed it costs an
// atomic load; otherwise it looks at the server-wide faults and those of
// the merchant the path names (candidates).
func (fs *faultSet) take(rt *route, params []string, r *http.Request) *Fault {
	if fs.n.Load() == 0 || rt == nil {
		return nil
	}
	if _, own := r.Context().Value(fixedIDKey{}).(string); own {
		return nil
	}
	owner := pathOwner(rt, params)
	op := r.Header.Get(FaultOperationHeader)
	call, lastAttempt := parseFaultCall(r.Header.Get(FaultCallHeader))
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var found *armedFault
	var spent []*armedFault
	for _, list := range fs.candidates(owner) {
		for _, af := range list {
			if !af.matches(rt, r, owner, op) {
				continue
			}
			if af.f.PerCall && af.f.Count == 0 && (call == "" || call != af.lastCall) {
				spent = append(spent, af) // its last call is over: another one came
				continue
			}
			if found == nil || af.seq < found.seq {
				found = af
			}
			break // the first live match of a list is its oldest
		}
	}
	for _, af := range spent {
		fs.remove(af)
	}
	if found == nil {
		return nil
	}
	switch {
	case !found.f.PerCall:
		found.f.Count--
	case call == "" || call != found.lastCall:
		found.f.Count--
		found.lastCall = call
	}
	f := found.f
	// A per-call fault stays for the retries of its last call, until
	// that call's last possible attempt or another call.
	if found.f.Count == 0 && (!found.f.PerCall || call == "" || lastAttempt) {
		fs.remove(found)
	}
	return &f
}

// matches reports whether af applies to a request for rt, whose path names
// owner and whose FaultOperationHeader is op.
func (af *armedFault) matches(rt *route, r *http.Request, owner, op string) bool {
	if af.f.Operation != "" {
		return af.f.Operation == op && !rt.simulation
	}
	return af.route == rt && af.f.Method == r.Method && (af.exact == "" || af.exact == r.URL.Path) &&
		(af.owner == "" || af.owner == owner)
}

// remove disarms af. The caller holds fs.mu.
func (fs *faultSet) remove(af *armedFault) {
	fs.setList(af.owner, slices.DeleteFunc(fs.listOf(af.owner), func(x *armedFault) bool { return x == af }))
	fs.n.Add(-1)
}

// parseFaultCall reads a FaultCallHeader value ("<id> <attempt> <most
// attempts>"): the call's id, and whether this is its last possible
// attempt. An unreadable value is no call.
func parseFaultCall(v string) (id string, last bool) {
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

// applyFault acts out the fault that took the request, and reports
// whether the request is done with (answered or dropped). A delay waits
// and lets the request go on; a drop after the fact sends the answer
// nowhere (ServeHTTP then closes the connection).
func (s *Server) applyFault(f *Fault, c *call, w http.ResponseWriter, sw *statusWriter) bool {
	switch {
	case f.Acted:
		// The request goes on; its answer goes nowhere, and
		// answerAfterActing answers in its place (ServeHTTP).
		sw.ResponseWriter = &discardWriter{header: make(http.Header)}
	case f.ErrorCode != 0 || f.Page != 0:
		answerFault(f, c.requestID, sw)
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

// answerFault answers a fault's error object, or its page.
func answerFault(f *Fault, requestID string, w http.ResponseWriter) {
	if f.Page != 0 {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(f.Page)
		text := strconv.Itoa(f.Page) + " " + http.StatusText(f.Page)
		_, _ = w.Write([]byte("<html><head><title>" + text + "</title></head><body><h1>" + text + "</h1><hr><p>proxy</p></body></html>\n"))
		return
	}
	desc := f.Description
	if desc == "" {
		desc = faultErrorText[f.ErrorCode]
	}
	if desc == "" {
		desc = "The request failed with error " + strconv.Itoa(int(f.ErrorCode))
	}
	writeError(w, requestID, &Error{Code: f.ErrorCode, Description: desc})
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
	armed, e := s.armFor(c.controlOwner(), Fault{Method: body.Method, Path: body.Path, Count: body.Count, ErrorCode: body.ErrorCode,
		Description: body.Description, Delay: time.Duration(body.DelayMS) * time.Millisecond, Drop: body.Drop,
		Page: body.Page, Acted: body.Acted}, wireFaultNames)
	if e != nil {
		return nil, e
	}
	return armed.wire(), nil
}
