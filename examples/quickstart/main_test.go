package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
)

func TestQuickstart(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Contains(t, text, "embedded reference server")
	assert.Regexp(t, `charge \S+: completed 250\.00 MXN`, text)
	assert.Regexp(t, `is now refunded; refund \S+ of 50\.00`, text)
	assert.Contains(t, text, "declined as expected: code 3003, category gateway")
	assert.NotContains(t, text, "4111111111111111", "the card number never shows")
}
