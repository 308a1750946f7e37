package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay/internal/refserver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the server's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the command with args and returns its base URL, its stderr
// and a function that stops it (SIGINT's effect) and returns run's error.
func start(t *testing.T, args ...string) (string, *syncBuffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, pw, stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	stop := func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			t.Fatal("the server did not shut down")
			return nil
		}
	}
	t.Cleanup(func() { cancel() })
	return strings.TrimSpace(line), stderr, stop
}

func get(t *testing.T, url, key string) (int, map[string]any) {
	t.Helper()
	return call(t, http.MethodGet, url, key, "")
}

// call sends a request with key as the Basic user and body ("" for none)
// and decodes the answer, a JSON object.
func call(t *testing.T, method, url, key, body string) (int, map[string]any) {
	t.Helper()
	status, got := sendAs(t, method, url, key, body)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &v))
	return status, v
}

func TestSeededCredentials(t *testing.T) {
	t.Parallel()
	url, stderr, stop := start(t, "--addr", "127.0.0.1:0", "--merchant-id", "mzdtln0bmtms6o3kck8f",
		"--private-key", "sk_e568c42a6c384b7ab02cd47d2e407cab", "--public-key", "pk_f934b51ab97e4d1c9bdc0a8d4b2d3c7e", "--verbose")
	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, url)
	status, m := get(t, url+"/v1/mzdtln0bmtms6o3kck8f", "sk_e568c42a6c384b7ab02cd47d2e407cab")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "mzdtln0bmtms6o3kck8f", m["id"])
	status, m = get(t, url+"/v1/mzdtln0bmtms6o3kck8f", "pk_f934b51ab97e4d1c9bdc0a8d4b2d3c7e")
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, 1010.0, m["error_code"])
	require.NoError(t, stop())
	logs := stderr.String()
	assert.Contains(t, logs, "operation=getMerchant")
	assert.NotContains(t, logs, "sk_e568c42a6c384b7ab02cd47d2e407cab", "given keys are not repeated")
	assert.NotContains(t, logs, "generated")
	_, err := http.Get(url)
	assert.Error(t, err, "shut down")
}

func TestGeneratedCredentialsArePrinted(t *testing.T) {
	t.Parallel()
	url, stderr, stop := start(t, "--addr", "127.0.0.1:0", "--seed", "3", "--fake-clock", "2026-01-05T10:00:00-06:00")
	logs := stderr.String()
	fields := map[string]string{}
	for _, f := range strings.Fields(logs) {
		if k, v, ok := strings.Cut(f, "="); ok {
			fields[k] = v
		}
	}
	require.Regexp(t, `^m[a-z0-9]{19}$`, fields["merchant_id"], logs)
	require.Regexp(t, `^sk_[0-9a-f]{32}$`, fields["private_key"])
	require.Regexp(t, `^pk_[0-9a-f]{32}$`, fields["public_key"])
	status, _ := get(t, url+"/v1/"+fields["merchant_id"], fields["private_key"])
	assert.Equal(t, http.StatusOK, status)
	// The clock control works with --fake-clock.
	req, err := http.NewRequest(http.MethodPost, url+"/_simulate/"+fields["merchant_id"]+"/clock/advance", strings.NewReader(`{"seconds":3600}`))
	require.NoError(t, err)
	req.SetBasicAuth(fields["private_key"], "")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var now map[string]string
	require.NoError(t, json.NewDecoder(res.Body).Decode(&now))
	res.Body.Close()
	assert.Equal(t, "2026-01-05T11:00:00-06:00", now["now"])
	require.NoError(t, stop())
}

// TestCountryFlag: --country makes the merchant Colombian: COP by default,
// PSE at /pse, no payouts.
func TestCountryFlag(t *testing.T) {
	t.Parallel()
	const mid, key = "mcolombiaflag", "sk_country_flag"
	url, _, stop := start(t, "--addr", "127.0.0.1:0", "--country", "co", "--merchant-id", mid, "--private-key", key)
	api := url + "/v1/" + mid
	status, ch := call(t, http.MethodPost, api+"/pse", key,
		`{"method":"bank_account","amount":10000,"description":"d","iva":"1900","redirect_url":"/"}`)
	require.Equal(t, http.StatusOK, status, ch)
	assert.Equal(t, "COP", ch["currency"])
	assert.Equal(t, "charge_pending", ch["status"])
	status, _ = get(t, api+"/payouts", key)
	assert.Equal(t, http.StatusNotFound, status)
	status, m := get(t, api, key)
	assert.Equal(t, http.StatusOK, status)
	assert.Nil(t, m["clabe"], "a Colombian merchant has no CLABE")
	require.NoError(t, stop())
}

