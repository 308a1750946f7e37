package openpay

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MaxPageSize is the largest page the gateway returns (limit 1..100).
const MaxPageSize = 100

// ListParams are the filters and paging every list accepts. The zero value
// lists from the newest object with the gateway's default page size (10).
//
// The days are calendar days of the merchant's country, the days the
// gateway keeps its records in (Mexico City, Bogotá or Lima time): an
// object made at 23:00 in Mexico City on May 1 is of May 1, though it was
// already May 2 in UTC. To ask for a day as your business counts it, take
// it from [Country.Today], never from the day a server's clock shows:
//
//	yesterday := openpay.CountryMexico.Today(time.Now()).AddDays(-1)
//	params := &openpay.TransactionListParams{ListParams: openpay.ListParams{Creation: yesterday}}
//
// A loop over a List iterator yields every object once, even when objects
// are created while it runs. What it sees of a list that changes meanwhile:
// objects created after the loop started may or may not be yielded, and an
// object deleted during the loop moves the older ones up, so that one of
// them can be missed. (One exception to "once": more than a page of
// objects created between two pages while over 100 objects already yielded
// share one second of creation.) A job that must see everything of a day
// lists it once the day is over, with Creation.
type ListParams struct {
	// Creation keeps objects created on that day (the zero Date: any day).
	Creation Date
	// CreationGte keeps objects created on or after that day.
	CreationGte Date
	// CreationLte keeps objects created on or before that day.
	CreationLte Date
	// Offset skips that many objects.
	Offset int
	// Limit is the page size, 1..100 (0: the gateway's default of 10, or
	// 100 when iterating).
	Limit int
}

