// Command subscriptions shows recurring billing: a monthly plan with a
// trial, a customer subscribed with a saved card, and the charges the
// gateway makes as time passes; then a SaaS's billing over thirteen months
// (saas.go, billing.go): trials, renewals, dunning by error code, a new
// card taken from a customer whose card expired, a plan change, invoices
// booked from webhooks delivered twice and out of order, and subscription
// creates whose answers are lost, settled without a second subscription.
//
//	go run ./examples/subscriptions
//
// With no environment it runs against a reference server started in the
// program on a fake clock, which the example moves forward to watch the
// subscription charge; with OPENPAY_MERCHANT_ID and OPENPAY_PRIVATE_KEY set
// it creates the same objects in the Openpay sandbox (where time moves at its
// own pace).
package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
)

func main() { exampleenv.Main(run) }

func run(ctx context.Context, out io.Writer) error {
	return exampleenv.Run(ctx, out, flow, openpaytest.Deterministic())
}

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	c := env.Client

	plan, err := c.Plans.Create(ctx, openpay.PlanRequest{
		Name: "Plan Pro mensual", Amount: openpay.MustAmount("299.00"), RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitMonth,
		RetryTimes: 2, StatusAfterRetry: openpay.StatusAfterRetryCancelled, TrialDays: 15,
	})
	if err != nil {
		return fmt.Errorf("creating the plan: %w", err)
	}
	fmt.Fprintf(out, "plan %s: %s %s every %d %s, %d trial days\n", plan.ID, plan.Name, plan.Amount, plan.RepeatEvery, plan.RepeatUnit, plan.TrialDays)

	cust, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Sofía", LastName: "Méndez", Email: "sofia@example.com"})
	if err != nil {
		return fmt.Errorf("creating the customer: %w", err)
	}
	card, err := c.Customer(cust.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Sofía Méndez",
		CardNumber: openpaytest.CardMastercard, CVV2: "123", ExpirationMonth: "12",
		ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)}})
	if err != nil {
		return fmt.Errorf("saving the card: %w", err)
	}

	sub, err := c.Customer(cust.ID).Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
	if err != nil {
		return fmt.Errorf("subscribing: %w", err)
	}
	fmt.Fprintf(out, "subscription %s: %s until %s, first charge on %s\n", sub.ID, sub.Status, sub.TrialEndDate, sub.ChargeDate)

	if env.Sim == nil {
		fmt.Fprintln(out, "(in the sandbox the first charge happens when the trial ends)")
		return nil
	}
	// Two months pass on the server's clock: the trial ends and the plan
	// charges the card each period.
	for range 2 {
		if _, err := env.Sim.AdvanceClock(31 * 24 * time.Hour); err != nil {
			return fmt.Errorf("advancing the clock: %w", err)
		}
	}
	sub, err = c.Customer(cust.ID).Subscriptions.Get(ctx, sub.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "after two months: subscription %s, period %d, next charge on %s\n", sub.Status, sub.CurrentPeriodNumber, sub.ChargeDate)
	n := 0
	for ch, err := range c.Customer(cust.ID).Charges.List(ctx, nil) {
		if err != nil {
			return err
		}
		n++
		fmt.Fprintf(out, "  charge %s %s %s %s\n", ch.ID, ch.CreationDate.Format(time.DateOnly), ch.Status, ch.Amount)
	}
	fmt.Fprintf(out, "%d charges made by the subscription\n", n)

	// Cancel at the end of the period that has been paid for.
	sub, err = c.Customer(cust.ID).Subscriptions.Update(ctx, sub.ID, openpay.SubscriptionUpdateRequest{CancelAtPeriodEnd: openpay.Ptr(true)})
	if err != nil {
		return fmt.Errorf("updating the subscription: %w", err)
	}
	fmt.Fprintf(out, "cancel at period end: %v\n", sub.CancelAtPeriodEnd)

	fmt.Fprintln(out, "a SaaS's thirteen months of billing, with lost answers and webhooks delivered twice:")
	if _, err := runSaaS(ctx, env, out, 13, true); err != nil {
		return fmt.Errorf("the SaaS's year: %w", err)
	}
	return nil
}
