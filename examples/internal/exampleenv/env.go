// Package exampleenv connects the example programs to a gateway: the real
// sandbox when OPENPAY_MERCHANT_ID and OPENPAY_PRIVATE_KEY are set (and
// OPENPAY_PUBLIC_KEY for the examples that make tokens), otherwise a
// reference server started in the program itself, so that every example
// runs with no account and no network.
package exampleenv

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// Env is a connected example.
type Env struct {
	// Client uses the private key.
	Client *openpay.Client
	// Public uses the public key (token creation).
	Public *openpay.Client
	// Sim is the embedded reference server, nil against the real sandbox.
	// Examples use it to do what only the payer or the bank can do.
	Sim *openpaytest.Server
	// PayerIP is the payer device's address sent on charges.
	PayerIP string
	// MerchantID and PublicKey are what a checkout page needs for the
	// browser library (PublicKey is empty when not configured).
	MerchantID, PublicKey string
}

// Connect returns an Env; opts configure the embedded server. Close it when
// done.
func Connect(opts ...openpaytest.Option) (*Env, error) { return connect(openpay.CountryMexico, opts) }

// connect is Connect for a merchant of country: the embedded server's
// merchant and the clients (the sandbox host) are of that country.
func connect(country openpay.Country, opts []openpaytest.Option) (*Env, error) {
	env := &Env{PayerIP: "203.0.113.10"}
	id, priv, pub := os.Getenv("OPENPAY_MERCHANT_ID"), os.Getenv("OPENPAY_PRIVATE_KEY"), os.Getenv("OPENPAY_PUBLIC_KEY")
	base := []openpay.Option{openpay.WithCountry(country)}
	if id == "" || priv == "" {
		srv, err := openpaytest.Start(append([]openpaytest.Option{openpaytest.WithCountry(country)}, opts...)...)
		if err != nil {
			return nil, err
		}
		env.Sim = srv
		id, priv, pub = srv.MerchantID, srv.PrivateKey, srv.PublicKey
		base = append(base, openpay.WithBaseURL(srv.URL))
	}
	env.MerchantID, env.PublicKey = id, pub
	var err error
	if env.Client, err = openpay.New(id, priv, base...); err != nil {
		env.Close()
		return nil, err
	}
	if pub != "" {
		if env.Public, err = openpay.New(id, pub, base...); err != nil {
			env.Close()
			return nil, err
		}
	}
	return env, nil
}

// Where says what the example runs against.
func (e *Env) Where() string {
	if e.Sim != nil {
		return fmt.Sprintf("embedded reference server at %s (no account needed)", e.Sim.URL)
	}
	return "the Openpay sandbox"
}

// Close stops the embedded server, if any.
func (e *Env) Close() {
	if e.Sim != nil {
		e.Sim.Close()
	}
}

// Flow is the body of an example: what it does once connected.
type Flow func(ctx context.Context, env *Env, out io.Writer) error

// Run connects (opts configure the embedded server), says what it runs
// against, and runs flow with a one-minute deadline.
func Run(ctx context.Context, out io.Writer, flow Flow, opts ...openpaytest.Option) error {
	return RunIn(ctx, out, openpay.CountryMexico, flow, opts...)
}

// RunIn is Run for a merchant of another country: the embedded server's
// merchant is of that country, and the clients talk to its sandbox host
// when the environment names a real account.
func RunIn(ctx context.Context, out io.Writer, country openpay.Country, flow Flow, opts ...openpaytest.Option) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	env, err := connect(country, opts)
	if err != nil {
		return err
	}
	defer env.Close()
	fmt.Fprintln(out, "Running against", env.Where())
	return flow(ctx, env, out)
}

// Main runs an example on standard output and exits non-zero when it fails.
func Main(run func(ctx context.Context, out io.Writer) error) {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// Output runs an example the way its test does: against an embedded
// reference server (the credentials' variables are cleared for the test),
// failing t if the example fails, and returns what the example printed.
func Output(t testing.TB, run func(ctx context.Context, out io.Writer) error) string {
	t.Helper()
	t.Setenv("OPENPAY_MERCHANT_ID", "")
	t.Setenv("OPENPAY_PRIVATE_KEY", "")
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("the example failed: %v\noutput so far:\n%s", err, out.String())
	}
	return out.String()
}
