package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPayoutsAndTransfers(t *testing.T) {
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	text := out.String()
	assert.Regexp(t, `buyer receives transfers at CLABE \d{18}`, text)
	assert.Regexp(t, `transfer \S+: completed 400\.00`, text)
	assert.Regexp(t, `fee \S+: completed 20\.00`, text)
	assert.Regexp(t, `bank account \S+: \S+ 012X+85980`, text)
	assert.Regexp(t, `payout \S+: in_progress 300\.00`, text)
	assert.Contains(t, text, "seller balance: 80.00") // 400 in, 20 fee, 300 out
}
