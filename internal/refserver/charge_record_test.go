package refserver

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chargeTxFromWire is how newChargeTx built a charge's record until it
// set the record's fields itself: the wire form, taken apart by setWire.
// The id is given (the other's), so that the two records compare.
func chargeTxFromWire(s *Server, m *merchant, cu *customer, req *chargeRequest, id string) *tx {
	now := s.nowOf(m).In(req.country.Zone)
	return newTx(id, openpay.Transaction{
		Amount: req.amount, Currency: req.currency,
		Description: req.description, OrderID: req.orderID, CustomerID: ownerID(cu), CreationDate: now, OperationDate: now,
		OperationType: openpay.OperationTypeIn, TransactionType: "charge", Method: openpay.TransactionMethodCard,
		Metadata: req.metadata,
	})
}

// TestChargeRecordIsTheOneItsWireFormMakes holds newChargeTx, which sets
// the record's fields directly, to the record setWire makes of the same
// charge's wire form: every compact field, the text's fields, the rare
// part (an amount cents cannot hold, metadata nil, empty or set, a
// currency other than MXN, a customer's id, a long text) and the wire
// form read back.
func TestChargeRecordIsTheOneItsWireFormMakes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cuID := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), env.created())["id"].(string)
	m := env.s.merchantByID(env.m.ID)
	cu := m.customers.get(cuID)
	require.NotNil(t, cu)
	long := string(make([]byte, 300))
	for _, c := range []struct {
		name     string
		amount   string
		currency openpay.Currency
		country  *countryrules.Rules
		metadata openpay.Metadata
		cu       *customer
		orderID  string
		desc     string
		kind     chargeKind
	}{
		{"plain", "100.00", openpay.CurrencyMXN, countryrules.Mexico, nil, nil, "o-1", "a charge", kindCard},
		{"no order_id, customer", "0.01", openpay.CurrencyMXN, countryrules.Mexico, nil, cu, "", "d", kindCard},
		{"metadata", "12.34", openpay.CurrencyMXN, countryrules.Mexico, openpay.Metadata{"k": "v"}, nil, "o-2", "d", kindStore},
		{"empty metadata", "12.34", openpay.CurrencyMXN, countryrules.Mexico, openpay.Metadata{}, cu, "o-3", "d", kindBank},
		{"usd", "10.00", openpay.CurrencyUSD, countryrules.Mexico, nil, nil, "o-4", "d", kindRedirect},
		{"colombia", "5000.00", "COP", countryrules.Colombia, nil, nil, "o-5", "d", kindPSE},
		{"peru", "15.50", "PEN", countryrules.Peru, openpay.Metadata{"a": "b"}, nil, "o-6", "d", kindCard},
		{"not cents", "100000000000000000000.00", openpay.CurrencyMXN, countryrules.Mexico, nil, nil, "o-7", "d", kindCard},
		{"not cents, empty metadata", "100000000000000000000.00", openpay.CurrencyMXN, countryrules.Mexico, openpay.Metadata{}, nil, "o-8", "d", kindCard},
		{"long text", "1.00", openpay.CurrencyMXN, countryrules.Mexico, nil, cu, long[:100], long[:250], kindIVR},
	} {
		t.Run(c.name, func(t *testing.T) {
			amount, err := openpay.NewAmount(c.amount)
			require.NoError(t, err)
			req := &chargeRequest{kind: c.kind, amount: amount, currency: c.currency, country: c.country,
				metadata: c.metadata, orderID: c.orderID, description: c.desc}
			got := env.s.newChargeTx(m, c.cu, req)
			assert.Equal(t, c.amount == "100000000000000000000.00", got.amountC == notCents, "the amount kept whole")
			want := chargeTxFromWire(env.s, m, c.cu, req, got.id())
			want.kind = req.kind
			assert.Equal(t, want.text.Fields(), got.text.Fields())
			gotRec, wantRec := *got, *want
			gotRec.text, wantRec.text = want.text, want.text
			gotRec.later, wantRec.later = nil, nil // the exchange rate and the payer's page: newChargeTx's own, after the record
			if got.x != nil && c.currency == openpay.CurrencyUSD {
				x := *got.x
				x.ExchangeRate = nil
				if isZeroTransaction(&x) {
					gotRec.x = nil
				} else {
					gotRec.x = &x
				}
			}
			assert.Equal(t, wantRec, gotRec)
			gw, ww := wireOf(got), wireOf(want)
			gw.ExchangeRate = nil
			assert.Equal(t, ww, gw)
			if len(c.metadata) > 0 {
				assert.Equal(t, c.metadata, gw.Metadata)
			}
		})
	}
}

