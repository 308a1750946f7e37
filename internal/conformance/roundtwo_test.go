package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/conformance"
	"github.com/openpay-go/openpay/openpaytest"
)

// recording is a recorder in front of a reference server standing in for
// the sandbox.
type recording struct {
	upstream *openpaytest.Server
	proxy    *httptest.Server
	rec      *conformance.Recorder
	path     string
	log      *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startRecording records through a proxy to upstream, an http.Handler
// wrapping it when wrap is not nil.
func startRecording(t *testing.T, upstream *openpaytest.Server, wrap func(http.Handler) http.Handler) *recording {
	t.Helper()
	base := upstream.URL
	if wrap != nil {
		front := httptest.NewServer(wrap(upstream.Handler()))
		t.Cleanup(front.Close)
		base = front.URL
	}
	path := filepath.Join(t.TempDir(), "flows.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	log := &lockedBuffer{}
	rec, err := conformance.NewRecorder(conformance.RecorderConfig{Upstream: base, AllowUpstream: true, Out: f, Log: log,
		Country: upstream.Country})
	require.NoError(t, err)
	proxy := httptest.NewServer(rec)
	t.Cleanup(func() {
		proxy.Close()
		rec.Close()
		f.Close()
	})
	return &recording{upstream: upstream, proxy: proxy, rec: rec, path: path, log: log}
}

// stop ends the recording and returns the cassette, checked for secrets.
func (r *recording) stop(t *testing.T) *conformance.Cassette {
	t.Helper()
	r.proxy.Close()
	require.NoError(t, r.rec.Err())
	assertNoSecrets(t, r.path)
	c, err := conformance.ReadCassette(r.path)
	require.NoError(t, err)
	return c
}

// clients are the merchant's SDK clients through the recorder.
func (r *recording) clients(t *testing.T) (*openpay.Client, *openpay.Client) {
	t.Helper()
	m := r.upstream.Merchant
	c, err := openpay.New(m.MerchantID, m.PrivateKey, openpay.WithBaseURL(r.proxy.URL), openpay.WithCountry(r.upstream.Country),
		openpay.WithDefaultClientIP("198.51.100.7"))
	require.NoError(t, err)
	pub, err := openpay.New(m.MerchantID, m.PublicKey, openpay.WithBaseURL(r.proxy.URL), openpay.WithCountry(r.upstream.Country))
	require.NoError(t, err)
	return c, pub
}

// raw sends a request through the recorder as curl would, with the given
// key, and returns the status.
func (r *recording) raw(t *testing.T, method, path, key, body string) int {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.proxy.URL+"/v1/"+r.upstream.MerchantID+path, rd)
	require.NoError(t, err)
	req.SetBasicAuth(key, "")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// replayOn replays a cassette against a fresh server made with opts; with
// clock set the server's fake clock follows the recording.
func replayOn(t *testing.T, c *conformance.Cassette, target conformance.Target) *conformance.Report {
	t.Helper()
	rep, err := conformance.Replay(context.Background(), c, target, nil)
	require.NoError(t, err)
	return rep
}

func targetOf(srv *openpaytest.Server) conformance.Target {
	return conformance.Target{URL: srv.URL, MerchantID: srv.MerchantID, PrivateKey: srv.PrivateKey, PublicKey: srv.PublicKey}
}

func reportText(t *testing.T, rep *conformance.Report) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	return b.String()
}

// TestEmptyCassetteFailsReplay (item 1): a cassette with only its header
// checks nothing, and its replay is an error, not a pass.
func TestEmptyCassetteFailsReplay(t *testing.T) {
	c, err := conformance.DecodeCassette(strings.NewReader(`{"format":"openpay-cassette/1","country":"MX","upstream":"https://sandbox-api.openpay.mx","recorded":"2026-03-10T18:00:00Z"}` + "\n"))
	require.NoError(t, err)
	srv := openpaytest.NewServer(t)
	_, err = conformance.Replay(context.Background(), c, targetOf(srv), nil)
	assert.ErrorIs(t, err, conformance.ErrNoExchanges)
}

// TestNegativeTestsReplay (item 2): a merchant's suite checks that a wrong
// key is refused, that a 4-digit CVV on a Visa is refused, and that a card
// number with spaces is refused. The cassette keeps what each was about,
// without the secret, and the replay sends equivalent invalid values: each
// refusal replays as recorded.
func TestNegativeTestsReplay(t *testing.T) {
	r := startRecording(t, openpaytest.NewServer(t), nil)
	m := r.upstream.Merchant
	card := func(number, cvv string) string {
		return `{"holder_name":"Ana Gil","card_number":"` + number + `","cvv2":"` + cvv + `","expiration_month":"12","expiration_year":"30"}`
	}
	assert.Equal(t, http.StatusUnauthorized, r.raw(t, http.MethodGet, "/customers", "sk_0123456789abcdef0123456789abcdef", ""))
	assert.Equal(t, http.StatusUnauthorized, r.raw(t, http.MethodPost, "/tokens", "pk_0123456789abcdef0123456789abcdef", card(openpaytest.CardVisa, "123")))
	badCVV := r.raw(t, http.MethodPost, "/cards", m.PrivateKey, card(openpaytest.CardVisa, "1234"))
	assert.Equal(t, http.StatusPreconditionFailed, badCVV)
	spaced := r.raw(t, http.MethodPost, "/cards", m.PrivateKey, card("4111 1111 1111 1111", "123"))
	assert.Equal(t, http.StatusBadRequest, spaced)
	assert.Equal(t, http.StatusOK, r.raw(t, http.MethodPost, "/cards", m.PrivateKey, card(openpaytest.CardVisa, "123")))
	c := r.stop(t)
	require.Len(t, c.Exchanges, 5)

	assert.Equal(t, "refused", c.Exchanges[0].Credential)
	assert.Equal(t, "private", c.Exchanges[0].Auth)
	assert.Equal(t, "refused", c.Exchanges[1].Credential)
	assert.Equal(t, "public", c.Exchanges[1].Auth)
	assert.Equal(t, map[string]conformance.Code{"$.cvv2": {Layout: "9999"}}, c.Exchanges[2].Codes)
	assert.Equal(t, "9999 9999 9999 9999", c.Exchanges[3].Cards["$.card_number"].Layout)
	assert.Empty(t, c.Exchanges[4].Credential)

	rep := replayOn(t, c, targetOf(openpaytest.NewServer(t)))
	assert.True(t, rep.OK(), reportText(t, rep))
	assert.Equal(t, 5, rep.Exchanges)
}

// TestListsCompareTheCassettesObjects (item 3): the sandbox account already
// held customers and charges; the recorded lists hold them, the replay's
// fresh server does not. The lists compare on the objects the cassette
// made, in order; asked for whole lists, the replay reports the old ones.
func TestListsCompareTheCassettesObjects(t *testing.T) {
	ctx := context.Background()
	upstream := openpaytest.NewServer(t)
	old, err := openpay.New(upstream.MerchantID, upstream.PrivateKey, openpay.WithBaseURL(upstream.URL))
	require.NoError(t, err)
	for _, name := range []string{"Old One", "Old Two", "Old Three"} {
		_, err = old.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: "old@example.com"})
		require.NoError(t, err)
	}
	_, err = old.Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("10.00"), Description: "old", OrderID: "old-1",
		Card:     openpay.CardDetails{HolderName: "Old", CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Customer: &openpay.ChargeCustomer{Name: "Old", Email: "old@example.com"}}, openpay.WithClientIP("198.51.100.9"))
	require.NoError(t, err)

	r := startRecording(t, upstream, nil)
	c, _ := r.clients(t)
	a, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	b, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Bea", Email: "bea@example.com"})
	require.NoError(t, err)
	_, err = c.Customer(a.ID).Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("20.00"), Description: "new", OrderID: "new-1",
		Card: openpay.CardDetails{HolderName: "Ana", CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
	require.NoError(t, err)
	list, err := c.Customers.ListPage(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list, 5, "the account's three customers and the two new ones")
	assert.Equal(t, b.ID, list[0].ID)
	charges, err := c.Charges.ListPage(ctx, nil)
	require.NoError(t, err)
	require.Len(t, charges, 2)
	cas := r.stop(t)

	rep := replayOn(t, cas, targetOf(openpaytest.NewServer(t)))
	assert.True(t, rep.OK(), reportText(t, rep))

	whole := targetOf(openpaytest.NewServer(t))
	whole.WholeLists = true
	rep = replayOn(t, cas, whole)
	assert.False(t, rep.OK())
	assert.Contains(t, reportText(t, rep), "$: length: 2, recorded 5")

	// The order of the cassette's own objects is compared: the newest
	// first, as recorded.
	for i := range cas.Exchanges {
		if cas.Exchanges[i].Operation == "listCustomers" {
			var items []json.RawMessage
			require.NoError(t, json.Unmarshal(cas.Exchanges[i].Response, &items))
			items[0], items[1] = items[1], items[0]
			cas.Exchanges[i].Response, err = json.Marshal(items)
			require.NoError(t, err)
		}
	}
	rep = replayOn(t, cas, targetOf(openpaytest.NewServer(t)))
	assert.False(t, rep.OK(), "swapped objects differ")
	assert.Contains(t, reportText(t, rep), "$: order: another order, recorded the recorded order")

	// An object of an id no earlier answer held is an older object, left
	// out; one the cassette saw that the target's list lacks is named.
	for i := range cas.Exchanges {
		if cas.Exchanges[i].Operation == "listCharges" {
			var items []map[string]any
			require.NoError(t, json.Unmarshal(cas.Exchanges[i].Response, &items))
			older, seen := map[string]any{}, map[string]any{}
			for k, v := range items[0] {
				older[k], seen[k] = v, v
			}
			older["id"] = "tr0000000000000000zz"
			seen["id"] = a.ID // the customer's id: the cassette saw it, the target lists no charge of that id
			items = append([]map[string]any{older, seen}, items...)
			cas.Exchanges[i].Response, err = json.Marshal(items)
			require.NoError(t, err)
		}
	}
	rep = replayOn(t, cas, targetOf(openpaytest.NewServer(t)))
	text := reportText(t, rep)
	assert.Contains(t, text, "$[0]: missing element: absent, recorded the object "+strconv.Quote(a.ID))
	assert.NotContains(t, text, "tr0000000000000000zz")
}