func (p ListParams) encode(q url.Values) error {
	if p.Offset < 0 {
		return invalidArgument("openpay: list offset must not be negative")
	}
	if p.Limit < 0 || p.Limit > MaxPageSize {
		return invalidArgument("openpay: list limit must be between 1 and 100")
	}
	for _, f := range []struct {
		key string
		d   Date
	}{{"creation", p.Creation}, {"creation[gte]", p.CreationGte}, {"creation[lte]", p.CreationLte}} {
		if err := setDate(q, f.key, f.d, Date.String); err != nil {
			return err
		}
	}
	if p.Offset > 0 {
		q.Set("offset", strconv.Itoa(p.Offset))
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	return nil
}

// setDate sets a day filter, written by format, unless d is zero; a Date
// that names no real day is refused rather than sent as another.
func setDate(q url.Values, key string, d Date, format func(Date) string) error {
	if d.IsZero() {
		return nil
	}
	if _, err := d.MarshalText(); err != nil {
		return fmt.Errorf("openpay: list filter %s: %w", key, err)
	}
	q.Set(key, format(d))
	return nil
}

func setAmount(q url.Values, key string, a Amount) error {
	if a.IsZero() {
		return nil
	}
	b, err := a.MarshalText()
	if err != nil {
		return err
	}
	q.Set(key, string(b))
	return nil
}

// TransactionListParams filter lists of charges, payouts, transfers and
// fees.
type TransactionListParams struct {
	ListParams
	// OrderID keeps the transaction with that order_id.
	OrderID string
	// Amount, AmountGte and AmountLte filter by amount (zero: no filter).
	Amount, AmountGte, AmountLte Amount
	// Status keeps transactions in that state. Pass the same constants the
	// responses carry (TransactionStatusCompleted); the SDK sends them in the
	// upper case the gateway's filter expects.
	Status TransactionStatus
}

func (p *TransactionListParams) query() (url.Values, error) {
	q := url.Values{}
	if p == nil {
		return q, nil
	}
	if err := p.ListParams.encode(q); err != nil {
		return nil, err
	}
	if p.OrderID != "" {
		q.Set("order_id", p.OrderID)
	}
	for _, f := range []struct {
		key string
		a   Amount
	}{{"amount", p.Amount}, {"amount[gte]", p.AmountGte}, {"amount[lte]", p.AmountLte}} {
		if err := setAmount(q, f.key, f.a); err != nil {
			return nil, err
		}
	}
	if p.Status != "" {
		q.Set("status", strings.ToUpper(string(p.Status)))
	}
	return q, nil
}

// PayoutListParams filter lists of payouts.
type PayoutListParams struct {
	TransactionListParams
	// PayoutType keeps payouts of that kind (the gateway's payout_type
	// filter); empty lists every payout.
	PayoutType PayoutType
}

// PayoutType is a kind of payout, to filter lists of payouts with. The
// gateway does not list its values; the SDK sends any value as given.
type PayoutType string

// The kinds of payout the gateway's documentation names.
const (
	// PayoutTypeAll lists every payout.
	PayoutTypeAll PayoutType = "ALL"
	// PayoutTypeManual lists the payouts the merchant requested.
	PayoutTypeManual PayoutType = "MANUAL"
	// PayoutTypeAutomatic lists the payouts the gateway schedules by
	// itself.
	PayoutTypeAutomatic PayoutType = "AUTOMATIC"
)

func (p *PayoutListParams) query() (url.Values, error) {
	if p == nil {
		return url.Values{}, nil
	}
	q, err := p.TransactionListParams.query()
	if err != nil {
		return nil, err
	}
	if p.PayoutType != "" {
		q.Set("payout_type", string(p.PayoutType))
	}
	return q, nil
}

// CustomerListParams filter lists of customers.
type CustomerListParams struct {
	ListParams
	// ExternalID keeps the customer with that merchant-assigned id.
	ExternalID string
}

func (p *CustomerListParams) query() (url.Values, error) {
	q := url.Values{}
	if p == nil {
		return q, nil
	}
	if err := p.ListParams.encode(q); err != nil {
		return nil, err
	}
	if p.ExternalID != "" {
		q.Set("external_id", p.ExternalID)
	}
	return q, nil
}

func (p *ListParams) query() (url.Values, error) {
	q := url.Values{}
	if p == nil {
		return q, nil
	}
	return q, p.encode(q)
}

// listPage fetches one page of the list at u (a URL without query).
func listPage[T any](ctx context.Context, c *Client, u string, q url.Values, opts []CallOption) ([]T, error) {
	var page []T
	if err := c.send(ctx, apiRequest{method: http.MethodGet, url: u, query: q, opts: opts}, &page); err != nil {
		return nil, err
	}
	return page, nil
}

// listOrder says what a list's order is known to follow, which decides
// how an iterator recognises objects it has already yielded.
type listOrder int

const (
	// newestCreatedFirst: the list runs from the newest creation time to
	// the oldest (every list of objects).
	newestCreatedFirst listOrder = iota
	// otherOrder: newest first by something other than creation time (a
	// report's detail runs in the order its figures were recorded).
	otherOrder
)

// createdAt is implemented by the listed objects that carry their creation
// time. A zero time means the answer did not say.
type createdAt interface{ wireCreated() time.Time }

func (t *Transaction) wireCreated() time.Time  { return t.CreationDate }
func (c *Card) wireCreated() time.Time         { return c.CreationDate }
func (c *Customer) wireCreated() time.Time     { return c.CreationDate }
func (b *BankAccount) wireCreated() time.Time  { return b.CreationDate }
func (p *Plan) wireCreated() time.Time         { return p.CreationDate }
func (s *Subscription) wireCreated() time.Time { return s.CreationDate }
func (c *Checkout) wireCreated() time.Time     { return c.CreationDate }

// wireCreated is the token's: its card is created with it.
func (t *Token) wireCreated() time.Time { return t.Card.CreationDate }

// seenFilter recognises, with memory bounded by a few pages of ids, the
// objects an iterator has already yielded when objects created during the
// loop push the list down (offset paging, newest first):
//
//   - an object pushed down by less than a page reappears on the next page:
//     its id is among those of the page just read;
//   - an object pushed further down was created no earlier than every
//     object yielded since: on a list newest created first, a creation time
//     strictly later than the oldest yielded so far marks it (or an object
//     created after the loop started, which the loop need not yield);
//   - an object of the very second of the oldest yielded is told by its id,
//     kept for up to MaxPageSize objects of that second.
//
// The time rules are applied only to lists in creation order, and only
// while every page read keeps to that order, so that a list sorted
// otherwise loses nothing to them; such a list, or one whose objects carry
// no creation time, is told by the ids of the previous page alone. An
// object can still come twice when more than a page of objects is created
// between two pages and more than MaxPageSize objects share the second of
// the oldest yielded.
type seenFilter[T any] struct {
	prev, cur map[string]struct{} // ids of the previous page, of this one
	byTime    bool                // the time rules apply
	oldest    time.Time           // the oldest creation time yielded
	ties      map[string]struct{} // ids yielded with the creation time oldest
}

func newSeenFilter[T any](order listOrder, limit int) *seenFilter[T] {
	_, dated := any(new(T)).(createdAt)
	return &seenFilter[T]{prev: make(map[string]struct{}, limit), cur: make(map[string]struct{}, limit),
		byTime: dated && order == newestCreatedFirst, ties: map[string]struct{}{}}
}

// newPage starts a page: the ids of the page read last become the
// previous page's, and the time rules stop for good when this page is out
// of creation order.
func (f *seenFilter[T]) newPage(page []T) {
	f.prev, f.cur = f.cur, f.prev
	clear(f.cur)
	var last time.Time
	for i := 0; f.byTime && i < len(page); i++ {
		t := any(&page[i]).(createdAt).wireCreated()
		if t.IsZero() {
			continue
		}
		if !last.IsZero() && t.After(last) {
			f.byTime = false
		}
		last = t
	}
}

// fresh reports whether v, an object of the page, is to be yielded, and
// records it.
func (f *seenFilter[T]) fresh(v *T) bool {
	var id string
	if o, ok := any(v).(identified); ok {
		id = o.wireID()
	}
	if id != "" {
		f.cur[id] = struct{}{}
		if _, seen := f.prev[id]; seen {
			return false
		}
	}
	if !f.byTime {
		return true
	}
	t := any(v).(createdAt).wireCreated()
	switch {
	case t.IsZero():
		return true
	case f.oldest.IsZero() || t.Before(f.oldest):
		f.oldest = t
		clear(f.ties)
	case t.After(f.oldest):
		return false
	default:
		if _, seen := f.ties[id]; seen && id != "" {
			return false
		}
	}
	if id != "" && len(f.ties) < MaxPageSize {
		f.ties[id] = struct{}{}
	}
	return true
}

// listAll returns a lazy iterator over every object of a list, fetching
// pages of `limit` (100 when the query sets none) starting at the query's
// offset. The query is the caller's parameters already copied into
// url.Values, so changing them while iterating has no effect. Nothing is
// fetched until the iterator is ranged over; it stops after a short page,
// and yields (nil, err) once on failure. A build error (err) is yielded the
// same way. Objects already yielded that paging meets again, because
// objects were created meanwhile, are skipped (seenFilter); a page whose
// objects were all skipped is still a full page, and the loop goes on.
func listAll[T any](ctx context.Context, c *Client, u string, q url.Values, err error, order listOrder, opts []CallOption) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		offset, _ := strconv.Atoi(q.Get("offset"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		if limit <= 0 {
			limit = MaxPageSize
		}
		seen := newSeenFilter[T](order, limit)
		for {
			pq := url.Values{}
			for k, v := range q {
				pq[k] = v
			}
			pq.Set("limit", strconv.Itoa(limit))
			if offset > 0 {
				pq.Set("offset", strconv.Itoa(offset))
			} else {
				pq.Del("offset")
			}
			page, err := listPage[T](ctx, c, u, pq, opts)
			if err != nil {
				yield(nil, err)
				return
			}
			seen.newPage(page)
			for i := range page {
				if seen.fresh(&page[i]) && !yield(&page[i], nil) {
					return
				}
			}
			if len(page) < limit {
				return
			}
			offset += len(page)
		}
	}
}
