package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
)

// A SaaS's year of billing on the reference server's fake clock: a monthly
// plan with a 14-day trial and a yearly plan; customers who pay, one whose
// card expires and who gives another when asked, one whose card never has
// the funds, one who moves to the yearly plan; subscriptions created while
// answers get lost; webhooks delivered twice and out of order. Every day
// passed, the SaaS books the day's events; at the end its invoices match
// the gateway's charges to the cent.

// subscriber is one of the SaaS's customers as the run knows them.
type subscriber struct {
	name     string
	card     string // the test card first saved
	expiry   int    // months the first card stays valid (0: years)
	yearly   bool   // subscribes to the yearly plan
	faulty   string // how the create's answer is lost: "drop" or "delay"
	customer *openpay.Customer
	sub      *openpay.Subscription
}

// saasReport is what the run leaves for its checks.
type saasReport struct {
	b           *billing
	subscribers []*subscriber
	monthly     *openpay.Plan
	yearly      *openpay.Plan
	// moved is the subscription the plan change started.
	moved *openpay.Subscription
	// cardsTaken counts the new cards the dunning obtained.
	cardsTaken int
	// redelivered counts the deliveries the handler failed (a busy
	// gateway on its re-read), delivered again.
	redelivered int
	// The Colombian arm of the SaaS: its own merchant account, billing and
	// subscriber, on a COP plan (charged with no IVA: plans carry none).
	co           *openpaytest.Merchant
	coClient     *openpay.Client
	coBilling    *billing
	coSubscriber *subscriber
}

// cardFor is a card request for a test card valid for the given number of
// months from now on the gateway's clock (0: three years).
func cardFor(number string, now time.Time, months int) openpay.CardRequest {
	exp := now.AddDate(3, 0, 0)
	if months > 0 {
		exp = time.Date(now.Year(), now.Month()+time.Month(months), 1, 0, 0, 0, 0, now.Location())
	}
	return openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Cliente SaaS", CardNumber: number,
		CVV2: openpaytest.CVV(number), ExpirationMonth: exp.Format("01"), ExpirationYear: exp.Format("06")}}
}

