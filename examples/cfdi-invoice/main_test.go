package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openpay-go/openpay/cfdi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCFDIInvoice(t *testing.T) {
	var out, errOut strings.Builder
	require.NoError(t, run(&out, &errOut))
	assert.Empty(t, errOut.String())

	// What it prints is a valid invoice request for the whole charge.
	var req cfdi.GenerationRequest
	require.NoError(t, json.Unmarshal([]byte(out.String()), &req))
	require.NoError(t, req.Validate())
	assert.Equal(t, "trzjaozcik8msyqshka4", req.OpenpayTransactionID)
	assert.Equal(t, "1565.65", req.Total.String())
	assert.Len(t, req.Conceptos, 2)
}
