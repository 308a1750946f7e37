package refserver

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Lists: every list answers a bare JSON array, newest first, paged with
// offset (default 0) and limit (default 10, 1 to 100), and filtered by
// creation date: creation (that day), creation[gte] and creation[lte]
// (inclusive bounds), all yyyy-mm-dd in the gateway's time zone. A bad value
// answers 1003 naming the parameter. Lists add their own filters with the
// helpers below (amountFilter, ...).
//
// A list handler reads the parameters before taking the merchant's lock,
// then under the lock walks its records with listParams.page, copying the
// wire form of those kept, and encodes after releasing the lock:
//
//	p, e := parseListParams(c.r.URL.Query())
//	if e != nil { return nil, e }
//	m.mu.Lock()
//	out := page(p, m.cardList, func(k *card) (time.Time, bool) { return k.created, !k.deleted }, (*card).wire)
//	m.mu.Unlock()
//	return out, nil

// Paging limits.
const (
	DefaultListLimit = 10
	MaxListLimit     = 100
)

// listParams are the common parameters of a list.
type listParams struct {
	day, from, to string // yyyy-mm-dd, "" when absent (compared as strings)
	offset, limit int
}

// parseListParams reads the common list parameters.
func parseListParams(q url.Values) (listParams, *Error) {
	p := listParams{limit: DefaultListLimit}
	var e *Error
	date := func(name string) string {
		v := q.Get(name)
		if v == "" || e != nil {
			return ""
		}
		if _, err := time.Parse("2006-01-02", v); err != nil {
			e = errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be a date yyyy-mm-dd", name)
		}
		return v
	}
	p.day, p.from, p.to = date("creation"), date("creation[gte]"), date("creation[lte]")
	if e != nil {
		return p, e
	}
	if v, ok := queryValue(q, "offset"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return p, errorf(openpay.ErrInvalidParameter, "The parameter 'offset' must be an integer of 0 or more")
		}
		p.offset = n
	}
	if v, ok := queryValue(q, "limit"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxListLimit {
			return p, errorf(openpay.ErrInvalidParameter, "The parameter 'limit' must be an integer from 1 to %d", MaxListLimit)
		}
		p.limit = n
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

// keepDate reports whether a creation time passes the date filters.
func (p listParams) keepDate(created time.Time) bool {
	d := created.In(gatewayZone).Format("2006-01-02")
	return (p.day == "" || d == p.day) && (p.from == "" || d >= p.from) && (p.to == "" || d <= p.to)
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

// amountFilter reads the amount filters of transaction lists: amount
// (equal), amount[gte] and amount[lte]. The returned function reports
// whether an amount passes.
func amountFilter(q url.Values) (func(openpay.Amount) bool, *Error) {
	type bound struct {
		name string
		a    openpay.Amount
		set  bool
	}
	bounds := []bound{{name: "amount"}, {name: "amount[gte]"}, {name: "amount[lte]"}}
	for i := range bounds {
		v, ok := queryValue(q, bounds[i].name)
		if !ok {
			continue
		}
		a, err := openpay.NewAmount(strings.TrimSpace(v))
		if err != nil {
			return nil, errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be an amount with at most two decimals", bounds[i].name)
		}
		bounds[i].a, bounds[i].set = a, true
	}
	eq, gte, lte := bounds[0], bounds[1], bounds[2]
	return func(a openpay.Amount) bool {
		return (!eq.set || a.Cmp(eq.a) == 0) && (!gte.set || a.Cmp(gte.a) >= 0) && (!lte.set || a.Cmp(lte.a) <= 0)
	}, nil
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
