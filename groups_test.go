package openpay_test

import (
	"context"
	"iter"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/openapidoc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specOp is one operation of openapi.yaml.
type specOp struct{ id, method, path string }

func loadSpecOps(t *testing.T) []specOp {
	t.Helper()
	doc, err := openapidoc.Load("openapi.yaml")
	require.NoError(t, err)
	var ops []specOp
	for path, item := range doc.Paths {
		for method, op := range item {
			ops = append(ops, specOp{op.OperationID, method, path})
		}
	}
	return ops
}

// operationOf names the operation of openapi.yaml that a request's method
// and path address, "" for none; among templates that match, the one with
// the most literal segments wins.
func operationOf(ops []specOp, method, path string) string {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	best, bestLiterals := "", -1
	for _, op := range ops {
		tmpl := strings.Split(strings.TrimPrefix(op.path, "/"), "/")
		if op.method != method || len(tmpl) != len(segs) {
			continue
		}
		literals, ok := 0, true
		for i, s := range tmpl {
			if strings.HasPrefix(s, "{") {
				continue
			}
			if s != segs[i] {
				ok = false
				break
			}
			literals++
		}
		if ok && literals > bestLiterals {
			best, bestLiterals = op.id, literals
		}
	}
	return best
}

func drain[T any](seq iter.Seq2[*T, error]) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// The group scopes offer exactly the gateway's group API: every exported
// method of every group service is called here, each call addresses a group
// operation of openapi.yaml, and together they address all of them. An
// operation the gateway lacks at group scope (reading, listing or
// cancelling a charge, a card's points) has no method to call.
func TestGroupOperationsAreTheGatewayGroupAPI(t *testing.T) {
	srv := newShapeServer(t)
	c := newShapeClient(t, srv, openpay.WithDefaultClientIP("203.0.113.7"))
	ctx := context.Background()
	g := c.Group("grp1")
	gc, gm := g.Customer("a1"), g.Merchant("m2")
	gmc := gm.Customer("a1")
	charge := openpay.CardCharge{SourceID: "k1", Amount: openpay.MustAmount("10"), Description: "d", OrderID: "o1"}
	ignore := func(_ any, err error) error { return err }
	calls := map[string]struct {
		reply string
		call  func() error
	}{
		"Customers.Create": {`{"id":"x1"}`, func() error {
			return ignore(g.Customers.Create(ctx, openpay.CustomerRequest{Name: "n", Email: "e@example.com"}))
		}},
		"Customers.Update": {`{"id":"x1"}`, func() error {
			return ignore(g.Customers.Update(ctx, "a1", openpay.CustomerUpdateRequest{Name: "n", Email: "e@example.com"}))
		}},
		"Customers.Get":      {`{"id":"x1"}`, func() error { return ignore(g.Customers.Get(ctx, "a1")) }},
		"Customers.Delete":   {``, func() error { return g.Customers.Delete(ctx, "a1") }},
		"Customers.List":     {`[]`, func() error { return drain(g.Customers.List(ctx, nil)) }},
		"Customers.ListPage": {`[]`, func() error { return ignore(g.Customers.ListPage(ctx, nil)) }},
		"Customer.Cards.Create": {`{"id":"x1"}`, func() error {
			return ignore(gc.Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "h",
				CardNumber: "4111111111111111", CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}}))
		}},
		"Customer.Cards.CreateFromToken": {`{"id":"x1"}`, func() error {
			return ignore(gc.Cards.CreateFromToken(ctx, openpay.TokenCardRequest{TokenID: "t1", DeviceSessionID: "s"}))
		}},
		"Customer.Cards.Get": {`{"id":"x1"}`, func() error { return ignore(gc.Cards.Get(ctx, "k1")) }},
		"Customer.Cards.Update": {`{"id":"x1"}`, func() error {
			return gc.Cards.Update(ctx, "k1", openpay.CardUpdateRequest{HolderName: "h", MerchantID: "m2"})
		}},
		"Customer.Cards.Delete":   {``, func() error { return gc.Cards.Delete(ctx, "k1") }},
		"Customer.Cards.List":     {`[]`, func() error { return drain(gc.Cards.List(ctx, nil)) }},
		"Customer.Cards.ListPage": {`[]`, func() error { return ignore(gc.Cards.ListPage(ctx, nil)) }},
		"Merchant.Charges.Create": {txJSON, func() error { return ignore(gm.Charges.Create(ctx, charge)) }},
		"Merchant.Charges.Capture": {txJSON, func() error {
			return ignore(gm.Charges.Capture(ctx, "tr1", openpay.CaptureRequest{}))
		}},
		"Merchant.Charges.Refund": {txJSON, func() error {
			return ignore(gm.Charges.Refund(ctx, "tr1", openpay.RefundRequest{}))
		}},
		"Merchant.Customer.Charges.Create": {txJSON, func() error { return ignore(gmc.Charges.Create(ctx, charge)) }},
		"Merchant.Customer.Charges.Capture": {txJSON, func() error {
			return ignore(gmc.Charges.Capture(ctx, "tr1", openpay.CaptureRequest{}))
		}},
		"Merchant.Customer.Charges.Refund": {txJSON, func() error {
			return ignore(gmc.Charges.Refund(ctx, "tr1", openpay.RefundRequest{}))
		}},
		"Merchant.Customer.Subscriptions.Create": {`{"id":"x1"}`, func() error {
			return ignore(gmc.Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: "p1", SourceID: "k1"}))
		}},
		"Merchant.Customer.Subscriptions.Update": {`{"id":"x1"}`, func() error {
			return ignore(gmc.Subscriptions.Update(ctx, "s1", openpay.SubscriptionUpdateRequest{CancelAtPeriodEnd: openpay.Ptr(true)}))
		}},
		"Merchant.Customer.Subscriptions.Get":      {`{"id":"x1"}`, func() error { return ignore(gmc.Subscriptions.Get(ctx, "s1")) }},
		"Merchant.Customer.Subscriptions.Cancel":   {``, func() error { return gmc.Subscriptions.Cancel(ctx, "s1") }},
		"Merchant.Customer.Subscriptions.List":     {`[]`, func() error { return drain(gmc.Subscriptions.List(ctx, nil)) }},
		"Merchant.Customer.Subscriptions.ListPage": {`[]`, func() error { return ignore(gmc.Subscriptions.ListPage(ctx, nil)) }},
		"Merchant.Customer.Subscriptions.FindCreated": {`[{"id":"s1","plan_id":"p1","card":{"id":"k1"},"creation_date":"2100-01-01T00:00:00Z"}]`, func() error {
			return ignore(gmc.Subscriptions.FindCreated(ctx, openpay.SubscriptionRequest{PlanID: "p1", SourceID: "k1"}, time.Now()))
		}},
	}

	// What the scopes offer: the methods of their service fields, and the
	// ways from one scope to another.
	offered := map[string]bool{}
	for _, sc := range []struct {
		prefix string
		typ    reflect.Type
		next   []string
	}{
		{"", reflect.TypeFor[openpay.GroupScope](), []string{"Customer", "Merchant"}},
		{"Customer.", reflect.TypeFor[openpay.GroupCustomerScope](), nil},
		{"Merchant.", reflect.TypeFor[openpay.GroupMerchantScope](), []string{"Customer"}},
		{"Merchant.Customer.", reflect.TypeFor[openpay.GroupMerchantCustomerScope](), nil},
	} {
		for i := range sc.typ.NumField() {
			f := sc.typ.Field(i)
			if !f.IsExported() || f.Type.Kind() != reflect.Pointer {
				continue
			}
			for j := range f.Type.NumMethod() {
				offered[sc.prefix+f.Name+"."+f.Type.Method(j).Name] = true
			}
		}
		var next []string
		for i := range reflect.PointerTo(sc.typ).NumMethod() {
			next = append(next, reflect.PointerTo(sc.typ).Method(i).Name)
		}
		assert.Equal(t, sc.next, next, "%s: the scopes reachable from %s", sc.prefix, sc.typ)
	}
	assert.ElementsMatch(t, slices.Sorted(maps.Keys(offered)), slices.Sorted(maps.Keys(calls)),
		"every offered method, and only those, is listed here")

	ops := loadSpecOps(t)
	addressed := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		cl := calls[name]
		if cl.reply == "" {
			srv.reply(http.StatusNoContent, "")
		} else {
			srv.reply(http.StatusOK, cl.reply)
		}
		require.NoError(t, cl.call(), name)
		got := srv.last(t)
		op := operationOf(ops, got.Method, got.Path)
		assert.Contains(t, op, "Group", "%s sends %s %s, which is no group operation of openapi.yaml", name, got.Method, got.Path)
		addressed[op] = append(addressed[op], name)
	}
	var groupOps []string
	for _, op := range ops {
		if strings.Contains(op.id, "Group") {
			groupOps = append(groupOps, op.id)
		}
	}
	assert.ElementsMatch(t, groupOps, slices.Collect(maps.Keys(addressed)), "the group operations the SDK reaches")
	for op, names := range addressed {
		// A list has an iterator and a one-page call, and a card is stored
		// from its data or from a token; anything else is one method per
		// operation. The subscriptions' list is also how FindCreated
		// settles a create whose answer was lost.
		if op == "listGroupMerchantSubscriptions" {
			assert.Equal(t, []string{"Merchant.Customer.Subscriptions.FindCreated", "Merchant.Customer.Subscriptions.List",
				"Merchant.Customer.Subscriptions.ListPage"}, names)
			continue
		}
		if len(names) > 1 {
			assert.Len(t, names, 2, op)
			pair := [2]string{names[0][strings.LastIndex(names[0], ".")+1:], names[1][strings.LastIndex(names[1], ".")+1:]}
			assert.Contains(t, [][2]string{{"List", "ListPage"}, {"Create", "CreateFromToken"}}, pair, "%s: %v", op, names)
		}
	}
}

