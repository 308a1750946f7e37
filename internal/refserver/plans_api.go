package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Plans (/v1/{merchant_id}/plans): what a subscription charges, and how
// often. Subscriptions themselves are in subscriptions_api.go.
//
// Rules, from section 4.7 and the limits of section 8 where they speak,
// chosen where they do not:
//
//   - create: name, amount, repeat_every, repeat_unit, status_after_retry
//     and trial_days required (1001 when absent, null or of the wrong type).
//     name not blank (1001) and at most 255 characters; amount greater than
//     zero with at most two decimals; currency MXN (the default) or USD, as
//     for charges; repeat_every from 1 to maxRepeatEvery; repeat_unit week,
//     month or year; retry_times (optional, default 0) 0 or more;
//     status_after_retry unpaid or cancelled; trial_days from 0 to
//     maxTrialDays (1003 naming the field). The two upper bounds are the
//     server's own, so that every date it computes stays a plain four-digit
//     year; the gateway states none.
//   - update (PUT) changes the name (not blank, at most 80 characters) and
//     the trial days (same range as on create); only the members sent
//     change. The specification says only these two can change. The other
//     members of a plan request (amount, currency, repeat_every,
//     repeat_unit, retry_times, status_after_retry) are refused with 1003
//     naming the member when they differ from the plan's value, and
//     accepted when they repeat it, as the customer update treats
//     external_id: a client that sends the whole plan back with a new name
//     works, and one that tries to change the amount learns that it cannot
//     instead of having the change silently dropped. Members a plan request
//     does not have (id, status, creation_date, ...) are ignored, as
//     everywhere. A deleted plan cannot be updated (1003).
//   - delete moves the plan to deleted and answers 204; the plan stays
//     readable and listed with that status. Its existing subscriptions keep
//     being charged (section 3); a new subscription to it is refused with
//     1003 naming plan_id (the plan exists, so not 1005; a request the state
//     of a resource refuses answers 1003 throughout this server). Deleting a
//     deleted plan answers 204 again, so that a retried DELETE succeeds.
//   - lists are newest first with the common filters (creation,
//     creation[gte], creation[lte], offset, limit); the plan list holds
//     deleted plans too (their status says so). The list of a plan's
//     subscriptions holds every subscription to it, of every customer,
//     whatever its status.
//   - one subscription of a plan (the Java SDK's getByPlan) is any of those,
//     of whichever customer; a subscription to another plan is 1005, as a
//     card of another customer is.

// Upper bounds the server sets on plan values (see above).
const (
	maxRepeatEvery = 365
	maxTrialDays   = 3650
)

// registerPlans registers subscription plans, and the list of a plan's subscriptions.
func (s *Server) registerPlans(r *routeTable) {
	r.add("listPlans", http.MethodGet, "/v1/{merchant_id}/plans", http.StatusOK, s.listPlans)
	r.add("createPlan", http.MethodPost, "/v1/{merchant_id}/plans", http.StatusOK, s.createPlan)
	r.add("getPlan", http.MethodGet, "/v1/{merchant_id}/plans/{plan_id}", http.StatusOK, s.getPlan)
	r.add("updatePlan", http.MethodPut, "/v1/{merchant_id}/plans/{plan_id}", http.StatusOK, s.updatePlan)
	r.add("deletePlan", http.MethodDelete, "/v1/{merchant_id}/plans/{plan_id}", http.StatusNoContent, s.deletePlan)
	r.add("listPlanSubscriptions", http.MethodGet, "/v1/{merchant_id}/plans/{plan_id}/subscriptions", http.StatusOK, s.listPlanSubscriptions)
	r.add("getPlanSubscription", http.MethodGet, "/v1/{merchant_id}/plans/{plan_id}/subscriptions/{subscription_id}", http.StatusOK, s.getPlanSubscription)
}

// planState is a merchant's plans. A plan is kept as its wire form: it has
// no nested pointers, so a copy of it is a safe snapshot, and only its
// top-level fields (name, trial days, status) ever change.
type planState struct {
	byID map[string]*openpay.Plan
	list []*openpay.Plan // creation order
}

func newPlanState() *planState { return &planState{byID: make(map[string]*openpay.Plan)} }

// plansOf returns the merchant's plans. The caller holds m.mu.
func plansOf(m *merchant) *planState { return extState(m, newPlanState) }

// checkTrialDays applies the trial_days range (1003).
func checkTrialDays(v *reqbody.Checker, days int) {
	if days < 0 || days > maxTrialDays {
		v.Failf(openpay.ErrInvalidParameter, "The field 'trial_days' must be from 0 to %d", maxTrialDays)
	}
}

