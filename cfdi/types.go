package cfdi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openpay-go/openpay"
)

// Field names: each Go field is its JSON name in CamelCase (Spanish where the
// gateway's name is Spanish, so that a field reads like the tax authority's
// documents a Mexican merchant already knows), with the Go initialisms RFC,
// CFDI, UUID, ID, TUA, XML and PDF.
//
// Numbers: each field allows the decimals the tax authority's CFDI 4.0
// standard (Anexo 20) allows it, and is never a float.
//
//   - The invoice's totals (total, subtotal, descuento, total_trasladados,
//     total_retenidos) are money in the invoice's currency, which the standard
//     writes with the currency's decimals: two for MXN and USD, the currencies
//     the gateway charges in. So are the payment complement's amounts (monto
//     and the related documents' balances); the airline complement's amounts
//     are kept to the cent as well. These are [openpay.Amount], at most two
//     decimals.
//   - A concept's figures (cantidad, valor_unitario, importe, descuento) and
//     its taxes' (base, tasa, importe) take up to six decimals, as do exchange
//     rates (tipo_de_cambio, tipo_cambio_p, tipo_cambio_d_r): a price per gram
//     or per minute needs them. These are [openpay.Decimal];
//     [GenerationRequest.Validate] refuses a seventh decimal.
//
// Optional fields are left out of the JSON when zero (omitempty, omitzero),
// except three balances of [RelatedDocument] where zero means something and
// which are pointers.

// GenerationRequest asks the gateway to generate an electronic invoice (CFDI).
// Check it with [GenerationRequest.Validate] before sending it; [NewIncomeInvoice]
// builds a valid income invoice for a charge.
type GenerationRequest struct {
	// OpenpayTransactionID is the id of the transaction (charge) invoiced; optional.
	OpenpayTransactionID string `json:"openpay_transaction_id,omitempty"`
	// InvoiceID is the merchant's invoice or order identifier; required.
	InvoiceID string `json:"invoice_id"`
	// TipoComprobante is the voucher type; when empty the gateway assumes income (I).
	TipoComprobante VoucherType `json:"tipo_comprobante,omitempty"`
	// Serie is the invoice series, 1 to 25 letters or digits; optional.
	Serie string `json:"serie,omitempty"`
	// Folio is the invoice number in its series, 1 to 40 letters or digits; optional.
	Folio string `json:"folio,omitempty"`
	// Total is Subtotal - Descuento + TotalTrasladados - TotalRetenidos.
	Total openpay.Amount `json:"total"`
	// Subtotal is the sum of the concepts' Importe.
	Subtotal openpay.Amount `json:"subtotal"`
	// FormaPago is how the invoice was paid; required.
	FormaPago PaymentForm `json:"forma_pago"`
	// MetodoPago says whether it was paid at once (PUE) or later (PPD); required.
	MetodoPago PaymentMethod `json:"metodo_pago"`
	// LugarExpedicion is the postal code (five digits) of the place of issue; required.
	LugarExpedicion string `json:"lugar_expedicion"`
	// Descuento is the sum of the concepts' Descuento; optional.
	Descuento openpay.Amount `json:"descuento,omitzero"`
	// Observaciones are free remarks; optional.
	Observaciones string `json:"observaciones,omitempty"`
	// TotalTrasladados is the sum of the concepts' transferred taxes; optional.
	TotalTrasladados openpay.Amount `json:"total_trasladados,omitzero"`
	// TotalRetenidos is the sum of the concepts' withheld taxes; optional.
	TotalRetenidos openpay.Amount `json:"total_retenidos,omitzero"`
	// Moneda is the currency, an ISO 4217 code such as MXN; required.
	Moneda string `json:"moneda"`
	// TipoDeCambio is the exchange rate to Mexican pesos; exactly 1 for MXN; required.
	TipoDeCambio openpay.Decimal `json:"tipo_de_cambio"`
	// Receptor is the receiver of the invoice; required.
	Receptor Receiver `json:"receptor"`
	// Conceptos are the lines of the invoice, at least one; required.
	Conceptos []Concept `json:"conceptos"`
	// CFDIRelacionados names invoices this one relates to; optional.
	CFDIRelacionados *Related `json:"cfdi_relacionados,omitempty"`
	// Complements carries the optional complements.
	Complements *Complements `json:"complements,omitempty"`
}

