package answer

import (
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoCard is a card as a charge shows it, with an address.
func memoCard(holder string) *openpay.Card {
	return &openpay.Card{Address: &openpay.Address{City: "Querétaro", CountryCode: "MX", Line1: "Av 5", PostalCode: "76000", State: "QRO"},
		AllowsCharges: true, BankCode: "002", BankName: "BANAMEX", Brand: openpay.CardBrandVisa, CardNumber: "411111XXXXXX1111",
		ExpirationMonth: "12", ExpirationYear: "30", HolderName: holder, Type: openpay.CardTypeDebit}
}

// fresh is the card's JSON as the generated encoder writes it.
func fresh(t *testing.T, v *openpay.Card) string {
	t.Helper()
	b, err := appendCardForTransactionCard(nil, v)
	require.NoError(t, err)
	return string(b)
}

// memo is the card's JSON through the memo.
func memo(t *testing.T, v *openpay.Card) string {
	t.Helper()
	b, err := appendTransactionCard([]byte("x"), v)
	require.NoError(t, err)
	return string(b[1:])
}

// TestTransactionCardMemo: the card inside a transaction written through
// the memo is always the encoder's bytes for the card's value: the same
// card again, an equal copy, the card changed in place (a field, its
// address), another card, and back; answers that go from one card to
// another allocate nothing more than the encoder does; a card written
// twice in a row is kept, and then copied without being encoded.
func TestTransactionCardMemo(t *testing.T) {
	a := memoCard("Juan Perez")
	for range 3 {
		assert.Equal(t, fresh(t, a), memo(t, a))
	}
	assert.Same(t, a.Address, keptCard.Load().card.Address, "a card written twice in a row is kept")
	copyOfA := *a
	assert.Equal(t, fresh(t, a), memo(t, &copyOfA))
	a.HolderName = "Ana Lopez" // changed in place: never the kept bytes
	assert.Equal(t, fresh(t, a), memo(t, a))
	assert.Contains(t, memo(t, a), `"holder_name":"Ana Lopez"`)
	a.Address.City = "León"
	assert.Contains(t, memo(t, a), `"city":"León"`)
	a.Address = nil
	assert.Equal(t, fresh(t, a), memo(t, a))
	assert.Contains(t, memo(t, a), `"address":null`)
	dated := memoCard("Dated")
	dated.ID, dated.CreationDate = "kqgykn96i7bcquwxcbmf", time.Date(2026, 3, 10, 12, 0, 0, 0, time.FixedZone("", -6*3600))
	b := memoCard("Pedro Diaz")
	for _, v := range []*openpay.Card{b, dated, b, b, dated, dated, a, b} {
		assert.Equal(t, fresh(t, v), memo(t, v))
	}

	c, d := memoCard("Carla"), memoCard("Diego")
	buf := make([]byte, 0, 4096)
	var err error
	allocs := testing.AllocsPerRun(100, func() {
		buf, err = appendTransactionCard(buf[:0], c)
		buf, err = appendTransactionCard(buf[:0], d)
	})
	require.NoError(t, err)
	assert.Zero(t, allocs, "cards one after the other are written without keeping them")
	allocs = testing.AllocsPerRun(100, func() { buf, err = appendTransactionCard(buf[:0], c) })
	assert.Zero(t, allocs, "a card kept is copied")
	assert.Equal(t, fresh(t, c), string(buf))
}

// TestTransactionCardMemoConcurrent writes shared and changing cards from
// several goroutines (run it with -race): each write is the encoder's
// bytes for the card it was given.
func TestTransactionCardMemoConcurrent(t *testing.T) {
	shared := memoCard("Shared")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			own := memoCard(string(rune('A' + g)))
			want := map[*openpay.Card]string{shared: fresh(t, shared), own: fresh(t, own)}
			for i := range 500 {
				v := shared
				if i%3 == 0 {
					v = own
				}
				if got := memo(t, v); got != want[v] {
					t.Errorf("card %s: %s, want %s", v.HolderName, got, want[v])
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestTransactionDatesRepeated: a transaction's dates equal to the one
// written before them are copied (timeMemo), and the answer is still
// encoding/json's, byte for byte: the same instant in another zone, a
// later instant, a due date equal to the operation date, and a
// transaction in a list after one with other dates.
func TestTransactionDatesRepeated(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.FixedZone("", -6*3600))
	card := memoCard("Juan Perez")
	cases := []openpay.Transaction{
		{CreationDate: at, OperationDate: at},
		{CreationDate: at, OperationDate: at.UTC()},
		{CreationDate: at, OperationDate: at.Add(time.Second)},
		{CreationDate: at, OperationDate: at.Add(1500 * time.Millisecond), DueDate: at.Add(1500 * time.Millisecond)},
		{CreationDate: at, OperationDate: at, DueDate: at, Card: card},
		{CreationDate: at.Add(time.Hour), OperationDate: at, DueDate: at.Add(time.Hour)},
	}
	for i := range cases {
		cases[i].ID, cases[i].Status, cases[i].TransactionType = "tr1", openpay.TransactionStatusCompleted, "charge"
		requireSameAnswer(t, &cases[i])
	}
	requireSameAnswer(t, cases)
	b, _, err := Append(nil, &cases[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"creation_date":"2026-03-10T12:00:00-06:00"`)
	assert.Contains(t, string(b), `"operation_date":"2026-03-10T12:00:00-06:00"`)
	b, _, err = Append(nil, &cases[1])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"operation_date":"2026-03-10T18:00:00Z"`)
}
