package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
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

// recordWithCLI runs `record` against a reference server standing in for
// the sandbox, makes SDK calls through it (drive), stops it and returns the
// cassette's path.
func recordWithCLI(t *testing.T, drive func(c *openpay.Client), opts ...openpaytest.Option) string {
	t.Helper()
	upstream := openpaytest.NewServer(t, opts...)
	out := filepath.Join(t.TempDir(), "flows.jsonl")
	url, stop := startRecordCLI(t, "--upstream", upstream.URL, "--allow-upstream", "--out", out)

	c, err := openpay.New(upstream.MerchantID, upstream.PrivateKey, openpay.WithBaseURL(url), openpay.WithDefaultClientIP("198.51.100.7"))
	require.NoError(t, err)
	drive(c)

	code, stderr := stop()
	require.Equal(t, exitOK, code, "stderr: %s", stderr)
	assert.Contains(t, stderr, "exchanges recorded")
	assertNoSecrets(t, out)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	for _, s := range []string{openpaytest.CardVisa, openpaytest.EmulatorCardDeclined, upstream.PrivateKey, `"cvv2":"123"`} {
		assert.NotContains(t, string(b), s)
	}
	return out
}

// customerFlow creates a customer, charges a card twice (the second is
// declined), reads the charge and asks for a customer that does not exist.
func customerFlow(t *testing.T) func(c *openpay.Client) {
	return func(c *openpay.Client) {
		bg := context.Background()
		cust, err := c.Customers.Create(bg, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
		require.NoError(t, err)
		card := openpay.CardDetails{HolderName: "Ana Gil", CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}
		ch, err := c.Customer(cust.ID).Charges.Create(bg, openpay.InlineCardCharge{Amount: openpay.MustAmount("120.00"), Description: "Order 7", OrderID: "order-7", Card: card})
		require.NoError(t, err)
		_, err = c.Customer(cust.ID).Charges.Get(bg, ch.ID)
		require.NoError(t, err)
		card.CardNumber = openpaytest.EmulatorCardDeclined
		_, err = c.Customer(cust.ID).Charges.Create(bg, openpay.InlineCardCharge{Amount: openpay.MustAmount("5.00"), Description: "Order 8", OrderID: "order-8", Card: card})
		require.ErrorIs(t, err, openpay.ErrCardDeclined)
		_, err = c.Customers.Get(bg, "anosuchcustomer12345")
		require.Error(t, err)
	}
}

// startRecordCLI runs `record` on a free loopback port with args and
// returns its URL, and stop, which interrupts it and returns its exit
// status and stderr.
func startRecordCLI(t *testing.T, args ...string) (string, func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- cli(ctx, append([]string{"record", "--listen", "127.0.0.1:0"}, args...), pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return strings.TrimSpace(line), func() (int, string) {
		cancel()
		return <-done, stderr.String()
	}
}

// assertNoSecrets scans a cassette the test wrote.
func assertNoSecrets(t *testing.T, path string) {
	t.Helper()
	found, err := conformance.ScanFile(path)
	require.NoError(t, err)
	assert.Empty(t, found, "secrets in %s", path)
}

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr strings.Builder
	code := cli(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRecordThenReplayCLI(t *testing.T) {
	path := recordWithCLI(t, customerFlow(t))

	code, out, errOut := runCLI("replay", path)
	require.Equal(t, exitOK, code, "%s%s", out, errOut)
	assert.Regexp(t, `(?m)^agree\s+createCustomerCharge\s+2 exchanges`, out)
	assert.Contains(t, out, "0 differ;")

	// --json, flags after the cassette.
	code, out, _ = runCLI("replay", path, "--json")
	require.Equal(t, exitOK, code)
	var rep conformance.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 5, rep.Exchanges)
	assert.Zero(t, rep.Differ)

	// An altered error code: reported with the operation and the path,
	// exit status 1.
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	altered := filepath.Join(t.TempDir(), "altered.jsonl")
	require.NoError(t, os.WriteFile(altered, []byte(strings.Replace(string(b), `"error_code":3001`, `"error_code":3003`, 1)), 0o644))
	assertNoSecrets(t, altered)
	code, out, _ = runCLI("replay", "--json", altered)
	require.Equal(t, exitDiffer, code, out)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	var differ []string
	for _, o := range rep.Operations {
		if !o.Agree {
			differ = append(differ, o.Operation+" "+o.First.Path)
		}
	}
	assert.Equal(t, []string{"createCustomerCharge $.error_code"}, differ)

	// The allowlist excuses it.
	allow := filepath.Join(t.TempDir(), "allow.txt")
	require.NoError(t, os.WriteFile(allow, []byte("# our declines\ncreateCustomerCharge $.error_code\n"), 0o644))
	code, out, _ = runCLI("replay", altered, "--allow", allow)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "1 difference excused")

	// An altered key and status in the text report.
	s := strings.Replace(string(b), `"status":200,"response":{"address":null`, `"status":201,"response":{"adress":null`, 1)
	require.NotEqual(t, string(b), s)
	require.NoError(t, os.WriteFile(altered, []byte(s), 0o644))
	assertNoSecrets(t, altered)
	code, out, _ = runCLI("replay", altered)
	assert.Equal(t, exitDiffer, code)
	assert.Regexp(t, `(?m)^DIFFER\s+createCustomer\s`, out)
	assert.Contains(t, out, "#1 @status: status: 200, recorded 201")
}

func TestRecordRefusals(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.jsonl")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--upstream", "https://api.openpay.mx", "--allow-upstream"}, "production"},
		{[]string{"--country", "co", "--upstream", "https://api.openpay.co"}, "production"},
		{[]string{"--upstream", "http://127.0.0.1:1"}, "not a sandbox host"},
		{[]string{"--listen", "0.0.0.0:0"}, "loopback only"},
		{[]string{"--country", "xx"}, "--country"},
		{[]string{"--upstream", "https://sandbox-api.openpay.pe", "--country", "mx", "--listen", "127.0.0.1:0"}, "does not match"},
	} {
		code, _, errOut := runCLI(append([]string{"record", "--out", out}, tt.args...)...)
		assert.Equal(t, exitError, code, "%v", tt.args)
		assert.Contains(t, errOut, tt.want, "%v", tt.args)
	}
	_, err := os.Stat(out)
	assert.ErrorIs(t, err, os.ErrNotExist, "a refusal leaves no cassette behind")

	code, _, errOut := runCLI("replay")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "one cassette")
	code, _, errOut = runCLI("replay", filepath.Join("..", "..", "openpaytest", "testdata", "flows.jsonl"), "--merchant-balance", "ten")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "--merchant-balance")
	code, _, errOut = runCLI("replay", "x.jsonl", "--target", "http://127.0.0.1:1")
	assert.Equal(t, exitError, code)
	assert.NotEmpty(t, errOut)
	code, usage, _ := runCLI("record", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, usage, "-allow-upstream")
}

