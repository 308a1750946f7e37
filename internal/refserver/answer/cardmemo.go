package answer

import (
	"slices"
	"sync/atomic"

	"github.com/openpay-go/openpay"
)

// The card inside a transaction is most of a card charge's answer, and
// charges share their card: the charges to a stored card, and those a
// merchant makes with the same card data (the server keeps one wire form
// of each, see the core's card.charged). appendTransactionCard writes a
// card equal, field by field, to the last one it kept by copying the JSON
// it kept with it; any other card is written afresh. The JSON depends on
// the card's value only, so the copy is the bytes the encoder would write.
//
// A card is kept when it is written twice in a row (the same pointer), so
// that answers which go from one card to another allocate nothing more
// than they did; a kept entry is never changed, and is replaced whole.

// cardMemo is a card and the JSON appendCardForTransactionCard writes for
// it. address holds *card.Address, compared by value too.
type cardMemo struct {
	card    openpay.Card
	address openpay.Address
	json    []byte
}

var (
	// keptCard is the card whose JSON is kept (nil until one is).
	keptCard atomic.Pointer[cardMemo]
	// missedCard is the last card written afresh.
	missedCard atomic.Pointer[openpay.Card]
)

// appendTransactionCard appends the JSON of v, a card inside a transaction
// (appendCardForTransactionCard), copied from the kept card's when v equals it.
func appendTransactionCard(b []byte, v *openpay.Card) ([]byte, error) {
	if m := keptCard.Load(); m != nil && m.card == *v && (v.Address == nil || *v.Address == m.address) {
		return append(b, m.json...), nil
	}
	start := len(b)
	b, err := appendCardForTransactionCard(b, v)
	if err == nil && missedCard.Swap(v) == v {
		m := &cardMemo{card: *v, json: slices.Clone(b[start:])}
		if v.Address != nil {
			m.address = *v.Address
		}
		keptCard.Store(m)
	}
	return b, err
}
