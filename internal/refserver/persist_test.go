package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/datadir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// persistBaseURL is the base URL of the persisting servers of these tests:
// fixed, so that answers holding URLs (barcodes) compare across restarts.
const persistBaseURL = "http://refserver.test"

// openPersistEnv starts a server on the data directory dir. The first time
// (fresh true) it creates two merchants and a group and saves them;
// afterwards the state comes from dir, and cfg gives the credentials.
func openPersistEnv(t *testing.T, dir string, cfg *testEnv, start time.Time) *testEnv {
	t.Helper()
	seed := int64(42)
	env := &testEnv{t: t, clock: NewFakeClock(start)}
	env.s = New(Options{Clock: env.clock, IDSeed: &seed, BaseURL: persistBaseURL})
	restored, err := env.s.OpenData(dir)
	require.NoError(t, err)
	if cfg == nil {
		require.False(t, restored)
		env.addMerchants()
		require.NoError(t, env.s.SaveData())
	} else {
		require.True(t, restored)
		env.m, env.other, env.g = cfg.m, cfg.other, cfg.g
	}
	env.srv = httptest.NewServer(env.s)
	t.Cleanup(env.srv.Close)
	t.Cleanup(env.s.Close)
	return env
}

// persistFlow makes one of nearly everything the API can create, change
// and remove, and returns the paths (under the main merchant, or absolute
// when they start with /v1/) whose answers must survive a restart.
func persistFlow(t *testing.T, env *testEnv, rc *receiver) []string {
	t.Helper()
	var paths []string
	keep := func(p string) { paths = append(paths, p) }
	id := func(r resp) string {
		t.Helper()
		return requireOK(t, r, http.StatusOK)["id"].(string)
	}

	hook := requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded", "charge.refunded",
		"payout.succeeded", "subscription.charge.failed")), http.StatusCreated)["id"].(string)
	deleted := requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "fee.succeeded")), http.StatusCreated)["id"].(string)
	require.Equal(t, http.StatusNoContent, env.del("/webhooks/"+deleted).status)
	keep("/webhooks/" + hook)
	keep("/webhooks")

	// Customers: with an account, plain, updated, deleted.
	seller := id(env.post("/customers", map[string]any{"name": "Seller", "email": "s@example.com", "requires_account": true}))
	buyer := id(env.post("/customers", map[string]any{"name": "Buyer", "email": "b@example.com", "external_id": "ext-1",
		"address": map[string]any{"line1": "Av 1", "city": "Queretaro", "state": "Qro", "postal_code": "76000", "country_code": "MX"}}))
	requireOK(t, env.put("/customers/"+buyer, map[string]any{"name": "Buyer Two", "email": "b2@example.com"}), http.StatusOK)
	gone := id(env.post("/customers", map[string]any{"name": "Gone", "email": "g@example.com"}))
	require.Equal(t, http.StatusNoContent, env.del("/customers/"+gone).status)
	frozen := id(env.post("/customers", map[string]any{"name": "Frozen", "email": "f@example.com", "requires_account": true}))
	require.NoError(t, env.s.SetCustomerAccountActive(env.m.ID, frozen, false))
	for _, c := range []string{seller, buyer, frozen} {
		keep("/customers/" + c)
	}
	keep("/customers?limit=100")

	// Cards: stored on a customer, at merchant level, from a token; updated
	// and deleted.
	card := id(env.post("/customers/"+buyer+"/cards", validCard("4111111111111111")))
	requireOK(t, env.put("/customers/"+buyer+"/cards/"+card, map[string]any{"holder_name": "Juan P", "cvv2": "123"}), http.StatusOK)
	mcard := id(env.post("/cards", validCard("5555555555554444")))
	tok := id(env.post("/tokens", validCard("4242424242424242")))
	fromTok := id(env.post("/customers/"+buyer+"/cards", map[string]any{"token_id": tok, "device_session_id": "x"}))
	unusedTok := id(env.post("/tokens", validCard("4111111111111111")))
	dropped := id(env.post("/cards", validCard("4012888888881881")))
	require.Equal(t, http.StatusNoContent, env.del("/cards/"+dropped).status)
	keep("/customers/" + buyer + "/cards/" + card)
	keep("/customers/" + buyer + "/cards/" + fromTok)
	keep("/cards/" + mcard)
	keep("/tokens/" + tok)
	keep("/tokens/" + unusedTok)
	keep("/cards?limit=100")
	keep("/customers/" + buyer + "/cards?limit=100")

	// Charges of each kind, captured, refunded, paid, failed, charged back.
	charges := "/customers/" + buyer + "/charges"
	byCard := id(env.post(charges, cardCharge(card, "order_id", "o-1")))
	preauth := id(env.post(charges, cardCharge(card, "capture", false, "amount", 80)))
	requireOK(t, env.post(charges+"/"+preauth+"/capture", map[string]any{"amount": 50}), http.StatusOK)
	refunded := id(env.post(charges, cardCharge(card, "order_id", "o-2")))
	requireOK(t, env.post(charges+"/"+refunded+"/refund", map[string]any{"amount": 30, "description": "part"}), http.StatusOK)
	inline := id(env.post("/charges", map[string]any{"method": "card", "amount": 70, "description": "inline",
		"card": validCard("4111111111111111")}))
	storeCharge := id(env.post(charges, map[string]any{"method": "store", "amount": 100, "description": "store", "order_id": "o-3"}))
	requireOK(t, env.sim("/charges/"+storeCharge+"/pay", nil), http.StatusOK)
	bank := id(env.post(charges, map[string]any{"method": "bank_account", "amount": 120, "description": "bank"}))
	redirect := id(env.post("/charges", map[string]any{"method": "card", "amount": 60, "description": "redirect",
		"confirm": false, "redirect_url": "https://shop.example/back",
		"customer": map[string]any{"name": "Ana", "email": "ana@example.com"}}))
	requireOK(t, env.sim("/charges/"+redirect+"/complete", nil), http.StatusOK)
	alipay := id(env.post("/charges", map[string]any{"method": "alipay", "amount": 200, "description": "alipay",
		"redirect_url": "https://shop.example/back"}))
	requireOK(t, env.sim("/charges/"+alipay+"/fail", map[string]any{"error_code": 3001}), http.StatusOK)
	disputed := id(env.post(charges, cardCharge(card, "amount", 40)))
	requireOK(t, env.sim("/charges/"+disputed+"/chargeback", nil), http.StatusOK)
	declined := env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": "declined",
		"card": validCard("4000000000030017")})
	require.NotEqual(t, http.StatusOK, declined.status)
	requireOK(t, env.put(charges+"/"+byCard, map[string]any{"description": "changed", "order_id": "o-1b"}), http.StatusOK)
	for _, c := range []string{byCard, preauth, refunded, storeCharge, bank, disputed} {
		keep(charges + "/" + c)
	}
	for _, c := range []string{inline, redirect, alipay} {
		keep("/charges/" + c)
	}
	keep("/charges?limit=100")
	keep(charges + "?limit=100")

	// Money: a bank receipt, payouts (settled, failed, cancelled), bank
	// accounts, a transfer, fees and a fee refund.
	requireOK(t, env.sim("/customers/"+seller+"/spei", map[string]any{"amount": 900}), http.StatusOK)
	requireOK(t, env.sim("/spei", map[string]any{"amount": 1000}), http.StatusOK)
	acct := id(env.post("/customers/"+seller+"/bankaccounts", map[string]any{"holder_name": "Seller", "clabe": clabeIXE}))
	macct := id(env.post("/bankaccounts", map[string]any{"holder_name": "Merchant", "clabe": clabeBancomer}))
	gone2 := id(env.post("/customers/"+seller+"/bankaccounts", map[string]any{"holder_name": "Old", "clabe": clabeBancomer}))
	require.Equal(t, http.StatusNoContent, env.del("/customers/"+seller+"/bankaccounts/"+gone2).status)
	settled := id(env.post("/customers/"+seller+"/payouts", bankPayout(acct, "order_id", "p-1")))
	requireOK(t, env.sim("/payouts/"+settled+"/settle", nil), http.StatusOK)
	failed := id(env.post("/payouts", inlineBankPayout("amount", 20)))
	requireOK(t, env.sim("/payouts/"+failed+"/fail", map[string]any{"error_message": "rejected"}), http.StatusOK)
	cancelled := id(env.post("/payouts", bankPayout(macct, "amount", 5)))
	requireOK(t, env.del("/payouts/"+cancelled), http.StatusOK)
	other := id(env.post("/customers", map[string]any{"name": "Other", "email": "o@example.com", "requires_account": true}))
	tr := id(env.post("/customers/"+seller+"/transfers", transfer(other, "order_id", "t-1")))
	feeID := id(env.post("/fees", fee(seller, "order_id", "f-1")))
	requireOK(t, env.post("/fees/"+feeID+"/refund", map[string]any{"description": "back"}), http.StatusOK)
	id(env.post("/fees", fee(other, "amount", 1)))
	keep("/customers/" + seller + "/bankaccounts/" + acct)
	keep("/customers/" + seller + "/bankaccounts")
	keep("/bankaccounts/" + macct)
	keep("/customers/" + seller + "/payouts/" + settled)
	keep("/payouts/" + failed)
	keep("/payouts/" + cancelled)
	keep("/payouts?limit=100")
	keep("/customers/" + seller + "/transfers/" + tr)
	keep("/customers/" + other + "/transfers/" + tr)
	keep("/customers/" + other + "/transfers?limit=100")
	keep("/fees?limit=100")
	keep("/customers/" + seller)
	keep("/customers/" + other)

	// Plans and subscriptions, charged as the clock moves.
	plan := id(env.post("/plans", planBody("trial_days", 0)))
	trialPlan := id(env.post("/plans", planBody("name", "trial", "trial_days", 5)))
	requireOK(t, env.put("/plans/"+trialPlan, map[string]any{"name": "trial renamed"}), http.StatusOK)
	oldPlan := id(env.post("/plans", planBody("name", "old")))
	require.Equal(t, http.StatusNoContent, env.del("/plans/"+oldPlan).status)
	sub := id(env.post(subPath(buyer), map[string]any{"plan_id": plan, "source_id": card}))
	trial := id(env.post(subPath(buyer), map[string]any{"plan_id": trialPlan, "card": inlineCard("343434343434343")}))
	ended := id(env.post(subPath(buyer), map[string]any{"plan_id": trialPlan, "source_id": card}))
	require.Equal(t, http.StatusNoContent, env.del(subPath(buyer, "/", ended)).status)
	requireOK(t, env.sim("/clock/advance", map[string]any{"seconds": 40 * 86400}), http.StatusOK)
	for _, s := range []string{sub, trial} { // ended is deleted: gone from reads and lists
		keep(subPath(buyer, "/", s))
	}
	keep(subPath(buyer) + "?limit=100")
	keep("/plans/" + plan)
	keep("/plans/" + oldPlan)
	keep("/plans?limit=100")

	// A group's customers and cards, and a charge through the group.
	gcu := requireOK(t, env.gdo(http.MethodPost, "/customers", map[string]any{"name": "Group", "email": "gr@example.com"}), http.StatusOK)["id"].(string)
	gcard := requireOK(t, env.gdo(http.MethodPost, "/customers/"+gcu+"/cards", validCard("4111111111111111")), http.StatusOK)["id"].(string)
	gcharge := requireOK(t, env.do(http.MethodPost, env.gmp("/customers/"+gcu+"/charges"), env.g.PrivateKey, cardCharge(gcard)), http.StatusOK)["id"].(string)
	keep(env.gp("/customers/" + gcu))
	keep(env.gp("/customers/" + gcu + "/cards/" + gcard))
	keep(env.gp("/customers?limit=100"))
	keep("/charges/" + gcharge)

	// The other merchant, and the merchants themselves.
	requireOK(t, env.do(http.MethodPost, "/v1/"+env.other.ID+"/customers", env.other.PrivateKey,
		map[string]any{"name": "Elsewhere", "email": "e@example.com"}), http.StatusOK)
	keep("")
	keep("/v1/" + env.other.ID + "/customers?limit=100")
	keep("/v1/" + env.other.ID)
	return paths
}