// TestChargeRecordsMerchantSequence is a merchant's charges of each kind
// made through the API, the records now built without their wire form:
// a stored card, card data, a store and a bank charge, a customer's
// charge, charges in USD and with metadata; the same order_id twice, a
// refused card and then another card for the same order, a
// pre-authorization captured. Each order_id names one charge, each answer
// is what GET answers and what its event carries, and the balance is the
// sum of what was charged.
func TestChargeRecordsMerchantSequence(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cardID := requireOK(t, env.post("/cards", validCard("4111111111111111")), env.created())["id"].(string)
	cuID := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), env.created())["id"].(string)
	charge := func(path, orderID, amount string, extra map[string]any) resp {
		body := map[string]any{"method": "card", "amount": amount, "description": "order " + orderID, "order_id": orderID}
		for k, v := range extra {
			body[k] = v
		}
		return env.post(path, body)
	}
	made := []map[string]any{
		requireOK(t, charge("/charges", "s-1", "100.00", map[string]any{"source_id": cardID, "metadata": map[string]any{"cart": "7"}}), http.StatusOK),
		requireOK(t, charge("/charges", "i-1", "50.25", map[string]any{"card": validCard("5555555555554444")}), http.StatusOK),
		requireOK(t, charge("/charges", "u-1", "10.00", map[string]any{"source_id": cardID, "currency": "USD"}), http.StatusOK),
		requireOK(t, charge("/customers/"+cuID+"/charges", "c-1", "7.00", map[string]any{"card": validCard("4111111111111111")}), http.StatusOK),
		requireOK(t, charge("/charges", "st-1", "300.00", map[string]any{"method": "store", "customer": map[string]any{"name": "B", "email": "b@example.com"}}), http.StatusOK),
		requireOK(t, charge("/charges", "b-1", "400.00", map[string]any{"method": "bank_account", "customer": map[string]any{"name": "B", "email": "b@example.com"}}), http.StatusOK),
	}
	requireError(t, charge("/charges", "s-1", "1.00", map[string]any{"source_id": cardID}), int(openpay.ErrDuplicateOrderID))
	requireError(t, charge("/charges", "r-1", "20.00", map[string]any{"card": validCard("4000000000030017")}), int(openpay.ErrCardDeclined))
	requireError(t, charge("/charges", "r-1", "20.00", map[string]any{"card": validCard("5555555555554444")}), int(openpay.ErrDuplicateOrderID))
	pre := requireOK(t, charge("/charges", "p-1", "80.00", map[string]any{"source_id": cardID, "capture": false}), http.StatusOK)
	assert.Equal(t, "in_progress", pre["status"])
	captured := requireOK(t, env.post("/charges/"+pre["id"].(string)+"/capture", map[string]any{}), http.StatusOK)
	assert.Equal(t, "completed", captured["status"])

	want := []struct{ status, currency, customer string }{
		{"completed", "MXN", ""}, {"completed", "MXN", ""}, {"completed", "USD", ""},
		{"completed", "MXN", cuID}, {"in_progress", "MXN", ""}, {"in_progress", "MXN", ""},
	}
	for i, c := range made {
		assert.Equal(t, want[i].status, c["status"], c["order_id"])
		assert.Equal(t, want[i].currency, c["currency"], c["order_id"])
		assert.Equal(t, c, requireOK(t, env.get("/charges/"+c["id"].(string)), http.StatusOK), "GET answers what POST did")
		if want[i].customer != "" {
			assert.Equal(t, want[i].customer, c["customer_id"])
		} else {
			assert.Nil(t, c["customer_id"])
		}
	}
	assert.Equal(t, map[string]any{"cart": "7"}, made[0]["metadata"])
	assert.NotNil(t, made[2]["exchange_rate"], "a USD charge carries its exchange rate")
	assert.Equal(t, made[0]["creation_date"], made[0]["operation_date"])

	for _, o := range []string{"s-1", "i-1", "u-1", "c-1", "st-1", "b-1", "r-1", "p-1"} {
		assert.Len(t, requireList(t, env.get("/charges?order_id="+o)), 1, o)
	}
	evs := env.s.Events(env.m.ID)
	byID := map[string]openpay.Transaction{}
	for _, ev := range evs {
		if ev.Transaction.ID != "" && ev.Transaction.OrderID != "r-1" {
			if _, seen := byID[ev.Transaction.ID]; !seen {
				byID[ev.Transaction.ID] = ev.Transaction
			}
		}
	}
	for _, c := range made[:4] {
		ev, ok := byID[c["id"].(string)]
		require.True(t, ok, "an event of %s", c["order_id"])
		assert.Equal(t, c["order_id"], ev.OrderID)
		assert.Equal(t, c["description"], ev.Description)
		assert.Equal(t, openpay.TransactionStatusCompleted, ev.Status)
	}
	balance, _, err := env.s.Balances(env.m.ID)
	require.NoError(t, err)
	// 100 + 50.25 + 7 + 80 in MXN, and the USD charge at the server's rate.
	usd := made[2]["exchange_rate"].(map[string]any)["value"].(float64)
	got, _ := strconv.ParseFloat(balance.String(), 64)
	assert.InDelta(t, 237.25+10*usd, got, 0.005)
}

