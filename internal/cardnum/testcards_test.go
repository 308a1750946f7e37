package cardnum

import (
	"testing"

	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTestCardsAreWellFormed(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, c := range TestCards() {
		t.Run(c.Number, func(t *testing.T) {
			t.Parallel()
			assert.True(t, LuhnValid(c.Number), "passes Luhn")
			assert.True(t, FormatValid(c.Number), "has a valid length")
			assert.Equal(t, c.Brand, Brand(c.Number), "brand matches the BIN")
			assert.Contains(t, []string{"debit", "credit"}, c.Type)
			name, ok := clabe.Bank(c.BankCode)
			assert.True(t, ok, "bank code %s is in the catalogue", c.BankCode)
			assert.Equal(t, name, c.BankName)
			assert.NotEmpty(t, c.Description)
			if c.PointsCard {
				assert.True(t, c.Outcome.Success(), "a points card must be chargeable")
			}
		})
		assert.False(t, seen[c.Number], "duplicate number %s", Mask(c.Number))
		seen[c.Number] = true
	}
}

// TestDocumentedTestCards pins the gateway's documented sandbox table.
func TestDocumentedTestCards(t *testing.T) {
	t.Parallel()
	want := map[string]Outcome{
		"4111111111111111": {},
		"4242424242424242": {},
		"5555555555554444": {},
		"5105105105105100": {},
		"345678000000007":  {},
		"343434343434343":  {},
		"4000000000000069": {Code: 3002, RefusedWhenSaved: true},
		"4444444444444448": {Code: 3003},
		"4000000000000119": {Code: 3004, RefusedWhenSaved: true},
		"4222222222222220": {Code: 3008},
		"5454545454545454": {Requires3DS: true},
	}
	documented := 0
	for _, c := range TestCards() {
		if c.Documented {
			documented++
		}
	}
	assert.Equal(t, len(want), documented, "documented cards")
	for number, outcome := range want {
		c, ok := LookupTestCard(number)
		require.True(t, ok, number)
		assert.True(t, c.Documented, number)
		assert.Equal(t, outcome, c.Outcome, number)
	}
}

// TestChosenTestCards checks that every card error code the gateway leaves
// without a documented card has exactly one chosen card.
func TestChosenTestCards(t *testing.T) {
	t.Parallel()
	byCode := map[int][]string{}
	points := 0
	for _, c := range TestCards() {
		if c.Outcome.Code != 0 {
			byCode[c.Outcome.Code] = append(byCode[c.Outcome.Code], c.Number)
		}
		if c.PointsCard {
			points++
		}
	}
	for _, code := range []int{3001, 3002, 3003, 3004, 3005, 3006, 3008, 3009, 3010, 3011, 3012} {
		assert.Len(t, byCode[code], 1, "cards declining with %d", code)
	}
	assert.Len(t, byCode, 11, "no card declines with an undefined code")
	assert.Equal(t, 1, points, "points cards")
	c, ok := LookupTestCard("5105105105105100")
	require.True(t, ok)
	assert.True(t, c.PointsCard)

	// At least one chargeable card per brand.
	brands := map[string]bool{}
	for _, c := range TestCards() {
		if c.Outcome.Success() {
			brands[c.Brand] = true
		}
	}
	for _, b := range []string{Visa, Mastercard, AmericanExpress, Carnet} {
		assert.True(t, brands[b], "a success card of brand %s", b)
	}
}

func TestLookupTestCard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number   string
		wantOK   bool
		wantCode int
	}{
		{"4000000000030017", true, CodeCardDeclined},
		{"4000000000030124", true, CodeBankAuthorizationRequired},
		{"4111111111111111", true, 0},
		{"4000000000000002", false, 0},
		{"411111XXXXXX1111", false, 0},
		{"", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			t.Parallel()
			c, ok := LookupTestCard(tt.number)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantOK, IsTestCard(tt.number))
			assert.Equal(t, tt.wantCode, c.Outcome.Code)
			if ok {
				assert.Equal(t, tt.number, c.Number)
			}
		})
	}
}

func TestTestCardsReturnsACopy(t *testing.T) {
	t.Parallel()
	cards := TestCards()
	require.NotEmpty(t, cards)
	number := cards[0].Number
	cards[0].Outcome.Code = 9999
	c, ok := LookupTestCard(number)
	require.True(t, ok)
	assert.NotEqual(t, 9999, c.Outcome.Code)
	assert.NotEqual(t, 9999, TestCards()[0].Outcome.Code)
}

func TestOutcomeSuccess(t *testing.T) {
	t.Parallel()
	assert.True(t, Outcome{}.Success())
	assert.False(t, Outcome{Code: 3001}.Success())
	assert.False(t, Outcome{Requires3DS: true}.Success())
}

func TestIsFraudEmail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		email string
		want  bool
	}{
		{"ERROR.FRAUD@OPENPAY.MX", true},
		{"error.fraud@openpay.mx", true},
		{"  Error.Fraud@OpenPay.mx ", true},
		{"error.fraud@openpay.com", false},
		{"xerror.fraud@openpay.mx", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.email, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, IsFraudEmail(tt.email))
		})
	}
}

func TestChargeOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, number, email string
		want                Outcome
	}{
		{"success card", "4111111111111111", "a@b.mx", Outcome{}},
		{"unknown card succeeds", "4915669999999999", "", Outcome{}},
		{"declined card", "4444444444444448", "", Outcome{Code: CodeInsufficientFunds}},
		{"3-D Secure card", "5454545454545454", "", Outcome{Requires3DS: true}},
		{"fraud email on a success card", "4111111111111111", "ERROR.FRAUD@OPENPAY.MX", Outcome{Code: CodeFraudRisk, FraudRule: FraudRuleEmail}},
		{"fraud email wins over a decline", "4444444444444448", "error.fraud@openpay.mx", Outcome{Code: CodeFraudRisk, FraudRule: FraudRuleEmail}},
		{"fraud email wins over 3-D Secure", "5454545454545454", "error.fraud@openpay.mx", Outcome{Code: CodeFraudRisk, FraudRule: FraudRuleEmail}},
		{"fraud card", "4000000000030058", "", Outcome{Code: CodeFraudRisk, FraudRule: FraudRuleCard}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, ChargeOutcome(tt.number, tt.email))
		})
	}
}
