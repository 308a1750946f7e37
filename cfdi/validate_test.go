package cfdi

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

// precise is an amount with more than two decimals (see preciseAmount).
func precise(s string) openpay.Amount {
	var a openpay.Amount
	if err := json.Unmarshal([]byte(s), &a); err != nil || a.HasValidPrecision() {
		panic("precise: " + s)
	}
	return a
}

func TestValidateValidRequests(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(r *GenerationRequest)
	}{
		{"every object and field", func(*GenerationRequest) {}},
		{"only the required fields", func(r *GenerationRequest) {
			*r = GenerationRequest{
				InvoiceID: "1", Total: amt("11.60"), Subtotal: amt("10"), TotalTrasladados: amt("1.60"),
				FormaPago: PaymentFormCash, MetodoPago: PaymentMethodPUE, LugarExpedicion: "01000",
				Moneda: "MXN", TipoDeCambio: dec("1"),
				Receptor: Receiver{Nombre: "A", RFC: RFCPublicoEnGeneral, UsoCFDI: UseToBeDefined},
				Conceptos: []Concept{{Identificador: "1", Cantidad: dec("1"), ClaveUnidad: "E48", Descripcion: "x",
					ValorUnitario: dec("10"), Importe: dec("10"), Clave: "1",
					Traslados: []Tax{{Impuesto: TaxIVA, TipoFactor: FactorTasa, Tasa: dec("0.16"), Importe: dec("1.60")}}}},
			}
		}},
		{"tipo_comprobante left to its default", func(r *GenerationRequest) { r.TipoComprobante = "" }},
		{"a person's RFC (13 characters)", func(r *GenerationRequest) { r.Receptor.RFC = personRFC }},
		{"an RFC with Ñ and &", func(r *GenerationRequest) { r.Receptor.RFC = "ÑA&010203AB1" }},
		{"an RFC of a leap day", func(r *GenerationRequest) { r.Receptor.RFC = "LEA000229AB1" }},
		{"an RFC with check digit A", func(r *GenerationRequest) { r.Receptor.RFC = "CCE010203ABA" }},
		{"national generic RFC without pais", func(r *GenerationRequest) { r.Receptor.RFC = RFCPublicoEnGeneral }},
		{"foreign generic RFC with pais", func(r *GenerationRequest) { r.Receptor.RFC, r.Receptor.Pais = RFCExtranjero, "USA" }},
		{"foreign generic RFC without pais (optional, section 2.10)", func(r *GenerationRequest) { r.Receptor.RFC = RFCExtranjero }},
		{"254-character name", func(r *GenerationRequest) { r.Receptor.Nombre = strings.Repeat("ñ", 254) }},
		{"foreign currency", func(r *GenerationRequest) { r.Moneda, r.TipoDeCambio = "USD", dec("17.2534") }},
		{"exchange rate 1 written 1.000000", func(r *GenerationRequest) { r.TipoDeCambio = dec("1.000000") }},
		{"longest serie, folio and clave", func(r *GenerationRequest) {
			r.Serie, r.Folio, r.Conceptos[0].Clave = strings.Repeat("Z", 25), strings.Repeat("9", 40), "0123456789"
		}},
		{"importe rounded half-up", func(r *GenerationRequest) {
			// 1.5 x 10.35 = 15.525 -> 15.53
			r.Conceptos[1].ValorUnitario, r.Conceptos[1].Importe = dec("10.35"), dec("15.53")
			r.Conceptos[1].Traslados[0].Base = dec("15.53")
			r.Subtotal, r.Total = amt("215.53"), amt("206.33")
		}},
		{"a discount equal to the line", func(r *GenerationRequest) {
			// concept 1 discounted entirely: its exempt tax base becomes 0
			r.Conceptos[1].Descuento = dec("15.50")
			r.Conceptos[1].Traslados[0].Base = dec("0")
			r.Descuento = amt("35.50")
			r.Total = amt("190.80")
		}},
		{"a quota per unit (IEPS Cuota)", func(r *GenerationRequest) {
			r.Conceptos[1].Traslados = append(r.Conceptos[1].Traslados,
				Tax{Impuesto: TaxIEPS, TipoFactor: FactorCuota, Tasa: dec("0.4"), Importe: dec("0.60"), Base: dec("1.50")})
			r.TotalTrasladados = amt("29.40")
			r.Total = amt("206.90")
		}},
		{"a tax without base", func(r *GenerationRequest) { r.Conceptos[0].Traslados[0].Base = openpay.Decimal{} }},
		{"payment of a foreign-currency invoice", func(r *GenerationRequest) {
			d := &r.Complements.Payouts.DoctoRelacionados[0]
			d.MonedaDR, d.TipoCambioDR = "USD", dec("0.0579")
		}},
		{"related document without balances", func(r *GenerationRequest) {
			d := &r.Complements.Payouts.DoctoRelacionados[0]
			d.ImpSaldoAnt, d.ImpPagado = nil, nil
		}},
		{"empty complements", func(r *GenerationRequest) { r.Complements = &Complements{} }},

		// Six decimals where the CFDI standard allows them.
		{"a unit price with six decimals", func(r *GenerationRequest) {
			// 1.5 x 10.333333 = 15.4999995 -> 15.50
			r.Conceptos[1].ValorUnitario = dec("10.333333")
		}},
		{"a quantity with six decimals", func(r *GenerationRequest) {
			// 1.500001 x 10.33 = 15.49501033 -> 15.50
			r.Conceptos[1].Cantidad = dec("1.500001")
		}},
		{"a price per gram", func(r *GenerationRequest) {
			// 125 g at 0.123456 = 15.432 -> 15.43; subtotal 215.43, total 206.23
			r.Conceptos[1].Cantidad, r.Conceptos[1].ClaveUnidad, r.Conceptos[1].ValorUnitario = dec("125"), "GRM", dec("0.123456")
			r.Conceptos[1].Importe, r.Conceptos[1].Traslados[0].Base = dec("15.43"), dec("15.43")
			r.Subtotal, r.Total = amt("215.43"), amt("206.23")
		}},
		{"an importe written with the product's three decimals", func(r *GenerationRequest) {
			// 1.5 x 10.33 = 15.495; the subtotal rounds the sum 215.495 to 215.50
			r.Conceptos[1].Importe = dec("15.495")
		}},
		{"an importe written with six decimals", func(r *GenerationRequest) {
			// 1.5 x 10.333333 = 15.4999995 -> 15.500000 (six places) -> subtotal 215.50
			r.Conceptos[1].ValorUnitario, r.Conceptos[1].Importe = dec("10.333333"), dec("15.500000")
		}},
		{"a discount, bases and tax amounts with more than two decimals", func(r *GenerationRequest) {
			// concept 0: discount 20.005, base 179.995; IVA 28.7992, ISR 17.9995;
			// descuento 20.01, trasladados 28.80, retenidos 18.00 (rounded sums);
			// total 215.50 - 20.01 + 28.80 - 18.00 = 206.29
			c := &r.Conceptos[0]
			c.Descuento = dec("20.005")
			c.Traslados[0].Base, c.Traslados[0].Importe = dec("179.995"), dec("28.7992")
			c.Retenciones[0].Base, c.Retenciones[0].Importe = dec("179.995"), dec("17.9995")
			r.Descuento, r.Total = amt("20.01"), amt("206.29")
		}},
		{"a rate with six decimals", func(r *GenerationRequest) {
			// IEPS at 0.265000 on 15.50 = 4.1075 -> 4.11
			r.Conceptos[1].Traslados = append(r.Conceptos[1].Traslados,
				Tax{Impuesto: TaxIEPS, TipoFactor: FactorTasa, Tasa: dec("0.265000"), Importe: dec("4.11"), Base: dec("15.50")})
			r.TotalTrasladados, r.Total = amt("32.91"), amt("210.41")
		}},
		{"exchange rates with six decimals", func(r *GenerationRequest) {
			r.Moneda, r.TipoDeCambio = "USD", dec("17.253412")
			r.Complements.Payouts.DoctoRelacionados[0].MonedaDR = "USD"
			r.Complements.Payouts.DoctoRelacionados[0].TipoCambioDR = dec("0.057961")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fullRequest()
			tc.mutate(&r)
			assert.Empty(t, found(t, r.Validate()))
		})
	}
}

