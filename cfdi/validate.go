package cfdi

import (
	"fmt"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/text/currency"
	"golang.org/x/text/language"

	"github.com/openpay-go/openpay"
)

// Rule names a rule of a [GenerationRequest] that a [Violation] breaks.
type Rule string

// The rules [GenerationRequest.Validate] checks.
const (
	// RuleRequired: a required field is empty (or zero where zero is no
	// value: a quantity, an exchange rate, a payment's amount).
	RuleRequired Rule = "required"
	// RuleLength: a text is shorter or longer than its field allows;
	// lengths count characters, not bytes.
	RuleLength Rule = "length"
	// RuleFormat: a text does not have its field's form (digits, letters
	// and digits, an RFC, a UUID, an e-mail address, valid UTF-8...).
	RuleFormat Rule = "format"
	// RuleCatalogue: a code is not in its catalogue (including ISO 4217
	// currencies and ISO 3166-1 countries).
	RuleCatalogue Rule = "catalogue"
	// RulePrecision: a number has more decimals than its field allows: two
	// for the invoice's totals and the complements' amounts (money in the
	// currency's cents), six for a concept's and a tax's figures, rates and
	// exchange rates (the CFDI standard's limit).
	RulePrecision Rule = "precision"
	// RuleRange: a number is out of its range (a negative amount, a rate
	// above 1, an instalment number below 1, a year outside 1..9999).
	RuleRange Rule = "range"
	// RuleExchangeRate: the exchange rate of an amount in MXN is not 1.
	RuleExchangeRate Rule = "exchange_rate"
	// RulePaisNotAllowed: pais is sent for a receiver whose RFC is not the
	// foreign generic RFC (a registered RFC or the national generic one).
	RulePaisNotAllowed Rule = "pais_not_allowed"
	// RuleImporte: a concept's importe is not cantidad x valor_unitario
	// rounded to the cent (or to its own decimals, when it has more).
	RuleImporte Rule = "importe"
	// RuleSubtotal: subtotal is not the sum of the concepts' importe,
	// rounded to the cent.
	RuleSubtotal Rule = "subtotal"
	// RuleDescuento: the request's descuento is not the sum of the
	// concepts' descuento rounded to the cent, or a concept's descuento
	// exceeds its importe.
	RuleDescuento Rule = "descuento"
	// RuleTaxImporte: a tax's importe is not base x tasa rounded to the
	// cent (or to its own decimals, when it has more), or an exempt tax has
	// an importe.
	RuleTaxImporte Rule = "tax_importe"
	// RuleTaxTotal: total_trasladados or total_retenidos is not the sum of
	// the concepts' transferred or withheld taxes, rounded to the cent.
	RuleTaxTotal Rule = "tax_total"
	// RuleTotal: total is not subtotal - descuento + total_trasladados -
	// total_retenidos.
	RuleTotal Rule = "total"
	// RuleBalance: a related document's imp_saldo_insoluto is not
	// imp_saldo_ant - imp_pagado.
	RuleBalance Rule = "balance"
)

// Violation is one broken rule.
type Violation struct {
	// Path is the JSON path of the field, as in conceptos[2].clave_unidad.
	Path string
	// Rule is the rule broken.
	Rule Rule
	// Message says what is wrong in words. It never repeats the receiver's
	// name, RFC or e-mail address, so that it can be logged.
	Message string
}

// String formats the violation as "path: message (rule)".
func (v Violation) String() string {
	return v.Path + ": " + v.Message + " (" + string(v.Rule) + ")"
}

// ValidationError lists every rule a [GenerationRequest] breaks. Open it with
// errors.As:
//
//	var ve *cfdi.ValidationError
//	if errors.As(err, &ve) {
//		for _, v := range ve.Violations { ... }
//	}
type ValidationError struct {
	// Violations are in the order of the fields in the request.
	Violations []Violation
}

