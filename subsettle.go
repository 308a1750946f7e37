package openpay

import (
	"context"
	"fmt"
	"net/http"
	neturl "net/url"
	"time"

	"github.com/openpay-go/openpay/internal/transport"
)

// A subscription create carries no order_id, so a create whose answer was
// lost cannot be looked up as a charge is. It is settled by what it made:
// the customer's subscription to the request's plan, charged to the
// request's card, created since the call began. This file holds that
// lookup, used by Create after an unknown outcome and by a recovery job
// through FindCreated.

// FindCreated settles a subscription create whose outcome was unknown (an
// error matching [ErrOutcomeUnknown], an [*OutcomeUnknownError]): req is
// the request as it was sent, began the moment (on this machine's clock)
// taken just before that Create was called. It returns the subscription
// that create made: the customer's subscription to req.PlanID on req's
// card (SourceID, or the card whose number req.Card has) created since
// began, by the gateway's clock estimated from the lookup's Date header
// (the oldest such, should there be more).
//
// When none is found the answer depends on how long ago began is. A create
// may still be carried out well after its caller gave up (the request
// waits at the gateway, which does not stop because the client went away);
// the SDK holds that it is not, the client's in-flight bound after it began
// ([WithInFlightBound], [DefaultInFlightBound]). Before that, the answer is
// an [*OutcomeUnknownError] again: look again later, never send the create
// again. After it, the answer matches [ErrNotFound]: the create made
// nothing, and only then is it safe to send it again.
//
// Following this, a recovery never makes a second subscription: it either
// finds the first, or learns after the in-flight bound that there is none.
func (ss *SubscriptionsService) FindCreated(ctx context.Context, req SubscriptionRequest, began time.Time, opts ...CallOption) (*Subscription, error) {
	s := scopeOf(ss)
	u, err := s.url("subscriptions")
	if err != nil {
		return nil, err
	}
	path := s.c.displayPath(u)
	sub, err := ss.findCreated(ctx, req, began, opts)
	if err != nil || sub != nil {
		return sub, err
	}
	wait := s.c.inFlight
	if time.Since(began) < wait {
		return nil, &OutcomeUnknownError{Method: http.MethodPost, Path: path,
			Err: fmt.Errorf("openpay: no subscription found yet, and the create may still be carried out until %s after it began", wait)}
	}
	return nil, fmt.Errorf("openpay: no subscription to plan %.100q on that card was created since %s: %w",
		req.PlanID, began.Format(time.RFC3339), ErrNotFound)
}

// findCreated looks for the subscription a create of req begun at began
// made (see FindCreated): nil, nil when there is none. opts are the
// caller's options of FindCreated; Create's own lookup takes none of its
// caller's, since it is not the caller's call.
func (ss *SubscriptionsService) findCreated(ctx context.Context, req SubscriptionRequest, began time.Time, opts []CallOption) (*Subscription, error) {
	s := scopeOf(ss)
	u, err := s.url("subscriptions")
	if err != nil {
		return nil, err
	}
	var page []Subscription
	resp, err := s.c.roundTrip(ctx, apiRequest{method: http.MethodGet, url: u, query: neturl.Values{"limit": {"100"}}, opts: opts},
		s.c.displayPath(u), nil, &page)
	if err != nil {
		return nil, err
	}
	since := gatewayTime(resp, began)
	var found *Subscription
	for i := range page { // newest first
		sub := &page[i]
		if !since.IsZero() && sub.CreationDate.Before(since.Add(-clockAllowance)) {
			break
		}
		if createdBy(sub, req) {
			found = sub
		}
	}
	return found, nil
}

// createdBy reports whether sub is what req asks for: its plan, and its
// card (the stored one it names, or the card whose number it sends).
func createdBy(sub *Subscription, req SubscriptionRequest) bool {
	if sub.PlanID != req.PlanID || sub.Card == nil {
		return false
	}
	if req.SourceID != "" {
		return sub.Card.ID == req.SourceID
	}
	return req.Card != nil && sameCardNumber(sub.Card.CardNumber, req.Card.CardNumber)
}

// settleCreate settles a Create of req begun at began whose answer left
// the outcome unknown (cause): the subscription it made when the lookup
// finds it, else an *OutcomeUnknownError (see FindCreated for the way to
// settle it later).
func (ss *SubscriptionsService) settleCreate(ctx context.Context, req SubscriptionRequest, began time.Time, cause error) (*Subscription, error) {
	s := scopeOf(ss)
	u, _ := s.url("subscriptions")
	if ctx.Err() != nil {
		// An ended context is honoured at once, as for transactions: the
		// outcome stays unknown and FindCreated settles it later.
		return nil, &OutcomeUnknownError{Method: http.MethodPost, Path: s.c.displayPath(u), Err: cause, Lookup: &notLookedUp{err: context.Cause(ctx)}}
	}
	sub, lerr := ss.findCreated(ctx, req, began, nil)
	if sub != nil {
		return sub, nil
	}
	return nil, &OutcomeUnknownError{Method: http.MethodPost, Path: s.c.displayPath(u), Err: cause, Lookup: lerr}
}

// clockAllowance is how much earlier than a call's first attempt, by the
// gateway's clock, an object may say it was created and still be that
// call's: the gateway writes creation dates and its Date header to the
// second, and its servers' clocks may differ a little.
const clockAllowance = 5 * time.Second

// gatewayTime is when a request sent at sent left, by the gateway's clock:
// the Date header of resp, an answer to a later request, less the time
// since sent. Zero when either is unknown.
func gatewayTime(resp *transport.Response, sent time.Time) time.Time {
	if resp == nil || sent.IsZero() {
		return time.Time{}
	}
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return time.Time{}
	}
	return date.Add(-time.Since(sent))
}
