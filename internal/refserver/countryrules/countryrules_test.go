package countryrules

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[openpay.Country]*Rules{"": Mexico, "mx": Mexico, "MX": Mexico, "co": Colombia, "Pe": Peru} {
		r, ok := Of(in)
		require.True(t, ok, "%q", in)
		assert.Same(t, want, r, "%q", in)
	}
	_, ok := Of("US")
	assert.False(t, ok)
	assert.Equal(t, []*Rules{Mexico, Colombia, Peru}, All)
	for _, r := range All {
		assert.Same(t, r.Code.Location(), r.Zone, "%s: the SDK's zone of the country", r.Code)
	}
}

func TestHostFor(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "https://api.openpay.pe", Peru.HostFor("https://api.openpay.mx"))
	assert.Equal(t, "https://dev-api.openpay.co", Colombia.HostFor("https://dev-api.openpay.pe"))
	assert.Equal(t, "https://sandbox-api.openpay.mx", Mexico.HostFor("https://sandbox-api.openpay.co"))
	assert.Equal(t, "http://127.0.0.1:8080", Colombia.HostFor("http://127.0.0.1:8080"), "the server's own address is kept")
	assert.Equal(t, "https://api.openpay.mx.example", Peru.HostFor("https://api.openpay.mx.example"), "only a gateway host is rewritten")
}

func TestHasPathAndStatus(t *testing.T) {
	t.Parallel()
	payouts := []string{"", "payouts", ""}
	assert.True(t, Mexico.HasPath(payouts))
	assert.False(t, Colombia.HasPath(payouts))
	assert.False(t, Peru.HasPath(payouts))
	pse := []string{"", "charges", "pse"}
	assert.False(t, Mexico.HasPath(pse))
	assert.True(t, Colombia.HasPath(pse))
	assert.False(t, Peru.HasPath(pse))
	assert.True(t, Peru.HasPath([]string{"", "customers", "", "cards"}))

	assert.Equal(t, http.StatusCreated, Peru.Status("createCustomer", http.StatusOK))
	assert.Equal(t, http.StatusOK, Mexico.Status("createCustomer", http.StatusOK))
	assert.Equal(t, http.StatusOK, Colombia.Status("createCustomer", http.StatusOK))
	assert.Equal(t, http.StatusNoContent, Peru.Status("deleteCustomer", http.StatusNoContent))
}

func TestHasEvent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    *Rules
		typ  openpay.EventType
		want bool
	}{
		{Mexico, "payout.succeeded", true},
		{Colombia, "payout.succeeded", false},
		{Colombia, "fee.succeeded", true},
		{Peru, "fee.succeeded", false},
		{Peru, "charge.succeeded", true},
		{Colombia, "order.created", false},
	} {
		assert.Equal(t, tc.want, tc.r.HasEvent(tc.typ), "%s %s", tc.r.Code, tc.typ)
	}
}

func TestInstalments(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []int{3, 6, 9, 12, 18}, Mexico.InstalmentChoices())
	assert.Equal(t, []int{3, 6, 9, 12, 18}, Peru.InstalmentChoices())
	co := Colombia.InstalmentChoices()
	assert.Len(t, co, 35)
	assert.Equal(t, 2, co[0])
	assert.Equal(t, 36, co[len(co)-1])
	for _, tc := range []struct {
		r    *Rules
		plan openpay.PaymentPlan
		ok   bool
	}{
		{Mexico, openpay.PaymentPlan{Payments: 6}, true},
		{Mexico, openpay.PaymentPlan{Payments: 24}, false},
		{Mexico, openpay.PaymentPlan{Payments: 6, PaymentsType: "WITH_INTEREST"}, false},
		{Colombia, openpay.PaymentPlan{Payments: 2}, true},
		{Colombia, openpay.PaymentPlan{Payments: 37}, false},
		{Peru, openpay.PaymentPlan{Payments: 12, PaymentsType: "WITHOUT_INTEREST"}, true},
		{Peru, openpay.PaymentPlan{Payments: 12, PaymentsType: "SOMETIMES"}, false},
	} {
		e := tc.r.CheckInstalments(&tc.plan)
		if tc.ok {
			assert.Nil(t, e, "%s %+v", tc.r.Code, tc.plan)
			continue
		}
		require.NotNil(t, e, "%s %+v", tc.r.Code, tc.plan)
		assert.Equal(t, openpay.ErrInvalidParameter, e.Code)
		assert.Contains(t, e.Description, "payment_plan")
	}
}

func TestMethodError(t *testing.T) {
	t.Parallel()
	assert.Contains(t, Colombia.MethodError().Description, "bank_account (PSE)")
	assert.Contains(t, Mexico.MethodError().Description, "alipay")
	assert.Contains(t, Peru.MethodError().Description, "'method' must be card or store for a merchant in PE")
	assert.Equal(t, openpay.ErrInvalidParameter, Peru.MethodError().Code)
}

func TestParse(t *testing.T) {
	t.Parallel()
	c, err := Parse("co")
	require.NoError(t, err)
	assert.Equal(t, openpay.CountryColombia, c)
	c, err = Parse("")
	require.NoError(t, err)
	assert.Equal(t, openpay.CountryMexico, c)
	_, err = Parse("4111111111111111")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unknown country")
	assert.NotContains(t, err.Error(), "4111111111111111", "a card number is never echoed")
	assert.Equal(t, Unknown("xx").Error(), func() string { _, err := Parse("xx"); return err.Error() }())
}

func TestLackedSomewhere(t *testing.T) {
	t.Parallel()
	assert.True(t, LackedSomewhere([]string{"", "payouts"}), "Colombia and Peru lack payouts")
	assert.True(t, LackedSomewhere([]string{"", "charges", "pse"}), "Mexico lacks PSE")
	assert.False(t, LackedSomewhere([]string{"", "charges"}))
}
