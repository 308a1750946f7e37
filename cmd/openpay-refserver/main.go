// Command openpay-refserver runs the reference server of the Openpay
// gateway as a process: a stateful emulator of the whole API for test
// suites written in any language, with no network and no sandbox account.
// Install it with
//
//	go install github.com/openpay-go/openpay/cmd/openpay-refserver@latest
//
// Usage:
//
//	openpay-refserver [serve] [--addr 127.0.0.1:8080] [--merchant-id ID] [--private-key KEY] [--public-key KEY]
//	                  [--seed-file FILE] [--strict] [--production] [--id-seed N]
//	                  [--fake-clock 2026-01-05T10:00:00-06:00] [--data DIR] [--verbose] [--no-dashboard]
//	                  [--admin-key KEY] [--drain 10s] [--exit-with-parent] [--exit-on-stdin-close] [--webhook-ca FILE]
//	openpay-refserver record --out flows.jsonl [--force] [--upstream URL] [--country MX|CO|PE] [--addr ADDR] [--allow-upstream]
//	openpay-refserver replay flows.jsonl [--target URL] [--allow FILE] [--json] [--fake-clock recorded|wall|TIME] [--strict] [--whole-lists] [--merchant-balance AMOUNT]
//	openpay-refserver help [command]
//	openpay-refserver version
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
// loaded, and the seed (flags and file) is checked against it rather than
// applied again: it is what a reset goes back to, and a merchant or key it
// does not hold is refused. A DIR that
// cannot be used (unreadable, damaged, its store lost, held by another
// process: the README says when) is an error, exit status 2. SIGINT or SIGTERM shut the server down gracefully: the
// requests in progress have --drain to finish (exit status 0), those still
// running then are cut (exit status 2). --exit-with-parent and
// --exit-on-stdin-close shut it down when the process that started it ends
// or its standard input closes. --help (or -h, or help) prints the commands
// and flags on standard output and exits 0; a bad flag is reported in one
// line on standard error, exit status 2.
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
//	POST /_simulate/{merchant_id}/clock/advance                    {"seconds": 86400}: the merchant's clock moves on (its own from then on)
//	POST /_simulate/{merchant_id}/clock/set                        {"now": "2026-02-01T00:00:00-06:00"}: the merchant's clock is put there
//	GET  /_simulate/{merchant_id}/clock                            {"now": ..., "follows_server": true|false}
//	POST /_simulate/{merchant_id}/deliveries/wait                  {"timeout_ms": 10000}: answers once the merchant's webhook deliveries are done
//	GET  /_simulate/{merchant_id}/deliveries                       the merchant's deliveries: pending, dropped, given up
//
// The dashboard at /_dashboard/ shows the server's state and has a button
// for each simulation control; on loopback it needs no credentials, on any
// other address it asks for a merchant's id and private key (HTTP Basic)
// and shows that merchant. --no-dashboard turns it off.
//
// Server-wide controls: GET /_health (no credentials) answers {"status":
// "ok"}; POST /_simulate/reset puts a merchant back to its seed (its clock
// follows the server's again); POST /_simulate/clock/advance moves the
// clock of the key's owner; POST, GET and DELETE /_simulate/faults arm,
// list and disarm injected failures. Reset, the clock and faults take any
// merchant's private key and act on that merchant alone; with
// --admin-key, that key resets every merchant, moves the server's clock
// (with every merchant that follows it) and acts on every merchant's
// faults.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
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

// The command's module path, for go install and the version.
const installPath = "github.com/openpay-go/openpay/cmd/openpay-refserver"

// topUsage is the command's help: its subcommands, then the flags of serve.
const topUsage = `Usage:
  openpay-refserver [serve] [flags]       run the reference server (serve is the default command)
  openpay-refserver record --out FILE     record a merchant's sandbox traffic as a cassette
  openpay-refserver replay FILE           replay a cassette against the reference server
  openpay-refserver help [command]        print this help, or a command's
  openpay-refserver version               print the version

Runs the reference server of the Openpay gateway: a stateful emulator of its
API for test suites in any language. Once ready it prints its base URL on
stdout; it serves until SIGINT or SIGTERM, then waits up to --drain for the
requests in progress. The README lists the controls (/_simulate/...).
record and replay check it against your sandbox: record your sandbox traffic
once as a cassette, replay it here in CI (openpay-refserver help record).

Install: go install ` + installPath + `@latest (Go 1.25 or later)

Flags of serve:
`