// persistDump answers every path, keyed by path.
func persistDump(t *testing.T, env *testEnv, paths []string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		key, full := env.m.PrivateKey, p
		switch {
		case strings.HasPrefix(p, "/v1/groups/"):
			key = env.g.PrivateKey
		case strings.HasPrefix(p, "/v1/"+env.other.ID):
			key = env.other.PrivateKey
		case !strings.HasPrefix(p, "/v1/"):
			full = env.mp(p)
		}
		r := env.do(http.MethodGet, full, key, nil)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", full, r.body)
		out[p] = string(r.body)
	}
	for _, m := range []string{env.m.ID, env.other.ID} {
		evs, err := json.Marshal(env.s.Events(m))
		require.NoError(t, err)
		out["events of "+m] = string(evs)
	}
	return out
}

// A broad flow, a close and a reopen from the data directory: every answer
// of the API is the same, the clock and the id sequence go on where they
// were, ids do not repeat, and what happens next (deliveries to the
// webhook, the next subscription charge) works on the restored state.
func TestDataRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rc := newReceiver(t, nil)
	env := openPersistEnv(t, dir, nil, testStart)
	paths := persistFlow(t, env, rc)
	before := persistDump(t, env, paths)
	now, idState := env.s.Now(), env.s.ids.State()
	env.srv.Close()
	env.s.Close()

	again := openPersistEnv(t, dir, env, testStart.Add(-1000*time.Hour))
	after := persistDump(t, again, paths)
	for _, p := range paths {
		assert.JSONEq(t, before[p], after[p], "%s", p)
	}
	for _, m := range []string{env.m.ID, env.other.ID} {
		assert.JSONEq(t, before["events of "+m], after["events of "+m])
	}
	assert.Equal(t, now, again.s.Now(), "the fake clock goes on from where it stood")
	assert.Equal(t, idState, again.s.ids.State(), "the seeded id sequence goes on where it stopped")

	// New objects get new ids.
	seen := map[string]bool{}
	for _, body := range before {
		for _, m := range regexp.MustCompile(`"id":"([a-z0-9]{20})"`).FindAllStringSubmatch(body, -1) {
			seen[m[1]] = true
		}
	}
	require.NotEmpty(t, seen)
	for range 5 {
		cu := requireOK(t, again.post("/customers", map[string]any{"name": "New", "email": "n@example.com"}), http.StatusOK)["id"].(string)
		ch := requireOK(t, again.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x"}), http.StatusOK)["id"].(string)
		assert.False(t, seen[cu], "customer id %s repeats", cu)
		assert.False(t, seen[ch], "charge id %s repeats", ch)
	}
	// order_ids stay taken.
	requireError(t, again.post("/charges", map[string]any{"method": "store", "amount": 1, "description": "x", "order_id": "o-3"}), 1006)

	// The verified webhook gets the next event, with its credentials.
	n := len(rc.requests())
	chargeOnce(t, again)
	got := rc.waitFor(n + 1)[n]
	assert.Equal(t, openpay.EventTypeChargeSucceeded, got.event.Type)
	assert.Equal(t, "passjuanito", got.password)

	// The subscription is charged for its next period from its restored
	// state.
	var subsBefore []map[string]any
	require.NoError(t, json.Unmarshal([]byte(before[findPath(paths, "/subscriptions?")]), &subsBefore))
	requireOK(t, again.sim("/clock/advance", map[string]any{"seconds": 31 * 86400}), http.StatusOK)
	var subsAfter []map[string]any
	require.NoError(t, json.Unmarshal(again.get(findPath(paths, "/subscriptions?")).body, &subsAfter))
	periods := func(list []map[string]any) map[string]float64 {
		out := map[string]float64{}
		for _, s := range list {
			out[s["id"].(string)] = s["current_period_number"].(float64)
		}
		return out
	}
	pb, pa := periods(subsBefore), periods(subsAfter)
	advanced := 0
	for id, n := range pb {
		if pa[id] > n {
			advanced++
		}
	}
	assert.Positive(t, advanced, "a subscription was charged after the restart: before %v after %v", pb, pa)
}

