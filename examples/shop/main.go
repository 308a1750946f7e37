// Command shop is a small but whole merchant backend, written to be copied:
//
//   - checkout by card: the payer's page turns the card into a token with the
//     public key; the shop charges it under one order_id per payment attempt
//     (order-42-1, order-42-2, ...), so that a declined card can be followed
//     by another, and a lost answer is settled without charging twice;
//   - cash at a store: a reference the payer pays at a convenience store, the
//     order paid when the gateway's webhook says so;
//   - the webhook receiver: deduplicated, and reading the charge back from
//     the API before believing it;
//   - refunds, in part or in whole;
//   - a recovery job that settles the attempts whose answer was lost;
//   - a nightly job that compares yesterday's charges with the orders.
//
// The shop itself is type Shop (shop.go, jobs.go); handlers.go is its HTTP
// API. Run it:
//
//	go run ./examples/shop [-addr 127.0.0.1:8000]   serves the API until Ctrl-C
//	go run ./examples/shop -demo                    runs a scripted purchase through the API, and exits
//
// With no environment it runs against a reference server started in the
// program. With OPENPAY_MERCHANT_ID, OPENPAY_PRIVATE_KEY and
// OPENPAY_PUBLIC_KEY set it runs against the Openpay sandbox, which can
// deliver webhooks only to an address it can reach: set SHOP_PUBLIC_URL (a
// tunnel to this shop, for instance) to register one.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "address the shop listens on")
	demo := flag.Bool("demo", false, "run a scripted purchase against the shop, then exit")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if *demo {
		err = run(ctx, os.Stdout)
	} else {
		err = serve(ctx, os.Stdout, *addr)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// app is the shop serving its API, with its webhook registered.
type app struct {
	shop   *Shop
	url    string
	server *http.Server
	hook   *openpay.Webhook
	client *openpay.Client
}

// start serves a shop on addr. out receives the shop's log.
func start(ctx context.Context, env *exampleenv.Env, addr string, out io.Writer) (*app, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	a := &app{url: "http://" + ln.Addr().String(), client: env.Client}
	logger := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{ReplaceAttr: withoutTime}))
	a.shop = New(Config{
		Client: env.Client,
		// Order ids stay unique at the gateway across runs of this
		// in-memory shop.
		OrderPrefix: fmt.Sprintf("shop%d", time.Now().Unix()),
		ReturnURL:   a.url + "/orders",
		OnPaid:      func(o Order) { logger.Info("ship the order", "order", o.ID) },
		Logger:      logger,
	})
	user, password := "openpay", rand.Text()
	handler, err := a.shop.Handler(user, password)
	if err != nil {
		ln.Close()
		return nil, err
	}
	a.server = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = a.server.Serve(ln) }()

	hookBase := os.Getenv("SHOP_PUBLIC_URL")
	if env.Sim != nil {
		hookBase = a.url // the embedded gateway reaches the shop where it listens
	}
	if hookBase == "" {
		fmt.Fprintln(out, "no webhook: set SHOP_PUBLIC_URL to an address the gateway can reach")
		return a, nil
	}
	// The gateway sends the verification event before it answers, so the
	// shop is already serving.
	a.hook, err = env.Client.Webhooks.Create(ctx, openpay.WebhookRequest{
		URL: strings.TrimSuffix(hookBase, "/") + "/webhooks/openpay", User: user, Password: password,
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeFailed,
			openpay.EventTypeChargeCancelled},
	})
	if err != nil {
		a.close(ctx)
		return nil, fmt.Errorf("registering the webhook: %w", err)
	}
	fmt.Fprintf(out, "webhook %s %s\n", a.hook.ID, a.hook.Status)
	return a, nil
}

// close stops serving and removes the webhook (its password dies with
// the process).
func (a *app) close(ctx context.Context) {
	_ = a.server.Close()
	if a.hook != nil {
		_ = a.client.Webhooks.Delete(context.WithoutCancel(ctx), a.hook.ID)
	}
}