// TestCassetteFromAnEarlierDay (item 4): recorded months ago, with a card
// that expired since and a list filtered by the recording day. Replayed on
// the recorded clock (the helper's default) it is clean; on today's clock
// it is not.
func TestCassetteFromAnEarlierDay(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2025, 1, 15, 10, 0, 0, 0, openpay.CountryMexico.Location())
	r := startRecording(t, openpaytest.NewServer(t, openpaytest.WithClock(day)), nil)
	c, _ := r.clients(t)
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	card, err := c.Customer(cu.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Ana Gil",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "02", ExpirationYear: "25"}})
	require.NoError(t, err)
	_, err = c.Customer(cu.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("30.00"), Description: "Order 1", OrderID: "o-1"})
	require.NoError(t, err)
	list, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{Creation: openpay.NewDate(2025, time.January, 15)}})
	require.NoError(t, err)
	require.Len(t, list, 1)
	cas := r.stop(t)
	// The recorder ran on the wall clock; the sandbox on its own day.
	// Say the recording was made on the sandbox's day, as it would be.
	cas.Header.Recorded = day.UTC()
	for i := range cas.Exchanges {
		cas.Exchanges[i].Started = day.Add(time.Duration(i) * time.Second).UTC()
	}
	path := filepath.Join(t.TempDir(), "old.jsonl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, cas.Encode(f))
	require.NoError(t, f.Close())

	openpaytest.Replay(t, path)

	wall := replayOn(t, cas, targetOf(openpaytest.NewServer(t)))
	assert.False(t, wall.OK(), "on today's clock the card has expired and the day's list is empty")
	text := reportText(t, wall)
	assert.Contains(t, text, "createCustomerCard")
	assert.Contains(t, text, "listCharges")
}

