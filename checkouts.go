package openpay

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// CheckoutsService manages checkouts, the gateway's payment links
// (Client.Checkouts, and Client.Customer(id).Checkouts for a customer's).
// The payer opens a checkout's CheckoutLink, the gateway's hosted page, and
// pays there; the charge appears as the checkout's Transaction and sends
// the usual charge webhooks (charge.succeeded, charge.failed).
//
// A link for an order, paid by whoever opens it:
//
//	co, err := client.Checkouts.Create(ctx, openpay.CheckoutRequest{
//		Amount: openpay.MustAmount("349.90"), Description: "Order 1001", OrderID: "order-1001",
//		RedirectURL: "https://shop.example/paid", ExpirationDate: time.Now().Add(48 * time.Hour),
//		Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"},
//	})
//	// send co.CheckoutLink to the payer; later:
//	co, err = client.Checkouts.Get(ctx, co.ID)
//	if co.Status == openpay.CheckoutStatusCompleted { ... co.Transaction.ID ... }
type CheckoutsService struct{ s scope }

// Create creates a checkout. At merchant scope the payer may be described
// by req.Customer; a customer's checkouts (Client.Customer(id).Checkouts)
// take none, the customer being the payer. An OrderID already used by a
// checkout or a transaction gives [ErrDuplicateOrderID]. A create whose
// answer is lost ([ErrOutcomeUnknown]) is not looked up by order_id as a
// transaction's is: settle it with [CheckoutsService.GetByOrderID] before
// creating the link again.
func (cs *CheckoutsService) Create(ctx context.Context, req CheckoutRequest, opts ...CallOption) (*Checkout, error) {
	s := scopeOf(cs)
	return call[Checkout](ctx, s, apiRequest{opts: opts, method: http.MethodPost, body: req.wireIn(s.c.zone())}, "checkouts")
}

// Get returns a checkout by its id. Find one by your order_id with
// [CheckoutsService.GetByOrderID], as on the other services: the gateway's
// path answers an order_id too, but only GetByOrderID makes sure that is
// what matched.
func (cs *CheckoutsService) Get(ctx context.Context, checkoutID string, opts ...CallOption) (*Checkout, error) {
	return call[Checkout](ctx, scopeOf(cs), apiRequest{opts: opts, method: http.MethodGet}, "checkouts", checkoutID)
}

// GetByOrderID returns the checkout made with orderID, or an error matching
// [ErrNotFound] when there is none, as the other services' GetByOrderID do.
// A lost answer to Create is settled with it (same order_id).
func (cs *CheckoutsService) GetByOrderID(ctx context.Context, orderID string, opts ...CallOption) (*Checkout, error) {
	s := scopeOf(cs)
	if _, err := s.url("checkouts"); err != nil {
		return nil, err
	}
	if orderID == "" {
		return nil, invalidArgument("openpay: GetByOrderID needs an order_id")
	}
	co, err := call[Checkout](ctx, s, apiRequest{opts: opts, method: http.MethodGet}, "checkouts", orderID)
	if err != nil {
		return nil, err
	}
	if co.OrderID != orderID { // the gateway matched a checkout's id, not an order_id
		return nil, fmt.Errorf("openpay: no checkout has order_id %q: %w", orderID, ErrNotFound)
	}
	return co, nil
}

// Update changes a checkout: req.Status (CheckoutStatusAvailable or
// CheckoutStatusCancelled; empty keeps it) and, when req.ExpirationDate is
// set, its expiration. Setting available with a future expiration opens
// an expired or cancelled checkout again; a completed one cannot change.
//
// The gateway updates checkouts only at the merchant's path, so a
// customer's checkout is updated there too, from either scope.
func (cs *CheckoutsService) Update(ctx context.Context, checkoutID string, req CheckoutUpdateRequest, opts ...CallOption) (*Checkout, error) {
	var q url.Values
	if req.Status != "" {
		q = url.Values{"status": {string(req.Status)}}
	}
	merchant := scopeOf(cs).c.merchantScope()
	return call[Checkout](ctx, merchant, apiRequest{opts: opts, method: http.MethodPut, query: q, body: req.wireIn(merchant.c.zone())}, "checkouts", checkoutID)
}

// List iterates over the checkouts matching params, newest first: at
// merchant scope the merchant's and its customers', at customer scope the
// customer's.
func (cs *CheckoutsService) List(ctx context.Context, params *CheckoutListParams, opts ...CallOption) iter.Seq2[*Checkout, error] {
	q, err := params.query()
	return iterOf[Checkout](ctx, scopeOf(cs), q, err, opts, "checkouts")
}