// TestReplayMerchantBalance: a merchant payout recorded against a merchant
// with funds replays clean only when the in-process merchant has funds too.
func TestReplayMerchantBalance(t *testing.T) {
	path := recordWithCLI(t, func(c *openpay.Client) {
		_, err := c.Payouts.Create(context.Background(), openpay.InlineBankAccountPayout{Amount: openpay.MustAmount("300.00"),
			Description: "Withdrawal", OrderID: "payout-1", BankAccount: openpay.BankAccountRequest{HolderName: "Ana Gil", CLABE: "012680012426485980"}})
		require.NoError(t, err)
	}, openpaytest.WithMerchantBalance(openpay.MustAmount("5000.00")))

	code, out, _ := runCLI("replay", path)
	assert.Equal(t, exitDiffer, code, out)
	assert.Contains(t, out, "#1 @status: status: 412, recorded 200", "the merchant has no funds: 4001")

	code, out, _ = runCLI("replay", path, "--merchant-balance", "5000.00")
	assert.Equal(t, exitOK, code, out)
}

// TestRecordNeverReplacesACassette (item 1): record refuses an existing
// --out and leaves it as it was; --force replaces it. A cassette with no
// exchange fails its replay (exit 2) rather than pass with nothing
// checked.
func TestRecordNeverReplacesACassette(t *testing.T) {
	upstream := openpaytest.NewServer(t)
	out := filepath.Join(t.TempDir(), "flows.jsonl")
	require.NoError(t, os.WriteFile(out, []byte("precious\n"), 0o644))
	code, _, errOut := runCLI("record", "--upstream", upstream.URL, "--allow-upstream", "--listen", "127.0.0.1:0", "--out", out)
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "--force")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "precious\n", string(b), "the cassette is untouched")

	_, stop := startRecordCLI(t, "--force", "--upstream", upstream.URL, "--allow-upstream", "--out", out)
	code, stderr := stop()
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "0 exchanges recorded")
	assert.Contains(t, stderr, "replay fails")

	code, stdout, errOut := runCLI("replay", out)
	assert.Equal(t, exitError, code, stdout)
	assert.Contains(t, errOut, "no exchange")
}

