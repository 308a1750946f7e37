package cfdi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// catalogue is what a test sees of one catalogue type.
type catalogue struct {
	name  string
	codes []string
	valid func(string) bool
	desc  func(string) string
}

func catalogueOf[T interface {
	~string
	Valid() bool
	Description() string
}](name string, list []entry[T]) catalogue {
	var cs []string
	for _, c := range codes(list) {
		cs = append(cs, string(c))
	}
	return catalogue{
		name:  name,
		codes: cs,
		valid: func(s string) bool { return T(s).Valid() },
		desc:  func(s string) string { return T(s).Description() },
	}
}

func catalogues() []catalogue {
	return []catalogue{
		catalogueOf("PaymentForm", paymentForms),
		catalogueOf("PaymentMethod", paymentMethods),
		catalogueOf("VoucherType", voucherTypes),
		catalogueOf("TaxType", taxTypes),
		catalogueOf("FactorType", factorTypes),
		catalogueOf("RelationType", relationTypes),
		catalogueOf("Use", uses),
		catalogueOf("PaymentChainType", paymentChainTypes),
		catalogueOf("Status", statuses),
		catalogueOf("FiscalStatus", fiscalStatuses),
	}
}

// The codes are exactly those of section 2.10, in its order.
func TestCatalogueCodes(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"PaymentForm":      {"01", "02", "03", "04", "05", "06", "08", "12", "13", "14", "15", "17", "23", "24", "25", "26", "27", "28", "29", "30", "99"},
		"PaymentMethod":    {"PUE", "PPD"},
		"VoucherType":      {"I", "E", "T", "N", "P"},
		"TaxType":          {"001", "002", "003"},
		"FactorType":       {"Tasa", "Cuota", "Excento"},
		"RelationType":     {"01", "02", "03", "04", "05", "06", "07"},
		"Use":              {"G01", "G02", "G03", "I01", "I02", "I03", "I04", "I05", "I06", "I07", "I08", "D01", "D02", "D03", "D04", "D05", "D06", "D07", "D08", "D09", "D10", "P01"},
		"PaymentChainType": {"01"},
		"Status":           {"PENDING", "OK", "ERROR"},
		"FiscalStatus":     {"ACTIVE", "CANCELLED"},
	}
	for _, c := range catalogues() {
		assert.Equal(t, want[c.name], c.codes, c.name)
	}
}

func TestCatalogueValidAndDescription(t *testing.T) {
	t.Parallel()
	for _, c := range catalogues() {
		seen := map[string]bool{}
		for _, code := range c.codes {
			assert.True(t, c.valid(code), "%s %q", c.name, code)
			d := c.desc(code)
			assert.NotEmpty(t, d, "%s %q", c.name, code)
			assert.False(t, seen[d], "%s: description %q twice", c.name, d)
			seen[d] = true
		}
		for _, bad := range []string{"", "0", "00", "09", "31", "98", "G04", "D11", "pue", "tasa", "Exento", "X", "PENDIENTE", "1"} {
			assert.False(t, c.valid(bad), "%s %q", c.name, bad)
			assert.Empty(t, c.desc(bad), "%s %q", c.name, bad)
		}
	}
}

func TestCatalogueListsAreCopies(t *testing.T) {
	t.Parallel()
	forms := PaymentForms()
	forms[0] = "XX"
	assert.Equal(t, PaymentFormCash, PaymentForms()[0])

	assert.Len(t, PaymentForms(), 21)
	assert.Equal(t, []PaymentMethod{PaymentMethodPUE, PaymentMethodPPD}, PaymentMethods())
	assert.Len(t, VoucherTypes(), 5)
	assert.Equal(t, []TaxType{TaxISR, TaxIVA, TaxIEPS}, TaxTypes())
	assert.Equal(t, []FactorType{FactorTasa, FactorCuota, FactorExcento}, FactorTypes())
	assert.Len(t, RelationTypes(), 7)
	assert.Len(t, Uses(), 22)
	assert.Equal(t, []Status{StatusPending, StatusOK, StatusError}, Statuses())
	assert.Equal(t, []FiscalStatus{FiscalStatusActive, FiscalStatusCancelled}, FiscalStatuses())
}

func TestCatalogueDescriptions(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "credit card", PaymentFormCreditCard.Description())
	assert.Equal(t, "debit card", PaymentFormDebitCard.Description())
	assert.Equal(t, "single payment", PaymentMethodPUE.Description())
	assert.Equal(t, "IVA (value-added tax)", TaxIVA.Description())
	assert.Equal(t, "exempt", FactorExcento.Description())
	assert.Equal(t, "general expenses", UseGeneralExpenses.Description())
	assert.Equal(t, "to be defined", UseToBeDefined.Description())
	assert.Equal(t, "replacement of a previous CFDI", RelationReplacement.Description())
}
