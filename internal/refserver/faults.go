package refserver

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/fault"
	"github.com/openpay-go/openpay/internal/refserver/httpedge"
)

// Faults: failures a test arms from outside (the model, its kinds and its
// bounds: package fault). A fault acts before authentication, as a failing
// gateway front would, on any request to the API; the server's own
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
// A request looks at the server-wide faults and those of the merchant its
// path names (pathOwner), never at another merchant's.

// Fault is a failure armed with [Server.InjectFault] ([fault.Fault]).
type Fault = fault.Fault

// FaultDrop says when a fault closes the connection ([fault.Drop]).
type FaultDrop = fault.Drop

// The two moments a fault may close the connection.
const (
	DropBefore = fault.DropBefore
	DropAfter  = fault.DropAfter
)

// The headers a client made by openpaytest sends with each attempt
// ([fault.OperationHeader], [fault.CallHeader]).
const (
	FaultOperationHeader = fault.OperationHeader
	FaultCallHeader      = fault.CallHeader
)

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

// InjectFault arms a fault and returns it with its id. It answers 1001 or
// 1003 (as [*Error]) for a fault that is not complete, names no route of
// the API, holds a value out of range, or would pass a bound on armed
// faults. A pattern armed here matches every merchant's requests.
func (s *Server) InjectFault(f Fault) (Fault, error) {
	armed, e := s.armFor("", f, fault.GoNames)
	if e != nil {
		return Fault{}, e
	}
	return armed, nil
}

// armFor checks and arms a fault for merchant (its paths only), or, with
// merchant "", for the server. It returns the fault as armed (with its
// id), copied under the lock: a request may take the fault at once.
func (s *Server) armFor(merchant string, f Fault, names fault.Names) (Fault, *Error) {
	af, e := s.checkFault(f, names)
	if e != nil {
		return Fault{}, e
	}
	if merchant != "" {
		if af.Exact != "" && af.Owner != merchant || af.Exact == "" && !slices.Contains(af.Route.params, "merchant_id") {
			return Fault{}, errorf(openpay.ErrInvalidParameter, "The fault's method and path name no operation of the merchant's API")
		}
		af.Owner = merchant
	}
	return s.faults.Arm(af)
}

// checkFault validates a fault (fault.Check) and finds its route; a
// refusal names the fields by names.
func (s *Server) checkFault(f Fault, names fault.Names) (*fault.Armed[*route], *Error) {
	f, e := fault.Check(f, names)
	if e != nil {
		return nil, e
	}
	af := &fault.Armed[*route]{Fault: f}
	if f.Operation != "" {
		return af, nil
	}
	if strings.Contains(f.Path, "{") {
		for _, rt := range s.routes.routes {
			if rt.method == f.Method && fault.SamePattern(rt.pattern, f.Path) && !rt.simulation {
				af.Route = rt
			}
		}
	} else if u, err := url.ParseRequestURI(f.Path); err == nil && u.RawQuery == "" {
		if rt, _, params := s.routes.match(f.Method, u, nil); rt != nil && !rt.simulation {
			af.Route, af.Exact, af.Owner = rt, u.Path, pathOwner(rt, params)
		}
	}
	if af.Route == nil {
		return nil, errorf(openpay.ErrInvalidParameter, "The %s and %s (%s %s) name no operation of the API", names.Method, names.Path,
			f.Method, truncateForMessage(f.Path))
	}
	return af, nil
}

// Faults returns the armed faults in the order they were armed, each with
// the number of requests it still takes.
func (s *Server) Faults() []Fault { return s.faults.List(nil) }

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() { s.faults.Clear(nil) }

// takeFault returns the fault that applies to a request for rt with these
// path parameters, counting the request, or nil. Requests the server makes
// to itself (a seed's) are never failed. With no fault armed it costs an
// atomic load.
func (s *Server) takeFault(rt *route, params []string, r *http.Request) *Fault {
	if !s.faults.Any() || rt == nil {
		return nil
	}
	if _, own := r.Context().Value(fixedIDKey{}).(string); own {
		return nil
	}
	return s.faults.Take(fault.Request[*route]{Route: rt, Simulation: rt.simulation, Method: r.Method, Path: r.URL.Path,
		Owner: pathOwner(rt, params), Header: r.Header})
}

// applyFault acts out the fault that took the request, and reports
// whether the request is done with (answered or dropped). A delay waits
// and lets the request go on; a drop after the fact sends the answer
// nowhere (ServeHTTP then closes the connection).
func (s *Server) applyFault(f *Fault, c *call, w http.ResponseWriter, sw *httpedge.StatusWriter) bool {
	switch {
	case f.Acted:
		// The request goes on; its answer goes nowhere, and
		// answerFault answers in its place (ServeHTTP).
		sw.ResponseWriter = fault.Discard()
	case f.ErrorCode != 0 || f.Page != 0:
		answerFault(f, c.requestID, sw)
		return true
	case f.Drop == DropBefore:
		fault.DropConnection(w)
		return true
	case f.Drop == DropAfter:
		sw.ResponseWriter = fault.Discard()
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
		fault.WritePage(w, f.Page)
		return
	}
	writeError(w, requestID, f.ErrorObject())
}

// armFault answers POST /_simulate/faults.
func (s *Server) armFault(c *call) (any, *Error) {
	b, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var body fault.Wire
	if e := b.Into(&body); e != nil {
		return nil, e
	}
	f, e := body.Fault()
	if e != nil {
		return nil, e
	}
	armed, e := s.armFor(c.controlOwner(), f, fault.WireNames)
	if e != nil {
		return nil, e
	}
	return armed.Wire(), nil
}
