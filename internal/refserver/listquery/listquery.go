// Package listquery reads the query parameters of the reference server's
// lists and pages through records with them: offset and limit, the
// creation date filters, and the amount and status filters of transaction
// lists. It imports nothing of the server but its error object (package
// apierr).
//
// A list handler:
//
//	p, e := listquery.Parse(c.query, zoneOf(c.m))
//	if e != nil { return nil, e }
//	m.mu.Lock()
//	out := listquery.Page(p, m.cardList, func(k *card) (time.Time, bool) { return k.created, !k.deleted }, (*card).wire)
//	m.mu.Unlock()
//
// Contract:
//   - Every list answers a bare JSON array, newest first, paged with offset
//     (default 0) and limit (default [DefaultLimit], at least 1; above
//     [MaxLimit] it is taken as MaxLimit, as the gateway answers
//     limit=10000 with a list: the vendor's Ruby customers_spec.rb "all the
//     customers"), and filtered by creation date: creation (that day),
//     creation[gte] and creation[lte] (inclusive bounds), all yyyy-mm-dd
//     days of the zone the caller names (the merchant's country's, so that
//     a client's Country.Today names the day the server cuts).
//   - A bad value is refused with an *apierr.Error of code 1003 naming the
//     parameter, never a value a client sent; no input makes the package
//     panic.
//   - The required parameters of reports ([Int], [Kind], [Month]) answer
//     1001 when missing or not of their type, 1003 out of range or not
//     among the values; [Number] (the store search's coordinates) answers
//     1003.
//   - Reading parameters takes no lock and touches no state: a handler
//     reads them before taking its merchant's lock, walks its records
//     under the lock with [Page] (or [DateRange] and [Params.KeepDate] for
//     records kept in creation order), and encodes after releasing it.
//   - Cost: a date filter compares instants (a day is [its midnight, the
//     next midnight) in the zone), never formats a date per record, and
//     amount filters compare cents as integers when every bound fits
//     ([AmountBounds.Keep]), without allocating.
package listquery

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
)

// Paging limits.
const (
	// DefaultLimit is the limit of a list that names none.
	DefaultLimit = 10
	// MaxLimit is the most records a list answers; a larger limit is
	// taken as this one.
	MaxLimit = 100
)

// Params are the common parameters of a list.
type Params struct {
	// after and before bound the creation time the date filters keep:
	// after <= created < before, each zero when unbounded.
	after, before time.Time
	// Offset is how many records that pass the filters are skipped, the
	// newest first.
	Offset int
	// Limit is the most records the list holds (0: none).
	Limit int
}

// Parse reads the common list parameters; dates name days in zone.
func Parse(q url.Values, zone *time.Location) (Params, *apierr.Error) {
	p := Params{Limit: DefaultLimit}
	var e *apierr.Error
	// date returns the midnight starting the day the parameter names, zero
	// when it is absent.
	date := func(name string) time.Time {
		v := q.Get(name)
		if v == "" || e != nil {
			return time.Time{}
		}
		d, err := time.ParseInLocation("2006-01-02", v, zone)
		if err != nil {
			e = apierr.Errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be a date yyyy-mm-dd", name)
		}
		return d
	}
	day, from, to := date("creation"), date("creation[gte]"), date("creation[lte]")
	if e != nil {
		return p, e
	}
	p.Narrow(day, day)
	p.Narrow(from, time.Time{})
	p.Narrow(time.Time{}, to)
	if v, ok := Value(q, "offset"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, apierr.Errorf(openpay.ErrInvalidParameter, "The parameter 'offset' must be an integer of 0 or more")
		}
		p.Offset = n
	}
	if v, ok := Value(q, "limit"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return p, apierr.Errorf(openpay.ErrInvalidParameter, "The parameter 'limit' must be an integer of 1 or more")
		}
		p.Limit = min(n, MaxLimit)
	}
	return p, nil
}

// Value returns a query parameter and whether it was sent at all.
func Value(q url.Values, name string) (string, bool) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// Narrow restricts the dates kept to the days from first to last (each a
// midnight in the list's zone, zero for no bound): a list's own date
// filters (a checkout's) add to the common ones so.
func (p *Params) Narrow(first, last time.Time) {
	if !first.IsZero() && (p.after.IsZero() || first.After(p.after)) {
		p.after = first
	}
	if !last.IsZero() {
		if end := last.AddDate(0, 0, 1); p.before.IsZero() || end.Before(p.before) {
			p.before = end
		}
	}
}

// Dated reports whether a date filter was given.
func (p Params) Dated() bool { return !p.after.IsZero() || !p.before.IsZero() }

// KeepDate reports whether a creation time passes the date filters.
func (p Params) KeepDate(created time.Time) bool {
	return (p.after.IsZero() || !created.Before(p.after)) && (p.before.IsZero() || created.Before(p.before))
}