func TestBadArguments(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	ctx := context.Background()
	assert.Error(t, run(ctx, []string{"--nope"}, &out, &errOut))
	assert.Error(t, run(ctx, []string{"extra"}, &out, &errOut))
	assert.Error(t, run(ctx, []string{"--addr", "127.0.0.1:0", "--fake-clock", "yesterday"}, &out, &errOut))
	assert.ErrorContains(t, run(ctx, []string{"--addr", "127.0.0.1:0", "--webhook-queue-limit", "0"}, &out, &errOut), "--webhook-queue-limit")
	assert.ErrorContains(t, run(ctx, []string{"--addr", "127.0.0.1:0", "--country", "ar"}, &out, &errOut), "--country")
	assert.Error(t, run(ctx, []string{"--addr", "256.1.1.1:0"}, &out, &errOut))
	assert.Error(t, run(ctx, []string{"--addr", "127.0.0.1:0", "--private-key", "k", "--public-key", "k"}, &out, &errOut))
	assert.Empty(t, out.String(), "no URL printed when the server does not start")
}

// runMainEnv makes the test binary act as the command (TestMain calls main),
// so that a test can check what the process does, exit status included.
const runMainEnv = "OPENPAY_REFSERVER_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// runCommand runs the test binary as the command with args and returns
// its exit status, stdout and stderr.
func runCommand(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, stdout.String(), stderr.String()
}

// TestHelpExitsZero runs the command as a process: help asked for (as a
// flag, as the help command, for serve named) is printed on stdout with
// exit status 0, listing the subcommands and serve's flags. A bad flag is
// reported once on stderr, with the command that lists the flags, and exits
// 2. (The usage line changed from "openpay-refserver [flags]" when the
// subcommands were listed; a bad flag no longer prints the whole usage.)
func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		code int
		help bool
	}{
		{[]string{"--help"}, 0, true},
		{[]string{"-h"}, 0, true},
		{[]string{"-help"}, 0, true},
		{[]string{"help"}, 0, true},
		{[]string{"help", "serve"}, 0, true},
		{[]string{"serve", "--help"}, 0, true},
		{[]string{"--addr", "127.0.0.1:0", "--help"}, 0, true},
		{[]string{"--nope"}, 2, false},
		{[]string{"serve", "--nope"}, 2, false},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCommand(t, tt.args...)
			assert.Equal(t, tt.code, code, "exit status; stderr: %s", stderr)
			if !tt.help {
				assert.Empty(t, stdout)
				assert.Equal(t, "openpay-refserver: flag provided but not defined: -nope (openpay-refserver help serve lists the flags)\n", stderr,
					"one line, the error once")
				return
			}
			assert.Empty(t, stderr)
			for _, sub := range []string{"[serve]", "record", "replay", "help", "version"} {
				assert.Regexp(t, `(?m)^  openpay-refserver `+regexp.QuoteMeta(sub), stdout)
			}
			assert.Contains(t, stdout, "go install github.com/openpay-go/openpay/cmd/openpay-refserver@latest")
			for _, flag := range []string{"-addr", "-merchant-id", "-private-key", "-public-key", "-seed-file", "-strict", "-production", "-id-seed", "-fake-clock",
				"-data", "-verbose", "-webhook-queue-limit", "-no-dashboard", "-drain", "-exit-with-parent", "-exit-on-stdin-close", "-webhook-ca"} {
				assert.Regexp(t, `(?m)^  `+flag+`( |$)`, stdout)
			}
		})
	}
}

// version prints the module's version; help names each command; an unknown
// command is refused in one line.
func TestVersionAndCommands(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCommand(t, "version")
	assert.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^openpay-refserver \S+.* go1\.[0-9]+`, stdout)
	code, stdout, _ = runCommand(t, "help", "record")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "openpay-refserver record")
	assert.Regexp(t, `(?m)^  -addr `, stdout, "record listens with --addr")
	code, _, stderr = runCommand(t, "serv")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown command "serv"`)
}

