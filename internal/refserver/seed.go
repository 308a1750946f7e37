package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/answer"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
)

// Seeds: a server's starting state written down, so that a test suite with
// hard-coded sandbox credentials and ids finds them. The format is
// documented with an example in cmd/openpay-refserver/README.md.
//
// A seed is applied through the code of the API: merchants and groups with
// AddMerchant and AddGroup, customers, cards and plans as requests to the
// API's own handlers (so they are checked, masked and stored exactly as if
// a client had created them), opening balances as bank transfers received
// (ReceiveSPEI), so that every balance is explained by a stored transaction.
// A seed may fix the ids of what it creates; those ids are reserved, so the
// server never hands them out to anything else. Applying is all or nothing:
// on the first error everything the seed created is removed again.

// Seed is a starting state for a server: merchants with their keys, opening
// balances, customers, cards and plans, and merchant groups with their own
// customers. Empty ids and keys are generated. Read one from a file with
// [ReadSeedFile] or [ParseSeed], or build it in Go, and apply it with
// [Server.ApplySeed], which does not change it. A seed holds keys and card
// numbers: never log it.
type Seed struct {
	Merchants []SeedMerchant `json:"merchants,omitempty"`
	Groups    []SeedGroup    `json:"groups,omitempty"`
}

// SeedMerchant is a merchant account of a seed. ID, keys, name, e-mail,
// phone and CLABE follow the rules of [Server.AddMerchant] and are
// generated when empty.
type SeedMerchant struct {
	ID         string `json:"id,omitempty"`
	PrivateKey string `json:"private_key,omitempty"`
	PublicKey  string `json:"public_key,omitempty"`
	Name       string `json:"name,omitempty"`
	Email      string `json:"email,omitempty"`
	Phone      string `json:"phone,omitempty"`
	CLABE      string `json:"clabe,omitempty"`
	// Country is the merchant's country, mx, co or pe in any case (empty:
	// the server's, Mexico unless Options.Country says otherwise).
	Country string `json:"country,omitempty"`
	// Balance is the opening balance, received as a bank transfer (zero:
	// none).
	Balance   openpay.Amount `json:"balance,omitzero"`
	Customers []SeedCustomer `json:"customers,omitempty"`
	// Cards are merchant-level cards (no customer).
	Cards []SeedCard `json:"cards,omitempty"`
	Plans []SeedPlan `json:"plans,omitempty"`
}

// SeedGroup is a merchant group of a seed: its key acts for the listed
// merchants, which must be merchants of the seed named by their ids.
type SeedGroup struct {
	ID         string   `json:"id,omitempty"`
	PrivateKey string   `json:"private_key,omitempty"`
	Merchants  []string `json:"merchants,omitempty"`
	// Customers are the group's own customers (they have no account).
	Customers []SeedCustomer `json:"customers,omitempty"`
}

// SeedCustomer is a customer of a seed: the members of the API's customer
// request, an optional fixed id, an opening balance (for a customer with
// requires_account) and its cards.
type SeedCustomer struct {
	ID string `json:"id,omitempty"`
	openpay.CustomerRequest
	Balance openpay.Amount `json:"balance,omitzero"`
	Cards   []SeedCard     `json:"cards,omitempty"`
}

// SeedCard is a stored card of a seed: the members of the API's card
// request and an optional fixed id. Like [openpay.CardRequest], it prints
// and encodes masked, and without its id.
type SeedCard struct {
	ID string `json:"id,omitempty"`
	openpay.CardRequest
}

// SeedPlan is a subscription plan of a seed: the members of the API's plan
// request and an optional fixed id.
type SeedPlan struct {
	ID string `json:"id,omitempty"`
	openpay.PlanRequest
}

// seedBalanceDescription is the description of the bank transfer that
// brings a seeded opening balance.
const seedBalanceDescription = "Opening balance"

// ReadSeedFile reads a seed from a JSON or YAML file and checks it as
// [ParseSeed] does.
func ReadSeedFile(path string) (Seed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Seed{}, fmt.Errorf("seed: %w", err)
	}
	sd, err := ParseSeed(data)
	if err != nil {
		return Seed{}, fmt.Errorf("seed file %s: %w", path, errors.Unwrap(err))
	}
	return sd, nil
}

// ParseSeed reads a seed from JSON or YAML. Unknown or repeated members are
// refused; text members may be written as YAML numbers (card numbers,
// CLABEs, security codes). It then checks what can be checked without a
// server: the form of fixed ids, that no id or key is used twice, that a
// group names merchants of the seed and that balances are possible. The
// error names the line or the entry at fault.
func ParseSeed(data []byte) (Seed, error) {
	var sd Seed
	if err := decodeSeedDocument(data, &sd); err != nil {
		return Seed{}, seedError{err}
	}
	if err := sd.check(); err != nil {
		return Seed{}, err
	}
	return sd, nil
}

