package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The credentials a suite in another language would hard-code.
const (
	olMerchant = "mnodesuite000000001"
	olPriv     = "sk_node0000000000000000000000000001"
	olPub      = "pk_node0000000000000000000000000001"
)

// spawned is the binary as a suite in another language spawns it: port 0,
// the first line of stdout is the base URL, stdin a pipe it may close.
type spawned struct {
	cmd    *exec.Cmd
	url    string
	stdin  io.WriteCloser
	stderr *syncBuffer
}

func spawn(t *testing.T, args ...string) *spawned {
	t.Helper()
	p := &spawned{cmd: command(t, append([]string{"--addr", "127.0.0.1:0"}, args...)...), stderr: &syncBuffer{}}
	p.cmd.Stderr = p.stderr
	var err error
	p.stdin, err = p.cmd.StdinPipe()
	require.NoError(t, err)
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "stderr: %s", p.stderr.String())
	p.url = strings.TrimSpace(line)
	status, _ := sendAs(t, http.MethodGet, p.url+"/_health", "", "")
	require.Equal(t, http.StatusOK, status)
	return p
}

// exitCode waits for the process (at most a hang bound) and returns its
// exit status.
func (p *spawned) exitCode(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(15 * time.Second):
		t.Fatalf("the server did not exit; stderr: %s", p.stderr.String())
		return -1
	}
}

// receiver is a webhook receiver that counts the events it got, by type.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string]int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{got: map[string]int{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct{ Type string }
		_ = json.NewDecoder(r.Body).Decode(&ev)
		rc.mu.Lock()
		rc.got[ev.Type]++
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) count(typ string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.got[typ]
}

const olCharge = `{"method":"card","amount":100,"description":"Order 1","order_id":"o-1",` +
	`"card":{"holder_name":"Ana","card_number":"4111111111111111","cvv2":"123","expiration_month":"12","expiration_year":"30"},` +
	`"customer":{"name":"Ana","email":"ana@example.com"}}`

// TestDrivenAsAnotherLanguageSuite drives the built binary as a Node,
// Python or PHP suite would: a child process on port 0, the HTTP API and
// controls only (no Go), webhooks awaited with the wait control instead of
// a sleep, a restart on its data directory after which reset still works,
// stdin closed to stop it, a restart with other keys refused.
func TestDrivenAsAnotherLanguageSuite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flags := []string{"--data", dir, "--merchant-id", olMerchant, "--private-key", olPriv, "--public-key", olPub, "--exit-on-stdin-close"}
	p := spawn(t, flags...)
	api := p.url + "/v1/" + olMerchant
	rc := newReceiver(t)

	status, body := sendAs(t, http.MethodPost, api+"/webhooks", olPriv, `{"url":"`+rc.srv.URL+`","event_types":["charge.succeeded"]}`)
	require.Equal(t, http.StatusCreated, status, body)
	hook := idIn(t, body)
	status, body = sendAs(t, http.MethodPost, api+"/charges", olPriv, olCharge)
	require.Equal(t, http.StatusOK, status, body)
	charge := idIn(t, body)
	status, body = sendAs(t, http.MethodPost, api+"/charges", olPriv, `{"method":"store","amount":150,"description":"Order 2"}`)
	require.Equal(t, http.StatusOK, status, body)
	storeCharge := idIn(t, body)

	// Wait for the deliveries, then look: no sleep.
	status, body = sendAs(t, http.MethodPost, p.url+"/_simulate/"+olMerchant+"/deliveries/wait", olPriv, `{"timeout_ms":10000}`)
	require.Equal(t, http.StatusOK, status, body)
	var stats struct {
		Idle     bool
		Pending  int
		Webhooks []struct {
			ID      string
			Pending int
			Dropped int64
			GivenUp int64 `json:"given_up"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &stats))
	assert.True(t, stats.Idle)
	assert.Equal(t, 1, rc.count("charge.succeeded"), "delivered before the wait answered")
	status, body = sendAs(t, http.MethodGet, p.url+"/_simulate/"+olMerchant+"/deliveries", olPriv, "")
	require.Equal(t, http.StatusOK, status, body)
	require.NoError(t, json.Unmarshal([]byte(body), &stats))
	require.Len(t, stats.Webhooks, 1)
	assert.Equal(t, hook, stats.Webhooks[0].ID)
	assert.Zero(t, stats.Webhooks[0].Pending+int(stats.Webhooks[0].Dropped+stats.Webhooks[0].GivenUp))
	status, _ = sendAs(t, http.MethodGet, p.url+"/_simulate/"+olMerchant+"/deliveries", olPub, "")
	assert.Equal(t, http.StatusForbidden, status, "a public key does not read the controls")

	// Closing stdin stops it cleanly.
	require.NoError(t, p.stdin.Close())
	assert.Equal(t, 0, p.exitCode(t), p.stderr.String())

	// Restarted on the same directory (another port): the charge is
	// there, and reset works.
	p = spawn(t, flags...)
	api = p.url + "/v1/" + olMerchant
	status, body = sendAs(t, http.MethodGet, api+"/charges/"+charge, olPriv, "")
	require.Equal(t, http.StatusOK, status, body)
	// Its stored barcode URL follows the new address.
	status, body = sendAs(t, http.MethodGet, api+"/charges/"+storeCharge, olPriv, "")
	require.Equal(t, http.StatusOK, status, body)
	var store struct {
		PaymentMethod struct {
			BarcodeURL string `json:"barcode_url"`
		} `json:"payment_method"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &store))
	require.True(t, strings.HasPrefix(store.PaymentMethod.BarcodeURL, p.url+"/"), "%s does not follow %s", store.PaymentMethod.BarcodeURL, p.url)
	res, err := http.Get(store.PaymentMethod.BarcodeURL)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)

	status, body = sendAs(t, http.MethodPost, p.url+"/_simulate/reset", olPriv, "")
	require.Equal(t, http.StatusNoContent, status, body)
	status, _ = sendAs(t, http.MethodGet, api+"/charges/"+charge, olPriv, "")
	assert.Equal(t, http.StatusNotFound, status, "the reset erased the charge")
	status, _ = sendAs(t, http.MethodGet, api, olPriv, "")
	assert.Equal(t, http.StatusOK, status, "the merchant is back as configured")
	require.NoError(t, p.stdin.Close())
	assert.Equal(t, 0, p.exitCode(t))

	// Another private key for the stored merchant is refused, not ignored.
	other := command(t, "--addr", "127.0.0.1:0", "--data", dir, "--merchant-id", olMerchant,
		"--private-key", "sk_other000000000000000000000000001", "--public-key", olPub)
	out, err := other.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, string(out), "private key given for merchant")
	assert.NotContains(t, string(out), "sk_other", "keys are not logged")
}

