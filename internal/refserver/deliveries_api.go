package refserver

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
)

// Delivery controls, for suites that run the server as a process what
// openpaytest's WaitForDeliveries and WebhookDeliveryStats are in Go:
//
//	GET  /_simulate/{merchant_id}/deliveries        the merchant's deliveries: {"pending": n, "webhooks": [{"id", "url", "pending", "dropped", "given_up"}]}
//	POST /_simulate/{merchant_id}/deliveries/wait   {"timeout_ms": 10000} (optional): waits until none of the merchant's deliveries is pending, then answers as GET does
//
// A wait answers once every delivery of the merchant queued before it is
// done with (delivered, given up after its last attempt, or dropped), or
// when its timeout passes (default 30 seconds, at most 5 minutes); "idle"
// in the answer says which. It waits outside the server's gate, so a reset
// or other requests are not held by it. Asserting that no event arrives
// is then a wait and a look at the receiver, with no sleep.

// The bounds of a wait for deliveries.
const (
	defaultDeliveryWait = 30 * time.Second
	maxDeliveryWait     = 5 * time.Minute
)

// deliveryStatsWire is the answer of the delivery controls.
type deliveryStatsWire struct {
	Idle     bool               `json:"idle"`
	Pending  int                `json:"pending"`
	Webhooks []webhookStatsWire `json:"webhooks"`
}

type webhookStatsWire struct {
	ID      string `json:"id"`
	URL     string `json:"url"`
	Pending int    `json:"pending"`
	Dropped int64  `json:"dropped"`
	GivenUp int64  `json:"given_up"`
}

func (s *Server) registerDeliveryControls(r *routeTable) {
	r.control("deliveries", http.MethodGet, "/_simulate/{merchant_id}/deliveries", http.StatusOK, func(c *call) (any, *Error) {
		return s.deliveryStats(c), nil
	})
	r.simulate("waitForDeliveries", "/_simulate/{merchant_id}/deliveries/wait", func(c *call) (any, *Error) {
		f, e := readBody(c, true)
		if e != nil {
			return nil, e
		}
		var body struct {
			TimeoutMS *int64 `json:"timeout_ms"`
		}
		if e := f.Into(&body); e != nil {
			return nil, e
		}
		wait := defaultDeliveryWait
		if body.TimeoutMS != nil {
			if *body.TimeoutMS < 0 || *body.TimeoutMS > maxDeliveryWait.Milliseconds() {
				return nil, errorf(openpay.ErrInvalidParameter, "The field 'timeout_ms' must be from 0 to %d", maxDeliveryWait.Milliseconds())
			}
			wait = time.Duration(*body.TimeoutMS) * time.Millisecond
		}
		var werr error
		if _, e := c.outsideGate(func() {
			ctx, cancel := context.WithTimeout(c.r.Context(), wait)
			defer cancel()
			werr = s.deliveries.WaitFor(ctx, c.m.id)
		}); e != nil {
			return nil, e
		}
		if werr != nil && !errors.Is(werr, context.DeadlineExceeded) {
			return nil, errorf(openpay.ErrBadRequest, "The request ended before the deliveries were done")
		}
		return s.deliveryStats(c), nil
	})
}

// deliveryStats is the state of the deliveries of the call's merchant.
func (s *Server) deliveryStats(c *call) deliveryStatsWire {
	out := deliveryStatsWire{Pending: s.deliveries.PendingFor(c.m.id), Webhooks: []webhookStatsWire{}}
	out.Idle = out.Pending == 0
	c.m.mu.Lock()
	hooks := webhooksOf(c.m).list
	ids := make([]webhookStatsWire, len(hooks))
	for i, wh := range hooks {
		ids[i] = webhookStatsWire{ID: wh.w.ID, URL: wh.w.URL}
	}
	c.m.mu.Unlock()
	for _, w := range ids {
		st := s.deliveries.Stats(w.ID)
		w.Pending, w.Dropped, w.GivenUp = st.Pending, st.Dropped, st.GivenUp
		out.Webhooks = append(out.Webhooks, w)
	}
	return out
}