// seedError is an error of a seed; its message starts with "seed: ".
type seedError struct{ err error }

func (e seedError) Error() string { return "seed: " + e.err.Error() }
func (e seedError) Unwrap() error { return e.err }

// seedErrorf formats a seed error about the entry at path (with its id,
// when it has one).
func seedErrorf(path, id, format string, args ...any) error {
	if id != "" {
		path += " (id " + id + ")"
	}
	return seedError{fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))}
}

// WithMerchant returns the seed combined with a merchant given apart from
// it (the binary's --merchant-id, --private-key and --public-key), which
// wins over the seed: when id names a merchant of the seed, the keys given
// replace that merchant's; otherwise the given merchant comes first, before
// the seed's. Given nothing, a seed without merchants gets one with
// everything generated, so that a server always has a merchant.
func (sd Seed) WithMerchant(id, privateKey, publicKey string) Seed {
	ms := slices.Clone(sd.Merchants)
	if id != "" {
		for i := range ms {
			if ms[i].ID == id {
				if privateKey != "" {
					ms[i].PrivateKey = privateKey
				}
				if publicKey != "" {
					ms[i].PublicKey = publicKey
				}
				sd.Merchants = ms
				return sd
			}
		}
	}
	if id != "" || privateKey != "" || publicKey != "" || len(ms) == 0 {
		ms = append([]SeedMerchant{{ID: id, PrivateKey: privateKey, PublicKey: publicKey}}, ms...)
	}
	sd.Merchants = ms
	return sd
}

// seedEntity is an entry of a seed that owns an id, for the checks that
// span the whole seed.
type seedEntity struct {
	path, id string
	// gatewayForm: the id must have the form of the server's ids. Merchant
	// ids keep the looser rule of AddMerchant (and of --merchant-id).
	gatewayForm bool
}

// entities lists every entry of the seed that has an id, in file order.
func (sd Seed) entities() []seedEntity {
	var out []seedEntity
	customers := func(path string, cs []SeedCustomer) {
		for j, cu := range cs {
			p := fmt.Sprintf("%s.customers[%d]", path, j)
			out = append(out, seedEntity{p, cu.ID, true})
			for k, kd := range cu.Cards {
				out = append(out, seedEntity{fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, true})
			}
		}
	}
	for i, m := range sd.Merchants {
		p := fmt.Sprintf("merchants[%d]", i)
		out = append(out, seedEntity{p, m.ID, false})
		customers(p, m.Customers)
		for k, kd := range m.Cards {
			out = append(out, seedEntity{fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, true})
		}
		for k, pl := range m.Plans {
			out = append(out, seedEntity{fmt.Sprintf("%s.plans[%d]", p, k), pl.ID, true})
		}
	}
	for i, g := range sd.Groups {
		p := fmt.Sprintf("groups[%d]", i)
		out = append(out, seedEntity{p, g.ID, true})
		customers(p, g.Customers)
	}
	return out
}

// check applies the rules that need no server (see ParseSeed).
func (sd Seed) check() error {
	seen := make(map[string]string) // id -> path of the entry that has it
	for _, e := range sd.entities() {
		if e.id == "" {
			continue
		}
		if e.gatewayForm && !idgen.Valid(e.id) {
			return seedErrorf(e.path, "", "the id %q must be %d lower-case letters and digits, as the gateway's ids", truncateForMessage(e.id), idgen.Length)
		}
		if other, dup := seen[e.id]; dup {
			return seedErrorf(e.path, e.id, "the id is already the id of %s", other)
		}
		seen[e.id] = e.path
	}
	// Keys: no key may open two accounts. The message names the entries,
	// never the key.
	keys := make(map[string]string)
	key := func(path, what, k string) error {
		if k == "" {
			return nil
		}
		if other, dup := keys[k]; dup {
			return seedErrorf(path, "", "its %s is already a key of %s", what, other)
		}
		keys[k] = path
		return nil
	}
	merchants := make(map[string]bool)
	for i, m := range sd.Merchants {
		p := fmt.Sprintf("merchants[%d]", i)
		if err := key(p, "private key", m.PrivateKey); err != nil {
			return err
		}
		if err := key(p, "public key", m.PublicKey); err != nil {
			return err
		}
		if err := checkSeedBalance(p, m.ID, m.Balance); err != nil {
			return err
		}
		if _, err := ParseCountry(m.Country); err != nil {
			return seedErrorf(p, m.ID, "%s", err)
		}
		for j, cu := range m.Customers {
			cp := fmt.Sprintf("%s.customers[%d]", p, j)
			if err := checkSeedBalance(cp, cu.ID, cu.Balance); err != nil {
				return err
			}
			if !cu.Balance.IsZero() && !cu.RequiresAccount {
				return seedErrorf(cp, cu.ID, "a balance needs an account: set requires_account to true")
			}
		}
		if m.ID != "" {
			merchants[m.ID] = true
		}
	}
	for i, g := range sd.Groups {
		p := fmt.Sprintf("groups[%d]", i)
		if err := key(p, "private key", g.PrivateKey); err != nil {
			return err
		}
		for j, id := range g.Merchants {
			if !merchants[id] {
				return seedErrorf(fmt.Sprintf("%s.merchants[%d]", p, j), "", "%q is not the id of a merchant of the seed", truncateForMessage(id))
			}
		}
		for j, cu := range g.Customers {
			if cu.RequiresAccount || !cu.Balance.IsZero() {
				return seedErrorf(fmt.Sprintf("%s.customers[%d]", p, j), cu.ID, "a customer of a group has no account, so neither requires_account nor a balance")
			}
		}
	}
	return nil
}

