package refserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSeedYAML is a seed using what YAML allows: unquoted digits where the
// API takes text (a security code with a leading zero, a month "09"),
// comments, flow lists.
const testSeedYAML = `
# two merchants, a group of both
merchants:
  - id: mseedmerchant0000001
    private_key: sk_seed_one
    public_key: pk_seed_one
    balance: 2500.50
    customers:
      - id: aseedcustomer0000001
        name: Ana
        email: ana@example.com
        external_id: ext-1
        cards:
          - id: kseedcard00000000001
            holder_name: Ana Lopez
            card_number: 4111111111111111
            cvv2: 012
            expiration_month: 09
            expiration_year: 30
      - id: aseedcustomer0000002
        name: Bea
        email: bea@example.com
        requires_account: true
        balance: 300
    cards:
      - holder_name: Front Desk
        card_number: "5555555555554444"
        cvv2: "321"
        device_session_id: seed-session-1
        expiration_month: "06"
        expiration_year: "31"
    plans:
      - id: pseedplan00000000001
        name: Monthly
        amount: 99.90
        repeat_every: 1
        repeat_unit: month
        status_after_retry: unpaid
  - id: mseedmerchant0000002
groups:
  - id: gseedgroup0000000001
    private_key: sk_seed_group
    merchants: [mseedmerchant0000001, mseedmerchant0000002]
    customers:
      - id: aseedgroupcustomer01
        name: Carla
        email: carla@example.com
        cards:
          - id: kseedgroupcard000001
            holder_name: Carla Ruiz
            card_number: "4242424242424242"
            cvv2: "456"
            expiration_month: "03"
            expiration_year: "2031"
`

// testSeedJSON is testSeedYAML written as JSON.
const testSeedJSON = `{
	"merchants": [
		{
			"id": "mseedmerchant0000001", "private_key": "sk_seed_one", "public_key": "pk_seed_one", "balance": 2500.50,
			"customers": [
				{"id": "aseedcustomer0000001", "name": "Ana", "email": "ana@example.com", "external_id": "ext-1",
				 "cards": [{"id": "kseedcard00000000001", "holder_name": "Ana Lopez", "card_number": "4111111111111111",
				            "cvv2": "012", "expiration_month": "09", "expiration_year": "30"}]},
				{"id": "aseedcustomer0000002", "name": "Bea", "email": "bea@example.com", "requires_account": true, "balance": 300}
			],
			"cards": [{"holder_name": "Front Desk", "card_number": "5555555555554444", "cvv2": "321", "device_session_id": "seed-session-1",
			           "expiration_month": "06", "expiration_year": "31"}],
			"plans": [{"id": "pseedplan00000000001", "name": "Monthly", "amount": 99.90, "repeat_every": 1,
			           "repeat_unit": "month", "status_after_retry": "unpaid"}]
		},
		{"id": "mseedmerchant0000002"}
	],
	"groups": [
		{"id": "gseedgroup0000000001", "private_key": "sk_seed_group",
		 "merchants": ["mseedmerchant0000001", "mseedmerchant0000002"],
		 "customers": [{"id": "aseedgroupcustomer01", "name": "Carla", "email": "carla@example.com",
		                "cards": [{"id": "kseedgroupcard000001", "holder_name": "Carla Ruiz", "card_number": "4242424242424242",
		                           "cvv2": "456", "expiration_month": "03", "expiration_year": "2031"}]}]}
	]
}`

// newSeedEnv is a server with no merchant behind httptest, on the fake
// clock of the other tests.
func newSeedEnv(t *testing.T) *testEnv {
	t.Helper()
	env := &testEnv{t: t, clock: NewFakeClock(testStart)}
	env.s = New(Options{Clock: env.clock})
	env.srv = httptest.NewServer(env.s)
	t.Cleanup(env.srv.Close)
	t.Cleanup(env.s.Close)
	return env
}

