package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay/examples/web-checkout/webshop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shop's browser tests, and its test of the return page, are in the
// nested module tests/ (tests/examples/web-checkout), which requires
// chromedp so that this module does not.

// TestRun starts the example as `go run` does, loads its checkout page and
// stops it.
func TestRun(t *testing.T) {
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	t.Setenv("OPENPAY_PRIVATE_KEY", "")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- webshop.Run(ctx, pw, "127.0.0.1:0"); pw.Close() }()

	var printed strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(printed.String(), "(Ctrl-C stops the shop)") {
		n, err := pr.Read(buf)
		printed.Write(buf[:n])
		require.NoError(t, err, "output so far: %s", printed.String())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	text := printed.String()
	assert.Contains(t, text, "Running against embedded reference server")
	assert.Regexp(t, `webhook \S+ verified`, text)
	url := text[strings.Index(text, "Open ")+len("Open ") : strings.Index(text, " in your browser")]

	res, err := http.Get(url)
	require.NoError(t, err)
	page, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(page), "/openpay.v1.min.js")
	assert.Contains(t, string(page), `OpenPay.setApiKey("pk_`)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the shop did not stop when its context ended")
	}
}