// groupEnv is a reference server with a group of its merchant, and the
// group's client, direct and through a proxy that loses responses.
type groupEnv struct {
	*noDoubleEnv
	groupID  string
	group    *openpay.Client // straight to the server
	groupVia *openpay.Client // through the faulty proxy
}

func newGroupEnv(t *testing.T, drop func(int, []byte) bool) *groupEnv {
	e := newNoDoubleEnv(t, drop)
	id, key, err := e.srv.AddGroup(e.srv.MerchantID)
	require.NoError(t, err)
	direct, err := openpay.New(id, key, openpay.WithBaseURL(e.srv.URL), openpay.WithDefaultClientIP("203.0.113.9"))
	require.NoError(t, err)
	via, err := openpay.New(id, key, openpay.WithBaseURL(e.proxy.URL), openpay.WithDefaultClientIP("203.0.113.9"),
		openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 3, WaitMin: time.Millisecond, WaitMax: 5 * time.Millisecond}))
	require.NoError(t, err)
	return &groupEnv{noDoubleEnv: e, groupID: id, group: direct, groupVia: via}
}

// The group API has no list of charges to look an order_id up in, so a
// charge made through the group whose response is lost is not retried,
// order_id or not: the caller learns that the outcome is unknown, and the
// server holds the one charge (found with the merchant's own client).
func TestGroupChargeOutcomeUnknownEvenWithOrderID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newGroupEnv(t, dropFirst(1))
	cust, err := e.group.Group(e.groupID).Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	g := e.groupVia.Group(e.groupID)
	for name, create := range map[string]func(openpay.ChargeRequest) (*openpay.Transaction, error){
		"merchant": func(r openpay.ChargeRequest) (*openpay.Transaction, error) {
			return g.Merchant(e.srv.MerchantID).Charges.Create(ctx, r)
		},
		"customer": func(r openpay.ChargeRequest) (*openpay.Transaction, error) {
			return g.Merchant(e.srv.MerchantID).Customer(cust.ID).Charges.Create(ctx, r)
		},
	} {
		before := e.proxy.posts.Load()
		orderID := "group-lost-" + name
		_, err := create(openpay.InlineCardCharge{Card: testCard(), Amount: openpay.MustAmount("40.00"), Description: "d", OrderID: orderID})
		assert.ErrorIs(t, err, openpay.ErrOutcomeUnknown, name)
		var te *openpay.TransportError
		if assert.ErrorAs(t, err, &te, name) {
			assert.True(t, te.MayHaveReached, name)
			assert.Equal(t, 1, te.Attempts, name)
		}
		assert.EqualValues(t, 1, e.proxy.posts.Load()-before, "%s: not retried", name)
		assert.Len(t, e.chargesWithOrderID(t, orderID), 1, "%s: charged once", name)
	}
}