// checkSeedBalance checks an opening balance: zero (none), or an amount a
// bank transfer can bring.
func checkSeedBalance(path, id string, a openpay.Amount) error {
	if a.Cmp(openpay.Amount{}) < 0 || !a.HasValidPrecision() {
		return seedErrorf(path, id, "the balance must be an amount of zero or more with at most two decimals")
	}
	return nil
}

// ApplySeed creates what the seed describes and returns the seed as
// applied: every generated id and key filled in, so that applying it to a
// fresh server recreates the same merchants, groups, customers, cards and
// plans under the same ids and keys. It is all or nothing: when an entry is
// refused (by the checks of ParseSeed, by AddMerchant or AddGroup, or by the
// API, whose answer the error quotes), everything the seed had created is
// removed again and the error names the entry. What a seed creates is part
// of the server's configuration: [Server.Reset] brings it back.
func (s *Server) ApplySeed(sd Seed) (Seed, error) {
	return configure(s, sd, (*Server).applySeed)
}

// applySeed is ApplySeed without recording the step.
func (s *Server) applySeed(sd Seed) (Seed, error) {
	if err := sd.check(); err != nil {
		return Seed{}, err
	}
	var fixed []string
	for _, e := range sd.entities() {
		if e.id != "" {
			fixed = append(fixed, e.id)
		}
	}
	s.ids.Reserve(fixed)
	a := &seedApply{s: s}
	out, err := a.apply(sd)
	if err != nil {
		a.undo()
		return Seed{}, err
	}
	return out, nil
}

// seedApply is one application of a seed: what it has created so far.
type seedApply struct {
	s         *Server
	merchants []string
	groups    []string
}

// apply creates the seed's entries in order: merchants, groups, then each
// merchant's balance, customers (with their balances and cards), cards and
// plans, then each group's customers and their cards.
func (a *seedApply) apply(sd Seed) (Seed, error) {
	s := a.s
	out := Seed{Merchants: slices.Clone(sd.Merchants), Groups: slices.Clone(sd.Groups)}
	for i := range out.Merchants {
		m := &out.Merchants[i]
		cfg, err := s.addMerchant(MerchantConfig{ID: m.ID, Name: m.Name, Email: m.Email, Phone: m.Phone,
			PrivateKey: m.PrivateKey, PublicKey: m.PublicKey, CLABE: m.CLABE, Country: openpay.Country(m.Country)})
		if err != nil {
			return Seed{}, seedErrorf(fmt.Sprintf("merchants[%d]", i), m.ID, "%s", strings.TrimPrefix(err.Error(), "refserver: "))
		}
		a.merchants = append(a.merchants, cfg.ID)
		m.ID, m.Name, m.Email, m.Phone, m.PrivateKey, m.PublicKey, m.CLABE, m.Country =
			cfg.ID, cfg.Name, cfg.Email, cfg.Phone, cfg.PrivateKey, cfg.PublicKey, cfg.CLABE, strings.ToLower(string(cfg.Country))
	}
	for i := range out.Groups {
		g := &out.Groups[i]
		cfg, err := s.addGroup(GroupConfig{ID: g.ID, PrivateKey: g.PrivateKey, MerchantIDs: g.Merchants})
		if err != nil {
			return Seed{}, seedErrorf(fmt.Sprintf("groups[%d]", i), g.ID, "%s", strings.TrimPrefix(err.Error(), "refserver: "))
		}
		a.groups = append(a.groups, cfg.ID)
		g.ID, g.PrivateKey = cfg.ID, cfg.PrivateKey
	}
	for i := range out.Merchants {
		m := &out.Merchants[i]
		p := fmt.Sprintf("merchants[%d]", i)
		api := "/v1/" + url.PathEscape(m.ID)
		if !m.Balance.IsZero() {
			if _, err := s.ReceiveSPEI(m.ID, "", m.Balance, seedBalanceDescription); err != nil {
				return Seed{}, seedErrorf(p, m.ID, "balance: %s", apiErrorText(err))
			}
		}
		var err error
		if m.Customers, err = a.customers(p, api, m.ID, m.PrivateKey, m.Customers); err != nil {
			return Seed{}, err
		}
		m.Cards = slices.Clone(m.Cards)
		for k := range m.Cards {
			kd := &m.Cards[k]
			if kd.ID, err = a.create(fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, m.PrivateKey, api+"/cards", seedCardBody(kd.CardRequest)); err != nil {
				return Seed{}, err
			}
		}
		m.Plans = slices.Clone(m.Plans)
		for k := range m.Plans {
			pl := &m.Plans[k]
			if pl.ID, err = a.create(fmt.Sprintf("%s.plans[%d]", p, k), pl.ID, m.PrivateKey, api+"/plans", pl.PlanRequest); err != nil {
				return Seed{}, err
			}
		}
	}
	for i := range out.Groups {
		g := &out.Groups[i]
		var err error
		g.Customers, err = a.customers(fmt.Sprintf("groups[%d]", i), "/v1/groups/"+url.PathEscape(g.ID), "", g.PrivateKey, g.Customers)
		if err != nil {
			return Seed{}, err
		}
	}
	return out, nil
}

