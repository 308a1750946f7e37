package journal

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// Transfers, fees and payouts are journaled like charges: made once, joined
// by the same call, settled by the worker when the answer was lost; the
// customers' balances show each once.
func TestTransferFeePayout(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		mk := func(name string) string {
			cu, err := v.c.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: name + "@example.com", RequiresAccount: true})
			if err != nil {
				t.Fatal(err)
			}
			return cu.ID
		}
		seller, buyer := mk("seller"), mk("buyer")
		if _, err := v.srv.ReceiveSPEI(buyer, openpay.MustAmount("1000.00")); err != nil {
			t.Fatal(err)
		}
		acct, err := v.c.Customer(buyer).BankAccounts.Create(ctx, openpay.BankAccountRequest{HolderName: "Marta", CLABE: "032180000118359719"})
		if err != nil {
			t.Fatal(err)
		}
		transfer := Transfer{FromCustomerID: buyer, Request: openpay.TransferRequest{CustomerID: seller, Amount: openpay.MustAmount("100.00"), Description: "rent", OrderID: "t-1"}}
		fee := openpay.FeeRequest{CustomerID: buyer, Amount: openpay.MustAmount("10.00"), Description: "fee", OrderID: "f-1"}
		payout := Payout{CustomerID: buyer, Request: openpay.BankAccountPayout{DestinationID: acct.ID, Amount: openpay.MustAmount("200.00"), Description: "out", OrderID: "p-1"}}

		// The transfer's answer is lost and its lookup fails: the worker settles it.
		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers/{customer_id}/transfers", Drop: openpaytest.DropAfter, Count: 3})
		inject(t, v.srv, openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers/{customer_id}/transfers", ErrorCode: openpay.ErrInternalServer, Count: 3})
		if _, err := v.j.Transfer(ctx, transfer); !errors.Is(err, openpay.ErrOutcomeUnknown) {
			t.Fatalf("transfer: %v", err)
		}
		v.srv.ClearFaults()
		if _, err := (&Worker{Journal: v.j}).Drain(ctx); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := v.j.Transfer(ctx, transfer); err != nil {
				t.Fatal(err)
			}
			if _, err := v.j.Fee(ctx, fee); err != nil {
				t.Fatal(err)
			}
			if _, err := v.j.Payout(ctx, payout); err != nil {
				t.Fatal(err)
			}
		}
		for _, order := range []string{"t-1", "f-1", "p-1"} {
			if a := v.attempt(t, order); a.State != StateMade || a.TransactionID == "" {
				t.Fatalf("%s: %+v", order, a)
			}
		}
		bal := func(id string) openpay.Amount {
			cu, err := v.c.Customers.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return cu.Balance
		}
		if got := bal(buyer); !got.Equal(openpay.MustAmount("690.00")) {
			t.Fatalf("the buyer's balance is %s, want 690.00 (1000 - 100 - 10 - 200)", got)
		}
		if got := bal(seller); !got.Equal(openpay.MustAmount("100.00")) {
			t.Fatalf("the seller's balance is %s", got)
		}
	})
}

