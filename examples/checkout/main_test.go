package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckout(t *testing.T) {
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	text := out.String()
	assert.Contains(t, text, "public key refused for a charge lookup")
	assert.Regexp(t, `token \S+ for visa 411111XXXXXX1111`, text)
	assert.Regexp(t, `charge \S+: completed 899\.90`, text)
	assert.Contains(t, text, "the used token is refused: code")
	assert.Regexp(t, `charge \S+: charge_pending; send the payer`, text)
	assert.Contains(t, text, "redirect URL present: true")
	assert.Regexp(t, `after the payer returned: charge \S+ is completed`, text)
}