func TestParseSeedJSONAndYAMLAgree(t *testing.T) {
	t.Parallel()
	fromYAML, err := ParseSeed([]byte(testSeedYAML))
	require.NoError(t, err)
	fromJSON, err := ParseSeed([]byte(testSeedJSON))
	require.NoError(t, err)
	assert.Equal(t, fromJSON, fromYAML)

	require.Len(t, fromYAML.Merchants, 2)
	m := fromYAML.Merchants[0]
	assert.Equal(t, "2500.50", m.Balance.String())
	card := m.Customers[0].Cards[0]
	assert.Equal(t, "kseedcard00000000001", card.ID)
	assert.Equal(t, "4111111111111111", card.CardNumber)
	assert.Equal(t, "012", card.CVV2, "unquoted digits are taken as written")
	assert.Equal(t, "09", card.ExpirationMonth)
	assert.Equal(t, "seed-session-1", m.Cards[0].DeviceSessionID, "a card's device_session_id sits beside its members")
	assert.Equal(t, "5555555555554444", m.Cards[0].CardNumber)
	assert.True(t, m.Customers[1].RequiresAccount)
	assert.Equal(t, openpay.RepeatUnit("month"), m.Plans[0].RepeatUnit)
	assert.Equal(t, []string{"mseedmerchant0000001", "mseedmerchant0000002"}, fromYAML.Groups[0].Merchants)

	// Printed, a seed shows its cards masked, as openpay.CardRequest does.
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		assert.NotContains(t, fmt.Sprintf(verb, fromYAML), "4111111111111111", verb)
	}
}

func TestApplySeed(t *testing.T) {
	t.Parallel()
	env := newSeedEnv(t)
	sd, err := ParseSeed([]byte(testSeedYAML))
	require.NoError(t, err)
	applied, err := env.s.ApplySeed(sd)
	require.NoError(t, err)

	const m1, key1 = "mseedmerchant0000001", "sk_seed_one"
	const gid, gkey = "gseedgroup0000000001", "sk_seed_group"

	// The customer and its card have the fixed ids, stored as the API
	// stores them.
	cu := requireOK(t, env.do(http.MethodGet, "/v1/"+m1+"/customers/aseedcustomer0000001", key1, nil), http.StatusOK)
	assert.Equal(t, "ext-1", cu["external_id"])
	card := requireOK(t, env.do(http.MethodGet, "/v1/"+m1+"/customers/aseedcustomer0000001/cards/kseedcard00000000001", key1, nil), http.StatusOK)
	assert.Equal(t, "411111XXXXXX1111", card["card_number"])
	assert.Equal(t, "visa", card["brand"])
	assert.Equal(t, "09", card["expiration_month"])
	plan := requireOK(t, env.do(http.MethodGet, "/v1/"+m1+"/plans/pseedplan00000000001", key1, nil), http.StatusOK)
	assert.Equal(t, 99.9, plan["amount"])
	// The merchant-level card without an id got a generated one.
	cards := env.do(http.MethodGet, "/v1/"+m1+"/cards", key1, nil).arr(t)
	require.Len(t, cards, 1)
	assert.Equal(t, applied.Merchants[0].Cards[0].ID, cards[0]["id"])
	assert.True(t, idgen.Valid(applied.Merchants[0].Cards[0].ID))
	assert.Empty(t, sd.Merchants[0].Cards[0].ID, "ApplySeed does not change the seed it is given")

	// Opening balances arrived as bank transfers: the stored transactions
	// explain every balance.
	mb, cbs, err := env.s.Balances(m1)
	require.NoError(t, err)
	assert.Equal(t, "2500.50", mb.String())
	assert.Equal(t, "300.00", cbs["aseedcustomer0000002"].String())
	m := env.s.merchantByID(m1)
	l := ledger(m)
	assert.True(t, l[""].Equal(mb), "merchant ledger %s, balance %s", l[""], mb)
	assert.True(t, l["aseedcustomer0000002"].Equal(cbs["aseedcustomer0000002"]))
	var opening int
	for _, tx := range m.txList {
		if tx.description() == seedBalanceDescription {
			opening++
		}
	}
	assert.Equal(t, 2, opening)

	// A charge on the seeded card succeeds.
	charge := requireOK(t, env.do(http.MethodPost, "/v1/"+m1+"/customers/aseedcustomer0000001/charges", key1,
		map[string]any{"method": "card", "source_id": "kseedcard00000000001", "amount": 100, "description": "seeded",
			"order_id": "seed-1"}), http.StatusOK)
	assert.Equal(t, "completed", charge["status"])

	// The group's key acts on its customers and for its merchants; a
	// merchant's key does not.
	gcu := requireOK(t, env.do(http.MethodGet, "/v1/groups/"+gid+"/customers/aseedgroupcustomer01/cards/kseedgroupcard000001", gkey, nil), http.StatusOK)
	assert.Equal(t, "424242XXXXXX4242", gcu["card_number"])
	requireError(t, env.do(http.MethodGet, "/v1/groups/"+gid+"/customers/aseedgroupcustomer01", key1, nil), 1002)
	gcharge := requireOK(t, env.do(http.MethodPost, "/v1/groups/"+gid+"/merchants/mseedmerchant0000002/customers/aseedgroupcustomer01/charges", gkey,
		map[string]any{"method": "card", "source_id": "kseedgroupcard000001", "amount": 50, "description": "group", "order_id": "g-1"}), http.StatusOK)
	assert.Equal(t, "completed", gcharge["status"])

	// The second merchant's keys were generated; the applied seed carries
	// them, and applied again to a fresh server it recreates the same
	// accounts under the same ids and keys.
	m2 := applied.Merchants[1]
	require.NotEmpty(t, m2.PrivateKey)
	requireOK(t, env.do(http.MethodGet, "/v1/mseedmerchant0000002", m2.PrivateKey, nil), http.StatusOK)
	again := newSeedEnv(t)
	_, err = again.s.ApplySeed(applied)
	require.NoError(t, err)
	requireOK(t, again.do(http.MethodGet, "/v1/mseedmerchant0000002", m2.PrivateKey, nil), http.StatusOK)
	requireOK(t, again.do(http.MethodGet, "/v1/"+m1+"/cards/"+applied.Merchants[0].Cards[0].ID, key1, nil), http.StatusOK)
}

