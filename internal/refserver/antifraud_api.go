package refserver

import (
	"html"
	"net/http"

	"github.com/openpay-go/openpay"
)

// The anti-fraud endpoints the browser library calls from
// deviceData.setup. The library makes up the device session id itself (32
// letters and digits), reads the anti-fraud key with the public key and
// fetches the device-data components, which it appends to the page. The
// sandbox has no anti-fraud service behind them: the key is empty (so the
// library loads no further script) and the components are an empty,
// hidden element. Charges accept any device_session_id up to 255
// characters, the library's among them.

// registerAntifraud registers the anti-fraud endpoints.
func (s *Server) registerAntifraud(r *routeTable) {
	r.add("getAntifraudKeys", http.MethodGet, "/v1/{merchant_id}/antifraudkeys", http.StatusOK, s.getAntifraudKeys).allowPublicKey()
	r.add("getAntifraudComponents", http.MethodGet, "/antifraud/{merchant_id}/components", http.StatusOK, s.getAntifraudComponents).noAuth().fromBrowser()
}

// antifraudKeysBody is the anti-fraud key answer: a JSON object in
// parentheses, the form the browser library strips before parsing; data is
// the beacon key, empty in the sandbox.
const antifraudKeysBody = `({"data":""})`

func (s *Server) getAntifraudKeys(*call) (any, *Error) {
	return rawBody{contentType: "application/javascript", data: []byte(antifraudKeysBody)}, nil
}

// getAntifraudComponents answers the device-data request: an HTML fragment
// for the page, naming the session it was asked for. The session id is
// required. The route takes no credentials, so its answer does not depend
// on the merchant id of the path: an unknown merchant gets the same
// fragment as a real one, and the route tells nobody which ids exist.
func (s *Server) getAntifraudComponents(c *call) (any, *Error) {
	session := c.query.Get("s")
	if session == "" {
		return nil, errorf(openpay.ErrBadRequest, "The s parameter (the device session id) is required")
	}
	if len(session) > 255 {
		return nil, errorf(openpay.ErrInvalidParameter, "The s parameter (the device session id) is longer than 255 characters")
	}
	frag := `<div hidden data-openpay-device-session="` + html.EscapeString(session) + `"></div>`
	return rawBody{contentType: "text/html; charset=utf-8", data: []byte(frag)}, nil
}
