package refserver

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Lists: every list answers a bare JSON array, newest first, paged with
// offset (default 0) and limit (default 10, at least 1; above 100 it is
// taken as 100, as the gateway answers limit=10000 with a list: the vendor's
// Ruby customers_spec.rb "all the customers"), and filtered by
// creation date: creation (that day), creation[gte] and creation[lte]
// (inclusive bounds), all yyyy-mm-dd days of the merchant's country (zoneOf,
// the SDK's Country.Location, so that a client's Country.Today names the
// day the server cuts). A bad value
// answers 1003 naming the parameter. Lists add their own filters with the
// helpers below (amountFilter, ...).
//
// A list handler reads the parameters before taking the merchant's lock,
// then under the lock walks its records with listParams.page, copying the
// wire form of those kept, and encodes after releasing the lock:
//
//	p, e := parseListParams(c.query, zoneOf(c.m))
//	if e != nil { return nil, e }
//	m.mu.Lock()
//	out := page(p, m.cardList, func(k *card) (time.Time, bool) { return k.created, !k.deleted }, (*card).wire)
//	m.mu.Unlock()
//	return out, nil
//
// Transaction lists, which can hold millions of records, go through
// txFilter.list (money.go) instead: indexes, binary search over creation
// order and a walk that lets go of the lock between chunks.

// Paging limits.
const (
	DefaultListLimit = 10
	MaxListLimit     = 100
)

// listParams are the common parameters of a list.
type listParams struct {
	// after and before bound the creation time the date filters keep:
	// after <= created < before, each zero when unbounded. A day in the
	// merchant's zone is [its midnight, the next midnight), so comparing
	// instants gives what comparing the dates would, without formatting a
	// date per record.
	after, before time.Time
	offset, limit int
}

// parseListParams reads the common list parameters; dates name days in
// zone, the merchant's.
func parseListParams(q url.Values, zone *time.Location) (listParams, *Error) {
	p := listParams{limit: DefaultListLimit}
	var e *Error
	// date returns the midnight starting the day the parameter names, zero
	// when it is absent.
	date := func(name string) time.Time {
		v := q.Get(name)
		if v == "" || e != nil {
			return time.Time{}
		}
		d, err := time.ParseInLocation("2006-01-02", v, zone)
		if err != nil {
			e = errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be a date yyyy-mm-dd", name)
		}
		return d
	}
	day, from, to := date("creation"), date("creation[gte]"), date("creation[lte]")
	if e != nil {
		return p, e
	}
	p.narrow(day, day)
	p.narrow(from, time.Time{})
	p.narrow(time.Time{}, to)
	if v, ok := queryValue(q, "offset"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, errorf(openpay.ErrInvalidParameter, "The parameter 'offset' must be an integer of 0 or more")
		}
		p.offset = n
	}
	if v, ok := queryValue(q, "limit"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, errorf(openpay.ErrInvalidParameter, "The parameter 'limit' must be an integer of 1 or more")
		}
		p.limit = min(n, MaxListLimit)
	}
	return p, nil
}

// queryValue returns a query parameter and whether it was sent at all.
func queryValue(q url.Values, name string) (string, bool) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// narrow restricts the dates kept to the days from first to last (each a
// midnight in the merchant's zone, zero for no bound).
func (p *listParams) narrow(first, last time.Time) {
	if !first.IsZero() && (p.after.IsZero() || first.After(p.after)) {
		p.after = first
	}
	if !last.IsZero() {
		if end := last.AddDate(0, 0, 1); p.before.IsZero() || end.Before(p.before) {
			p.before = end
		}
	}
}

// dated reports whether a date filter was given.
func (p listParams) dated() bool { return !p.after.IsZero() || !p.before.IsZero() }

// keepDate reports whether a creation time passes the date filters.
func (p listParams) keepDate(created time.Time) bool {
	return (p.after.IsZero() || !created.Before(p.after)) && (p.before.IsZero() || created.Before(p.before))
}

// dateRange returns the records recs[lo:hi] that pass the date filters,
// found by binary search: recs must be in creation time order.
func dateRange[R any](p listParams, recs []R, created func(R) time.Time) (lo, hi int) {
	lo, hi = 0, len(recs)
	if !p.after.IsZero() {
		lo = sort.Search(len(recs), func(i int) bool { return !created(recs[i]).Before(p.after) })
	}
	if !p.before.IsZero() {
		hi = sort.Search(len(recs), func(i int) bool { return !created(recs[i]).Before(p.before) })
	}
	return lo, max(lo, hi)
}

