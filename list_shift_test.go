package openpay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A list iterator pages with offset and limit, newest first. Objects
// created while a loop runs push the list down, so that a later page
// starts with objects already yielded; the iterator must skip them (with
// memory bounded by a page), and must not skip anything else. These tests
// script a list server whose contents change between the pages.

// listEntry is one object of a scripted list.
type listEntry struct {
	id      string
	created time.Time // zero: the answer carries no creation time
}

// shiftingList serves a list, newest first, paged by offset and limit.
// Before answering the i-th request (from 1), before[i] changes it.
type shiftingList struct {
	mu      sync.Mutex
	items   []listEntry
	before  map[int]func([]listEntry) []listEntry
	encode  func(listEntry) map[string]any
	queries int
}

func (s *shiftingList) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries++
	if edit := s.before[s.queries]; edit != nil {
		s.items = edit(s.items)
	}
	q := r.URL.Query()
	offset, limit := atoi(q.Get("offset")), atoi(q.Get("limit"))
	page := []map[string]any{}
	for i := offset; i < min(offset+limit, len(s.items)); i++ {
		page = append(page, s.encode(s.items[i]))
	}
	_ = json.NewEncoder(w).Encode(page)
}

func (s *shiftingList) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

// encodeTransaction is an entry as a transaction (and as a card, customer,
// plan, subscription or bank account: the same two members).
func encodeTransaction(e listEntry) map[string]any {
	m := map[string]any{"id": e.id, "amount": 1, "status": "completed"}
	if !e.created.IsZero() {
		m["creation_date"] = e.created.Format(time.RFC3339)
	}
	return m
}

// base is the creation time of the oldest entry of the scripted lists.
var base = time.Date(2026, time.March, 1, 12, 0, 0, 0, openpay.CountryMexico.Location())

// entries returns n entries, newest first, named prefix+number (number 0
// the oldest); created(i) gives entry i's creation time.
func entries(prefix string, n int, created func(i int) time.Time) []listEntry {
	out := make([]listEntry, n)
	for i := range n {
		out[n-1-i] = listEntry{id: fmt.Sprintf("%s%d", prefix, i), created: created(i)}
	}
	return out
}

// secondApart gives entry i the time base + i seconds: distinct times.
func secondApart(from time.Time) func(int) time.Time {
	return func(i int) time.Time { return from.Add(time.Duration(i) * time.Second) }
}

// insertNewer returns an edit that puts n new entries at the head of the
// list (created at the given times, newest first).
func insertNewer(prefix string, n int, created func(int) time.Time) func([]listEntry) []listEntry {
	return func(items []listEntry) []listEntry { return append(entries(prefix, n, created), items...) }
}

// startList serves list and returns a client of it.
func startList(t *testing.T, list *shiftingList) *openpay.Client {
	t.Helper()
	if list.encode == nil {
		list.encode = encodeTransaction
	}
	srv := httptest.NewServer(list)
	t.Cleanup(srv.Close)
	c, err := openpay.New(testMerchant, testKey, openpay.WithBaseURL(srv.URL), openpay.WithRetryPolicy(openpay.RetryPolicy{}))
	require.NoError(t, err)
	return c
}

