package openpay_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// argumentsCheckedFirst are the methods that refuse zero arguments (a year
// 0, an unknown report type, a search radius of 0) before they look at the
// client: on a zero client they fail with that error, not ErrZeroClient.
var argumentsCheckedFirst = map[string]bool{
	"ReportsService.Fees": true, "ReportsService.FeeDetails": true, "ReportsService.FeeDetailsPage": true,
	"ReportsService.PayoutDetails": true, "ReportsService.PayoutDetailsPage": true, "StoresService.Search": true,
}

// nilSafety walks, by reflection, every exported method of every service
// reachable from a client that New did not make, through its fields and
// through the methods that return scopes (Customer, Group, Merchant), and
// calls each with zero arguments.
type nilSafety struct {
	t        *testing.T
	services map[string]bool // service type names called
	calls    int
}

func (w *nilSafety) walk(v reflect.Value, path string) {
	typ := v.Type()
	name := typ.Elem().Name()
	if strings.HasSuffix(name, "Service") {
		w.services[name] = true
		for i := range typ.NumMethod() {
			w.call(v, typ.Method(i), path)
		}
		return
	}
	if !v.IsNil() { // a nil *Client has no fields to read
		for i := range typ.Elem().NumField() {
			f := typ.Elem().Field(i)
			if f.IsExported() && f.Type.Kind() == reflect.Pointer && strings.HasSuffix(f.Type.Elem().Name(), "Service") {
				w.walk(v.Elem().Field(i), path+"."+f.Name)
			}
		}
	}
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		mt := m.Type
		if mt.NumOut() != 1 || mt.Out(0).Kind() != reflect.Pointer || !strings.HasSuffix(mt.Out(0).Elem().Name(), "Scope") {
			continue
		}
		args := []reflect.Value{v}
		for j := 1; j < mt.NumIn(); j++ {
			args = append(args, reflect.ValueOf("x1"))
		}
		var out []reflect.Value
		if !w.noPanic(path+"."+m.Name, func() { out = m.Func.Call(args) }) {
			continue
		}
		if assert.False(w.t, out[0].IsNil(), "%s.%s returned nil", path, m.Name) {
			w.walk(out[0], path+"."+m.Name+"(x1)")
		}
	}
}

func (w *nilSafety) noPanic(what string, f func()) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			w.t.Errorf("%s panicked: %v", what, p)
			ok = false
		}
	}()
	f()
	return true
}

// call calls one service method with a background context, zero values
// (nil requests included) and no options, and checks that it answers an
// error: once, for an iterator.
func (w *nilSafety) call(svc reflect.Value, m reflect.Method, path string) {
	mt := m.Type
	what := fmt.Sprintf("%s.%s (%s)", path, m.Name, svc.Type())
	args := []reflect.Value{svc}
	for j := 1; j < mt.NumIn(); j++ {
		if mt.IsVariadic() && j == mt.NumIn()-1 {
			break
		}
		if in := mt.In(j); in == reflect.TypeFor[context.Context]() {
			args = append(args, reflect.ValueOf(context.Background()))
		} else {
			args = append(args, reflect.Zero(in))
		}
	}
	w.calls++
	var err error
	ok := w.noPanic(what, func() {
		out := m.Func.Call(args)
		if last := out[len(out)-1]; last.Kind() == reflect.Func { // an iter.Seq2[*T, error]
			err = w.rangeOnce(what, last)
			return
		}
		for _, o := range out[:len(out)-1] {
			assert.True(w.t, o.IsZero(), "%s: a result besides the error", what)
		}
		err, _ = out[len(out)-1].Interface().(error)
	})
	if !ok {
		return
	}
	if !assert.Error(w.t, err, what) {
		return
	}
	key := svc.Type().Elem().Name() + "." + m.Name
	if !argumentsCheckedFirst[key] {
		assert.True(w.t, errors.Is(err, openpay.ErrZeroClient) || errors.Is(err, openpay.ErrNilRequest), "%s: %v", what, err)
	}
}