// TestValidateRules breaks one rule at a time in a valid request and checks
// the exact set of violations reported: path and rule. Where a change breaks
// a sum as well, the sum's violation is listed too.
func TestValidateRules(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name   string
		mutate func(r *GenerationRequest)
		want   []string
	}{
		// The request.
		{"openpay_transaction_id too long", func(r *GenerationRequest) { r.OpenpayTransactionID = long(46) }, []string{"openpay_transaction_id length"}},
		{"invoice_id missing", func(r *GenerationRequest) { r.InvoiceID = "" }, []string{"invoice_id required"}},
		{"tipo_comprobante unknown", func(r *GenerationRequest) { r.TipoComprobante = "X" }, []string{"tipo_comprobante catalogue"}},
		{"serie too long", func(r *GenerationRequest) { r.Serie = long(26) }, []string{"serie length"}},
		{"serie not alphanumeric", func(r *GenerationRequest) { r.Serie = "A-1" }, []string{"serie format"}},
		{"folio too long", func(r *GenerationRequest) { r.Folio = long(41) }, []string{"folio length"}},
		{"folio not alphanumeric", func(r *GenerationRequest) { r.Folio = "10 01" }, []string{"folio format"}},
		{"total with three decimals", func(r *GenerationRequest) { r.Total = precise("206.301") }, []string{"total precision", "total total"}},
		{"subtotal negative", func(r *GenerationRequest) {
			r.Subtotal, r.Total = amt("-215.50"), amt("-224.70")
		}, []string{"subtotal range", "subtotal subtotal", "total range"}},
		{"forma_pago missing", func(r *GenerationRequest) { r.FormaPago = "" }, []string{"forma_pago required"}},
		{"forma_pago not in the list", func(r *GenerationRequest) { r.FormaPago = "07" }, []string{"forma_pago catalogue"}},
		{"metodo_pago missing", func(r *GenerationRequest) { r.MetodoPago = "" }, []string{"metodo_pago required"}},
		{"metodo_pago unknown", func(r *GenerationRequest) { r.MetodoPago = "PIP" }, []string{"metodo_pago catalogue"}},
		{"lugar_expedicion missing", func(r *GenerationRequest) { r.LugarExpedicion = "" }, []string{"lugar_expedicion required"}},
		{"lugar_expedicion four digits", func(r *GenerationRequest) { r.LugarExpedicion = "6600" }, []string{"lugar_expedicion format"}},
		{"lugar_expedicion with a letter", func(r *GenerationRequest) { r.LugarExpedicion = "0660A" }, []string{"lugar_expedicion format"}},
		{"observaciones not UTF-8", func(r *GenerationRequest) { r.Observaciones = "caf\xe9" }, []string{"observaciones format"}},
		{"moneda missing", func(r *GenerationRequest) { r.Moneda = "" }, []string{"moneda required"}},
		{"moneda lower case", func(r *GenerationRequest) { r.Moneda = "mxn" }, []string{"moneda format"}},
		{"moneda two letters", func(r *GenerationRequest) { r.Moneda = "MX" }, []string{"moneda format"}},
		{"moneda numeric ISO code", func(r *GenerationRequest) { r.Moneda = "484" }, []string{"moneda format"}},
		{"moneda not ISO 4217", func(r *GenerationRequest) { r.Moneda = "ABC" }, []string{"moneda catalogue"}},
		{"tipo_de_cambio missing", func(r *GenerationRequest) { r.TipoDeCambio = openpay.Decimal{} }, []string{"tipo_de_cambio required"}},
		{"tipo_de_cambio negative", func(r *GenerationRequest) {
			r.Moneda, r.TipoDeCambio = "USD", dec("-17")
		}, []string{"tipo_de_cambio range"}},
		{"tipo_de_cambio not 1 for MXN", func(r *GenerationRequest) { r.TipoDeCambio = dec("1.01") }, []string{"tipo_de_cambio exchange_rate"}},

		// The receiver.
		{"nombre missing", func(r *GenerationRequest) { r.Receptor.Nombre = "" }, []string{"receptor.nombre required"}},
		{"nombre too long", func(r *GenerationRequest) { r.Receptor.Nombre = strings.Repeat("ñ", 255) }, []string{"receptor.nombre length"}},
		{"rfc missing", func(r *GenerationRequest) { r.Receptor.RFC = "" }, []string{"receptor.rfc required"}},
		{"rfc of 11 characters", func(r *GenerationRequest) { r.Receptor.RFC = "CCE010203AB" }, []string{"receptor.rfc format"}},
		{"rfc of 14 characters", func(r *GenerationRequest) { r.Receptor.RFC = "GODEX561231GR8" }, []string{"receptor.rfc format"}},
		{"rfc in lower case", func(r *GenerationRequest) { r.Receptor.RFC = "cce010203ab1" }, []string{"receptor.rfc format"}},
		{"rfc with month 13", func(r *GenerationRequest) { r.Receptor.RFC = "CCE011303AB1" }, []string{"receptor.rfc format"}},
		{"rfc with 30 February", func(r *GenerationRequest) { r.Receptor.RFC = "CCE010230AB1" }, []string{"receptor.rfc format"}},
		{"rfc with 29 February of a common year", func(r *GenerationRequest) { r.Receptor.RFC = "CCE010229AB1" }, []string{"receptor.rfc format"}},
		{"rfc with a bad check digit", func(r *GenerationRequest) { r.Receptor.RFC = "CCE010203ABZ" }, []string{"receptor.rfc format"}},
		{"rfc with digits for letters", func(r *GenerationRequest) { r.Receptor.RFC = "C1E010203AB1" }, []string{"receptor.rfc format"}},
		{"email malformed", func(r *GenerationRequest) { r.Receptor.Email = "facturas.example.com" }, []string{"receptor.email format"}},
		{"email with a display name", func(r *GenerationRequest) { r.Receptor.Email = "Facturas <f@example.com>" }, []string{"receptor.email format"}},
		{"residencia_fiscal not UTF-8", func(r *GenerationRequest) { r.Receptor.ResidenciaFiscal = "\xff" }, []string{"receptor.residencia_fiscal format"}},
		{"uso_cfdi missing", func(r *GenerationRequest) { r.Receptor.UsoCFDI = "" }, []string{"receptor.uso_cfdi required"}},
		{"uso_cfdi unknown", func(r *GenerationRequest) { r.Receptor.UsoCFDI = "G04" }, []string{"receptor.uso_cfdi catalogue"}},
		{"uso_cfdi D11", func(r *GenerationRequest) { r.Receptor.UsoCFDI = "D11" }, []string{"receptor.uso_cfdi catalogue"}},
		{"pais with a registered RFC", func(r *GenerationRequest) { r.Receptor.Pais = "MEX" }, []string{"receptor.pais pais_not_allowed"}},
		{"pais with the national generic RFC", func(r *GenerationRequest) {
			r.Receptor.RFC, r.Receptor.Pais = RFCPublicoEnGeneral, "MEX"
		}, []string{"receptor.pais pais_not_allowed"}},
		{"pais alpha-2", func(r *GenerationRequest) { r.Receptor.RFC, r.Receptor.Pais = RFCExtranjero, "US" }, []string{"receptor.pais format"}},
		{"pais lower case", func(r *GenerationRequest) { r.Receptor.RFC, r.Receptor.Pais = RFCExtranjero, "usa" }, []string{"receptor.pais format"}},
		{"pais not a country", func(r *GenerationRequest) { r.Receptor.RFC, r.Receptor.Pais = RFCExtranjero, "AAA" }, []string{"receptor.pais catalogue"}},

		// The concepts.
		{"conceptos missing", func(r *GenerationRequest) { r.Conceptos = nil }, []string{
			"conceptos required", "subtotal subtotal", "descuento descuento", "total_trasladados tax_total", "total_retenidos tax_total",
		}},
		{"Identificador missing", func(r *GenerationRequest) { r.Conceptos[1].Identificador = "" }, []string{"conceptos[1].Identificador required"}},
		{"Identificador too long", func(r *GenerationRequest) { r.Conceptos[1].Identificador = long(101) }, []string{"conceptos[1].Identificador length"}},
		{"cantidad missing", func(r *GenerationRequest) { r.Conceptos[1].Cantidad = openpay.Decimal{} }, []string{
			"conceptos[1].cantidad required", "conceptos[1].importe importe",
		}},
		{"cantidad negative", func(r *GenerationRequest) { r.Conceptos[1].Cantidad = dec("-1.5") }, []string{
			"conceptos[1].cantidad range", "conceptos[1].importe importe",
		}},
		{"unidad too long", func(r *GenerationRequest) { r.Conceptos[0].Unidad = long(21) }, []string{"conceptos[0].unidad length"}},
		{"clave_unidad missing", func(r *GenerationRequest) { r.Conceptos[1].ClaveUnidad = "" }, []string{"conceptos[1].clave_unidad required"}},
		{"clave_unidad lower case", func(r *GenerationRequest) { r.Conceptos[1].ClaveUnidad = "kgm" }, []string{"conceptos[1].clave_unidad format"}},
		{"clave_unidad a word", func(r *GenerationRequest) { r.Conceptos[1].ClaveUnidad = "PIEZA" }, []string{"conceptos[1].clave_unidad format"}},
		{"descripcion missing", func(r *GenerationRequest) { r.Conceptos[0].Descripcion = "" }, []string{"conceptos[0].descripcion required"}},
		{"descripcion too long", func(r *GenerationRequest) { r.Conceptos[0].Descripcion = long(1001) }, []string{"conceptos[0].descripcion length"}},
		{"valor_unitario with seven decimals", func(r *GenerationRequest) { r.Conceptos[0].ValorUnitario = dec("100.0000001") }, []string{
			"conceptos[0].valor_unitario precision", // 200.0000002 -> 200.00: the importe holds
		}},
		{"valor_unitario with three decimals and the importe of two", func(r *GenerationRequest) { r.Conceptos[0].ValorUnitario = dec("100.004") }, []string{
			"conceptos[0].importe importe", // 200.008 -> 200.01
		}},
		{"cantidad with seven decimals", func(r *GenerationRequest) { r.Conceptos[1].Cantidad = dec("1.5000001") }, []string{
			"conceptos[1].cantidad precision", // 15.495001033 -> 15.50: the importe holds
		}},
		{"importe with seven decimals", func(r *GenerationRequest) {
			// 1.5 x 10.333333 = 15.4999995, exactly; written with seven places
			r.Conceptos[1].ValorUnitario, r.Conceptos[1].Importe = dec("10.333333"), dec("15.4999995")
		}, []string{"conceptos[1].importe precision"}},
		{"importe with three decimals that are not the product's", func(r *GenerationRequest) {
			r.Conceptos[1].Importe = dec("15.496")
		}, []string{"conceptos[1].importe importe"}},
		{"importe is not cantidad x valor_unitario", func(r *GenerationRequest) {
			r.Conceptos[0].Importe, r.Subtotal, r.Total = dec("199.00"), amt("214.50"), amt("205.30")
		}, []string{"conceptos[0].importe importe"}},
		{"importe rounded down instead of half-up", func(r *GenerationRequest) {
			r.Conceptos[1].Importe, r.Subtotal, r.Total = dec("15.49"), amt("215.49"), amt("206.29")
		}, []string{"conceptos[1].importe importe"}},
		{"importe rounded half-even instead of half-up", func(r *GenerationRequest) {
			// 1.5 x 10.35 = 15.525: half-up 15.53, half-even 15.52
			r.Conceptos[1].ValorUnitario, r.Conceptos[1].Importe = dec("10.35"), dec("15.52")
			r.Subtotal, r.Total = amt("215.52"), amt("206.32")
		}, []string{"conceptos[1].importe importe"}},
		{"importe changed, subtotal not", func(r *GenerationRequest) { r.Conceptos[0].Importe = dec("201.00") }, []string{
			"conceptos[0].importe importe", "subtotal subtotal",
		}},
		{"importe negative", func(r *GenerationRequest) {
			r.Conceptos[0].Importe, r.Subtotal, r.Total = dec("-200.00"), amt("-184.50"), amt("-193.70")
		}, []string{
			"conceptos[0].importe range", "conceptos[0].importe importe", "conceptos[0].descuento descuento",
			"subtotal range", "total range",
		}},
		{"clave missing", func(r *GenerationRequest) { r.Conceptos[0].Clave = "" }, []string{"conceptos[0].clave required"}},
		{"clave of 11 digits", func(r *GenerationRequest) { r.Conceptos[0].Clave = "12345678901" }, []string{"conceptos[0].clave length"}},
		{"clave not numeric", func(r *GenerationRequest) { r.Conceptos[0].Clave = "4321A706" }, []string{"conceptos[0].clave format"}},
		{"concept descuento above importe", func(r *GenerationRequest) {
			r.Conceptos[1].Descuento, r.Descuento, r.Total = dec("16.00"), amt("36.00"), amt("190.30")
			r.Conceptos[1].Traslados[0].Base = openpay.Decimal{}
		}, []string{"conceptos[1].descuento descuento"}},
		{"concept descuento with seven decimals", func(r *GenerationRequest) {
			r.Conceptos[0].Descuento = dec("20.0000001") // the rounded sum is still 20.00
		}, []string{"conceptos[0].descuento precision"}},
		{"concept descuento negative", func(r *GenerationRequest) {
			r.Conceptos[1].Descuento, r.Descuento, r.Total = dec("-1.00"), amt("19.00"), amt("207.30")
		}, []string{"conceptos[1].descuento range"}},

		// The taxes.
		{"impuesto missing", func(r *GenerationRequest) { r.Conceptos[0].Traslados[0].Impuesto = "" }, []string{"conceptos[0].traslados[0].impuesto required"}},
		{"impuesto unknown", func(r *GenerationRequest) { r.Conceptos[0].Retenciones[0].Impuesto = "004" }, []string{"conceptos[0].retenciones[0].impuesto catalogue"}},
		{"ISR transferred", func(r *GenerationRequest) { r.Conceptos[0].Traslados[0].Impuesto = TaxISR }, []string{"conceptos[0].traslados[0].impuesto catalogue"}},
		{"tipo_factor missing", func(r *GenerationRequest) { r.Conceptos[0].Traslados[0].TipoFactor = "" }, []string{"conceptos[0].traslados[0].tipo_factor required"}},
		{"tipo_factor spelled as the tax authority does", func(r *GenerationRequest) {
			r.Conceptos[1].Traslados[0].TipoFactor = "Exento"
		}, []string{"conceptos[1].traslados[0].tipo_factor catalogue"}},
		{"tasa as a percentage", func(r *GenerationRequest) { r.Conceptos[0].Traslados[0].Tasa = dec("16") }, []string{
			"conceptos[0].traslados[0].tasa range", "conceptos[0].traslados[0].importe tax_importe",
		}},
		{"tasa negative", func(r *GenerationRequest) { r.Conceptos[0].Retenciones[0].Tasa = dec("-0.10") }, []string{
			"conceptos[0].retenciones[0].tasa range", "conceptos[0].retenciones[0].importe tax_importe",
		}},
		{"exempt tax with a rate", func(r *GenerationRequest) { r.Conceptos[1].Traslados[0].Tasa = dec("0.16") }, []string{"conceptos[1].traslados[0].tasa range"}},
		{"exempt tax with an importe", func(r *GenerationRequest) {
			r.Conceptos[1].Traslados[0].Importe, r.TotalTrasladados, r.Total = dec("2.48"), amt("31.28"), amt("208.78")
		}, []string{"conceptos[1].traslados[0].importe tax_importe"}},
		{"tax importe off by a cent", func(r *GenerationRequest) {
			r.Conceptos[0].Traslados[0].Importe, r.TotalTrasladados, r.Total = dec("28.79"), amt("28.79"), amt("206.29")
		}, []string{"conceptos[0].traslados[0].importe tax_importe"}},
		{"tax importe with three decimals that are not the product's", func(r *GenerationRequest) {
			r.Conceptos[0].Retenciones[0].Importe = dec("18.001") // 180 x 0.10 = 18.000; the rounded sum is still 18.00
		}, []string{"conceptos[0].retenciones[0].importe tax_importe"}},
		{"tax importe with seven decimals", func(r *GenerationRequest) {
			r.Conceptos[0].Retenciones[0].Importe = dec("18.0000001") // the rounded sum is still 18.00
		}, []string{"conceptos[0].retenciones[0].importe precision", "conceptos[0].retenciones[0].importe tax_importe"}},
		{"tax base with seven decimals", func(r *GenerationRequest) {
			r.Conceptos[0].Retenciones[0].Base = dec("180.0000001") // x 0.10 = 18.00000001 -> 18.00
		}, []string{"conceptos[0].retenciones[0].base precision"}},
		{"tasa with seven decimals", func(r *GenerationRequest) { r.Conceptos[0].Traslados[0].Tasa = dec("0.1600001") }, []string{
			"conceptos[0].traslados[0].tasa precision", // 180 x 0.1600001 = 28.800018 -> 28.80: the importe holds
		}},
		{"total_retenidos with three decimals", func(r *GenerationRequest) {
			r.TotalRetenidos, r.Total = precise("18.001"), precise("206.299")
		}, []string{"total_retenidos precision", "total_retenidos tax_total", "total precision"}},
		{"tax base negative", func(r *GenerationRequest) { r.Conceptos[1].Traslados[0].Base = dec("-15.50") }, []string{"conceptos[1].traslados[0].base range"}},

		// The sums.
		{"subtotal is not the sum of importes", func(r *GenerationRequest) {
			r.Subtotal, r.Total = amt("215.51"), amt("206.31")
		}, []string{"subtotal subtotal"}},
		{"descuento is not the sum of the concepts'", func(r *GenerationRequest) {
			r.Descuento, r.Total = amt("25.00"), amt("201.30")
		}, []string{"descuento descuento"}},
		{"total_trasladados is not the sum of traslados", func(r *GenerationRequest) {
			r.TotalTrasladados, r.Total = amt("28.00"), amt("205.50")
		}, []string{"total_trasladados tax_total"}},
		{"total_retenidos left out", func(r *GenerationRequest) {
			r.TotalRetenidos, r.Total = openpay.Amount{}, amt("224.30")
		}, []string{"total_retenidos tax_total"}},
		{"total off by a cent", func(r *GenerationRequest) { r.Total = amt("206.31") }, []string{"total total"}},
		{"total ignoring withheld taxes", func(r *GenerationRequest) { r.Total = amt("224.30") }, []string{"total total"}},

		// Related invoices.
		{"tipo_relacion missing", func(r *GenerationRequest) { r.CFDIRelacionados.TipoRelacion = "" }, []string{"cfdi_relacionados.tipo_relacion required"}},
		{"tipo_relacion unknown", func(r *GenerationRequest) { r.CFDIRelacionados.TipoRelacion = "08" }, []string{"cfdi_relacionados.tipo_relacion catalogue"}},
		{"relacionados empty", func(r *GenerationRequest) { r.CFDIRelacionados.Relacionados = nil }, []string{"cfdi_relacionados.relacionados required"}},
		{"uuid missing", func(r *GenerationRequest) { r.CFDIRelacionados.Relacionados[1].UUID = "" }, []string{"cfdi_relacionados.relacionados[1].uuid required"}},
		{"uuid of 35 characters", func(r *GenerationRequest) { r.CFDIRelacionados.Relacionados[1].UUID = uuid2[:35] }, []string{"cfdi_relacionados.relacionados[1].uuid length"}},
		{"uuid of 36 characters, not hexadecimal", func(r *GenerationRequest) {
			r.CFDIRelacionados.Relacionados[0].UUID = "ZFB2822E-396D-4725-8521-CDC4BDD20CCF"
		}, []string{"cfdi_relacionados.relacionados[0].uuid format"}},

		// The airline complement.
		{"tua negative", func(r *GenerationRequest) { r.Complements.Aerolineas.TUA = amt("-1") }, []string{"complements.aerolineas.tua range"}},
		{"other charge with three decimals", func(r *GenerationRequest) {
			r.Complements.Aerolineas.OtrosCargos[0].Importe = precise("50.001")
		}, []string{"complements.aerolineas.otrosCargos[0].importe precision"}},
		{"other charge description not UTF-8", func(r *GenerationRequest) {
			r.Complements.Aerolineas.OtrosCargos[0].DescripcionCargo = "\xc3"
		}, []string{"complements.aerolineas.otrosCargos[0].descripcion_cargo format"}},

		// The payment complement.
		{"fecha_pago missing", func(r *GenerationRequest) { r.Complements.Payouts.FechaPago = DateTime{} }, []string{"complements.payouts.fecha_pago required"}},
		{"fecha_pago after 9999", func(r *GenerationRequest) {
			r.Complements.Payouts.FechaPago = DateTime{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
		}, []string{"complements.payouts.fecha_pago range"}},
		{"forma_de_pago missing", func(r *GenerationRequest) { r.Complements.Payouts.FormaDePago = "" }, []string{"complements.payouts.forma_de_pago required"}},
		{"forma_de_pago unknown", func(r *GenerationRequest) { r.Complements.Payouts.FormaDePago = "98" }, []string{"complements.payouts.forma_de_pago catalogue"}},
		{"moneda_p missing", func(r *GenerationRequest) { r.Complements.Payouts.MonedaP = "" }, []string{"complements.payouts.moneda_p required"}},
		{"moneda_p malformed", func(r *GenerationRequest) { r.Complements.Payouts.MonedaP = "M$N" }, []string{"complements.payouts.moneda_p format"}},
		{"tipo_cambio_p missing", func(r *GenerationRequest) { r.Complements.Payouts.TipoCambioP = openpay.Decimal{} }, []string{"complements.payouts.tipo_cambio_p required"}},
		{"tipo_cambio_p not 1 for MXN", func(r *GenerationRequest) { r.Complements.Payouts.TipoCambioP = dec("17") }, []string{"complements.payouts.tipo_cambio_p exchange_rate"}},
		{"monto missing", func(r *GenerationRequest) { r.Complements.Payouts.Monto = openpay.Amount{} }, []string{"complements.payouts.monto required"}},
		{"monto negative", func(r *GenerationRequest) { r.Complements.Payouts.Monto = amt("-5") }, []string{"complements.payouts.monto range"}},
		{"num_operacion too long", func(r *GenerationRequest) { r.Complements.Payouts.NumOperacion = long(101) }, []string{"complements.payouts.num_operacion length"}},
		{"rfc_emisor_cta_ord malformed", func(r *GenerationRequest) { r.Complements.Payouts.RFCEmisorCtaOrd = "BANCO" }, []string{"complements.payouts.rfc_emisor_cta_ord format"}},
		{"nom_banco_ord_ext too long", func(r *GenerationRequest) { r.Complements.Payouts.NomBancoOrdExt = long(301) }, []string{"complements.payouts.nom_banco_ord_ext length"}},
		{"cta_ordenante too short", func(r *GenerationRequest) { r.Complements.Payouts.CtaOrdenante = long(9) }, []string{"complements.payouts.cta_ordenante length"}},
		{"cta_ordenante too long", func(r *GenerationRequest) { r.Complements.Payouts.CtaOrdenante = long(51) }, []string{"complements.payouts.cta_ordenante length"}},
		{"rfc_emisor_cta_ben malformed", func(r *GenerationRequest) { r.Complements.Payouts.RFCEmisorCtaBen = "BNM841315VB1" }, []string{"complements.payouts.rfc_emisor_cta_ben format"}},
		{"cta_beneficiario too short", func(r *GenerationRequest) { r.Complements.Payouts.CtaBeneficiario = "123" }, []string{"complements.payouts.cta_beneficiario length"}},
		{"cta_beneficiario too long", func(r *GenerationRequest) { r.Complements.Payouts.CtaBeneficiario = long(51) }, []string{"complements.payouts.cta_beneficiario length"}},
		{"tipo_cad_pago other than 01", func(r *GenerationRequest) { r.Complements.Payouts.TipoCadPago = "02" }, []string{"complements.payouts.tipo_cad_pago catalogue"}},
		{"cad_pago too long", func(r *GenerationRequest) { r.Complements.Payouts.CadPago = long(8193) }, []string{"complements.payouts.cad_pago length"}},

		// Related documents of the payment complement.
		{"id_documento missing", func(r *GenerationRequest) { r.Complements.Payouts.DoctoRelacionados[0].IDDocumento = "" }, []string{"complements.payouts.docto_relacionados[0].id_documento required"}},
		{"id_documento of 15 characters", func(r *GenerationRequest) {
			r.Complements.Payouts.DoctoRelacionados[0].IDDocumento = long(15)
		}, []string{"complements.payouts.docto_relacionados[0].id_documento length"}},
		{"id_documento of 37 characters", func(r *GenerationRequest) {
			r.Complements.Payouts.DoctoRelacionados[0].IDDocumento = uuid1 + "0"
		}, []string{"complements.payouts.docto_relacionados[0].id_documento length"}},
		{"docto serie too long", func(r *GenerationRequest) { r.Complements.Payouts.DoctoRelacionados[0].Serie = long(26) }, []string{"complements.payouts.docto_relacionados[0].serie length"}},
		{"docto folio too long", func(r *GenerationRequest) { r.Complements.Payouts.DoctoRelacionados[0].Folio = long(41) }, []string{"complements.payouts.docto_relacionados[0].folio length"}},
		{"moneda_d_r missing", func(r *GenerationRequest) { r.Complements.Payouts.DoctoRelacionados[0].MonedaDR = "" }, []string{"complements.payouts.docto_relacionados[0].moneda_d_r required"}},
		{"moneda_d_r lower case", func(r *GenerationRequest) { r.Complements.Payouts.DoctoRelacionados[0].MonedaDR = "mxn" }, []string{"complements.payouts.docto_relacionados[0].moneda_d_r format"}},
		{"moneda_d_r not ISO 4217", func(r *GenerationRequest) { r.Complements.Payouts.DoctoRelacionados[0].MonedaDR = "ZZZ" }, []string{"complements.payouts.docto_relacionados[0].moneda_d_r catalogue"}},
		{"tipo_cambio_d_r negative", func(r *GenerationRequest) {
			r.Complements.Payouts.DoctoRelacionados[0].TipoCambioDR = dec("-1")
		}, []string{"complements.payouts.docto_relacionados[0].tipo_cambio_d_r range"}},
		{"metodo_de_pago_d_r unknown", func(r *GenerationRequest) {
			r.Complements.Payouts.DoctoRelacionados[0].MetodoDePagoDR = "PPX"
		}, []string{"complements.payouts.docto_relacionados[0].metodo_de_pago_d_r catalogue"}},
		{"num_parcialidad negative", func(r *GenerationRequest) {
			r.Complements.Payouts.DoctoRelacionados[0].NumParcialidad = -1
		}, []string{"complements.payouts.docto_relacionados[0].num_parcialidad range"}},
		{"imp_saldo_insoluto is not the balance", func(r *GenerationRequest) {
			r.Complements.Payouts.DoctoRelacionados[0].ImpSaldoInsoluto = amtPtr("0.01")
		}, []string{"complements.payouts.docto_relacionados[0].imp_saldo_insoluto balance"}},
		{"imp_pagado above the balance", func(r *GenerationRequest) {
			d := &r.Complements.Payouts.DoctoRelacionados[0]
			d.ImpPagado, d.ImpSaldoInsoluto = amtPtr("210.00"), amtPtr("-3.70")
		}, []string{"complements.payouts.docto_relacionados[0].imp_saldo_insoluto range"}},
		{"imp_saldo_ant with three decimals", func(r *GenerationRequest) {
			a := precise("206.301")
			r.Complements.Payouts.DoctoRelacionados[0].ImpSaldoAnt = &a
		}, []string{
			"complements.payouts.docto_relacionados[0].imp_saldo_ant precision",
			"complements.payouts.docto_relacionados[0].imp_saldo_insoluto balance",
		}},

		// The donee complement.
		{"no_autorizacion missing", func(r *GenerationRequest) { r.Complements.Donatarias.NoAutorizacion = "" }, []string{"complements.donatarias.no_autorizacion required"}},
		{"fecha_autorizacion missing", func(r *GenerationRequest) { r.Complements.Donatarias.FechaAutorizacion = Date{} }, []string{"complements.donatarias.fecha_autorizacion required"}},
		{"fecha_autorizacion not a day", func(r *GenerationRequest) {
			r.Complements.Donatarias.FechaAutorizacion = Date{Year: 2021, Month: time.February, Day: 29}
		}, []string{"complements.donatarias.fecha_autorizacion format"}},
		{"fecha_autorizacion month 13", func(r *GenerationRequest) {
			r.Complements.Donatarias.FechaAutorizacion = Date{Year: 2021, Month: 13, Day: 1}
		}, []string{"complements.donatarias.fecha_autorizacion format"}},
		{"leyenda missing", func(r *GenerationRequest) { r.Complements.Donatarias.Leyenda = "" }, []string{"complements.donatarias.leyenda required"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fullRequest()
			tc.mutate(&r)
			got := found(t, r.Validate())
			assert.ElementsMatch(t, tc.want, got)
			for _, v := range got {
				path, _, _ := strings.Cut(v, " ")
				assert.True(t, jsonPathExists(reflect.TypeFor[GenerationRequest](), path), "%q is not a JSON path of the request", path)
			}
		})
	}

	// Every rule has at least one case that breaks it.
	broken := map[Rule]bool{}
	for _, tc := range cases {
		for _, w := range tc.want {
			_, rule, _ := strings.Cut(w, " ")
			broken[Rule(rule)] = true
		}
	}
	for _, rule := range []Rule{
		RuleRequired, RuleLength, RuleFormat, RuleCatalogue, RulePrecision, RuleRange, RuleExchangeRate,
		RulePaisNotAllowed, RuleImporte, RuleSubtotal, RuleDescuento, RuleTaxImporte, RuleTaxTotal, RuleTotal, RuleBalance,
	} {
		assert.True(t, broken[rule], "no case breaks rule %s", rule)
	}
}

