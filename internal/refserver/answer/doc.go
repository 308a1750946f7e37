// Package answer encodes the reference server's answers: the JSON of the
// wire types of package openpay, with every key the gateway always sends,
// null ones included. A token is answered as a [Token] of this package:
// the SDK reads a token's card as a stored card's type, whose members the
// gateway's token card does not all carry.
//
// Contract:
//   - [Append] appends v's JSON and a newline, exactly the bytes a
//     json.Encoder with HTML escaping off writes followed by [AddWireKeys],
//     when v is a wire type with a generated encoder (a value, a pointer or
//     a slice of one); ok is false, and b unchanged, for any other v, which
//     the caller encodes with encoding/json and passes to AddWireKeys.
//   - [AddWireKeys] takes data, the encoding/json encoding of v, and returns
//     it with the keys of v's key plan that the encoding left out, each with
//     its schema's zero value (null, false, 0), at the end of its object. It
//     never changes data in place, and returns data itself when nothing is
//     missing. [AddWireKeysInto] does the same building its copy in
//     scratch's storage when that is large enough.
//   - [Write] writes v as the answer with the given status: encoded as
//     Append (or encoding/json and AddWireKeys) says, with Content-Type
//     application/json, X-Content-Type-Options nosniff and, from 2048
//     bytes, a Content-Length; encoded before anything is written, so a v
//     that cannot be encoded is answered 500 with the gateway's error
//     object instead. Its buffers are pooled, none above 1 MiB kept.
//     [WriteRaw] writes bytes as they are (an image), with nosniff and
//     Cache-Control no-store.
//   - Which keys are always sent is openapi.yaml's to say: an object's
//     `required` list (with `nullable` where the gateway sends null), a
//     property's own `required` next to its `allOf` (the card inside a
//     transaction always has `address`), and `x-required-if` for the keys
//     only some variants carry (`conciliated` on redirect and IVR charges,
//     `attempts` on an IVR payment method, `customer_id` on a card with an
//     id). The wire types cannot say it
//     themselves: a field left out when zero (omitzero) is what the SDK needs
//     for requests, and a pointer for every such field would make the SDK's
//     types worse to use.
//
// The package holds no state but the key plans, built once when it is
// loaded and only read after, and a memo of the last card it wrote inside
// a transaction, whose JSON is copied for a card equal to it field by
// field (cardmemo.go: the bytes are the encoder's for that value), and one
// of the last date it kept (timememo.go, the same way); it takes no locks,
// and every function is safe for concurrent use.
//
// # Generated code
//
// Both tables are generated, never edited by hand; go generate rewrites them
// (the key plans first: the encoders follow them), and the test that writes
// each fails when its file is stale:
//   - wirekeys.gen.go, the key plans, from openapi.yaml by
//     TestKeyPlansFollowOpenAPI;
//   - answers.gen.go, an encoder for each usual wire type (a transaction, a
//     page of them, a customer...), from the wire types by reflection, by
//     TestAnswerEncodersAreGenerated. They replace encoding/json, whose
//     reflection was most of the time the server spent on a list of charges:
//     same member order, omitempty and omitzero, null for nil pointers,
//     slices and maps, map keys sorted, the types' own MarshalJSON for the
//     rest, and the plan's missing keys written at the end of each object,
//     so the answer needs no second pass. TestAnswerEncodersMatchEncodingJSON
//     compares the two ways on random values and on the gateway's examples.
package answer

//go:generate go test -run ^TestKeyPlansFollowOpenAPI$ . -args -update-keyplans
//go:generate go test -run ^TestAnswerEncodersAreGenerated$ . -args -update-answers
