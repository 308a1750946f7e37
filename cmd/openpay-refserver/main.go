// Command openpay-refserver runs the reference server of the Openpay
// gateway as a process: a stateful emulator of the whole API for test
// suites written in any language, with no network and no sandbox account.
//
// Usage:
//
//	openpay-refserver [--addr 127.0.0.1:8080] [--merchant-id ID] [--private-key KEY] [--public-key KEY]
//	                  [--seed-file FILE] [--strict] [--production] [--seed N]
//	                  [--fake-clock 2026-01-05T10:00:00-06:00] [--data DIR] [--verbose] [--no-dashboard]
//	                  [--admin-key KEY]
//	openpay-refserver record --out flows.jsonl [--force] [--upstream URL] [--country mx|co|pe] [--listen ADDR] [--allow-upstream]
//	openpay-refserver replay flows.jsonl [--target URL] [--allow FILE] [--json] [--fake-clock recorded|wall|TIME] [--strict] [--whole-lists] [--merchant-balance AMOUNT]
//
// record and replay are the conformance recorder (the README's
// "Conformance recording"): record a merchant's sandbox traffic once, replay
// it against the reference server in CI.
//
// When the server is ready it prints one line on standard output, its base
// URL (http://127.0.0.1:8080); API paths follow it (/v1/{merchant_id}/...).
// Port 0 picks a free port. The merchant is seeded with the given id and
// keys, so a suite with hard-coded sandbox credentials runs unchanged; those
// not given are generated and printed on standard error. A seed file (JSON
// or YAML, described in the README) adds merchants, a merchant group,
// opening balances, customers, cards and plans, with fixed ids; the flags
// win over it. With --data DIR the whole state is kept in DIR (an embedded
// bbolt store) and written before each answer, so a restart, even after
// kill -9, finds every object it answered; a DIR that holds a state is
// loaded and the seed (flags and file) is not applied again. A DIR that
// cannot be used (unreadable, damaged, its store lost, held by another
// process: the README says when) is an error, exit status 2. SIGINT or SIGTERM shut the server down gracefully. --help
// (or -h) prints the flags on standard output and exits 0.
//
// Simulation controls, apart from the API and authenticated with the
// merchant's private key (HTTP Basic user, empty password):
//
//	POST /_simulate/{merchant_id}/charges/{id}/pay                 a store or bank charge is paid
//	POST /_simulate/{merchant_id}/charges/{id}/complete            a redirect, 3-D Secure, Alipay or IVR charge is completed
//	POST /_simulate/{merchant_id}/charges/{id}/fail                {"error_code": 3001}: a pending charge fails
//	POST /_simulate/{merchant_id}/charges/{id}/chargeback          a chargeback is opened on a completed card charge
//	POST /_simulate/{merchant_id}/charges/{id}/chargeback/resolve  {"accepted": true|false}
//	POST /_simulate/{merchant_id}/checkouts/{id}/pay               {"card_number": "4111111111111111"}: a checkout is paid ({"method": "store"} or, in Colombia, "bank_account": its store or PSE payment starts)
//	POST /_simulate/{merchant_id}/clock/advance                    {"seconds": 86400} (needs --fake-clock)
//
// The dashboard at /_dashboard/ shows the server's state and has a button
// for each simulation control; on loopback it needs no credentials, on any
// other address it asks for a merchant's id and private key (HTTP Basic)
// and shows that merchant. --no-dashboard turns it off.
//
// Server-wide controls: GET /_health (no credentials) answers {"status":
// "ok"}; POST /_simulate/reset puts a merchant back to its seed; POST, GET
// and DELETE /_simulate/faults arm, list and disarm injected failures.
// Reset and faults take any merchant's private key and act on that
// merchant alone; with --admin-key, that key resets every merchant and
// acts on every merchant's faults.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/openpay-go/openpay/internal/refserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop) // a second Ctrl-C stops at once, as the default handling does
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cli runs the command and returns its exit status: 0 when the server shut
// down cleanly or help was asked for, 2 otherwise, the error on stderr. The
// subcommands record and replay (conformance.go) have their own.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "record" || args[0] == "replay") {
		return conformanceCLI(ctx, args[0], args[1:], stdout, stderr)
	}
	err := run(ctx, args, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintln(stderr, "openpay-refserver:", err)
		return 2
	}
}

// usageHeader comes before the flags in the usage text.
const usageHeader = `Usage: openpay-refserver [flags]

Runs the reference server of the Openpay gateway: a stateful emulator of its
API. Once ready it prints its base URL on stdout; it serves until SIGINT or
SIGTERM. The README lists the simulation controls (/_simulate/...).
record and replay (openpay-refserver record --help) record your sandbox traffic and replay it here in CI.

Flags:
`

// Server timeouts: bounded header and body reads, so slow clients cannot
// hold connections for ever.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 2 * time.Minute
	shutdownTimeout   = 10 * time.Second
)

