//go:build unix

package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecordSecondInterruptStops (issue 37, item 7): a recording waits for
// the requests in flight when interrupted; a second Ctrl-C stops it at
// once, as the default handling of SIGINT does, rather than being ignored
// until the shutdown gives up.
func TestRecordSecondInterruptStops(t *testing.T) {
	t.Parallel()
	reached := make(chan struct{}, 1)
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case reached <- struct{}{}:
		default:
		}
		<-release // an upstream that never answers
	}))
	defer upstream.Close()
	defer close(release)

	out := filepath.Join(t.TempDir(), "flows.jsonl")
	cmd := exec.Command(os.Args[0], "record", "--upstream", upstream.URL, "--allow-upstream", "--listen", "127.0.0.1:0", "--out", out)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "stderr: %s", stderr.String())

	go func() {
		res, err := http.Get(strings.TrimSpace(line) + "/v1/m1/charges")
		if err == nil {
			res.Body.Close()
		}
	}()
	<-reached
	// Interrupt until the process is gone: the first starts the graceful
	// shutdown, which waits for the request in flight; a later one ends it.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
			done = true
		case <-tick.C:
		}
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGINT, "stopped by the second interrupt, not by the shutdown timing out (%v); stderr: %s", cmd.ProcessState, stderr.String())
}
