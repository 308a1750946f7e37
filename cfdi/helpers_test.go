package cfdi

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

// Shorthands for literals known to be good.
func amt(s string) openpay.Amount  { return openpay.MustAmount(s) }
func dec(s string) openpay.Decimal { return openpay.MustDecimal(s) }
func amtPtr(s string) *openpay.Amount {
	a := amt(s)
	return &a
}

const (
	companyRFC = "CCE010203AB1"  // 3 letters, 2001-02-03, homoclave AB1
	personRFC  = "GODE561231GR8" // 4 letters, 1956-12-31, homoclave GR8
	uuid1      = "5FB2822E-396D-4725-8521-CDC4BDD20CCF"
	uuid2      = "a1b2c3d4-e5f6-4789-9abc-def012345678"
)

// fullRequest is a valid request that uses every object and nearly every
// field of section 2.10, worked out by hand:
//
//	concept 0: 2 x 100.00 = 200.00, discount 20.00, base 180.00;
//	           IVA 16 % = 28.80 transferred, ISR 10 % = 18.00 withheld
//	concept 1: 1.5 x 10.33 = 15.495 -> 15.50 (half-up); IVA exempt
//	subtotal 215.50, descuento 20.00, trasladados 28.80, retenidos 18.00
//	total 215.50 - 20.00 + 28.80 - 18.00 = 206.30
func fullRequest() GenerationRequest {
	return GenerationRequest{
		OpenpayTransactionID: "trzjaozcik8msyqshka4",
		InvoiceID:            "INV-1001",
		TipoComprobante:      VoucherIncome,
		Serie:                "A",
		Folio:                "1001",
		Total:                amt("206.30"),
		Subtotal:             amt("215.50"),
		FormaPago:            PaymentFormCreditCard,
		MetodoPago:           PaymentMethodPUE,
		LugarExpedicion:      "06600",
		Descuento:            amt("20.00"),
		Observaciones:        "Pedido 42, entrega en tienda",
		TotalTrasladados:     amt("28.80"),
		TotalRetenidos:       amt("18.00"),
		Moneda:               "MXN",
		TipoDeCambio:         dec("1.00"),
		Receptor: Receiver{
			Nombre:           "Comercialización del Centro, S.A. de C.V.",
			RFC:              companyRFC,
			Email:            "facturas@example.com",
			ResidenciaFiscal: "06600",
			UsoCFDI:          UseGeneralExpenses,
		},
		Conceptos: []Concept{
			{
				Identificador: "SKU-001",
				Cantidad:      dec("2"),
				Unidad:        "Pieza",
				ClaveUnidad:   "H87",
				Descripcion:   "Teclado inalámbrico",
				ValorUnitario: dec("100.00"),
				Importe:       dec("200.00"),
				Clave:         "43211706",
				Descuento:     dec("20.00"),
				Traslados:     []Tax{{Impuesto: TaxIVA, TipoFactor: FactorTasa, Tasa: dec("0.16"), Importe: dec("28.80"), Base: dec("180.00")}},
				Retenciones:   []Tax{{Impuesto: TaxISR, TipoFactor: FactorTasa, Tasa: dec("0.10"), Importe: dec("18.00"), Base: dec("180.00")}},
			},
			{
				Identificador: "SKU-002",
				Cantidad:      dec("1.5"),
				ClaveUnidad:   "KGM",
				Descripcion:   "Café de Chiapas",
				ValorUnitario: dec("10.33"),
				Importe:       dec("15.50"),
				Clave:         "50201706",
				Traslados:     []Tax{{Impuesto: TaxIVA, TipoFactor: FactorExcento, Tasa: dec("0"), Importe: dec("0"), Base: dec("15.50")}},
			},
		},
		CFDIRelacionados: &Related{
			TipoRelacion: RelationReplacement,
			Relacionados: []RelatedUUID{{UUID: uuid1}, {UUID: uuid2}},
		},
		Complements: &Complements{
			Aerolineas: &AirlineComplement{
				TUA:         amt("150.00"),
				OtrosCargos: []OtherCharge{{CodigoCargo: "XA", DescripcionCargo: "Cargo por equipaje", Importe: amt("50.00")}},
			},
			Payouts: &PaymentComplement{
				FechaPago:       DateTime{Time: time.Date(2024, 5, 1, 12, 30, 0, 0, time.FixedZone("", -6*3600))},
				FormaDePago:     PaymentFormElectronicTransfer,
				MonedaP:         "MXN",
				TipoCambioP:     dec("1"),
				Monto:           amt("206.30"),
				NumOperacion:    "OP-77",
				RFCEmisorCtaOrd: "BBA830831LJ2",
				NomBancoOrdExt:  "Banco Extranjero",
				CtaOrdenante:    "0123456789",
				RFCEmisorCtaBen: "BNM840515VB1",
				CtaBeneficiario: "012180001234567897",
				TipoCadPago:     PaymentChainSPEI,
				CertPago:        []byte{0x30, 0x82, 0x01},
				SelloPago:       []byte("sello"),
				CadPago:         "||1|2024-05-01|206.30||",
				DoctoRelacionados: []RelatedDocument{{
					IDDocumento:      uuid1,
					Serie:            "A",
					Folio:            "999",
					MonedaDR:         "MXN",
					TipoCambioDR:     dec("1"),
					MetodoDePagoDR:   PaymentMethodPPD,
					NumParcialidad:   1,
					ImpSaldoAnt:      amtPtr("206.30"),
					ImpPagado:        amtPtr("206.30"),
					ImpSaldoInsoluto: amtPtr("0"),
				}},
			},
			Donatarias: &DoneeComplement{
				NoAutorizacion:    "600-04-02-2020",
				FechaAutorizacion: Date{Year: 2020, Month: time.March, Day: 15},
				Leyenda:           "Este comprobante ampara un donativo, el cual será destinado por la donataria a los fines propios de su objeto social.",
			},
		},
	}
}

// found lists the violations of err as "path rule", failing unless err is
// nil or opens as a *ValidationError.
func found(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	require.True(t, errors.As(err, &ve), "error %v is not a *ValidationError", err)
	require.NotEmpty(t, ve.Violations, "a ValidationError without violations")
	out := make([]string, len(ve.Violations))
	for i, v := range ve.Violations {
		require.NotEmpty(t, v.Rule, "violation without rule: %+v", v)
		require.NotEmpty(t, v.Message, "violation without message: %+v", v)
		out[i] = v.Path + " " + string(v.Rule)
	}
	return out
}

// jsonPathExists reports whether path (conceptos[2].clave_unidad) names a
// field of typ by its JSON names.
func jsonPathExists(typ reflect.Type, path string) bool {
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		f, ok := jsonField(typ, name)
		if !ok {
			return false
		}
		typ = f
		for rest != "" { // one [n] per level of slice
			n, after, ok := strings.Cut(rest, "]")
			if _, err := strconv.Atoi(n); !ok || err != nil || typ.Kind() != reflect.Slice {
				return false
			}
			typ = typ.Elem()
			rest = strings.TrimPrefix(after, "[")
		}
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
	}
	return true
}

// jsonField finds the field of struct type typ whose JSON name is name.
func jsonField(typ reflect.Type, name string) (reflect.Type, bool) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range typ.NumField() {
		if n, _ := jsonName(typ.Field(i)); n == name {
			return typ.Field(i).Type, true
		}
	}
	return nil, false
}

// jsonName returns the JSON name of a struct field and whether it is left
// out when zero; "" for a field that is not encoded.
func jsonName(f reflect.StructField) (name string, omitted bool) {
	if !f.IsExported() {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			omitted = true
		}
	}
	return name, omitted
}