// With --exit-with-parent the server ends when the process that started
// it dies, as when a test runner crashes: here a shell starts it and is
// killed.
func TestExitsWithItsParent(t *testing.T) {
	t.Parallel()
	path, err := binary()
	require.NoError(t, err)
	sh := exec.Command("sh", "-c", `"$0" --addr 127.0.0.1:0 --exit-with-parent & echo "$!"; wait`, path)
	out, err := sh.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, sh.Start())
	rd := bufio.NewReader(out)
	var pid int
	var url string
	for i := 0; i < 2; i++ { // the child's pid and its URL, in either order
		line, err := rd.ReadString('\n')
		require.NoError(t, err)
		line = strings.TrimSpace(line)
		if n, err := strconv.Atoi(line); err == nil {
			pid = n
		} else {
			url = line
		}
	}
	require.NotZero(t, pid)
	require.NotEmpty(t, url)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // on failure, no orphan is left
	status, _ := sendAs(t, http.MethodGet, url+"/_health", "", "")
	require.Equal(t, http.StatusOK, status)

	require.NoError(t, sh.Process.Kill())
	_ = sh.Wait()
	deadline := time.Now().Add(15 * time.Second) // a hang bound
	for {
		res, err := http.Get(url + "/_health")
		if err != nil {
			break // the server is gone
		}
		res.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the server (pid %d) kept serving after its parent died", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// olWorkers is a seed file of two parallel workers' merchants, each with a
// customer, a saved card and a monthly plan without trial.
const olWorkers = `merchants:
  - id: mworker0000000000001
    private_key: sk_worker00000000000000000000000001
    public_key: pk_worker00000000000000000000000001
    customers:
      - id: aworker0000000000001
        name: Ana
        email: ana@example.com
        cards:
          - id: kworker0000000000001
            holder_name: Ana López
            card_number: 4111111111111111
            cvv2: 123
            expiration_month: 12
            expiration_year: 35
    plans:
      - id: pworker0000000000001
        name: Pro
        amount: 299.00
        repeat_every: 1
        repeat_unit: month
        retry_times: 2
        status_after_retry: cancelled
        trial_days: 0
  - id: mworker0000000000002
    private_key: sk_worker00000000000000000000000002
    public_key: pk_worker00000000000000000000000002
    customers:
      - id: aworker0000000000002
        name: Bea
        email: bea@example.com
        cards:
          - id: kworker0000000000002
            holder_name: Bea Ruiz
            card_number: 4111111111111111
            cvv2: 123
            expiration_month: 12
            expiration_year: 35
    plans:
      - id: pworker0000000000002
        name: Pro
        amount: 299.00
        repeat_every: 1
        repeat_unit: month
        retry_times: 2
        status_after_retry: cancelled
        trial_days: 0
`

// olWorker is one worker's merchant on the shared binary, driven over HTTP.
type olWorker struct {
	t                         *testing.T
	base, id, key, n          string
	subscription, storeCharge string
}

func (w *olWorker) send(method, path, body string) (int, string) {
	w.t.Helper()
	return sendAs(w.t, method, w.base+path, w.key, body)
}

// open subscribes the worker's customer and leaves a store charge unpaid,
// due in two days by the worker's clock.
func (w *olWorker) open() {
	t := w.t
	t.Helper()
	status, body := w.send(http.MethodPost, "/v1/"+w.id+"/customers/aworker000000000000"+w.n+"/subscriptions", `{"plan_id":"pworker000000000000`+w.n+`","source_id":"kworker000000000000`+w.n+`"}`)
	require.Equal(t, http.StatusOK, status, body)
	w.subscription = idIn(t, body)
	due := w.now().Add(48 * time.Hour).Format(time.RFC3339)
	status, body = w.send(http.MethodPost, "/v1/"+w.id+"/charges", `{"method":"store","amount":80,"description":"Order 9","due_date":"`+due+`"}`)
	require.Equal(t, http.StatusOK, status, body)
	w.storeCharge = idIn(t, body)
}

// now is the worker's clock, and whether it follows the server's.
func (w *olWorker) clock() (time.Time, bool) {
	w.t.Helper()
	status, body := w.send(http.MethodGet, "/_simulate/"+w.id+"/clock", "")
	require.Equal(w.t, http.StatusOK, status, body)
	var c struct {
		Now           time.Time
		FollowsServer bool `json:"follows_server"`
	}
	require.NoError(w.t, json.Unmarshal([]byte(body), &c))
	return c.Now, c.FollowsServer
}

func (w *olWorker) now() time.Time { now, _ := w.clock(); return now }

// books are the store charge's status and the number of the customer's
// charges (the subscription's first charge and its renewals).
func (w *olWorker) books() (string, int) {
	t := w.t
	t.Helper()
	status, body := w.send(http.MethodGet, "/v1/"+w.id+"/charges/"+w.storeCharge, "")
	require.Equal(t, http.StatusOK, status, body)
	var ch struct{ Status string }
	require.NoError(t, json.Unmarshal([]byte(body), &ch))
	status, body = w.send(http.MethodGet, "/v1/"+w.id+"/customers/aworker000000000000"+w.n+"/charges?limit=100", "")
	require.Equal(t, http.StatusOK, status, body)
	var list []json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(body), &list))
	return ch.Status, len(list)
}