// serve runs the shop until ctx ends, with its recovery job every minute
// and its nightly job once each day, after midnight in Mexico City.
func serve(ctx context.Context, out io.Writer, addr string) error {
	env, err := exampleenv.Connect()
	if err != nil {
		return err
	}
	defer env.Close()
	out = &lockedWriter{w: out}
	fmt.Fprintln(out, "Running against", env.Where())
	a, err := start(ctx, env, addr, out)
	if err != nil {
		return err
	}
	defer a.close(ctx)
	fmt.Fprintf(out, "The shop's API is at %s/orders (Ctrl-C stops it)\n", a.url)

	var reported openpay.Date
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		if err := a.shop.Recover(ctx); err != nil {
			fmt.Fprintln(out, "recovery job:", err)
		}
		if now := time.Now(); yesterday(now) != reported {
			report, err := a.shop.Nightly(ctx, now)
			if err != nil {
				fmt.Fprintln(out, "nightly job:", err)
			} else {
				reported = report.Day
				fmt.Fprintln(out, "nightly job:", report)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// run is the demo: a payer's purchases through the shop's API.
func run(ctx context.Context, out io.Writer) error {
	return exampleenv.Run(ctx, &lockedWriter{w: out}, demo)
}

func demo(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	if env.Public == nil {
		return errors.New("set OPENPAY_PUBLIC_KEY too: the payer's page makes tokens with the public key")
	}
	a, err := start(ctx, env, "127.0.0.1:0", out)
	if err != nil {
		return err
	}
	defer a.close(ctx)
	p := payer{url: a.url, public: env.Public}

	// A card that is declined, then one that pays: two attempts.
	o, err := p.newOrder(ctx, "250.00")
	if err != nil {
		return err
	}
	for _, card := range []string{cardDeclined, cardVisa} {
		if o, err = p.payByCard(ctx, o.ID, card); err != nil {
			return err
		}
		last := o.Attempts[len(o.Attempts)-1]
		fmt.Fprintf(out, "order %s, attempt %s: %s", o.ID, last.ID, last.Status)
		if last.Reason != "" {
			fmt.Fprintf(out, " (%s)", last.Reason)
		}
		fmt.Fprintf(out, " -> order %s\n", o.Status)
	}

	// Part of it back: the gateway refunds a charge once.
	if o, err = p.refund(ctx, o.ID, "100.00"); err != nil {
		return err
	}
	fmt.Fprintf(out, "order %s: refunded %s of %s -> %s\n", o.ID, o.Refunded, o.Total, o.Status)

	// Cash at a store: paid when the webhook says so.
	cash, err := p.newOrder(ctx, "180.50")
	if err != nil {
		return err
	}
	if cash, err = p.post(ctx, "/orders/"+cash.ID+"/store", nil); err != nil {
		return err
	}
	fmt.Fprintf(out, "order %s: pay %s at a store with reference %s\n", cash.ID, cash.Total, cash.Attempts[0].Reference)
	if env.Sim == nil {
		fmt.Fprintln(out, "(in the sandbox the store charge stays in_progress until paid)")
	} else {
		if _, err := env.Sim.PayCharge(cash.Attempts[0].ChargeID); err != nil { // the payer pays at the store
			return err
		}
		// The reference server delivers charge.succeeded to the shop's
		// webhook; once it is delivered, the order is paid.
		if err := env.Sim.WaitForDeliveries(ctx); err != nil {
			return err
		}
		if cash, err = p.do(ctx, http.MethodGet, "/orders/"+cash.ID, nil); err != nil {
			return err
		}
		fmt.Fprintf(out, "order %s is %s: the webhook said so\n", cash.ID, cash.Status)
	}

	// The jobs: nothing is left unknown, and the day so far agrees.
	if err := a.shop.Recover(ctx); err != nil {
		return err
	}
	report, err := a.shop.Reconcile(ctx, dayOf(time.Now()))
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "today so far:", report)
	return nil
}

// lockedWriter lets the shop's log and the demo share one output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func withoutTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}
