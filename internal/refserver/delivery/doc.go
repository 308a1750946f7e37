// Package delivery delivers the reference server's events to webhooks: a
// queue per webhook (its outbox), a fixed pool of senders, retries with
// back-off, a log of the latest attempts and counters, within bounds. It knows nothing of
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
//     within [Timeout]. No redirect is followed (it would carry the body
//     and the credentials elsewhere): a 3xx is a failed attempt, logged
//     with its status. A 2xx answer ends it; anything else (another
//     status, a timeout, no connection) is tried again after a delay that
//     starts at Config.RetryDelay ([DefaultRetryDelay]) and doubles up to
//     [MaxRetryDelay], at most [MaxAttempts] attempts in all; then it is
//     given up. So a receiver sees duplicates, and a retried delivery
//     arrives after later ones. Delays run on the wall clock: they pace
//     real network calls.
//   - Each webhook's deliveries go out one at a time, first tried in the
//     order they were enqueued. A fixed pool of Limits.Senders goroutines
//     ([DefaultSenders], started as work comes, ended by Close) sends them,
//     taking the webhooks with a delivery to try in turn, one delivery per
//     turn; so at most that many deliveries are in flight, on as many
//     outbound connections, and a slow or dead receiver delays the others
//     only while that many receivers hang at once (each for at most
//     [Timeout] an attempt). Waiting retries cost no goroutine: one timer
//     moves them back to their outboxes when due.
//   - Bounds (Config.Limits): a webhook holds at most Limits.PerWebhook
//     pending deliveries ([DefaultPerWebhook]), and the queue at most
//     Limits.Total across every webhook ([DefaultTotal]), and one owner
//     (a merchant) at most Limits.PerOwner across its webhooks
//     ([DefaultPerOwner], a quarter of the total, so that one merchant's
//     dead receivers leave room for the others' events), those in flight
//     and those waiting for a retry included, so receivers that are down
//     cost bounded memory however many events and webhooks there are.
//     [Queue.Enqueue] drops a delivery that finds its webhook, its owner
//     or the total full, counts it against its webhook ([Stats].Dropped) and logs a
//     warning once each time either fills up; it never blocks nor starts
//     more than one goroutine, so that it may run under the caller's
//     locks. Each webhook's attempt log keeps its latest
//     [MaxAttemptsLogged] attempts.
//   - Addresses (Config.PublicOnly, the server's production mode): every
//     connection is dialed by the queue's own dialer, which refuses an
//     address that is not public ([PublicAddr]: loopback, private,
//     link-local, unspecified, multicast) once the name is resolved, so a
//     name that resolves elsewhere later (DNS rebinding) gains nothing;
//     no proxy is used. [PublicHost] applies the same rule to a host name
//     ahead (the server checks a webhook's URL at creation).
//   - Nothing the queue logs or records names a URL, a credential or a
//     body: the log names the webhook, and an attempt its event, status or
//     why there was no answer, in a fixed vocabulary ([ErrTimeout],
//     [ErrRefused], [ErrReset], [ErrNoHost], [ErrNotAllowed], [ErrTLS],
//     [ErrNoHTTP], [ErrCancelled], [ErrBadURL], [ErrRedirect]), never the
//     network's own message: the attempt log is shown to merchants, and
//     addresses, ports and what answers there must not be read from it.
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
//   - [Queue.Reset] drops every pending delivery, waiting retry, counter
//     and attempt log (deliveries in flight complete, unrecorded);
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
