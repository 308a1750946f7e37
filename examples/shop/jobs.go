package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Recover settles the attempts whose outcome is unknown by re-sending each
// exactly as it was sent, with the same attempt id as order_id. Run it
// every few minutes. The re-send is idempotent: it returns the charge the
// first attempt made (paid, or the decline it met), or makes the charge
// once if the first attempt made nothing, even while that attempt is still
// held at the gateway (whichever arrives second meets the order_id taken).
// It never starts a new attempt id: a lookup that finds nothing proves
// nothing while an attempt may be in flight. Attempts it cannot settle yet
// stay unknown for the next run.
func (s *Shop) Recover(ctx context.Context) error {
	type pending struct {
		id, clientIP string
		req          openpay.ChargeRequest
	}
	s.mu.Lock()
	var unknown []pending
	for _, o := range s.orders {
		for _, a := range o.Attempts {
			if a.Status == AttemptUnknown {
				unknown = append(unknown, pending{a.ID, a.clientIP, a.request})
			}
		}
	}
	s.mu.Unlock()

	var errs []error
	for _, a := range unknown {
		ch, err := s.c.Charges.Create(ctx, a.req, openpay.WithClientIP(a.clientIP))
		err = s.finishAttempt(a.id, AttemptUnknown, ch, err)
		if openpay.ClassOf(err) == openpay.ClassUnknown {
			errs = append(errs, fmt.Errorf("attempt %s: %w", a.id, err))
		}
	}
	return errors.Join(errs...)
}

// Report compares one day of the gateway's charges with the shop's orders.
// A sale counts on the day its charge was created, the day the gateway's
// list filters on (a store payment made days later counts on the day its
// reference was issued).
type Report struct {
	Day openpay.Date
	// Charges and GatewayTotal are the charges of the day that took money
	// (completed, or since refunded or disputed) and their sum.
	Charges      int
	GatewayTotal openpay.Amount
	// Orders and ShopTotal are the orders paid by a charge of the day and
	// the sum of their totals.
	Orders    int
	ShopTotal openpay.Amount
	// NoOrder lists charges that took money for no attempt of the shop.
	NoOrder []string
	// NotRecorded lists charges that took money for one of the shop's
	// attempts while the order does not show that charge as its payment:
	// a lost answer not yet recovered, or an order paid twice.
	NotRecorded []string
	// NoCharge lists orders marked paid whose charge the gateway does not
	// show as having taken money that day.
	NoCharge []string
}

// OK reports whether the shop and the gateway agree.
func (r Report) OK() bool {
	return r.Charges == r.Orders && r.GatewayTotal.Cmp(r.ShopTotal) == 0 &&
		len(r.NoOrder)+len(r.NotRecorded)+len(r.NoCharge) == 0
}

func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: gateway %d charges %s, shop %d orders %s", r.Day, r.Charges, r.GatewayTotal, r.Orders, r.ShopTotal)
	if r.OK() {
		b.WriteString(", in agreement")
	}
	for _, l := range []struct {
		what string
		ids  []string
	}{{"charges with no order", r.NoOrder}, {"charges the orders do not show", r.NotRecorded}, {"paid orders with no charge", r.NoCharge}} {
		if len(l.ids) > 0 {
			fmt.Fprintf(&b, "; %s: %s", l.what, strings.Join(l.ids, ", "))
		}
	}
	return b.String()
}

// Nightly reconciles yesterday, the merchant's day before the one now falls
// in. Run it at any hour, in any time zone.
func (s *Shop) Nightly(ctx context.Context, now time.Time) (Report, error) {
	return s.Reconcile(ctx, yesterday(now))
}

// Reconcile compares the charges the gateway created on day with the orders.
func (s *Shop) Reconcile(ctx context.Context, day openpay.Date) (Report, error) {
	r := Report{Day: day}
	tookMoney := map[string]bool{} // charge ids
	for ch, err := range s.c.Charges.List(ctx, &openpay.TransactionListParams{ListParams: createdOn(day)}) {
		if err != nil {
			return Report{}, err
		}
		switch ch.Status {
		case openpay.TransactionStatusCompleted, openpay.TransactionStatusRefunded,
			openpay.TransactionStatusChargebackPending, openpay.TransactionStatusChargebackAccepted,
			openpay.TransactionStatusChargebackAdjustment:
		default:
			continue // declined, cancelled, or still waiting for the payer
		}
		r.Charges++
		r.GatewayTotal = r.GatewayTotal.Add(ch.Amount)
		tookMoney[ch.ID] = true
		s.mu.Lock()
		o, a := s.attemptLocked(ch.OrderID)
		switch {
		case a == nil:
			r.NoOrder = append(r.NoOrder, ch.ID)
		case o.PaidBy != ch.ID:
			r.NotRecorded = append(r.NotRecorded, ch.ID)
		}
		s.mu.Unlock()
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.orders {
		if o.PaidBy == "" {
			continue
		}
		i := slices.IndexFunc(o.Attempts, func(a Attempt) bool { return a.ChargeID == o.PaidBy })
		if i < 0 || dayOf(o.Attempts[i].Created) != day {
			continue
		}
		r.Orders++
		r.ShopTotal = r.ShopTotal.Add(o.Total)
		if !tookMoney[o.PaidBy] {
			r.NoCharge = append(r.NoCharge, o.ID)
		}
	}
	slices.Sort(r.NoCharge)
	return r, nil
}

// The merchant's country: the gateway counts the merchant's days (the day
// filters of lists) from midnight in Mexico City, whatever the time zone of
// the computer that runs the shop.
const country = openpay.CountryMexico

// dayOf returns the merchant's day at the instant t.
func dayOf(t time.Time) openpay.Date { return country.Today(t) }

// yesterday returns the merchant's day before the one now falls in.
func yesterday(now time.Time) openpay.Date { return dayOf(now).AddDays(-1) }

// createdOn filters a list to what was created on day.
func createdOn(day openpay.Date) openpay.ListParams { return openpay.ListParams{Creation: day} }
