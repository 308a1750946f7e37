// Command checkout shows a web checkout: the payer's browser turns the card
// into a token with the public key (card data never crosses the merchant's
// server), the server charges the token with the payer's IP address, and a
// card that needs 3-D Secure sends the payer to the bank's page and back.
//
//	go run ./examples/checkout
//
// With no environment it runs against a reference server started in the
// program; with OPENPAY_MERCHANT_ID, OPENPAY_PRIVATE_KEY and
// OPENPAY_PUBLIC_KEY set it runs against the Openpay sandbox.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
)

func main() { exampleenv.Main(run) }

// tokenize is what the payer's browser does with the public key.
func tokenize(ctx context.Context, public *openpay.Client, number string) (*openpay.Token, error) {
	return public.Tokens.Create(ctx, openpay.CardDetails{
		HolderName: "Ana López", CardNumber: number, CVV2: openpaytest.CVV(number),
		ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3),
	})
}

func run(ctx context.Context, out io.Writer) error { return exampleenv.Run(ctx, out, flow) }

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	if env.Public == nil {
		return errors.New("set OPENPAY_PUBLIC_KEY too: tokens are made with the public key")
	}

	// The public key can make tokens and nothing else: the SDK refuses any
	// other call before sending it.
	if _, err := env.Public.Charges.Get(ctx, "tr0000000000000000000"); errors.Is(err, openpay.ErrPublicKeyNotAllowed) {
		fmt.Fprintln(out, "public key refused for a charge lookup, as it should be")
	}

	// 1. Browser side: the card becomes a token.
	tok, err := tokenize(ctx, env.Public, openpaytest.CardVisa)
	if err != nil {
		return fmt.Errorf("tokenizing: %w", err)
	}
	fmt.Fprintf(out, "token %s for %s %s\n", tok.ID, tok.Card.Brand, tok.Card.CardNumber)

	// 2. Server side: charge the token, with the payer's IP address.
	charge, err := env.Client.Charges.Create(ctx, openpay.CardCharge{
		SourceID: tok.ID, Amount: openpay.MustAmount("899.90"), Description: "Checkout order 1001",
		OrderID: fmt.Sprintf("checkout-%d", time.Now().UnixNano()), DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f",
		Customer: &openpay.ChargeCustomer{Name: "Ana", LastName: "López", Email: "ana.lopez@example.com"},
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("charging the token: %w", err)
	}
	fmt.Fprintf(out, "charge %s: %s %s\n", charge.ID, charge.Status, charge.Amount)

	// A token is single-use.
	_, err = env.Client.Charges.Create(ctx, openpay.CardCharge{SourceID: tok.ID, Amount: openpay.MustAmount("1.00"),
		Description: "reuse", Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana.lopez@example.com"}, ClientIP: env.PayerIP})
	if err != nil {
		fmt.Fprintln(out, "the used token is refused:", errorCode(err))
	}

	// 3. A card that needs 3-D Secure: the charge waits for the payer.
	tok3ds, err := tokenize(ctx, env.Public, openpaytest.Card3DSecure)
	if err != nil {
		return fmt.Errorf("tokenizing: %w", err)
	}
	pending, err := env.Client.Charges.Create(ctx, openpay.CardCharge{
		SourceID: tok3ds.ID, Amount: openpay.MustAmount("1500.00"), Description: "Checkout order 1002",
		Use3DSecure: true, RedirectURL: "https://shop.example/checkout/return",
		Customer: &openpay.ChargeCustomer{Name: "Ana", LastName: "López", Email: "ana.lopez@example.com"},
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("charging with 3-D Secure: %w", err)
	}
	fmt.Fprintf(out, "charge %s: %s; send the payer to the bank's page\n", pending.ID, pending.Status)
	if pending.PaymentMethod != nil {
		fmt.Fprintln(out, "  redirect URL present:", pending.PaymentMethod.URL != "")
	}
	if env.Sim == nil {
		fmt.Fprintln(out, "(in the sandbox, open the URL to finish; the shop reads the charge when the payer returns)")
		return nil
	}
	// The payer authenticates at the bank and returns to
	// https://shop.example/checkout/return?id=<charge id>; the shop then
	// reads the charge to learn the result.
	if _, err := env.Sim.CompleteCharge(pending.ID); err != nil {
		return fmt.Errorf("simulating the payer: %w", err)
	}
	final, err := env.Client.Charges.Get(ctx, pending.ID)
	if err != nil {
		return fmt.Errorf("reading the charge: %w", err)
	}
	fmt.Fprintf(out, "after the payer returned: charge %s is %s\n", final.ID, final.Status)
	return nil
}

func errorCode(err error) string {
	var oe *openpay.Error
	if errors.As(err, &oe) {
		return fmt.Sprintf("code %d (%s)", oe.Code, oe.Description)
	}
	return err.Error()
}
