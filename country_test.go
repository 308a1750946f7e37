package openpay

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCountryRequestsRoundTrip checks that the Colombian and Peruvian
// request bodies, in the shapes the vendor's own clients send them, decode
// into the SDK's types and encode back member for member: nothing a
// merchant of those countries sends is lost or renamed.
func TestCountryRequestsRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		into func() any
		body string
	}{
		{"CO PSE at merchant scope (N pse_test.colombia.js)", func() any { return new(PSECharge) }, `{
			"method": "bank_account", "amount": 10000, "currency": "COP", "description": "Cargo inicial",
			"iva": "1900", "redirect_url": "/", "order_id": "co-1",
			"customer": {"name": "Cliente Colombia", "last_name": "Vazquez Juarez", "email": "juan.vazquez@empresa.co",
				"phone_number": "4448936475",
				"customer_address": {"department": "Antioquia", "city": "Medellín", "additional": "Avenida 7m bis #174-25"}}}`},
		{"CO card with iva (N charges_test.colombia.js)", func() any { return new(CardCharge) }, `{
			"method": "card", "source_id": "kdx205scoizh93upqbte", "amount": 200, "currency": "COP", "iva": "10",
			"description": "Cargo", "device_session_id": "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f",
			"customer": {"name": "Cliente Colombia", "last_name": "Vazquez Juarez", "phone_number": "4448936475", "email": "juan.vazquez@empresa.co"}}`},
		{"CO inline card with iva", func() any { return new(InlineCardCharge) }, `{
			"method": "card", "amount": 5000.5, "currency": "COP", "iva": "800.08", "description": "Cargo",
			"card": {"card_number": "4111111111111111", "holder_name": "Ana", "expiration_year": "29", "expiration_month": "12", "cvv2": "123"}}`},
		{"CO store with iva (P test_co_integration.py)", func() any { return new(StoreCharge) }, `{
			"method": "store", "amount": 100, "currency": "COP", "iva": "19", "description": "Cargo en tienda"}`},
		{"PE store (N README)", func() any { return new(StoreCharge) }, `{
			"method": "store", "amount": 150.5, "currency": "PEN", "description": "Pago en tienda",
			"customer": {"name": "Marco", "email": "marco@example.pe",
				"address": {"line1": "Av. Arequipa 1200", "postal_code": "15046", "state": "Lima", "city": "Lima", "country_code": "PE"}}}`},
		{"PE card in USD", func() any { return new(CardCharge) }, `{
			"method": "card", "source_id": "kdx205scoizh93upqbte", "amount": 20, "currency": "USD", "description": "Cargo"}`},
		{"PE card in instalments with interest (WC, PS)", func() any { return new(CardCharge) }, `{
			"method": "card", "source_id": "kdx205scoizh93upqbte", "amount": 600, "currency": "PEN", "description": "Cuotas",
			"payment_plan": {"payments": 6, "payments_type": "WITH_INTEREST"}}`},
		{"CO card in 24 instalments (WC)", func() any { return new(CardCharge) }, `{
			"method": "card", "source_id": "kdx205scoizh93upqbte", "amount": 2400000, "currency": "COP", "iva": "383193",
			"description": "Cuotas", "payment_plan": {"payments": 24}}`},
		{"CO customer (R :customer_col)", func() any { return new(CustomerRequest) }, `{
			"name": "Juan", "last_name": "Pérez", "email": "juan@example.co", "phone_number": "3001234567",
			"customer_address": {"department": "Cundinamarca", "city": "Bogotá", "additional": "Carrera 7 # 72-41"}}`},
		{"PE customer (N customers.pe.test.js)", func() any { return new(CustomerRequest) }, `{
			"name": "Marco", "last_name": "Morales Perez", "email": "marco.mp@example.pe", "phone_number": "5744484951",
			"address": {"country_code": "PE", "postal_code": "12345", "city": "Lima", "state": "Lima", "line1": "Perú", "line2": "Perú", "line3": "Perú"}}`},
		{"PE customer with customer_address (R :customer_pe)", func() any { return new(CustomerUpdateRequest) }, `{
			"name": "Marco", "email": "marco.mp@example.pe",
			"customer_address": {"department": "Lima", "city": "Miraflores", "additional": "Av. Larco 345"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := c.into()
			require.NoError(t, json.Unmarshal([]byte(c.body), v))
			// What the SDK sends: a charge with the members it writes itself.
			body := deref(v)
			if r, ok := body.(ChargeRequest); ok {
				body, _, _ = r.chargeRequest()
			}
			out, err := json.Marshal(wireForm(body))
			require.NoError(t, err)
			assert.JSONEq(t, c.body, string(out))
		})
	}
}

// deref returns the value a pointer of the table points to, so that the
// wire form of the value type (with its own marshalling) is encoded.
func deref(v any) any {
	switch p := v.(type) {
	case *PSECharge:
		return *p
	case *CardCharge:
		return *p
	case *InlineCardCharge:
		return *p
	case *StoreCharge:
		return *p
	case *CustomerRequest:
		return *p
	case *CustomerUpdateRequest:
		return *p
	}
	return v
}

// TestCountryAnswersRoundTrip decodes answers of the Colombian and Peruvian
// gateway into Transaction and Customer and encodes them back: every member
// survives.
func TestCountryAnswersRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		into func() any
		body string
	}{
		{"CO PSE charge", func() any { return new(Transaction) }, `{
			"id": "trzjaozcik8msyqshka4", "authorization": null, "operation_type": "in", "transaction_type": "charge",
			"status": "charge_pending", "creation_date": "2026-01-05T10:00:00-05:00",
			"operation_date": "2026-01-05T10:00:00-05:00", "description": "Cargo inicial", "error_message": null,
			"order_id": "co-1", "amount": 10000, "currency": "COP", "method": "bank_account", "customer_id": null,
			"due_date": "2026-01-05T11:00:00-05:00",
			"payment_method": {"type": "redirect", "url": "https://sandbox-api.openpay.co/v1/mwf7x79goz7afkdbuyqd/charges/trzjaozcik8msyqshka4/redirect/"},
			"customer": {"name": "Cliente Colombia", "last_name": "Vazquez", "email": "juan@empresa.co", "phone_number": "4448936475",
				"address": null, "clabe": null, "external_id": null, "creation_date": "2026-01-05T10:00:00-05:00",
				"customer_address": {"department": "Antioquia", "city": "Medellín", "additional": "Avenida 7m bis #174-25"}}}`},
		{"CO store charge", func() any { return new(Transaction) }, `{
			"id": "trlqwzoyjrd4qhhq8ggu", "authorization": null, "operation_type": "in", "transaction_type": "charge",
			"status": "in_progress", "creation_date": "2026-01-05T10:00:00-05:00", "description": "Cargo en tienda",
			"error_message": null, "order_id": null, "amount": 100, "currency": "COP", "method": "store",
			"payment_method": {"type": "store", "reference": "1010101234567890", "barcode_url": "https://sandbox-api.openpay.co/barcode/1010101234567890?width=1&height=45&text=false"}}`},
		{"PE card charge", func() any { return new(Transaction) }, `{
			"id": "tr6cxbcefzatd10guvvw", "authorization": "801585", "operation_type": "in", "transaction_type": "charge",
			"status": "completed", "creation_date": "2026-01-05T10:00:00-05:00", "description": "Cargo",
			"error_message": null, "order_id": null, "amount": 150.5, "currency": "PEN", "method": "card"}`},
		{"CO customer", func() any { return new(Customer) }, `{
			"id": "a9ualumwnrcxkl42l6mh", "name": "Juan", "last_name": "Pérez", "email": "juan@example.co",
			"phone_number": "3001234567", "address": null, "clabe": null, "external_id": null, "status": "active",
			"creation_date": "2026-01-05T10:00:00-05:00",
			"customer_address": {"department": "Cundinamarca", "city": "Bogotá", "additional": "Carrera 7 # 72-41"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := c.into()
			require.NoError(t, json.Unmarshal([]byte(c.body), v))
			out, err := json.Marshal(v)
			require.NoError(t, err)
			// Members the wire types leave out when null are not data: compare
			// the encoding with the input less its nulls.
			var in, got map[string]any
			require.NoError(t, json.Unmarshal([]byte(c.body), &in))
			require.NoError(t, json.Unmarshal(out, &got))
			assert.Equal(t, dropNulls(in), dropNulls(got))
		})
	}
}

