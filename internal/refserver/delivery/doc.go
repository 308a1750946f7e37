// Package delivery delivers the reference server's events to webhooks: a
// queue per webhook (its outbox), retries with back-off, a log of the
// latest attempts and counters, within bounds. It knows nothing of
// merchants, webhooks or events beyond what a [Delivery] carries: the
// server decides which webhook receives which event, builds the body, and
// owns the webhooks themselves.
//
//	q := delivery.New(delivery.Config{Client: client, Logger: log, Changed: mark})
//	seq, ok := q.Enqueue(delivery.Delivery{Owner: merchantID, To: target, Event: ev, Body: body})
//	...
//	q.Forget(webhookID) // the webhook is deleted: its pending deliveries go
//	q.Close()
//
// Contract:
//   - A delivery is a POST of its body, with Content-Type application/json
//     and the target's HTTP Basic credentials (when it has any), answered
//     within [Timeout]. A 2xx answer ends it; anything else (another
//     status, a timeout, no connection) is tried again after a delay that
//     starts at Config.RetryDelay ([DefaultRetryDelay]) and doubles up to
//     [MaxRetryDelay], at most [MaxAttempts] attempts in all; then it is
//     given up. So a receiver sees duplicates, and a retried delivery
//     arrives after later ones. Delays run on the wall clock: they pace
//     real network calls.
//   - Each webhook's deliveries go out one at a time, first tried in the
//     order they were enqueued, and a slow or dead receiver delays only its
//     own webhook's deliveries.
//   - Bounds (Config.Limits): a webhook holds at most Limits.PerWebhook
//     pending deliveries ([DefaultPerWebhook]), those in flight and those
//     waiting for a retry included, so a receiver that is down costs
//     bounded memory however many events happen. [Queue.Enqueue] drops a
//     delivery that finds its webhook full, counts it ([Stats].Dropped) and
//     logs a warning once each time the queue fills up. Each webhook's
//     attempt log keeps its latest [MaxAttemptsLogged] attempts. Bounds
//     across webhooks belong in Limits too.
//   - Nothing the queue logs or records names a URL, a credential or a
//     body: the log names the webhook, and an attempt its event, status or
//     why there was no answer.
//   - Persistence: every pending delivery has a seq, the number Enqueue
//     gives it (from 1, never reused within a run), that a data directory
//     keys its record by. [Queue.Pending] and [Queue.Record] read what is
//     pending; Config.Changed is called whenever a delivery's record
//     changes outside Enqueue and Forget (an attempt counted, the delivery
//     done with or given up, or dropped by Resume); [Queue.Restore] takes
//     back what a data directory held and [Queue.Resume] queues it, once
//     the caller persists again. Outboxes, retry timers, counters and the
//     attempt log are this run's: a restored delivery is tried again at
//     once.
//   - [Queue.Reset] drops every pending delivery, retry timer, counter and
//     attempt log (deliveries in flight complete, unrecorded);
//     [Queue.Close] also cancels those in flight and waits for every
//     goroutine of the queue to end. After Close, Enqueue drops everything.
//
// Locks. Every method is safe for concurrent use. The queue's lock is taken
// inside the caller's locks and nothing holding it calls out: Enqueue,
// Forget, Restore, Record and Log may run under the caller's lock (the
// server enqueues under the merchant's lock), and never call back —
// Enqueue and Forget return what the caller records itself. Config.Changed
// is called with no lock of the queue held, from the queue's goroutines
// (and from Resume), never from a method called under the caller's lock.
// [Queue.Verify] makes a network call and must not be called under a lock.
package delivery