// Receiver is the receiver (receptor) of an invoice.
type Receiver struct {
	// Nombre is the receiver's name, 1 to 254 characters; required.
	Nombre string `json:"nombre"`
	// RFC is the receiver's tax id: 12 characters for a company, 13 for a
	// person, or one of the generic RFCs [RFCPublicoEnGeneral] and
	// [RFCExtranjero]; required.
	RFC string `json:"rfc"`
	// Email is where the invoice is sent; optional.
	Email string `json:"email,omitempty"`
	// ResidenciaFiscal is the postal code of the receiver's tax residence; optional.
	ResidenciaFiscal string `json:"residencia_fiscal,omitempty"`
	// UsoCFDI is the use the receiver will give the invoice; required.
	UsoCFDI Use `json:"uso_cfdi"`
	// Pais is the receiver's country (ISO 3166-1 alpha-3); optional. It may
	// be sent only for a foreign receiver identified by [RFCExtranjero]:
	// never with a registered RFC or the national generic RFC
	// [RFCPublicoEnGeneral].
	Pais string `json:"pais,omitempty"`
}

// Generic RFCs, for receivers who give no tax id of their own.
const (
	// RFCPublicoEnGeneral is the national generic RFC: a sale to the
	// general public in Mexico.
	RFCPublicoEnGeneral = "XAXX010101000"
	// RFCExtranjero is the foreign generic RFC: a receiver abroad without a
	// Mexican tax id. Such a receiver's country goes in [Receiver.Pais].
	RFCExtranjero = "XEXX010101000"
)

// Concept is one line (concepto) of an invoice.
type Concept struct {
	// Identificador identifies the product or service (a SKU), 1 to 100
	// characters; required. It is the one capitalised name of the wire.
	Identificador string `json:"Identificador"`
	// Cantidad is the quantity, greater than zero, up to six decimals; required.
	Cantidad openpay.Decimal `json:"cantidad"`
	// Unidad is the unit of measure in free text, 1 to 20 characters; optional.
	Unidad string `json:"unidad,omitempty"`
	// ClaveUnidad is the unit's key in the tax authority's unit catalogue
	// (c_ClaveUnidad: two or three upper-case letters or digits, such as H87
	// piece, E48 service unit, KGM kilogram); required.
	ClaveUnidad string `json:"clave_unidad"`
	// Descripcion describes the line, 1 to 1000 characters; required.
	Descripcion string `json:"descripcion"`
	// ValorUnitario is the price of one unit, before taxes, not negative, up
	// to six decimals; required.
	ValorUnitario openpay.Decimal `json:"valor_unitario"`
	// Importe is Cantidad x ValorUnitario rounded half-up to the cent, or to
	// more decimals (up to six) when it is written with more; required.
	Importe openpay.Decimal `json:"importe"`
	// Clave is the product or service key, 1 to 10 digits (the tax
	// authority's c_ClaveProdServ keys have 8); required.
	Clave string `json:"clave"`
	// Descuento is the discount on the line, at most Importe, up to six
	// decimals; optional.
	Descuento openpay.Decimal `json:"descuento,omitzero"`
	// Traslados are the taxes transferred to the receiver (IVA, IEPS); optional.
	Traslados []Tax `json:"traslados,omitempty"`
	// Retenciones are the taxes withheld by the receiver; optional.
	Retenciones []Tax `json:"retenciones,omitempty"`
}

// Tax is a transferred or withheld tax of a concept.
type Tax struct {
	// Impuesto is the tax; required.
	Impuesto TaxType `json:"impuesto"`
	// TipoFactor says how the tax is computed; required.
	TipoFactor FactorType `json:"tipo_factor"`
	// Tasa is the rate (0.16 for 16 %) or the quota, up to six decimals;
	// zero when exempt; required.
	Tasa openpay.Decimal `json:"tasa"`
	// Importe is the tax due: Base x Tasa rounded half-up to the cent, or to
	// more decimals (up to six) when it is written with more; zero when
	// exempt; required.
	Importe openpay.Decimal `json:"importe"`
	// Base is the amount taxed (the concept's Importe less its Descuento),
	// up to six decimals; optional.
	Base openpay.Decimal `json:"base,omitzero"`
}

// Related names the invoices an invoice relates to (cfdi_relacionados), for
// example the invoice a credit note corrects.
type Related struct {
	// TipoRelacion says how they relate; required.
	TipoRelacion RelationType `json:"tipo_relacion"`
	// Relacionados are the related invoices, at least one; required.
	Relacionados []RelatedUUID `json:"relacionados"`
}

// RelatedUUID is a related invoice, named by its fiscal UUID.
type RelatedUUID struct {
	// UUID is the fiscal UUID (36 characters, 8-4-4-4-12 hexadecimal digits); required.
	UUID string `json:"uuid"`
}