// runSaaS runs months of the SaaS's billing on the embedded server,
// arming faults when faults is set, and writes its invoices to out.
func runSaaS(ctx context.Context, env *exampleenv.Env, out io.Writer, months int, faults bool) (*saasReport, error) {
	c, srv := env.Client, env.Sim
	r := &saasReport{b: newBilling(c)}
	var err error
	if r.monthly, err = c.Plans.Create(ctx, openpay.PlanRequest{Name: "SaaS mensual", Amount: openpay.MustAmount("299.00"),
		RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitMonth, RetryTimes: 3, StatusAfterRetry: openpay.StatusAfterRetryUnpaid, TrialDays: 14}); err != nil {
		return nil, err
	}
	if r.yearly, err = c.Plans.Create(ctx, openpay.PlanRequest{Name: "SaaS anual", Amount: openpay.MustAmount("2990.00"),
		RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitYear, RetryTimes: 3, StatusAfterRetry: openpay.StatusAfterRetryUnpaid}); err != nil {
		return nil, err
	}
	r.subscribers = []*subscriber{
		{name: "ana", card: openpaytest.CardVisa},
		{name: "bruno", card: openpaytest.CardVisa, expiry: 3},
		{name: "carla", card: openpaytest.CardInsufficientFunds},
		{name: "diego", card: openpaytest.CardMastercard, yearly: true},
		{name: "elena", card: openpaytest.CardVisaCredit},
		{name: "fernanda", card: openpaytest.CardAmex, faulty: "drop"},
		{name: "gabriel", card: openpaytest.CardMastercard, faulty: "delay"},
	}
	const subscriptionsRoute = "/v1/{merchant_id}/customers/{customer_id}/subscriptions"
	// A client that gives up soon, for the create held at the server; the
	// server holds a request at most a second here (the fault's delay), so
	// its creates are settled 1.5 s after they began.
	impatient, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL),
		openpay.WithTimeout(300*time.Millisecond), openpay.WithInFlightBound(1500*time.Millisecond))
	if err != nil {
		return nil, err
	}
	start, seen := srv.Now(), len(srv.Events())
	for _, s := range r.subscribers {
		if s.customer, err = c.Customers.Create(ctx, openpay.CustomerRequest{Name: s.name, Email: s.name + "@example.com"}); err != nil {
			return nil, err
		}
		card, err := c.Customer(s.customer.ID).Cards.Create(ctx, cardFor(s.card, start, s.expiry))
		if err != nil {
			return nil, fmt.Errorf("%s's card: %w", s.name, err)
		}
		req := openpay.SubscriptionRequest{PlanID: r.monthly.ID, SourceID: card.ID}
		if s.yearly {
			req.PlanID = r.yearly.ID
		}
		client := c
		if faults {
			switch s.faulty {
			case "drop": // made, then the answer is lost
				err = srv.InjectFault(openpaytest.Fault{Method: "POST", Path: subscriptionsRoute, Drop: openpaytest.DropAfter})
			case "delay": // held at the server while the client gives up
				err = srv.InjectFault(openpaytest.Fault{Method: "POST", Path: subscriptionsRoute, Delay: time.Second})
				client = impatient
			}
			if err != nil {
				return nil, err
			}
		}
		if s.sub, err = r.b.subscribe(ctx, client.Customer(s.customer.ID).Subscriptions, req); err != nil {
			return nil, fmt.Errorf("subscribing %s: %w", s.name, err)
		}
	}
	if err := r.startColombia(ctx, srv, start); err != nil {
		return nil, fmt.Errorf("the Colombian account: %w", err)
	}
	coSeen := 0
	if faults {
		// The re-reads of the event handler meet a busy gateway (the SDK
		// retries a GET on 503).
		if err := srv.InjectFault(openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers/{customer_id}/charges/{transaction_id}",
			ErrorCode: openpay.ErrServiceUnavailable, Count: 3}); err != nil {
			return nil, err
		}
	}

	end := start.AddDate(0, months, 0)
	var redeliver []openpay.WebhookEvent
	elena := r.subscribers[4]
	for day := 1; srv.Now().Before(end); day++ {
		if _, err := srv.AdvanceClock(24 * time.Hour); err != nil {
			return nil, err
		}
		// The day's webhooks, each delivered twice: last first, then in order.
		// A delivery the handler fails is not acknowledged: the gateway
		// delivers it again later (here, the next day).
		evs := srv.Events()
		batch := slices.Concat(redeliver, evs[seen:])
		seen, redeliver = len(evs), nil
		twice := slices.Concat(batch, batch)
		slices.Reverse(twice[:len(batch)])
		for _, ev := range twice {
			if err := r.b.handle(ctx, ev); err != nil {
				fmt.Fprintf(out, "%s: %s not acknowledged, delivered again: %v\n", srv.Now().Format(time.DateOnly), ev.Type, err)
				redeliver = append(redeliver, ev)
				r.redelivered++
			}
		}
		coEvents := r.co.Events()
		for _, ev := range coEvents[coSeen:] {
			if err := r.coBilling.handle(ctx, ev); err != nil {
				return nil, fmt.Errorf("handling %s (CO): %w", ev.Type, err)
			}
		}
		coSeen = len(coEvents)
		// Dunning: a customer asked for a card gives one, valid for years.
		for subID, customerID := range r.b.askedForCards() {
			if err := r.b.takeNewCard(ctx, customerID, subID, cardFor(openpaytest.CardVisaCredit, srv.Now(), 0)); err != nil {
				return nil, err
			}
			r.cardsTaken++
		}
		if day == 120 { // elena moves to the yearly plan at her period's end
			if r.moved, err = r.b.changePlan(ctx, elena.customer.ID, elena.sub.ID, r.yearly.ID); err != nil {
				return nil, fmt.Errorf("changing elena's plan: %w", err)
			}
		}
	}

	for _, s := range r.subscribers {
		paid, ids, failed := r.b.ledger(s.customer.ID)
		fmt.Fprintf(out, "%-8s %2d invoices paid, %s MXN; %d failed\n", s.name, len(ids), paid, len(failed))
	}
	paid, ids, failed := r.coBilling.ledger(r.coSubscriber.customer.ID)
	fmt.Fprintf(out, "%-8s %2d invoices paid, %s COP; %d failed\n", r.coSubscriber.name, len(ids), paid, len(failed))
	return r, nil
}

// startColombia opens the SaaS's Colombian account on the same server and
// subscribes its customer to a monthly COP plan.
func (r *saasReport) startColombia(ctx context.Context, srv *openpaytest.Server, now time.Time) error {
	var err error
	if r.co, err = srv.AddMerchantIn(openpay.CountryColombia, "", "", ""); err != nil {
		return err
	}
	if r.coClient, err = openpay.New(r.co.MerchantID, r.co.PrivateKey, openpay.WithCountry(openpay.CountryColombia),
		openpay.WithBaseURL(srv.URL)); err != nil {
		return err
	}
	c := r.coClient
	r.coBilling = newBilling(c)
	plan, err := c.Plans.Create(ctx, openpay.PlanRequest{Name: "SaaS mensual Colombia", Amount: openpay.MustAmount("49900.00"),
		RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitMonth, RetryTimes: 3, StatusAfterRetry: openpay.StatusAfterRetryUnpaid, TrialDays: 14})
	if err != nil {
		return err
	}
	s := &subscriber{name: "hernan", card: openpaytest.CardVisa}
	if s.customer, err = c.Customers.Create(ctx, openpay.CustomerRequest{Name: s.name, Email: s.name + "@example.com"}); err != nil {
		return err
	}
	card, err := c.Customer(s.customer.ID).Cards.Create(ctx, cardFor(s.card, now, 0))
	if err != nil {
		return err
	}
	if s.sub, err = r.coBilling.subscribe(ctx, c.Customer(s.customer.ID).Subscriptions, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID}); err != nil {
		return err
	}
	r.coSubscriber = s
	return nil
}