func TestListSkipsWhatWritesPushDown(t *testing.T) {
	t.Parallel()
	sameSecond := func(int) time.Time { return base }
	later := base.Add(time.Hour)
	cases := []struct {
		name     string
		items    []listEntry
		before   map[int]func([]listEntry) []listEntry
		limit    int
		want     []string // newest first
		requests int
		newMay   bool // objects created during the loop may be yielded
	}{{
		// Page 2 starts with the last 3 objects of page 1.
		name:  "fewer than a page created between two pages",
		items: entries("o", 12, secondApart(base)), limit: 5,
		before:   map[int]func([]listEntry) []listEntry{2: insertNewer("n", 3, secondApart(later))},
		requests: 4, // 5 + 5 + 5 + 0 from offsets 0, 5, 10, 15
	}, {
		// Page 2 (offset 5) holds only new objects, page 3 one new and
		// four of page 1: full pages wholly skipped do not end the loop.
		name:  "more than two pages created between two pages",
		items: entries("o", 12, secondApart(base)), limit: 5,
		before:   map[int]func([]listEntry) []listEntry{2: insertNewer("n", 11, secondApart(later))},
		requests: 5, // offsets 0, 5, 10, 15, 20 (3: short)
	}, {
		name:  "objects created between every two pages",
		items: entries("o", 30, secondApart(base)), limit: 4,
		before: map[int]func([]listEntry) []listEntry{
			2: insertNewer("a", 1, secondApart(later)), 3: insertNewer("b", 4, secondApart(later.Add(time.Minute))),
			4: insertNewer("c", 9, secondApart(later.Add(2*time.Minute))), 5: insertNewer("d", 3, secondApart(later.Add(3*time.Minute)))},
	}, {
		// Every object of the same second: the ids of the page before
		// tell the repeats apart, and none of the same second is lost.
		name:  "one creation time for all, fewer than a page created",
		items: entries("o", 12, sameSecond), limit: 5,
		before: map[int]func([]listEntry) []listEntry{2: insertNewer("n", 4, sameSecond), 3: insertNewer("m", 2, sameSecond)},
	}, {
		// Ties across page boundaries, with nothing created: objects of
		// the same second as the oldest yielded are yielded.
		name: "ties across page boundaries",
		items: entries("o", 11, func(i int) time.Time {
			return base.Add(time.Duration(i/3) * time.Second)
		}), limit: 2,
	}, {
		// More than a page created, and the objects pushed down share the
		// second of the oldest yielded: their ids tell them apart.
		name: "more than a page created, ties at the oldest second",
		items: entries("o", 12, func(i int) time.Time {
			return base.Add(time.Duration(i/3) * time.Second)
		}), limit: 5,
		before: map[int]func([]listEntry) []listEntry{2: insertNewer("n", 8, secondApart(later))},
	}, {
		// Objects created in the same second as all the others can be
		// yielded (created after the loop started: may or may not), but
		// nothing is yielded twice.
		name:  "one creation time for all, more than a page created",
		items: entries("o", 12, sameSecond), limit: 5,
		before: map[int]func([]listEntry) []listEntry{2: insertNewer("n", 7, sameSecond)},
		newMay: true,
	}, {
		// The list ends on a short page even when all of it was seen.
		name:  "a short page of repeats ends the loop",
		items: entries("o", 5, secondApart(base)), limit: 5,
		before:   map[int]func([]listEntry) []listEntry{2: insertNewer("n", 2, secondApart(later))},
		requests: 2,
	}, {
		// A list that is not newest created first (here oldest first) is
		// paged by ids only: the creation times must not hide anything.
		name:  "a list out of creation order",
		items: func() []listEntry { e := entries("o", 9, secondApart(base)); slices.Reverse(e); return e }(), limit: 4,
		want: []string{"o0", "o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8"},
	}, {
		// Answers without creation times are paged by ids only.
		name:  "no creation times",
		items: entries("o", 9, func(int) time.Time { return time.Time{} }), limit: 4,
		before: map[int]func([]listEntry) []listEntry{2: insertNewer("n", 2, func(int) time.Time { return time.Time{} })},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := tc.want
			if want == nil {
				for _, e := range tc.items {
					want = append(want, e.id)
				}
			}
			list := &shiftingList{items: slices.Clone(tc.items), before: tc.before}
			c := startList(t, list)
			got := collect(t, c.Charges.List(context.Background(), &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: tc.limit}}), txID)
			if tc.newMay {
				distinct := slices.Clone(got)
				slices.Sort(distinct)
				assert.Equal(t, len(got), len(slices.Compact(distinct)), "nothing twice: %v", got)
				got = slices.DeleteFunc(got, func(id string) bool { return id[0] != 'o' })
			}
			assert.Equal(t, want, got, "every object there when the loop started, once, in order, and none created later")
			if tc.requests > 0 {
				assert.Equal(t, tc.requests, list.requests(), "pages fetched")
			}
		})
	}
}