// Complements holds an invoice's optional complements.
type Complements struct {
	// Aerolineas is the airline complement.
	Aerolineas *AirlineComplement `json:"aerolineas,omitempty"`
	// Payouts is the payment complement (the gateway's name for it).
	Payouts *PaymentComplement `json:"payouts,omitempty"`
	// Donatarias is the complement of authorised donees.
	Donatarias *DoneeComplement `json:"donatarias,omitempty"`
}

// AirlineComplement is the complement of airline tickets.
type AirlineComplement struct {
	// TUA is the airport use fee (tarifa de uso de aeropuerto); required.
	TUA openpay.Amount `json:"tua"`
	// OtrosCargos are other charges of the ticket (camel case on the wire); optional.
	OtrosCargos []OtherCharge `json:"otrosCargos,omitempty"`
}

// OtherCharge is another charge of an airline ticket. All its fields are optional.
type OtherCharge struct {
	// CodigoCargo is the charge's code.
	CodigoCargo string `json:"codigo_cargo,omitempty"`
	// DescripcionCargo describes the charge.
	DescripcionCargo string `json:"descripcion_cargo,omitempty"`
	// Importe is the charge's amount.
	Importe openpay.Amount `json:"importe,omitzero"`
}

// PaymentComplement records a payment received against earlier invoices
// (vouchers of type P). The gateway calls it "payouts".
type PaymentComplement struct {
	// FechaPago is when the payment was made; required.
	FechaPago DateTime `json:"fecha_pago"`
	// FormaDePago is how it was paid; required.
	FormaDePago PaymentForm `json:"forma_de_pago"`
	// MonedaP is the payment's currency, an ISO 4217 code; required.
	MonedaP string `json:"moneda_p"`
	// TipoCambioP is the payment's exchange rate to Mexican pesos; exactly 1 for MXN; required.
	TipoCambioP openpay.Decimal `json:"tipo_cambio_p"`
	// Monto is the amount paid, greater than zero; required.
	Monto openpay.Amount `json:"monto"`
	// NumOperacion is the payment's operation number, 1 to 100 characters; optional.
	NumOperacion string `json:"num_operacion,omitempty"`
	// RFCEmisorCtaOrd is the RFC of the bank of the paying account; optional.
	RFCEmisorCtaOrd string `json:"rfc_emisor_cta_ord,omitempty"`
	// NomBancoOrdExt is the name of the paying account's foreign bank, 1 to 300 characters; optional.
	NomBancoOrdExt string `json:"nom_banco_ord_ext,omitempty"`
	// CtaOrdenante is the paying account, 10 to 50 characters; optional.
	CtaOrdenante string `json:"cta_ordenante,omitempty"`
	// RFCEmisorCtaBen is the RFC of the bank of the receiving account; optional.
	RFCEmisorCtaBen string `json:"rfc_emisor_cta_ben,omitempty"`
	// CtaBeneficiario is the receiving account, 10 to 50 characters; optional.
	CtaBeneficiario string `json:"cta_beneficiario,omitempty"`
	// TipoCadPago is the kind of payment chain; only [PaymentChainSPEI]; optional.
	TipoCadPago PaymentChainType `json:"tipo_cad_pago,omitempty"`
	// CertPago is the payment's certificate (bytes, base64 on the wire); optional.
	CertPago []byte `json:"cert_pago,omitempty"`
	// SelloPago is the payment's seal (bytes, base64 on the wire); optional.
	SelloPago []byte `json:"sello_pago,omitempty"`
	// CadPago is the payment's original chain, 1 to 8192 characters; optional.
	CadPago string `json:"cad_pago,omitempty"`
	// DoctoRelacionados are the invoices the payment settles; optional.
	DoctoRelacionados []RelatedDocument `json:"docto_relacionados,omitempty"`
}

// RelatedDocument is an invoice a payment settles, in whole or in part.
type RelatedDocument struct {
	// IDDocumento is the settled invoice's fiscal UUID, 16 to 36 characters; required.
	IDDocumento string `json:"id_documento"`
	// Serie is the settled invoice's series, 1 to 25 characters; optional.
	Serie string `json:"serie,omitempty"`
	// Folio is the settled invoice's number, 1 to 40 characters; optional.
	Folio string `json:"folio,omitempty"`
	// MonedaDR is the settled invoice's currency, three letters (ISO 4217); required.
	MonedaDR string `json:"moneda_d_r"`
	// TipoCambioDR is the exchange rate between the payment's and the invoice's currencies; optional.
	TipoCambioDR openpay.Decimal `json:"tipo_cambio_d_r,omitzero"`
	// MetodoDePagoDR is the settled invoice's payment method; optional.
	MetodoDePagoDR PaymentMethod `json:"metodo_de_pago_d_r,omitempty"`
	// NumParcialidad is the instalment number, from 1; optional.
	NumParcialidad int `json:"num_parcialidad,omitempty"`
	// ImpSaldoAnt is the balance before this payment; optional. A pointer,
	// like the two balances that follow, because zero is a value worth sending.
	ImpSaldoAnt *openpay.Amount `json:"imp_saldo_ant,omitempty"`
	// ImpPagado is the amount of this payment applied to the invoice; optional.
	ImpPagado *openpay.Amount `json:"imp_pagado,omitempty"`
	// ImpSaldoInsoluto is the balance left: ImpSaldoAnt - ImpPagado, zero
	// when the invoice is settled; optional.
	ImpSaldoInsoluto *openpay.Amount `json:"imp_saldo_insoluto,omitempty"`
}

