// Package cfdi holds the objects of Mexican electronic invoices (CFDI,
// Comprobante Fiscal Digital por Internet) as the Openpay gateway defines
// them: the request a merchant sends to have an invoice generated, its
// receiver, concepts, taxes, related invoices and complements, the gateway's
// answer and the notification of the outcome.
//
// The gateway publishes no endpoint for invoices, so the package is about
// getting the data right before it leaves the merchant's program, which is
// where invoices fail in practice: [GenerationRequest.Validate] checks every
// rule Openpay states for the invoice fields and the arithmetic the tax
// authority checks, to the cent, and reports every violation at once with the JSON path of the field.
//
// An income invoice for a completed charge of 1392.00 (1200.00 plus IVA):
//
//	ch, err := client.Charges.Get(ctx, chargeID)
//	if err != nil {
//		return err
//	}
//	receptor := cfdi.Receiver{
//		Nombre:  "Comercializadora del Centro",
//		RFC:     "CCE010203AB1",
//		UsoCFDI: cfdi.UseGeneralExpenses,
//	}
//	req, err := cfdi.NewIncomeInvoice("A-1001", ch.ID, receptor,
//		cfdi.WithLugarExpedicion("06600"),
//		cfdi.WithFormaPago(cfdi.PaymentFormCreditCard),
//		cfdi.WithSerieFolio("A", "1001"),
//	).AddConcept(cfdi.Concept{
//		Identificador: "PLAN-ANUAL",
//		Clave:         "81112100",
//		ClaveUnidad:   "E48",
//		Descripcion:   "Annual hosting plan",
//		Cantidad:      openpay.MustDecimal("1"),
//		ValorUnitario: openpay.MustDecimal("1200.00"),
//	}, cfdi.IVA16()).Build()
//	var ve *cfdi.ValidationError
//	if errors.As(err, &ve) {
//		for _, v := range ve.Violations {
//			log.Printf("%s: %s (%s)", v.Path, v.Message, v.Rule) // conceptos[0].clave_unidad: ...
//		}
//		return err
//	}
//	if !req.Total.Equal(ch.Amount) { // total 1392 = subtotal 1200 + total_trasladados 192
//		return fmt.Errorf("invoice total %s, charge amount %s", req.Total, ch.Amount)
//	}
//	body, err := json.Marshal(req) // the request, ready to send
//
// A request written by hand is checked the same way:
//
//	if err := req.Validate(); err != nil { ... }
//
// Numbers are exact, never floats, with the decimals the CFDI 4.0 standard
// allows each field: the invoice's totals and the complements' amounts are
// [openpay.Amount], at most two decimals (the cents of MXN and USD); a
// concept's quantity, unit price, importe and discount, its taxes' base,
// rate and importe, and exchange rates are [openpay.Decimal], up to six
// decimals (a price per gram or per minute needs them). Catalogues (payment forms, uses of CFDI, taxes...) are
// string types with constants, a Description and a Valid check. Dates are
// [Date] (YYYY-MM-DD) and [DateTime] (ISO 8601, read leniently).
//
// A notification decodes with [ParseNotification]; unknown fields and codes
// are tolerated.
package cfdi
