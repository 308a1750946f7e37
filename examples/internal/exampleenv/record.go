package exampleenv

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/conformance"
	"github.com/openpay-go/openpay/openpaytest"
)

// RecordAndReplay runs an example's flow through the conformance recorder,
// against a reference server standing in for the sandbox, then replays the
// cassette against another reference server (other ids, same rules). It
// fails t when the flow fails, when the cassette holds a secret, or when an
// operation's answers differ. Only flows that use no simulation control
// (Env.Sim is nil here) can be checked so: a simulation is no request of
// the gateway's API and is not recorded.
func RecordAndReplay(t testing.TB, flow Flow) {
	t.Helper()
	upstream := openpaytest.NewServer(t)
	path := filepath.Join(t.TempDir(), "flows.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := conformance.NewRecorder(conformance.RecorderConfig{Upstream: upstream.URL, AllowUpstream: true, Out: f})
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(rec)
	env := &Env{PayerIP: "203.0.113.10", MerchantID: upstream.MerchantID, PublicKey: upstream.PublicKey}
	env.Client, err = openpay.New(upstream.MerchantID, upstream.PrivateKey, openpay.WithBaseURL(proxy.URL))
	if err == nil {
		env.Public, err = openpay.New(upstream.MerchantID, upstream.PublicKey, openpay.WithBaseURL(proxy.URL))
	}
	if err == nil {
		err = flow(context.Background(), env, io.Discard)
	}
	proxy.Close()
	rec.Close()
	f.Close()
	if err != nil {
		t.Fatalf("the flow failed through the recorder: %v", err)
	}
	if err := rec.Err(); err != nil {
		t.Fatalf("recording: %v", err)
	}
	found, err := conformance.ScanFile(path)
	if err != nil || len(found) > 0 {
		t.Fatalf("the cassette holds secrets (%v): %v", err, found)
	}
	if rec.Count() == 0 {
		t.Fatal("the flow made no request")
	}
	openpaytest.Replay(t, path)
}