// TestReportShowsEveryDifference (item 5): two differences in one exchange
// are both reported under it; a status mismatch carries the target's error
// object; the JSON report holds all of them.
func TestReportShowsEveryDifference(t *testing.T) {
	c, err := conformance.ReadCassette(recordFlow(t))
	require.NoError(t, err)
	alter(t, c, "createCustomerCharge", nil, func(_ *conformance.Exchange, b map[string]any) {
		b["status"] = "in_progress"
		b["amount"] = json.Number("999.00")
	})
	alter(t, c, "refundCharge", nil, func(e *conformance.Exchange, b map[string]any) { e.Status = 201 })
	alter(t, c, "createCharge", isError(3004), func(e *conformance.Exchange, b map[string]any) {
		e.Status = 200
		b["error_code"] = json.Number("3001")
	})
	rep := replay(t, c, nil)
	require.False(t, rep.OK())
	byOp := map[string]*conformance.ExchangeReport{}
	for _, x := range rep.Differences {
		byOp[x.Operation] = x
	}
	charge := byOp["createCustomerCharge"]
	require.NotNil(t, charge)
	var paths []string
	for _, d := range charge.Differences {
		paths = append(paths, d.Path)
	}
	assert.ElementsMatch(t, []string{"$.amount", "$.status"}, paths)
	assert.Equal(t, charge.Seq+1, charge.Line, "a recorder's cassette: exchange #N on line N+1")
	assert.Empty(t, charge.Answer, "the status agreed")

	declined := byOp["createCharge"]
	require.NotNil(t, declined)
	var answer struct {
		ErrorCode int    `json:"error_code"`
		Category  string `json:"category"`
	}
	require.NoError(t, json.Unmarshal(declined.Answer, &answer), "a status mismatch shows the target's answer")
	assert.Equal(t, 3004, answer.ErrorCode)

	text := reportText(t, rep)
	assert.Contains(t, text, "$.amount: value: 1000.0, recorded 999.00")
	assert.Contains(t, text, "$.status: value:")
	assert.Contains(t, text, `the target answered: {"category":"gateway"`)
	assert.Contains(t, text, "(and 1 more)")

	var js bytes.Buffer
	require.NoError(t, rep.WriteJSON(&js))
	var doc struct {
		Differences []struct {
			Seq         int
			Differences []struct{ Path string }
			Answer      json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	total := 0
	for _, x := range doc.Differences {
		total += len(x.Differences)
	}
	want := 0
	for _, x := range rep.Differences {
		want += len(x.Differences)
	}
	assert.Equal(t, want, total)
	assert.GreaterOrEqual(t, total, 5)
}

// TestIDsCheckedOnFirstSight (item 6): an id of the wrong shape is reported
// where it first appears, and an order_id the request sent must come back
// as sent, not be taken for a new id.
func TestIDsCheckedOnFirstSight(t *testing.T) {
	c, err := conformance.ReadCassette(recordFlow(t))
	require.NoError(t, err)
	var first int
	alter(t, c, "createCustomer", nil, func(e *conformance.Exchange, b map[string]any) {
		first = e.Seq
		b["id"] = "CUS-" + b["id"].(string)
	})
	rep := replay(t, c, nil)
	require.False(t, rep.OK())
	require.NotEmpty(t, rep.Differences)
	x := rep.Differences[0]
	assert.Equal(t, first, x.Seq, "reported at the exchange that first showed the id")
	assert.Equal(t, "$.id", x.Differences[0].Path)
	assert.Equal(t, "shape", x.Differences[0].Kind)

	c, err = conformance.ReadCassette(recordFlow(t))
	require.NoError(t, err)
	alter(t, c, "createCharge", func(b map[string]any) bool { return b["order_id"] == "order-42" }, func(_ *conformance.Exchange, b map[string]any) {
		b["order_id"] = "order-43"
	})
	d := firstDifference(t, replay(t, c, nil), "createCharge")
	assert.Equal(t, "$.order_id", d.Path)
	assert.Equal(t, "value", d.Kind)
}

// TestRecorderOrderAndFailures (item 7): exchanges are written in the order
// their requests started, even when the first answers last; a request the
// upstream does not answer is logged and counted.
func TestRecorderOrderAndFailures(t *testing.T) {
	release := make(chan struct{})
	slow := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/customers") {
				<-release
			}
			h.ServeHTTP(w, req)
		})
	}
	r := startRecording(t, openpaytest.NewServer(t), slow)
	c, _ := r.clients(t)
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := c.Customers.ListPage(ctx, nil)
		done <- err
	}()
	// The list reached the recorder first.
	require.Eventually(t, func() bool { return r.rec.Pending() == 1 }, 5*time.Second, 5*time.Millisecond)
	_, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	close(release)
	require.NoError(t, <-done)
	cas := r.stop(t)
	require.Len(t, cas.Exchanges, 2)
	assert.Equal(t, "listCustomers", cas.Exchanges[0].Operation)
	assert.Equal(t, 1, cas.Exchanges[0].Seq)
	assert.Equal(t, 2, cas.Exchanges[0].Line)
	assert.Equal(t, "createCustomer", cas.Exchanges[1].Operation)
	assert.Equal(t, 2, cas.Exchanges[1].Seq)

	// An upstream that is gone: the client gets 502, stderr says so, the
	// recorder counts it, nothing is written.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	var log bytes.Buffer
	var out bytes.Buffer
	rec, err := conformance.NewRecorder(conformance.RecorderConfig{Upstream: gone.URL, AllowUpstream: true, Out: &out, Log: &log})
	require.NoError(t, err)
	defer rec.Close()
	w := httptest.NewRecorder()
	rec.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/m1/charges?cvv2=123&card_number=4111111111111111", nil))
	assert.Equal(t, http.StatusBadGateway, w.Code)
	assert.Equal(t, 1, rec.Failed())
	assert.Equal(t, 0, rec.Count())
	assert.Contains(t, log.String(), "GET /v1/m1/charges: the upstream did not answer")
	// The query is not logged. (Not a check for "123" alone: the dead
	// upstream's random port may hold those digits, as 42123 once did.)
	assert.NotContains(t, log.String(), "cvv2")
	assert.NotContains(t, log.String(), "4111111111111111")
}

