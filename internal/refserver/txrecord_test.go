package refserver

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openpay-go/openpay"
)

// TestCompactRecordKeepsTheWireForm stores wire forms of every shape in
// the compact record and reads them back: the same JSON, the same dates in
// the same zones, whether the values fit the compact fields (cents, dates
// 1678 to 2261, known zones) or go to the rare part (an amount with more
// than two decimals, a date before 1678, a status never seen).
func TestCompactRecordKeepsTheWireForm(t *testing.T) {
	t.Parallel()
	mexicoCity, err := time.LoadLocation("America/Mexico_City")
	require.NoError(t, err)
	var inexact openpay.Amount
	require.NoError(t, json.Unmarshal([]byte(`12.345`), &inexact))
	now := time.Date(2026, 11, 28, 10, 11, 12, 123456789, mexicoCity)
	card := &openpay.Card{ID: "kxxx", CardNumber: "411111XXXXXX1111", Brand: openpay.CardBrand("visa")}
	plain := openpay.Transaction{
		ID: "tr2rqbj4pxkdqe0bnv3v", Amount: openpay.MustAmount("100.50"), Authorization: "801585", Card: card,
		CreationDate: now, OperationDate: now, Currency: openpay.CurrencyMXN, Description: "Order 1", OrderID: "ord-1",
		Method: openpay.TransactionMethodCard, OperationType: openpay.OperationTypeIn,
		Status: openpay.TransactionStatusCompleted, TransactionType: openpay.TransactionTypeCharge,
	}
	full := plain
	full.CustomerID, full.Conciliated, full.CLABE = "cu1", true, "646180000000000001"
	full.DueDate = now.Add(72 * time.Hour).In(time.FixedZone("", -5*3600))
	full.ErrorCode, full.ErrorMessage = openpay.ErrCardDeclined, "The card was declined"
	full.Metadata = openpay.Metadata{"k": "v"}
	full.PaymentMethod = &openpay.PaymentInstructions{Type: openpay.PaymentInstructionsTypeStore, Reference: "000020TR01"}
	full.Fee = &openpay.TransactionFee{Amount: openpay.MustAmount("8"), Tax: openpay.MustAmount("1.28"), Currency: openpay.CurrencyMXN}
	full.ExchangeRate = &openpay.ExchangeRate{From: "USD", To: "MXN", Value: openpay.MustDecimal("17.25"), Date: openpay.DateOf(now)}
	refund := plain
	refund.TransactionType = openpay.TransactionTypeRefund
	full.Refund = &refund
	odd := plain
	odd.Amount = inexact
	odd.CreationDate = time.Date(1500, 1, 2, 3, 4, 5, 6, time.UTC)
	odd.OperationDate = time.Date(2300, 1, 2, 3, 4, 5, 6, time.FixedZone("", 3600))
	odd.Status = "some_status_never_seen"
	parsed := plain
	require.NoError(t, json.Unmarshal([]byte(`"2026-11-28T10:11:12-06:00"`), &parsed.CreationDate))
	unset := openpay.Transaction{ID: "x", TransactionType: openpay.TransactionTypeFee}
	// Two zones of one name and different offsets stay apart.
	sameName := plain
	sameName.CreationDate = now.In(time.FixedZone("XT", 3600))
	sameName.OperationDate = now.In(time.FixedZone("XT", 7200))

	for name, w := range map[string]openpay.Transaction{"plain": plain, "full": full, "odd": odd, "parsed": parsed, "unset": unset, "same-name": sameName} {
		t.Run(name, func(t *testing.T) {
			got := wireOf(newTx(w.ID, w))
			assert.True(t, w.Amount.Decimal().Equal(got.Amount.Decimal()), "%s read back as %s", w.Amount, got.Amount)
			w.Amount, got.Amount = openpay.Amount{}, openpay.Amount{} // 12.345 has no JSON
			want, err := json.Marshal(w)
			require.NoError(t, err)
			have, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(have))
			for _, d := range [][2]time.Time{{w.CreationDate, got.CreationDate}, {w.OperationDate, got.OperationDate}, {w.DueDate, got.DueDate}} {
				assert.True(t, d[0].Equal(d[1]), "%v read back as %v", d[0], d[1])
				wantZone, wantOffset := d[0].Zone()
				haveZone, haveOffset := d[1].Zone()
				assert.Equal(t, wantZone, haveZone)
				assert.Equal(t, wantOffset, haveOffset)
				assert.Equal(t, d[0].Location().String(), d[1].Location().String())
			}
		})
	}

	// A plain card charge needs nothing of the rare part; the odd one
	// keeps there what the compact fields cannot hold.
	assert.Nil(t, newTx(plain.ID, plain).x)
	assert.NotNil(t, newTx(odd.ID, odd).x)
}

// TestCompactRecordCredited follows what a charge credited through the
// changes of its amount: the amount itself, a different amount, an amount
// changed after the credit (which keeps what was credited).
func TestCompactRecordCredited(t *testing.T) {
	t.Parallel()
	r := newTx("a", openpay.Transaction{ID: "a", Amount: openpay.MustAmount("100")})
	assert.True(t, r.credited().IsZero())
	r.setCredited(openpay.MustAmount("100.00"))
	assert.Equal(t, "100.00", r.credited().String())
	assert.Nil(t, r.later, "a credit of the amount itself takes no room")
	r.putAmount(openpay.MustAmount("60"))
	assert.Equal(t, "100.00", r.credited().String(), "the amount changed, not what was credited")
	assert.Equal(t, "60.00", r.amount().String())
	r.setCredited(openpay.MustAmount("1725.50"))
	assert.Equal(t, "1725.50", r.credited().String())
	r.setCredited(openpay.Amount{})
	assert.True(t, r.credited().IsZero())
}

// TestIsZeroTransactionSeesEveryField: isZeroTransaction names every
// field of the wire form, so that a field added to openpay.Transaction is
// not dropped from the rare part (which is nil when it looks empty).
func TestIsZeroTransactionSeesEveryField(t *testing.T) {
	t.Parallel()
	assert.True(t, isZeroTransaction(&openpay.Transaction{}))
	typ := reflect.TypeFor[openpay.Transaction]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		var w openpay.Transaction
		v := reflect.ValueOf(&w).Elem().Field(i)
		switch {
		case f.Type == reflect.TypeFor[time.Time]():
			v.Set(reflect.ValueOf(time.Now()))
		case f.Type == reflect.TypeFor[openpay.Amount]():
			v.Set(reflect.ValueOf(openpay.MustAmount("1")))
		case f.Type.Kind() == reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
		case f.Type.Kind() == reflect.String:
			v.SetString("x")
		case f.Type.Kind() == reflect.Bool:
			v.SetBool(true)
		case f.Type.Kind() == reflect.Int:
			v.SetInt(1)
		case f.Type.Kind() == reflect.Map:
			m := reflect.MakeMap(f.Type)
			m.SetMapIndex(reflect.New(f.Type.Key()).Elem(), reflect.New(f.Type.Elem()).Elem())
			v.Set(m)
		default:
			t.Fatalf("field %s of type %s: teach this test to set it", f.Name, f.Type)
		}
		assert.False(t, isZeroTransaction(&w), "isZeroTransaction does not look at %s", f.Name)
	}
}
