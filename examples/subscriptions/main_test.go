package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
)

func TestSubscriptions(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Regexp(t, `plan \S+: Plan Pro mensual 299\.00 every 1 month, 15 trial days`, text)
	assert.Regexp(t, `subscription \S+: trial until \d{4}-\d{2}-\d{2}`, text)
	assert.Regexp(t, `after two months: subscription active`, text)
	assert.Regexp(t, `charge \S+ \S+ completed 299\.00`, text)
	assert.Contains(t, text, "cancel at period end: true")
}