// Two workers of a suite in another language share one binary, a merchant
// each, and move their own clocks: one moves 40 days and sees its
// subscription renew and its store charge expire, the other's books and
// clock stand still; a merchant-key reset rewinds the worker's clock to
// the server's; a restart on the data directory keeps a worker's clock.
func TestWorkersMoveTheirOwnClocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seed := dir + "/workers.yaml"
	require.NoError(t, os.WriteFile(seed, []byte(olWorkers), 0o600))
	data := dir + "/data"
	flags := []string{"--data", data, "--seed-file", seed, "--fake-clock", "2026-01-05T10:00:00-06:00", "--exit-on-stdin-close"}
	p := spawn(t, flags...)
	worker := func(n string) *olWorker {
		return &olWorker{t: t, base: p.url, id: "mworker000000000000" + n, key: "sk_worker0000000000000000000000000" + n, n: n}
	}
	a, b := worker("1"), worker("2")
	start := time.Date(2026, time.January, 5, 10, 0, 0, 0, time.FixedZone("", -6*3600))
	a.open()
	b.open()

	status, body := a.send(http.MethodPost, "/_simulate/"+a.id+"/clock/advance", `{"seconds":3456000}`) // 40 days
	require.Equal(t, http.StatusOK, status, body)
	aNow, follows := a.clock()
	assert.True(t, aNow.Equal(start.Add(40*24*time.Hour)), "%v", aNow)
	assert.False(t, follows)
	store, charges := a.books()
	assert.Equal(t, "cancelled", store, "A's store charge expired")
	assert.Equal(t, 2, charges, "A's subscription renewed")

	bNow, follows := b.clock()
	assert.True(t, bNow.Equal(start), "B's clock did not move: %v", bNow)
	assert.True(t, follows)
	store, charges = b.books()
	assert.Equal(t, "in_progress", store)
	assert.Equal(t, 1, charges)
	status, _ = b.send(http.MethodPost, "/_simulate/"+a.id+"/clock/advance", `{"seconds":60}`)
	assert.Equal(t, http.StatusUnauthorized, status, "B's key does not move A's clock")

	// Restarted on its data directory, A's clock stands where it stood.
	require.NoError(t, p.stdin.Close())
	assert.Equal(t, 0, p.exitCode(t), p.stderr.String())
	p = spawn(t, flags...)
	a.base, b.base = p.url, p.url
	aNow, follows = a.clock()
	assert.True(t, aNow.Equal(start.Add(40*24*time.Hour)), "%v", aNow)
	assert.False(t, follows)
	bNow, _ = b.clock()
	assert.True(t, bNow.Equal(start), "%v", bNow)

	// A's reset (its key) rewinds its clock to the server's; B keeps its
	// records.
	status, body = a.send(http.MethodPost, "/_simulate/reset", "")
	require.Equal(t, http.StatusNoContent, status, body)
	aNow, follows = a.clock()
	assert.True(t, aNow.Equal(start), "%v", aNow)
	assert.True(t, follows)
	store, charges = b.books()
	assert.Equal(t, "in_progress", store)
	assert.Equal(t, 1, charges)
	require.NoError(t, p.stdin.Close())
	assert.Equal(t, 0, p.exitCode(t), p.stderr.String())
}
