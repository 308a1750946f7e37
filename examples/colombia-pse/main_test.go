package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
)

func TestColombiaPSE(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Regexp(t, `PSE charge \S+: charge_pending, 119000.00 COP; send the payer to the bank page:\n  http://\S+/redirect/\n`, text)
	assert.Regexp(t, `the payer is back at https://shop\.example\.co/checkout/return\?order=3001&id=tr\S+\n`, text)
	assert.Regexp(t, `charge \S+ is now completed\n`, text)
	assert.Regexp(t, `charge \S+, paid through the simulation control: completed\n`, text)
	assert.Contains(t, text, "merchant balance: 164000.50 COP")
}