// run starts the server and serves until ctx ends, then shuts down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("openpay-refserver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on; port 0 picks a free port")
	merchantID := fs.String("merchant-id", "", "id of the seeded merchant (generated when empty)")
	privateKey := fs.String("private-key", "", "private key of the seeded merchant (generated when empty)")
	publicKey := fs.String("public-key", "", "public key of the seeded merchant (generated when empty)")
	strict := fs.Bool("strict", false, "require X-Forwarded-For on charges, and order_id, device_session_id and customer where the sandbox is lenient")
	production := fs.Bool("production", false, "act as production: refuse the sandbox test cards (2007)")
	seed := fs.Int64("seed", 0, "make ids and keys deterministic with this seed (0: random)")
	seedFile := fs.String("seed-file", "", "start with the merchants, groups, balances, customers, cards and plans of this JSON or YAML file")
	fakeClock := fs.String("fake-clock", "", "run on a fake clock starting at this RFC 3339 time, moved by /_simulate/{merchant_id}/clock/advance")
	verbose := fs.Bool("verbose", false, "log every request (operation, status, duration; never bodies, keys or card data)")
	country := fs.String("country", "mx", "country of the merchants that do not name one (mx, co or pe): currencies, payment methods, resources, stores and hosts follow it")
	noDashboard := fs.Bool("no-dashboard", false, "turn off the dashboard at /_dashboard/ (off loopback it asks for a merchant's id and private key)")
	dataDir := fs.String("data", "", "keep the whole state in this directory across restarts, written before each answer (created when missing; a saved state is loaded and the seed is not applied again)")
	adminKey := fs.String("admin-key", "", "key (HTTP Basic user) of the whole-server controls: POST /_simulate/reset with it resets every merchant, /_simulate/faults acts for every merchant; a merchant's key acts on that merchant alone")
	queueLimit := fs.Int("webhook-queue-limit", refserver.DefaultWebhookQueueLimit, "pending deliveries kept per webhook; an event past it is dropped for that webhook, counted and logged")
	if err := parseFlags(fs, args, usageHeader, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *queueLimit < 1 {
		return errors.New("--webhook-queue-limit must be at least 1")
	}
	cc, err := refserver.ParseCountry(*country)
	if err != nil {
		return fmt.Errorf("--country: %w", err)
	}
	var sd refserver.Seed
	if *seedFile != "" {
		var err error
		if sd, err = refserver.ReadSeedFile(*seedFile); err != nil {
			return err
		}
	}
	sd = sd.WithMerchant(*merchantID, *privateKey, *publicKey)

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	baseURL := "http://" + ln.Addr().String()
	opts := refserver.Options{Strict: *strict, Production: *production, Logger: logger, BaseURL: baseURL, WebhookQueueLimit: *queueLimit,
		Country: cc, ListenAddr: ln.Addr().String(), NoDashboard: *noDashboard, AdminKey: *adminKey}
	if *seed != 0 {
		opts.IDSeed = seed
	}
	if *fakeClock != "" {
		start, err := time.Parse(time.RFC3339, *fakeClock)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--fake-clock: %w", err)
		}
		opts.Clock = refserver.NewFakeClock(start)
	}
	ref := refserver.New(opts)
	defer ref.Close()
	restored := false
	if *dataDir != "" {
		if restored, err = ref.OpenData(*dataDir); err != nil {
			ln.Close()
			return err
		}
	}
	if restored {
		logger.Info("state restored from the data directory; the seed is not applied again", "data", *dataDir)
	} else {
		applied, err := ref.ApplySeed(sd)
		if err != nil {
			ln.Close()
			return err
		}
		logGenerated(logger, sd, applied)
		// The seeded state is the directory's starting point.
		if err := ref.SaveData(); err != nil {
			ln.Close()
			return fmt.Errorf("--data: %w", err)
		}
	}

	srv := &http.Server{
		Handler:           ref,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	return serveUntil(ctx, srv, ln, func() { fmt.Fprintln(stdout, baseURL) })
}

// serveUntil serves srv on ln until ctx ends, then shuts it down, giving
// the requests in progress shutdownTimeout to finish. announce runs once
// the server is serving.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, announce func()) error {
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	announce()

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return err
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// logGenerated prints the credentials the server generated: the ids and
// keys that sd, the seed as given, left empty, read from applied. Keys
// given on the command line or in the seed file are not repeated into logs.
func logGenerated(logger *slog.Logger, sd, applied refserver.Seed) {
	for i, m := range sd.Merchants {
		got := applied.Merchants[i]
		var gen []any
		if m.ID == "" || m.PrivateKey == "" || m.PublicKey == "" {
			gen = append(gen, "merchant_id", got.ID)
		}
		if m.PrivateKey == "" {
			gen = append(gen, "private_key", got.PrivateKey)
		}
		if m.PublicKey == "" {
			gen = append(gen, "public_key", got.PublicKey)
		}
		if gen != nil {
			logger.Info("generated merchant credentials", gen...)
		}
	}
	for i, g := range sd.Groups {
		got := applied.Groups[i]
		if g.ID == "" || g.PrivateKey == "" {
			gen := []any{"group_id", got.ID}
			if g.PrivateKey == "" {
				gen = append(gen, "private_key", got.PrivateKey)
			}
			logger.Info("generated group credentials", gen...)
		}
	}
}

// parseFlags parses a command's flags (serve, record, replay). Usage is printed
// here rather than by Parse: asked for, it goes to stdout (the command
// succeeds); after a bad flag, to stderr.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) error {
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	out := stderr
	if errors.Is(err, flag.ErrHelp) {
		out = stdout
	}
	fs.SetOutput(out)
	fmt.Fprint(out, usage)
	fs.PrintDefaults()
	return err
}
