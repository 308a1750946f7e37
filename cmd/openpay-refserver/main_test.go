package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

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
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.SetBasicAuth(key, "")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var v map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&v))
	return res.StatusCode, v
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

func TestBadArguments(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	ctx := context.Background()
	assert.Error(t, run(ctx, []string{"--nope"}, &out, &errOut))
	assert.Error(t, run(ctx, []string{"extra"}, &out, &errOut))
	assert.Error(t, run(ctx, []string{"--addr", "127.0.0.1:0", "--fake-clock", "yesterday"}, &out, &errOut))
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
	os.Exit(m.Run())
}

// TestHelpExitsZero runs the command as a process: help asked for is
// printed on stdout with exit status 0; a bad flag prints the usage on
// stderr and exits 2.
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
		{[]string{"--addr", "127.0.0.1:0", "--help"}, 0, true},
		{[]string{"--nope"}, 2, false},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], tt.args...)
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
			assert.Equal(t, tt.code, code, "exit status; stderr: %s", stderr.String())
			usage, other := stdout.String(), stderr.String()
			if !tt.help {
				usage, other = other, usage
				assert.Contains(t, usage, "flag provided but not defined: -nope")
			}
			assert.Contains(t, usage, "Usage: openpay-refserver [flags]")
			for _, flag := range []string{"-addr", "-merchant-id", "-private-key", "-public-key", "-strict", "-production", "-seed", "-fake-clock", "-verbose"} {
				assert.Regexp(t, `(?m)^  `+flag+`( |$)`, usage)
			}
			assert.Empty(t, other)
		})
	}
}
