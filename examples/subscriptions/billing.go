package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/openpay-go/openpay"
)

// billing is a SaaS's billing on Openpay subscriptions: it subscribes
// customers without ever making a second subscription when an answer is
// lost, keeps an invoice per renewal from the webhooks (delivered twice,
// out of order), duns by error code, takes new cards and changes plans.
type billing struct {
	c *openpay.Client

	mu       sync.Mutex
	invoices map[string]*invoice // by transaction id
	// needsCard holds the subscriptions whose card will not pay again
	// (expired, stolen, lost, deleted), by subscription id, with their
	// customer: the SaaS asks the customer for another card.
	needsCard map[string]string
	// churned holds the subscriptions whose retries ran out.
	churned map[string]bool
}

// invoice is one renewal as the SaaS books it.
type invoice struct {
	TxID, SubscriptionID, CustomerID string
	Amount                           openpay.Amount
	Currency                         openpay.Currency
	Day                              string // yyyy-mm-dd, the charge's day
	Paid                             bool
	Code                             openpay.Code // why it failed; 0 when paid
}

func newBilling(c *openpay.Client) *billing {
	return &billing{c: c, invoices: map[string]*invoice{}, needsCard: map[string]string{}, churned: map[string]bool{}}
}

// subscribe creates a subscription as the SDK's docs say to: when the
// answer is lost, Create looks for what it made; when it cannot tell, the
// create is settled with FindCreated, and sent again only once FindCreated
// says ErrNotFound (never while the first may still be carried out).
func (b *billing) subscribe(ctx context.Context, subs *openpay.SubscriptionsService, req openpay.SubscriptionRequest) (*openpay.Subscription, error) {
	began := time.Now()
	sub, err := subs.Create(ctx, req)
	for err != nil {
		switch {
		case errors.Is(err, openpay.ErrNotFound):
			began = time.Now()
			sub, err = subs.Create(ctx, req)
		case errors.Is(err, openpay.ErrOutcomeUnknown):
			select { // a recovery job would look again later
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			sub, err = subs.FindCreated(ctx, req, began)
		default:
			return nil, err
		}
	}
	return sub, nil
}

// changePlan moves a subscription to another plan at the end of the
// period paid for: Openpay subscriptions cannot change plan, so the old one
// is cancelled at its period's end and the new one starts with a trial
// that ends that day, so its first charge is on the old one's next charge
// day: no overlap, no gap, nothing to prorate.
func (b *billing) changePlan(ctx context.Context, customerID, subID, planID string) (*openpay.Subscription, error) {
	subs := b.c.Customer(customerID).Subscriptions
	old, err := subs.Update(ctx, subID, openpay.SubscriptionUpdateRequest{CancelAtPeriodEnd: openpay.Ptr(true)})
	if err != nil {
		return nil, err
	}
	return b.subscribe(ctx, subs, openpay.SubscriptionRequest{PlanID: planID, SourceID: old.Card.ID, TrialEndDate: old.PeriodEndDate})
}

// handle books one webhook event. It is safe to call with the same event
// twice and with events in any order: it re-reads the charge from the API
// (a receiver acts on the gateway's state, not on a delivery's), and books
// each transaction once.
func (b *billing) handle(ctx context.Context, ev openpay.WebhookEvent) error {
	var charge *openpay.Transaction
	switch p := ev.Payload().(type) {
	case *openpay.ChargeEvent:
		charge = p.Charge
	case *openpay.SubscriptionChargeEvent:
		charge = p.Charge
	default:
		return nil
	}
	if charge.CustomerID == "" || b.booked(charge.ID) {
		return nil
	}
	cc := b.c.Customer(charge.CustomerID)
	tx, err := cc.Charges.Get(ctx, charge.ID)
	if err != nil {
		return err
	}
	if tx.Status != openpay.TransactionStatusCompleted && tx.Status != openpay.TransactionStatusFailed {
		return nil
	}
	sub, err := cc.RenewalOf(ctx, tx)
	if errors.Is(err, openpay.ErrNotFound) {
		return nil // a one-off charge: not the billing's
	}
	if err != nil {
		return err
	}
	inv := &invoice{TxID: tx.ID, SubscriptionID: sub.ID, CustomerID: tx.CustomerID, Amount: tx.Amount,
		Currency: tx.Currency, Day: openpay.DateOf(tx.CreationDate).String(), Paid: tx.Status == openpay.TransactionStatusCompleted}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.invoices[tx.ID]; ok {
		return nil
	}
	b.invoices[tx.ID] = inv
	if inv.Paid {
		delete(b.needsCard, sub.ID)
		return nil
	}
	// Dunning by code, never by text.
	inv.Code = tx.ErrorCode
	switch {
	case sub.Status == openpay.SubscriptionStatusUnpaid || sub.Status == openpay.SubscriptionStatusCancelled:
		b.churned[sub.ID] = true
		delete(b.needsCard, sub.ID)
	case tx.ErrorCode == openpay.ErrCardInsufficientFunds || tx.ErrorCode == openpay.ErrCardDeclined:
		// The gateway tries again tomorrow.
	default: // expired, stolen, lost, deleted: this card will not pay again
		b.needsCard[sub.ID] = tx.CustomerID
	}
	return nil
}

// booked reports whether a transaction has its invoice.
func (b *billing) booked(txID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.invoices[txID]
	return ok
}

// askedForCards returns the subscriptions waiting for a new card, by
// subscription id, with their customer.
func (b *billing) askedForCards() map[string]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]string, len(b.needsCard))
	for k, v := range b.needsCard {
		out[k] = v
	}
	return out
}

