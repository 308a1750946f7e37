package main

import (
	"testing"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
)

// TestFlowReplaysClean records the example's flow through the conformance
// recorder and replays it against another reference server: every
// operation agrees.
func TestFlowReplaysClean(t *testing.T) {
	exampleenv.RecordAndReplay(t, flow)
}