// createPlan creates a plan.
func (s *Server) createPlan(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.PlanRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	v.Required(f, "name", "amount", "repeat_every", "repeat_unit", "status_after_retry", "trial_days")
	v.NonEmpty("name", req.Name)
	v.MaxLen("name", req.Name, 255)
	v.Amount("amount", req.Amount)
	if req.RepeatEvery < 1 || req.RepeatEvery > maxRepeatEvery {
		v.Failf(openpay.ErrInvalidParameter, "The field 'repeat_every' must be from 1 to %d", maxRepeatEvery)
	}
	if !req.RepeatUnit.Valid() {
		v.Failf(openpay.ErrInvalidParameter, "The field 'repeat_unit' must be week, month or year")
	}
	if req.RetryTimes < 0 {
		v.Failf(openpay.ErrInvalidParameter, "The field 'retry_times' must be 0 or more")
	}
	if !req.StatusAfterRetry.Valid() {
		v.Failf(openpay.ErrInvalidParameter, "The field 'status_after_retry' must be unpaid or cancelled")
	}
	checkTrialDays(&v, req.TrialDays)
	if v.Err != nil {
		return nil, v.Err
	}
	currency, e := planCurrency(c.m.country, req.Currency)
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	ps := plansOf(c.m)
	p := &openpay.Plan{
		ID: c.newID(idgen.KindPlan), CreationDate: s.nowFor(c.m), Name: req.Name, Amount: req.Amount,
		Currency: currency, RepeatEvery: req.RepeatEvery, RepeatUnit: req.RepeatUnit,
		RetryTimes: req.RetryTimes, Status: openpay.PlanStatusActive, StatusAfterRetry: req.StatusAfterRetry,
		TrialDays: req.TrialDays,
	}
	ps.byID[p.ID] = p
	ps.list = append(ps.list, p)
	c.m.mark(recPlan, p.ID)
	return *p, nil
}

// scopePlan returns the plan the path names (deleted ones included), or
// 1005. The caller holds c.m.mu.
func (c *call) scopePlan() (*openpay.Plan, *Error) {
	id := c.param("plan_id")
	p := plansOf(c.m).byID[id]
	if p == nil {
		return nil, errNotFound("plan", id)
	}
	return p, nil
}

// getPlan answers a plan.
func (s *Server) getPlan(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	p, e := c.scopePlan()
	if e != nil {
		return nil, e
	}
	return *p, nil
}

// updatePlan changes a plan's name or trial days (see the rules above).
func (s *Server) updatePlan(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.PlanUpdateRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	// The members that cannot change, decoded to compare them with the
	// plan's values (a wrong type answers 1001 as on create).
	var fixed openpay.PlanRequest
	if e := f.Into(&fixed); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	if f.Has("name") {
		v.NonEmpty("name", req.Name)
		v.MaxLen("name", req.Name, 80)
	}
	if req.TrialDays != nil {
		checkTrialDays(&v, *req.TrialDays)
	}
	if v.Err != nil {
		return nil, v.Err
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	p, e := c.scopePlan()
	if e != nil {
		return nil, e
	}
	currency := fixed.Currency
	if currency == "" {
		currency = c.m.country.Currency
	}
	for _, fx := range []struct {
		name string
		same bool
	}{
		{"amount", fixed.Amount.Cmp(p.Amount) == 0},
		{"currency", currency == p.Currency},
		{"repeat_every", fixed.RepeatEvery == p.RepeatEvery},
		{"repeat_unit", fixed.RepeatUnit == p.RepeatUnit},
		{"retry_times", fixed.RetryTimes == p.RetryTimes},
		{"status_after_retry", fixed.StatusAfterRetry == p.StatusAfterRetry},
	} {
		if f.Has(fx.name) && !fx.same {
			return nil, errorf(openpay.ErrInvalidParameter,
				"The field '%s' of a plan cannot be changed; only name and trial_days can", fx.name)
		}
	}
	if p.Status == openpay.PlanStatusDeleted {
		return nil, errorf(openpay.ErrInvalidParameter, "The plan '%s' is deleted and cannot be changed", p.ID)
	}
	if f.Has("name") {
		p.Name = req.Name
	}
	if req.TrialDays != nil {
		p.TrialDays = *req.TrialDays
	}
	c.m.mark(recPlan, p.ID)
	return *p, nil
}

// deletePlan moves a plan to deleted.
func (s *Server) deletePlan(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	p, e := c.scopePlan()
	if e != nil {
		return nil, e
	}
	p.Status = openpay.PlanStatusDeleted
	c.m.mark(recPlan, p.ID)
	return nil, nil
}

// listPlans lists the merchant's plans, newest first.
func (s *Server) listPlans(c *call) (any, *Error) {
	lp, e := listquery.Parse(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	return listquery.Page(lp, plansOf(c.m).list, func(p *openpay.Plan) (time.Time, bool) {
		return p.CreationDate, true
	}, func(p *openpay.Plan) openpay.Plan { return *p }), nil
}

// listPlanSubscriptions lists the subscriptions to a plan, newest first.
func (s *Server) listPlanSubscriptions(c *call) (any, *Error) {
	lp, e := listquery.Parse(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	// A group customer's subscription shows a card the group stores.
	defer s.lockWithGroups(c.m)()
	p, e := c.scopePlan()
	if e != nil {
		return nil, e
	}
	return listquery.Page(lp, subscriptionsOf(c.m).list, func(sub *subscription) (time.Time, bool) {
		return sub.created, sub.plan == p && !sub.deleted
	}, func(sub *subscription) openpay.Subscription { return sub.wire(c.m) }), nil
}

// getPlanSubscription answers one subscription to a plan.
func (s *Server) getPlanSubscription(c *call) (any, *Error) {
	// A group customer's subscription shows a card the group stores.
	defer s.lockWithGroups(c.m)()
	p, e := c.scopePlan()
	if e != nil {
		return nil, e
	}
	id := c.param("subscription_id")
	sub := subscriptionsOf(c.m).byID[id]
	if sub == nil || sub.plan != p || sub.deleted {
		return nil, errNotFound("subscription", id)
	}
	return sub.wire(c.m), nil
}