// serve may be named; --seed is the old name of --id-seed; the country is
// taken in any case; a time flag that does not parse is explained in words.
func TestServeNamedAndFlagNames(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Equal(t, 0, cli(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--country", "Co"}, &out, &errOut), errOut.String())
	assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+\n$`, out.String())

	// --id-seed and its old name --seed give the same ids.
	logs := map[string]string{}
	for _, name := range []string{"--id-seed", "--seed"} {
		_, stderr, stop := start(t, "--addr", "127.0.0.1:0", name, "7")
		require.NoError(t, stop())
		logs[name] = stderr.String()[strings.Index(stderr.String(), "merchant_id="):]
	}
	assert.Equal(t, logs["--id-seed"], logs["--seed"])

	err := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--fake-clock", "yesterday"}, &out, &errOut)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "2026-01-05T10:00:00-06:00")
	assert.NotContains(t, err.Error(), "2006-01-02T15:04:05Z07:00", "Go's layout is no example")
	err = run(context.Background(), []string{"--addr", "127.0.0.1:0", "--country", "ar"}, &out, &errOut)
	assert.ErrorContains(t, err, "(use MX, CO or PE, in any case)")
}

// --verbose names the path of a request that matches no operation (a
// client pointed at the wrong base), with card-like numbers hidden.
func TestVerboseNamesTheUnmatchedPath(t *testing.T) {
	t.Parallel()
	url, stderr, stop := start(t, "--addr", "127.0.0.1:0", "--verbose", "--merchant-id", "mverbose", "--private-key", "sk_verbose")
	status, _ := get(t, url+"/v1/v1/mverbose/charges", "sk_verbose")
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = get(t, url+"/nothing/4111111111111111", "sk_verbose")
	assert.Equal(t, http.StatusNotFound, status)
	require.NoError(t, stop())
	logs := stderr.String()
	assert.Contains(t, logs, "operation=unmatched")
	assert.Contains(t, logs, "path=/v1/v1/mverbose/charges")
	assert.NotContains(t, logs, "4111111111111111")
}

// Credentials and ids of seed.example.yaml.
const (
	exMerchant  = "mzdtln0bmtms6o3kck8f"
	exKey       = "sk_e568c42a6c384b7ab02cd47d2e407cab"
	exMerchant2 = "mka7edcmpb3u2m7os5af"
	exKey2      = "sk_0cc022238daceee2092f073ff80b9465"
	exGroup     = "m3r09fquo6sbegzgsyeb"
	exGroupKey  = "sk_ea21818b904ce6087413e3b266f850f1"
)

// TestSeedFileExample starts the command with the README's example seed
// file and uses what it seeds over raw HTTP, as a suite in another language
// would.
func TestSeedFileExample(t *testing.T) {
	t.Parallel()
	url, stderr, stop := start(t, "--addr", "127.0.0.1:0", "--seed-file", "seed.example.yaml",
		"--fake-clock", "2026-01-05T10:00:00-06:00")
	api := url + "/v1/" + exMerchant

	status, m := get(t, api, exKey)
	require.Equal(t, http.StatusOK, status, "%v", m)
	assert.Equal(t, 5000.0, m["balance"], "the opening balance")
	assert.Equal(t, "Tienda Ejemplo", m["name"])

	status, cu := get(t, api+"/customers/aannd4yz0emrvftva0hi", exKey)
	require.Equal(t, http.StatusOK, status, "%v", cu)
	assert.Equal(t, "cliente-0001", cu["external_id"])
	status, card := get(t, api+"/customers/aannd4yz0emrvftva0hi/cards/kfnpaxx3i4iyljtopmk9", exKey)
	require.Equal(t, http.StatusOK, status, "%v", card)
	assert.Equal(t, "411111XXXXXX1111", card["card_number"])
	status, acct := get(t, api+"/customers/apgad35l9m26mi0yhz0n", exKey)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 1000.0, acct["balance"])
	status, plan := get(t, api+"/plans/px7ifxi2v7icb4wtcbe4", exKey)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 30.0, plan["trial_days"])
	status, _ = get(t, api+"/cards/kmy4f0dggc6qpzq05s7l", exKey)
	assert.Equal(t, http.StatusOK, status)

	// A charge on the seeded card.
	status, charge := call(t, http.MethodPost, api+"/customers/aannd4yz0emrvftva0hi/charges", exKey,
		`{"method": "card", "source_id": "kfnpaxx3i4iyljtopmk9", "amount": 100.00, "description": "Order 1", "order_id": "o-1"}`)
	require.Equal(t, http.StatusOK, status, "%v", charge)
	assert.Equal(t, "completed", charge["status"])

	// The group's key on its customer, and for a charge at its second
	// merchant; the second merchant's own key works on its paths.
	status, gcu := get(t, url+"/v1/groups/"+exGroup+"/customers/aartbnlzgcjn2qavsyee", exGroupKey)
	require.Equal(t, http.StatusOK, status, "%v", gcu)
	assert.Equal(t, "Carla", gcu["name"])
	status, gcharge := call(t, http.MethodPost, url+"/v1/groups/"+exGroup+"/merchants/"+exMerchant2+"/customers/aartbnlzgcjn2qavsyee/charges",
		exGroupKey, `{"method": "card", "source_id": "keio49ernnber02pdcls", "amount": 20.00, "description": "Group order", "order_id": "g-1"}`)
	require.Equal(t, http.StatusOK, status, "%v", gcharge)
	assert.Equal(t, "completed", gcharge["status"])
	status, _ = get(t, url+"/v1/"+exMerchant2, exKey2)
	assert.Equal(t, http.StatusOK, status)

	require.NoError(t, stop())
	logs := stderr.String()
	assert.NotContains(t, logs, "generated", "every credential was in the file")
	assert.NotContains(t, logs, exKey)
}

// The flags win over the seed file: keys given for a merchant of the file
// replace its keys; a merchant id the file does not have is one more
// merchant, whose generated keys are printed.
func TestSeedFilePrecedence(t *testing.T) {
	t.Parallel()
	t.Run("flags name a merchant of the file", func(t *testing.T) {
		t.Parallel()
		url, stderr, stop := start(t, "--addr", "127.0.0.1:0", "--seed-file", "seed.example.yaml",
			"--fake-clock", "2026-01-05T10:00:00-06:00", "--merchant-id", exMerchant, "--private-key", "sk_from_the_command_line")
		status, m := get(t, url+"/v1/"+exMerchant, "sk_from_the_command_line")
		assert.Equal(t, http.StatusOK, status, "%v", m)
		assert.Equal(t, 5000.0, m["balance"], "the rest of the file's merchant is kept")
		status, _ = get(t, url+"/v1/"+exMerchant, exKey)
		assert.Equal(t, http.StatusUnauthorized, status, "the file's key was replaced")
		status, _ = get(t, url+"/v1/"+exMerchant2, exKey2)
		assert.Equal(t, http.StatusOK, status)
		require.NoError(t, stop())
		assert.NotContains(t, stderr.String(), "generated")
	})
	t.Run("flags name another merchant", func(t *testing.T) {
		t.Parallel()
		url, stderr, stop := start(t, "--addr", "127.0.0.1:0", "--seed-file", "seed.example.yaml",
			"--fake-clock", "2026-01-05T10:00:00-06:00", "--merchant-id", "mextra00000000000001")
		fields := map[string]string{}
		for _, f := range strings.Fields(stderr.String()) {
			if k, v, ok := strings.Cut(f, "="); ok {
				fields[k] = v
			}
		}
		assert.Equal(t, "mextra00000000000001", fields["merchant_id"])
		require.Regexp(t, `^sk_[0-9a-f]{32}$`, fields["private_key"])
		status, _ := get(t, url+"/v1/mextra00000000000001", fields["private_key"])
		assert.Equal(t, http.StatusOK, status)
		status, _ = get(t, url+"/v1/"+exMerchant, exKey)
		assert.Equal(t, http.StatusOK, status)
		require.NoError(t, stop())
	})
}

// A seed file that is refused stops the command before it serves: exit
// status 2, and the message names the file and the entry at fault.
func TestSeedFileRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	example, err := os.ReadFile("seed.example.yaml")
	require.NoError(t, err)
	for _, tt := range []struct {
		name, seed, want string
	}{
		{"malformed YAML", "merchants: [\n", "not valid JSON or YAML: line"},
		{"duplicate id", strings.Replace(string(example), "id: apgad35l9m26mi0yhz0n", "id: aannd4yz0emrvftva0hi", 1),
			"merchants[0].customers[1] (id aannd4yz0emrvftva0hi): the id is already the id of merchants[0].customers[0]"},
		{"unknown group member", strings.Replace(string(example), "merchants: [mzdtln0bmtms6o3kck8f,", "merchants: [mnotinthefile0000001,", 1),
			`groups[0].merchants[0]: "mnotinthefile0000001" is not the id of a merchant of the seed`},
		{"bad card number", strings.Replace(string(example), "card_number: 4242424242424242", "card_number: 4242424242424241", 1),
			"groups[0].customers[0].cards[0] (id keio49ernnber02pdcls): The card number verification digit is invalid (error 2004)"},
		{"missing file", "", "no such file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := dir + "/" + strings.ReplaceAll(tt.name, " ", "-") + ".yaml"
			if tt.seed != "" {
				require.NoError(t, os.WriteFile(path, []byte(tt.seed), 0o600))
			}
			var stdout, stderr bytes.Buffer
			code := cli(context.Background(), []string{"--addr", "127.0.0.1:0", "--seed-file", path,
				"--fake-clock", "2026-01-05T10:00:00-06:00"}, &stdout, &stderr)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout.String(), "no URL: the server did not start")
			assert.Contains(t, stderr.String(), "openpay-refserver: seed")
			assert.Contains(t, stderr.String(), tt.want)
			assert.NotContains(t, stderr.String(), "4242424242424241")
		})
	}
}

// TestReadmeSeedExamples keeps the README's seed examples true: its YAML
// example is seed.example.yaml, which the tests above run, and its JSON
// example is a seed the server applies.
func TestReadmeSeedExamples(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("seed.example.yaml")
	require.NoError(t, err)
	blocks := map[string][]string{}
	lines := strings.Split(string(readme), "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(lines[i], "```")
		if !ok || lang == "" {
			continue
		}
		var b strings.Builder
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			b.WriteString(lines[i] + "\n")
		}
		blocks[lang] = append(blocks[lang], b.String())
	}
	require.Len(t, blocks["yaml"], 1)
	assert.Equal(t, string(example), blocks["yaml"][0])
	require.Len(t, blocks["json"], 2, "the error object and the seed")
	sd, err := refserver.ParseSeed([]byte(blocks["json"][1]))
	require.NoError(t, err)
	ref := refserver.New(refserver.Options{})
	defer ref.Close()
	_, err = ref.ApplySeed(sd)
	require.NoError(t, err)
}

