package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/examples/payment-link/paylink"
	"github.com/stretchr/testify/assert"
)

// The browser test of the links' edges is in the nested module tests/
// (tests/examples/payment-link), which requires chromedp so that this
// module does not.

func TestPaymentLink(t *testing.T) {
	text := exampleenv.Output(t, paylink.Run)
	assert.Contains(t, text, "webhook verified")
	assert.Regexp(t, `link \S+: available 1250\.00 MXN, expires \d{4}-\d\d-\d\d \d\d:\d\d`, text)
	assert.Contains(t, text, "the payer's page answers")
	assert.Contains(t, text, "webhook event charge.succeeded: charge completed for order (the shop's order)")
	assert.Regexp(t, `link \S+: completed, paid by charge completed`, text)
}