// findPath returns the first of paths that contains part.
func findPath(paths []string, part string) string {
	for _, p := range paths {
		if strings.Contains(p, part) {
			return p
		}
	}
	return ""
}

// The flow of TestDataRoundTrip with the store compared, after every
// request, with the whole state written afresh: every change the flow
// makes is marked for writing.
func TestDataMarksEveryChange(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{BaseURL: persistBaseURL})
	checkData(t, env.s)
	persistFlow(t, env, newReceiver(t, nil))
}

// Every field of every struct holding state is either written or listed
// with the reason it is not, and every type kept with extState is listed:
// a field or a resource state added without a thought for persistence
// fails here.
func TestDataFieldsAreAccountedFor(t *testing.T) {
	t.Parallel()
	for typ, fields := range stateFields {
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			assert.Contains(t, fields, name, "%s.%s: say in stateFields (persist_kinds.go) whether it is saved or why not", typ.Name(), name)
		}
		for name, how := range fields {
			_, ok := typ.FieldByName(name)
			assert.True(t, ok, "%s.%s is listed in stateFields but is no field", typ.Name(), name)
			assert.NotEmpty(t, how)
		}
	}
	listed := map[string]bool{}
	for typ := range stateFields {
		listed[typ.Name()] = true
	}
	for _, name := range extStateTypes(t) {
		assert.True(t, listed[name], "extState type %s: add it and its fields to stateFields and give it a record kind (persist_kinds.go)", name)
	}
}

