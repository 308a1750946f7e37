package cfdi

// The catalogues of the invoice fields. Each is a string type whose constants are
// the codes sent on the wire; Description gives the meaning of a code and
// Valid says whether the code belongs to the catalogue. A value outside the
// catalogue decodes without error (the gateway may add codes) and is reported
// by [GenerationRequest.Validate] when it is about to be sent.

// entry is one code of a catalogue and its meaning.
type entry[T ~string] struct {
	code T
	desc string
}

// describe returns the description of v in list, or "" when v is not in it.
func describe[T ~string](list []entry[T], v T) string {
	for _, e := range list {
		if e.code == v {
			return e.desc
		}
	}
	return ""
}

// codes returns the codes of list in catalogue order, in a new slice.
func codes[T ~string](list []entry[T]) []T {
	out := make([]T, len(list))
	for i, e := range list {
		out[i] = e.code
	}
	return out
}

// PaymentForm is the payment form (forma_pago, and forma_de_pago of the
// payment complement): how the invoiced amount was or will be paid.
type PaymentForm string

// Payment forms.
const (
	PaymentFormCash                  PaymentForm = "01" // cash
	PaymentFormNominativeCheque      PaymentForm = "02" // nominative cheque
	PaymentFormElectronicTransfer    PaymentForm = "03" // electronic funds transfer
	PaymentFormCreditCard            PaymentForm = "04" // credit card
	PaymentFormElectronicWallet      PaymentForm = "05" // electronic wallet
	PaymentFormElectronicMoney       PaymentForm = "06" // electronic money
	PaymentFormPantryVouchers        PaymentForm = "08" // pantry vouchers
	PaymentFormDation                PaymentForm = "12" // dation in payment
	PaymentFormSubrogation           PaymentForm = "13" // payment by subrogation
	PaymentFormConsignment           PaymentForm = "14" // payment by consignment
	PaymentFormCondonation           PaymentForm = "15" // condonation
	PaymentFormCompensation          PaymentForm = "17" // compensation
	PaymentFormNovation              PaymentForm = "23" // novation
	PaymentFormConfusion             PaymentForm = "24" // confusion
	PaymentFormDebtRemission         PaymentForm = "25" // debt remittance
	PaymentFormPrescription          PaymentForm = "26" // prescription or expiration
	PaymentFormCreditorSatisfaction  PaymentForm = "27" // to the creditor's satisfaction
	PaymentFormDebitCard             PaymentForm = "28" // debit card
	PaymentFormServiceCard           PaymentForm = "29" // service card
	PaymentFormApplicationOfAdvances PaymentForm = "30" // application of advances
	PaymentFormOther                 PaymentForm = "99" // others (to be defined)
)