// page walks records (stored oldest first) newest first, keeps those for
// which keep says true and that pass the date filters, applies offset and
// limit, and converts each kept record with wire. keep returns the record's
// creation time and whether it belongs to the list at all.
func page[R any, W any](p listParams, records []R, keep func(R) (time.Time, bool), wire func(R) W) []W {
	out := make([]W, 0, min(p.limit, len(records)))
	skipped := 0
	for i := len(records) - 1; i >= 0 && len(out) < p.limit; i-- {
		created, ok := keep(records[i])
		if !ok || !p.keepDate(created) {
			continue
		}
		if skipped < p.offset {
			skipped++
			continue
		}
		out = append(out, wire(records[i]))
	}
	return out
}

// amountBounds are the amount filters of transaction lists: amount
// (equal), amount[gte] and amount[lte].
type amountBounds struct {
	eq, gte, lte          openpay.Amount
	hasEq, hasGte, hasLte bool
	// the bounds in cents, when every bound given fits (cents is set):
	// lists compare most amounts as integers, without allocating.
	eqC, gteC, lteC int64
	cents           bool
}

// set reports whether any amount filter was given.
func (b amountBounds) set() bool { return b.hasEq || b.hasGte || b.hasLte }

// keep reports whether an amount passes the filters.
func (b amountBounds) keep(a openpay.Amount) bool {
	if !b.set() {
		return true
	}
	if c, ok := amountCents(a); ok && b.cents {
		return b.keepCents(c)
	}
	return (!b.hasEq || a.Cmp(b.eq) == 0) && (!b.hasGte || a.Cmp(b.gte) >= 0) && (!b.hasLte || a.Cmp(b.lte) <= 0)
}

// keepCents is keep for an amount of c cents, when the filters are all in
// cents (b.cents).
func (b amountBounds) keepCents(c int64) bool {
	return (!b.hasEq || c == b.eqC) && (!b.hasGte || c >= b.gteC) && (!b.hasLte || c <= b.lteC)
}

// excludes reports whether no amount from least to most cents can pass the
// filters (false when the filters are not all in cents).
func (b amountBounds) excludes(least, most int64) bool {
	return b.cents && ((b.hasEq && (b.eqC < least || b.eqC > most)) || (b.hasGte && most < b.gteC) || (b.hasLte && least > b.lteC))
}

// amountCents returns an amount in cents when that is cheap to tell
// exactly: Amount.Cents allocates, and a list compares many amounts.
func amountCents(a openpay.Amount) (int64, bool) {
	d := a.Decimal()
	exp := d.Exponent()
	if exp < -2 || exp > 2 || d.NumDigits()+int(exp) > 15 {
		return 0, false
	}
	c := d.CoefficientInt64()
	for ; exp > -2; exp-- {
		c *= 10
	}
	return c, true
}

// amountFilter reads the amount filters of transaction lists.
func amountFilter(q url.Values) (amountBounds, *Error) {
	b := amountBounds{cents: true}
	for _, f := range []struct {
		name  string
		a     *openpay.Amount
		cents *int64
		has   *bool
	}{{"amount", &b.eq, &b.eqC, &b.hasEq}, {"amount[gte]", &b.gte, &b.gteC, &b.hasGte}, {"amount[lte]", &b.lte, &b.lteC, &b.hasLte}} {
		v, ok := queryValue(q, f.name)
		if !ok {
			continue
		}
		a, err := queryAmount(v)
		if err != nil {
			return b, errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be an amount with at most two decimals", f.name)
		}
		*f.a, *f.has = a, true
		if c, ok := a.Cents(); ok {
			*f.cents = c
		} else {
			b.cents = false
		}
	}
	return b, nil
}

// queryAmount reads an amount of a query string: any form of JSON number
// (openpay.NewAmount would refuse "1e3", being for text typed by people),
// around spaces, with at most two decimals.
func queryAmount(v string) (openpay.Amount, error) {
	var a openpay.Amount
	if err := a.UnmarshalText([]byte(strings.TrimSpace(v))); err != nil {
		return openpay.Amount{}, err
	}
	if !a.HasValidPrecision() {
		return openpay.Amount{}, openpay.ErrAmountPrecision
	}
	return a, nil
}

// statusFilter reads the status filter of transaction lists: an upper-case
// status (COMPLETED, IN_PROGRESS, ...), lower case accepted too. It returns
// "" when absent.
func statusFilter(q url.Values) (openpay.TransactionStatus, *Error) {
	v, ok := queryValue(q, "status")
	if !ok {
		return "", nil
	}
	st := openpay.TransactionStatus(strings.ToLower(v))
	if !st.Valid() {
		return "", errorf(openpay.ErrInvalidParameter, "The parameter 'status' must be a transaction status such as COMPLETED")
	}
	return st, nil
}