// extStateTypes returns the names of the types the package keeps with
// extState, read from its source: the result type of each function passed
// to extState (extState(m, newPlanState) keeps *planState).
func extStateTypes(t *testing.T) []string {
	t.Helper()
	fset := gotoken.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	results := map[string]string{} // function name -> its result type
	var inits []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv == nil && n.Type.Results != nil && len(n.Type.Results.List) == 1 {
					if star, ok := n.Type.Results.List[0].Type.(*ast.StarExpr); ok {
						if id, ok := star.X.(*ast.Ident); ok {
							results[n.Name.Name] = id.Name
						}
					}
				}
			case *ast.CallExpr:
				if fn, ok := n.Fun.(*ast.Ident); ok && fn.Name == "extState" && len(n.Args) == 2 {
					if arg, ok := n.Args[1].(*ast.Ident); ok {
						inits = append(inits, arg.Name)
					} else {
						t.Errorf("%s: extState's init is not a named function; extStateTypes cannot tell its type", fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
	}
	require.NotEmpty(t, inits)
	var out []string
	for _, fn := range inits {
		typ, ok := results[fn]
		require.True(t, ok, "extState init %s: no function of that name returning a pointer", fn)
		out = append(out, typ)
	}
	return out
}

// A data directory that cannot be used is an error wrapping ErrDataDir,
// never an empty start, and nothing half-loaded stays in the server.
// (Package datadir's tests go through the other kinds of damage.)
func TestDataDirUnusable(t *testing.T) {
	t.Parallel()
	newServer := func() *Server {
		clock := NewFakeClock(testStart)
		s := New(Options{Clock: clock})
		t.Cleanup(s.Close)
		return s
	}
	saved := func(t *testing.T) string {
		dir := t.TempDir()
		s := newServer()
		_, err := s.OpenData(dir)
		require.NoError(t, err)
		_, err = s.AddMerchant(MerchantConfig{})
		require.NoError(t, err)
		require.NoError(t, s.SaveData())
		s.Close()
		return dir
	}
	t.Run("truncated store", func(t *testing.T) {
		dir := saved(t)
		path := filepath.Join(dir, datadir.FileName)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data[:len(data)/3], 0o600))
		s := newServer()
		restored, err := s.OpenData(dir)
		require.ErrorIs(t, err, ErrDataDir)
		assert.Contains(t, err.Error(), "refserver.db")
		assert.False(t, restored)
		assert.Empty(t, s.merchantsInOrder(), "nothing half-loaded stays")
	})
	t.Run("a record that does not decode", func(t *testing.T) {
		dir := saved(t)
		db, err := bolt.Open(filepath.Join(dir, datadir.FileName), 0o600, nil)
		require.NoError(t, err)
		require.NoError(t, db.Update(func(btx *bolt.Tx) error {
			var merchant []byte
			require.NoError(t, btx.Bucket([]byte("merchants")).ForEach(func(id, _ []byte) error {
				merchant = slices.Clone(id)
				return nil
			}))
			return btx.Bucket(append([]byte("m:"), merchant...)).Bucket([]byte("merchant")).
				Put([]byte(selfID), []byte("\x00\x00\x00\x00\x00\x00\x00\x01not json"))
		}))
		require.NoError(t, db.Close())
		s := newServer()
		_, err = s.OpenData(dir)
		require.ErrorIs(t, err, ErrDataDir)
		assert.Contains(t, err.Error(), "merchant")
		assert.Empty(t, s.merchantsInOrder(), "nothing half-loaded stays")
	})
	t.Run("saved on a fake clock, opened on the wall clock", func(t *testing.T) {
		dir := saved(t)
		s := New(Options{})
		t.Cleanup(s.Close)
		_, err := s.OpenData(dir)
		require.ErrorIs(t, err, ErrDataDir)
		assert.Contains(t, err.Error(), "fake clock")
		assert.Empty(t, s.merchantsInOrder(), "nothing half-loaded stays")
	})
}

