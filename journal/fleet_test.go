package journal

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// fleetOrders is how many orders each process of the fleet handles (every
// process the same ones). JOURNAL_FLEET_ORDERS overrides it.
func fleetOrders() int {
	if n, err := strconv.Atoi(os.Getenv("JOURNAL_FLEET_ORDERS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// Four processes share one database and one reference server, each
// charging the same orders in its own order, with answers lost after the
// gateway acted, 5xx answers and delays armed, and one process killed
// midway. Afterwards every attempt is final, every order is charged once,
// and the books balance.
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("the fleet test starts processes; skipped with -short")
	}
	forEach(t, func(t *testing.T, e engine) {
		v := newCrashEnv(t, e)
		ctx := context.Background()
		n := fleetOrders()
		before := balance(t, v.c)
		const charges = "/v1/{merchant_id}/customers/{customer_id}/charges"
		v.g.fault(t, map[string]any{"method": "POST", "path": charges, "count": 40, "drop": "after"})
		v.g.fault(t, map[string]any{"method": "POST", "path": charges, "count": 20, "error_code": 1004})
		v.g.fault(t, map[string]any{"method": "POST", "path": charges, "count": 20, "error_code": 1000})
		v.g.fault(t, map[string]any{"method": "POST", "path": charges, "count": 20, "delay_ms": 300})
		v.g.fault(t, map[string]any{"method": "GET", "path": charges, "count": 20, "error_code": 1004})
		v.g.fault(t, map[string]any{"method": "GET", "path": charges, "count": 20, "delay_ms": 200})
		var procs []*proc
		for i := range 4 {
			procs = append(procs, startChild(t, e, v.g, "fleet", map[string]string{"CUSTOMER": v.p.customer, "CARD": v.p.card,
				"ORDERS": strconv.Itoa(n), "SEED": strconv.Itoa(i + 1)}))
		}
		// One process dies midway.
		procs[1].await(t, "PROGRESS "+strconv.Itoa(n*3/10/50*50))
		procs[1].kill(t)
		for i, p := range procs {
			if i != 1 {
				p.await(t, "DONE")
			}
		}
		// A recovery worker of this process finishes what is left.
		w := &Worker{Journal: v.j, Batch: 64, MinBackoff: 10 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}
		waitFor(t, 2*time.Minute, "every attempt to settle", func() bool {
			if _, err := w.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			c, err := v.j.Counts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return c.Pending == 0 && c.Unknown == 0
		})
		if left := v.g.faultsLeft(t); left != 0 {
			t.Errorf("%d armed faults were not met", left)
		}
		c, err := v.j.Counts(ctx)
		if err != nil || c != (Counts{Settled: n}) {
			t.Fatalf("counts %+v, %v; want %d settled", c, err, n)
		}
		all := chargesOf(t, v.c)
		for k := range n {
			order := fleetOrder(k)
			txs := all[order]
			if len(txs) != 1 {
				t.Fatalf("order %s: %d charges at the gateway", order, len(txs))
			}
			a, err := v.j.Attempt(ctx, order)
			if err != nil || a.State != StateMade || a.TransactionID != txs[0].ID {
				t.Fatalf("order %s: attempt %+v, %v; charge %s", order, a, err, txs[0].ID)
			}
		}
		if len(all) != n+1 { // the orders and the control charge
			t.Fatalf("%d order ids at the gateway, want %d", len(all), n+1)
		}
		want := v.unit
		for range n - 1 {
			want = want.Add(v.unit)
		}
		if got := balance(t, v.c).Sub(before); !got.Equal(want) {
			t.Fatalf("the balance moved by %s, want %s (%d charges)", got, want, n)
		}
	})
}