// wireOf returns the record's whole wire form (tx.wireTo).
func wireOf(t *tx) (w openpay.Transaction) {
	t.wireTo(&w)
	return w
}

// TestChargeMembersRequiredAsBefore: a member missing, null or blank is
// refused with the same error, in the same order, now that a member
// decoded to a value is not looked up again (Checker.RequiredUnlessGiven).
func TestChargeMembersRequiredAsBefore(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cardID := requireOK(t, env.post("/cards", validCard("4111111111111111")), env.created())["id"].(string)
	for _, c := range []struct {
		body map[string]any
		desc string
	}{
		{map[string]any{"description": "d"}, "The field 'amount' is required"},
		{map[string]any{"amount": nil, "description": "d"}, "The field 'amount' is required"},
		{map[string]any{"amount": "10.00"}, "The field 'description' is required"},
		{map[string]any{"amount": "10.00", "description": nil}, "The field 'description' is required"},
		{map[string]any{"amount": "10.00", "description": ""}, "The field 'description' is required and cannot be empty"},
		{map[string]any{"amount": "10.00", "description": "d", "source_id": nil, "order_id": ""}, "The field 'source_id' is required"},
		{map[string]any{}, "The field 'amount' is required"},
		{map[string]any{"amount": "10.00", "description": "d", "source_id": nil}, "The field 'source_id' is required"},
		{map[string]any{"amount": "10.00", "description": "d", "source_id": ""}, "The field 'source_id' is required and cannot be empty"},
		{map[string]any{"amount": "10.00", "description": "d", "order_id": ""}, "The field 'order_id' is required and cannot be empty"},
		{map[string]any{"amount": "10.00", "description": "d", "order_id": "  "}, "The field 'order_id' is required and cannot be empty"},
		{map[string]any{"amount": "10.00", "description": " ", "order_id": "  "}, "The field 'description' is required and cannot be empty"},
	} {
		body := map[string]any{"method": "card", "source_id": cardID}
		for k, v := range c.body {
			body[k] = v
		}
		r := env.post("/charges", body)
		assert.Equal(t, c.desc, requireError(t, r, int(openpay.ErrBadRequest)), "%v", c.body)
	}
	assert.Empty(t, requireList(t, env.get("/charges")), "no refused request made a charge")
}
