package fieldrules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// fields parses a request body and decodes it into v.
func fields(t *testing.T, body string, v any) reqbody.Fields {
	t.Helper()
	f, e := reqbody.Parse([]byte(body), false)
	require.Nil(t, e)
	require.NoError(t, json.Unmarshal([]byte(body), v))
	return f
}

// failed checks that e is the gateway error code naming member.
func failed(t *testing.T, e *apierr.Error, code openpay.Code, member string) {
	t.Helper()
	require.NotNil(t, e, "%s should fail", member)
	assert.Equal(t, code, e.Code)
	assert.Contains(t, e.Description, "'"+member+"'")
}

func TestCustomer(t *testing.T) {
	t.Parallel()
	check := func(body string) *apierr.Error {
		var r openpay.CustomerRequest
		f := fields(t, body, &r)
		return Customer(f, r.Name, r.LastName, r.Email, r.PhoneNumber, r.Address, r.CustomerAddress)
	}
	assert.Nil(t, check(`{"name":"Ana","email":"ana@example.com"}`))
	failed(t, check(`{"email":"ana@example.com"}`), openpay.ErrBadRequest, "name")
	e := check(`{"name":"Ana","email":"not an address"}`)
	require.NotNil(t, e)
	assert.Equal(t, openpay.ErrBadRequest, e.Code)
	assert.Contains(t, e.Description, "not a valid email address")
	long := strings.Repeat("x", 101)
	failed(t, check(`{"name":"Ana","email":"ana@example.com","last_name":"`+long+`"}`), openpay.ErrInvalidParameter, "last_name")
}

func TestChargeCustomer(t *testing.T) {
	t.Parallel()
	check := func(body string) *apierr.Error {
		var r struct{ Customer openpay.ChargeCustomer }
		f := fields(t, body, &r)
		return ChargeCustomer(f.Object("customer"), &r.Customer)
	}
	assert.Nil(t, check(`{"customer":{"name":"Ana","email":"ana@example.com"}}`))
	failed(t, check(`{"customer":{"name":"Ana"}}`), openpay.ErrBadRequest, "customer.email")
	failed(t, check(`{"customer":{"name":"","email":"ana@example.com"}}`), openpay.ErrBadRequest, "customer.name")
	failed(t, ChargeCustomer(nil, &openpay.ChargeCustomer{}), openpay.ErrBadRequest, "customer")
}

func TestMoney(t *testing.T) {
	t.Parallel()
	check := func(body string) *apierr.Error {
		var r struct {
			Amount      openpay.Amount
			Description string
			OrderID     string `json:"order_id"`
		}
		f := fields(t, body, &r)
		var v reqbody.Checker
		Money(&v, f, r.Amount, r.Description, r.OrderID)
		return v.Err
	}
	assert.Nil(t, check(`{"amount":10.5,"description":"d","order_id":"o-1"}`))
	failed(t, check(`{"description":"d"}`), openpay.ErrBadRequest, "amount")
	failed(t, check(`{"amount":0,"description":"d"}`), openpay.ErrInvalidParameter, "amount")
	failed(t, check(`{"amount":1.005,"description":"d"}`), openpay.ErrInvalidParameter, "amount")
	failed(t, check(`{"amount":1,"description":"d","order_id":""}`), openpay.ErrBadRequest, "order_id")
}

func TestBankAccount(t *testing.T) {
	t.Parallel()
	check := func(body string) (string, string, *apierr.Error) {
		var r struct {
			BankAccount openpay.BankAccountRequest `json:"bank_account"`
		}
		f := fields(t, body, &r)
		return BankAccount(f.Object("bank_account"), "bank_account.", r.BankAccount)
	}
	code, name, e := check(`{"bank_account":{"holder_name":"Ana","clabe":"012298026516924616"}}`)
	require.Nil(t, e)
	assert.Equal(t, "012", code)
	assert.NotEmpty(t, name)
	_, _, e = check(`{"bank_account":{"holder_name":"Ana"}}`)
	failed(t, e, openpay.ErrBadRequest, "bank_account.clabe")
	_, _, e = check(`{"bank_account":{"holder_name":"Ana","clabe":"0122980265169246"}}`)
	failed(t, e, openpay.ErrBadRequest, "bank_account.clabe")
	_, _, e = check(`{"bank_account":{"holder_name":"Ana","clabe":"012298026516924617"}}`)
	failed(t, e, openpay.ErrInvalidParameter, "bank_account.clabe")
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ month, year, wantM, wantY string }{
		{"1", "29", "01", "29"}, {"12", "2031", "12", "31"}, {"07", "30", "07", "30"},
	} {
		m, y, e := Expiry("", tc.month, tc.year)
		require.Nil(t, e, "%s/%s", tc.month, tc.year)
		assert.Equal(t, tc.wantM+"/"+tc.wantY, m+"/"+y)
	}
	_, _, e := Expiry("card.", "13", "30")
	failed(t, e, openpay.ErrInvalidParameter, "card.expiration_month")
	_, _, e = Expiry("", "1a", "30")
	failed(t, e, openpay.ErrBadRequest, "expiration_month")
	_, _, e = Expiry("", "01", "3")
	failed(t, e, openpay.ErrBadRequest, "expiration_year")
	_, _, e = Expiry("", "01", "1999")
	failed(t, e, openpay.ErrInvalidParameter, "expiration_year")
}
