// Package conformance records a merchant's own traffic with the gateway's
// sandbox and replays it against the reference server, to show that the
// server answers the merchant's flows as the gateway does.
//
// Contract:
//   - A cassette is JSON lines: a [Header], then one [Exchange] per request
//     the [Recorder] forwarded or webhook delivery it received
//     ([WebhookPath]), in the order the requests arrived; exchange Seq is
//     on line Seq+1. The binary's README documents every member.
//   - Nothing secret is written, but what a negative test is about is kept:
//     the Authorization header and every other header are left out (only
//     which kind of key was used, and whether the upstream refused it, are
//     kept), card numbers keep their BIN, last four digits, brand, class
//     (cardnum.Class) and layout, security codes their layout, CLABEs their
//     bank, length and validity; codes, webhook users and passwords,
//     metadata secrets and API keys become [Scrubbed], in bodies and query
//     strings alike. [Scan] finds what scrubbing must have removed; the
//     recorder runs it on every line before writing it.
//   - [Replay] sends the cassette's requests in order to a target, on the
//     recorded clock when the target has a fake one, with equivalent
//     values for what was scrubbed (invalid where the recorded ones were),
//     maps the ids the sandbox assigned to the ids the target assigns, and
//     compares each answer with the recorded one ([Compare] says what is
//     compared and how; lists on the objects the cassette saw). An
//     [Allowlist] excuses known differences; the [Report] has every
//     difference, by exchange.
//
// The package keeps no global state; a Recorder is safe for concurrent use.
package conformance
