package cfdi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

var testReceiver = Receiver{Nombre: "Comercializadora del Centro", RFC: companyRFC, UsoCFDI: UseGeneralExpenses}

func keyboard() Concept {
	return Concept{Identificador: "SKU-001", Clave: "43211706", ClaveUnidad: "H87", Descripcion: "Teclado",
		Cantidad: dec("2"), ValorUnitario: dec("100.00")}
}

func TestNewIncomeInvoiceDefaults(t *testing.T) {
	t.Parallel()
	req, err := NewIncomeInvoice("INV-1", "tr_1", testReceiver,
		WithLugarExpedicion("06600"), WithFormaPago(PaymentFormDebitCard)).
		AddConcept(keyboard(), IVA16()).Build()
	require.NoError(t, err)
	assert.Equal(t, "INV-1", req.InvoiceID)
	assert.Equal(t, "tr_1", req.OpenpayTransactionID)
	assert.Equal(t, VoucherIncome, req.TipoComprobante)
	assert.Equal(t, PaymentMethodPUE, req.MetodoPago)
	assert.Equal(t, PaymentFormDebitCard, req.FormaPago)
	assert.Equal(t, "06600", req.LugarExpedicion)
	assert.Equal(t, "MXN", req.Moneda)
	assert.Equal(t, "1", req.TipoDeCambio.String())
	assert.Equal(t, testReceiver, req.Receptor)

	require.Len(t, req.Conceptos, 1)
	c := req.Conceptos[0]
	assert.Equal(t, "200", c.Importe.String()) // a Decimal is written without trailing zeros
	assert.Equal(t, []Tax{{Impuesto: TaxIVA, TipoFactor: FactorTasa, Tasa: dec("0.16"), Importe: dec("32.00"), Base: dec("200.00")}}, c.Traslados)
	assert.Empty(t, c.Retenciones)
	assert.Equal(t, "200.00", req.Subtotal.String())
	assert.Equal(t, "32.00", req.TotalTrasladados.String())
	assert.True(t, req.TotalRetenidos.IsZero())
	assert.True(t, req.Descuento.IsZero())
	assert.Equal(t, "232.00", req.Total.String())
}

// The builder's arithmetic, worked out by hand: rounding is half-up on the
// exact product, once.
func TestBuilderArithmetic(t *testing.T) {
	t.Parallel()
	coffee := Concept{Identificador: "SKU-2", Clave: "50201706", ClaveUnidad: "KGM", Descripcion: "Café",
		Cantidad: dec("1.5"), ValorUnitario: dec("10.33")} // 15.495 -> 15.50
	fee := Concept{Identificador: "SKU-3", Clave: "80101500", ClaveUnidad: "E48", Descripcion: "Asesoría",
		Cantidad: dec("1"), ValorUnitario: dec("1.75"), Descuento: dec("0.50")} // base 1.25
	req, err := NewIncomeInvoice("INV-2", "tr_2", testReceiver,
		WithLugarExpedicion("06600"), WithFormaPago(PaymentFormCreditCard), WithSerieFolio("B", "7"),
		WithObservaciones("Pedido 7")).
		AddConcept(keyboard(), IVA16()).
		AddConcept(coffee, TrasladoExento(TaxIVA)).
		AddConcept(fee, IVA16(), Retencion(TaxISR, dec("0.10")), Retencion(TaxIVA, dec("0.106667"))).
		Build()
	require.NoError(t, err)

	assert.Equal(t, "15.5", req.Conceptos[1].Importe.String())
	assert.Equal(t, []Tax{{Impuesto: TaxIVA, TipoFactor: FactorExcento, Tasa: openpay.Decimal{}, Base: dec("15.50")}}, req.Conceptos[1].Traslados)

	fc := req.Conceptos[2]
	assert.Equal(t, "1.75", fc.Importe.String())
	require.Len(t, fc.Traslados, 1)
	assert.Equal(t, "1.25", fc.Traslados[0].Base.String())
	assert.Equal(t, "0.2", fc.Traslados[0].Importe.String()) // 1.25 x 0.16 = 0.2
	require.Len(t, fc.Retenciones, 2)
	assert.Equal(t, "0.13", fc.Retenciones[0].Importe.String()) // 0.125 -> 0.13 (half-up; half-even would give 0.12)
	assert.Equal(t, "0.13", fc.Retenciones[1].Importe.String()) // 0.13333375 -> 0.13

	assert.Equal(t, "B", req.Serie)
	assert.Equal(t, "7", req.Folio)
	assert.Equal(t, "Pedido 7", req.Observaciones)
	assert.Equal(t, "217.25", req.Subtotal.String())        // 200 + 15.50 + 1.75
	assert.Equal(t, "0.50", req.Descuento.String())         //
	assert.Equal(t, "32.20", req.TotalTrasladados.String()) // 32.00 + 0 + 0.20
	assert.Equal(t, "0.26", req.TotalRetenidos.String())    // 0.13 + 0.13
	assert.Equal(t, "248.69", req.Total.String())           // 217.25 - 0.50 + 32.20 - 0.26
}

