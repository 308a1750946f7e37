// Command store-and-bank shows cash and bank-transfer payments: a store
// charge gives the payer a reference and a barcode to pay at a convenience
// store, a bank charge gives a CLABE to send a SPEI transfer to; both wait
// in_progress until the money arrives. It also finds stores near the payer.
//
//	go run ./examples/store-and-bank
//
// With no environment it runs against a reference server started in the
// program (which also plays the payer); with OPENPAY_MERCHANT_ID and
// OPENPAY_PRIVATE_KEY set it runs against the Openpay sandbox.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
)

func main() { exampleenv.Main(run) }

func run(ctx context.Context, out io.Writer) error { return exampleenv.Run(ctx, out, flow) }

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	c := env.Client
	payer := &openpay.ChargeCustomer{Name: "Luis", LastName: "García", Email: "luis.garcia@example.com", PhoneNumber: "4421234567"}

	store, err := c.Charges.Create(ctx, openpay.StoreCharge{
		Amount: openpay.MustAmount("350.00"), Description: "Order 2001, pay at a store",
		OrderID: fmt.Sprintf("store-%d", time.Now().UnixNano()), Customer: payer,
		DueDate:  time.Now().Add(72 * time.Hour),
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("store charge: %w", err)
	}
	fmt.Fprintf(out, "store charge %s: %s, pay with reference %s\n", store.ID, store.Status, store.PaymentMethod.Reference)
	if err := checkBarcode(ctx, store.PaymentMethod.BarcodeURL, out); err != nil {
		return err
	}

	bank, err := c.Charges.Create(ctx, openpay.BankCharge{
		Amount: openpay.MustAmount("1200.00"), Description: "Order 2002, pay by SPEI",
		OrderID: fmt.Sprintf("spei-%d", time.Now().UnixNano()), Customer: payer,
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("bank charge: %w", err)
	}
	fmt.Fprintf(out, "bank charge %s: %s, transfer to CLABE %s (%s), reference %s\n",
		bank.ID, bank.Status, bank.PaymentMethod.CLABE, bank.PaymentMethod.Bank, bank.PaymentMethod.Name)

	stores, err := c.Stores.Search(ctx, openpay.StoreSearch{Latitude: 20.6181, Longitude: -100.4218, Kilometers: 10, Amount: store.Amount})
	if err != nil {
		fmt.Fprintln(out, "store search:", err)
	} else {
		fmt.Fprintf(out, "%d stores within 10 km take %s\n", len(stores), store.Amount)
		for _, st := range stores[:min(3, len(stores))] {
			fmt.Fprintf(out, "  %s (%s)\n", st.Name, st.PaynetChain.Name)
		}
	}

	if env.Sim == nil {
		fmt.Fprintln(out, "(in the sandbox the charges stay in_progress until paid)")
		return nil
	}
	// The payer pays: at the store, and by SPEI.
	for _, id := range []string{store.ID, bank.ID} {
		if _, err := env.Sim.PayCharge(id); err != nil {
			return fmt.Errorf("simulating the payment: %w", err)
		}
		ch, err := c.Charges.Get(ctx, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "charge %s is now %s\n", ch.ID, ch.Status)
	}
	fmt.Fprintln(out, "merchant balance:", env.Sim.Balance())
	return nil
}

// checkBarcode fetches the barcode image the payer shows at the till.
func checkBarcode(ctx context.Context, url string, out io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(out, "barcode not reachable:", err)
		return nil
	}
	defer resp.Body.Close()
	fmt.Fprintf(out, "barcode image: HTTP %d, %s\n", resp.StatusCode, resp.Header.Get("Content-Type"))
	return nil
}
