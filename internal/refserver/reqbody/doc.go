// Package reqbody reads the reference server's request bodies: a JSON
// object read within the body limit and split into its members ([Read],
// [Parse]), decoded member by member into a wire request type of package
// openpay ([Fields.Into]) with the loose forms the gateway accepts, and
// checked ([Checker]). It imports nothing of the server but its error
// object (package apierr) and the shared amounts of package compact.
//
// A body is decoded in two steps, so that a handler can tell a member that
// is absent (or null) from one sent with its zero value, and every error
// names the member:
//
//	f, e := reqbody.Read(r, limit, false) // 1001 not a JSON object, 1009 too large
//	var req openpay.PlanRequest
//	e = f.Into(&req)                      // 1001 naming a member of the wrong type
//	var v reqbody.Checker
//	v.Required(f, "name", "amount")       // 1001 when absent or null
//	v.MaxLen("name", req.Name, 255)       // 1003 when out of range
//	if v.Err != nil { ... }
//
// Contract:
//   - Every refusal is an *apierr.Error with the code section 8 of the
//     specification gives: 1001 for a body that is not one JSON object, a
//     member of the wrong type or format, a required member missing; 1003
//     for a value out of range; 1009 for a body over the limit. The
//     descriptions the package writes name the member by its dotted path
//     ("card.cvv2") and repeat no value a client sent. No input makes the package panic
//     (the splitter is fuzzed against encoding/json, and the check of a
//     body's syntax against json.Valid).
//   - Leniency is decided here and nowhere else: the loose forms of
//     lenient.go (the rules openapi.yaml lists under
//     components.x-openpay-lenient, by the same names) are accepted
//     wherever their member appears; every other form is read as strictly
//     as encoding/json reads it. Members a wire type does not know are
//     ignored, as the gateway ignores them.
//   - What a merchant's country allows is the caller's: the checks of a
//     country's members ([Checker.IVA], [Checker.CustomerAddress]) check
//     their form only, and a date-time sent without an offset is read in
//     the zone the caller names ([Fields.IntoAt]; [Fields.Into] reads it
//     as Mexico City time, the gateway's).
//   - Fields share the body's storage and are never copied: the body must
//     not change after [Parse]. The Fields of one body belong to one
//     goroutine ([Fields.Object] keeps the split of a nested object). The
//     package's own state, what it learns once of each wire type, is safe
//     for concurrent use; no call takes a lock the caller holds.
//   - A body may be read ahead ([Body.Preread]), before the server takes
//     any lock, within the same limit: [Read] then uses it as it is, and
//     gives the answer a read at the handler would have given.
//   - The wire types of the busiest bodies (a card charge, with a stored
//     card or card data; a customer; a card; a transfer) are decoded by
//     functions generated from the same plans and member readings
//     (decode_gen.go, written by go generate from gen_test.go), the others
//     by reflection; FuzzGeneratedDecoders holds the two to the same
//     struct and the same error on any body. [Fields.Into] takes either
//     way by itself; the typed entries of the generated types
//     ([Fields.IntoCardCharge], [Fields.MemberString] and the like) also
//     leave the caller's struct where it is (on its stack).
//   - Cost, on every request: splitting a body is one allocation (its
//     members' slice; a member's name is a view of the body), a nested
//     object is split once, a body's syntax is checked in one pass without
//     encoding/json's scanner, and a string without escapes is read
//     without a second pass of encoding/json. An amount written with two
//     decimals is read without allocating (compact.AmountOfCents). A
//     decoded string is a copy, unless the handler asked for views: of one
//     copy of the body's values, read by [ReadOwn], after
//     [Fields.ShareStrings]; or of the body itself, kept no longer than its
//     request, after [Fields.Borrow].
package reqbody

//go:generate go test -run ^TestDecodersAreGenerated$ . -args -update-decoders