// dropNulls removes the null members of a decoded JSON object, recursively.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e != nil {
				out[k] = dropNulls(e)
			}
		}
		return out
	case []any:
		for i := range x {
			x[i] = dropNulls(x[i])
		}
	}
	return v
}

// TestPSEChargeSetsMethodAndCurrency checks what the SDK writes on a PSE
// charge: the method, and COP (PSE has no other currency).
func TestPSEChargeSetsMethodAndCurrency(t *testing.T) {
	t.Parallel()
	body, want, _ := PSECharge{Amount: MustAmount("10000"), Description: "x", RedirectURL: "/"}.chargeRequest()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	assert.JSONEq(t, `{"method":"bank_account","amount":10000,"currency":"COP","description":"x","redirect_url":"/"}`, string(b))
	assert.Equal(t, CurrencyCOP, want.currency)
	assert.Equal(t, TransactionMethodBankAccount, want.method)

	body, want, _ = StoreCharge{Amount: MustAmount("20.50"), Description: "x", Currency: CurrencyPEN}.chargeRequest()
	b, err = json.Marshal(body)
	require.NoError(t, err)
	assert.JSONEq(t, `{"method":"store","amount":20.5,"currency":"PEN","description":"x"}`, string(b))
	assert.Equal(t, CurrencyPEN, want.currency, "a store charge's currency is part of what a lost answer is matched on")
}
