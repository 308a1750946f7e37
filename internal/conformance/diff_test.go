package conformance_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay/internal/conformance"
	"github.com/openpay-go/openpay/openpaytest"
)

// alter changes the recorded answer of the first exchange of operation op
// that pick accepts.
func alter(t *testing.T, c *conformance.Cassette, op string, pick func(map[string]any) bool, change func(e *conformance.Exchange, body map[string]any)) {
	t.Helper()
	for i := range c.Exchanges {
		e := &c.Exchanges[i]
		if e.Operation != op {
			continue
		}
		var body map[string]any
		d := json.NewDecoder(strings.NewReader(string(e.Response)))
		d.UseNumber()
		require.NoError(t, d.Decode(&body))
		if pick != nil && !pick(body) {
			continue
		}
		change(e, body)
		b, err := json.Marshal(body)
		require.NoError(t, err)
		e.Response = b
		return
	}
	t.Fatalf("no exchange of %s to alter", op)
}

func replay(t *testing.T, c *conformance.Cassette, allow *conformance.Allowlist) *conformance.Report {
	t.Helper()
	target := openpaytest.NewServer(t)
	rep, err := conformance.Replay(context.Background(), c, conformance.Target{URL: target.URL, MerchantID: target.MerchantID,
		PrivateKey: target.PrivateKey, PublicKey: target.PublicKey}, allow)
	require.NoError(t, err)
	return rep
}

// firstDifference returns the report of op, failing when it agrees.
func firstDifference(t *testing.T, rep *conformance.Report, op string) conformance.Difference {
	t.Helper()
	var text strings.Builder
	require.NoError(t, rep.WriteText(&text))
	assert.False(t, rep.OK(), text.String())
	for _, o := range rep.Operations {
		if o.Operation == op {
			require.False(t, o.Agree, text.String())
			require.NotNil(t, o.First)
			assert.Regexp(t, `(?m)^DIFFER\s+`+op+`\s`, text.String())
			assert.Contains(t, text.String(), o.First.Path)
			return *o.First
		}
		assert.True(t, o.Agree, "only %s was altered: %s", op, text.String())
	}
	t.Fatalf("no report of %s", op)
	return conformance.Difference{}
}

func isError(code int64) func(map[string]any) bool {
	return func(b map[string]any) bool {
		n, ok := b["error_code"].(json.Number)
		return ok && n.String() == strconv.FormatInt(code, 10)
	}
}

// TestEveryKindOfDifferenceIsFound alters one recorded answer at a time:
// each alteration is reported at its operation and JSON path.
func TestEveryKindOfDifferenceIsFound(t *testing.T) {
	recorded, err := conformance.ReadCassette(recordFlow(t))
	require.NoError(t, err)
	fresh := func() *conformance.Cassette {
		c := *recorded
		c.Exchanges = append([]conformance.Exchange(nil), recorded.Exchanges...)
		return &c
	}
	tests := []struct {
		name, op string
		pick     func(map[string]any) bool
		change   func(e *conformance.Exchange, b map[string]any)
		path     string
		kind     string
	}{
		{"renamed key", "createCustomer", nil, func(_ *conformance.Exchange, b map[string]any) {
			b["e_mail"] = b["email"]
			delete(b, "email")
		}, "$.e_mail", "missing key"},
		{"removed null key", "createCustomer", nil, func(_ *conformance.Exchange, b map[string]any) { delete(b, "external_id") }, "$.external_id", "extra key"},
		{"type of an amount", "createCharge", nil, func(_ *conformance.Exchange, b map[string]any) { b["amount"] = "250.5" }, "$.amount", "type"},
		{"null made a string", "createCustomer", nil, func(_ *conformance.Exchange, b map[string]any) { b["phone_number"] = "5512345678" }, "$.phone_number", "type"},
		{"status", "createCustomer", nil, func(e *conformance.Exchange, _ map[string]any) { e.Status = 201 }, conformance.StatusPath, "status"},
		{"error code", "createCharge", isError(3004), func(_ *conformance.Exchange, b map[string]any) { b["error_code"] = json.Number("3001") }, "$.error_code", "value"},
		{"error category", "getCustomer", nil, func(_ *conformance.Exchange, b map[string]any) { b["category"] = "gateway" }, "$.category", "value"},
		{"enum value", "createCustomerCharge", nil, func(_ *conformance.Exchange, b map[string]any) { b["status"] = "in_progress" }, "$.status", "value"},
		{"nested enum value", "createCharge", hasCardBrand, func(_ *conformance.Exchange, b map[string]any) {
			b["card"].(map[string]any)["brand"] = "visa"
		}, "$.card.brand", "value"},
		{"amount", "refundCharge", nil, func(_ *conformance.Exchange, b map[string]any) { b["amount"] = json.Number("250.49") }, "$.amount", "value"},
		{"shape of an authorization", "createCustomerCharge", nil, func(_ *conformance.Exchange, b map[string]any) { b["authorization"] = "A1" }, "$.authorization", "shape"},
		{"shape of a time", "createCustomer", nil, func(_ *conformance.Exchange, b map[string]any) { b["creation_date"] = "yesterday" }, "$.creation_date", "shape"},
		{"array length", "listCharges", nil, nil, "$", "length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fresh()
			if tt.change == nil {
				// A list answer lost an element: the list is an array,
				// handled apart.
				for i := range c.Exchanges {
					if c.Exchanges[i].Operation == tt.op {
						var list []json.RawMessage
						require.NoError(t, json.Unmarshal(c.Exchanges[i].Response, &list))
						b, _ := json.Marshal(list[1:])
						c.Exchanges[i].Response = b
						break
					}
				}
			} else {
				alter(t, c, tt.op, tt.pick, tt.change)
			}
			d := firstDifference(t, replay(t, c, nil), tt.op)
			assert.Equal(t, tt.path, d.Path)
			assert.Equal(t, tt.kind, d.Kind)
			assert.Equal(t, tt.op, d.Operation)
		})
	}
}

