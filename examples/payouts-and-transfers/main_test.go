package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
)

func TestPayoutsAndTransfers(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Regexp(t, `buyer receives transfers at CLABE \d{18}`, text)
	assert.Regexp(t, `transfer \S+: completed 400\.00`, text)
	assert.Regexp(t, `fee \S+: completed 20\.00`, text)
	assert.Regexp(t, `bank account \S+: \S+ 012X+85980`, text)
	assert.Regexp(t, `payout \S+: in_progress 300\.00`, text)
	assert.Contains(t, text, "seller balance: 80.00") // 400 in, 20 fee, 300 out
}
