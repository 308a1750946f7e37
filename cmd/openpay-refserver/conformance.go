package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/conformance"
	"github.com/openpay-go/openpay/internal/refserver"
	"github.com/openpay-go/openpay/openpaytest"
)

// Exit statuses of the record and replay subcommands.
const (
	exitOK     = 0
	exitDiffer = 1 // replay: an operation differs and the allowlist does not excuse it
	exitError  = 2
)

// conformanceCLI runs the record or replay subcommand and returns its exit
// status.
func conformanceCLI(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) int {
	var (
		code int
		err  error
	)
	switch sub {
	case "record":
		err = record(ctx, args, stdout, stderr)
	case "replay":
		code, err = replay(ctx, args, stdout, stderr)
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "openpay-refserver %s: %v\n", sub, err)
		return exitError
	}
	return code
}

const recordUsage = `Usage: openpay-refserver record --out flows.jsonl [--force] [--upstream URL] [--country MX|CO|PE] [--addr 127.0.0.1:8080] [--allow-upstream]

Listens on loopback as a reverse proxy to the gateway's sandbox: point your
SDK or test suite at the URL it prints, with your sandbox credentials. Each
exchange is forwarded unchanged and written to the cassette in the order the
requests arrived, without keys, card numbers (BIN, last four, brand,
test-card class and layout are kept), security codes (their layout is
kept), CLABEs, metadata secrets or passwords. An existing --out is refused
unless --force replaces it. It records until SIGINT or SIGTERM; a second
one stops at once. Requests the upstream did not answer are reported on
stderr and counted.

Flags:
`

// record runs `openpay-refserver record`.
func record(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("openpay-refserver record", flag.ContinueOnError)
	upstream := fs.String("upstream", "", "base URL of the sandbox to record (default: the sandbox host of --country)")
	out := fs.String("out", "", "cassette file to write (required; an existing file is refused without --force)")
	force := fs.Bool("force", false, "replace --out if it exists")
	country := fs.String("country", "", "the merchant's country: MX, CO or PE, in any case (default: the upstream's, else MX)")
	listen := fs.String("addr", "127.0.0.1:8080", "loopback address to listen on; port 0 picks a free port")
	fs.StringVar(listen, "listen", "127.0.0.1:8080", "the old name of --addr, kept as an alias")
	allowUpstream := fs.Bool("allow-upstream", false, "record against a host that is not the gateway's sandbox (its production hosts are refused whatever this says)")
	if err := parseFlags(fs, args, recordUsage, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	var cc openpay.Country
	if *country != "" {
		var err error
		if cc, err = refserver.ParseCountry(*country); err != nil {
			return fmt.Errorf("--country: %w", err)
		}
	}
	if *upstream == "" {
		*upstream = "https://sandbox-api.openpay.mx"
		if cc != "" {
			*upstream = "https://sandbox-api.openpay." + strings.ToLower(string(cc))
		}
	}
	// Checked before the cassette is created, so that a refusal leaves no
	// file behind.
	if _, _, err := conformance.CheckUpstream(*upstream, *allowUpstream, cc); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("--addr: the recorder carries your sandbox keys and listens on loopback only")
	}

	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if *force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(*out, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists: a recording never replaces a cassette silently; give --force to replace it, or another --out", *out)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	rec, err := conformance.NewRecorder(conformance.RecorderConfig{Upstream: *upstream, AllowUpstream: *allowUpstream, Country: cc, Out: f, Log: stderr})
	if err != nil {
		return err
	}
	defer rec.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rec, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, IdleTimeout: idleTimeout}
	if err := serveUntil(ctx, srv, ln, func() {
		fmt.Fprintln(stdout, "http://"+ln.Addr().String())
		fmt.Fprintf(stderr, "recording %s to %s; stop with Ctrl-C\n", *upstream, *out)
	}); err != nil {
		return err
	}
	if err := rec.Err(); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	fmt.Fprintf(stderr, "%d exchanges recorded in %s", rec.Count(), *out)
	if n := rec.Failed(); n > 0 {
		fmt.Fprintf(stderr, "; %d request%s the upstream did not answer, not recorded", n, plural(n))
	}
	fmt.Fprintln(stderr)
	if rec.Count() == 0 {
		fmt.Fprintln(stderr, "warning: the cassette holds no exchange; its replay fails (it would check nothing)")
	}
	return f.Close()
}

const replayUsage = `Usage: openpay-refserver replay flows.jsonl [--target URL] [--allow FILE] [--json] [--fake-clock recorded|wall|TIME] [--strict] [--whole-lists] [--merchant-balance AMOUNT]

Replays a cassette's requests in order against a fresh in-process reference
server (or --target) and compares each answer with the recorded one. Prints a
report per operation, then every difference by exchange (#N is the
exchange's seq; its line in the file is given too); exits 1 when an
operation differs in a way the allowlist does not excuse, 2 on errors (a
cassette with no exchange is one). The in-process server runs on the
cassette's recorded clock. With --target, the merchant and its keys come
from --merchant-id, --private-key and --public-key or from
OPENPAY_MERCHANT_ID, OPENPAY_PRIVATE_KEY and OPENPAY_PUBLIC_KEY, and the
target's own clock is used.

Allowlist: one rule a line, an operationId (or *) and a JSON path as the
report shows it ($.card.bank_name, $[*].id, @status for the HTTP status);
a rule excuses the path and what is under it; # starts a comment.

Flags:
`

