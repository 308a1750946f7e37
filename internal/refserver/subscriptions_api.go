package refserver

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/calendar"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Subscriptions of a customer to a plan
// (/v1/{merchant_id}/customers/{customer_id}/subscriptions), and of a
// group's customer to a plan of one of the group's merchants
// (/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/
// subscriptions). One set of handlers serves both: they lock through
// c.lock and find the customer and its cards through c.scopeCustomer and
// c.cards, which on group paths are the group's (see groups_api.go). A
// subscription always belongs to the merchant of the path, whose plan it
// follows and whose transactions its charges are; a group customer's
// subscription remembers its group, whose lock guards the card it charges.
// The plans are in plans_api.go.
//
// Rules, from the facts where they speak, chosen where they do not:
//
//   - create: plan_id required (1001), a plan of the merchant (1005) that is
//     not deleted (1003 naming plan_id). Exactly one of source_id (a card
//     stored on this customer, 1005 otherwise) and card (card data, checked
//     as card creation checks it: 1001, 2004, 2005, 2006, 2009, 1003, 2007,
//     and 2002 when the customer already has that number stored) is sent:
//     neither, or both, answers 1001. Card data is stored as a card of the
//     customer, and the subscription charges that card.
//     trial_end_date (yyyy-mm-dd, 1001 when malformed, 1003 when more than
//     maxTrialDays ahead) is the last day of the trial: the first charge is
//     on the day after. A day before today means no trial. Without it the
//     plan's trial_days apply: the trial covers trial_days days counting
//     today, so the first charge is on today + trial_days and the trial
//     ends the day before, as the gateway's examples show (a subscription
//     of 2013-12-13 to a plan of 30 trial days is charged on 2014-01-12,
//     trial_end_date 2014-01-11). A plan with 0 trial days has no trial.
//   - without a trial the first period is charged at once, as a stored card
//     is charged from inside the server (the rules and records of a card
//     charge): a decline answers the decline's error (3001, 3003, ...) and
//     creates no subscription; card data sent with the request is then not
//     kept either (the card is marked deleted, so the same data can be sent
//     again), while the failed charge stays recorded as every declined
//     charge is. A card that needs 3-D Secure cannot be charged without the
//     payer: the pending charge is cancelled and the answer is 3012 (bank
//     authorization required).
//   - the answer: status trial or active; charge_date the day of the next
//     charge; period_end_date the day before it; current_period_number the
//     periods paid so far (0 during the trial); trial_end_date the last day
//     of the trial (absent when there was none); card the subscription's
//     card as the card API shows it (masked).
//   - update (PUT), only the members sent change: cancel_at_period_end;
//     source_id or card (one of them, 1001 for both; same checks as on
//     create): the card of the next charges; trial_end_date, only during the
//     trial (1003 otherwise): a day from today on moves the end of the
//     trial there, an earlier day ends the trial now and the first period
//     is charged at once (a decline then makes the subscription past_due,
//     the update still succeeds). A cancelled subscription cannot change
//     (1003). A client that read the subscription may send it back whole
//     (read-echo, the vendor's Python client's save()): the card it has,
//     masked as answers show it, and its trial_end_date as read change
//     nothing, and the read-only members are ignored; a masked card that is
//     not the subscription's is refused as card data (1001).
//   - delete cancels at once (204) and the subscription is gone: it leaves
//     the customer's and the plan's lists (the vendor's Ruby specs .each and
//     .delete_all count none after deleting, Mexico and Colombia), and
//     reading or changing it answers 1005, as a deleted card or customer
//     does (and a deleted order, facts-vendor.md section 5). Deleting it
//     again answers 204, so that a retried DELETE succeeds.
//   - lists: newest first, the common filters; cancelled (but not
//     deleted), unpaid and past_due subscriptions are listed too.
//
// Schedule. Dates are days in the gateway's time zone. Work driven by time
// happens when the clock advances (AdvanceClock, or its simulation
// control), as the expiry of pending charges does: for every merchant in
// the order they were added, under the locks of the merchant's groups (in
// id order) and then the merchant's. The work of a day is done at the
// first instant of that day (00:00 in the gateway's zone): the clock stops
// there on its way, however far it jumps, so a charge, its events and the
// subscription's new state carry the day the charge was due. On the wall
// clock, which nothing advances, subscriptions are charged only at
// creation. For each subscription:
//
//   - trial: on its first charge day it becomes active and is charged;
//   - active: on each charge day the plan's amount is charged to the card
//     and the next period starts: periods are repeat_every × repeat_unit
//     from the first charge day, months counted on the calendar (a
//     subscription first charged on January 31 is charged on the last day
//     of shorter months and on the 31st again when there is one). A jump of
//     the clock over several periods charges each period once, in order;
//   - with cancel_at_period_end, the subscription is cancelled on the
//     charge day instead of being charged;
//   - a failed charge (a decline, a card expired by the charge's day
//     (3002), a card that needs 3-D Secure (3012), a card deleted since
//     (1005)) makes it past_due, and the charge is tried again every
//     following day. retry_times is the number of those further attempts:
//     when the last one fails too (at once when retry_times is 0), the
//     status becomes the plan's status_after_retry, unpaid or cancelled,
//     both final: nothing is charged any more. A retry that succeeds pays
//     the period, which keeps its place in the calendar, and makes the
//     subscription active again. While past_due, charge_date is the day of
//     the next attempt;
//   - the customer deleted: its subscriptions are cancelled
//     (customerDeleted).
//
// Events: a charge of a subscription is a card charge and emits what a card
// charge emits (charge.succeeded, charge.failed; for a 3-D Secure card
// charge.created then charge.cancelled). Every scheduled charge that fails
// is recorded as a failed transaction with its error_code and
// error_message (a card deleted since too: a failed charge of that card,
// 1005) and also emits subscription.charge.failed with that transaction (a
// different type, for webhooks that listen to subscriptions only). The
// gateway's documents list both types without saying which operation sends
// which; a renewal is a card charge, so both are sent, with the same
// transaction id, and a receiver subscribed to both sees the failure twice
// (a dunning handler acts once per failed transaction id; Deduplicate keys
// on the type too, so it does not merge the two). A declined
// charge at creation emits only charge.failed: there is no subscription.