func TestBuilderReportsMissingFields(t *testing.T) {
	t.Parallel()
	_, err := NewIncomeInvoice("", "tr_1", Receiver{}).Build()
	assert.ElementsMatch(t, []string{
		"invoice_id required", "forma_pago required", "lugar_expedicion required",
		"receptor.nombre required", "receptor.rfc required", "receptor.uso_cfdi required", "conceptos required",
	}, found(t, err))
}

func TestBuilderReportsBadConcepts(t *testing.T) {
	t.Parallel()
	c := keyboard()
	c.ClaveUnidad = "pieza"
	_, err := NewIncomeInvoice("INV-1", "tr_1", testReceiver, WithLugarExpedicion("06600"), WithFormaPago(PaymentFormCash)).
		AddConcept(keyboard()).AddConcept(c, Traslado(TaxIVA, dec("16"))).Build()
	assert.ElementsMatch(t, []string{"conceptos[1].clave_unidad format", "conceptos[1].traslados[0].tasa range"}, found(t, err))
}

func TestBuilderForeignCurrency(t *testing.T) {
	t.Parallel()
	req, err := NewIncomeInvoice("INV-3", "tr_3", testReceiver, WithLugarExpedicion("06600"),
		WithFormaPago(PaymentFormCreditCard), WithMoneda("USD", dec("17.2534"))).AddConcept(keyboard()).Build()
	require.NoError(t, err)
	assert.Equal(t, "USD", req.Moneda)
	assert.Equal(t, "17.2534", req.TipoDeCambio.String())

	_, err = NewIncomeInvoice("INV-3", "tr_3", testReceiver, WithLugarExpedicion("06600"),
		WithFormaPago(PaymentFormCreditCard), WithMoneda("MXN", dec("17.2534"))).AddConcept(keyboard()).Build()
	assert.Equal(t, []string{"tipo_de_cambio exchange_rate"}, found(t, err))
}

func TestBuilderCustomOption(t *testing.T) {
	t.Parallel()
	related := Option(func(r *GenerationRequest) {
		r.CFDIRelacionados = &Related{TipoRelacion: RelationReplacement, Relacionados: []RelatedUUID{{UUID: uuid1}}}
	})
	req, err := NewIncomeInvoice("INV-4", "tr_4", testReceiver, WithLugarExpedicion("06600"),
		WithFormaPago(PaymentFormCreditCard), related).AddConcept(keyboard()).Build()
	require.NoError(t, err)
	require.NotNil(t, req.CFDIRelacionados)
	assert.Equal(t, uuid1, req.CFDIRelacionados.Relacionados[0].UUID)
}

// The builder computes importe itself, keeps taxes given in the concept and
// never writes into the caller's slices; a built request is not changed by
// later use of the builder.
func TestBuilderOwnsItsData(t *testing.T) {
	t.Parallel()
	given := make([]Tax, 1, 4) // spare capacity: an append would write into it
	given[0] = Tax{Impuesto: TaxIEPS, TipoFactor: FactorCuota, Tasa: dec("0.5"), Importe: dec("1.00"), Base: dec("2")}
	c := keyboard()
	c.Importe = dec("999.99") // replaced
	c.Traslados = given

	b := NewIncomeInvoice("INV-5", "tr_5", testReceiver, WithLugarExpedicion("06600"), WithFormaPago(PaymentFormCash))
	first, err := b.AddConcept(c, IVA16()).Build()
	require.NoError(t, err)
	assert.Equal(t, "200", first.Conceptos[0].Importe.String())
	require.Len(t, first.Conceptos[0].Traslados, 2)
	assert.Equal(t, TaxIEPS, first.Conceptos[0].Traslados[0].Impuesto)
	assert.Equal(t, TaxIVA, first.Conceptos[0].Traslados[1].Impuesto)
	assert.Equal(t, Tax{}, given[:2][1], "the caller's slice was written into")

	first.Conceptos[0].Traslados[0].Importe = dec("5.00")
	second, err := b.AddConcept(keyboard()).Build()
	require.NoError(t, err)
	assert.Len(t, first.Conceptos, 1)
	assert.Len(t, second.Conceptos, 2)
	assert.Equal(t, "1", second.Conceptos[0].Traslados[0].Importe.String(), "the built request shares its taxes with the builder")
	assert.Equal(t, "433.00", second.Total.String()) // 400 + 1.00 + 32.00
}
