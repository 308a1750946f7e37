package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
)

func TestPeruStore(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Regexp(t, `store charge \S+: in_progress, 189.90 PEN, pay with reference \S+\n`, text)
	assert.Regexp(t, `[1-9]\d* stores within 5 km of Miraflores take 189.90 PEN\n  TAMBO\+ MIRAFLORES LARCO \(TAMBO\+\)\n`, text)
	assert.Regexp(t, `card charge \S+: completed, 25.00 USD at 3.75\d* PEN per USD\n`, text)
	assert.Regexp(t, `store charge \S+ is now completed\n`, text)
	// 189.90 PEN, and 25 USD at 3.75: 93.75 PEN.
	assert.Contains(t, text, "merchant balance: 283.65 PEN")
}