// TestDashboardFlag: the dashboard is on, without credentials, on the
// loopback address the command listens on; --no-dashboard turns it off.
func TestDashboardFlag(t *testing.T) {
	t.Parallel()
	status := func(url string) int {
		t.Helper()
		res, err := http.Get(url)
		require.NoError(t, err)
		defer res.Body.Close()
		_, _ = io.Copy(io.Discard, res.Body)
		return res.StatusCode
	}
	base, _, stop := start(t, "--addr", "127.0.0.1:0", "--merchant-id", "mzdtln0bmtms6o3kck8f")
	assert.Equal(t, http.StatusOK, status(base+"/_dashboard/"))
	assert.Equal(t, http.StatusOK, status(base+"/_dashboard/merchants/mzdtln0bmtms6o3kck8f/transactions"))
	require.NoError(t, stop())

	base, _, stop = start(t, "--addr", "127.0.0.1:0", "--no-dashboard")
	assert.Equal(t, http.StatusNotFound, status(base+"/_dashboard/"))
	require.NoError(t, stop())
}

// The health check answers without credentials; a reset with the admin
// key brings back the seed file and the merchant of the flags (with its
// generated keys), and forgets what was made since, so an order_id is free
// again.
func TestHealthAndReset(t *testing.T) {
	t.Parallel()
	const adminKey = "sk_admin_of_the_test"
	url, stderr, stop := start(t, "--addr", "127.0.0.1:0", "--seed-file", "seed.example.yaml",
		"--fake-clock", "2026-01-05T10:00:00-06:00", "--merchant-id", "mextra00000000000002", "--admin-key", adminKey)
	status, h := get(t, url+"/_health", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]any{"status": "ok"}, h)
	fields := map[string]string{}
	for _, f := range strings.Fields(stderr.String()) {
		if k, v, ok := strings.Cut(f, "="); ok {
			fields[k] = v
		}
	}
	extraKey := fields["private_key"]
	require.NotEmpty(t, extraKey, stderr.String())

	api := url + "/v1/" + exMerchant
	charge := `{"method": "card", "source_id": "kfnpaxx3i4iyljtopmk9", "amount": 100.00, "description": "Order 1", "order_id": "o-1"}`
	status, _ = call(t, http.MethodPost, api+"/customers/aannd4yz0emrvftva0hi/charges", exKey, charge)
	require.Equal(t, http.StatusOK, status)
	status, cu := call(t, http.MethodPost, api+"/customers", exKey, `{"name": "Nueva", "email": "nueva@example.com"}`)
	require.Equal(t, http.StatusOK, status)

	reset := func(key string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url+"/_simulate/reset", nil)
		require.NoError(t, err)
		req.SetBasicAuth(key, "")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusNoContent, res.StatusCode)
	}
	// The other merchant's key resets that merchant alone.
	reset(extraKey)
	status, _ = get(t, api+"/customers/"+cu["id"].(string), exKey)
	require.Equal(t, http.StatusOK, status, "another merchant's reset leaves this one")
	reset(adminKey)

	status, _ = get(t, api+"/customers/"+cu["id"].(string), exKey)
	assert.Equal(t, http.StatusNotFound, status, "made since the start")
	status, m := get(t, api, exKey)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 5000.0, m["balance"], "the opening balance")
	status, _ = call(t, http.MethodPost, api+"/customers/aannd4yz0emrvftva0hi/charges", exKey, charge)
	assert.Equal(t, http.StatusOK, status, "the order_id is free again")
	status, _ = get(t, url+"/v1/mextra00000000000002", extraKey)
	assert.Equal(t, http.StatusOK, status, "the generated key stays")
	require.NoError(t, stop())
}

