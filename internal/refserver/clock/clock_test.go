package clock

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRealClock(t *testing.T) {
	t.Parallel()
	var c Clock = RealClock{}
	before := time.Now().Add(-time.Second)
	got := c.Now()
	after := time.Now().Add(time.Second)
	assert.True(t, got.After(before) && got.Before(after), "now is %v", got)
	_, off := got.Zone()
	assert.Equal(t, -6*3600, off)
	assert.Equal(t, got.String(), got.Round(0).String(), "no monotonic reading")
}

func TestFakeClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	c := NewFakeClock(start)
	var _ Clock = c

	assert.True(t, c.Now().Equal(start))
	_, off := c.Now().Zone()
	assert.Equal(t, -6*3600, off, "in the gateway's zone")
	assert.True(t, c.Now().Equal(c.Now()), "stands still")

	got := c.Advance(90 * time.Minute)
	assert.True(t, got.Equal(start.Add(90*time.Minute)))
	assert.Equal(t, "2025-03-01T05:00:00-06:00", got.Format(time.RFC3339))
	assert.True(t, c.Now().Equal(got))

	c.Advance(-time.Hour)
	assert.True(t, c.Now().Equal(start.Add(30*time.Minute)))

	later := time.Date(2026, 2, 28, 0, 0, 0, 0, Zone)
	c.Set(later)
	assert.True(t, c.Now().Equal(later))
	assert.Equal(t, "2026-02-28T00:00:00-06:00", c.Now().Format(time.RFC3339))

	var zero FakeClock
	assert.True(t, zero.Now().Equal(time.Time{}), "the zero value stands at the zero time")
}

func TestFakeClockConcurrent(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, Zone)
	c := NewFakeClock(start)
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				c.Advance(time.Second)
				_ = c.Now()
			}
		}()
	}
	wg.Wait()
	assert.True(t, c.Now().Equal(start.Add(1000*time.Second)))
}

func TestSecondIsTruncate(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(38, 1))
	times := []time.Time{{}, time.Now(), time.Now().In(Zone), time.Unix(0, 999_999_999), time.Unix(-1, 1).UTC(),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(0, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(-5, 3, 1, 0, 0, 0, 500, Zone), time.Date(2026, 11, 29, 23, 59, 59, 999_999_999, Zone)}
	for range 10000 {
		times = append(times, time.Unix(r.Int64N(1<<40)-1<<39, r.Int64N(2e9)-1e9).In([]*time.Location{time.UTC, Zone, time.Local}[r.IntN(3)]))
	}
	for _, tm := range times {
		want := tm.Truncate(time.Second)
		got := Second(tm)
		assert.True(t, want == got, "%v: Second %v, Truncate %v", tm, got, want) // the same value, zone and all
	}
}
