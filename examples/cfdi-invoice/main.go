// Command cfdi-invoice builds the electronic invoice (CFDI) of a completed
// charge, validates it and prints the JSON a merchant would send to have it
// generated. It needs no account, network or set-up:
//
//	go run ./examples/cfdi-invoice
//
// In a real program the charge comes from the API (c.Charges.Get) and the
// receiver's data from the customer's invoicing details.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/cfdi"
)

// charge is what the invoice needs of a completed charge.
type charge struct {
	id     string
	amount openpay.Amount // what the customer paid, taxes included
}

func main() {
	if err := run(os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cfdi-invoice:", err)
		os.Exit(1)
	}
}

// run writes the invoice's JSON to out, or the violations found to errOut.
func run(out, errOut io.Writer) error {
	ch := charge{id: "trzjaozcik8msyqshka4", amount: openpay.MustAmount("1565.65")}

	receptor := cfdi.Receiver{
		Nombre:  "Comercializadora del Centro",
		RFC:     "CCE010203AB1",
		Email:   "facturas@example.com",
		UsoCFDI: cfdi.UseGeneralExpenses,
	}
	req, err := cfdi.NewIncomeInvoice("A-1001", ch.id, receptor,
		cfdi.WithLugarExpedicion("06600"),
		cfdi.WithFormaPago(cfdi.PaymentFormCreditCard),
		cfdi.WithSerieFolio("A", "1001"),
	).AddConcept(cfdi.Concept{
		Identificador: "PLAN-ANUAL",
		Clave:         "81112100",
		ClaveUnidad:   "E48",
		Unidad:        "Servicio",
		Descripcion:   "Annual hosting plan",
		Cantidad:      openpay.MustDecimal("1"),
		ValorUnitario: openpay.MustDecimal("1200.00"),
	}, cfdi.IVA16()).AddConcept(cfdi.Concept{
		Identificador: "DOM-MX",
		Clave:         "81112105",
		ClaveUnidad:   "E48",
		Descripcion:   "Domain name, .mx",
		Cantidad:      openpay.MustDecimal("3"),
		ValorUnitario: openpay.MustDecimal("49.90"),
	}, cfdi.IVA16()).Build()

	var ve *cfdi.ValidationError
	if errors.As(err, &ve) {
		for _, v := range ve.Violations {
			fmt.Fprintf(errOut, "  %s: %s (%s)\n", v.Path, v.Message, v.Rule)
		}
		return errors.New("the invoice is not valid")
	}
	if err != nil {
		return err
	}

	// Build has validated the request; a request written by hand, or changed
	// after Build, is checked the same way.
	if err := req.Validate(); err != nil {
		return err
	}
	// The invoice must account for exactly what the customer paid.
	if !req.Total.Equal(ch.amount) {
		return fmt.Errorf("the invoice's total %s is not the charge's amount %s", req.Total, ch.amount)
	}

	body, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(out, string(body))
	return nil
}
