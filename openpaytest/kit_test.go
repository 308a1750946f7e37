package openpaytest_test

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The kit as a Go developer picks it up from go doc: each test is one
// item of what the kit promises, written from its public API.

const payerIP = "203.0.113.7"

// visaCharge is a card charge of amount with order_id, as a shop sends it.
func visaCharge(number, amount, orderID string) openpay.InlineCardCharge {
	return openpay.InlineCardCharge{
		Amount: openpay.MustAmount(amount), Description: "Order " + orderID, OrderID: orderID,
		Card: openpay.CardDetails{HolderName: "Ana", CardNumber: number, CVV2: openpaytest.CVV(number),
			ExpirationMonth: "12", ExpirationYear: "30"},
		Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"},
	}
}

// Close returns at once while a client's pool holds an idle connection (a
// connection that sent nothing yet, as a pool's spare one), as
// httptest.Server.Close does; it used to wait 2 s for it.
func TestCloseDoesNotWaitForIdleConnections(t *testing.T) {
	t.Parallel()
	srv, err := openpaytest.Start()
	require.NoError(t, err)
	c, err := srv.Client()
	require.NoError(t, err)
	_, err = c.Customers.Create(context.Background(), openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	spare, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	require.NoError(t, err)
	defer spare.Close()

	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(1500 * time.Millisecond): // a hang bound, well under the old 2 s wait
		t.Fatal("Close waited for the idle connection")
	}
	// The spare connection was closed by the server.
	require.NoError(t, spare.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err = spare.Read(make([]byte, 1))
	assert.Error(t, err)
}

// Events carry Raw, the body a webhook delivery would carry, as decoded
// events do in a receiver.
func TestEventsCarryRaw(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	c, err := srv.Client(openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	ch, err := c.Charges.Create(context.Background(), visaCharge(openpaytest.CardVisa, "100", "o-raw"))
	require.NoError(t, err)
	evs := srv.Events()
	require.NotEmpty(t, evs)
	ev := evs[len(evs)-1]
	require.NotEmpty(t, ev.Raw, "Events carries the delivered body")
	var body map[string]any
	require.NoError(t, json.Unmarshal(ev.Raw, &body))
	assert.Equal(t, string(openpay.EventTypeChargeSucceeded), body["type"])
	assert.Equal(t, ch.ID, body["transaction"].(map[string]any)["id"])
	assert.IsType(t, &openpay.ChargeEvent{}, ev.Payload())
}

// Every error of the kit is an *openpay.Error the SDK's sentinels match,
// or a documented sentinel; none speaks of the internal packages.
func TestKitErrorsAreSDKErrors(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic())
	_, err := srv.AdvanceClock(-time.Hour)
	assertSDKError(t, err, openpay.ErrInvalidParameter)

	_, err = srv.AddMerchant(srv.MerchantID, "", "")
	assertSDKError(t, err, openpay.ErrInvalidParameter)
	_, err = srv.AddMerchantIn("BR", "", "", "")
	assertSDKError(t, err, openpay.ErrInvalidParameter)
	assert.ErrorContains(t, err, "(use MX, CO or PE, in any case)")
	_, _, err = srv.AddGroup("no-such-merchant")
	assertSDKError(t, err, openpay.ErrInvalidParameter)

	_, err = openpaytest.Start(openpaytest.WithCountry("BR"))
	assertSDKError(t, err, openpay.ErrInvalidParameter)
	co, err := openpaytest.Start(openpaytest.WithCountry("co"))
	require.NoError(t, err, "a country in any case")
	assert.Equal(t, openpay.CountryColombia, co.Country)
	co.Close()

	_, err = srv.PayCharge("nope")
	assertSDKError(t, err, openpay.ErrNotFound)

	wall := openpaytest.NewServer(t)
	_, err = wall.AdvanceClock(time.Hour)
	assert.ErrorIs(t, err, openpaytest.ErrRealClock)
}

func assertSDKError(t *testing.T, err error, code openpay.Code) {
	t.Helper()
	var e *openpay.Error
	if assert.ErrorAs(t, err, &e) {
		if code != 0 {
			assert.ErrorIs(t, err, code)
		}
		assert.NotContains(t, err.Error(), "refserver")
		assert.NotContains(t, err.Error(), "apierr")
	}
}

// Client wires keys, base URL and country; a TLS server makes a production
// client testable: it talks to the server over https, and the server, as
// production, refuses the sandbox's test cards.
func TestClientIsWiredAndTLSTakesAProductionClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	co := openpaytest.NewServer(t, openpaytest.WithCountry(openpay.CountryColombia))
	c, err := co.Client()
	require.NoError(t, err)
	m, err := c.Merchant.Get(ctx)
	require.NoError(t, err)
	assert.Equal(t, co.MerchantID, m.ID)
	pub, err := co.PublicClient()
	require.NoError(t, err)
	_, err = pub.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	assert.ErrorIs(t, err, openpay.ErrPublicKeyNotAllowed, "the public client holds the public key")

	prod := openpaytest.NewServer(t, openpaytest.WithTLS(), openpaytest.WithProduction())
	require.True(t, strings.HasPrefix(prod.URL, "https://"))
	pc, err := prod.Client(openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	_, err = pc.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "100", "o-prod"))
	assert.ErrorIs(t, err, openpay.ErrTestCardInProduction, "a production client reached the production server")
	// A client built by hand with WithProduction works too, through the
	// server's HTTP client.
	hand, err := openpay.New(prod.MerchantID, prod.PrivateKey, openpay.WithProduction(), openpay.WithBaseURL(prod.URL),
		openpay.WithHTTPClient(prod.HTTPClient()))
	require.NoError(t, err)
	_, err = hand.Merchant.Get(ctx)
	require.NoError(t, err)
	// A client that does not trust the server is refused by TLS.
	plain, err := openpay.New(prod.MerchantID, prod.PrivateKey, openpay.WithProduction(), openpay.WithBaseURL(prod.URL),
		openpay.WithRetryPolicy(openpay.RetryPolicy{}))
	require.NoError(t, err)
	_, err = plain.Merchant.Get(ctx)
	var te *openpay.TransportError
	assert.ErrorAs(t, err, &te)
}

