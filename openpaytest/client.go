package openpaytest

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver"
	"github.com/openpay-go/openpay/internal/transport"
)

// Client returns an SDK client wired to the server for the merchant: its
// id and private key, the server's URL, the merchant's country, and
// openpay.WithProduction when the server was started [WithProduction] and
// [WithTLS]; with WithTLS it trusts the server's certificate. opts come
// after these and may add to them (openpay.WithLogger,
// openpay.WithDefaultClientIP, openpay.WithRetryPolicy) or replace them.
// Its requests carry what a fault aimed in the SDK's terms needs
// ([Fault.Operation], [Fault.Calls]); replacing its HTTP client with
// openpay.WithHTTPClient loses that. The error is openpay.New's, for opts
// it refuses.
//
//	client, err := srv.Client(openpay.WithDefaultClientIP("203.0.113.7"))
func (m *Merchant) Client(opts ...openpay.Option) (*openpay.Client, error) {
	return m.newClient(m.PrivateKey, opts)
}

// PublicClient is [Merchant.Client] with the merchant's public key, as a
// browser or an app holds it: it may create cards and tokens only.
func (m *Merchant) PublicClient(opts ...openpay.Option) (*openpay.Client, error) {
	return m.newClient(m.PublicKey, opts)
}

func (m *Merchant) newClient(key string, opts []openpay.Option) (*openpay.Client, error) {
	s := m.srv
	wired := []openpay.Option{openpay.WithBaseURL(s.URL), openpay.WithCountry(m.Country), openpay.WithHTTPClient(s.HTTPClient())}
	if s.production && strings.HasPrefix(s.URL, "https://") {
		wired = append(wired, openpay.WithProduction())
	}
	return openpay.New(m.MerchantID, key, append(wired, opts...)...)
}

// HTTPClient returns an HTTP client for the server: with [WithTLS] it
// trusts the server's certificate; its requests sent by the SDK carry the
// labels of [Fault.Operation] and [Fault.Calls]. [Server.Close] closes
// its connections. Pass it to openpay.WithHTTPClient to build a client by
// hand.
func (s *Server) HTTPClient() *http.Client {
	return &http.Client{Transport: labeler{s.clientTransport}}
}

// labeler labels each attempt the SDK sends with the SDK method that sent
// it and the call it is an attempt of (refserver.FaultOperationHeader and
// FaultCallHeader), for faults aimed in the SDK's terms.
type labeler struct{ base http.RoundTripper }

func (l labeler) RoundTrip(r *http.Request) (*http.Response, error) {
	id, attempt, most, ok := transport.CallOf(r.Context())
	if !ok {
		return l.base.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper leaves the request it is given as it is
	r.Header.Set(refserver.FaultCallHeader, fmt.Sprintf("%d %d %d", id, attempt, most))
	if op := sdkOperation(); op != "" {
		r.Header.Set(refserver.FaultOperationHeader, op)
	}
	return l.base.RoundTrip(r)
}

// sdkPrefix starts the name of every function of package openpay.
const sdkPrefix = "github.com/openpay-go/openpay.(*"

// sdkOperation is the SDK method the calling goroutine is in, outermost
// first ("Charges.GetByOrderID"), or "" when it is in none or the request
// is the lookup by order_id that settles a lost create (reconcileFrame):
// that lookup is aimed by its route, as Fault's doc says. The SDK sends
// every attempt on the caller's goroutine.
func sdkOperation() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	op := ""
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, reconcileFrame) {
			return ""
		}
		if name, ok := operationOf(f.Function); ok {
			op = name
		}
		if !more {
			break
		}
	}
	return op
}

// reconcileFrame starts the name of the SDK function that looks a lost
// create up by its order_id.
const reconcileFrame = sdkPrefix + "Client).reconcileTx"

// operationOf names the SDK method a function of package openpay belongs
// to: "github.com/openpay-go/openpay.(*ChargesService).List.func1" is
// "Charges.List". Functions of other types than services are none.
func operationOf(function string) (string, bool) {
	rest, ok := strings.CutPrefix(function, sdkPrefix)
	if !ok {
		return "", false
	}
	typ, method, ok := strings.Cut(rest, ").")
	if !ok || !strings.HasSuffix(typ, "Service") {
		return "", false
	}
	method, _, _ = strings.Cut(method, ".")
	if method == "" || method[0] < 'A' || method[0] > 'Z' {
		return "", false
	}
	return strings.TrimSuffix(typ, "Service") + "." + method, true
}

// Operations returns the names [Fault.Operation] takes: every method of
// the SDK's services, "Service.Method", sorted.
func Operations() []string {
	return slices.Sorted(maps.Keys(operations()))
}

// operations is the set of SDK methods, by the types of the services a
// client and its scopes hold.
var operations = sync.OnceValue(func() map[string]bool {
	ops := make(map[string]bool)
	for _, holder := range []any{openpay.Client{}, openpay.CustomerScope{}, openpay.GroupScope{}, openpay.GroupCustomerScope{},
		openpay.GroupMerchantScope{}, openpay.GroupMerchantCustomerScope{}} {
		t := reflect.TypeOf(holder)
		for i := range t.NumField() {
			ft := t.Field(i).Type
			if !t.Field(i).IsExported() || ft.Kind() != reflect.Pointer || !strings.HasSuffix(ft.Elem().Name(), "Service") {
				continue
			}
			for j := range ft.NumMethod() {
				ops[strings.TrimSuffix(ft.Elem().Name(), "Service")+"."+ft.Method(j).Name] = true
			}
		}
	}
	return ops
})

func knownOperation(name string) bool { return operations()[name] }
