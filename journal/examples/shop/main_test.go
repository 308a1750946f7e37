package main

import (
	"context"
	"testing"
)

// The example runs with no setup: SQLite beside the binary, a reference
// server in the process.
func TestShopRuns(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
