package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreAndBank(t *testing.T) {
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	text := out.String()
	assert.Regexp(t, `store charge \S+: in_progress, pay with reference \S+`, text)
	assert.Contains(t, text, "barcode image: HTTP 200, image/png")
	assert.Regexp(t, `bank charge \S+: in_progress, transfer to CLABE \d{18}`, text)
	assert.Regexp(t, `charge \S+ is now completed\n.*charge \S+ is now completed`, text)
	assert.Contains(t, text, "merchant balance: 1550.00")
}