// A refund is keyed by its charge and a key; a lost answer is settled by
// reading the charge back, never by refunding again: by the SDK inside the
// call when the read answers, else by the worker.
func TestRefund(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		const refundRoute = "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/refund"

		// The SDK reads the charge back and finds the refund its call made.
		first, err := v.j.Charge(ctx, v.p.charge("o-r0", "300.00"))
		if err != nil {
			t.Fatal(err)
		}
		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: refundRoute, Drop: openpaytest.DropAfter})
		r0 := Refund{CustomerID: v.p.customer, ChargeID: first.ID, Key: "return-0", Request: openpay.RefundRequest{Amount: openpay.MustAmount("100.00")}}
		if tx, err := v.j.Refund(ctx, r0); err != nil || tx.Refund == nil {
			t.Fatalf("a lost answer the SDK settles: %v, %v", tx, err)
		}
		if a, err := v.j.RefundAttempt(ctx, first.ID, "return-0"); err != nil || a.State != StateMade {
			t.Fatalf("attempt %+v, %v", a, err)
		}

		// The read-back fails too: the call ends unknown, the worker settles.
		ch, err := v.j.Charge(ctx, v.p.charge("o-r", "300.00"))
		if err != nil {
			t.Fatal(err)
		}
		before := balance(t, v.c)
		r := Refund{CustomerID: v.p.customer, ChargeID: ch.ID, Key: "return-1", Request: openpay.RefundRequest{Amount: openpay.MustAmount("100.00")}}
		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: refundRoute, Drop: openpaytest.DropAfter})
		inject(t, v.srv, openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}",
			ErrorCode: openpay.ErrServiceUnavailable, Count: 50})
		if _, err := v.j.Refund(ctx, r); !errors.Is(err, openpay.ErrOutcomeUnknown) {
			t.Fatalf("a lost answer whose read-back fails: %v", err)
		}
		a, err := v.j.RefundAttempt(ctx, ch.ID, "return-1")
		if err != nil || a.State != StateUnknown {
			t.Fatalf("attempt %+v, %v", a, err)
		}
		v.srv.ClearFaults()
		v.clk.advance(2 * time.Minute)
		if _, err := (&Worker{Journal: v.j}).Drain(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := v.c.Customer(v.p.customer).Charges.Get(ctx, ch.ID)
		if err != nil {
			t.Fatal(err)
		}
		a, _ = v.j.RefundAttempt(ctx, ch.ID, "return-1")
		if a.State != StateMade || got.Refund == nil || a.TransactionID != got.Refund.ID {
			t.Fatalf("attempt %+v; charge's refund %+v", a, got.Refund)
		}
		if moved := before.Sub(balance(t, v.c)); !moved.Equal(openpay.MustAmount("100.00")) {
			t.Fatalf("the refund took %s from the balance", moved)
		}
		// The same refund again joins; another amount under the key is refused.
		if tx, err := v.j.Refund(ctx, r); err != nil || tx.Refund == nil {
			t.Fatalf("joining: %v, %v", tx, err)
		}
		r.Request.Amount = openpay.MustAmount("50.00")
		var tc *TermsConflictError
		if _, err := v.j.Refund(ctx, r); !errors.As(err, &tc) {
			t.Fatalf("another amount: %v", err)
		}
		if moved := before.Sub(balance(t, v.c)); !moved.Equal(openpay.MustAmount("100.00")) {
			t.Fatalf("the refund took %s from the balance", moved)
		}
	})
}