// record listens with --addr, as serve does; --listen stays its alias.
func TestRecordTakesAddr(t *testing.T) {
	t.Parallel()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`)
	}))
	t.Cleanup(upstream.Close)
	for _, flag := range []string{"--addr", "--listen"} {
		out := filepath.Join(t.TempDir(), "flows.jsonl")
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		stderr := &syncBuffer{}
		done := make(chan int, 1)
		go func() {
			done <- cli(ctx, []string{"record", "--upstream", upstream.URL, "--allow-upstream", flag, "127.0.0.1:0", "--out", out}, pw, stderr)
			pw.Close()
		}()
		line, err := bufio.NewReader(pr).ReadString('\n')
		require.NoError(t, err, "%s: stderr: %s", flag, stderr.String())
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+\n$`, line, flag)
		cancel()
		assert.Equal(t, 0, <-done, "%s: stderr: %s", flag, stderr.String())
	}
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, cli(context.Background(), []string{"record", "--addr", "0.0.0.0:0", "--out", "x", "--allow-upstream", "--upstream", upstream.URL}, &out, &errOut))
	assert.Contains(t, errOut.String(), "--addr: the recorder")
}

// On SIGTERM the requests in progress have --drain to finish; one still
// running then is cut, and the command says so (exit status 2).
func TestDrainLimit(t *testing.T) {
	t.Parallel()
	const mid, key = "mdrain", "sk_drain_test"
	url, _, stop := start(t, "--addr", "127.0.0.1:0", "--merchant-id", mid, "--private-key", key, "--drain", "100ms")
	status, body := sendAs(t, http.MethodPost, url+"/_simulate/faults", key, `{"method":"GET","path":"/v1/{merchant_id}","delay_ms":60000}`)
	require.Equal(t, http.StatusCreated, status, body)
	slow := make(chan error, 1)
	go func() {
		res, err := http.Get(url + "/v1/" + mid)
		if err == nil {
			res.Body.Close()
		}
		slow <- err
	}()
	// The fault is taken when the request arrives: then it is in progress.
	for {
		_, list := sendAs(t, http.MethodGet, url+"/_simulate/faults", key, "")
		if strings.TrimSpace(list) == "[]" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	err := stop()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--drain 100ms")
	assert.Error(t, <-slow, "the slow request was cut")
}

// --webhook-ca makes the server trust a private CA for https webhook
// receivers: the receiver's verification event is delivered, so the
// webhook is verified; without the flag it is not.
func TestWebhookCA(t *testing.T) {
	t.Parallel()
	receiver := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(receiver.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: receiver.Certificate().Raw}), 0o600))
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--webhook-ca", ca}, "verified"},
		{nil, "unverified"},
	} {
		const mid, key = "mwebhookca", "sk_webhook_ca"
		url, _, stop := start(t, append([]string{"--addr", "127.0.0.1:0", "--merchant-id", mid, "--private-key", key}, tc.flags...)...)
		status, hook := call(t, http.MethodPost, url+"/v1/"+mid+"/webhooks", key, `{"url":"`+receiver.URL+`","event_types":["charge.succeeded"]}`)
		require.Equal(t, http.StatusCreated, status, hook)
		assert.Equal(t, tc.want, hook["status"], "%v", tc.flags)
		require.NoError(t, stop())
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"--addr", "127.0.0.1:0", "--webhook-ca", filepath.Join(t.TempDir(), "none.pem")}, &out, &errOut)
	assert.ErrorContains(t, err, "--webhook-ca")
}
