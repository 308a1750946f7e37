package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openpay-go/openpay/internal/refserver/datadir/datadirtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Credentials of the crash test's merchant.
const (
	crashMerchant = "mcrashtest0000000001"
	crashKey      = "sk_0123456789abcdef0123456789abcdef"
)

// process is the command running as a process of its own.
type process struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
}

// binary builds the command (once for the package's tests) and returns the
// executable's path.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "openpay-refserver-test")
	if err != nil {
		return "", err
	}
	binDir = dir
	path := filepath.Join(dir, "openpay-refserver")
	out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, out)
	}
	return path, nil
})

// binDir is where binary builds; TestMain removes it.
var binDir string

// command returns the built command with args.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	path, err := binary()
	require.NoError(t, err)
	return exec.Command(path, args...)
}

// startProcess starts the built command with args and waits for its base
// URL.
func startProcess(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{cmd: command(t, args...), stderr: &syncBuffer{}}
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, "stderr: %s", p.stderr.String())
	p.url = strings.TrimSpace(line)
	return p
}

// send sends a request as the crash test's merchant and returns the status
// and the body.
func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	return sendAs(t, method, url, crashKey, body)
}

// sendAs sends a request with key as the Basic user and body ("" for none)
// and returns the status and the body.
func sendAs(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	req.SetBasicAuth(key, "")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(data)
}

// idIn returns the "id" member of a JSON object.
func idIn(t *testing.T, body string) string {
	t.Helper()
	var v struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(body), &v), body)
	require.NotEmpty(t, v.ID, body)
	return v.ID
}

// TestKillAndRestartKeepsEveryAnsweredObject builds the command, starts it with
// --data, makes requests of many kinds and a burst of concurrent charges,
// kills the process (SIGKILL, no shutdown) right after the last answer,
// starts it again on the same directory and finds every object it had
// answered, as it was answered, and the same balances.
func TestKillAndRestartKeepsEveryAnsweredObject(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	args := []string{"--addr", "127.0.0.1:0", "--merchant-id", crashMerchant, "--private-key", crashKey,
		"--fake-clock", "2026-01-05T10:00:00-06:00", "--data", dir}
	p := startProcess(t, args...)
	base := p.url + "/v1/" + crashMerchant
	// want holds, by path, the answer an object was last given with.
	want := map[string]string{}
	post := func(path, body string) string {
		t.Helper()
		status, got := send(t, http.MethodPost, base+path, body)
		require.Equal(t, http.StatusOK, status, "%s: %s", path, got)
		return got
	}
	create := func(collection, body string) string {
		t.Helper()
		got := post(collection, body)
		id := idIn(t, got)
		want[collection+"/"+id] = got
		return id
	}
	refresh := func() {
		for path := range want {
			status, got := send(t, http.MethodGet, base+path, "")
			require.Equal(t, http.StatusOK, status, "%s: %s", path, got)
			want[path] = got
		}
	}

	seller := create("/customers", `{"name":"Seller","email":"s@example.com","requires_account":true}`)
	buyer := create("/customers", `{"name":"Buyer","email":"b@example.com"}`)
	card := create("/customers/"+buyer+"/cards", `{"card_number":"4111111111111111","holder_name":"Juan","expiration_month":"12","expiration_year":"30","cvv2":"123"}`)
	charge := create("/customers/"+buyer+"/charges", `{"method":"card","source_id":"`+card+`","amount":100,"description":"c","order_id":"o-1"}`)
	post("/customers/"+buyer+"/charges/"+charge+"/refund", `{"amount":10}`)
	store := create("/charges", `{"method":"store","amount":300,"description":"store"}`)
	status, body := send(t, http.MethodPost, p.url+"/_simulate/"+crashMerchant+"/charges/"+store+"/pay", "")
	require.Equal(t, http.StatusOK, status, body)
	status, body = send(t, http.MethodPost, p.url+"/_simulate/"+crashMerchant+"/customers/"+seller+"/spei", `{"amount":500}`)
	require.Equal(t, http.StatusOK, status, body)
	acct := create("/customers/"+seller+"/bankaccounts", `{"holder_name":"Seller","clabe":"032180000118359719"}`)
	create("/customers/"+seller+"/payouts", `{"method":"bank_account","destination_id":"`+acct+`","amount":50,"description":"out"}`)
	create("/customers/"+seller+"/transfers", `{"customer_id":"`+idIn(t, post("/customers", `{"name":"To","email":"t@example.com","requires_account":true}`))+`","amount":25,"description":"tr"}`)
	plan := create("/plans", `{"name":"Monthly","amount":20,"repeat_every":1,"repeat_unit":"month","retry_times":1,"status_after_retry":"cancelled","trial_days":0}`)
	create("/customers/"+buyer+"/subscriptions", `{"plan_id":"`+plan+`","source_id":"`+card+`"}`)
	status, body = send(t, http.MethodPost, p.url+"/_simulate/"+crashMerchant+"/clock/advance", `{"seconds":3024000}`)
	require.Equal(t, http.StatusOK, status, body)
	refresh()

	// A burst of concurrent charges, then the merchant (its balance) and
	// the kill, at once.
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/charges"
			body := fmt.Sprintf(`{"method":"card","amount":%d,"description":"burst","card":{"card_number":"4242424242424242","holder_name":"Ana","expiration_month":"12","expiration_year":"30","cvv2":"123"}}`, 10+i)
			status, got := send(t, http.MethodPost, base+path, body)
			if !assert.Equal(t, http.StatusOK, status, got) {
				return
			}
			mu.Lock()
			want[path+"/"+idIn(t, got)] = got
			mu.Unlock()
		}()
	}
	wg.Wait()
	status, merchant := send(t, http.MethodGet, base, "")
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, p.cmd.Process.Kill())
	_ = p.cmd.Wait()

	again := startProcess(t, args...)
	base = again.url + "/v1/" + crashMerchant
	for path, answered := range want {
		status, got := send(t, http.MethodGet, base+path, "")
		if assert.Equal(t, http.StatusOK, status, "%s: %s", path, got) {
			// URLs in answers (barcodes) carry the port, new at each start
			// (a stored charge keeps the URL it was created with).
			norm := strings.NewReplacer(p.url, "BASE", again.url, "BASE")
			assert.JSONEq(t, norm.Replace(answered), norm.Replace(got), "%s", path)
		}
	}
	status, got := send(t, http.MethodGet, base, "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, merchant, got, "the merchant and its balance")
	assert.Contains(t, again.stderr.String(), "state restored")
	t.Logf("%d objects answered before the kill, all found after the restart", len(want))
}

