// Command payouts-and-transfers shows money moving between accounts: two
// customers with balances, a transfer between them, a fee charged to one,
// and a payout from a customer's balance to a registered bank account.
//
//	go run ./examples/payouts-and-transfers
//
// With no environment it runs against a reference server started in the
// program; with OPENPAY_MERCHANT_ID and OPENPAY_PRIVATE_KEY set it runs
// against the Openpay sandbox (whose customers start with no balance, so
// the transfer stops with a clear error there unless funded).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
)

func main() { exampleenv.Main(run) }

func run(ctx context.Context, out io.Writer) error { return exampleenv.Run(ctx, out, flow) }

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	c := env.Client
	stamp := time.Now().UnixNano()

	// Customers with an account get a balance, a CLABE and a store
	// reference for receiving money.
	seller, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Marta", LastName: "Ruiz", Email: "marta@example.com", RequiresAccount: true})
	if err != nil {
		return fmt.Errorf("creating the seller: %w", err)
	}
	buyer, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Pablo", LastName: "Soto", Email: "pablo@example.com", RequiresAccount: true})
	if err != nil {
		return fmt.Errorf("creating the buyer: %w", err)
	}
	fmt.Fprintf(out, "customers %s and %s created; the buyer receives transfers at CLABE %s\n", seller.ID, buyer.ID, buyer.CLABE)

	// Fund the buyer's balance with a card charge made for the buyer.
	_, err = c.Customer(buyer.ID).Charges.Create(ctx, openpay.InlineCardCharge{
		Amount: openpay.MustAmount("1000.00"), Description: "Top-up", OrderID: fmt.Sprintf("topup-%d", stamp),
		Card: openpay.CardDetails{HolderName: "Pablo Soto", CardNumber: openpaytest.CardVisa, CVV2: "123",
			ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)},
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("funding the buyer: %w", err)
	}

	// A transfer between the two balances: one atomic movement.
	tr, err := c.Customer(buyer.ID).Transfers.Create(ctx, openpay.TransferRequest{
		CustomerID: seller.ID, Amount: openpay.MustAmount("400.00"), Description: "Payment for order 3001",
		OrderID: fmt.Sprintf("transfer-%d", stamp),
	})
	if err != nil {
		if errors.Is(err, openpay.ErrMerchantInsufficientFunds) || errors.Is(err, openpay.ErrInvalidParameter) {
			fmt.Fprintln(out, "transfer refused:", err)
			return nil
		}
		return fmt.Errorf("transferring: %w", err)
	}
	fmt.Fprintf(out, "transfer %s: %s %s from %s\n", tr.ID, tr.Status, tr.Amount, tr.CustomerID)

	// The marketplace's commission, charged to the seller.
	fee, err := c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: seller.ID, Amount: openpay.MustAmount("20.00"),
		Description: "Commission on order 3001", OrderID: fmt.Sprintf("fee-%d", stamp)})
	if err != nil {
		return fmt.Errorf("charging the fee: %w", err)
	}
	fmt.Fprintf(out, "fee %s: %s %s\n", fee.ID, fee.Status, fee.Amount)

	// The seller withdraws to a registered bank account.
	account, err := c.Customer(seller.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{
		HolderName: "Marta Ruiz", CLABE: "012680012426485980", Alias: "nómina"})
	if err != nil {
		return fmt.Errorf("registering the bank account: %w", err)
	}
	fmt.Fprintf(out, "bank account %s: %s %s\n", account.ID, account.BankName, account.CLABE)
	payout, err := c.Customer(seller.ID).Payouts.Create(ctx, openpay.BankAccountPayout{
		DestinationID: account.ID, Amount: openpay.MustAmount("300.00"), Description: "Weekly withdrawal",
		OrderID: fmt.Sprintf("payout-%d", stamp)})
	if err != nil {
		return fmt.Errorf("paying out: %w", err)
	}
	fmt.Fprintf(out, "payout %s: %s %s\n", payout.ID, payout.Status, payout.Amount)

	seller, err = c.Customers.Get(ctx, seller.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seller balance: %s\n", seller.Balance)

	// Every movement of the seller, newest first.
	for tx, err := range c.Customer(seller.ID).Transfers.List(ctx, nil) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %s %-8s %-3s %s\n", tx.ID, tx.TransactionType, tx.OperationType, tx.Amount)
	}
	return nil
}