var paymentForms = []entry[PaymentForm]{
	{PaymentFormCash, "cash"},
	{PaymentFormNominativeCheque, "nominative cheque"},
	{PaymentFormElectronicTransfer, "electronic funds transfer"},
	{PaymentFormCreditCard, "credit card"},
	{PaymentFormElectronicWallet, "electronic wallet"},
	{PaymentFormElectronicMoney, "electronic money"},
	{PaymentFormPantryVouchers, "pantry vouchers"},
	{PaymentFormDation, "dation in payment"},
	{PaymentFormSubrogation, "payment by subrogation"},
	{PaymentFormConsignment, "payment by consignment"},
	{PaymentFormCondonation, "condonation"},
	{PaymentFormCompensation, "compensation"},
	{PaymentFormNovation, "novation"},
	{PaymentFormConfusion, "confusion"},
	{PaymentFormDebtRemission, "debt remittance"},
	{PaymentFormPrescription, "prescription or expiration"},
	{PaymentFormCreditorSatisfaction, "to the creditor's satisfaction"},
	{PaymentFormDebitCard, "debit card"},
	{PaymentFormServiceCard, "service card"},
	{PaymentFormApplicationOfAdvances, "application of advances"},
	{PaymentFormOther, "others"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (f PaymentForm) Description() string { return describe(paymentForms, f) }

// Valid reports whether f is a code of the catalogue.
func (f PaymentForm) Valid() bool { return f.Description() != "" }

// PaymentForms returns every payment form, in catalogue order.
func PaymentForms() []PaymentForm { return codes(paymentForms) }

// PaymentMethod is the payment method (metodo_pago): paid at once or later.
type PaymentMethod string

// Payment methods.
const (
	PaymentMethodPUE PaymentMethod = "PUE" // single payment (pago en una sola exhibición)
	PaymentMethodPPD PaymentMethod = "PPD" // partial or deferred payments (pago en parcialidades o diferido)
)

var paymentMethods = []entry[PaymentMethod]{
	{PaymentMethodPUE, "single payment"},
	{PaymentMethodPPD, "partial or deferred payments"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (m PaymentMethod) Description() string { return describe(paymentMethods, m) }

// Valid reports whether m is a code of the catalogue.
func (m PaymentMethod) Valid() bool { return m.Description() != "" }

// PaymentMethods returns every payment method, in catalogue order.
func PaymentMethods() []PaymentMethod { return codes(paymentMethods) }

// VoucherType is the kind of voucher (tipo_comprobante). The gateway assumes
// [VoucherIncome] when none is sent.
type VoucherType string

// Voucher types.
const (
	VoucherIncome   VoucherType = "I" // income: invoice, fee, charge note, donation, lease
	VoucherEgress   VoucherType = "E" // egress: credit note, refund note, payroll, assimilated
	VoucherTransfer VoucherType = "T" // transfer: waybill
	VoucherPayroll  VoucherType = "N" // payroll
	VoucherPayment  VoucherType = "P" // payment
)

var voucherTypes = []entry[VoucherType]{
	{VoucherIncome, "income (invoice, fee, charge note, donation, lease)"},
	{VoucherEgress, "egress (credit note, refund note, payroll, assimilated)"},
	{VoucherTransfer, "transfer (waybill)"},
	{VoucherPayroll, "payroll"},
	{VoucherPayment, "payment"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (v VoucherType) Description() string { return describe(voucherTypes, v) }

// Valid reports whether v is a code of the catalogue.
func (v VoucherType) Valid() bool { return v.Description() != "" }

// VoucherTypes returns every voucher type, in catalogue order.
func VoucherTypes() []VoucherType { return codes(voucherTypes) }

// TaxType is the tax of a transferred or withheld tax line (impuesto).
type TaxType string

// Taxes.
const (
	TaxISR  TaxType = "001" // ISR, income tax
	TaxIVA  TaxType = "002" // IVA, value-added tax
	TaxIEPS TaxType = "003" // IEPS, special tax on production and services
)

var taxTypes = []entry[TaxType]{
	{TaxISR, "ISR (income tax)"},
	{TaxIVA, "IVA (value-added tax)"},
	{TaxIEPS, "IEPS (special tax on production and services)"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (t TaxType) Description() string { return describe(taxTypes, t) }

// Valid reports whether t is a code of the catalogue.
func (t TaxType) Valid() bool { return t.Description() != "" }

// TaxTypes returns every tax, in catalogue order.
func TaxTypes() []TaxType { return codes(taxTypes) }

// FactorType says how a tax is computed (tipo_factor).
type FactorType string

// Factor types. The exempt factor is spelled "Excento" on this gateway's wire
// (the tax authority's own catalogue writes "Exento"); the constant sends
// the gateway's spelling.
const (
	FactorTasa    FactorType = "Tasa"    // a rate applied to the base
	FactorCuota   FactorType = "Cuota"   // a fixed quota per unit of the base
	FactorExcento FactorType = "Excento" // exempt: no tax is due
)

var factorTypes = []entry[FactorType]{
	{FactorTasa, "rate"},
	{FactorCuota, "fixed quota"},
	{FactorExcento, "exempt"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (f FactorType) Description() string { return describe(factorTypes, f) }

// Valid reports whether f is a code of the catalogue.
func (f FactorType) Valid() bool { return f.Description() != "" }

// FactorTypes returns every factor type, in catalogue order.
func FactorTypes() []FactorType { return codes(factorTypes) }

// RelationType says how an invoice relates to the invoices it names
// (tipo_relacion).
type RelationType string

// Relationship types.
const (
	RelationCreditNote         RelationType = "01" // credit note of the related documents
	RelationDebitNote          RelationType = "02" // debit note of the related documents
	RelationMerchandiseReturn  RelationType = "03" // return of merchandise previously invoiced
	RelationReplacement        RelationType = "04" // replacement of previous CFDIs
	RelationGoodsTransfer      RelationType = "05" // transfer of goods previously invoiced
	RelationInvoiceOfTransfers RelationType = "06" // invoice generated by previous transfers
	RelationAdvancePayment     RelationType = "07" // application of an advance payment
)

var relationTypes = []entry[RelationType]{
	{RelationCreditNote, "credit note"},
	{RelationDebitNote, "debit note"},
	{RelationMerchandiseReturn, "return of merchandise"},
	{RelationReplacement, "replacement of a previous CFDI"},
	{RelationGoodsTransfer, "transfer of goods previously invoiced"},
	{RelationInvoiceOfTransfers, "invoice generated by previous transfers"},
	{RelationAdvancePayment, "application of an advance payment"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (r RelationType) Description() string { return describe(relationTypes, r) }

// Valid reports whether r is a code of the catalogue.
func (r RelationType) Valid() bool { return r.Description() != "" }

// RelationTypes returns every relationship type, in catalogue order.
func RelationTypes() []RelationType { return codes(relationTypes) }

// Use is the use the receiver will give the invoice (uso_cfdi), which decides
// how the receiver may deduct it.
type Use string

// Uses of CFDI.
const (
	UseAcquisitionOfGoods        Use = "G01" // acquisition of goods
	UseReturnsDiscounts          Use = "G02" // returns, discounts or bonuses
	UseGeneralExpenses           Use = "G03" // general expenses
	UseConstructions             Use = "I01" // constructions
	UseOfficeFurniture           Use = "I02" // office furniture and equipment
	UseTransportEquipment        Use = "I03" // transport equipment
	UseComputerEquipment         Use = "I04" // computer equipment and accessories
	UseToolingAndMolds           Use = "I05" // dies, punches, moulds, matrices and tooling
	UseTelephoneCommunications   Use = "I06" // telephone communications
	UseSatelliteCommunications   Use = "I07" // satellite communications
	UseOtherMachinery            Use = "I08" // other machinery and equipment
	UseMedicalFees               Use = "D01" // medical, dental and hospital fees
	UseDisabilityMedicalExpenses Use = "D02" // medical expenses for disability
	UseFuneralExpenses           Use = "D03" // funeral expenses
	UseDonations                 Use = "D04" // donations
	UseMortgageInterest          Use = "D05" // real interest paid on mortgage loans (dwelling)
	UseRetirementContributions   Use = "D06" // voluntary contributions to the retirement savings system
	UseMedicalInsurance          Use = "D07" // medical expenses insurance premiums
	UseSchoolTransport           Use = "D08" // compulsory school transport
	UseRetirementSavings         Use = "D09" // deposits in savings accounts, pension-plan premiums
	UseTuition                   Use = "D10" // payments for educational services (tuition)
	UseToBeDefined               Use = "P01" // to be defined
)

var uses = []entry[Use]{
	{UseAcquisitionOfGoods, "acquisition of goods"},
	{UseReturnsDiscounts, "returns, discounts or bonuses"},
	{UseGeneralExpenses, "general expenses"},
	{UseConstructions, "constructions"},
	{UseOfficeFurniture, "office furniture and equipment"},
	{UseTransportEquipment, "transport equipment"},
	{UseComputerEquipment, "computer equipment and accessories"},
	{UseToolingAndMolds, "dies, punches, moulds, matrices and tooling"},
	{UseTelephoneCommunications, "telephone communications"},
	{UseSatelliteCommunications, "satellite communications"},
	{UseOtherMachinery, "other machinery and equipment"},
	{UseMedicalFees, "medical, dental and hospital fees"},
	{UseDisabilityMedicalExpenses, "medical expenses for disability"},
	{UseFuneralExpenses, "funeral expenses"},
	{UseDonations, "donations"},
	{UseMortgageInterest, "real interest paid on mortgage loans (dwelling)"},
	{UseRetirementContributions, "voluntary contributions to the retirement savings system"},
	{UseMedicalInsurance, "medical expenses insurance premiums"},
	{UseSchoolTransport, "compulsory school transport"},
	{UseRetirementSavings, "deposits in savings accounts, pension-plan premiums"},
	{UseTuition, "payments for educational services (tuition)"},
	{UseToBeDefined, "to be defined"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (u Use) Description() string { return describe(uses, u) }

// Valid reports whether u is a code of the catalogue.
func (u Use) Valid() bool { return u.Description() != "" }

// Uses returns every use of CFDI, in catalogue order.
func Uses() []Use { return codes(uses) }

// PaymentChainType is the kind of payment chain of a payment complement
// (tipo_cad_pago). The only valid value is [PaymentChainSPEI].
type PaymentChainType string

// PaymentChainSPEI is a chain of the interbank electronic payment system (SPEI).
const PaymentChainSPEI PaymentChainType = "01"

var paymentChainTypes = []entry[PaymentChainType]{
	{PaymentChainSPEI, "SPEI (interbank electronic payment system)"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (c PaymentChainType) Description() string { return describe(paymentChainTypes, c) }

// Valid reports whether c is a code of the catalogue.
func (c PaymentChainType) Valid() bool { return c.Description() != "" }

// Status is the processing status of an invoice request.
type Status string

// Processing statuses.
const (
	StatusPending Status = "PENDING" // received, not yet stamped
	StatusOK      Status = "OK"      // stamped: the invoice exists
	StatusError   Status = "ERROR"   // refused; the message says why
)

var statuses = []entry[Status]{
	{StatusPending, "pending"},
	{StatusOK, "issued"},
	{StatusError, "error"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (s Status) Description() string { return describe(statuses, s) }

// Valid reports whether s is a code of the catalogue.
func (s Status) Valid() bool { return s.Description() != "" }

// Statuses returns every processing status, in catalogue order.
func Statuses() []Status { return codes(statuses) }

// FiscalStatus is the standing of an issued invoice with the tax authority.
type FiscalStatus string

// Fiscal statuses.
const (
	FiscalStatusActive    FiscalStatus = "ACTIVE"    // in force
	FiscalStatusCancelled FiscalStatus = "CANCELLED" // cancelled
)

var fiscalStatuses = []entry[FiscalStatus]{
	{FiscalStatusActive, "active"},
	{FiscalStatusCancelled, "cancelled"},
}

// Description returns the meaning of the code, or "" for a code outside the catalogue.
func (s FiscalStatus) Description() string { return describe(fiscalStatuses, s) }

// Valid reports whether s is a code of the catalogue.
func (s FiscalStatus) Valid() bool { return s.Description() != "" }

// FiscalStatuses returns every fiscal status, in catalogue order.
func FiscalStatuses() []FiscalStatus { return codes(fiscalStatuses) }
