package openpay

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Amount is an exact amount of money. The gateway takes amounts as JSON
// numbers with at most two decimal places; floats cannot represent most such
// values exactly, which is the source of the gateway's "bad precision"
// rejections, so the SDK never uses them.
//
// The zero value is an amount of zero and is omitted from optional request
// fields. Build amounts with [NewAmount], [MustAmount] or [AmountFromCents].
//
// Amount owns its JSON encoding: it never reads or changes the process-wide
// settings of the decimal library, so it cannot disturb the rest of a
// program that also uses that library.
type Amount struct {
	d decimal.Decimal
}

// ErrAmountPrecision is returned (wrapped) when an amount has more than two
// decimal places, either when it is built or when it is sent.
var ErrAmountPrecision = errors.New("openpay: amount has more than two decimal places")

// ErrInvalidAmount is returned (wrapped) by [NewAmount] and [MustAmount]
// for text that is not a plain decimal amount, and, before anything is
// sent, by a call that moves money given an amount that cannot: zero or
// less for a charge, payout, transfer or fee, less than zero for a refund
// or a capture (where zero means all of it).
var ErrInvalidAmount = errors.New("openpay: invalid amount")

// NewAmount parses an amount written as a plain decimal: digits, optionally
// a leading '-' and a '.' followed by one or two decimals, as in "250",
// "250.5", "250.50" or "-10.25". It is meant for text a person typed, so it
// refuses every other way of writing a number rather than guess at it, with
// an error wrapping [ErrInvalidAmount]: exponents ("1e3"), thousands
// separators ("1,000"), decimal commas ("250,50"), spaces, a '+' sign, a
// point without digits on both sides (".5", "5.") and anything else that is
// not a digit. Trim spaces and remove separators first if your form allows
// them. More than two decimals are refused with an error wrapping
// [ErrAmountPrecision] rather than rounded, since silently rounding money is
// how cents go missing; this includes trailing zeros, as "1.000" is a
// thousand where a point separates thousands (Colombia).
//
// A negative amount parses (a difference, a balance), but no request that
// moves money takes one: such a call fails before sending, with an error
// wrapping [ErrInvalidAmount].
//
// Amounts decoded from the gateway's JSON ([Amount.UnmarshalJSON]) and
// [Amount.UnmarshalText] read any form of number, since they read what a
// program wrote rather than what a person typed.
func NewAmount(s string) (Amount, error) {
	why, decimals := plainDecimal(s)
	if why != "" {
		// The text is not echoed: a mistaken argument could be a card
		// number.
		return Amount{}, fmt.Errorf("%w (%s): write digits, with an optional leading '-' and '.', as in 250 or 250.50", ErrInvalidAmount, why)
	}
	if decimals > 2 {
		return Amount{}, fmt.Errorf("%w: %d written", ErrAmountPrecision, decimals)
	}
	d, err := parseDecimal(s)
	if err != nil {
		return Amount{}, fmt.Errorf("%w (%s)", ErrInvalidAmount, err)
	}
	return Amount{d: d}, nil
}