// TestCassetteReading (item 7): a partial last line is dropped with a
// warning; a misspelt member is an error naming its line; a byte order
// mark is skipped; an allowlist rule naming no operation is refused.
func TestCassetteReading(t *testing.T) {
	b, err := os.ReadFile(exampleCassette)
	require.NoError(t, err)
	whole, err := conformance.DecodeCassette(bytes.NewReader(b))
	require.NoError(t, err)
	require.Empty(t, whole.Warnings)

	cut := append(append([]byte(nil), b...), []byte(`{"seq":16,"operation":"getCha`)...)
	c, err := conformance.DecodeCassette(bytes.NewReader(cut))
	require.NoError(t, err)
	assert.Len(t, c.Exchanges, len(whole.Exchanges))
	require.Len(t, c.Warnings, 1)
	assert.Contains(t, c.Warnings[0], "line 17")
	rep := replay(t, c, nil)
	assert.True(t, rep.OK(), reportText(t, rep))
	assert.Equal(t, c.Warnings, rep.Warnings)

	misspelt := bytes.Replace(b, []byte(`"status":200`), []byte(`"staus":200`), 1)
	_, err = conformance.DecodeCassette(bytes.NewReader(misspelt))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 2")
	assert.Contains(t, err.Error(), "staus")

	bom := append([]byte("\xef\xbb\xbf"), b...)
	c, err = conformance.DecodeCassette(bytes.NewReader(bom))
	require.NoError(t, err)
	assert.Len(t, c.Exchanges, len(whole.Exchanges))

	_, err = conformance.ParseAllowlist(strings.NewReader("# ok\ncreateCharge $.card\ncreateChrage $.card\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 3")
}

// TestPersonalDataScrubbed (item 7): a full CLABE, metadata secrets and a
// cvv2 query parameter never reach the cassette; the CLABE's bank and
// validity are kept and the bank account replays.
func TestPersonalDataScrubbed(t *testing.T) {
	r := startRecording(t, openpaytest.NewServer(t), nil)
	c, _ := r.clients(t)
	ctx := context.Background()
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Marta", Email: "marta@example.com", RequiresAccount: true})
	require.NoError(t, err)
	_, err = c.Customer(cu.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Marta Ruiz", CLABE: "012680012426485980"})
	require.NoError(t, err)
	m := r.upstream.Merchant
	assert.Equal(t, http.StatusOK, r.raw(t, http.MethodPost, "/customers/"+cu.ID+"/charges", m.PrivateKey,
		`{"method":"card","amount":10,"description":"x","card":{"holder_name":"Ana","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"},
		"metadata":{"api_token":"tok-s3cr3t-value","portal_password":"hunter22","order_ref":"A-77"}}`))
	r.raw(t, http.MethodGet, "/charges?cvv2=987&limit=5", m.PrivateKey, "")
	cas := r.stop(t)
	raw, err := os.ReadFile(r.path)
	require.NoError(t, err)
	for _, secret := range []string{"012680012426485980", "tok-s3cr3t-value", "hunter22", "cvv2=987"} {
		assert.NotContains(t, string(raw), secret)
	}
	assert.Contains(t, string(raw), "A-77", "metadata that is no secret is kept")
	var bank conformance.Exchange
	for _, e := range cas.Exchanges {
		if e.Operation == "createBankAccount" {
			bank = e
		}
	}
	assert.Equal(t, conformance.Clabe{Bank: "012", Length: 18, Valid: true}, bank.Clabes["$.clabe"])
	last := cas.Exchanges[len(cas.Exchanges)-1]
	assert.Equal(t, "999", last.Codes["?cvv2"].Layout)
	assert.Contains(t, last.Query, "cvv2=%5Bscrubbed%5D")
	assert.NotContains(t, last.Query, "987")

	rep := replayOn(t, cas, targetOf(openpaytest.NewServer(t)))
	assert.True(t, rep.OK(), reportText(t, rep))
}

// TestWebhookDeliveriesRecorded (item 7): the merchant registers a webhook
// on the recorder's receiver; the verification event and a charge's event
// the upstream delivers there are recorded (without the webhook's
// password) and replayed: the replay's target delivers them to the
// replay's own receiver, where they are compared.
func TestWebhookDeliveriesRecorded(t *testing.T) {
	r := startRecording(t, openpaytest.NewServer(t), nil)
	c, _ := r.clients(t)
	ctx := context.Background()
	hook, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: r.proxy.URL + conformance.WebhookPath + "shop", User: "shop",
		Password: "hook-s3cret", EventTypes: []openpay.EventType{"charge.succeeded"}})
	require.NoError(t, err)
	assert.Equal(t, openpay.WebhookStatusVerified, hook.Status, "the recorder answered the verification")
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("75.00"), Description: "Order 9", OrderID: "o-9",
		Card:     openpay.CardDetails{HolderName: "Ana", CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"}})
	require.NoError(t, err)
	require.NoError(t, r.upstream.WaitForDeliveries(ctx))
	cas := r.stop(t)
	raw, err := os.ReadFile(r.path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "hook-s3cret")

	var types []string
	for _, e := range cas.Exchanges {
		if e.Operation == conformance.OperationWebhook {
			var ev struct{ Type string }
			require.NoError(t, json.Unmarshal(e.Request, &ev))
			types = append(types, ev.Type)
		}
	}
	assert.Equal(t, []string{"verification", "charge.succeeded"}, types)

	rep := replayOn(t, cas, targetOf(openpaytest.NewServer(t)))
	assert.True(t, rep.OK(), reportText(t, rep))

	// A delivery that carried another amount is reported at the delivery.
	for i := range cas.Exchanges {
		e := &cas.Exchanges[i]
		if e.Operation == conformance.OperationWebhook && strings.Contains(string(e.Request), "charge.succeeded") {
			e.Request = json.RawMessage(strings.Replace(string(e.Request), `"amount":75.0,`, `"amount":76.0,`, 1))
			require.Contains(t, string(e.Request), `"amount":76.0,`)
		}
	}
	rep = replayOn(t, cas, targetOf(openpaytest.NewServer(t)))
	require.False(t, rep.OK())
	require.Len(t, rep.Differences, 1)
	assert.Equal(t, conformance.OperationWebhook, rep.Differences[0].Operation)
	assert.Equal(t, "$.transaction.amount", rep.Differences[0].Differences[0].Path)
}
