package cfdi

import (
	"slices"

	"github.com/shopspring/decimal"

	"github.com/openpay-go/openpay"
)

// Builder assembles a [GenerationRequest] line by line and computes its
// arithmetic: each concept's importe and taxes, the subtotal, the discount
// and tax totals, and the total. Start one with [NewIncomeInvoice].
type Builder struct {
	req GenerationRequest
}

// Option sets a field of the request a [Builder] starts from. Any function of
// this type will do, for fields without an option of their own.
type Option func(*GenerationRequest)

// WithLugarExpedicion sets the postal code of the place of issue (required).
func WithLugarExpedicion(postalCode string) Option {
	return func(r *GenerationRequest) { r.LugarExpedicion = postalCode }
}

// WithFormaPago sets how the charge was paid (required), for example
// [PaymentFormCreditCard] or [PaymentFormDebitCard] for a card charge.
func WithFormaPago(f PaymentForm) Option {
	return func(r *GenerationRequest) { r.FormaPago = f }
}

// WithSerieFolio sets the invoice's series and number.
func WithSerieFolio(serie, folio string) Option {
	return func(r *GenerationRequest) { r.Serie, r.Folio = serie, folio }
}

// WithMoneda sets the currency and its exchange rate to Mexican pesos (the
// default is MXN at 1).
func WithMoneda(code string, tipoDeCambio openpay.Decimal) Option {
	return func(r *GenerationRequest) { r.Moneda, r.TipoDeCambio = code, tipoDeCambio }
}

// WithObservaciones sets free remarks.
func WithObservaciones(s string) Option {
	return func(r *GenerationRequest) { r.Observaciones = s }
}

// NewIncomeInvoice starts an income invoice (tipo_comprobante I) for the
// transaction chargeID, usually a completed charge: paid in a single payment
// (PUE), in MXN at an exchange rate of 1, to the receiver receptor. The place
// of issue and the payment form have no sensible default and are set with
// [WithLugarExpedicion] and [WithFormaPago]; [Builder.Build] reports them if
// they are missing.
func NewIncomeInvoice(invoiceID, chargeID string, receptor Receiver, opts ...Option) *Builder {
	b := &Builder{req: GenerationRequest{
		OpenpayTransactionID: chargeID,
		InvoiceID:            invoiceID,
		TipoComprobante:      VoucherIncome,
		MetodoPago:           PaymentMethodPUE,
		Moneda:               "MXN",
		TipoDeCambio:         openpay.DecimalOf(decimal.NewFromInt(1)),
		Receptor:             receptor,
	}}
	for _, opt := range opts {
		opt(&b.req)
	}
	return b
}

// TaxRate is a tax to apply to a concept added with [Builder.AddConcept]. Make
// one with [Traslado], [Retencion], [TrasladoExento] or [IVA16].
type TaxRate struct {
	impuesto TaxType
	factor   FactorType
	tasa     openpay.Decimal
	withheld bool
}

// Traslado is a tax transferred to the receiver at a rate (tipo_factor Tasa),
// a fraction such as 0.16 for 16 %.
func Traslado(impuesto TaxType, tasa openpay.Decimal) TaxRate {
	return TaxRate{impuesto: impuesto, factor: FactorTasa, tasa: tasa}
}

// Retencion is a tax withheld by the receiver at a rate (tipo_factor Tasa).
func Retencion(impuesto TaxType, tasa openpay.Decimal) TaxRate {
	return TaxRate{impuesto: impuesto, factor: FactorTasa, tasa: tasa, withheld: true}
}

// TrasladoExento is an exempt transferred tax (tipo_factor Excento): recorded,
// with nothing due.
func TrasladoExento(impuesto TaxType) TaxRate {
	return TaxRate{impuesto: impuesto, factor: FactorExcento}
}

// IVA16 is value-added tax at the general rate of 16 %, transferred.
func IVA16() TaxRate {
	return Traslado(TaxIVA, openpay.DecimalOf(decimal.New(16, -2)))
}

// AddConcept adds a line. The builder computes its importe (cantidad x
// valor_unitario, rounded half-up to the cent), replacing any importe given,
// and appends one tax per rate on the base importe - descuento: a transferred
// tax to Traslados, a withheld one to Retenciones, each with importe = base x
// tasa rounded half-up to the cent. Taxes already in c (for example an IEPS
// quota per unit) are kept as they are. AddConcept returns b, for chaining.
func (b *Builder) AddConcept(c Concept, taxes ...TaxRate) *Builder {
	c.Importe = importeOf(c.Cantidad, c.ValorUnitario)
	c.Traslados = slices.Clone(c.Traslados)
	c.Retenciones = slices.Clone(c.Retenciones)
	base := openpay.DecimalOf(c.Importe.Decimal().Sub(c.Descuento.Decimal()))
	for _, rate := range taxes {
		t := Tax{Impuesto: rate.impuesto, TipoFactor: rate.factor, Tasa: rate.tasa, Base: base}
		if rate.factor != FactorExcento {
			t.Importe = taxOf(base, rate.tasa)
		}
		if rate.withheld {
			c.Retenciones = append(c.Retenciones, t)
		} else {
			c.Traslados = append(c.Traslados, t)
		}
	}
	b.req.Conceptos = append(b.req.Conceptos, c)
	return b
}

// Build computes the totals (subtotal, descuento, total_trasladados,
// total_retenidos: the sums over the concepts, rounded half-up to the cent;
// total), validates the request and returns it, or a
// *[ValidationError] listing everything wrong with it. The concepts of the
// request returned are its own: the builder can go on being used without
// changing them.
func (b *Builder) Build() (GenerationRequest, error) {
	r := b.req
	r.Conceptos = make([]Concept, len(b.req.Conceptos))
	for i, c := range b.req.Conceptos {
		c.Traslados = slices.Clone(c.Traslados)
		c.Retenciones = slices.Clone(c.Retenciones)
		r.Conceptos[i] = c
	}
	s := sumConcepts(r.Conceptos)
	r.Subtotal, r.Descuento = roundCents(s.importes), roundCents(s.descuentos)
	r.TotalTrasladados, r.TotalRetenidos = roundCents(s.trasladados), roundCents(s.retenidos)
	r.Total = totalOf(&r)
	if err := r.Validate(); err != nil {
		return GenerationRequest{}, err
	}
	return r, nil
}