// rangeOnce ranges over an iterator and returns the error it yields,
// checking that it yields exactly once, (nil, err).
func (w *nilSafety) rangeOnce(what string, seq reflect.Value) error {
	var yields int
	var err error
	yield := reflect.MakeFunc(seq.Type().In(0), func(a []reflect.Value) []reflect.Value {
		yields++
		assert.True(w.t, a[0].IsNil(), "%s yielded an object", what)
		err, _ = a[1].Interface().(error)
		return []reflect.Value{reflect.ValueOf(true)}
	})
	seq.Call([]reflect.Value{yield})
	assert.Equal(w.t, 1, yields, "%s: yields", what)
	return err
}

// exportedServices lists the package's exported types named ...Service,
// from its source, so that a service added later cannot escape the walk.
func exportedServices(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var names []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, s := range gd.Specs {
					if n := s.(*ast.TypeSpec).Name.Name; ast.IsExported(n) && strings.HasSuffix(n, "Service") {
						names = append(names, n)
					}
				}
			}
		}
	}
	return names
}

// Every service method, reached from a zero Client{} (whose services are
// nil pointers) or a nil *Client (through Customer and Group), answers an
// error and never panics (issue 22, item 5).
func TestZeroClientNeverPanics(t *testing.T) {
	t.Parallel()
	var zero openpay.Client
	w := &nilSafety{t: t, services: map[string]bool{}}
	w.walk(reflect.ValueOf(&zero), "Client{}")
	services := exportedServices(t)
	require.Greater(t, len(services), 15)
	for _, s := range services {
		assert.True(t, w.services[s], "%s is not reachable from a Client, so the walk does not call it", s)
	}
	assert.Greater(t, w.calls, 120)

	var nilClient *openpay.Client
	w = &nilSafety{t: t, services: map[string]bool{}}
	w.walk(reflect.ValueOf(nilClient), "(*Client)(nil)")
	assert.Greater(t, w.calls, 50)

	// The client's own methods.
	for _, c := range []*openpay.Client{&zero, nilClient} {
		assert.NotPanics(t, func() {
			assert.Empty(t, c.MerchantID())
			c.CloseIdleConnections()
			_ = fmt.Sprintf("%v %+v %#v %s", c, c, c, c)
		})
	}
	assert.Equal(t, "openpay.Client{not created with openpay.New}", zero.String())
	assert.Equal(t, zero.String(), zero.GoString())
	assert.Equal(t, "<nil>", fmt.Sprint(nilClient))
}

// The error a merchant sees from a client left zero, for example a struct
// field never set.
func TestZeroClientError(t *testing.T) {
	t.Parallel()
	type app struct{ pay openpay.Client }
	var a app
	ctx := context.Background()
	_, err := a.pay.Charges.Create(ctx, openpay.CardCharge{SourceID: "k1", Amount: openpay.MustAmount("10"), Description: "d"})
	require.ErrorIs(t, err, openpay.ErrZeroClient)
	assert.Equal(t, "openpay: the client was not created with openpay.New", err.Error())
	_, err = a.pay.Customer("c1").Cards.Get(ctx, "k1")
	assert.ErrorIs(t, err, openpay.ErrZeroClient)
	_, err = a.pay.Group("g1").Merchant("m1").Customer("c1").Charges.Refund(ctx, "tr1", openpay.RefundRequest{})
	assert.ErrorIs(t, err, openpay.ErrZeroClient)
	var group *openpay.GroupScope
	_, err = group.Customer("c1").Cards.Get(ctx, "k1")
	assert.ErrorIs(t, err, openpay.ErrZeroClient)
	for _, err := range a.pay.Customer("c1").Charges.List(ctx, nil) {
		assert.ErrorIs(t, err, openpay.ErrZeroClient)
	}
}

