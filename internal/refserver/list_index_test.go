package refserver

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/stretchr/testify/require"
)

// naiveChargeList is the charge list as a plain walk over every stored
// transaction, dates compared as formatted strings: the reference the
// indexed lists are checked against.
func naiveChargeList(m *merchant, customerID string, q url.Values) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	offset, limit := 0, listquery.DefaultLimit
	if v := q.Get("offset"); v != "" {
		fmt.Sscan(v, &offset)
	}
	if v := q.Get("limit"); v != "" {
		fmt.Sscan(v, &limit)
	}
	amount := func(name string, cmp func(int) bool, a openpay.Amount) bool {
		v := q.Get(name)
		return v == "" || cmp(a.Cmp(openpay.MustAmount(v)))
	}
	var out []string
	skipped := 0
	for i := len(m.txList) - 1; i >= 0 && len(out) < limit; i-- {
		t := wireOf(m.txList[i])
		d := t.CreationDate.In(gatewayZone).Format("2006-01-02")
		keep := t.TransactionType == openpay.TransactionTypeCharge &&
			(customerID == "" || t.CustomerID == customerID) &&
			(q.Get("order_id") == "" || t.OrderID == q.Get("order_id")) &&
			(q.Get("status") == "" || string(t.Status) == q.Get("status")) &&
			(q.Get("creation") == "" || d == q.Get("creation")) &&
			(q.Get("creation[gte]") == "" || d >= q.Get("creation[gte]")) &&
			(q.Get("creation[lte]") == "" || d <= q.Get("creation[lte]")) &&
			amount("amount", func(c int) bool { return c == 0 }, t.Amount) &&
			amount("amount[gte]", func(c int) bool { return c >= 0 }, t.Amount) &&
			amount("amount[lte]", func(c int) bool { return c <= 0 }, t.Amount)
		if !keep {
			continue
		}
		if skipped < offset {
			skipped++
			continue
		}
		out = append(out, t.ID)
	}
	return out
}

// TestChargeListMatchesNaiveWalk checks the indexed charge list against a
// plain walk on random stores and random combinations of every filter, at
// the merchant's and at a customer's scope, with the clock moving forward
// and then set back (which turns the binary search over dates off).
func TestChargeListMatchesNaiveWalk(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	rng := rand.New(rand.NewPCG(13, 1))
	m := env.s.merchantByID(env.m.ID)

	var customers []string
	for i := range 3 {
		cu, err := env.s.CreateCustomer(env.m.ID, openpayCustomer(fmt.Sprintf("C%d", i), false))
		require.NoError(t, err)
		customers = append(customers, cu.ID)
	}
	card := func(prefix, number string) string {
		return requireOK(t, env.post(prefix+"/cards", validCard(number)), 200)["id"].(string)
	}
	merchantCards := []string{card("", "4111111111111111"), card("", "4000000000030017")}
	customerCards := map[string]string{}
	for _, cu := range customers {
		customerCards[cu] = card("/customers/"+cu, "4111111111111111")
	}

	var charged []string
	addCharges := func(n int) {
		for i := range n {
			// Amounts drift upwards with time, so that whole blocks of
			// records fall outside an amount filter.
			amount := fmt.Sprintf("%d.%02d", 1+len(charged)/8+rng.IntN(6), rng.IntN(2)*50)
			body := map[string]any{"method": "card", "amount": amount, "description": "x", "device_session_id": "s"}
			if rng.IntN(3) > 0 {
				body["order_id"] = fmt.Sprintf("o-%d-%d", len(charged), i)
			}
			path := "/charges"
			if rng.IntN(2) == 0 {
				cu := customers[rng.IntN(len(customers))]
				path = "/customers/" + cu + "/charges"
				body["source_id"] = customerCards[cu]
			} else {
				body["source_id"] = merchantCards[rng.IntN(len(merchantCards))]
			}
			r := env.post(path, body)
			if r.status == 200 {
				id := r.obj(t)["id"].(string)
				charged = append(charged, id)
				if rng.IntN(8) == 0 {
					requireOK(t, env.post(path+"/"+id+"/refund", map[string]any{}), 200)
				}
			}
			env.clock.Advance(time.Duration(rng.IntN(20*60)) * time.Minute)
		}
	}
	days := func() []string {
		var ds []string
		for d := testStart.AddDate(0, 0, -2); !d.After(env.clock.Now().AddDate(0, 0, 1)); d = d.AddDate(0, 0, 1) {
			ds = append(ds, d.Format("2006-01-02"))
		}
		return ds
	}
	check := func(queries int) {
		ds := days()
		for range queries {
			q := url.Values{}
			pick := func(name string, vals ...string) {
				if rng.IntN(3) == 0 {
					q.Set(name, vals[rng.IntN(len(vals))])
				}
			}
			pick("creation", ds...)
			pick("creation[gte]", ds...)
			pick("creation[lte]", ds...)
			pick("status", "completed", "failed", "refunded", "in_progress")
			pick("amount", "5", "5.50", "12", "30.00", "44")
			pick("amount[gte]", "3", "15.50", "28", "45", "90")
			pick("amount[lte]", "4", "16", "29.5", "41")
			pick("offset", "0", "1", "7", "40", "500")
			pick("limit", "1", "5", "100")
			if rng.IntN(4) == 0 && len(charged) > 0 {
				o := "o-missing"
				if r := env.s.merchantByID(env.m.ID); r != nil {
					m.mu.Lock()
					if tx := m.txByID(charged[rng.IntN(len(charged))]); tx != nil && tx.orderID() != "" {
						o = tx.orderID()
					}
					m.mu.Unlock()
				}
				q.Set("order_id", o)
			}
			scope, customerID := "", ""
			if rng.IntN(2) == 0 {
				customerID = customers[rng.IntN(len(customers))]
				scope = "/customers/" + customerID
			}
			want := naiveChargeList(m, customerID, q)
			got := []string{}
			for _, o := range requireOKList(t, env.get(scope+"/charges?"+q.Encode())) {
				got = append(got, o["id"].(string))
			}
			if want == nil {
				want = []string{}
			}
			require.Equal(t, want, got, "%s/charges?%s", scope, q.Encode())
		}
	}

	addCharges(300)
	require.False(t, m.clockBack)
	check(300)
	env.clock.Advance(-50 * time.Hour)
	addCharges(100)
	require.True(t, m.clockBack)
	check(300)
}