// go doc openpaytest.Server lists every simulation method: each method of
// Merchant is declared on Server too.
func TestServerDeclaresEveryMerchantMethod(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	declared := map[string]map[string]bool{"Merchant": {}, "Server": {}}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && declared[id.Name] != nil {
					declared[id.Name][fd.Name.Name] = true
				}
			}
		}
	}
	require.Contains(t, declared["Merchant"], "PayCharge")
	for m := range declared["Merchant"] {
		assert.True(t, declared["Server"][m], "Merchant.%s has no Server.%s: go doc openpaytest.Server would not list it", m, m)
	}
}

// A fault's pattern takes any {placeholder} name.
func TestFaultPatternTakesAnyPlaceholder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t)
	c, err := srv.Client(openpay.WithDefaultClientIP(payerIP), openpay.WithRetryPolicy(openpay.RetryPolicy{}))
	require.NoError(t, err)
	ch, err := c.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "100", "o-ph"))
	require.NoError(t, err)
	for _, p := range []string{"/v1/{merchant_id}/charges/{charge_id}", "/v1/{merchant_id}/charges/{id}", "/v1/{m}/charges/{transaction_id}"} {
		require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "GET", Path: p, ErrorCode: openpay.ErrNotFound}), p)
		_, err := c.Charges.Get(ctx, ch.ID)
		assert.ErrorIs(t, err, openpay.ErrNotFound, p)
		_, err = c.Charges.Get(ctx, ch.ID)
		assert.NoError(t, err, "%s took one request", p)
	}
}

// A fault aimed by the SDK's method name, for the next call as the SDK
// counts it (its retries included), leaves the books as the failure says:
// the failed create made nothing, the one after made one charge.
func TestFaultAimedAtTheNextSDKCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t)
	c, err := srv.Client(openpay.WithDefaultClientIP(payerIP),
		openpay.WithRetryPolicy(openpay.RetryPolicy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: time.Millisecond}))
	require.NoError(t, err)
	require.Contains(t, openpaytest.Operations(), "Charges.GetByOrderID")

	// GetByOrderID's lookup fails, all three attempts of it.
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Operation: "Charges.GetByOrderID", Calls: 1, ErrorCode: openpay.ErrServiceUnavailable}))
	var info openpay.ResponseInfo
	_, err = c.Charges.GetByOrderID(ctx, "o-1", openpay.WithResponseInfo(&info))
	assert.ErrorIs(t, err, openpay.ErrServiceUnavailable)
	assert.Equal(t, 3, info.Attempts, "every retry of the call failed")
	assert.Empty(t, srv.Faults(), "the fault took its one call")

	// The next Charges.Create fails whatever it retries; nothing is made.
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Operation: "Charges.Create", Calls: 1, ErrorCode: openpay.ErrServiceUnavailable}))
	_, err = c.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "100", "o-1"))
	assert.ErrorIs(t, err, openpay.ErrServiceUnavailable)
	_, err = c.Charges.GetByOrderID(ctx, "o-1")
	assert.ErrorIs(t, err, openpay.ErrNotFound, "the failed create made no charge")
	assert.Equal(t, "0.00", srv.Balance().String())

	ch, err := c.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "100", "o-1"))
	require.NoError(t, err, "the call after is not failed")
	found, err := c.Charges.GetByOrderID(ctx, "o-1")
	require.NoError(t, err)
	assert.Equal(t, ch.ID, found.ID)
	assert.Equal(t, "100.00", srv.Balance().String())

	// Count counts requests: the first attempt fails, the retry succeeds.
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/charges/{id}", Count: 1,
		ErrorCode: openpay.ErrServiceUnavailable}))
	_, err = c.Charges.Get(ctx, ch.ID, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.Equal(t, 2, info.Attempts)
}

