package openpay_test

import (
	"context"
	"errors"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// TestCheckout is the README's testing snippet, word for word
// (TestReadmeCompiles, in the nested module tests/, checks that the README
// holds this function's text),
// so that the snippet runs with every go test.
func TestCheckout(t *testing.T) {
	srv := openpaytest.NewServer(t) // closed when the test ends
	c, err := srv.Client()          // keys, base URL and country of the server's merchant
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const payer = "203.0.113.1" // the payer's IP address, which every charge carries

	// A test card the gateway documents: declined here and in the sandbox.
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{
		Card: openpay.CardDetails{HolderName: "Ana López", CardNumber: openpaytest.CardInsufficientFunds,
			CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"},
		Amount: openpay.MustAmount("100"), Description: "declined on purpose", ClientIP: payer,
	})
	if !errors.Is(err, openpay.ErrCardInsufficientFunds) {
		t.Fatalf("want a decline, got %v", err)
	}

	// What only the outside world does: the payer pays at the store.
	ch, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("250"), Description: "Order 42", ClientIP: payer})
	if err != nil {
		t.Fatal(err)
	}
	paid, err := srv.PayCharge(ch.ID)
	if err != nil {
		t.Fatal(err)
	}
	if paid.Status != openpay.TransactionStatusCompleted {
		t.Errorf("after the payment the charge is %s", paid.Status)
	}

	// A gateway that fails: the next charge meets a 503, on every retry.
	// Once a request is sent no server error proves that nothing was
	// charged, so the outcome is unknown until settled (see Retries).
	err = srv.InjectFault(openpaytest.Fault{Operation: "Charges.Create", Calls: 1,
		ErrorCode: openpay.ErrServiceUnavailable})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("80"), Description: "Order 43", ClientIP: payer})
	if openpay.ClassOf(err) != openpay.ClassUnknown {
		t.Errorf("want an unknown outcome, got %v", err)
	}
}
