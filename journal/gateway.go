package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// send makes the attempt's call through the SDK, with its recorded
// request: the first time, and again (the same order_id) from a worker.
func (j *Journal) send(ctx context.Context, a *attempt) (*openpay.Transaction, error) {
	c := j.client
	switch a.Kind {
	case KindCharge:
		req, err := decodeAs[openpay.ChargeRequest](a, map[string]func() openpay.ChargeRequest{
			"CardCharge":  func() openpay.ChargeRequest { return new(openpay.CardCharge) },
			"StoreCharge": func() openpay.ChargeRequest { return new(openpay.StoreCharge) },
			"BankCharge":  func() openpay.ChargeRequest { return new(openpay.BankCharge) },
		})
		if err != nil {
			return nil, err
		}
		var opts []openpay.CallOption
		if a.clientIP != "" {
			opts = append(opts, openpay.WithClientIP(a.clientIP))
		}
		if a.CustomerID != "" {
			return c.Customer(a.CustomerID).Charges.Create(ctx, req, opts...)
		}
		return c.Charges.Create(ctx, req, opts...)
	case KindPayout:
		req, err := decodeAs[openpay.PayoutRequest](a, map[string]func() openpay.PayoutRequest{
			"BankAccountPayout":       func() openpay.PayoutRequest { return new(openpay.BankAccountPayout) },
			"CardPayout":              func() openpay.PayoutRequest { return new(openpay.CardPayout) },
			"InlineBankAccountPayout": func() openpay.PayoutRequest { return new(openpay.InlineBankAccountPayout) },
		})
		if err != nil {
			return nil, err
		}
		if a.CustomerID != "" {
			return c.Customer(a.CustomerID).Payouts.Create(ctx, req)
		}
		return c.Payouts.Create(ctx, req)
	case KindTransfer:
		var req openpay.TransferRequest
		if err := json.Unmarshal([]byte(a.request), &req); err != nil {
			return nil, fmt.Errorf("journal: reading the recorded request: %w", err)
		}
		return c.Customer(a.CustomerID).Transfers.Create(ctx, req)
	case KindFee:
		var req openpay.FeeRequest
		if err := json.Unmarshal([]byte(a.request), &req); err != nil {
			return nil, fmt.Errorf("journal: reading the recorded request: %w", err)
		}
		return c.Fees.Create(ctx, req)
	case KindRefund:
		if a.Variant == feeRefundVariant {
			var req openpay.FeeRefundRequest
			if err := json.Unmarshal([]byte(a.request), &req); err != nil {
				return nil, fmt.Errorf("journal: reading the recorded request: %w", err)
			}
			return c.Fees.Refund(ctx, a.ChargeID, req)
		}
		var req openpay.RefundRequest
		if err := json.Unmarshal([]byte(a.request), &req); err != nil {
			return nil, fmt.Errorf("journal: reading the recorded request: %w", err)
		}
		return j.charges(a).Refund(ctx, a.ChargeID, req)
	}
	return nil, fmt.Errorf("journal: unknown kind %q", a.Kind)
}

// decodeAs decodes the recorded request into the variant a names. The
// variants are pointers to the SDK's request types; the value is returned.
func decodeAs[R any](a *attempt, variants map[string]func() R) (R, error) {
	var zero R
	mk, ok := variants[a.Variant]
	if !ok {
		return zero, fmt.Errorf("journal: unknown %s variant %q", a.Kind, a.Variant)
	}
	p := mk()
	if err := json.Unmarshal([]byte(a.request), p); err != nil {
		return zero, fmt.Errorf("journal: reading the recorded request: %w", err)
	}
	// The pointer's element is the value the SDK's interface takes.
	switch v := any(p).(type) {
	case *openpay.CardCharge:
		return any(*v).(R), nil
	case *openpay.StoreCharge:
		return any(*v).(R), nil
	case *openpay.BankCharge:
		return any(*v).(R), nil
	case *openpay.BankAccountPayout:
		return any(*v).(R), nil
	case *openpay.CardPayout:
		return any(*v).(R), nil
	case *openpay.InlineBankAccountPayout:
		return any(*v).(R), nil
	}
	return zero, fmt.Errorf("journal: unknown %s variant %q", a.Kind, a.Variant)
}

