// Package conformance records a merchant's own traffic with the gateway's
// sandbox and replays it against the reference server, to show that the
// server answers the merchant's flows as the gateway does.
//
// Contract:
//   - A cassette is JSON lines: a [Header], then one [Exchange] per request
//     the [Recorder] forwarded, in the order the answers arrived.
//   - Nothing secret is written: the Authorization header and every other
//     header are left out (only which kind of key was used is kept), card
//     numbers keep their BIN, last four digits, brand and class
//     (cardnum.Class), and security codes, webhook users and passwords and
//     API keys become [Scrubbed]. [Scan] finds what scrubbing must have
//     removed; the recorder runs it on every line before writing it.
//   - [Replay] sends the cassette's requests in order to a target, maps the
//     ids the sandbox assigned to the ids the target assigns, and compares
//     each answer with the recorded one ([Compare] says what is compared
//     and how). An [Allowlist] excuses known differences.
//
// The package keeps no global state; a Recorder is safe for concurrent use.
package conformance