func TestApplySeedRefusesAndAppliesNothing(t *testing.T) {
	t.Parallel()
	// A valid merchant entry: the seeds below break something after it, so
	// that a half-applied seed would leave it behind.
	const good = "merchants:\n  - id: mseedmerchant0000001\n    private_key: sk_a\n    public_key: pk_a\n"
	const card = "        cards:\n          - {id: kseedcard00000000001, holder_name: A, card_number: %s, cvv2: 123, expiration_month: 12, expiration_year: 30}\n"
	const customer = "    customers:\n      - id: aseedcustomer0000001\n        name: A\n        email: a@example.com\n"
	for _, tt := range []struct {
		name, seed string
		parse      bool // refused by ParseSeed (else by ApplySeed)
		want       []string
	}{
		{"malformed YAML", good + "    customers: [\n", true, []string{"seed: not valid JSON or YAML: line"}},
		{"malformed JSON", `{"merchants": [{"id": "m1"}]`, true, []string{"seed: not valid JSON or YAML"}},
		{"empty", "# nothing\n", true, []string{"seed: the file is empty"}},
		{"not a mapping", "- 1\n", true, []string{"seed: line 1: the document: must be a mapping"}},
		{"unknown member", good + "    customers:\n      - name: A\n        emial: a@example.com\n", true,
			[]string{"line 7: merchants[0].customers[0].emial: unknown member"}},
		{"repeated member", good + "    name: A\n    name: B\n", true, []string{"line 6: merchants[0].name: repeated"}},
		{"wrong type", good + "    plans:\n      - {name: P, amount: 1, repeat_every: many}\n", true,
			[]string{"merchants[0].plans[0].repeat_every: must be a whole number"}},
		{"bad amount", good + "    balance: lots\n", true, []string{"merchants[0].balance: must be an amount"}},
		{"duplicate ids", good + "    customers:\n      - {id: aseedcustomer0000001, name: A, email: a@example.com}\n" +
			"      - {id: aseedcustomer0000001, name: B, email: b@example.com}\n", true,
			[]string{"merchants[0].customers[1] (id aseedcustomer0000001): the id is already the id of merchants[0].customers[0]"}},
		{"id of another kind of entry", good + "    plans:\n      - {id: mseedmerchant0000001, name: P}\n", true,
			[]string{"merchants[0].plans[0] (id mseedmerchant0000001): the id is already the id of merchants[0]"}},
		{"id not in the gateway's form", good + "    customers:\n      - {id: ABC, name: A, email: a@example.com}\n", true,
			[]string{`merchants[0].customers[0]: the id "ABC" must be 20 lower-case letters and digits`}},
		{"unknown group member", good + "groups:\n  - merchants: [mseedmerchant0000001, mnotinseed0000000001]\n", true,
			[]string{`groups[0].merchants[1]: "mnotinseed0000000001" is not the id of a merchant of the seed`}},
		{"same key twice", good + "  - private_key: sk_a\n", true,
			[]string{"merchants[1]: its private key is already a key of merchants[0]"}},
		{"balance without account", good + "    customers:\n      - {name: A, email: a@example.com, balance: 10}\n", true,
			[]string{"merchants[0].customers[0]: a balance needs an account"}},
		{"negative balance", good + "    balance: -1\n", true, []string{"merchants[0] (id mseedmerchant0000001): the balance must be"}},
		{"group customer with account", good + "groups:\n  - customers:\n      - {name: A, email: a@example.com, requires_account: true}\n", true,
			[]string{"groups[0].customers[0]: a customer of a group has no account"}},
		{"bad card number", good + customer + fmt.Sprintf(card, "4111111111111112"), false,
			[]string{"merchants[0].customers[0].cards[0] (id kseedcard00000000001): The card number verification digit is invalid (error 2004)"}},
		{"expired card", good + customer + strings.Replace(fmt.Sprintf(card, "4111111111111111"), "expiration_year: 30", "expiration_year: 20", 1), false,
			[]string{"merchants[0].customers[0].cards[0] (id kseedcard00000000001): The expiration date has expired (error 2005)"}},
		{"customer refused by the API", good + "    customers:\n      - {name: A}\n", false,
			[]string{"merchants[0].customers[0]: The field 'email' is required and cannot be empty (error 1001)"}},
		{"repeated external_id", good + "    customers:\n      - {name: A, email: a@example.com, external_id: x}\n" +
			"      - {name: B, email: b@example.com, external_id: x}\n", false,
			[]string{"merchants[0].customers[1]: A customer with the external_id 'x' already exists (error 2003)"}},
		{"bad CLABE", good + "    clabe: \"646180000000000001\"\n", false, []string{"merchants[0] (id mseedmerchant0000001): a merchant's CLABE must be"}},
		{"merchant the server has", good + "  - id: mexisting00000000001\n", false,
			[]string{`merchants[1] (id mexisting00000000001): merchant "mexisting00000000001" already exists`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			env := newSeedEnv(t)
			_, err := env.s.AddMerchant(MerchantConfig{ID: "mexisting00000000001"})
			require.NoError(t, err)
			sd, err := ParseSeed([]byte(tt.seed))
			if !tt.parse {
				require.NoError(t, err)
				_, err = env.s.ApplySeed(sd)
			}
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.True(t, strings.HasPrefix(err.Error(), "seed: "), err.Error())
			assert.NotContains(t, err.Error(), "4111111111111112", "no card number in errors")
			assert.NotContains(t, err.Error(), "sk_a", "no key in errors")

			// Nothing was applied: the server has only the merchant it had,
			// and a valid seed with the same ids applies afterwards.
			env.s.mu.RLock()
			assert.Equal(t, []string{"mexisting00000000001"}, env.s.merchantList)
			assert.Len(t, env.s.merchants, 1)
			assert.Empty(t, env.s.groups)
			env.s.mu.RUnlock()
			if !tt.parse {
				fixed, err := ParseSeed([]byte(good + customer + fmt.Sprintf(card, "4111111111111111")))
				require.NoError(t, err)
				_, err = env.s.ApplySeed(fixed)
				require.NoError(t, err)
				requireOK(t, env.do(http.MethodGet, "/v1/mseedmerchant0000001/customers/aseedcustomer0000001/cards/kseedcard00000000001", "sk_a", nil), http.StatusOK)
			}
		})
	}
}