// TestRecordReportsAnUpstreamThatDied (item 7): a request the upstream does
// not answer gets a 502, is said on stderr and counted in the summary.
func TestRecordReportsAnUpstreamThatDied(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	url, stop := startRecordCLI(t, "--upstream", gone.URL, "--allow-upstream", "--out", filepath.Join(t.TempDir(), "flows.jsonl"))
	res, err := http.Get(url + "/v1/m1/customers")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusBadGateway, res.StatusCode)
	code, stderr := stop()
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "GET /v1/m1/customers: the upstream did not answer")
	assert.Contains(t, stderr, "0 exchanges recorded in")
	assert.Contains(t, stderr, "; 1 request the upstream did not answer, not recorded")
}

// TestReplayClockAndStrictCLI (item 4): a cassette recorded on an earlier
// day, with a card that has expired since, replays clean on the recorded
// clock (the default) and on a --fake-clock time before the expiry, not on
// the wall clock; --strict runs the in-process server strict.
func TestReplayClockAndStrictCLI(t *testing.T) {
	day := time.Date(2025, 1, 15, 10, 0, 0, 0, openpay.CountryMexico.Location())
	path := recordWithCLI(t, func(c *openpay.Client) {
		bg := context.Background()
		cust, err := c.Customers.Create(bg, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
		require.NoError(t, err)
		card, err := c.Customer(cust.ID).Cards.Create(bg, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana Gil",
			CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "02", ExpirationYear: "25"}})
		require.NoError(t, err)
		_, err = c.Customer(cust.ID).Charges.Create(bg, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("30.00"), Description: "Order 1"})
		require.NoError(t, err)
	}, openpaytest.WithClock(day))
	// The recorder ran on the wall clock, the stand-in sandbox on its own
	// day: date the cassette on the sandbox's day, as a real one is.
	cas, err := conformance.ReadCassette(path)
	require.NoError(t, err)
	cas.Header.Recorded = day.UTC()
	for i := range cas.Exchanges {
		cas.Exchanges[i].Started = day.Add(time.Duration(i) * time.Minute).UTC()
	}
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, cas.Encode(f))
	require.NoError(t, f.Close())

	code, out, errOut := runCLI("replay", path)
	assert.Equal(t, exitOK, code, out+errOut)
	code, out, _ = runCLI("replay", path, "--fake-clock", "2025-01-20T09:00:00-06:00")
	assert.Equal(t, exitOK, code, out)
	code, out, _ = runCLI("replay", path, "--fake-clock", "wall")
	assert.Equal(t, exitDiffer, code, out)
	assert.Regexp(t, `(?m)^DIFFER\s+createCustomerCard\s`, out)
	code, _, errOut = runCLI("replay", path, "--fake-clock", "yesterday")
	assert.Equal(t, exitError, code)
	assert.Contains(t, errOut, "--fake-clock")

	// The charge sent no order_id: the lenient sandbox took it, a strict
	// server does not.
	code, out, _ = runCLI("replay", path, "--strict", "--json")
	assert.Equal(t, exitDiffer, code, out)
	var rep conformance.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.NotEmpty(t, rep.Differences)
	assert.Equal(t, "createCustomerCharge", rep.Differences[0].Operation)
	assert.NotEmpty(t, rep.Differences[0].Answer, "the strict server's error object is in the report")
}
