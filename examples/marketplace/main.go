// Command marketplace is the backend of a marketplace to copy: sellers are
// customers with their own balance; a buyer pays a seller's order by token
// into the seller's account; the platform's commission is a fee on the
// seller; sellers split revenue by transfers and are paid out to their
// CLABE; refunds give the commission back; a recovery job settles every
// movement whose answer was lost by re-sending it as it was (never under a
// new order_id); a webhook receiver processes each event once; a nightly
// report checks each seller's balance to the cent.
//
//	go run ./examples/marketplace
//
// With no environment it runs against a reference server started in the
// program; with OPENPAY_MERCHANT_ID, OPENPAY_PRIVATE_KEY and
// OPENPAY_PUBLIC_KEY set it runs against the Openpay sandbox.
package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
)

func main() { exampleenv.Main(run) }

func run(ctx context.Context, out io.Writer) error { return exampleenv.Run(ctx, out, flow) }

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	m := New(Config{Client: env.Client, Prefix: fmt.Sprintf("mkt%d", time.Now().UnixNano()), CommissionPercent: 10})
	marta, err := m.AddSeller(ctx, "Marta", "marta@example.com")
	if err != nil {
		return fmt.Errorf("adding a seller: %w", err)
	}
	pablo, err := m.AddSeller(ctx, "Pablo", "pablo@example.com")
	if err != nil {
		return fmt.Errorf("adding a seller: %w", err)
	}

	// A buyer pays Marta's order of 400.00: 40.00 of it is the platform's.
	order, err := m.NewOrder(marta, openpay.MustAmount("400.00"))
	if err != nil {
		return err
	}
	tok, err := env.Public.Tokens.Create(ctx, openpay.TokenRequest{HolderName: "Ana López", CardNumber: openpaytest.CardVisa,
		CVV2: "123", ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)})
	if err != nil {
		return fmt.Errorf("the buyer's token: %w", err)
	}
	if err := m.Pay(ctx, order, tok.ID, "device-session-1", env.PayerIP); err != nil {
		return fmt.Errorf("paying order %s: %w", order, err)
	}
	o, _ := m.Order(order)
	fmt.Fprintf(out, "order %s paid: charge %s, commission %s\n", order, o.Charge, o.Commission)

	// Marta shares 100.00 with Pablo, then is paid out 200.00.
	if _, err := m.Split(ctx, marta, pablo, openpay.MustAmount("100.00"), "Pablo's share of "+order); err != nil {
		return fmt.Errorf("split: %w", err)
	}
	if _, err := m.Payout(ctx, marta, openpay.MustAmount("200.00"), "032180000118359719", "Marta"); err != nil {
		return fmt.Errorf("payout: %w", err)
	}
	// Whatever was left unknown, settled by re-sending it.
	if err := m.Recover(ctx); err != nil {
		return fmt.Errorf("recovery: %w", err)
	}
	report, err := m.Nightly(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, report)
	if !report.OK() {
		return fmt.Errorf("the books do not balance:\n%s", report)
	}
	fmt.Fprintln(out, "the books balance")
	return nil
}