// takeNewCard stores the card a customer gave and moves the subscription
// to it; the gateway's next retry charges it.
func (b *billing) takeNewCard(ctx context.Context, customerID, subID string, card openpay.CardRequest) error {
	cc := b.c.Customer(customerID)
	k, err := cc.Cards.Create(ctx, card)
	if err != nil {
		return err
	}
	if _, err := cc.Subscriptions.Update(ctx, subID, openpay.SubscriptionUpdateRequest{SourceID: k.ID}); err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.needsCard, subID)
	b.mu.Unlock()
	return nil
}

// ledger is the invoices of a customer: the paid ones' total and the
// transaction ids, paid and failed, sorted.
func (b *billing) ledger(customerID string) (paid openpay.Amount, paidIDs, failedIDs []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	paid = openpay.MustAmount("0")
	for _, inv := range b.invoices {
		if inv.CustomerID != customerID {
			continue
		}
		if inv.Paid {
			paid = paid.Add(inv.Amount)
			paidIDs = append(paidIDs, inv.TxID)
		} else {
			failedIDs = append(failedIDs, inv.TxID)
		}
	}
	slices.Sort(paidIDs)
	slices.Sort(failedIDs)
	return paid, paidIDs, failedIDs
}

// gatewayLedger is what the gateway holds for a customer: the completed
// charges' total and the ids of its completed and failed charges, sorted.
func gatewayLedger(ctx context.Context, c *openpay.Client, customerID string) (paid openpay.Amount, paidIDs, failedIDs []string, err error) {
	paid = openpay.MustAmount("0")
	for ch, err := range c.Customer(customerID).Charges.List(ctx, nil) {
		if err != nil {
			return paid, nil, nil, err
		}
		switch ch.Status {
		case openpay.TransactionStatusCompleted:
			paid = paid.Add(ch.Amount)
			paidIDs = append(paidIDs, ch.ID)
		case openpay.TransactionStatusFailed:
			failedIDs = append(failedIDs, ch.ID)
		}
	}
	slices.Sort(paidIDs)
	slices.Sort(failedIDs)
	return paid, paidIDs, failedIDs, nil
}

// String shows an invoice as the SaaS lists it.
func (inv *invoice) String() string {
	if inv.Paid {
		return fmt.Sprintf("%s %s %s paid %s %s", inv.Day, inv.SubscriptionID, inv.TxID, inv.Amount, inv.Currency)
	}
	return fmt.Sprintf("%s %s %s failed %s %s (error %d)", inv.Day, inv.SubscriptionID, inv.TxID, inv.Amount, inv.Currency, inv.Code)
}