// A delivery still pending when the server stops (its receiver was down)
// is in the data directory and goes out once the server is back; one done
// with is not restored.
func TestDataPendingDeliveriesResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var down atomic.Bool
	down.Store(true)
	rc := newReceiver(t, func(_ int, ev openpay.WebhookEvent) int {
		if ev.Type != openpay.EventTypeVerification && down.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	env := openPersistEnv(t, dir, nil, testStart)
	requireOK(t, env.post("/webhooks", webhookBody(rc.srv.URL, "charge.succeeded")), http.StatusCreated)
	charge := chargeOnce(t, env)
	rc.waitFor(2) // the verification, and the first attempt, refused
	env.srv.Close()
	env.s.Close()
	n := len(rc.requests())

	down.Store(false)
	again := openPersistEnv(t, dir, env, testStart)
	got := rc.waitFor(n + 1)
	last := got[len(got)-1]
	require.Equal(t, openpay.EventTypeChargeSucceeded, last.event.Type)
	assert.Equal(t, charge, last.event.Transaction.ID)
	// Done with now: a request flushes its record away, and a third start
	// finds nothing pending.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, again.s.WaitForDeliveries(ctx))
	again.get("")
	again.srv.Close()
	again.s.Close()
	count := len(rc.requests())
	third := openPersistEnv(t, dir, env, testStart)
	// OpenData queues what it restored before it returns.
	assert.Zero(t, third.s.WebhookDeliveryStats(webhookID(t, third)).Pending, "a delivery done with is not restored")
	assert.Len(t, rc.requests(), count)
}

// webhookID returns the id of the main merchant's only webhook.
func webhookID(t *testing.T, env *testEnv) string {
	t.Helper()
	list := env.get("/webhooks").arr(t)
	require.Len(t, list, 1)
	return list[0]["id"].(string)
}

// A reset with a data directory replaces the stored state: reopened, the
// server holds the seed (its merchants, nothing made since).
func TestDataResetIsStored(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := openPersistEnv(t, dir, nil, testStart)
	requireOK(t, env.post("/customers", map[string]any{"name": "Gone", "email": "g@example.com"}), http.StatusOK)
	chargeOnce(t, env)
	require.NoError(t, env.s.Reset())
	env.srv.Close()
	env.s.Close()

	again := openPersistEnv(t, dir, env, testStart)
	var list []map[string]any
	require.NoError(t, json.Unmarshal(again.get("/customers?limit=100").body, &list))
	assert.Empty(t, list, "the customer made before the reset is gone from the store")
	require.NoError(t, json.Unmarshal(again.get("/charges?limit=100").body, &list))
	assert.Empty(t, list, "and so is the charge")
	assert.Equal(t, http.StatusOK, again.do(http.MethodGet, "/v1/"+again.other.ID+"/customers", again.other.PrivateKey, nil).status,
		"the seeded merchants are there")
}

// TestDataResetAfterRestoreIsRefused: a server restored from its data
// directory has none of the configuration steps of the run that made its
// merchants, so a reset would rebuild nothing and store that; it is
// refused instead, over HTTP too, and the stored state stays.
func TestDataResetAfterRestoreIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := openPersistEnv(t, dir, nil, testStart)
	requireOK(t, env.post("/customers", map[string]any{"name": "Kept", "email": "k@example.com"}), http.StatusOK)
	env.srv.Close()
	env.s.Close()

	again := openPersistEnv(t, dir, env, testStart)
	require.ErrorIs(t, again.s.Reset(), ErrResetRestored)
	requireError(t, again.do(http.MethodPost, "/_simulate/reset", again.m.PrivateKey, nil), 1000)
	var list []map[string]any
	require.NoError(t, json.Unmarshal(again.get("/customers?limit=100").body, &list))
	assert.Len(t, list, 1, "the restored customer is still there")
}

