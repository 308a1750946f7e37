// Command peru-store shows payments of a Peruvian merchant: a store charge
// in soles (PEN) that the payer pays in cash at a store near Lima, found
// with the store search, and a card charge in dollars (USD), which the
// gateway converts to soles.
//
//	go run ./examples/peru-store
//
// With no environment it runs against a reference server started in the
// program, with a Peruvian merchant (which also plays the payer); with
// OPENPAY_MERCHANT_ID and OPENPAY_PRIVATE_KEY of a Peruvian account set it
// runs against the Peruvian sandbox.
package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
)

func main() { exampleenv.Main(run) }

func run(ctx context.Context, out io.Writer) error {
	return exampleenv.RunIn(ctx, out, openpay.CountryPeru, flow)
}

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	c := env.Client
	// Peruvian payers carry the usual address, with country_code PE.
	payer := &openpay.ChargeCustomer{Name: "Rosa", LastName: "Quispe", Email: "rosa.quispe@example.pe", PhoneNumber: "987654321",
		Address: &openpay.Address{Line1: "Av. José Larco 812", Line2: "Miraflores", PostalCode: "15074", State: "Lima", City: "Lima", CountryCode: "PE"}}

	store, err := c.Charges.Create(ctx, openpay.StoreCharge{
		Amount: openpay.MustAmount("189.90"), Currency: openpay.CurrencyPEN, Description: "Order 4001, pay at a store",
		OrderID: fmt.Sprintf("pe-store-%d", time.Now().UnixNano()), Customer: payer,
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("store charge: %w", err)
	}
	fmt.Fprintf(out, "store charge %s: %s, %s %s, pay with reference %s\n",
		store.ID, store.Status, store.Amount, store.Currency, store.PaymentMethod.Reference)

	stores, err := c.Stores.Search(ctx, openpay.StoreSearch{Latitude: -12.1215, Longitude: -77.0299, Kilometers: 5, Amount: store.Amount})
	if err != nil {
		fmt.Fprintln(out, "store search:", err)
	} else {
		fmt.Fprintf(out, "%d stores within 5 km of Miraflores take %s PEN\n", len(stores), store.Amount)
		for _, st := range stores[:min(3, len(stores))] {
			fmt.Fprintf(out, "  %s (%s)\n", st.Name, st.PaynetChain.Name)
		}
	}

	card, err := c.Charges.Create(ctx, openpay.InlineCardCharge{
		Card: openpay.CardDetails{HolderName: "Rosa Quispe", CardNumber: "4111111111111111", CVV2: "123",
			ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 2)},
		Amount: openpay.MustAmount("25.00"), Currency: openpay.CurrencyUSD, Description: "Order 4002, card in dollars",
		Customer: payer,
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("card charge: %w", err)
	}
	fmt.Fprintf(out, "card charge %s: %s, %s %s", card.ID, card.Status, card.Amount, card.Currency)
	if card.ExchangeRate != nil {
		fmt.Fprintf(out, " at %s %s per %s", card.ExchangeRate.Value, card.ExchangeRate.To, card.ExchangeRate.From)
	}
	fmt.Fprintln(out)

	if env.Sim == nil {
		fmt.Fprintln(out, "(in the sandbox the store charge stays in_progress until paid)")
		return nil
	}
	// The payer pays at the store.
	if _, err := env.Sim.PayCharge(store.ID); err != nil {
		return fmt.Errorf("simulating the payment: %w", err)
	}
	paid, err := c.Charges.Get(ctx, store.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "store charge %s is now %s\n", paid.ID, paid.Status)
	fmt.Fprintln(out, "merchant balance:", env.Sim.Balance(), "PEN")
	return nil
}