// Error lists the violations on one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("cfdi: invalid invoice request: ")
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Validate checks the request against every rule Openpay states for the
// invoice fields and the arithmetic the tax authority checks, and returns nil
// or a *[ValidationError] listing every violation at once.
//
// The rules, beyond required fields, lengths and catalogues:
//
//   - serie and folio are letters and digits; lugar_expedicion is five digits;
//     clave is 1 to 10 digits; clave_unidad two or three upper-case letters
//     or digits.
//   - moneda, moneda_p and moneda_d_r are ISO 4217 codes (three upper-case
//     letters); tipo_de_cambio (and tipo_cambio_p) is exactly 1 with MXN.
//   - rfc: three letters (company) or four (person), a valid date YYMMDD and a
//     three-character homoclave, in upper case: 12 or 13 characters. The
//     check digit is not verified.
//   - pais is optional, an ISO 3166-1 alpha-3 country, and
//     may be sent only with the foreign generic RFC [RFCExtranjero]: a
//     registered RFC or the national generic RFC [RFCPublicoEnGeneral] must
//     not carry it.
//   - uuid of a related invoice: 36 characters, 8-4-4-4-12 hexadecimal digits.
//   - Decimals, as the CFDI 4.0 standard allows them: the invoice's totals
//     and the complements' amounts have at most two (the cents of the
//     currency); a concept's cantidad, valor_unitario, importe and
//     descuento, a tax's base, tasa and importe, and the exchange rates at
//     most six. Nothing is negative; quantities and exchange rates are
//     greater than zero; a rate (tipo_factor Tasa) is between 0 and 1; ISR
//     is withheld, never transferred.
//
// The arithmetic, exact, where "rounded" is half-up on the exact product or
// sum, to the cent, or for a concept's or a tax's importe written with more
// decimals (up to six), to those decimals:
//
//   - each concept's importe = cantidad x valor_unitario, rounded;
//   - each tax's importe = base x tasa, rounded, when base is given and the
//     factor is Tasa or Cuota; an exempt (Excento) tax has tasa and importe 0;
//   - a concept's descuento is at most its importe;
//   - subtotal = the sum of the importes, rounded; descuento = the sum of the
//     concepts' descuentos, rounded;
//   - total_trasladados and total_retenidos = the sums of the transferred and
//     withheld taxes' importes, rounded;
//   - total = subtotal - descuento + total_trasladados - total_retenidos;
//   - in a related document with all three balances,
//     imp_saldo_insoluto = imp_saldo_ant - imp_pagado.
//
// Each sum is checked against the values given, not against recomputed ones,
// so that one wrong importe is reported once rather than in every total.
func (r *GenerationRequest) Validate() error {
	if r == nil {
		return &ValidationError{Violations: []Violation{{Rule: RuleRequired, Message: "the request is nil"}}}
	}
	var v validator
	v.request(r)
	if len(v.violations) == 0 {
		return nil
	}
	return &ValidationError{Violations: v.violations}
}

// validator collects violations.
type validator struct {
	violations []Violation
}

