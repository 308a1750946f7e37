package openpay

import (
	"context"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
)

// Do sends one request to an endpoint the SDK does not wrap, with
// everything the services have: the private key, the User-Agent, the
// retry policy, errors as [*Error] (redacted, bounded, matching the
// sentinels) or [*TransportError], and the call options ([WithClientIP],
// [WithHeader], [WithResponseInfo]).
//
// path is below the merchant ("customers/cus_1/bankaccounts", sent to
// /v1/{merchant_id}/customers/cus_1/bankaccounts), or, when it starts with
// "/", below the host ("/v1/cards/validate-bin"); it may end with a query
// ("charges?limit=5"). Each segment is an id as the services take it (1 to
// 45 characters, no '%', '\\' or control characters), so a path cannot leave
// the API. body, when not nil, is sent as JSON; a 2xx answer is decoded
// into out, which may be nil for an answer without body.
//
//	var acct map[string]any
//	err := c.Do(ctx, http.MethodGet, "customers/"+id+"/bankaccounts/"+bankID, nil, &acct)
//
// Do never looks a transaction up by order_id: a request that changes
// state is retried only when it surely did not reach the gateway, and an
// unclear outcome is reported as an error matching [ErrOutcomeUnknown].
// Use the services when they cover the operation.
func (c *Client) Do(ctx context.Context, method, path string, body, out any, opts ...CallOption) error {
	s := c.merchantScope()
	if strings.HasPrefix(path, "/") {
		s.prefix = nil
	}
	if _, err := s.url(); err != nil {
		return err
	}
	p, rawQuery, _ := strings.Cut(strings.TrimPrefix(path, "/"), "?")
	if !validMethod(method) {
		return invalidArgument("openpay: Do needs an HTTP method such as GET, POST, PUT or DELETE")
	}
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return invalidArgument("openpay: Do: the path's query is not valid")
	}
	var parts []string
	if p != "" {
		parts = strings.Split(p, "/")
	}
	u, err := s.url(parts...)
	if err != nil {
		return err
	}
	return c.send(ctx, apiRequest{method: method, url: u, query: query, body: body, opts: opts}, out)
}

func validMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// reservedHeaders are the headers the SDK sets itself; [WithHeader] cannot
// replace them.
var reservedHeaders = map[string]bool{
	"Authorization": true, "Content-Type": true, "Accept": true, "User-Agent": true,
	"X-Forwarded-For": true, "Host": true, "Content-Length": true,
}

// WithHeader adds a header to one call's request: a header the gateway
// documents for an operation the SDK does not model, or a tracing header of
// your own. The headers the SDK sets itself (Authorization, Content-Type,
// Accept, User-Agent, X-Forwarded-For: use [WithClientIP]) cannot be
// replaced: such a name fails the call before sending. Several WithHeader
// options add several headers; the same name twice keeps both values.
func WithHeader(name, value string) CallOption {
	k := textproto.CanonicalMIMEHeaderKey(name)
	switch {
	case reservedHeaders[k]:
		return CallOption{err: invalidArgument("openpay: WithHeader cannot set " + k + ", which the SDK sets itself")}
	case k == "" || strings.ContainsAny(k, " :\r\n") || strings.ContainsAny(value, "\r\n"):
		return CallOption{err: invalidArgument("openpay: WithHeader needs a header name and a single-line value")}
	}
	return CallOption{header: http.Header{k: {value}}}
}