// DateRange returns the records recs[lo:hi] that pass the date filters,
// found by binary search: recs must be in creation time order.
func DateRange[R any](p Params, recs []R, created func(R) time.Time) (lo, hi int) {
	lo, hi = 0, len(recs)
	if !p.after.IsZero() {
		lo = sort.Search(len(recs), func(i int) bool { return !created(recs[i]).Before(p.after) })
	}
	if !p.before.IsZero() {
		hi = sort.Search(len(recs), func(i int) bool { return !created(recs[i]).Before(p.before) })
	}
	return lo, max(lo, hi)
}

// Page walks records (stored oldest first) newest first, keeps those for
// which keep says true and that pass the date filters, applies offset and
// limit, and converts each kept record with wire. keep returns the record's
// creation time and whether it belongs to the list at all.
func Page[R any, W any](p Params, records []R, keep func(R) (time.Time, bool), wire func(R) W) []W {
	out := make([]W, 0, min(p.Limit, len(records)))
	skipped := 0
	for i := len(records) - 1; i >= 0 && len(out) < p.Limit; i-- {
		created, ok := keep(records[i])
		if !ok || !p.KeepDate(created) {
			continue
		}
		if skipped < p.Offset {
			skipped++
			continue
		}
		out = append(out, wire(records[i]))
	}
	return out
}

// AmountBounds are the amount filters of transaction lists: amount
// (equal), amount[gte] and amount[lte].
type AmountBounds struct {
	eq, gte, lte          openpay.Amount
	hasEq, hasGte, hasLte bool
	// the bounds in cents, when every bound given fits (cents is set):
	// lists compare most amounts as integers, without allocating.
	eqC, gteC, lteC int64
	cents           bool
}

// Set reports whether any amount filter was given.
func (b AmountBounds) Set() bool { return b.hasEq || b.hasGte || b.hasLte }

// Keep reports whether an amount passes the filters.
func (b AmountBounds) Keep(a openpay.Amount) bool {
	if !b.Set() {
		return true
	}
	if c, ok := Cents(a); ok && b.cents {
		return b.KeepCents(c)
	}
	return (!b.hasEq || a.Cmp(b.eq) == 0) && (!b.hasGte || a.Cmp(b.gte) >= 0) && (!b.hasLte || a.Cmp(b.lte) <= 0)
}

// InCents reports whether every filter given is a whole number of cents,
// so that KeepCents may stand for Keep.
func (b AmountBounds) InCents() bool { return b.cents }

// KeepCents is Keep for an amount of c cents, when the filters are in
// cents (InCents).
func (b AmountBounds) KeepCents(c int64) bool {
	return (!b.hasEq || c == b.eqC) && (!b.hasGte || c >= b.gteC) && (!b.hasLte || c <= b.lteC)
}

// Excludes reports whether no amount from least to most cents can pass the
// filters (false when the filters are not all in cents).
func (b AmountBounds) Excludes(least, most int64) bool {
	return b.cents && ((b.hasEq && (b.eqC < least || b.eqC > most)) || (b.hasGte && most < b.gteC) || (b.hasLte && least > b.lteC))
}

// Cents returns an amount in cents when that is cheap to tell exactly:
// Amount.Cents allocates, and a list compares many amounts.
func Cents(a openpay.Amount) (int64, bool) {
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

// Amounts reads the amount filters of transaction lists.
func Amounts(q url.Values) (AmountBounds, *apierr.Error) {
	b := AmountBounds{cents: true}
	for _, f := range []struct {
		name  string
		a     *openpay.Amount
		cents *int64
		has   *bool
	}{{"amount", &b.eq, &b.eqC, &b.hasEq}, {"amount[gte]", &b.gte, &b.gteC, &b.hasGte}, {"amount[lte]", &b.lte, &b.lteC, &b.hasLte}} {
		v, ok := Value(q, f.name)
		if !ok {
			continue
		}
		a, err := Amount(v)
		if err != nil {
			return b, apierr.Errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be an amount with at most two decimals", f.name)
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

// Amount reads an amount of a query string: any form of JSON number
// (openpay.NewAmount would refuse "1e3", being for text typed by people),
// around spaces, with at most two decimals.
func Amount(v string) (openpay.Amount, error) {
	var a openpay.Amount
	if err := a.UnmarshalText([]byte(strings.TrimSpace(v))); err != nil {
		return openpay.Amount{}, err
	}
	if !a.HasValidPrecision() {
		return openpay.Amount{}, openpay.ErrAmountPrecision
	}
	return a, nil
}

// Status reads the status filter of transaction lists: an upper-case
// status (COMPLETED, IN_PROGRESS, ...), lower case accepted too. It returns
// "" when absent.
func Status(q url.Values) (openpay.TransactionStatus, *apierr.Error) {
	v, ok := Value(q, "status")
	if !ok {
		return "", nil
	}
	st := openpay.TransactionStatus(strings.ToLower(v))
	if !st.Valid() {
		return "", apierr.Errorf(openpay.ErrInvalidParameter, "The parameter 'status' must be a transaction status such as COMPLETED")
	}
	return st, nil
}
