package cfdi_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/cfdi"
)

// An income invoice for a completed card charge: two lines with IVA at 16 %,
// built, validated and encoded.
func Example() {
	const chargeID = "trzjaozcik8msyqshka4" // the completed charge being invoiced

	receptor := cfdi.Receiver{
		Nombre:  "Comercializadora del Centro",
		RFC:     "CCE010203AB1",
		Email:   "facturas@example.com",
		UsoCFDI: cfdi.UseGeneralExpenses,
	}
	req, err := cfdi.NewIncomeInvoice("A-1001", chargeID, receptor,
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
	if err != nil {
		fmt.Println(err)
		return
	}
	body, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(body))
	// Output:
	// {
	//   "openpay_transaction_id": "trzjaozcik8msyqshka4",
	//   "invoice_id": "A-1001",
	//   "tipo_comprobante": "I",
	//   "serie": "A",
	//   "folio": "1001",
	//   "total": 1565.65,
	//   "subtotal": 1349.7,
	//   "forma_pago": "04",
	//   "metodo_pago": "PUE",
	//   "lugar_expedicion": "06600",
	//   "total_trasladados": 215.95,
	//   "moneda": "MXN",
	//   "tipo_de_cambio": 1,
	//   "receptor": {
	//     "nombre": "Comercializadora del Centro",
	//     "rfc": "CCE010203AB1",
	//     "email": "facturas@example.com",
	//     "uso_cfdi": "G03"
	//   },
	//   "conceptos": [
	//     {
	//       "Identificador": "PLAN-ANUAL",
	//       "cantidad": 1,
	//       "unidad": "Servicio",
	//       "clave_unidad": "E48",
	//       "descripcion": "Annual hosting plan",
	//       "valor_unitario": 1200,
	//       "importe": 1200,
	//       "clave": "81112100",
	//       "traslados": [
	//         {
	//           "impuesto": "002",
	//           "tipo_factor": "Tasa",
	//           "tasa": 0.16,
	//           "importe": 192,
	//           "base": 1200
	//         }
	//       ]
	//     },
	//     {
	//       "Identificador": "DOM-MX",
	//       "cantidad": 3,
	//       "clave_unidad": "E48",
	//       "descripcion": "Domain name, .mx",
	//       "valor_unitario": 49.9,
	//       "importe": 149.7,
	//       "clave": "81112105",
	//       "traslados": [
	//         {
	//           "impuesto": "002",
	//           "tipo_factor": "Tasa",
	//           "tasa": 0.16,
	//           "importe": 23.95,
	//           "base": 149.7
	//         }
	//       ]
	//     }
	//   ]
	// }
}

// Validate reports every violation at once, each with the JSON path of the
// field and the rule broken.
func ExampleGenerationRequest_Validate() {
	req := cfdi.GenerationRequest{
		InvoiceID:       "A-1002",
		Total:           openpay.MustAmount("116.00"),
		Subtotal:        openpay.MustAmount("100.00"),
		FormaPago:       cfdi.PaymentFormDebitCard,
		MetodoPago:      cfdi.PaymentMethodPUE,
		LugarExpedicion: "6600",
		Moneda:          "MXN",
		TipoDeCambio:    openpay.MustDecimal("1"),
		Receptor:        cfdi.Receiver{Nombre: "Ana", RFC: cfdi.RFCPublicoEnGeneral, UsoCFDI: cfdi.UseToBeDefined, Pais: "MEX"},
		Conceptos: []cfdi.Concept{{
			Identificador: "1", Clave: "01010101", ClaveUnidad: "pieza", Descripcion: "Gift card",
			Cantidad: openpay.MustDecimal("2"), ValorUnitario: openpay.MustDecimal("50.00"), Importe: openpay.MustDecimal("100.00"),
		}},
	}
	var ve *cfdi.ValidationError
	if err := req.Validate(); errors.As(err, &ve) {
		for _, v := range ve.Violations {
			fmt.Printf("%s [%s]\n", v.Path, v.Rule)
		}
	}
	// Output:
	// lugar_expedicion [format]
	// receptor.pais [pais_not_allowed]
	// conceptos[0].clave_unidad [format]
	// total [total]
}

func ExampleParseNotification() {
	n, err := cfdi.ParseNotification([]byte(`{
		"invoice_id": "A-1001", "uuid": "5FB2822E-396D-4725-8521-CDC4BDD20CCF",
		"status": "OK", "fiscal_status": "ACTIVE", "total": "1565.65",
		"issue_date": "2024-05-01T12:31:07-06:00",
		"public_pdf_link": "https://example.com/A-1001.pdf"
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n.InvoiceID, n.Status.Description(), n.Total, n.IssueDate.Format("2006-01-02"))
	// Output: A-1001 issued 1565.65 2024-05-01
}
