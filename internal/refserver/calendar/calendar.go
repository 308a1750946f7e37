// Package calendar is the reference server's day arithmetic: the days on
// which subscriptions start, are charged and end. A day is held as
// midnight UTC of its date, whatever zone it was read in, so that days
// compare and add without a zone.
//
// Contract: [Day] turns an instant into the day it is in a zone, and
// [StartOfDay] gives back the first instant of a day in a zone; [DateOnly]
// takes the day a yyyy-mm-dd value names; [AddMonths] and [PeriodStart]
// count calendar months (keeping the day of the month, or taking the last
// day of a shorter month), weeks and years. Every function is pure. The
// package does not own the clock (what "today" is) nor the subscriptions'
// schedule (which period is due, retries, trials): the server does.
package calendar

import (
	"time"

	"github.com/openpay-go/openpay"
)

// Day is the day of t in zone (a merchant's), as midnight UTC.
func Day(t time.Time, zone *time.Location) time.Time {
	y, m, d := t.In(zone).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// DateOnly is the calendar day a decoded yyyy-mm-dd value names, as
// midnight UTC.
func DateOnly(d openpay.Date) time.Time { return d.In(time.UTC) }

// AddMonths adds n calendar months to a day, keeping its day of the month
// or, when the month is shorter, taking its last day.
func AddMonths(day time.Time, n int) time.Time {
	y, m, d := day.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}

// PeriodStart is the day period n (from 0) of a plan starts when the first
// one starts on anchor.
func PeriodStart(anchor time.Time, n int, p *openpay.Plan) time.Time {
	k := n * p.RepeatEvery
	switch p.RepeatUnit {
	case openpay.RepeatUnitWeek:
		return anchor.AddDate(0, 0, 7*k)
	case openpay.RepeatUnitYear:
		return AddMonths(anchor, 12*k)
	default:
		return AddMonths(anchor, k)
	}
}

// StartOfDay is the first instant of a day (held as midnight UTC) in zone
// (a merchant's).
func StartOfDay(day time.Time, zone *time.Location) time.Time {
	y, m, d := day.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, zone)
}