func (v *validator) add(path string, rule Rule, format string, args ...any) {
	v.violations = append(v.violations, Violation{Path: path, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// field joins a parent path and a field name.
func field(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// index is the path of the i-th element of the array at path.
func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

var (
	alphanumeric = regexp.MustCompile(`^[A-Za-z0-9]+$`)
	digits       = regexp.MustCompile(`^[0-9]+$`)
	postalCode   = regexp.MustCompile(`^[0-9]{5}$`)
	unitKey      = regexp.MustCompile(`^[A-Z0-9]{2,3}$`)
	threeLetters = regexp.MustCompile(`^[A-Z]{3}$`)
	uuidPattern  = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
	rfcPattern   = regexp.MustCompile(`^[A-ZÑ&]{3,4}([0-9]{2})([0-9]{2})([0-9]{2})[A-Z0-9]{2}[0-9A]$`)
	decimalOne   = decimal.NewFromInt(1)
	anyLength    = [2]int{1, -1} // at least one character, no upper bound
)

// text checks an optional text field: valid UTF-8 and a length (in
// characters) within lim; lim[1] < 0 means no upper bound. It reports
// whether the text is present and well formed so far.
func (v *validator) text(path, s string, lim [2]int) bool {
	if s == "" {
		return false
	}
	if !utf8.ValidString(s) {
		v.add(path, RuleFormat, "is not valid UTF-8")
		return false
	}
	n := utf8.RuneCountInString(s)
	if n < lim[0] || (lim[1] >= 0 && n > lim[1]) {
		if lim[1] < 0 {
			v.add(path, RuleLength, "has %d characters; at least %d are needed", n, lim[0])
		} else {
			v.add(path, RuleLength, "has %d characters; %d to %d are allowed", n, lim[0], lim[1])
		}
		return false
	}
	return true
}

// requiredText is text for a required field.
func (v *validator) requiredText(path, s string, lim [2]int) bool {
	if s == "" {
		v.add(path, RuleRequired, "is required")
		return false
	}
	return v.text(path, s, lim)
}

// pattern checks a present text against re.
func (v *validator) pattern(path, s string, re *regexp.Regexp, what string) {
	if s != "" && !re.MatchString(s) {
		v.add(path, RuleFormat, "must be %s", what)
	}
}

// catalogue checks a code of a catalogue; empty is accepted when optional.
func (v *validator) catalogue(path string, code string, valid, required bool) {
	switch {
	case code == "" && required:
		v.add(path, RuleRequired, "is required")
	case code != "" && !valid:
		v.add(path, RuleCatalogue, "%.20q is not a code of the catalogue", code)
	}
}

// money checks that an amount has at most two decimals and is not negative.
func (v *validator) money(path string, a openpay.Amount) {
	if !a.HasValidPrecision() {
		v.add(path, RulePrecision, "%s has more than two decimals", a)
	}
	if a.Decimal().IsNegative() {
		v.add(path, RuleRange, "must not be negative")
	}
}

// number checks a figure of a concept or a tax: at most six decimals and
// not negative.
func (v *validator) number(path string, d openpay.Decimal) {
	if decimalsOf(d.Decimal()) > maxDecimals {
		v.add(path, RulePrecision, "%s has more than %d decimals", d, maxDecimals)
	}
	if d.Decimal().IsNegative() {
		v.add(path, RuleRange, "must not be negative")
	}
}

// positive checks a quantity or an exchange rate: greater than zero (zero
// means the field was not set) and at most six decimals.
func (v *validator) positive(path string, d openpay.Decimal, required bool) {
	switch {
	case d.IsZero() && required:
		v.add(path, RuleRequired, "is required and must be greater than zero")
	case d.Decimal().IsNegative():
		v.add(path, RuleRange, "must be greater than zero")
	}
	if decimalsOf(d.Decimal()) > maxDecimals {
		v.add(path, RulePrecision, "%s has more than %d decimals", d, maxDecimals)
	}
}

// currencyCode checks a required ISO 4217 currency code.
func (v *validator) currencyCode(path, code string) {
	switch {
	case code == "":
		v.add(path, RuleRequired, "is required")
	case !threeLetters.MatchString(code):
		v.add(path, RuleFormat, "must be an ISO 4217 currency code: three upper-case letters")
	default:
		if _, err := currency.ParseISO(code); err != nil {
			v.add(path, RuleCatalogue, "%q is not an ISO 4217 currency code", code)
		}
	}
}

// exchangeRate checks a required exchange rate, exactly 1 for MXN.
func (v *validator) exchangeRate(path string, rate openpay.Decimal, code string) {
	v.positive(path, rate, true)
	if code == "MXN" && !rate.IsZero() && !rate.Decimal().Equal(decimalOne) {
		v.add(path, RuleExchangeRate, "must be 1 for amounts in MXN, not %s", rate)
	}
}

// rfc checks the form of an RFC.
func (v *validator) rfc(path, s string) {
	if s == "" {
		return
	}
	m := rfcPattern.FindStringSubmatch(s)
	if m == nil || !validYYMMDD(m[1], m[2], m[3]) {
		v.add(path, RuleFormat, "must be an RFC in upper case: 3 letters (company) or 4 (person), a date YYMMDD and a 3-character homoclave (12 or 13 characters)")
	}
}

// validYYMMDD reports whether the two-digit year, month and day form a date.
// Any two-digit year stands for one in 2000-2099 for the leap-year rule,
// which then agrees with 1900-1999 except for 1900 itself (29 February
// 1900 did not exist; such an RFC cannot either, and is accepted anyway).
func validYYMMDD(yy, mm, dd string) bool {
	y, _ := strconv.Atoi(yy)
	m, _ := strconv.Atoi(mm)
	d, _ := strconv.Atoi(dd)
	return Date{Year: 2000 + y, Month: time.Month(m), Day: d}.IsValid()
}

func (v *validator) request(r *GenerationRequest) {
	v.text("openpay_transaction_id", r.OpenpayTransactionID, [2]int{1, 45})
	v.requiredText("invoice_id", r.InvoiceID, anyLength)
	v.catalogue("tipo_comprobante", string(r.TipoComprobante), r.TipoComprobante.Valid(), false)
	if v.text("serie", r.Serie, [2]int{1, 25}) {
		v.pattern("serie", r.Serie, alphanumeric, "letters and digits")
	}
	if v.text("folio", r.Folio, [2]int{1, 40}) {
		v.pattern("folio", r.Folio, alphanumeric, "letters and digits")
	}
	v.money("total", r.Total)
	v.money("subtotal", r.Subtotal)
	v.catalogue("forma_pago", string(r.FormaPago), r.FormaPago.Valid(), true)
	v.catalogue("metodo_pago", string(r.MetodoPago), r.MetodoPago.Valid(), true)
	if r.LugarExpedicion == "" {
		v.add("lugar_expedicion", RuleRequired, "is required")
	}
	v.pattern("lugar_expedicion", r.LugarExpedicion, postalCode, "a postal code of five digits")
	v.money("descuento", r.Descuento)
	v.text("observaciones", r.Observaciones, anyLength)
	v.money("total_trasladados", r.TotalTrasladados)
	v.money("total_retenidos", r.TotalRetenidos)
	v.currencyCode("moneda", r.Moneda)
	v.exchangeRate("tipo_de_cambio", r.TipoDeCambio, r.Moneda)
	v.receiver("receptor", &r.Receptor)
	if len(r.Conceptos) == 0 {
		v.add("conceptos", RuleRequired, "at least one concept is required")
	}
	for i := range r.Conceptos {
		v.concept(index("conceptos", i), &r.Conceptos[i])
	}
	if r.CFDIRelacionados != nil {
		v.related("cfdi_relacionados", r.CFDIRelacionados)
	}
	if r.Complements != nil {
		v.complements("complements", r.Complements)
	}
	v.totals(r)
}

func (v *validator) receiver(path string, r *Receiver) {
	v.requiredText(field(path, "nombre"), r.Nombre, [2]int{1, 254})
	rfcPath := field(path, "rfc")
	if r.RFC == "" {
		v.add(rfcPath, RuleRequired, "is required")
	}
	v.rfc(rfcPath, r.RFC)
	if r.Email != "" {
		if a, err := mail.ParseAddress(r.Email); err != nil || a.Address != r.Email {
			v.add(field(path, "email"), RuleFormat, "must be a bare e-mail address (name@example.com)")
		}
	}
	v.text(field(path, "residencia_fiscal"), r.ResidenciaFiscal, anyLength)
	v.catalogue(field(path, "uso_cfdi"), string(r.UsoCFDI), r.UsoCFDI.Valid(), true)

	paisPath := field(path, "pais")
	switch {
	case r.Pais == "": // optional, with any RFC
	case r.RFC != RFCExtranjero:
		v.add(paisPath, RulePaisNotAllowed, "must not be sent unless the RFC is the foreign generic RFC %s", RFCExtranjero)
	case !threeLetters.MatchString(r.Pais):
		v.add(paisPath, RuleFormat, "must be an ISO 3166-1 alpha-3 country code: three upper-case letters")
	default:
		if reg, err := language.ParseRegion(r.Pais); err != nil || !reg.IsCountry() || reg.ISO3() != r.Pais {
			v.add(paisPath, RuleCatalogue, "%q is not an ISO 3166-1 alpha-3 country code", r.Pais)
		}
	}
}

func (v *validator) concept(path string, c *Concept) {
	v.requiredText(field(path, "Identificador"), c.Identificador, [2]int{1, 100})
	v.positive(field(path, "cantidad"), c.Cantidad, true)
	v.text(field(path, "unidad"), c.Unidad, [2]int{1, 20})
	unitPath := field(path, "clave_unidad")
	if c.ClaveUnidad == "" {
		v.add(unitPath, RuleRequired, "is required")
	}
	v.pattern(unitPath, c.ClaveUnidad, unitKey, "a key of the unit catalogue: two or three upper-case letters or digits")
	v.requiredText(field(path, "descripcion"), c.Descripcion, [2]int{1, 1000})
	v.number(field(path, "valor_unitario"), c.ValorUnitario)
	v.number(field(path, "importe"), c.Importe)
	exact := c.Cantidad.Decimal().Mul(c.ValorUnitario.Decimal())
	if want, ok := productRounded(c.Importe, exact); !ok {
		v.add(field(path, "importe"), RuleImporte, "%s is not cantidad x valor_unitario rounded (%s)", c.Importe, want)
	}
	if v.requiredText(field(path, "clave"), c.Clave, [2]int{1, 10}) {
		v.pattern(field(path, "clave"), c.Clave, digits, "digits")
	}
	v.number(field(path, "descuento"), c.Descuento)
	if c.Descuento.Decimal().GreaterThan(c.Importe.Decimal()) {
		v.add(field(path, "descuento"), RuleDescuento, "%s exceeds the concept's importe %s", c.Descuento, c.Importe)
	}
	for i := range c.Traslados {
		v.tax(index(field(path, "traslados"), i), &c.Traslados[i], true)
	}
	for i := range c.Retenciones {
		v.tax(index(field(path, "retenciones"), i), &c.Retenciones[i], false)
	}
}

func (v *validator) tax(path string, t *Tax, transferred bool) {
	v.catalogue(field(path, "impuesto"), string(t.Impuesto), t.Impuesto.Valid(), true)
	if transferred && t.Impuesto == TaxISR {
		v.add(field(path, "impuesto"), RuleCatalogue, "ISR is withheld, never transferred")
	}
	v.catalogue(field(path, "tipo_factor"), string(t.TipoFactor), t.TipoFactor.Valid(), true)
	tasa := t.Tasa.Decimal()
	switch {
	case tasa.IsNegative():
		v.add(field(path, "tasa"), RuleRange, "must not be negative")
	case t.TipoFactor == FactorTasa && tasa.GreaterThan(decimalOne):
		v.add(field(path, "tasa"), RuleRange, "%s is above 1: a rate is a fraction (0.16 for 16 %%)", t.Tasa)
	case t.TipoFactor == FactorExcento && !tasa.IsZero():
		v.add(field(path, "tasa"), RuleRange, "must be 0 for an exempt tax")
	}
	if decimalsOf(tasa) > maxDecimals {
		v.add(field(path, "tasa"), RulePrecision, "%s has more than %d decimals", t.Tasa, maxDecimals)
	}
	v.number(field(path, "importe"), t.Importe)
	v.number(field(path, "base"), t.Base)
	switch t.TipoFactor {
	case FactorExcento:
		if !t.Importe.IsZero() {
			v.add(field(path, "importe"), RuleTaxImporte, "must be 0 for an exempt tax")
		}
	case FactorTasa, FactorCuota:
		if t.Base.IsZero() {
			break
		}
		if want, ok := productRounded(t.Importe, t.Base.Decimal().Mul(tasa)); !ok {
			v.add(field(path, "importe"), RuleTaxImporte, "%s is not base x tasa rounded (%s)", t.Importe, want)
		}
	}
}

func (v *validator) related(path string, r *Related) {
	v.catalogue(field(path, "tipo_relacion"), string(r.TipoRelacion), r.TipoRelacion.Valid(), true)
	listPath := field(path, "relacionados")
	if len(r.Relacionados) == 0 {
		v.add(listPath, RuleRequired, "at least one related invoice is required")
	}
	for i, rel := range r.Relacionados {
		p := field(index(listPath, i), "uuid")
		if v.requiredText(p, rel.UUID, [2]int{36, 36}) {
			v.pattern(p, rel.UUID, uuidPattern, "a UUID: 8-4-4-4-12 hexadecimal digits")
		}
	}
}

func (v *validator) complements(path string, c *Complements) {
	if a := c.Aerolineas; a != nil {
		p := field(path, "aerolineas")
		v.money(field(p, "tua"), a.TUA)
		for i, oc := range a.OtrosCargos {
			q := index(field(p, "otrosCargos"), i)
			v.text(field(q, "codigo_cargo"), oc.CodigoCargo, anyLength)
			v.text(field(q, "descripcion_cargo"), oc.DescripcionCargo, anyLength)
			v.money(field(q, "importe"), oc.Importe)
		}
	}
	if pc := c.Payouts; pc != nil {
		v.payment(field(path, "payouts"), pc)
	}
	if d := c.Donatarias; d != nil {
		p := field(path, "donatarias")
		v.requiredText(field(p, "no_autorizacion"), d.NoAutorizacion, anyLength)
		switch {
		case d.FechaAutorizacion.IsZero():
			v.add(field(p, "fecha_autorizacion"), RuleRequired, "is required")
		case !d.FechaAutorizacion.IsValid():
			v.add(field(p, "fecha_autorizacion"), RuleFormat, "%s is not a date YYYY-MM-DD of the calendar", d.FechaAutorizacion)
		}
		v.requiredText(field(p, "leyenda"), d.Leyenda, anyLength)
	}
}

func (v *validator) payment(path string, p *PaymentComplement) {
	switch y := p.FechaPago.Year(); {
	case p.FechaPago.IsZero():
		v.add(field(path, "fecha_pago"), RuleRequired, "is required")
	case y < 1 || y > 9999:
		v.add(field(path, "fecha_pago"), RuleRange, "year %d is outside 1..9999", y)
	}
	v.catalogue(field(path, "forma_de_pago"), string(p.FormaDePago), p.FormaDePago.Valid(), true)
	v.currencyCode(field(path, "moneda_p"), p.MonedaP)
	v.exchangeRate(field(path, "tipo_cambio_p"), p.TipoCambioP, p.MonedaP)
	if p.Monto.IsZero() {
		v.add(field(path, "monto"), RuleRequired, "is required and must be greater than zero")
	}
	v.money(field(path, "monto"), p.Monto)
	v.text(field(path, "num_operacion"), p.NumOperacion, [2]int{1, 100})
	v.rfc(field(path, "rfc_emisor_cta_ord"), p.RFCEmisorCtaOrd)
	v.text(field(path, "nom_banco_ord_ext"), p.NomBancoOrdExt, [2]int{1, 300})
	v.text(field(path, "cta_ordenante"), p.CtaOrdenante, [2]int{10, 50})
	v.rfc(field(path, "rfc_emisor_cta_ben"), p.RFCEmisorCtaBen)
	v.text(field(path, "cta_beneficiario"), p.CtaBeneficiario, [2]int{10, 50})
	v.catalogue(field(path, "tipo_cad_pago"), string(p.TipoCadPago), p.TipoCadPago.Valid(), false)
	v.text(field(path, "cad_pago"), p.CadPago, [2]int{1, 8192})
	for i := range p.DoctoRelacionados {
		v.relatedDocument(index(field(path, "docto_relacionados"), i), &p.DoctoRelacionados[i])
	}
}

func (v *validator) relatedDocument(path string, d *RelatedDocument) {
	v.requiredText(field(path, "id_documento"), d.IDDocumento, [2]int{16, 36})
	v.text(field(path, "serie"), d.Serie, [2]int{1, 25})
	v.text(field(path, "folio"), d.Folio, [2]int{1, 40})
	v.currencyCode(field(path, "moneda_d_r"), d.MonedaDR)
	v.positive(field(path, "tipo_cambio_d_r"), d.TipoCambioDR, false)
	v.catalogue(field(path, "metodo_de_pago_d_r"), string(d.MetodoDePagoDR), d.MetodoDePagoDR.Valid(), false)
	if d.NumParcialidad < 0 {
		v.add(field(path, "num_parcialidad"), RuleRange, "must be 1 or more")
	}
	for _, b := range []struct {
		name string
		a    *openpay.Amount
	}{{"imp_saldo_ant", d.ImpSaldoAnt}, {"imp_pagado", d.ImpPagado}, {"imp_saldo_insoluto", d.ImpSaldoInsoluto}} {
		if b.a != nil {
			v.money(field(path, b.name), *b.a)
		}
	}
	if d.ImpSaldoAnt != nil && d.ImpPagado != nil && d.ImpSaldoInsoluto != nil {
		if want := d.ImpSaldoAnt.Sub(*d.ImpPagado); !d.ImpSaldoInsoluto.Equal(want) {
			v.add(field(path, "imp_saldo_insoluto"), RuleBalance, "%s is not imp_saldo_ant - imp_pagado (%s)", d.ImpSaldoInsoluto, want)
		}
	}
}

// totals checks the request's sums against the values given in it.
func (v *validator) totals(r *GenerationRequest) {
	s := sumConcepts(r.Conceptos)
	if want := roundCents(s.importes); !r.Subtotal.Equal(want) {
		v.add("subtotal", RuleSubtotal, "%s is not the sum of the concepts' importe rounded to the cent (%s)", r.Subtotal, want)
	}
	if want := roundCents(s.descuentos); !r.Descuento.Equal(want) {
		v.add("descuento", RuleDescuento, "%s is not the sum of the concepts' descuento rounded to the cent (%s)", r.Descuento, want)
	}
	if want := roundCents(s.trasladados); !r.TotalTrasladados.Equal(want) {
		v.add("total_trasladados", RuleTaxTotal, "%s is not the sum of the concepts' traslados rounded to the cent (%s)", r.TotalTrasladados, want)
	}
	if want := roundCents(s.retenidos); !r.TotalRetenidos.Equal(want) {
		v.add("total_retenidos", RuleTaxTotal, "%s is not the sum of the concepts' retenciones rounded to the cent (%s)", r.TotalRetenidos, want)
	}
	if want := totalOf(r); !r.Total.Equal(want) {
		v.add("total", RuleTotal, "%s is not subtotal - descuento + total_trasladados - total_retenidos (%s)", r.Total, want)
	}
}
