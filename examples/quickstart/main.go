// Command quickstart runs the basic flow of the SDK: create a customer, save
// a card, charge it and refund part of the charge.
//
//	go run ./examples/quickstart
//
// With no environment it runs against a reference server started in the
// program; with OPENPAY_MERCHANT_ID and OPENPAY_PRIVATE_KEY set it runs
// against the Openpay sandbox.
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

func run(ctx context.Context, out io.Writer) error { return exampleenv.Run(ctx, out, flow) }

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	c := env.Client

	cust, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Juan", LastName: "Pérez", Email: "juan.perez@example.com"})
	if err != nil {
		return fmt.Errorf("creating the customer: %w", err)
	}
	fmt.Fprintf(out, "customer %s created\n", cust.ID)

	// Card data belongs on the payer's device (see examples/checkout); a
	// sandbox test card is saved directly here to keep the flow short.
	card, err := c.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Juan Pérez",
		CardNumber: openpaytest.CardVisa, CVV2: openpaytest.CVV(openpaytest.CardVisa), ExpirationMonth: "12",
		ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)}})
	if err != nil {
		return fmt.Errorf("saving the card: %w", err)
	}
	fmt.Fprintf(out, "card %s saved: %s %s\n", card.ID, card.Brand, card.CardNumber)

	orderID := fmt.Sprintf("quickstart-%d", time.Now().UnixNano())
	charge, err := c.Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{
		SourceID:    card.ID,
		Amount:      openpay.MustAmount("250.00"),
		Description: "Quickstart order",
		OrderID:     orderID, // makes a retried charge safe: it can never be made twice
		ClientIP:    env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("charging: %w", err)
	}
	fmt.Fprintf(out, "charge %s: %s %s %s, authorization %s\n", charge.ID, charge.Status, charge.Amount, charge.Currency, charge.Authorization)

	refunded, err := c.Customer(cust.ID).Charges.Refund(ctx, charge.ID, openpay.RefundRequest{
		Amount: openpay.MustAmount("50.00"), Description: "one item returned",
	})
	if err != nil {
		return fmt.Errorf("refunding: %w", err)
	}
	fmt.Fprintf(out, "charge %s is now %s; refund %s of %s\n", refunded.ID, refunded.Status, refunded.Refund.ID, refunded.Refund.Amount)

	// A declined card is a typed error. The card is one the gateway
	// documents: it declines here and in the sandbox alike.
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{
		Amount: openpay.MustAmount("100.00"), Description: "Declined on purpose",
		Card: openpay.CardDetails{HolderName: "Juan Pérez", CardNumber: openpaytest.CardInsufficientFunds, CVV2: "123",
			ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)},
		ClientIP: env.PayerIP,
	})
	var oe *openpay.Error
	switch {
	case errors.Is(err, openpay.ErrCardInsufficientFunds) && errors.As(err, &oe):
		fmt.Fprintf(out, "declined as expected: code %d, category %s\n", oe.Code, oe.Category)
	case err != nil:
		fmt.Fprintf(out, "the test card failed another way: %v\n", err)
	default:
		fmt.Fprintln(out, "the test card was not declined")
	}

	fmt.Fprintln(out, "done")
	return nil
}
