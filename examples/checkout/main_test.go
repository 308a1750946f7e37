package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
)

func TestCheckout(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Contains(t, text, "public key refused for a charge lookup")
	assert.Regexp(t, `token \S+ for visa 411111XXXXXX1111`, text)
	assert.Regexp(t, `charge \S+: completed 899\.90`, text)
	assert.Contains(t, text, "the used token is refused: code")
	assert.Regexp(t, `charge \S+: charge_pending; send the payer`, text)
	assert.Contains(t, text, "redirect URL present: true")
	assert.Regexp(t, `after the payer returned: charge \S+ is completed`, text)
}