// cli runs the command and returns its exit status: 0 when the server shut
// down cleanly or help or the version was asked for, 2 otherwise, the error
// on stderr. The subcommands record and replay (conformance.go) have their
// own.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "record", "replay":
		return conformanceCLI(ctx, cmd, args, stdout, stderr)
	case "help":
		return help(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "openpay-refserver", version())
		return 0
	case "serve":
	default:
		fmt.Fprintf(stderr, "openpay-refserver: unknown command %q (commands: serve, record, replay, help, version)\n", cmd)
		return 2
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

// help prints the help of the command named in args (none: the whole
// command's).
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	switch args[0] {
	case "serve", "record", "replay":
		return cli(context.Background(), []string{args[0], "--help"}, stdout, stderr)
	case "help", "version":
		fmt.Fprint(stdout, topUsage[:strings.Index(topUsage, "\n\n")+1])
		return 0
	}
	fmt.Fprintf(stderr, "openpay-refserver help: unknown command %q (commands: serve, record, replay, help, version)\n", args[0])
	return 2
}

// version is the module's version from the build information: the tag
// go install fetched (v1.2.3), or for a build from a checkout "(devel)"
// with the commit when the build recorded one.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, st := range bi.Settings {
		if st.Key == "vcs.revision" && len(st.Value) >= 12 && v == "(devel)" {
			v += " " + st.Value[:12]
		}
	}
	return v + " " + bi.GoVersion
}

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
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on; port 0 picks a free port (the first line on stdout is the URL)")
	merchantID := fs.String("merchant-id", "", "id of the seeded merchant (generated when empty)")
	privateKey := fs.String("private-key", "", "private key of the seeded merchant (generated when empty)")
	publicKey := fs.String("public-key", "", "public key of the seeded merchant (generated when empty)")
	strict := fs.Bool("strict", false, "require X-Forwarded-For on charges, and order_id, device_session_id and customer where the sandbox is lenient (the vendor SDKs that send no X-Forwarded-For, Node's among them, fail charges under it)")
	production := fs.Bool("production", false, "act as production: refuse the sandbox test cards (2007)")
	idSeed := fs.Int64("id-seed", 0, "make generated ids and keys repeat from run to run: the same number, the same ids (0: random)")
	fs.Int64Var(idSeed, "seed", 0, "the old name of --id-seed, kept for scripts that use it")
	seedFile := fs.String("seed-file", "", "start with the merchants, groups, balances, customers, cards and plans of this JSON or YAML file")
	fakeClock := fs.String("fake-clock", "", "run on a fake clock that starts at this date and time, written as RFC 3339 with its offset (2026-01-05T10:00:00-06:00, or Z for UTC) and moved only by /_simulate/clock/advance with the --admin-key (each merchant follows it until its own clock is moved)")
	verbose := fs.Bool("verbose", false, "log every request (operation, status, duration, and the path of requests that match no operation; never bodies, keys or card data)")
	country := fs.String("country", "MX", "country of the merchants that do not name one: MX, CO or PE, in any case; currencies, payment methods, resources, stores and hosts follow it")
	noDashboard := fs.Bool("no-dashboard", false, "turn off the dashboard at /_dashboard/ (off loopback it asks for a merchant's id and private key)")
	dataDir := fs.String("data", "", "keep the whole state in this directory across restarts, written before each answer (created when missing; a saved state is loaded, the merchant flags and seed file are checked against it and become what a reset goes back to)")
	adminKey := fs.String("admin-key", "", "key (HTTP Basic user) of the whole-server controls: POST /_simulate/reset with it resets every merchant, /_simulate/faults acts for every merchant; a merchant's key acts on that merchant alone")
	queueLimit := fs.Int("webhook-queue-limit", refserver.DefaultWebhookQueueLimit, "pending deliveries kept per webhook; an event past it is dropped for that webhook, counted and logged")
	webhookCA := fs.String("webhook-ca", "", "PEM file of certificate authorities to trust, besides the system's, when delivering webhooks to https receivers")
	drain := fs.Duration("drain", shutdownTimeout, "on SIGINT or SIGTERM, how long the requests in progress may finish (a duration: 10s, 1m); those still running then are cut and the exit status is 2")
	withParent := fs.Bool("exit-with-parent", false, "shut down when the process that started this one ends (a crashed test runner leaves no server behind; Unix)")
	withStdin := fs.Bool("exit-on-stdin-close", false, "shut down when standard input is closed (spawn with a pipe on stdin and keep it open)")
	if err := parseFlags(fs, args, topUsage, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v (the commands are serve, record, replay, help and version)", fs.Args())
	}
	if *queueLimit < 1 {
		return errors.New("--webhook-queue-limit must be at least 1")
	}
	if *drain < 0 {
		return errors.New("--drain must not be negative")
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

	opts := refserver.Options{Strict: *strict, Production: *production, Logger: logger, WebhookQueueLimit: *queueLimit,
		Country: cc, NoDashboard: *noDashboard, AdminKey: *adminKey}
	if *idSeed != 0 {
		opts.IDSeed = idSeed
	}
	if *fakeClock != "" {
		start, err := time.Parse(time.RFC3339, *fakeClock)
		if err != nil {
			return fmt.Errorf("--fake-clock: %q is not a date and time in RFC 3339 form: write the date, T, the time and the offset, as 2026-01-05T10:00:00-06:00 (or 2026-01-05T16:00:00Z for UTC)", *fakeClock)
		}
		opts.Clock = refserver.NewFakeClock(start)
	}
	if *webhookCA != "" {
		if opts.HTTPClient, err = trustingClient(*webhookCA); err != nil {
			return fmt.Errorf("--webhook-ca: %w", err)
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	baseURL := "http://" + ln.Addr().String()
	opts.BaseURL, opts.ListenAddr = baseURL, ln.Addr().String()
	ref := refserver.New(opts)
	defer ref.Close()
	restored := false
	if *dataDir != "" {
		if restored, err = ref.OpenData(*dataDir); err != nil {
			return err
		}
	}
	if restored {
		switch err := ref.AdoptSeed(sd); {
		case errors.Is(err, refserver.ErrNotAdoptable):
			logger.Warn("state restored from the data directory; POST /_simulate/reset stays refused: pass the merchant's --merchant-id, --private-key and --public-key (or --id-seed) as at the first start to allow it", "data", *dataDir)
		case err != nil:
			return fmt.Errorf("--data %s: %w", *dataDir, err)
		default:
			logger.Info("state restored from the data directory; the merchant flags and seed file match it and are what a reset goes back to", "data", *dataDir)
		}
	} else {
		applied, err := ref.ApplySeed(sd)
		if err != nil {
			return err
		}
		logGenerated(logger, sd, applied)
		// The seeded state is the directory's starting point.
		if err := ref.SaveData(); err != nil {
			return fmt.Errorf("--data: %w", err)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if *withParent {
		// The parent as it is now, before anything is announced.
		go exitWithParent(ctx, os.Getppid(), cancel, logger)
	}
	if *withStdin {
		go exitOnStdinClose(os.Stdin, cancel, logger)
	}
	srv := &http.Server{
		Handler:           ref,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	return serveDraining(ctx, srv, ln, *drain, func() { fmt.Fprintln(stdout, baseURL) })
}

// serveUntil serves srv on ln until ctx ends, then shuts it down, giving
// the requests in progress shutdownTimeout to finish. announce runs once
// the server is serving.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener, announce func()) error {
	return serveDraining(ctx, srv, ln, shutdownTimeout, announce)
}

// serveDraining is serveUntil with drain as the time the requests in
// progress have to finish; those still running then are cut, and the
// error says so.
func serveDraining(ctx context.Context, srv *http.Server, ln net.Listener, drain time.Duration, announce func()) error {
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	announce()

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		_ = srv.Close()
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("requests still in progress after the drain limit (--drain %s) were cut", drain)
		}
		return err
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// parentPoll is how often --exit-with-parent looks at the parent process.
const parentPoll = 200 * time.Millisecond

// exitWithParent cancels when the process's parent, whose id was parent,
// ends: on Unix an orphan is adopted by another process, so its parent id
// changes.
func exitWithParent(ctx context.Context, parent int, cancel func(), logger *slog.Logger) {
	t := time.NewTicker(parentPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if os.Getppid() != parent {
				logger.Info("the parent process ended; shutting down (--exit-with-parent)")
				cancel()
				return
			}
		}
	}
}

// exitOnStdinClose cancels once stdin reaches its end or fails.
func exitOnStdinClose(stdin io.Reader, cancel func(), logger *slog.Logger) {
	_, _ = io.Copy(io.Discard, stdin)
	logger.Info("standard input closed; shutting down (--exit-on-stdin-close)")
	cancel()
}

// trustingClient is the webhook client of --webhook-ca: the system's
// authorities and those of the PEM file.
func trustingClient(file string) (*http.Client, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", file)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
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

// parseFlags parses a command's flags (serve, record, replay). Help asked
// for prints usage and the flags on stdout (the command succeeds); a bad
// flag is reported once, by the caller, with the command that prints the
// flags, never the whole usage.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, _ io.Writer) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, usage)
		fs.PrintDefaults()
		return err
	}
	cmd := strings.TrimPrefix(strings.TrimPrefix(fs.Name(), "openpay-refserver"), " ")
	if cmd == "" {
		cmd = "serve"
	}
	return fmt.Errorf("%w (openpay-refserver help %s lists the flags)", err, cmd)
}