// plainDecimal says what keeps s from being a plain decimal
// (-?[0-9]+(\.[0-9]+)?), or "" when nothing does, and how many decimals it
// has.
func plainDecimal(s string) (why string, decimals int) {
	if s == "" {
		return "empty", 0
	}
	i := 0
	if s[0] == '-' {
		i = 1
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	units := digits()
	if i < len(s) && s[i] == '.' {
		i++
		decimals = digits()
		if units == 0 || decimals == 0 {
			return "a decimal point needs digits on both sides", 0
		}
	} else if units == 0 && i == len(s) {
		return "no digits", 0
	}
	if i == len(s) {
		return "", decimals
	}
	switch c := s[i]; {
	case c == 'e' || c == 'E':
		return "exponent", 0
	case c == ',' || c == '.' || c == '_' || c == '\'':
		return "separator", 0
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		return "space", 0
	case c == '+':
		return "'+' sign", 0
	default:
		return "not a digit", 0
	}
}

// MustAmount is like [NewAmount] but panics on a malformed amount. It is
// meant for constants in code and tests, where the literal is known good;
// parse text from users with NewAmount.
func MustAmount(s string) Amount {
	a, err := NewAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}

// AmountFromCents returns the amount of the given number of cents (hundredths
// of the currency unit): AmountFromCents(12550) is 125.50.
func AmountFromCents(cents int64) Amount {
	return Amount{d: decimal.New(cents, -2)}
}

// AmountFromDecimal wraps d, refusing more than two decimal places.
func AmountFromDecimal(d decimal.Decimal) (Amount, error) {
	a := Amount{d: d}
	if err := a.checkPrecision(); err != nil {
		return Amount{}, err
	}
	return a, nil
}

// Decimal returns the exact value.
func (a Amount) Decimal() decimal.Decimal { return a.d }

// Cents returns the amount in cents. ok is false when the amount has more than
// two decimal places or does not fit in an int64.
func (a Amount) Cents() (cents int64, ok bool) {
	c := a.d.Shift(2)
	if !c.IsInteger() || c.Cmp(maxInt64) > 0 || c.Cmp(minInt64) < 0 {
		return 0, false
	}
	return c.IntPart(), true
}

var (
	maxInt64 = decimal.NewFromInt(1<<63 - 1)
	minInt64 = decimal.NewFromInt(-1 << 63)
)

// String formats the amount with exactly two decimals, as in "250.00". An
// amount with more precision keeps all its digits.
func (a Amount) String() string {
	if a.d.Exponent() >= -2 {
		return a.d.StringFixed(2)
	}
	return a.d.String()
}

// IsZero reports whether the amount is zero. It lets `omitzero` leave an
// unset optional amount out of a request.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsPositive reports whether the amount is greater than zero.
func (a Amount) IsPositive() bool { return a.d.IsPositive() }

// HasValidPrecision reports whether the amount has at most two decimal places.
func (a Amount) HasValidPrecision() bool { return a.checkPrecision() == nil }

// Cmp compares a and b: -1 if a < b, 0 if equal, +1 if a > b.
func (a Amount) Cmp(b Amount) int { return a.d.Cmp(b.d) }

// Equal reports whether a and b are the same amount (100 equals 100.00).
func (a Amount) Equal(b Amount) bool { return a.d.Equal(b.d) }

// Add returns a + b.
func (a Amount) Add(b Amount) Amount { return Amount{d: a.d.Add(b.d)} }

// Sub returns a - b.
func (a Amount) Sub(b Amount) Amount { return Amount{d: a.d.Sub(b.d)} }

// Neg returns -a.
func (a Amount) Neg() Amount { return Amount{d: a.d.Neg()} }

func (a Amount) checkPrecision() error {
	if !a.d.Equal(a.d.Truncate(2)) {
		return fmt.Errorf("%w: %s", ErrAmountPrecision, a.d.String())
	}
	return nil
}

// MarshalJSON writes the amount as a JSON number. It fails, wrapping
// [ErrAmountPrecision], when the amount has more than two decimal places, so
// that an amount computed with more precision is never sent rounded.
func (a Amount) MarshalJSON() ([]byte, error) { return a.AppendText(nil) }

// AppendText appends the amount to b as MarshalJSON writes it and returns
// the extended slice: a JSON number that always has a decimal point, without
// trailing zeros after the first decimal (250.5, 100.0, 0.75). The gateway
// writes its amounts so (100.0 in the documented answers), and a typed
// client reads a number without a point as an integer; the gateway reads
// both forms in requests. It fails like MarshalJSON, wrapping
// [ErrAmountPrecision], when the amount has more than two decimal places.
// It formats the common case, a value of at most 18 digits with at most two
// decimal places, without math/big, so that encoders writing many amounts
// allocate nothing for them.
func (a Amount) AppendText(b []byte) ([]byte, error) { return a.appendNumber(b, true) }

// appendNumber appends the amount as a plain decimal without trailing zeros
// in the decimals, with ".0" after a whole amount when point is true.
func (a Amount) appendNumber(b []byte, point bool) ([]byte, error) {
	exp := a.d.Exponent()
	var digits []byte // the coefficient's decimal digits, without sign
	neg := a.d.Sign() < 0
	var scratch [20]byte
	if exp >= -2 && a.d.NumDigits() <= 18 {
		c := a.d.CoefficientInt64()
		if c < 0 {
			c = -c // at most 18 digits: no overflow
		}
		digits = strconv.AppendInt(scratch[:0], c, 10)
	} else {
		if err := a.checkPrecision(); err != nil {
			return b, err
		}
		digits = new(big.Int).Abs(a.d.Coefficient()).Append(scratch[:0], 10)
	}
	if neg {
		b = append(b, '-')
	}
	if exp >= 0 {
		b = append(b, digits...)
		if len(digits) > 1 || digits[0] != '0' {
			for range exp {
				b = append(b, '0')
			}
		}
		if point {
			b = append(b, '.', '0')
		}
		return b, nil
	}
	// exp < 0: digits[:len(digits)+exp] are the units, the rest the
	// decimals, of which the trailing zeros are dropped.
	units := len(digits) + int(exp)
	frac := digits[max(units, 0):]
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if units > 0 {
		b = append(b, digits[:units]...)
	} else {
		b = append(b, '0')
	}
	if len(frac) > 0 {
		b = append(b, '.')
		for ; units < 0; units++ {
			b = append(b, '0')
		}
		b = append(b, frac...)
	} else if point {
		b = append(b, '.', '0')
	}
	return b, nil
}

// UnmarshalJSON reads a JSON number, or a string holding one (some responses
// quote numbers). It keeps the value exactly as sent, whatever its precision,
// so that nothing the gateway says is lost; checking the precision of a
// request is the receiver's job. null leaves the amount unchanged.
func (a *Amount) UnmarshalJSON(b []byte) error {
	d, ok, err := decodeJSONDecimal(b)
	if err != nil {
		return fmt.Errorf("openpay: amount: %w", err)
	}
	if ok {
		a.d = d
	}
	return nil
}

// MarshalText formats the amount for query strings (for example amount
// filters): as MarshalJSON does, but a whole amount without a decimal point
// (1500, 250.5). It applies the same precision rule as MarshalJSON.
func (a Amount) MarshalText() ([]byte, error) { return a.appendNumber(nil, false) }

// UnmarshalText parses a decimal string exactly. Unlike [NewAmount] it
// reads any form of number the JSON decoding reads ("1e3", "+5", ".5"),
// whatever its precision, as decoders do: it reads what a program wrote.
func (a *Amount) UnmarshalText(b []byte) error {
	d, err := parseDecimal(string(b))
	if err != nil {
		return fmt.Errorf("openpay: amount %.40q is not a decimal number", b)
	}
	a.d = d
	return nil
}

// Decimal is an exact decimal number of any precision, used where the gateway
// sends numbers that are not money with two decimals: exchange rates, reward
// points, and the quantities and tax rates of electronic invoices. Like
// [Amount] it owns its JSON encoding (a JSON number) and accepts a number or a
// quoted number on input.
type Decimal struct {
	d decimal.Decimal
}

// NewDecimal parses a decimal string exactly.
func NewDecimal(s string) (Decimal, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return Decimal{}, fmt.Errorf("openpay: %.40q is not a decimal number", s)
	}
	return Decimal{d: d}, nil
}