// charges is the charges service of the attempt's scope.
func (j *Journal) charges(a *attempt) *openpay.ChargesService {
	if a.CustomerID != "" {
		return j.client.Customer(a.CustomerID).Charges
	}
	return j.client.Charges
}

// lookup returns the transaction holding the attempt's order_id, or an
// error matching openpay.ErrNotFound when the gateway holds none.
func (j *Journal) lookup(ctx context.Context, a *attempt) (*openpay.Transaction, error) {
	c := j.client
	switch a.Kind {
	case KindCharge:
		return j.charges(a).GetByOrderID(ctx, a.OrderID)
	case KindPayout:
		if a.CustomerID != "" {
			return c.Customer(a.CustomerID).Payouts.GetByOrderID(ctx, a.OrderID)
		}
		return c.Payouts.GetByOrderID(ctx, a.OrderID)
	case KindTransfer:
		return c.Customer(a.CustomerID).Transfers.GetByOrderID(ctx, a.OrderID)
	case KindFee:
		return c.Fees.GetByOrderID(ctx, a.OrderID)
	case KindRefund:
		if a.Variant == feeRefundVariant {
			return c.Fees.Get(ctx, a.ChargeID)
		}
		return j.charges(a).Get(ctx, a.ChargeID)
	}
	return nil, fmt.Errorf("journal: unknown kind %q", a.Kind)
}

// methodOf is the transaction method each variant makes ("" when not
// checked).
var methodOf = map[string]openpay.TransactionMethod{
	"CardCharge":              openpay.TransactionMethodCard,
	"StoreCharge":             openpay.TransactionMethodStore,
	"BankCharge":              openpay.TransactionMethodBankAccount,
	"BankAccountPayout":       openpay.TransactionMethodBankAccount,
	"CardPayout":              openpay.TransactionMethodCard,
	"InlineBankAccountPayout": openpay.TransactionMethodBankAccount,
}

// clockAllowance is how much earlier than the claim, by the gateway's
// clock, a refund read back may be dated and still be the attempt's.
const clockAllowance = 5 * time.Minute

// owns reports whether tx, the transaction holding the attempt's order_id,
// is the attempt's: the same amount, currency, method, customer and source.
// A token source is compared by the card behind it. why names the first
// difference; err is a failure to read the token.
func (j *Journal) owns(ctx context.Context, a *attempt, tx *openpay.Transaction) (own bool, why string, err error) {
	switch {
	case tx.OrderID != a.OrderID:
		return false, "order_id", nil
	case !tx.Amount.Equal(a.Amount):
		return false, "amount", nil
	case a.Currency != "" && !strings.EqualFold(string(a.Currency), string(tx.Currency)):
		return false, "currency", nil
	case methodOf[a.Variant] != "" && tx.Method != methodOf[a.Variant]:
		return false, "method", nil
	case (a.Kind == KindCharge || a.Kind == KindPayout) && a.CustomerID != "" && tx.CustomerID != "" && tx.CustomerID != a.CustomerID:
		return false, "customer", nil
	}
	if a.Variant != "CardCharge" || a.Source == "" || tx.Card == nil || tx.Card.ID == "" || tx.Card.ID == a.Source {
		return true, "", nil
	}
	// The source may be a token: the card behind it must be the charge's.
	tok, err := j.client.Tokens.Get(ctx, a.Source)
	if err != nil {
		if isNotFound(err) {
			return false, "source", nil
		}
		return false, "", err
	}
	if cardKey(tok.Card.CardNumber) == "" || cardKey(tok.Card.CardNumber) != cardKey(tx.Card.CardNumber) {
		return false, "source", nil
	}
	return true, "", nil
}

// cardKey is the first six and last four characters of a card number,
// whole or masked; "" when too short.
func cardKey(n string) string {
	n = strings.NewReplacer(" ", "", "-", "").Replace(n)
	if len(n) < 10 {
		return ""
	}
	return n[:6] + n[len(n)-4:]
}

// refundOf reports whether charge, read back, carries the attempt's refund:
// a nested refund of the attempt's amount (the whole charge when the
// attempt named none) dated no earlier than the claim.
func refundOf(a *attempt, charge *openpay.Transaction) bool {
	r := charge.Refund
	if r == nil || r.CreationDate.Before(a.Created.Add(-clockAllowance)) {
		return false
	}
	if a.Amount.IsZero() {
		return charge.Status == openpay.TransactionStatusRefunded
	}
	return r.Amount.Equal(a.Amount)
}