// DoneeComplement is the complement of donations received by a donee
// authorised by the tax authority.
type DoneeComplement struct {
	// NoAutorizacion is the number of the authorisation; required.
	NoAutorizacion string `json:"no_autorizacion"`
	// FechaAutorizacion is the date of the authorisation (YYYY-MM-DD); required.
	FechaAutorizacion Date `json:"fecha_autorizacion"`
	// Leyenda is the legend donation receipts must carry; required.
	Leyenda string `json:"leyenda"`
}

// GenerationResponse is the gateway's answer to a [GenerationRequest].
type GenerationResponse struct {
	// InvoiceID is the merchant's invoice identifier, as sent.
	InvoiceID string `json:"invoice_id,omitempty"`
	// RequestID identifies the generation request at the gateway.
	RequestID string `json:"request_id,omitempty"`
	// Date is when the request was received.
	Date DateTime `json:"date,omitzero"`
	// Status is the processing status.
	Status Status `json:"status,omitempty"`
	// FiscalStatus is the invoice's standing with the tax authority.
	FiscalStatus FiscalStatus `json:"fiscal_status,omitempty"`
	// Message explains the status, notably an error.
	Message string `json:"message,omitempty"`
}

// Notification tells the merchant the outcome of an invoice request. Decode
// it with [ParseNotification] (or encoding/json): unknown fields are ignored,
// amounts may be numbers or quoted numbers, and dates may take any form
// [DateTime] accepts.
type Notification struct {
	// InvoiceID is the merchant's invoice identifier.
	InvoiceID string `json:"invoice_id,omitempty"`
	// Serie is the invoice's series.
	Serie string `json:"serie,omitempty"`
	// Folio is the invoice's number in its series.
	Folio string `json:"folio,omitempty"`
	// TransactionID is the id of the invoiced transaction.
	TransactionID string `json:"transaction_id,omitempty"`
	// CreationDate is when the request was received.
	CreationDate DateTime `json:"creation_date,omitzero"`
	// IssueDate is when the invoice was issued (stamped).
	IssueDate DateTime `json:"issue_date,omitzero"`
	// UUID is the invoice's fiscal UUID.
	UUID string `json:"uuid,omitempty"`
	// ReceiverRFC is the receiver's RFC.
	ReceiverRFC string `json:"receiver_rfc,omitempty"`
	// Total is the invoice's total.
	Total openpay.Amount `json:"total,omitzero"`
	// Subtotal is the invoice's subtotal.
	Subtotal openpay.Amount `json:"subtotal,omitzero"`
	// Status is the processing status.
	Status Status `json:"status,omitempty"`
	// FiscalStatus is the invoice's standing with the tax authority.
	FiscalStatus FiscalStatus `json:"fiscal_status,omitempty"`
	// CancellationDate is when the invoice was cancelled, if it was.
	CancellationDate DateTime `json:"cancellation_date,omitzero"`
	// PublicXMLLink is where the invoice's XML can be downloaded until LinkExpirationDate.
	PublicXMLLink string `json:"public_xml_link,omitempty"`
	// PublicPDFLink is where the invoice's PDF can be downloaded until LinkExpirationDate.
	PublicPDFLink string `json:"public_pdf_link,omitempty"`
	// LinkExpirationDate is when the links expire; after it the files are
	// available only from the dashboard.
	LinkExpirationDate DateTime `json:"link_expiration_date,omitzero"`
	// Message explains the status, notably an error.
	Message string `json:"message,omitempty"`
}

// ParseNotification decodes a notification from its JSON body. It refuses
// anything but a single JSON object.
func ParseNotification(data []byte) (Notification, error) {
	if b := bytes.TrimLeft(data, " \t\r\n"); len(b) == 0 || b[0] != '{' {
		return Notification{}, errors.New("cfdi: a notification must be a JSON object")
	}
	var n Notification
	if err := json.Unmarshal(data, &n); err != nil {
		return Notification{}, fmt.Errorf("cfdi: notification: %w", err)
	}
	return n, nil
}