// Prune deletes final attempts older than the age in batches, never open
// ones; Counts sorts them.
func TestPruneAndCounts(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		db := v.j.db
		now := v.clk.now()
		old := ms(now.Add(-48 * time.Hour))
		// 2,500 settled attempts written two days ago, one unknown as old, one made now.
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2500 {
			if _, err := tx.Exec(`INSERT INTO openpay_attempts (attempt_key, kind, variant, amount, request, state, created_ms, updated_ms, next_ms)
				VALUES ($1, 'charge', 'CardCharge', '1.00', '{}', 'made', $2, $2, $2)`, "old-"+strconv.Itoa(i), old); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO openpay_attempts (attempt_key, kind, variant, amount, request, state, created_ms, updated_ms, next_ms)
			VALUES ('old-open', 'charge', 'CardCharge', '1.00', '{}', 'unknown', $1, $1, $2)`, old, ms(now.Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		if _, err := v.j.Charge(ctx, v.p.charge("new", "5.00")); err != nil {
			t.Fatal(err)
		}
		c, err := v.j.Counts(ctx)
		if err != nil || c != (Counts{Unknown: 1, Settled: 2501}) {
			t.Fatalf("counts %+v, %v", c, err)
		}
		p, err := v.j.Prune(ctx, 24*time.Hour)
		if err != nil || p.Attempts != 2500 {
			t.Fatalf("pruned %+v, %v", p, err)
		}
		c, _ = v.j.Counts(ctx)
		if c != (Counts{Unknown: 1, Settled: 1}) {
			t.Fatalf("counts after pruning %+v", c)
		}
	})
}

// A commission refunded (a fee's refund, keyed by the fee and a key) and a
// payout to a CLABE given inline are journaled too: a lost answer whose
// read-back fails ends unknown, the worker settles it by reading the fee
// (or the payout) back, and neither is made twice: the customer's balance
// shows each once.
func TestFeeRefundAndInlinePayout(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		v := newEnv(t, e)
		ctx := context.Background()
		cu, err := v.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "seller", Email: "seller@example.com", RequiresAccount: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.srv.ReceiveSPEI(cu.ID, openpay.MustAmount("1000.00")); err != nil {
			t.Fatal(err)
		}
		fee, err := v.j.Fee(ctx, openpay.FeeRequest{CustomerID: cu.ID, Amount: openpay.MustAmount("40.00"), Description: "commission", OrderID: "fee-1"})
		if err != nil {
			t.Fatal(err)
		}
		back := FeeRefund{FeeID: fee.ID, Key: "commission-back", Request: openpay.FeeRefundRequest{Description: "commission back"}}
		payout := Payout{CustomerID: cu.ID, Request: openpay.InlineBankAccountPayout{Amount: openpay.MustAmount("200.00"), Description: "out",
			OrderID: "po-1", BankAccount: openpay.BankAccountRequest{CLABE: "032180000118359719", HolderName: "Marta"}}}

		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/fees/{fee_id}/refund", Drop: openpaytest.DropAfter})
		inject(t, v.srv, openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/fees/{fee_id}", ErrorCode: openpay.ErrServiceUnavailable, Count: 50})
		if _, err := v.j.FeeRefund(ctx, back); !errors.Is(err, openpay.ErrOutcomeUnknown) {
			t.Fatalf("a fee refund whose answer is lost and whose read-back fails: %v", err)
		}
		inject(t, v.srv, openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers/{customer_id}/payouts", Drop: openpaytest.DropAfter, Count: 3})
		inject(t, v.srv, openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers/{customer_id}/payouts", ErrorCode: openpay.ErrInternalServer, Count: 50})
		if _, err := v.j.Payout(ctx, payout); !errors.Is(err, openpay.ErrOutcomeUnknown) {
			t.Fatalf("a payout whose answer is lost and whose lookup fails: %v", err)
		}
		if a, err := v.j.RefundAttempt(ctx, fee.ID, "commission-back"); err != nil || a.State != StateUnknown || a.Variant != "FeeRefundRequest" {
			t.Fatalf("fee refund attempt %+v, %v", a, err)
		}
		v.srv.ClearFaults()
		if _, err := (&Worker{Journal: v.j}).Drain(ctx); err != nil {
			t.Fatal(err)
		}
		a, err := v.j.RefundAttempt(ctx, fee.ID, "commission-back")
		if err != nil || a.State != StateMade || a.TransactionID == "" {
			t.Fatalf("fee refund after the worker: %+v, %v", a, err)
		}
		if p := v.attempt(t, "po-1"); p.State != StateMade || p.Source != "032180000118359719" {
			t.Fatalf("payout after the worker: %+v", p)
		}
		// Asked again: each joins its attempt, nothing is sent.
		if tx, err := v.j.FeeRefund(ctx, back); err != nil || tx == nil {
			t.Fatalf("the fee refund asked again: %v, %v", tx, err)
		}
		if _, err := v.j.Payout(ctx, payout); err != nil {
			t.Fatal(err)
		}
		got, err := v.c.Customers.Get(ctx, cu.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Balance.Equal(openpay.MustAmount("800.00")) {
			t.Fatalf("the seller's balance is %s, want 800.00 (1000 - 40 + 40 - 200)", got.Balance)
		}
		f, err := v.c.Fees.Get(ctx, fee.ID)
		if err != nil || f.Status != openpay.TransactionStatusRefunded {
			t.Fatalf("the fee read back: %+v, %v", f, err)
		}
	})
}