// requireOKList checks a 200 answer and returns its array.
func requireOKList(t testing.TB, r resp) []map[string]any {
	t.Helper()
	require.Equal(t, 200, r.status, "body %s", r.body)
	return r.arr(t)
}

// TestStoredCardChargesShareWireCard checks that charges to an unchanged
// stored card share one wire form of the card (what keeps a stored charge
// lean), and that a change to the card gives later charges the new form
// while earlier ones keep theirs.
func TestStoredCardChargesShareWireCard(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	m := env.s.merchantByID(env.m.ID)
	cardID := requireOK(t, env.post("/cards", validCard("4111111111111111")), 200)["id"].(string)
	charge := func() *tx {
		id := requireOK(t, env.post("/charges", map[string]any{"method": "card", "source_id": cardID,
			"amount": "10", "description": "x", "device_session_id": "s"}), 200)["id"].(string)
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.txByID(id)
	}
	a, b := charge(), charge()
	require.Same(t, a.card, b.card)

	requireOK(t, env.do(http.MethodPut, env.mp("/cards/"+cardID), env.m.PrivateKey, map[string]any{"holder_name": "Ana Lopez"}), 200)
	c := charge()
	require.NotSame(t, a.card, c.card)
	require.Equal(t, "Ana Lopez", c.card.HolderName)
	require.NotEqual(t, "Ana Lopez", a.card.HolderName)
	require.Equal(t, c.card.HolderName, requireOK(t, env.get("/charges/"+c.id()), 200)["card"].(map[string]any)["holder_name"])
}

// TestChargeListWhileWriting lists charges with filters that walk (past
// the lock's chunk) while other requests create, refund and capture
// charges: every page is newest first, without repeats, and holds only
// charges that passed the filters when read. Run under -race, it also
// checks that the walk reads records only under the lock.
func TestChargeListWhileWriting(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	cardID := requireOK(t, env.post("/cards", validCard("4111111111111111")), 200)["id"].(string)
	charge := func(amount string, capture bool) string {
		return requireOK(t, env.post("/charges", map[string]any{"method": "card", "source_id": cardID, "amount": amount,
			"description": "x", "device_session_id": "s", "capture": capture}), 200)["id"].(string)
	}
	for i := range 3 * listChunk {
		charge(fmt.Sprintf("%d", 1+i%7), true)
		if i%50 == 0 {
			env.clock.Advance(time.Hour)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 150 {
			id := charge("3", i%2 == 0)
			if i%2 == 0 {
				requireOK(t, env.post("/charges/"+id+"/refund", map[string]any{}), 200)
			} else {
				requireOK(t, env.post("/charges/"+id+"/capture", map[string]any{"amount": "2"}), 200)
			}
		}
	}()
	queries := []string{"status=completed&amount=2&limit=100", "amount[gte]=7&limit=100&offset=3", "status=refunded&amount[lte]=3&limit=100"}
	for n := 0; ; n++ {
		q := queries[n%len(queries)]
		vs, _ := url.ParseQuery(q)
		page := requireOKList(t, env.get("/charges?"+q))
		seen := map[string]bool{}
		var prev time.Time
		for i, o := range page {
			id := o["id"].(string)
			require.False(t, seen[id], "%s: %s twice", q, id)
			seen[id] = true
			created, err := time.Parse(time.RFC3339, o["creation_date"].(string))
			require.NoError(t, err)
			require.True(t, i == 0 || !created.After(prev), "%s: not newest first", q)
			prev = created
			if st := vs.Get("status"); st != "" {
				require.Equal(t, st, o["status"], q)
			}
			a := openpay.MustAmount(fmt.Sprint(o["amount"]))
			if v := vs.Get("amount"); v != "" {
				require.Zero(t, a.Cmp(openpay.MustAmount(v)), q)
			}
			if v := vs.Get("amount[gte]"); v != "" {
				require.GreaterOrEqual(t, a.Cmp(openpay.MustAmount(v)), 0, q)
			}
			if v := vs.Get("amount[lte]"); v != "" {
				require.LessOrEqual(t, a.Cmp(openpay.MustAmount(v)), 0, q)
			}
		}
		select {
		case <-done:
			return
		default:
		}
	}
}
