package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuickstart(t *testing.T) {
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	text := out.String()
	assert.Contains(t, text, "embedded reference server")
	assert.Regexp(t, `charge \S+: completed 250\.00 MXN`, text)
	assert.Regexp(t, `is now refunded; refund \S+ of 50\.00`, text)
	assert.Contains(t, text, "declined as expected: code 3001, category gateway")
	assert.NotContains(t, text, "4111111111111111", "the card number never shows")
}