// ListPage returns one page of checkouts.
func (cs *CheckoutsService) ListPage(ctx context.Context, params *CheckoutListParams, opts ...CallOption) ([]*Checkout, error) {
	q, err := params.query()
	return pageOf[Checkout](ctx, scopeOf(cs), q, err, opts, "checkouts")
}

// CheckoutListParams filter lists of checkouts.
type CheckoutListParams struct {
	ListParams
	// StartDate keeps checkouts created on or after that day, EndDate on or
	// before it: days of the merchant's country, as for
	// [ListParams.Creation]. They are sent in the yyyyMMdd form (startDate,
	// endDate) of the gateway's checkout filters.
	StartDate, EndDate Date
}

func (p *CheckoutListParams) query() (url.Values, error) {
	q := url.Values{}
	if p == nil {
		return q, nil
	}
	if err := p.ListParams.encode(q); err != nil {
		return nil, err
	}
	compact := func(d Date) string { return fmt.Sprintf("%04d%02d%02d", d.Year, int(d.Month), d.Day) }
	if err := setDate(q, "startDate", p.StartDate, compact); err != nil {
		return nil, err
	}
	if err := setDate(q, "endDate", p.EndDate, compact); err != nil {
		return nil, err
	}
	return q, nil
}

// checkoutMinuteLayout is the form in which the gateway takes a checkout's
// expiration_date: a wall-clock minute of the account's time zone, without
// an offset.
const checkoutMinuteLayout = "2006-01-02 15:04"

// zone is the time zone of the client's country (WithCountry), in which
// the gateway reads wall-clock times; a nil or zero client's is Mexico's.
func (c *Client) zone() *time.Location {
	if c == nil {
		return CountryMexico.Location()
	}
	return cmp.Or(c.country, CountryMexico).Location()
}

// checkoutMinute writes t as the gateway takes an expiration_date, in
// zone; "" for the zero time.
func checkoutMinute(t time.Time, zone *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(zone).Format(checkoutMinuteLayout)
}

// checkoutRequestFields and checkoutUpdateFields are the request types
// without methods; the wire forms below override the members the gateway
// takes in another form than their Go type's JSON.
type (
	checkoutRequestFields CheckoutRequest
	checkoutUpdateFields  CheckoutUpdateRequest
)

// wireIn is the request as the gateway takes it: the expiration a
// wall-clock minute in zone, the iva a decimal string.
func (r CheckoutRequest) wireIn(zone *time.Location) any {
	return struct {
		checkoutRequestFields
		ExpirationDate string       `json:"expiration_date,omitempty"`
		IVA            quotedAmount `json:"iva,omitzero"`
	}{checkoutRequestFields(r), checkoutMinute(r.ExpirationDate, zone), quotedAmount(r.IVA)}
}

// wireIn is the update as the gateway takes it, as CheckoutRequest's.
func (r CheckoutUpdateRequest) wireIn(zone *time.Location) any {
	return struct {
		checkoutUpdateFields
		ExpirationDate string `json:"expiration_date,omitempty"`
	}{checkoutUpdateFields(r), checkoutMinute(r.ExpirationDate, zone)}
}

// checkoutFields is Checkout without its JSON methods.
type checkoutFields Checkout

// checkoutJSON is a checkout as the gateway writes it: its times in
// checkoutTimeLayout, its iva a decimal string. Its own members take
// precedence over checkoutFields' of the same keys.
type checkoutJSON struct {
	*checkoutFields
	CreationDate   flexTime     `json:"creation_date"`
	ExpirationDate flexTime     `json:"expiration_date,omitzero"`
	IVA            quotedAmount `json:"iva,omitzero"`
}

// MarshalJSON writes the checkout as the gateway does: its times as
// 2021-10-15T23:36:00.000-0500 and its iva as a decimal string.
func (c Checkout) MarshalJSON() ([]byte, error) {
	return json.Marshal(checkoutJSON{(*checkoutFields)(&c), flexTime(c.CreationDate), flexTime(c.ExpirationDate), quotedAmount(c.IVA)})
}

// UnmarshalJSON reads a checkout: its times as the gateway writes them or
// as RFC 3339, its iva a decimal string or a number.
func (c *Checkout) UnmarshalJSON(b []byte) error {
	aux := checkoutJSON{(*checkoutFields)(c), flexTime(c.CreationDate), flexTime(c.ExpirationDate), quotedAmount(c.IVA)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	c.CreationDate, c.ExpirationDate, c.IVA = time.Time(aux.CreationDate), time.Time(aux.ExpirationDate), Amount(aux.IVA)
	return nil
}