func hasCardBrand(b map[string]any) bool {
	card, ok := b["card"].(map[string]any)
	return ok && card["brand"] == "mastercard"
}

// TestMappedIDsAreComparedExactly: an id the replay mapped must come back
// as the target's id for the same object, not merely as an id.
func TestMappedIDsAreComparedExactly(t *testing.T) {
	c, err := conformance.ReadCassette(recordFlow(t))
	require.NoError(t, err)
	var customers []string
	for _, e := range c.Exchanges {
		if e.Operation == "createCustomer" {
			var b struct{ ID string }
			require.NoError(t, json.Unmarshal(e.Response, &b))
			customers = append(customers, b.ID)
		}
	}
	require.Len(t, customers, 2)
	// The top-up charge was the buyer's (the first customer); say it was
	// the seller's.
	alter(t, c, "createCustomerCharge", nil, func(_ *conformance.Exchange, b map[string]any) {
		require.Equal(t, customers[0], b["customer_id"])
		b["customer_id"] = customers[1]
	})
	d := firstDifference(t, replay(t, c, nil), "createCustomerCharge")
	assert.Equal(t, "$.customer_id", d.Path)
	assert.Equal(t, "value", d.Kind)
}

// TestShapeOnlyValuesMayDiffer: values drawn by the gateway (ids,
// authorization numbers, times, references) agree when only the value
// differs.
func TestShapeOnlyValuesMayDiffer(t *testing.T) {
	c, err := conformance.ReadCassette(recordFlow(t))
	require.NoError(t, err)
	alter(t, c, "createCustomerCharge", nil, func(_ *conformance.Exchange, b map[string]any) {
		b["authorization"] = "123456"
		b["operation_date"] = "2020-02-02T10:00:00-06:00"
		b["description"] = "free text is compared by type"
	})
	alter(t, c, "createCustomer", nil, func(_ *conformance.Exchange, b map[string]any) {
		b["clabe"] = "646180000000000000"
		b["store"].(map[string]any)["barcode_url"] = "https://sandbox-api.openpay.mx/barcode/OPENPAY1?x=1"
	})
	rep := replay(t, c, nil)
	var text strings.Builder
	require.NoError(t, rep.WriteText(&text))
	assert.True(t, rep.OK(), text.String())
}

// TestAllowlistExcuses: a rule excuses its operation's path and what is
// under it; others are still reported.
func TestAllowlistExcuses(t *testing.T) {
	c, err := conformance.ReadCassette(recordFlow(t))
	require.NoError(t, err)
	alter(t, c, "createCharge", hasCardBrand, func(_ *conformance.Exchange, b map[string]any) {
		b["card"].(map[string]any)["brand"] = "visa"
		b["card"].(map[string]any)["bank_name"] = "OTHER"
	})
	allow, err := conformance.ParseAllowlist(strings.NewReader("# the sandbox names this card otherwise\n\ncreateCharge $.card\n"))
	require.NoError(t, err)
	rep := replay(t, c, allow)
	assert.True(t, rep.OK())
	assert.Equal(t, 2, rep.Excused)

	allow, err = conformance.ParseAllowlist(strings.NewReader("createCharge $.card.bank_name\n* $.card.bank_code\n"))
	require.NoError(t, err)
	d := firstDifference(t, replay(t, c, allow), "createCharge")
	assert.Equal(t, "$.card.brand", d.Path)

	_, err = conformance.ParseAllowlist(strings.NewReader("createCharge card.brand\n"))
	assert.Error(t, err, "a path starts with $")
}
