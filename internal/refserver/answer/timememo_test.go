package answer

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The kept date is copied only for the same instant in the same zone: each
// date, written any number of times, in any order, between other dates
// and zones and from many goroutines at once, reads as time.Time's
// MarshalJSON writes it. Not in parallel with the package's other tests:
// it checks what the memo holds.
func TestAppendJSONTimeKeepsTheLastDate(t *testing.T) {
	mx, err := time.LoadLocation("America/Mexico_City")
	if err != nil {
		mx = time.FixedZone("CST", -6*3600)
	}
	now := time.Date(2026, 11, 29, 6, 30, 0, 0, mx)
	lastTime.Store(nil) // whatever other tests kept
	later := now.Add(time.Second)
	dates := []time.Time{now, now, now.UTC(), now.In(time.FixedZone("", 5*3600+30*60)), later, later, now,
		now.Add(-time.Hour), now.Add(-time.Hour), now.Add(time.Nanosecond), now, later.UTC(), later.UTC(), later,
		time.Date(10000, 1, 1, 0, 0, 0, 0, mx), time.Date(10000, 1, 1, 0, 0, 0, 0, mx), later}
	check := func(tm time.Time) {
		t.Helper()
		want, wantErr := tm.MarshalJSON()
		got, err := appendJSONTime([]byte("x"), tm)
		if wantErr != nil {
			assert.Error(t, err, "%v", tm)
			return
		}
		if assert.NoError(t, err, "%v", tm) {
			assert.Equal(t, "x"+string(want), string(got), "%v", tm)
		}
	}
	for range 3 {
		for _, tm := range dates {
			check(tm)
		}
	}
	require.NotNil(t, lastTime.Load())
	assert.True(t, lastTime.Load().t == later, "the latest date written twice in a row is kept")

	// A kept date is copied without an allocation; older dates, written in
	// turn, are not kept (nor allocated for).
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = appendJSONTime(make([]byte, 0, 64), later) }))
	older := []time.Time{now.Add(-3 * time.Hour), now.Add(-3 * time.Hour), now.Add(-2 * time.Hour), now.Add(-2 * time.Hour)}
	buf := make([]byte, 0, 64)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		for _, tm := range older {
			buf, _ = appendJSONTime(buf[:0], tm)
		}
	}))
	assert.True(t, lastTime.Load().t == later, "older dates do not replace the kept one")

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				tm := now.Add(time.Duration(i/7) * time.Second)
				if g%2 == 1 {
					tm = tm.UTC()
				}
				check(tm)
			}
		})
	}
	wg.Wait()
}