// A data directory that cannot be used stops the command with exit status
// 2 and a one-line message naming the problem, never a panic's trace; it
// never starts empty.
func TestDataDirUnusableExits2(t *testing.T) {
	t.Parallel()
	garbage := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(garbage, "refserver.db"), bytes.Repeat([]byte("not a store "), 2000), 0o600))
	held := t.TempDir()
	startProcess(t, "--addr", "127.0.0.1:0", "--data", held)
	// saved is a directory a server wrote and was killed on; each case
	// damages a copy.
	saved := t.TempDir()
	p := startProcess(t, "--addr", "127.0.0.1:0", "--data", saved)
	require.NoError(t, p.cmd.Process.Kill())
	_ = p.cmd.Wait()
	damaged := func(damage func(store string)) string {
		dir := t.TempDir()
		require.NoError(t, os.CopyFS(dir, os.DirFS(saved)))
		damage(filepath.Join(dir, "refserver.db"))
		return dir
	}
	type unusable struct{ dir, says string }
	cases := map[string]unusable{
		"corrupted":               {garbage, "refserver.db"},
		"held by another process": {held, "in use by another process"},
		"store emptied": {damaged(func(store string) { require.NoError(t, os.Truncate(store, 0)) }),
			"the store is empty (0 bytes)"},
		"store deleted": {damaged(func(store string) { require.NoError(t, os.Remove(store)) }),
			"the store is missing"},
	}
	for page := range 2 {
		for _, random := range []bool{false, true} {
			dir := damaged(func(store string) { require.NoError(t, datadirtest.OverwritePage(store, page, random)) })
			cases[fmt.Sprintf("meta page %d overwritten, random %v", page, random)] = unusable{dir, fmt.Sprintf("meta page %d is damaged", page)}
		}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := command(t, "--addr", "127.0.0.1:0", "--data", c.dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			// A server that starts prints its URL: the test fails then,
			// rather than wait for an exit that does not come.
			url, _ := bufio.NewReader(out).ReadString('\n')
			if url != "" {
				_ = cmd.Process.Kill()
			}
			err = cmd.Wait()
			require.Empty(t, url, "no URL: the server must not start")
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "the command must fail: %v", err)
			assert.Equal(t, 2, ee.ExitCode(), stderr.String())
			assert.Contains(t, stderr.String(), "data directory unusable")
			assert.Contains(t, stderr.String(), c.says)
			assert.NotContains(t, stderr.String(), "goroutine")
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %s", stderr.String())
		})
	}
}
