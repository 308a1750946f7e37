package cfdi

import (
	"github.com/shopspring/decimal"

	"github.com/openpay-go/openpay"
)

// The invoice arithmetic, shared by the builder (which computes) and the
// validator (which checks). Products and sums are exact; rounding is
// half-up (away from zero, the same for the non-negative amounts of an
// invoice) and happens once, on the exact product or sum.

// maxDecimals is the most decimals a concept's or a tax's figure, a rate
// or an exchange rate may have (the CFDI standard's six).
const maxDecimals = 6

// roundCents rounds d half-up to two decimals.
func roundCents(d decimal.Decimal) openpay.Amount {
	a, _ := openpay.AmountFromDecimal(d.Round(2)) // two decimals: cannot fail
	return a
}

// importeOf is a concept's importe as the builder writes it: cantidad x
// valor_unitario, rounded to the cent.
func importeOf(cantidad, valorUnitario openpay.Decimal) openpay.Decimal {
	return openpay.DecimalOf(cantidad.Decimal().Mul(valorUnitario.Decimal()).Round(2))
}

// taxOf is a tax's importe as the builder writes it: base x tasa, rounded
// to the cent.
func taxOf(base, tasa openpay.Decimal) openpay.Decimal {
	return openpay.DecimalOf(base.Decimal().Mul(tasa.Decimal()).Round(2))
}

// decimalsOf is the number of decimals d is written with, trailing zeros
// aside (1.50 has one). It stops counting past maxDecimals+1.
func decimalsOf(d decimal.Decimal) int32 {
	n := int32(0)
	for n <= maxDecimals && !d.Equal(d.Truncate(n)) {
		n++
	}
	return n
}

// productRounded checks a given importe against the exact product it
// stands for: the product rounded half-up to the cent, or to the given
// importe's own decimals when it has more (a line of 1000 x 0.123456 may
// say 123.46 or 123.456). It returns the value the importe should have.
func productRounded(given openpay.Decimal, exact decimal.Decimal) (want decimal.Decimal, ok bool) {
	places := max(decimalsOf(given.Decimal()), 2)
	want = exact.Round(places)
	return want, given.Decimal().Equal(want)
}

// conceptSums are the exact sums over an invoice's concepts; the invoice's
// totals are these rounded to the cent.
type conceptSums struct {
	importes, descuentos, trasladados, retenidos decimal.Decimal
}

func sumConcepts(cs []Concept) conceptSums {
	var s conceptSums
	for _, c := range cs {
		s.importes = s.importes.Add(c.Importe.Decimal())
		s.descuentos = s.descuentos.Add(c.Descuento.Decimal())
		for _, t := range c.Traslados {
			s.trasladados = s.trasladados.Add(t.Importe.Decimal())
		}
		for _, t := range c.Retenciones {
			s.retenidos = s.retenidos.Add(t.Importe.Decimal())
		}
	}
	return s
}

// totalOf is an invoice's total: subtotal - descuento + total_trasladados -
// total_retenidos.
func totalOf(r *GenerationRequest) openpay.Amount {
	return r.Subtotal.Sub(r.Descuento).Add(r.TotalTrasladados).Sub(r.TotalRetenidos)
}