// MustDecimal is like [NewDecimal] but panics on malformed input; for
// literals known to be good.
func MustDecimal(s string) Decimal {
	d, err := NewDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// DecimalOf wraps a decimal.Decimal.
func DecimalOf(d decimal.Decimal) Decimal { return Decimal{d: d} }

// Decimal returns the exact value.
func (x Decimal) Decimal() decimal.Decimal { return x.d }

// String formats the number without exponent and without trailing zeros.
func (x Decimal) String() string { return x.d.String() }

// IsZero reports whether the number is zero.
func (x Decimal) IsZero() bool { return x.d.IsZero() }

// Equal reports whether x and y are the same number.
func (x Decimal) Equal(y Decimal) bool { return x.d.Equal(y.d) }

// MarshalJSON writes the number as a JSON number.
func (x Decimal) MarshalJSON() ([]byte, error) { return []byte(x.d.String()), nil }

// UnmarshalJSON reads a JSON number or a quoted number; null leaves x unchanged.
func (x *Decimal) UnmarshalJSON(b []byte) error {
	d, ok, err := decodeJSONDecimal(b)
	if err != nil {
		return fmt.Errorf("openpay: decimal: %w", err)
	}
	if ok {
		x.d = d
	}
	return nil
}

// decodeJSONDecimal reads a JSON number or a JSON string holding a number.
// ok is false for null.
func decodeJSONDecimal(b []byte) (d decimal.Decimal, ok bool, err error) {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return decimal.Decimal{}, false, nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = bytes.TrimSpace(b[1 : len(b)-1])
	}
	d, err = parseDecimal(string(b))
	if err != nil {
		return decimal.Decimal{}, false, err
	}
	return d, true, nil
}