// A nil request, or a nil pointer to a request variant, is refused before
// sending with ErrNilRequest, at every scope.
func TestNilRequestsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	c, err := openpay.New(testMerchant, testKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.7"))
	require.NoError(t, err)
	ctx := context.Background()
	group := c.Group("g1").Merchant("m1")
	charges := []openpay.ChargeRequest{nil, (*openpay.CardCharge)(nil), (*openpay.InlineCardCharge)(nil), (*openpay.RedirectCharge)(nil),
		(*openpay.StoreCharge)(nil), (*openpay.BankCharge)(nil), (*openpay.PSECharge)(nil), (*openpay.AlipayCharge)(nil), (*openpay.IVRCharge)(nil)}
	for _, req := range charges {
		for name, create := range map[string]func(context.Context, openpay.ChargeRequest, ...openpay.CallOption) (*openpay.Transaction, error){
			"merchant": c.Charges.Create, "customer": c.Customer("c1").Charges.Create,
			"group": group.Charges.Create, "group customer": group.Customer("c1").Charges.Create,
		} {
			var info openpay.ResponseInfo
			tx, err := create(ctx, req, openpay.WithResponseInfo(&info))
			assert.Nil(t, tx)
			assert.ErrorIs(t, err, openpay.ErrNilRequest, "%s %T", name, req)
			assert.Zero(t, info.Attempts)
		}
	}
	for _, req := range []openpay.PayoutRequest{nil, (*openpay.BankAccountPayout)(nil), (*openpay.InlineBankAccountPayout)(nil),
		(*openpay.CardPayout)(nil), (*openpay.InlineCardPayout)(nil)} {
		_, err := c.Payouts.Create(ctx, req)
		assert.ErrorIs(t, err, openpay.ErrNilRequest, "%T", req)
		_, err = c.Customer("c1").Payouts.Create(ctx, req)
		assert.ErrorIs(t, err, openpay.ErrNilRequest, "%T", req)
	}
	_, err = c.Charges.Create(ctx, nil)
	assert.EqualError(t, err, "openpay: nil request: pass one of the ChargeRequest types")
	_, err = c.Payouts.Create(ctx, (*openpay.CardPayout)(nil))
	assert.EqualError(t, err, "openpay: nil request: a nil *openpay.CardPayout")
	assert.Zero(t, hits.Load(), "nothing was sent")

	// A pointer to a request is still a request.
	_, err = c.Charges.Create(ctx, &openpay.CardCharge{SourceID: "k1", Amount: openpay.MustAmount("10"), Description: "d"})
	assert.NotErrorIs(t, err, openpay.ErrNilRequest)
	assert.Equal(t, int32(1), hits.Load())
}

// The same, as a merchant's code meets it: against the reference server,
// nothing is created.
func TestNilRequestsAgainstReferenceServer(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.7"))
	require.NoError(t, err)
	ctx := context.Background()
	var req openpay.ChargeRequest // chosen by a switch that missed a case
	_, err = c.Charges.Create(ctx, req)
	require.ErrorIs(t, err, openpay.ErrNilRequest)
	var payout *openpay.BankAccountPayout
	_, err = c.Payouts.Create(ctx, payout)
	require.ErrorIs(t, err, openpay.ErrNilRequest)
	page, err := c.Charges.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, page)
	payouts, err := c.Payouts.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, payouts)
}

// What the README promises of a client New did not make holds as written:
// it names the zero Client and the scopes a nil *Client gives, whose calls
// fail with ErrZeroClient, and says that a service field of a nil *Client
// cannot be read (Go panics on the field read, before the SDK runs), where
// it once promised ErrZeroClient for those too.
func TestNilClientPromiseHolds(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	text := strings.Join(strings.Fields(string(readme)), " ")
	assert.NotContains(t, text, "a nil `*Client`, and the services and scopes taken from them")
	assert.Contains(t, text, "the scopes a nil `*Client`'s `Customer` and `Group` return) gives `openpay.ErrZeroClient`")
	assert.Contains(t, text, "A service field of a nil `*Client` (`c.Plans`) cannot be read at all")

	ctx := context.Background()
	var c *openpay.Client
	_, err = c.Customer("c1").Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: "p1", SourceID: "k1"})
	assert.ErrorIs(t, err, openpay.ErrZeroClient)
	_, err = c.Group("g1").Merchant("m1").Customer("c1").Subscriptions.Get(ctx, "s1")
	assert.ErrorIs(t, err, openpay.ErrZeroClient)
	assert.Panics(t, func() { _ = c.Plans }, "a field read through a nil pointer panics in the caller's code")
	var zero openpay.Client
	_, err = zero.Plans.Create(ctx, openpay.PlanRequest{Name: "Basic"})
	assert.ErrorIs(t, err, openpay.ErrZeroClient)
}
