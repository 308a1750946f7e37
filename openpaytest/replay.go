package openpaytest

import (
	"context"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/conformance"
)

// ReplayOption configures [Replay].
type ReplayOption func(*replayConfig)

type replayConfig struct {
	server     []Option
	allowlist  string
	wallClock  bool
	wholeLists bool
}

// ReplayOnWallClock replays on the wall clock rather than on the
// cassette's recorded clock (see [Replay]).
func ReplayOnWallClock() ReplayOption { return func(c *replayConfig) { c.wallClock = true } }

// ReplayWholeLists compares list answers whole, objects the sandbox held
// before the recording included (see [Replay]).
func ReplayWholeLists() ReplayOption { return func(c *replayConfig) { c.wholeLists = true } }

// ReplayWith starts the server Replay replays against with these options
// (WithStrict, WithMerchantBalance, ...). The cassette's country and clock
// are applied first; an option given here wins over them.
func ReplayWith(opts ...Option) ReplayOption {
	return func(c *replayConfig) { c.server = append(c.server, opts...) }
}

// ReplayAllowlist excuses the differences an allowlist file lists: one rule
// a line, an operationId (or *) and a JSON path as the report shows it
// ("createCharge $.card.bank_name", "* $[*].id", "getCustomer
// @status"); a rule excuses its path and what is under it, # starts a
// comment.
func ReplayAllowlist(path string) ReplayOption {
	return func(c *replayConfig) { c.allowlist = path }
}

// Replay replays a cassette recorded with `openpay-refserver record` against
// a new server and fails the test, with a report per operation, when an
// answer differs from the recorded one in a way the allowlist does not
// excuse: status, error code and category, keys, JSON types, enum values
// and amounts are compared; ids, times, authorization numbers, request ids
// and the gateway's URLs by shape (the README's "Conformance recording"
// says more). A merchant keeps its recorded sandbox flows as a test:
//
//	func TestSandboxFlows(t *testing.T) {
//		openpaytest.Replay(t, "testdata/flows.jsonl")
//	}
func Replay(t testing.TB, cassette string, opts ...ReplayOption) {
	t.Helper()
	var cfg replayConfig
	for _, o := range opts {
		o(&cfg)
	}
	cas, err := conformance.ReadCassette(cassette)
	if err != nil {
		t.Fatalf("openpaytest.Replay: %v", err)
		return
	}
	var allow *conformance.Allowlist
	if cfg.allowlist != "" {
		if allow, err = conformance.ReadAllowlist(cfg.allowlist); err != nil {
			t.Fatalf("openpaytest.Replay: %v", err)
			return
		}
	}
	for _, w := range cas.Warnings {
		t.Logf("openpaytest.Replay %s: %s", cassette, w)
	}
	var first []Option
	if cas.Header.Country != "" {
		first = append(first, WithCountry(openpay.Country(cas.Header.Country)))
	}
	recordedClock := !cfg.wallClock && !cas.Header.Recorded.IsZero()
	if recordedClock {
		first = append(first, WithClock(cas.Header.Recorded))
	}
	srv := NewServer(t, append(first, cfg.server...)...)
	target := conformance.Target{URL: srv.URL, MerchantID: srv.MerchantID, PrivateKey: srv.PrivateKey, PublicKey: srv.PublicKey,
		WholeLists: cfg.wholeLists}
	if recordedClock {
		target.FollowClock(srv)
		// The clock stands for the recording time, even when an option
		// started it elsewhere: exchanges move it by their offsets.
		target.Now = cas.Header.Recorded
	}
	rep, err := conformance.Replay(context.Background(), cas, target, allow)
	if err != nil {
		t.Fatalf("openpaytest.Replay: %v", err)
		return
	}
	if !rep.OK() {
		var text strings.Builder
		_ = rep.WriteText(&text)
		t.Errorf("openpaytest.Replay %s: the reference server answers differently:\n%s", cassette, text.String())
	}
}