// maxDecimalDigits bounds the integer and the fractional digits of parsed
// numbers: "1e999999999" is a short string whose plain form has a billion
// digits, and formatting it would exhaust memory.
const maxDecimalDigits = 40

// parsePlainDecimal parses the common form of an amount, an optional minus
// and at most 18 digits with an optional point between digits ("100.50",
// "-3", "0.5"), to the value decimal.NewFromString gives it, without
// math/big's parsing and without checking the bounds parseDecimal checks
// (18 digits are within them). It reports false for any other form, which
// parseDecimal reads the long way.
func parsePlainDecimal(s string) (decimal.Decimal, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	var c int64
	digits, point := 0, -1
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= '0' && ch <= '9':
			c = c*10 + int64(ch-'0')
			digits++
		case ch == '.' && point < 0 && i > 0 && i < len(s)-1:
			point = i
		default:
			return decimal.Decimal{}, false
		}
	}
	if digits == 0 || digits > 18 {
		return decimal.Decimal{}, false
	}
	exp := 0
	if point >= 0 {
		exp = point + 1 - len(s)
	}
	if neg {
		c = -c
	}
	return decimal.New(c, int32(exp)), true
}

// parseDecimal parses a decimal number of bounded size: at most
// maxDecimalDigits digits before and after the point, so that its plain
// form always parses back.
func parseDecimal(s string) (decimal.Decimal, error) {
	if d, ok := parsePlainDecimal(s); ok {
		return d, nil
	}
	if len(s) == 0 || len(s) > 2*maxDecimalDigits+8 {
		return decimal.Decimal{}, errors.New("not a number")
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, errors.New("not a number")
	}
	exp := int(d.Exponent())
	intDigits := len(strings.TrimPrefix(d.Coefficient().String(), "-")) + exp
	if intDigits > maxDecimalDigits || -exp > maxDecimalDigits {
		return decimal.Decimal{}, errors.New("number out of range")
	}
	return d, nil
}

// quotedAmount is an Amount the gateway takes as a JSON string holding a
// plain decimal ("1900", "7185.79"): a Colombian iva. The fields are
// Amounts; the request encodings write them through quotedAmount. It reads
// a string or a number, as Amount does.
type quotedAmount Amount

// MarshalJSON writes the amount as a string holding it as MarshalText
// does, failing like MarshalJSON on more than two decimal places.
func (a quotedAmount) MarshalJSON() ([]byte, error) {
	b, err := Amount(a).appendNumber([]byte{'"'}, false)
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// UnmarshalJSON reads the amount as Amount does.
func (a *quotedAmount) UnmarshalJSON(b []byte) error { return (*Amount)(a).UnmarshalJSON(b) }

// IsZero reports whether the amount is zero, for omitzero.
func (a quotedAmount) IsZero() bool { return Amount(a).IsZero() }