func TestValidateReportsEverythingAtOnceInFieldOrder(t *testing.T) {
	t.Parallel()
	r := fullRequest()
	r.InvoiceID = ""
	r.Receptor.RFC = "nope"
	r.Conceptos[1].ClaveUnidad = ""
	r.Complements.Payouts.DoctoRelacionados[0].IDDocumento = ""
	r.Total = amt("1")
	assert.Equal(t, []string{
		"invoice_id required",
		"receptor.rfc format",
		"conceptos[1].clave_unidad required",
		"complements.payouts.docto_relacionados[0].id_documento required",
		"total total",
	}, found(t, r.Validate()))
}

func TestValidateNilRequest(t *testing.T) {
	t.Parallel()
	var r *GenerationRequest
	assert.Equal(t, []string{" required"}, found(t, r.Validate()))
}

func TestValidationErrorOpensWithErrorsAs(t *testing.T) {
	t.Parallel()
	r := fullRequest()
	r.Conceptos[1].ClaveUnidad = ""
	r.Receptor.RFC = "xx"
	err := fmt.Errorf("sending invoice: %w", r.Validate())

	var ve *ValidationError
	require.True(t, errors.As(err, &ve))
	require.Len(t, ve.Violations, 2)
	assert.Equal(t, Violation{Path: "receptor.rfc", Rule: RuleFormat, Message: ve.Violations[0].Message}, ve.Violations[0])
	assert.Equal(t, "conceptos[1].clave_unidad", ve.Violations[1].Path)
	assert.Equal(t, RuleRequired, ve.Violations[1].Rule)

	msg := err.Error()
	assert.Contains(t, msg, "receptor.rfc: ")
	assert.Contains(t, msg, "conceptos[1].clave_unidad: is required (required)")
}

