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
	"slices"
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/answer"
	"github.com/openpay-go/openpay/internal/refserver/seed"
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

// The seed's types and reading are package seed's; these names keep the
// server's API as it was.
type (
	// Seed is a starting state for a server ([seed.Seed]): apply it with
	// [Server.ApplySeed].
	Seed = seed.Seed
	// SeedMerchant is a merchant account of a seed ([seed.Merchant]).
	SeedMerchant = seed.Merchant
	// SeedGroup is a merchant group of a seed ([seed.Group]).
	SeedGroup = seed.Group
	// SeedCustomer is a customer of a seed ([seed.Customer]).
	SeedCustomer = seed.Customer
	// SeedCard is a stored card of a seed ([seed.Card]).
	SeedCard = seed.Card
	// SeedPlan is a subscription plan of a seed ([seed.Plan]).
	SeedPlan = seed.Plan
)

// ReadSeedFile reads a seed from a JSON or YAML file and checks it as
// [ParseSeed] does.
func ReadSeedFile(path string) (Seed, error) { return seed.ReadFile(path, knownCountry) }

// ParseSeed reads a seed from JSON or YAML and checks what can be checked
// without a server ([seed.Parse]), the country against the server's.
func ParseSeed(data []byte) (Seed, error) { return seed.Parse(data, knownCountry) }

// knownCountry refuses a country the server does not know.
func knownCountry(c string) error {
	_, err := ParseCountry(c)
	return err
}

// seedErrorf formats a seed error about the entry at path ([seed.Errorf]).
func seedErrorf(path, id, format string, args ...any) error {
	return seed.Errorf(path, id, format, args...)
}

// seedBalanceDescription is the description of the bank transfer that
// brings a seeded opening balance.
const seedBalanceDescription = "Opening balance"

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
	if err := sd.Check(knownCountry); err != nil {
		return Seed{}, err
	}
	var fixed []string
	for _, e := range sd.Entities() {
		if e.ID != "" {
			fixed = append(fixed, e.ID)
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
			if kd.ID, err = a.create(fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, m.PrivateKey, api+"/cards", kd.RequestBody()); err != nil {
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
			if kd.ID, err = a.create(fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, key, cardsPath, kd.RequestBody()); err != nil {
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
	s.merchantsRO.Store(nil)
	s.merchantList = slices.DeleteFunc(s.merchantList, func(id string) bool { return slices.Contains(a.merchants, id) })
	for _, id := range a.groups {
		delete(s.groups, id)
	}
	s.mu.Unlock()
	for _, m := range removed {
		m.mu.Lock()
		for _, cu := range m.customers.list {
			if cu.hasAccount() && cu.storeRef != "" {
				s.barcodes.Delete(cu.storeRef)
			}
		}
		m.mu.Unlock()
	}
}
