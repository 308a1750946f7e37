package openpay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrAmbiguousRenewal is returned by [CustomerScope.RenewalOf] when
// more than one of the customer's subscriptions could have made the
// charge: they charge the same card the same amount.
var ErrAmbiguousRenewal = errors.New("openpay: the charge could renew more than one subscription")

// RenewalOf returns the subscription of this customer whose renewal
// (a period charged on schedule, paid or failed) charge is, as a charge.succeeded,
// charge.failed or subscription.charge.failed event delivers it or a list
// of charges shows it; an error matching [ErrNotFound] when charge renews
// none, and [ErrAmbiguousRenewal] when it could renew several.
//
// What the gateway gives: a renewal is a card charge of the customer, on
// the subscription's card, of its plan's amount and currency, with no
// order_id. Openpay documents no field tying it to its subscription or
// plan (its interface, its examples and its published clients show none, and
// its description is free text no one should parse), so the SDK ties them by
// those terms: the customer's subscriptions created no later than the
// charge whose card is the charge's and whose plan (read from the gateway)
// has its amount and currency. The tie is reliable when
//
//   - your own charges to the customer's stored cards carry an order_id
//     (the SDK's retries need one anyway): a renewal never has one, so a
//     charge with an order_id is never taken for a renewal;
//   - a customer does not hold two subscriptions charging one card the same
//     amount (else ErrAmbiguousRenewal: give each its own card, or plans of
//     different amounts);
//   - the renewal is tied as it arrives: a subscription's card may change
//     (Update), and a renewal charged to its former card no longer matches.
//
// It is offered at the merchant's customer scope only: the gateway's group
// API has no plans to read.
func (cs *CustomerScope) RenewalOf(ctx context.Context, charge *Transaction, opts ...CallOption) (*Subscription, error) {
	if cs == nil {
		return nil, ErrZeroClient
	}
	if charge == nil {
		return nil, ErrNilRequest
	}
	ss := cs.Subscriptions
	s := scopeOf(ss)
	if _, err := s.url("subscriptions"); err != nil || len(s.prefix) < 2 {
		return nil, cmp.Or(err, ErrZeroClient)
	}
	notRenewal := func(why string) error {
		return fmt.Errorf("openpay: charge %.40q renews no subscription of the customer (%s): %w", charge.ID, why, ErrNotFound)
	}
	switch {
	case charge.TransactionType != TransactionTypeCharge || charge.Method != TransactionMethodCard || charge.Card == nil:
		return nil, notRenewal("not a card charge")
	case charge.OrderID != "":
		return nil, notRenewal("it has an order_id")
	case charge.CustomerID != "" && charge.CustomerID != s.customerID():
		return nil, notRenewal("another customer's charge")
	}
	plans := scope{c: s.c, prefix: s.prefix[:2]} // the merchant's
	amounts := map[string]*Plan{}
	var found []*Subscription
	for sub, err := range ss.List(ctx, nil, opts...) {
		if err != nil {
			return nil, err
		}
		if sub.Card == nil || sub.Card.ID != charge.Card.ID ||
			(!charge.CreationDate.IsZero() && sub.CreationDate.After(charge.CreationDate.Add(clockAllowance))) {
			continue
		}
		p, ok := amounts[sub.PlanID]
		if !ok {
			p, err = call[Plan](ctx, plans, apiRequest{opts: opts, method: http.MethodGet}, "plans", sub.PlanID)
			if err != nil {
				return nil, err
			}
			amounts[sub.PlanID] = p
		}
		if p.Amount.Cmp(charge.Amount) == 0 && strings.EqualFold(string(p.Currency), string(charge.Currency)) {
			found = append(found, sub)
		}
	}
	switch len(found) {
	case 0:
		return nil, notRenewal("no subscription charges that card that amount")
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, sub := range found {
		ids[i] = sub.ID
	}
	return nil, fmt.Errorf("openpay: charge %.40q: subscriptions %s: %w", charge.ID, strings.Join(ids, ", "), ErrAmbiguousRenewal)
}
