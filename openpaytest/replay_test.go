package openpaytest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/conformance"
	"github.com/openpay-go/openpay/openpaytest"
)

// recordingTB is a testing.TB that keeps the failures it is told of rather
// than failing the test, so that a test can see what Replay reports.
type recordingTB struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.fatal = true
}

// The example cassette, recorded through the recorder from the SDK's calls
// (internal/conformance's TestExampleCassette -update), replays clean.
func TestReplayExampleCassette(t *testing.T) {
	openpaytest.Replay(t, "testdata/flows.jsonl")
}

func TestReplayReportsDifferences(t *testing.T) {
	b, err := os.ReadFile("testdata/flows.jsonl")
	require.NoError(t, err)
	altered := strings.Replace(string(b), `"error_code":3004`, `"error_code":3001`, 1)
	require.NotEqual(t, string(b), altered)
	path := filepath.Join(t.TempDir(), "altered.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(altered), 0o644))
	found, err := conformance.ScanFile(path)
	require.NoError(t, err)
	assert.Empty(t, found, "the cassette holds no secret")

	fake := &recordingTB{TB: t}
	openpaytest.Replay(fake, path)
	require.Len(t, fake.errors, 1)
	assert.False(t, fake.fatal)
	assert.Contains(t, fake.errors[0], "$.error_code: value: 3004, recorded 3001")
	assert.Regexp(t, `(?m)^DIFFER\s+createCharge\s`, fake.errors[0])
	assert.Regexp(t, `(?m)^agree\s+createCustomer\s`, fake.errors[0])

	// The allowlist excuses it.
	allow := filepath.Join(t.TempDir(), "allow.txt")
	require.NoError(t, os.WriteFile(allow, []byte("createCharge $.error_code\n"), 0o644))
	fake = &recordingTB{TB: t}
	openpaytest.Replay(fake, path, openpaytest.ReplayAllowlist(allow))
	assert.Empty(t, fake.errors)

	// A cassette that cannot be read stops the test.
	fake = &recordingTB{TB: t}
	openpaytest.Replay(fake, filepath.Join(t.TempDir(), "missing.jsonl"))
	assert.True(t, fake.fatal)
}

// ReplayWith passes options to the server: a strict server asks for what
// the sandbox does not, so the example cassette's charges now differ.
func TestReplayWithServerOptions(t *testing.T) {
	fake := &recordingTB{TB: t}
	openpaytest.Replay(fake, "testdata/flows.jsonl", openpaytest.ReplayWith(openpaytest.WithStrict()))
	require.Len(t, fake.errors, 1)
	assert.Regexp(t, `(?m)^DIFFER\s+createCharge\s`, fake.errors[0])
}

// TestReplayMerchantCassette: what a merchant records in real life. The
// sandbox account already held customers; the recording was made on an
// earlier day, with a card that has expired since and a list of the day's
// charges; the suite checks that a wrong key and a 4-digit CVV on a Visa
// are refused. The cassette replays clean with the helper's defaults. On
// today's clock it does not; a cassette with no exchange fails the test.
func TestReplayMerchantCassette(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2025, 1, 15, 10, 0, 0, 0, openpay.CountryMexico.Location())
	upstream := openpaytest.NewServer(t, openpaytest.WithClock(day))
	direct, err := openpay.New(upstream.MerchantID, upstream.PrivateKey, openpay.WithBaseURL(upstream.URL))
	require.NoError(t, err)
	for _, name := range []string{"Old One", "Old Two"} {
		_, err := direct.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: "old@example.com"})
		require.NoError(t, err)
	}

	path := filepath.Join(t.TempDir(), "flows.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	rec, err := conformance.NewRecorder(conformance.RecorderConfig{Upstream: upstream.URL, AllowUpstream: true, Out: f})
	require.NoError(t, err)
	proxy := httptest.NewServer(rec)
	c, err := openpay.New(upstream.MerchantID, upstream.PrivateKey, openpay.WithBaseURL(proxy.URL), openpay.WithDefaultClientIP("198.51.100.7"))
	require.NoError(t, err)
	wrong, err := openpay.New(upstream.MerchantID, "sk_0123456789abcdef0123456789abcdef", openpay.WithBaseURL(proxy.URL))
	require.NoError(t, err)

	_, err = wrong.Customers.ListPage(ctx, nil)
	var oe *openpay.Error
	require.ErrorAs(t, err, &oe)
	require.Equal(t, http.StatusUnauthorized, oe.HTTPStatus)
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, proxy.URL+"/v1/"+upstream.MerchantID+"/customers/"+cu.ID+"/cards",
		strings.NewReader(`{"holder_name":"Ana Gil","card_number":"`+openpaytest.CardVisa+`","cvv2":"1234","expiration_month":"02","expiration_year":"25"}`))
	require.NoError(t, err)
	req.SetBasicAuth(upstream.PrivateKey, "")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusPreconditionFailed, res.StatusCode, "a 4-digit CVV on a Visa")
	card, err := c.Customer(cu.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana Gil",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "02", ExpirationYear: "25"}})
	require.NoError(t, err)
	_, err = c.Customer(cu.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("30.00"), Description: "Order 1", OrderID: "o-1"})
	require.NoError(t, err)
	all, err := c.Customers.ListPage(ctx, nil)
	require.NoError(t, err)
	require.Len(t, all, 3, "the account's two customers and Ana")
	charges, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{Creation: openpay.NewDate(2025, time.January, 15)}})
	require.NoError(t, err)
	require.Len(t, charges, 1)
	proxy.Close()
	rec.Close()
	require.NoError(t, rec.Err())
	require.NoError(t, f.Close())

	// The recorder ran on the wall clock, the stand-in sandbox on its own
	// day: date the cassette on the sandbox's day, as a real one is.
	cas, err := conformance.ReadCassette(path)
	require.NoError(t, err)
	require.Len(t, cas.Exchanges, 7)
	cas.Header.Recorded = day.UTC()
	for i := range cas.Exchanges {
		cas.Exchanges[i].Started = day.Add(time.Duration(i) * time.Minute).UTC()
	}
	f, err = os.Create(path)
	require.NoError(t, err)
	require.NoError(t, cas.Encode(f))
	require.NoError(t, f.Close())
	found, err := conformance.ScanFile(path)
	require.NoError(t, err)
	assert.Empty(t, found)

	openpaytest.Replay(t, path)

	fake := &recordingTB{TB: t}
	openpaytest.Replay(fake, path, openpaytest.ReplayOnWallClock())
	require.NotEmpty(t, fake.errors, "today the card has expired and the day's list is empty")
	assert.Contains(t, fake.errors[0], "listCharges")

	header := filepath.Join(t.TempDir(), "empty.jsonl")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	first, _, _ := strings.Cut(string(b), "\n")
	require.NoError(t, os.WriteFile(header, []byte(first+"\n"), 0o644))
	fake = &recordingTB{TB: t}
	openpaytest.Replay(fake, header)
	assert.True(t, fake.fatal, "a cassette with no exchange checks nothing")
	require.Len(t, fake.errors, 1)
	assert.Contains(t, fake.errors[0], "no exchange")
}
