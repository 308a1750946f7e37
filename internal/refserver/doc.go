// Package refserver is the reference server: a stateful, in-process emulator
// of the Openpay gateway that merchants run in their own tests (through the
// public openpaytest package) or as a standalone process
// (cmd/openpay-refserver).
//
// The server enforces what the interface specification and the collected
// facts about the real gateway say: authentication, limits, card checks,
// the sandbox test cards, order_id uniqueness, balances and the state
// machines of charges, payouts, transfers, fees, subscriptions and plans.
// It depends on the wire types of package openpay and on nothing else of
// the client; every answer is encoded from those types.
//
// # Layout
//
// Parts with a contract of their own are packages under internal/refserver
// (apierr, idgen, answer, reqbody, delivery, datadir, seed) and under internal/
// (cardnum, clabe, barcode, storedata, web); each states its contract and
// its lock rules in its package doc, so `go doc` on the package is its map.
//
// This package is the core: the request's path through ServeHTTP (panic
// recovery into error 1000, request id, the query parsed whole (c.query;
// never r.URL.Query()), faults, routing, authentication, body limit) to a
// handler, the call a handler gets, the per-merchant store
// and its indexes, the charge machine and card rules every way of charging
// shares, events, the clock, persistence's schema, and the server-wide
// controls. Each resource is one file named after it with the suffix
// _api.go, holding its handlers, its own types and what makes or finds them,
// and a register function called from buildRoutes. A helper that another
// file needs lives in a core file, never in a resource file, and the store
// calls nothing of a resource file; TestResourceFilesDefineNoSharedHelpers
// checks both.
//
// # Writing a resource file
//
// Register each operation of openapi.yaml with its operationId, method,
// pattern and success status; a test checks all four against openapi.yaml
// and calls every operation over HTTP:
//
//	func (s *Server) registerPlans(r *routeTable) {
//		r.add("createPlan", http.MethodPost, "/v1/{merchant_id}/plans", http.StatusOK, s.createPlan)
//		...
//	}
//
// Register every route whatever the options: the table's shape is built by
// the first server of the process and shared, and each later server only
// gives its handlers, in the same order (a server that registers otherwise
// panics at New).
//
// Routes under /v1/{merchant_id} are authenticated as that merchant with its
// private key (allowPublicKey for the few the public key may call, which
// also opens them to browsers on other origins; fromBrowser opens a noAuth
// route so), routes
// under /v1/groups/{group_id} with the group's key, noAuth routes with
// nothing. needsClientIP applies the strict-mode X-Forwarded-For rule.
// Simulation controls go under /_simulate/{merchant_id}/... with
// r.simulate. The server-wide controls (reset.go, faults.go) act on the
// merchant whose key called them (c.controlOwner) and on the whole server
// only for the admin key: no merchant's key reaches another merchant.
//
// A handler gets a *call (c.m is the authenticated merchant, c.g the group
// on group paths, c.param reads path parameters, c.baseURL the server's
// address; reused once answered: keep none of it) and returns the body to
// encode (a wire value, c.answerTx(t) for a transaction, nil for 204) or an
// *Error:
//
//	func (s *Server) createPlan(c *call) (any, *Error) {
//		f, e := readBody(c, false) // 1001 not a JSON object, 1009 too large
//		if e != nil {
//			return nil, e
//		}
//		var req openpay.PlanRequest
//		if e := f.Into(&req); e != nil { // 1001 naming a member of the wrong type
//			return nil, e
//		}
//		var v reqbody.Checker
//		v.Required(f, "name", "amount")  // 1001 when absent or null
//		v.MaxLen("name", req.Name, 255)  // 1003 when out of range
//		v.Amount("amount", req.Amount)   // 1003: > 0, at most two decimals
//		if v.Err != nil {
//			return nil, v.Err
//		}
//		c.m.mu.Lock() // the merchant's one lock: checks and changes in one step
//		defer c.m.mu.Unlock()
//		ps := extState(c.m, newPlanState) // the file's own state, per merchant
//		...
//		return plan, nil
//	}
//
// Errors: errorf(code, format, ...) for any code (status and category come
// from the code), errNotFound(kind, id) for 1005. Request members that
// several resources share (a customer's data, amount with description and
// order_id, a bank account, a card's expiration): package fieldrules; card
// data however it comes: s.checkCardData (its rules: package cardrules).
// Lists: listquery.Parse,
// listquery.Page, listquery.Amounts and listquery.Status (package
// listquery); transaction lists:
// parseTxFilter and txFilter.list (money.go). Paths that may be a
// group's: defer c.lock()() takes the group's lock then the merchant's,
// c.customers() and c.cards() are the path's customers and cards (the
// group's or the merchant's), c.eachMerchant visits the merchants whose
// records the path covers. Customers: c.scopeCustomer() for the
// {customer_id} of the path, s.newCustomer to create one. Transactions: m.orderIDTaken then m.addTx (order_id is
// unique across every transaction of the merchant and the order_ids other
// records hold: m.holdOrderID, a checkout's), m.setStatus and
// m.setAmount for any later change of status or amount (lists index
// them), m.accountFor(customerID) and its credit/debit for balances, insufficientFunds for 4001, s.emit for
// events, s.chargeStoredCard to charge a stored card from inside the server
// (subscriptions). A change to a record the store keeps is marked where it
// is made, under the owner's lock: m.mark(recPlan, p.ID) (persist_kinds.go
// says how to add a kind; addTx, setStatus, setAmount, credit, debit,
// newCustomer and emit mark for themselves). A handler never waits on the
// network within the reset gate: a network call goes in c.outsideGate
// (reset.go says why). Webhook delivery registers itself with s.onEvent (the hook runs
// under the merchant's lock: it only enqueues, and the queue calls nothing
// back), its stop function with s.onClose and the dropping of a reset
// merchant's deliveries with s.onMerchantReset; work driven by the clock
// registers with s.onClockAdvance, as work per merchant (each merchant has
// a clock of its own once moved, clock.go); code that dates or judges
// anything of a merchant reads its time with s.nowFor(m) or s.nowOf(m)
// (nil: the server's), not s.Now().
//
// Nothing in this package logs, returns or stores a full card number, a
// security code or a key: answers carry the masked number (cardnum.Mask),
// a card keeps only that and what its number decides (card.prof), not
// the number itself, and the log records the operation, never the path,
// query or body.
package refserver