// registerSubscriptions registers subscriptions of a customer (also through a merchant group), charged on schedule when the clock advances (see onClockAdvance).
func (s *Server) registerSubscriptions(r *routeTable) {
	r.add("listSubscriptions", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, s.listSubscriptions)
	r.add("createSubscription", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, s.createSubscription)
	r.add("getSubscription", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, s.getSubscription)
	r.add("updateSubscription", http.MethodPut, "/v1/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, s.updateSubscription)
	r.add("deleteSubscription", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusNoContent, s.deleteSubscription)
	r.add("listGroupMerchantSubscriptions", http.MethodGet, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, s.listSubscriptions)
	r.add("createGroupMerchantSubscription", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions", http.StatusOK, s.createSubscription)
	r.add("getGroupMerchantSubscription", http.MethodGet, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, s.getSubscription)
	r.add("updateGroupMerchantSubscription", http.MethodPut, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusOK, s.updateSubscription)
	r.add("deleteGroupMerchantSubscription", http.MethodDelete, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/subscriptions/{subscription_id}", http.StatusNoContent, s.deleteSubscription)
	s.onClockAdvance(s.chargeSubscriptionsDue, s.nextSubscriptionWork)
}

// subscription is a subscription record. Days (trialEnd, anchor, retryOn)
// are dates held as midnight UTC, so that day arithmetic never meets a
// change of offset.
type subscription struct {
	id      string
	created time.Time
	plan    *openpay.Plan // the plan's record; its period and amount never change
	// group is the group whose customer subscribed, nil for a customer of
	// the merchant. The customer and its cards are the group's, guarded by
	// the group's lock.
	group             *group
	customerID        string
	cardID            string
	status            openpay.SubscriptionStatus
	cancelAtPeriodEnd bool
	// trialEnd is the last day of the trial, zero when there was none.
	trialEnd time.Time
	// anchor is the first charge day; period n (from 0) is due on anchor
	// plus n periods.
	anchor time.Time
	// periods is the number of periods paid (current_period_number).
	periods int
	// failures counts the failed attempts at the charge now due; retryOn is
	// the day of the next attempt while past_due.
	failures int
	retryOn  time.Time
	// deleted is set by DELETE: the subscription, cancelled, is no longer
	// listed or read.
	deleted bool
}

// subscriptionState is a merchant's subscriptions.
type subscriptionState struct {
	byID map[string]*subscription
	list []*subscription // creation order
}

func newSubscriptionState() *subscriptionState {
	return &subscriptionState{byID: make(map[string]*subscription)}
}

// subscriptionsOf returns the merchant's subscriptions. The caller holds
// m.mu.
func subscriptionsOf(m *merchant) *subscriptionState { return extState(m, newSubscriptionState) }

// customerDeleted cancels the subscriptions of a deleted customer
// (customerDeletionListener). The caller holds m.mu (and, for a group's
// customer, the group's lock).
func (st *subscriptionState) customerDeleted(_ *Server, m *merchant, customerID string) {
	for _, sub := range st.list {
		if sub.customerID == customerID {
			sub.status = openpay.SubscriptionStatusCancelled
			m.mark(recSubscription, sub.id)
		}
	}
}

// due is the day the next unpaid period starts, when it is to be charged.
func (sub *subscription) due() time.Time {
	return calendar.PeriodStart(sub.anchor, sub.periods, sub.plan)
}

// chargeDate is the day of the next charge: the next attempt while past_due.
func (sub *subscription) chargeDate() time.Time {
	if sub.status == openpay.SubscriptionStatusPastDue {
		return sub.retryOn
	}
	return sub.due()
}

// cards returns where the subscription's card is stored: the group's
// cards for a group's customer, else the merchant's. The caller holds the
// lock of their owner.
func (sub *subscription) cards(m *merchant) cardSet {
	if sub.group != nil {
		return sub.group.storedCards()
	}
	return m.storedCards()
}

// wire returns the subscription's wire form. The caller holds m.mu and the
// lock of the subscription's group, if any.
func (sub *subscription) wire(m *merchant) openpay.Subscription {
	next := sub.chargeDate()
	w := openpay.Subscription{
		ID: sub.id, Status: sub.status, CancelAtPeriodEnd: sub.cancelAtPeriodEnd,
		ChargeDate: openpay.DateOf(next), CreationDate: sub.created,
		CurrentPeriodNumber: sub.periods, CustomerID: sub.customerID,
		PeriodEndDate: openpay.DateOf(next.AddDate(0, 0, -1)), PlanID: sub.plan.ID,
	}
	if !sub.trialEnd.IsZero() {
		w.TrialEndDate = openpay.DateOf(sub.trialEnd)
	}
	// A card deleted since is still the one the subscription names.
	if k := sub.cards(m).get(sub.cardID); k != nil {
		kw := k.wire()
		w.Card = &kw
	}
	return w
}

// chargeSubscriptionsDue is the clock hook: the merchant's subscriptions
// (the merchants are taken in the order they were added, so that
// identifiers stay deterministic).
func (s *Server) chargeSubscriptionsDue(m *merchant, now time.Time) {
	today := calendar.Day(now, zoneOf(m))
	unlock := s.lockWithGroups(m)
	defer unlock()
	for _, sub := range subscriptionsOf(m).list {
		s.runSubscription(m, sub, today)
	}
}

// nextSubscriptionWork is when the merchant's schedule next has work: the
// start, in the merchant's time zone, of the earliest day on which a
// subscription ends its trial, is charged, is retried or is cancelled at
// the end of its period. The clock stops there (AdvanceClock), so that
// each charge carries the first instant of its own day.
func (s *Server) nextSubscriptionWork(m *merchant) (next time.Time, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, sub := range subscriptionsOf(m).list {
		if day, due := sub.nextWorkDay(); due {
			if at := calendar.StartOfDay(day, zoneOf(m)); !ok || at.Before(next) {
				next, ok = at, true
			}
		}
	}
	return next, ok
}

// nextWorkDay is the day runSubscription next has work on sub: the end of
// the trial, the next charge or the next attempt; false for a subscription
// in a final status. The caller holds m.mu.
func (sub *subscription) nextWorkDay() (time.Time, bool) {
	switch sub.status {
	case openpay.SubscriptionStatusTrial:
		return sub.anchor, true
	case openpay.SubscriptionStatusActive, openpay.SubscriptionStatusPastDue:
		return sub.chargeDate(), true
	}
	return time.Time{}, false
}

// runSubscription does the work due by today on one subscription (see the
// schedule above): each step either moves the subscription on (a period
// paid, an attempt counted, a status changed) or returns, so the loop ends.
// The caller holds m.mu and the lock of the subscription's group, if any.
func (s *Server) runSubscription(m *merchant, sub *subscription, today time.Time) {
	if m.data != nil {
		before := *sub
		defer func() {
			if *sub != before {
				m.mark(recSubscription, sub.id)
			}
		}()
	}
	for {
		var on time.Time
		switch sub.status {
		case openpay.SubscriptionStatusTrial:
			if today.Before(sub.anchor) {
				return
			}
			sub.status = openpay.SubscriptionStatusActive
			continue
		case openpay.SubscriptionStatusActive:
			on = sub.due()
		case openpay.SubscriptionStatusPastDue:
			on = sub.retryOn
		default: // cancelled, unpaid: final
			return
		}
		if today.Before(on) {
			return
		}
		if sub.cancelAtPeriodEnd {
			sub.status = openpay.SubscriptionStatusCancelled
			return
		}
		rec, e := s.chargeSubscription(m, sub)
		if e == nil {
			sub.periods++
			sub.failures = 0
			sub.retryOn = time.Time{}
			sub.status = openpay.SubscriptionStatusActive
			continue
		}
		if rec != nil {
			s.emit(m, openpay.EventTypeSubscriptionChargeFailed, rec)
		}
		sub.failures++
		if sub.failures > sub.plan.RetryTimes {
			sub.status = openpay.SubscriptionStatus(sub.plan.StatusAfterRetry)
			return
		}
		sub.status = openpay.SubscriptionStatusPastDue
		sub.retryOn = on.AddDate(0, 0, 1)
	}
}

// chargeSubscription charges the plan's amount for the next period to the
// subscription's card (a group's customer's card is the group's). On
// failure it returns the error and the failed transaction when one was
// recorded. The caller holds m.mu and the lock of the subscription's
// group, if any.
func (s *Server) chargeSubscription(m *merchant, sub *subscription) (*tx, *Error) {
	var cu *customer
	if sub.group != nil {
		cu = sub.group.customers.lookup(sub.customerID)
	} else {
		cu = m.customers.lookup(sub.customerID)
	}
	t, e := s.chargeStoredCard(m, sub.cards(m), cu, sub.cardID, sub.plan.Amount, openpay.Currency(sub.plan.Currency),
		fmt.Sprintf("Subscription %s to plan %s, period %d", sub.id, sub.plan.ID, sub.periods+1))
	if e != nil {
		return t, e
	}
	return nil, nil
}

// subscriptionCardSource is the card a create or update names: a stored
// card (sourceID) or checked card data to store (inline); neither when the
// update does not change the card.
type subscriptionCardSource struct {
	sourceID string
	inline   *card
}

// parseSubscriptionCard checks the source_id and card members (see the
// rules above); required says one of them must be sent.
func (s *Server) parseSubscriptionCard(m *merchant, f reqbody.Fields, sourceID string, d *openpay.CardDetails, required bool) (subscriptionCardSource, *Error) {
	hasSource, hasCard := f.Has("source_id"), f.Has("card")
	switch {
	case hasSource && hasCard:
		return subscriptionCardSource{}, errorf(openpay.ErrBadRequest, "Send either the field 'source_id' or the field 'card', not both")
	case hasSource:
		var v reqbody.Checker
		v.Identifier("source_id", sourceID)
		return subscriptionCardSource{sourceID: sourceID}, v.Err
	case hasCard:
		sub := f.Object("card")
		if sub == nil || d == nil {
			return subscriptionCardSource{}, errorf(openpay.ErrBadRequest, "The field 'card' must be an object")
		}
		k, e := s.checkCardData(m, sub, "card.", *d, "", "")
		if e != nil {
			return subscriptionCardSource{}, e
		}
		return subscriptionCardSource{inline: &k}, nil
	case required:
		return subscriptionCardSource{}, errorf(openpay.ErrBadRequest, "The field 'source_id' or the field 'card' is required")
	}
	return subscriptionCardSource{}, nil
}

// resolve returns the card a source names for the customer of the path:
// the stored card (1005 unless it is the customer's and not deleted), or
// the card data stored now as a card of the customer (2002 when the
// customer has that number already); stored reports the latter. The caller
// holds the locks of c.lock.
func (src subscriptionCardSource) resolve(c *call, cu *customer) (k *card, stored bool, _ *Error) {
	cards := c.cards()
	if src.inline == nil {
		k := cards.find(cu, src.sourceID)
		if k == nil {
			return nil, false, errNotFound("card", src.sourceID)
		}
		return k, false, nil
	}
	if e := refusedWhenSaved(src.inline); e != nil {
		return nil, false, e
	}
	if cards.holds(cu.id(), src.inline.masked) {
		return nil, false, errorf(openpay.ErrCardExists, "The card is already registered on this customer")
	}
	n := *src.inline
	n.id, n.created, n.customerID = c.s.ids.NewID(idgen.KindCard), c.s.nowFor(c.m), cu.id()
	return cards.add(n), true, nil
}

// checkTrialEnd applies the upper bound of trial_end_date (1003).
func checkTrialEnd(day, today time.Time) *Error {
	if day.After(today.AddDate(0, 0, maxTrialDays)) {
		return errorf(openpay.ErrInvalidParameter, "The field 'trial_end_date' must be at most %d days ahead", maxTrialDays)
	}
	return nil
}

// createSubscription subscribes the customer of the path to a plan.
func (s *Server) createSubscription(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.SubscriptionRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	v.Required(f, "plan_id")
	v.Identifier("plan_id", req.PlanID)
	if v.Err != nil {
		return nil, v.Err
	}
	src, e := s.parseSubscriptionCard(c.m, f, req.SourceID, req.Card, true)
	if e != nil {
		return nil, e
	}

	m := c.m
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	p := plansOf(m).byID[req.PlanID]
	if p == nil {
		return nil, errNotFound("plan", req.PlanID)
	}
	if p.Status == openpay.PlanStatusDeleted {
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'plan_id' names the plan '%s', which is deleted and takes no new subscriptions", p.ID)
	}
	now := s.nowFor(m)
	today := calendar.Day(now, zoneOf(m))
	hasTrialEnd := f.Has("trial_end_date")
	trialEnd := calendar.DateOnly(req.TrialEndDate)
	if hasTrialEnd {
		if e := checkTrialEnd(trialEnd, today); e != nil {
			return nil, e
		}
	}
	k, stored, e := src.resolve(c, cu)
	if e != nil {
		return nil, e
	}
	sub := &subscription{id: s.ids.NewID(idgen.KindSubscription), created: now, plan: p, group: c.g,
		customerID: cu.id(), cardID: k.id}
	switch {
	case hasTrialEnd && !trialEnd.Before(today):
		sub.trialEnd, sub.anchor = trialEnd, trialEnd.AddDate(0, 0, 1)
	case hasTrialEnd: // a past day: no trial
		sub.anchor = today
	case p.TrialDays > 0:
		sub.anchor = today.AddDate(0, 0, p.TrialDays)
		sub.trialEnd = sub.anchor.AddDate(0, 0, -1)
	default:
		sub.anchor = today
	}
	if sub.anchor.After(today) {
		sub.status = openpay.SubscriptionStatusTrial
	} else {
		if _, e := s.chargeSubscription(m, sub); e != nil {
			if stored {
				k.deleted, k.cvvPending = true, false
			}
			return nil, e
		}
		sub.periods = 1
		sub.status = openpay.SubscriptionStatusActive
	}
	st := subscriptionsOf(m)
	st.byID[sub.id] = sub
	st.list = append(st.list, sub)
	m.mark(recSubscription, sub.id)
	return sub.wire(m), nil
}

// scopeSubscription returns the subscription the path names, of the
// customer the path names, or 1005. The caller holds the locks of c.lock.
func (c *call) scopeSubscription() (*subscription, *customer, *Error) {
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, nil, e
	}
	id := c.param("subscription_id")
	sub := subscriptionsOf(c.m).byID[id]
	if sub == nil || sub.customerID != cu.id() || sub.group != c.g || sub.deleted {
		return nil, nil, errNotFound("subscription", id)
	}
	return sub, cu, nil
}

// getSubscription answers a subscription.
func (s *Server) getSubscription(c *call) (any, *Error) {
	defer c.lock()()
	sub, _, e := c.scopeSubscription()
	if e != nil {
		return nil, e
	}
	return sub.wire(c.m), nil
}

// updateSubscription changes the card, the end of the trial or
// cancel_at_period_end (see the rules above).
func (s *Server) updateSubscription(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.SubscriptionUpdateRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	// read-echo (reqbody/lenient.go): a client that read the subscription
	// may send it back whole, its card masked as answers show it; that card
	// is the one the subscription has, checked under the lock below.
	echoedCard := req.Card != nil && strings.ContainsRune(req.Card.CardNumber, 'X') && !f.Has("source_id")
	var src subscriptionCardSource
	if !echoedCard {
		if src, e = s.parseSubscriptionCard(c.m, f, req.SourceID, req.Card, false); e != nil {
			return nil, e
		}
	}

	m := c.m
	defer c.lock()()
	sub, cu, e := c.scopeSubscription()
	if e != nil {
		return nil, e
	}
	if sub.status == openpay.SubscriptionStatusCancelled {
		return nil, errorf(openpay.ErrInvalidParameter, "The subscription '%s' is cancelled and cannot be changed", sub.id)
	}
	if echoedCard {
		if k := sub.cards(m).get(sub.cardID); k == nil || k.masked != req.Card.CardNumber {
			// Not the card the subscription has: card data, checked as such
			// (a masked number is refused).
			_, e := s.parseSubscriptionCard(c.m, f, req.SourceID, req.Card, false)
			return nil, e
		}
	}
	today := calendar.Day(s.nowOf(m), zoneOf(m))
	hasTrialEnd := f.Has("trial_end_date")
	trialEnd := calendar.DateOnly(req.TrialEndDate)
	if hasTrialEnd && !sub.trialEnd.IsZero() && trialEnd.Equal(sub.trialEnd) && sub.status != openpay.SubscriptionStatusTrial {
		hasTrialEnd = false // read-echo: the trial's end as read, unchanged
	}
	if hasTrialEnd {
		if sub.status != openpay.SubscriptionStatusTrial {
			return nil, errorf(openpay.ErrInvalidParameter, "The field 'trial_end_date' can only change during the trial")
		}
		if e := checkTrialEnd(trialEnd, today); e != nil {
			return nil, e
		}
	}
	if src.inline != nil || src.sourceID != "" {
		k, _, e := src.resolve(c, cu)
		if e != nil {
			return nil, e
		}
		sub.cardID = k.id
	}
	if req.CancelAtPeriodEnd != nil {
		sub.cancelAtPeriodEnd = *req.CancelAtPeriodEnd
	}
	if hasTrialEnd {
		if !trialEnd.Before(today) {
			sub.trialEnd, sub.anchor = trialEnd, trialEnd.AddDate(0, 0, 1)
		} else {
			// The trial ends now: its last day was yesterday, unless the
			// subscription was created today (then it had none).
			sub.anchor, sub.trialEnd = today, today.AddDate(0, 0, -1)
			if sub.trialEnd.Before(calendar.Day(sub.created, zoneOf(m))) {
				sub.trialEnd = time.Time{}
			}
			s.runSubscription(m, sub, today)
		}
	}
	m.mark(recSubscription, sub.id)
	return sub.wire(m), nil
}

// deleteSubscription cancels a subscription at once.
func (s *Server) deleteSubscription(c *call) (any, *Error) {
	defer c.lock()()
	if sub := subscriptionsOf(c.m).byID[c.param("subscription_id")]; sub != nil && sub.deleted {
		cu, e := c.scopeCustomer()
		if e != nil {
			return nil, e
		}
		if sub.customerID == cu.id() && sub.group == c.g {
			return nil, nil // a retried DELETE
		}
	}
	sub, _, e := c.scopeSubscription()
	if e != nil {
		return nil, e
	}
	sub.status, sub.deleted = openpay.SubscriptionStatusCancelled, true
	c.m.mark(recSubscription, sub.id)
	return nil, nil
}

// listSubscriptions lists the subscriptions of the customer of the path,
// newest first.
func (s *Server) listSubscriptions(c *call) (any, *Error) {
	lp, e := listquery.Parse(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	return listquery.Page(lp, subscriptionsOf(c.m).list, func(sub *subscription) (time.Time, bool) {
		return sub.created, sub.customerID == cu.id() && sub.group == c.g && !sub.deleted
	}, func(sub *subscription) openpay.Subscription { return sub.wire(c.m) }), nil
}
