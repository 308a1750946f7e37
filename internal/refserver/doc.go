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
// # Files
//
// Building blocks, pure logic, in packages of their own under internal/:
// cardnum (card numbers: Luhn, brands, masking, expiry; the sandbox test
// cards and what a charge to each does), clabe (CLABE check digits, masking,
// the bank-code catalogue), barcode (Code 128 images), storedata (the
// bundled store data sets of the three countries and the store search), ascii (the digits test they
// share) and web (the HTML pages and the browser library). Parts of the
// server with a contract of their own, in packages under internal/refserver/,
// each stating it in its package doc: apierr (the error object), idgen
// (identifiers and references, and the state a seeded sequence is saved
// and restored by), answer (the encoding of answers: the generated encoders
// of the wire types, and the keys every answer carries, null ones included,
// as openapi.yaml lists them; writeJSON and webhook deliveries use it),
// reqbody (request bodies: read within the body limit, split into members,
// decoded into the wire types with the loose forms the gateway accepts, the
// one place that decides them, and the field checker), delivery (webhook
// delivery: a bounded queue per webhook, retries, the attempt log and
// counters; webhooks_api.go decides what goes to which webhook and keeps
// the webhooks), datadir (the data directory: bbolt, opening and refusing
// unusable stores, marks, group commit, replacing and loading the stored
// state, which the server describes to it through datadir.State). Here:
// clock.go.
//
// Core: server.go (Options, New, AddMerchant, AddGroup, ServeHTTP: panic
// recovery into error 1000, request id, routing, authentication, body limit,
// the strict-mode X-Forwarded-For rule), call.go (the call a handler gets:
// its body, readBody; its path's locks, c.lock and s.lockWithGroups; the
// owners it names, c.scopeCustomer, and the token it names, c.unusedToken;
// the id of what it creates, c.newID), auth.go (the credential rules of
// each kind of route), country.go (what a merchant's country decides:
// currencies, payment methods, resources, webhook events, hosts;
// merchant.acceptsCurrency; which members a country takes, where package
// reqbody checks their form), browser.go (what browsers may call: CORS on
// the public-key routes, 1010 for the private key sent from a browser, and
// the browser library of package web served ahead of the API), dashboard.go
// (what the dashboard of package web shows and its buttons do, and who may
// see it), pages.go (the hosted pages' view of the server), routes.go (the
// route table and its matcher), errors.go (the error object's shared
// descriptions, and writing it), list.go (paging and filters), store.go
// (per-merchant state and its indexes: customers, cards and where they are
// stored, tokens, transactions and the order_ids they and checkouts hold,
// balances, groups), events.go (the event log and its hooks: onEvent, and
// onClockAdvance for the work time moves), charging.go (the charge machine
// every way of charging goes through: newChargeTx, startCharge,
// chargeStoredCard, completeCharge, cancel, withCharge), cardrules.go (the
// card rules every way of giving card data goes through: checkCardData,
// checkTypedCard; a card's points), money.go (what the money movements
// share: balances, transaction filters, a payout's end, the bank account
// rules, the transfers' in side, the record of fees taken that the fees
// report reads), seed.go and seed_decode.go (a starting state read from
// JSON or YAML, applied through the API), persist.go and persist_kinds.go
// (the server's side of package datadir: marks, the commit that ends each
// request, the owners, records and server-wide values it stores; the
// schema: the kinds of record, and what becomes of every field of the
// state).
//
// Server-wide controls: reset.go (GET /_health, and Reset, which replays
// the recorded configuration and swaps it in under the request gate) and
// faults.go (failures armed from outside, acted out in ServeHTTP).
//
// Resources, one file each, each with a register function called from
// buildRoutes (routes.go). A resource file holds its resource only: its
// handlers, its own types and their methods, and what makes or finds them
// (other files may use those); a helper that another file needs lives in a
// core file, and the store uses nothing of a resource file
// (TestResourceFilesDefineNoSharedHelpers checks both): merchant_api.go, cards_api.go, tokens_api.go,
// charges_api.go, barcode_api.go, simulate_api.go, customers_api.go,
// bankaccounts_api.go, payouts_api.go, transfers_api.go, fees_api.go,
// plans_api.go, subscriptions_api.go, webhooks_api.go, stores_api.go,
// groups_api.go, antifraud_api.go (the endpoints of the browser library's
// deviceData.setup), reports_api.go (the fees and payout reports, computed
// from the stored transactions), checkouts_api.go (payment links, their
// derived states and the pay control; their hosted page is package web's).
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
// Routes under /v1/{merchant_id} are authenticated as that merchant with its
// private key (allowPublicKey for the few the public key may call, which
// also opens them to browsers on other origins; fromBrowser opens a noAuth
// route so), routes
// under /v1/groups/{group_id} with the group's key, noAuth routes with
// nothing. needsClientIP applies the strict-mode X-Forwarded-For rule.
// Simulation controls go under /_simulate/{merchant_id}/... with
// r.simulate.
//
// A handler gets a *call (c.m is the authenticated merchant, c.g the group
// on group paths, c.param reads path parameters, c.baseURL the server's
// address) and returns the body to encode (a wire value, nil for 204) or an
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
// from the code), errNotFound(kind, id) for 1005. Lists: parseListParams,
// page, amountFilter and statusFilter (list.go); transaction lists:
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
// newCustomer and emit mark for themselves). Webhook delivery registers itself with s.onEvent (the hook runs
// under the merchant's lock: it only enqueues, and the queue calls nothing
// back) and its stop function with s.onClose; work driven by the clock
// registers with s.onClockAdvance.
//
// Nothing in this package logs or returns a full card number, a security
// code or a key: answers carry the masked number (cardnum.Mask) and the
// log records the operation, never the path, query or body.
package refserver
