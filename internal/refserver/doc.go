// Package refserver is the reference server: a stateful, in-process emulator
// of the Openpay gateway that merchants run in their own tests (through the
// public openpaytest package) or as a standalone process.
//
// The server enforces what the interface specification and the collected
// facts about the real gateway say: authentication, limits, card checks,
// the sandbox test cards, order_id uniqueness, balances and the state
// machines of charges, payouts, transfers, fees, subscriptions and plans.
//
// This file set holds its self-contained building blocks, pure logic with no
// dependency on the wire types or on the client:
//
//   - card checks: Luhn, brand detection, masking, number and CVV formats,
//     expiry (cards.go);
//   - the sandbox test-card table and its outcomes (testcards.go);
//   - CLABE account numbers and the bank catalogue (clabe.go);
//   - a Code 128 barcode renderer for store payment references (barcode.go);
//   - a bundled sample data set of convenience stores and the location
//     search over it (stores.go);
//   - identifier and reference generation, random or deterministic (ids.go);
//   - a clock that tests can set and advance (clock.go).
//
// The HTTP layer, the in-memory store, the state machines and the event
// delivery are built on top of these pieces.
//
// Nothing in this package logs or returns a full card number: callers get
// the masked form from [MaskCardNumber].
package refserver