// Messages may be logged: they never repeat the receiver's personal data.
func TestViolationMessagesDoNotRepeatPersonalData(t *testing.T) {
	t.Parallel()
	r := fullRequest()
	r.Receptor = Receiver{Nombre: strings.Repeat("Juana Pérez ", 30), RFC: "PEJJ9001019Q8X", Email: "Juana Pérez <juana@example.com>", UsoCFDI: "X", Pais: "ZZZ"}
	err := r.Validate()
	require.Error(t, err)
	assert.Len(t, found(t, err), 5)
	for _, secret := range []string{"Juana", "PEJJ9001019Q8X", "juana@example.com"} {
		assert.NotContains(t, err.Error(), secret)
	}
}

// A request that passes Validate always encodes, and decodes back to a
// request that passes Validate and encodes the same.
func TestValidRequestRoundTrips(t *testing.T) {
	t.Parallel()
	r := fullRequest()
	require.NoError(t, r.Validate())
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var back GenerationRequest
	require.NoError(t, json.Unmarshal(b, &back))
	require.NoError(t, back.Validate())
	b2, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(b2))
	assert.Contains(t, string(b), `"Identificador":"SKU-001"`)
	assert.Contains(t, string(b), `"otrosCargos":[`)
	assert.Contains(t, string(b), `"fecha_autorizacion":"2020-03-15"`)
	assert.Contains(t, string(b), `"fecha_pago":"2024-05-01T12:30:00-06:00"`)
	assert.Contains(t, string(b), `"imp_saldo_insoluto":0`)
	assert.Contains(t, string(b), `"total":206.3,`)
}
