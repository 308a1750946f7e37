package cfdi

import (
	"github.com/shopspring/decimal"

	"github.com/openpay-go/openpay"
)

// The invoice arithmetic, shared by the builder (which computes) and the
// validator (which checks). Products are exact; rounding to the cent is
// half-up (away from zero, the same for the non-negative amounts of an
// invoice) and happens once, on the exact product.

// roundCents rounds d half-up to two decimals.
func roundCents(d decimal.Decimal) openpay.Amount {
	a, _ := openpay.AmountFromDecimal(d.Round(2)) // two decimals: cannot fail
	return a
}

// importeOf is a concept's importe: cantidad x valor_unitario, rounded.
func importeOf(cantidad openpay.Decimal, valorUnitario openpay.Amount) openpay.Amount {
	return roundCents(cantidad.Decimal().Mul(valorUnitario.Decimal()))
}

// taxOf is a tax's importe: base x tasa, rounded.
func taxOf(base openpay.Amount, tasa openpay.Decimal) openpay.Amount {
	return roundCents(base.Decimal().Mul(tasa.Decimal()))
}

// conceptSums are the sums over an invoice's concepts that its totals repeat.
type conceptSums struct {
	importes, descuentos, trasladados, retenidos openpay.Amount
}

func sumConcepts(cs []Concept) conceptSums {
	var s conceptSums
	for _, c := range cs {
		s.importes = s.importes.Add(c.Importe)
		s.descuentos = s.descuentos.Add(c.Descuento)
		for _, t := range c.Traslados {
			s.trasladados = s.trasladados.Add(t.Importe)
		}
		for _, t := range c.Retenciones {
			s.retenidos = s.retenidos.Add(t.Importe)
		}
	}
	return s
}

// totalOf is an invoice's total: subtotal - descuento + total_trasladados -
// total_retenidos.
func totalOf(r *GenerationRequest) openpay.Amount {
	return r.Subtotal.Sub(r.Descuento).Add(r.TotalTrasladados).Sub(r.TotalRetenidos)
}