// An Operation fault takes the create's own requests, not the lookup by
// order_id the SDK makes to settle a lost answer (aimed by its route): two
// lost answers, each settled by the SDK, one charge each.
func TestOperationFaultLeavesTheSettlingLookup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t)
	c, err := srv.Client(openpay.WithDefaultClientIP(payerIP), openpay.WithRetryPolicy(openpay.RetryPolicy{}))
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Operation: "Charges.Create", Calls: 2, Drop: openpaytest.DropAfter}))
	for _, order := range []string{"o-a", "o-b"} {
		var info openpay.ResponseInfo
		ch, err := c.Charges.Create(ctx, visaCharge(openpaytest.CardVisa, "100", order), openpay.WithResponseInfo(&info))
		require.NoError(t, err, order)
		assert.True(t, info.Reconciled, "%s: the answer was lost and the SDK's lookup found the charge", order)
		assert.Equal(t, order, ch.OrderID)
	}
	assert.Empty(t, srv.Faults())
	assert.Equal(t, "200.00", srv.Balance().String(), "one charge per order")
}

// A fault the kit refuses names the Go fields, never the JSON ones.
func TestFaultRefusalsNameGoFields(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	for _, tc := range []struct {
		f    openpaytest.Fault
		want string
	}{
		{openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges"}, "Fault.ErrorCode"},
		{openpaytest.Fault{Path: "/v1/{merchant_id}/charges", Drop: openpaytest.DropBefore}, "Fault.Method"},
		{openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/nothing", Drop: openpaytest.DropBefore}, "Fault.Path"},
		{openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", Delay: time.Hour}, "Fault.Delay"},
		{openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/charges", Count: -1, Drop: openpaytest.DropBefore}, "Fault.Count"},
		{openpaytest.Fault{Operation: "Charge.Create", Drop: openpaytest.DropBefore}, "Fault.Operation"},
		{openpaytest.Fault{Operation: "Charges.Create", Count: 1, Calls: 1, Drop: openpaytest.DropBefore}, "Fault.Calls"},
	} {
		err := srv.InjectFault(tc.f)
		assertSDKError(t, err, 0)
		assert.ErrorContains(t, err, tc.want)
		for _, wire := range []string{"'error_code'", "'delay_ms'", "'path'", "'count'"} {
			assert.NotContains(t, err.Error(), wire)
		}
	}
}

// After a restart on a data directory that names its merchant, Reset works
// and brings back the merchant as configured.
func TestResetAfterRestartOnDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, priv, pub = "mrestart000000000001", "sk_restart0000000000000000000001", "pk_restart0000000000000000000001"
	opts := []openpaytest.Option{openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, priv, pub)}
	first, err := openpaytest.Start(opts...)
	require.NoError(t, err)
	_, err = first.ReceiveMerchantSPEI(openpay.MustAmount("50"))
	require.NoError(t, err)
	first.Close()

	again, err := openpaytest.Start(opts...)
	require.NoError(t, err)
	assert.Equal(t, "50.00", again.Balance().String(), "the state was kept")
	require.NoError(t, again.Reset())
	assert.Equal(t, "0.00", again.Balance().String())
	again.Close()

	// With a seed for ids, the public key may be left to it.
	seeded := t.TempDir()
	sopts := []openpaytest.Option{openpaytest.WithDataDir(seeded), openpaytest.WithSeed(5), openpaytest.WithMerchant(id, priv, "")}
	first, err = openpaytest.Start(sopts...)
	require.NoError(t, err)
	pubKey := first.PublicKey
	_, err = first.ReceiveMerchantSPEI(openpay.MustAmount("20"))
	require.NoError(t, err)
	first.Close()
	again, err = openpaytest.Start(sopts...)
	require.NoError(t, err)
	assert.Equal(t, pubKey, again.PublicKey)
	require.NoError(t, again.Reset())
	assert.Equal(t, "0.00", again.Balance().String())
	again.Close()

	// Another key for the stored merchant is refused, not ignored.
	_, err = openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, "sk_another000000000000000000000001", pub))
	assert.ErrorIs(t, err, openpaytest.ErrDataDir)
	assert.ErrorContains(t, err, "private key")
}
