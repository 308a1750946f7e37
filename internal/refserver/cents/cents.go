// Package cents holds the balances of the reference server's accounts (a
// merchant's, a customer's with an account), which every charge, refund,
// payout, fee and transfer moves.
//
// Contract:
//   - A [Balance] holds an amount exactly. It keeps it in int64 cents
//     while every amount it was given has an exact value in cents (an
//     exponent from -2 to 2 and at most 15 digits, as amounts sent in
//     requests have) and no sum overflows; from the first that does not,
//     it keeps it whole, an openpay.Amount moved by decimal arithmetic.
//   - What it answers is what decimal arithmetic on openpay.Amount answers
//     for the same amounts, from the same opening balance: [Balance.Amount]
//     is equal in value and written the same (String, AppendText),
//     [Balance.Cmp] and [Balance.IsPositive] give the same order.
//     FuzzBalanceIsTheDecimalArithmetic holds it.
//   - [Move] moves an amount from one balance to another as Cmp, Sub and
//     Add would (FuzzMoveIsTheDecimalArithmetic holds it).
//   - Moving a balance in cents allocates nothing; reading it
//     ([Balance.Amount]) builds the amount through compact.AmountOfCents.
//
// The zero Balance is zero, in cents. A Balance is a value with no lock:
// its owner's lock guards it.
package cents

import (
	"math/bits"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/compact"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
)

// Balance is an account's balance (see the package's contract).
type Balance struct {
	cents int64
	// whole is the balance when it has left cents, else nil.
	whole *openpay.Amount
}

// Of returns a balance of a.
func Of(a openpay.Amount) Balance {
	if c, ok := listquery.Cents(a); ok {
		return Balance{cents: c}
	}
	return Balance{whole: &a}
}

// Amount returns the balance.
func (b Balance) Amount() openpay.Amount {
	if b.whole != nil {
		return *b.whole
	}
	return compact.AmountOfCents(b.cents)
}

// String formats the balance as openpay.Amount's String does.
func (b Balance) String() string { return b.Amount().String() }

// IsPositive reports whether the balance is above zero.
func (b Balance) IsPositive() bool {
	if b.whole != nil {
		return b.whole.IsPositive()
	}
	return b.cents > 0
}

// Cmp compares the balance with a: -1 when it is less, 0 when equal, +1
// when more.
func (b Balance) Cmp(a openpay.Amount) int {
	if c, ok := listquery.Cents(a); ok && b.whole == nil {
		switch {
		case b.cents < c:
			return -1
		case b.cents > c:
			return 1
		}
		return 0
	}
	return b.Amount().Cmp(a)
}

// Add adds a to the balance.
func (b *Balance) Add(a openpay.Amount) {
	if c, ok := listquery.Cents(a); ok && b.whole == nil {
		if sum, over := add(b.cents, c); !over {
			b.cents = sum
			return
		}
	}
	whole := b.Amount().Add(a)
	*b = Balance{whole: &whole}
}

// Sub takes a from the balance.
func (b *Balance) Sub(a openpay.Amount) {
	if c, ok := listquery.Cents(a); ok && b.whole == nil && c != -1<<63 {
		if diff, over := add(b.cents, -c); !over {
			b.cents = diff
			return
		}
	}
	whole := b.Amount().Sub(a)
	*b = Balance{whole: &whole}
}

// Move takes a from the balance from and adds it to the balance to, as
// from.Cmp(a) >= 0 then from.Sub(a) and to.Add(a) would, reading a's
// cents once; when from is short of a (Cmp < 0) it moves nothing and
// reports false.
func Move(from, to *Balance, a openpay.Amount) bool {
	if c, ok := listquery.Cents(a); ok && from.whole == nil && to.whole == nil && c != -1<<63 {
		if from.cents < c {
			return false
		}
		diff, overFrom := add(from.cents, -c)
		sum, overTo := add(to.cents, c)
		if !overFrom && !overTo {
			from.cents, to.cents = diff, sum
			return true
		}
	}
	if from.Cmp(a) < 0 {
		return false
	}
	from.Sub(a)
	to.Add(a)
	return true
}

// add returns x + y and whether the sum overflows an int64.
func add(x, y int64) (int64, bool) {
	sum, _ := bits.Add64(uint64(x), uint64(y), 0)
	s := int64(sum)
	// An overflow gives a sum of the other sign than both operands.
	return s, (x >= 0) == (y >= 0) && (s >= 0) != (x >= 0)
}
