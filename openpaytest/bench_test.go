package openpaytest_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// BenchmarkNewServer is the cost of a server per test: Start and Close with
// nothing sent (new), and with a first card charge through the SDK
// (first-charge). Its allocations and bytes do not depend on the machine's
// load; its time does.
func BenchmarkNewServer(b *testing.B) {
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := openpaytest.Start()
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("first-charge", func(b *testing.B) {
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			s, err := openpaytest.Start()
			if err != nil {
				b.Fatal(err)
			}
			c, err := s.Client(openpay.WithDefaultClientIP("203.0.113.7"))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Charges.Create(ctx, openpay.InlineCardCharge{Amount: openpay.MustAmount("100"),
				Description: "Order 1", OrderID: "o-1", Card: exampleCard(openpaytest.CardVisa)}); err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
}

// TestAServerPerTestCostsLittle: a merchant's suite that starts a server
// per test pays little for each: at most 1,000 allocations and 100 KB (a
// server used to parse its HTML templates and build its route table: 9,655
// allocations and 633 KB). Counts, not times, so that the machine's load
// does not decide it.
func TestAServerPerTestCostsLittle(t *testing.T) {
	start := func() {
		s, err := openpaytest.Start()
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	start() // the first server of the process builds what every server shares
	const runs = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	allocs := testing.AllocsPerRun(runs, start)
	runtime.ReadMemStats(&after)
	bytes := (after.TotalAlloc - before.TotalAlloc) / (runs + 1) // AllocsPerRun runs it once more
	t.Logf("a server: %.0f allocations, %d bytes", allocs, bytes)
	if allocs > 1000 {
		t.Errorf("a server costs %.0f allocations, want at most 1,000", allocs)
	}
	if bytes > 100<<10 {
		t.Errorf("a server costs %d bytes, want at most 100 KB", bytes)
	}
}
