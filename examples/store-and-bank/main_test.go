package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
)

func TestStoreAndBank(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Regexp(t, `store charge \S+: in_progress, pay with reference \S+`, text)
	assert.Contains(t, text, "barcode image: HTTP 200, image/png")
	assert.Regexp(t, `bank charge \S+: in_progress, transfer to CLABE \d{18}`, text)
	assert.Regexp(t, `charge \S+ is now completed\n.*charge \S+ is now completed`, text)
	assert.Contains(t, text, "merchant balance: 1550.00")
}
