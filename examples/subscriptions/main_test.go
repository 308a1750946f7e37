package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSubscriptions(t *testing.T) {
	text := exampleenv.Output(t, run)
	assert.Regexp(t, `plan \S+: Plan Pro mensual 299\.00 every 1 month, 15 trial days`, text)
	assert.Regexp(t, `subscription \S+: trial until \d{4}-\d{2}-\d{2}`, text)
	assert.Regexp(t, `after two months: subscription active`, text)
	assert.Regexp(t, `charge \S+ \S+ completed 299\.00`, text)
	assert.Contains(t, text, "cancel at period end: true")
	assert.Regexp(t, `ana +13 invoices paid, 3887\.00 MXN; 0 failed`, text)
}

// The dates the example prints agree with each other: the first charge is
// made on the day the subscription announced, the second one month later,
// and the next charge is a month after that, however the example moves
// the clock.
func TestSubscriptionsPrintsConsistentDates(t *testing.T) {
	text := exampleenv.Output(t, run)
	day := func(re string) time.Time {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(text)
		require.NotNil(t, m, "%s in:\n%s", re, text)
		d, err := time.Parse(time.DateOnly, m[1])
		require.NoError(t, err)
		return d
	}
	first := day(`first charge on (\d{4}-\d{2}-\d{2})`)
	trialEnd := day(`trial until (\d{4}-\d{2}-\d{2})`)
	assert.Equal(t, first.AddDate(0, 0, -1), trialEnd, "the trial ends the day before the first charge")

	var charged []string
	for _, m := range regexp.MustCompile(`charge \S+ (\d{4}-\d{2}-\d{2}) completed`).FindAllStringSubmatch(text, -1) {
		charged = append(charged, m[1])
	}
	// Newest first.
	assert.Equal(t, []string{first.AddDate(0, 1, 0).Format(time.DateOnly), first.Format(time.DateOnly)}, charged)
	assert.Equal(t, first.AddDate(0, 2, 0), day(`next charge on (\d{4}-\d{2}-\d{2})`))
}