// Every kind of list reads its objects' creation times: more than a page
// created between two pages is skipped for each.
func TestListSkipsRepeatsOfEveryKind(t *testing.T) {
	t.Parallel()
	plain := func(e listEntry) map[string]any {
		return map[string]any{"id": e.id, "creation_date": e.created.Format(time.RFC3339)}
	}
	token := func(e listEntry) map[string]any {
		return map[string]any{"id": e.id, "card": map[string]any{"creation_date": e.created.Format(time.RFC3339)}}
	}
	checkout := func(e listEntry) map[string]any {
		return map[string]any{"id": e.id, "creation_date": e.created.Format("2006-01-02T15:04:05.000-0700")}
	}
	cases := []struct {
		name   string
		encode func(listEntry) map[string]any
		list   func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string
	}{
		{"charges", encodeTransaction, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Charges.List(context.Background(), &openpay.TransactionListParams{ListParams: p}), txID)
		}},
		{"payouts", encodeTransaction, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Payouts.List(context.Background(), &openpay.PayoutListParams{TransactionListParams: openpay.TransactionListParams{ListParams: p}}), txID)
		}},
		{"cards", plain, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Cards.List(context.Background(), &p), func(v *openpay.Card) string { return v.ID })
		}},
		{"customers", plain, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Customers.List(context.Background(), &openpay.CustomerListParams{ListParams: p}), func(v *openpay.Customer) string { return v.ID })
		}},
		{"bank accounts", plain, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Customer("cu1").BankAccounts.List(context.Background(), &p), func(v *openpay.BankAccount) string { return v.ID })
		}},
		{"plans", plain, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Plans.List(context.Background(), &p), func(v *openpay.Plan) string { return v.ID })
		}},
		{"subscriptions", plain, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Plans.Subscriptions(context.Background(), "p1", &p), func(v *openpay.Subscription) string { return v.ID })
		}},
		{"tokens", token, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Tokens.List(context.Background(), &p), func(v *openpay.Token) string { return v.ID })
		}},
		{"checkouts", checkout, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Checkouts.List(context.Background(), &openpay.CheckoutListParams{ListParams: p}), func(v *openpay.Checkout) string { return v.ID })
		}},
		{"group cards", plain, func(t *testing.T, c *openpay.Client, p openpay.ListParams) []string {
			return collect(t, c.Group("g1").Customer("cu1").Cards.List(context.Background(), &p), func(v *openpay.Card) string { return v.ID })
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			items := entries("o", 10, secondApart(base))
			list := &shiftingList{items: slices.Clone(items), encode: tc.encode,
				before: map[int]func([]listEntry) []listEntry{2: insertNewer("n", 9, secondApart(base.Add(time.Hour)))}}
			got := tc.list(t, startList(t, list), openpay.ListParams{Limit: 4})
			var want []string
			for _, e := range items {
				want = append(want, e.id)
			}
			assert.Equal(t, want, got)
		})
	}
}

// A report's detail is not in creation order (a fee detail runs in the
// order the fees were taken): a later creation time on a later page is an
// object of its own, not a repeat. Repeats are still told by their ids.
func TestReportDetailIsPagedByIDs(t *testing.T) {
	t.Parallel()
	// Newest fee first, but the charges were created in another order:
	// each page is in creation order, the list is not.
	items := []listEntry{
		{id: "f3", created: base.Add(time.Minute)}, {id: "f2", created: base},
		{id: "f1", created: base.Add(time.Hour)}, {id: "f0", created: base.Add(2 * time.Second)},
	}
	details := func(c *openpay.Client) iter.Seq2[*openpay.Transaction, error] {
		return c.Reports.FeeDetails(context.Background(), 2026, time.March, openpay.FeeReportTypeCharged, &openpay.PageParams{Limit: 2})
	}
	c := startList(t, &shiftingList{items: slices.Clone(items)})
	assert.Equal(t, []string{"f3", "f2", "f1", "f0"}, collect(t, details(c), txID), "f1 and f0, created later than f2, are yielded")

	// A fee taken while the loop runs pushes f2 onto the second page.
	c = startList(t, &shiftingList{items: slices.Clone(items),
		before: map[int]func([]listEntry) []listEntry{2: func(l []listEntry) []listEntry {
			return append([]listEntry{{id: "f4", created: base.Add(-time.Hour)}}, l...)
		}}})
	assert.Equal(t, []string{"f3", "f2", "f1", "f0"}, collect(t, details(c), txID), "f2 is not yielded again")
}