// A customer with an account that a refused seed created has its store
// reference's barcode served no more.
func TestApplySeedUndoForgetsBarcodes(t *testing.T) {
	t.Parallel()
	env := newSeedEnv(t)
	sd := Seed{Merchants: []SeedMerchant{{
		ID: "mseedmerchant0000001",
		Customers: []SeedCustomer{
			{CustomerRequest: openpay.CustomerRequest{Name: "A", Email: "a@example.com", RequiresAccount: true}},
			{CustomerRequest: openpay.CustomerRequest{Name: "B"}}, // refused: no email
		},
	}}}
	var refs []string
	env.s.barcodes.Range(func(k, _ any) bool { refs = append(refs, k.(string)); return true })
	require.Empty(t, refs)
	_, err := env.s.ApplySeed(sd)
	require.ErrorContains(t, err, "merchants[0].customers[1]")
	env.s.barcodes.Range(func(k, _ any) bool { refs = append(refs, k.(string)); return true })
	assert.Empty(t, refs)
}

func TestSeedWithMerchant(t *testing.T) {
	t.Parallel()
	seed := Seed{Merchants: []SeedMerchant{
		{ID: "mseedmerchant0000001", PrivateKey: "sk_1", PublicKey: "pk_1", Name: "One"},
		{ID: "mseedmerchant0000002", PrivateKey: "sk_2"},
	}}
	for _, tt := range []struct {
		name              string
		seed              Seed
		id, priv, pub     string
		want              []SeedMerchant
		unchangedOriginal bool
	}{
		{"nothing given, seed merchants", seed, "", "", "", seed.Merchants, true},
		{"nothing given, no merchants", Seed{}, "", "", "", []SeedMerchant{{}}, true},
		{"keys replace the named merchant's", seed, "mseedmerchant0000002", "sk_x", "pk_x",
			[]SeedMerchant{seed.Merchants[0], {ID: "mseedmerchant0000002", PrivateKey: "sk_x", PublicKey: "pk_x"}}, true},
		{"an empty key keeps the seed's", seed, "mseedmerchant0000001", "", "pk_x",
			[]SeedMerchant{{ID: "mseedmerchant0000001", PrivateKey: "sk_1", PublicKey: "pk_x", Name: "One"}, seed.Merchants[1]}, true},
		{"another id comes first", seed, "mother00000000000001", "sk_x", "",
			[]SeedMerchant{{ID: "mother00000000000001", PrivateKey: "sk_x"}, seed.Merchants[0], seed.Merchants[1]}, true},
		{"keys without an id are another merchant", seed, "", "sk_x", "",
			[]SeedMerchant{{PrivateKey: "sk_x"}, seed.Merchants[0], seed.Merchants[1]}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.seed.WithMerchant(tt.id, tt.priv, tt.pub)
			assert.Equal(t, tt.want, got.Merchants)
			assert.Equal(t, "sk_1", seed.Merchants[0].PrivateKey, "the seed itself is unchanged")
			assert.Equal(t, "", seed.Merchants[1].PublicKey)
		})
	}
}