// The data directory holds no card number and no security code, of a live
// card, a deleted one or a token's; after a restart the cards answer as
// before, their charges decline or succeed as before, and a card saved
// again on its customer is still a duplicate.
func TestDataKeepsNoCardNumber(t *testing.T) {
	t.Parallel()
	const (
		declined = "4000000000030017" // a test card: its charges fail with 3001
		plain    = "4532015112830366" // no test card: its charges succeed
		deleted  = "4111111111111111"
		token    = "5555555555554444"
		cvv      = "918"
	)
	dir := t.TempDir()
	env := openPersistEnv(t, dir, nil, testStart)
	cu := requireOK(t, env.post("/customers", map[string]any{"name": "Ana", "email": "ana@example.com"}), http.StatusOK)["id"].(string)
	save := func(env *testEnv, number string) resp {
		card := validCard(number)
		card["cvv2"] = cvv
		return env.post("/customers/"+cu+"/cards", card)
	}
	ids := map[string]string{}
	for _, n := range []string{declined, plain, deleted} {
		ids[n] = requireOK(t, save(env, n), http.StatusOK)["id"].(string)
	}
	require.Equal(t, http.StatusNoContent, env.del("/customers/"+cu+"/cards/"+ids[deleted]).status)
	tk := validCard(token)
	tk["cvv2"] = cvv
	requireOK(t, env.post("/tokens", tk), http.StatusOK)
	charge := func(env *testEnv, number string) resp {
		return env.post("/customers/"+cu+"/charges", map[string]any{"method": "card", "source_id": ids[number],
			"amount": 10, "description": "c"})
	}
	requireError(t, charge(env, declined), 3001)
	assert.Equal(t, "completed", requireOK(t, charge(env, plain), http.StatusOK)["status"])
	before := map[string]string{}
	for _, n := range []string{declined, plain} {
		before[n] = string(env.get("/customers/" + cu + "/cards/" + ids[n]).body)
	}
	env.srv.Close()
	env.s.Close()

	files := 0
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, n := range []string{declined, plain, deleted, token} {
			assert.False(t, bytes.Contains(data, []byte(n)), "%s holds the card number %s", path, n)
		}
		assert.False(t, bytes.Contains(data, []byte(`"`+cvv+`"`)), "%s holds the security code", path)
		return nil
	}))
	require.Positive(t, files)

	again := openPersistEnv(t, dir, env, testStart)
	for _, n := range []string{declined, plain} {
		assert.JSONEq(t, before[n], string(again.get("/customers/"+cu+"/cards/"+ids[n]).body))
	}
	requireError(t, again.get("/customers/"+cu+"/cards/"+ids[deleted]), 1005)
	requireError(t, charge(again, declined), 3001)
	assert.Equal(t, "completed", requireOK(t, charge(again, plain), http.StatusOK)["status"])
	requireError(t, save(again, plain), 2002)
}