// seedCardBody is a card request without its methods, so that it encodes
// with its real number and security code (openpay.CardRequest encodes
// masked).
type seedCardBody openpay.CardRequest

// customers creates customers under api (a merchant's or a group's path),
// with their opening balances (merchantID is "" for a group's customers,
// which have none) and their cards, and returns them with their ids.
func (a *seedApply) customers(path, api, merchantID, key string, cs []SeedCustomer) ([]SeedCustomer, error) {
	cs = slices.Clone(cs)
	for j := range cs {
		cu := &cs[j]
		p := fmt.Sprintf("%s.customers[%d]", path, j)
		var err error
		if cu.ID, err = a.create(p, cu.ID, key, api+"/customers", cu.CustomerRequest); err != nil {
			return nil, err
		}
		if !cu.Balance.IsZero() {
			if _, err := a.s.ReceiveSPEI(merchantID, cu.ID, cu.Balance, seedBalanceDescription); err != nil {
				return nil, seedErrorf(p, cu.ID, "balance: %s", apiErrorText(err))
			}
		}
		cu.Cards = slices.Clone(cu.Cards)
		cardsPath := api + "/customers/" + url.PathEscape(cu.ID) + "/cards"
		for k := range cu.Cards {
			kd := &cu.Cards[k]
			if kd.ID, err = a.create(fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, key, cardsPath, seedCardBody(kd.CardRequest)); err != nil {
				return nil, err
			}
		}
	}
	return cs, nil
}

// create posts body to the API path with the key, as a client would, the
// resource to get id when not empty, and returns the id it got. An answer
// other than 200 is the error of the entry at path, quoting the answer.
func (a *seedApply) create(path, id, key, apiPath string, body any) (string, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return "", seedErrorf(path, id, "cannot be encoded: %v", err)
	}
	ctx := context.WithValue(context.Background(), fixedIDKey{}, id)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://refserver.seed"+apiPath, bytes.NewReader(data))
	if err != nil {
		return "", seedErrorf(path, id, "cannot be created at %s", apiPath)
	}
	req.SetBasicAuth(key, "")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	a.s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		var e answer.ErrorResponse
		if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Description == "" {
			return "", seedErrorf(path, id, "refused with HTTP status %d", rec.Code)
		}
		return "", seedErrorf(path, id, "%s (error %d)", e.Description, int(e.Code))
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || created.ID == "" {
		return "", seedErrorf(path, id, "the answer carries no id")
	}
	return created.ID, nil
}

// apiErrorText is the text of an error of the server's Go methods: the
// description and code of an *Error.
func apiErrorText(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%s (error %d)", e.Description, int(e.Code))
	}
	return err.Error()
}

// undo removes the merchants and groups the seed created, and with them
// everything else it created, which they own; the barcodes of their
// customers' store references are no longer served.
func (a *seedApply) undo() {
	s := a.s
	s.mu.Lock()
	var removed []*merchant
	for _, id := range a.merchants {
		removed = append(removed, s.merchants[id])
		delete(s.merchants, id)
	}
	s.merchantList = slices.DeleteFunc(s.merchantList, func(id string) bool { return slices.Contains(a.merchants, id) })
	for _, id := range a.groups {
		delete(s.groups, id)
	}
	s.mu.Unlock()
	for _, m := range removed {
		m.mu.Lock()
		for _, cu := range m.customers.list {
			if cu.storeRef != "" {
				s.barcodes.Delete(cu.storeRef)
			}
		}
		m.mu.Unlock()
	}
}
