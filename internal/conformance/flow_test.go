package conformance_test

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/conformance"
	"github.com/openpay-go/openpay/openpaytest"
)

// recordFlow records the SDK's calls of a merchant's everyday flow through
// the recorder, against a reference server standing in for the sandbox, and
// returns the cassette's path.
func recordFlow(t *testing.T, opts ...openpaytest.Option) string {
	t.Helper()
	upstream := openpaytest.NewServer(t, opts...)
	r := startRecording(t, upstream, nil)
	driveFlow(t, r.proxy.URL, upstream.Merchant)
	require.NoError(t, r.rec.Err())
	assert.Greater(t, r.rec.Count(), 10)
	r.stop(t)
	return r.path
}

// driveFlow makes real SDK calls: customers, a saved card and a token,
// charges to each, a refund, a transfer, a payout, a list, a declined card
// and a 404.
func driveFlow(t *testing.T, baseURL string, m openpaytest.Merchant) {
	ctx := context.Background()
	c, err := openpay.New(m.MerchantID, m.PrivateKey, openpay.WithBaseURL(baseURL), openpay.WithDefaultClientIP("198.51.100.7"))
	require.NoError(t, err)
	pub, err := openpay.New(m.MerchantID, m.PublicKey, openpay.WithBaseURL(baseURL))
	require.NoError(t, err)

	buyer, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Pablo", LastName: "Soto", Email: "pablo@example.com", RequiresAccount: true})
	require.NoError(t, err)
	seller, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Marta", LastName: "Ruiz", Email: "marta@example.com", RequiresAccount: true})
	require.NoError(t, err)
	card, err := c.Customer(buyer.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Pablo Soto",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
	require.NoError(t, err)
	saved, err := c.Customer(buyer.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("1000.00"),
		Description: "Top-up", OrderID: "topup-1"})
	require.NoError(t, err)

	token, err := pub.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Ana Gil", CardNumber: "5555555555554444",
		CVV2: "321", ExpirationMonth: "01", ExpirationYear: "31"})
	require.NoError(t, err)
	charge, err := c.Charges.Create(ctx, openpay.CardCharge{SourceID: token.ID, Amount: openpay.MustAmount("250.50"),
		Description: "Order 42", OrderID: "order-42", DeviceSessionID: "dsid42",
		Customer: &openpay.ChargeCustomer{Name: "Ana", LastName: "Gil", Email: "ana@example.com"}})
	require.NoError(t, err)
	_, err = c.Charges.Refund(ctx, charge.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50.00"), Description: "one item back"})
	require.NoError(t, err)
	_, err = c.Charges.Get(ctx, saved.ID)
	require.NoError(t, err)

	_, err = c.Customer(buyer.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: seller.ID, Amount: openpay.MustAmount("400.00"),
		Description: "Payment for order 3001", OrderID: "transfer-1"})
	require.NoError(t, err)
	account, err := c.Customer(seller.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Marta Ruiz", CLABE: "012680012426485980"})
	require.NoError(t, err)
	_, err = c.Customer(seller.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: account.ID, Amount: openpay.MustAmount("100.00"),
		Description: "Withdrawal", OrderID: "payout-1"})
	require.NoError(t, err)

	_, err = c.Charges.ListPage(ctx, &openpay.TransactionListParams{})
	require.NoError(t, err)
	_, err = c.Customers.ListPage(ctx, &openpay.CustomerListParams{})
	require.NoError(t, err)

	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("99.00"), Description: "Stolen card", OrderID: "stolen-1",
		Card:     openpay.CardDetails{HolderName: "Ana Gil", CardNumber: openpaytest.CardStolen, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"}})
	require.ErrorIs(t, err, openpay.ErrCardStolen)
	_, err = c.Customers.Get(ctx, "anosuchcustomer12345")
	var oe *openpay.Error
	require.True(t, errors.As(err, &oe))
	require.Equal(t, 404, oe.HTTPStatus)
}

// TestRecordedFlowReplaysClean: a cassette recorded through the proxy
// against one reference server replays against another (with other ids)
// with every operation agreeing.
func TestRecordedFlowReplaysClean(t *testing.T) {
	path := recordFlow(t)
	cas, err := conformance.ReadCassette(path)
	require.NoError(t, err)

	ops := map[string]bool{}
	for _, e := range cas.Exchanges {
		ops[e.Operation] = true
	}
	for _, op := range []string{"createCustomer", "createCustomerCard", "createCustomerCharge", "createToken", "createCharge",
		"refundCharge", "createTransfer", "createCustomerPayout", "listCharges", "getCustomer"} {
		assert.True(t, ops[op], "the flow recorded %s", op)
	}

	target := openpaytest.NewServer(t)
	rep, err := conformance.Replay(context.Background(), cas, conformance.Target{URL: target.URL, MerchantID: target.MerchantID,
		PrivateKey: target.PrivateKey, PublicKey: target.PublicKey}, nil)
	require.NoError(t, err)
	var text strings.Builder
	require.NoError(t, rep.WriteText(&text))
	assert.True(t, rep.OK(), text.String())
	assert.Equal(t, len(cas.Exchanges), rep.Exchanges)
}

// assertNoSecrets scans a cassette the tests wrote: no card number, security
// code, key or password.
func assertNoSecrets(t *testing.T, path string) {
	t.Helper()
	found, err := conformance.ScanFile(path)
	require.NoError(t, err)
	assert.Empty(t, found, "secrets in %s", path)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, secret := range []string{openpaytest.CardVisa, openpaytest.CardStolen, "5555555555554444", `"123"`, `"321"`, "sk_", "pk_"} {
		assert.NotContains(t, string(b), secret)
	}
}

var update = flag.Bool("update", false, "record the example cassette openpaytest/testdata/flows.jsonl again")

// exampleCassette is the recorded flow checked in as an example (and
// replayed by openpaytest's tests).
var exampleCassette = filepath.Join("..", "..", "openpaytest", "testdata", "flows.jsonl")

// TestExampleCassette: the checked-in example holds no secret and is a
// cassette of the flow. With -update it is recorded again.
func TestExampleCassette(t *testing.T) {
	if *update {
		b, err := os.ReadFile(recordFlow(t, openpaytest.Deterministic()))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(exampleCassette), 0o755))
		require.NoError(t, os.WriteFile(exampleCassette, b, 0o644))
	}
	assertNoSecrets(t, exampleCassette)
	c, err := conformance.ReadCassette(exampleCassette)
	require.NoError(t, err)
	assert.Equal(t, 15, len(c.Exchanges))
}

// TestReplayTargetBehindAPrefix: a target's base path is kept.
func TestReplayTargetBehindAPrefix(t *testing.T) {
	cas, err := conformance.ReadCassette(exampleCassette)
	require.NoError(t, err)
	srv := openpaytest.NewServer(t)
	prefixed := httptest.NewServer(http.StripPrefix("/gateway", srv.Handler()))
	defer prefixed.Close()
	rep, err := conformance.Replay(context.Background(), cas, conformance.Target{URL: prefixed.URL + "/gateway/", MerchantID: srv.MerchantID,
		PrivateKey: srv.PrivateKey, PublicKey: srv.PublicKey}, nil)
	require.NoError(t, err)
	var text strings.Builder
	require.NoError(t, rep.WriteText(&text))
	assert.True(t, rep.OK(), text.String())
}