// replay runs `openpay-refserver replay` and returns the exit status.
func replay(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("openpay-refserver replay", flag.ContinueOnError)
	target := fs.String("target", "", "base URL of a running server to replay against (default: a fresh in-process reference server)")
	merchantID := fs.String("merchant-id", os.Getenv("OPENPAY_MERCHANT_ID"), "with --target: the merchant to act as")
	privateKey := fs.String("private-key", os.Getenv("OPENPAY_PRIVATE_KEY"), "with --target: the merchant's private key")
	publicKey := fs.String("public-key", os.Getenv("OPENPAY_PUBLIC_KEY"), "with --target: the merchant's public key")
	allowFile := fs.String("allow", "", "allowlist file of differences to excuse")
	asJSON := fs.Bool("json", false, "write the report as JSON (for CI)")
	balance := fs.String("merchant-balance", "", "opening balance of the in-process server's merchant (your sandbox merchant's funds, for merchant payouts)")
	fakeClock := fs.String("fake-clock", "recorded", "clock of the in-process server: recorded (the cassette's recording time, moved to each exchange's), wall (the wall clock), or an RFC 3339 time to start at (moved by the exchanges' offsets)")
	strict := fs.Bool("strict", false, "run the in-process server strict, as --strict does for the server (X-Forwarded-For, order_id, device_session_id and customer required where the sandbox is lenient)")
	wholeLists := fs.Bool("whole-lists", false, "compare list answers whole, objects the sandbox held before the recording included (default: the objects the cassette saw, in order)")
	// The cassette may come before the flags or after them.
	var paths []string
	for {
		if err := parseFlags(fs, args, replayUsage, stdout, stderr); err != nil {
			return exitError, err
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(paths) != 1 {
		return exitError, errors.New("name one cassette file")
	}
	cas, err := conformance.ReadCassette(paths[0])
	if err != nil {
		return exitError, err
	}
	for _, w := range cas.Warnings {
		fmt.Fprintf(stderr, "warning: %s: %s\n", paths[0], w)
	}
	var allow *conformance.Allowlist
	if *allowFile != "" {
		if allow, err = conformance.ReadAllowlist(*allowFile); err != nil {
			return exitError, err
		}
	}
	t := conformance.Target{URL: *target, MerchantID: *merchantID, PrivateKey: *privateKey, PublicKey: *publicKey, WholeLists: *wholeLists}
	if *target == "" {
		var opts []openpaytest.Option
		if cas.Header.Country != "" {
			opts = append(opts, openpaytest.WithCountry(openpay.Country(cas.Header.Country)))
		}
		if *strict {
			opts = append(opts, openpaytest.WithStrict())
		}
		start, follow := cas.Header.Recorded, true
		switch *fakeClock {
		case "recorded":
			follow = !start.IsZero()
		case "wall":
			follow = false
		default:
			if start, err = time.Parse(time.RFC3339, *fakeClock); err != nil {
				return exitError, errors.New("--fake-clock: want recorded, wall or an RFC 3339 time such as 2026-01-05T10:00:00-06:00")
			}
		}
		if follow {
			opts = append(opts, openpaytest.WithClock(start))
		}
		if *balance != "" {
			a, err := openpay.NewAmount(*balance)
			if err != nil {
				return exitError, fmt.Errorf("--merchant-balance: %w", err)
			}
			opts = append(opts, openpaytest.WithMerchantBalance(a))
		}
		srv, err := openpaytest.Start(opts...)
		if err != nil {
			return exitError, err
		}
		defer srv.Close()
		t = conformance.Target{URL: srv.URL, MerchantID: srv.MerchantID, PrivateKey: srv.PrivateKey, PublicKey: srv.PublicKey, WholeLists: *wholeLists}
		if follow {
			t.FollowClock(srv)
			// The clock stands for the recording time: exchanges move it
			// by their offsets from it.
			if !cas.Header.Recorded.IsZero() {
				t.Now = cas.Header.Recorded
			}
		}
	} else if t.MerchantID == "" || t.PrivateKey == "" {
		return exitError, errors.New("--target needs the merchant's id and private key (--merchant-id, --private-key or OPENPAY_MERCHANT_ID, OPENPAY_PRIVATE_KEY)")
	}
	rep, err := conformance.Replay(ctx, cas, t, allow)
	if err != nil {
		return exitError, err
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return exitError, err
	}
	if !rep.OK() {
		return exitDiffer, nil
	}
	return exitOK, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
