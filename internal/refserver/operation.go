package refserver

import "net/url"

// Operation tells which operation of openapi.yaml a request reaches: its
// operationId and the values of its path parameters by name. rawPath is the
// request's escaped path. ok is false for a path that is no operation of
// the gateway's API (unknown paths, simulation and server controls); the
// barcode images, which openapi.yaml leaves out, are "getBarcode". It
// lets tools outside the server (the conformance recorder) name exchanges
// by the same table the server routes by.
func (s *Server) Operation(method, rawPath string) (operationID string, params map[string]string, ok bool) {
	u, err := url.Parse(rawPath)
	if err != nil || u.Path == "" {
		return "", nil, false
	}
	rt, _, values := s.routes.match(method, u, nil)
	if rt == nil || rt.simulation {
		return "", nil, false
	}
	params = make(map[string]string, len(rt.params))
	for i, name := range rt.params {
		params[name] = values[i]
	}
	return rt.operationID, params, true
}
