package seed

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
)

// Seed is a starting state for a server: merchants with their keys, opening
// balances, customers, cards and plans, and merchant groups with their own
// customers. Empty ids and keys are generated. Read one from a file with
// [ReadFile] or [Parse], or build it in Go, and apply it with
// [Server.ApplySeed], which does not change it. A seed holds keys and card
// numbers: never log it.
type Seed struct {
	Merchants []Merchant `json:"merchants,omitempty"`
	Groups    []Group    `json:"groups,omitempty"`
}

// Merchant is a merchant account of a seed. ID, keys, name, e-mail,
// phone and CLABE follow the rules of [Server.AddMerchant] and are
// generated when empty.
type Merchant struct {
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
	Customers []Customer     `json:"customers,omitempty"`
	// Cards are merchant-level cards (no customer).
	Cards []Card `json:"cards,omitempty"`
	Plans []Plan `json:"plans,omitempty"`
}

// Group is a merchant group of a seed: its key acts for the listed
// merchants, which must be merchants of the seed named by their ids.
type Group struct {
	ID         string   `json:"id,omitempty"`
	PrivateKey string   `json:"private_key,omitempty"`
	Merchants  []string `json:"merchants,omitempty"`
	// Customers are the group's own customers (they have no account).
	Customers []Customer `json:"customers,omitempty"`
}

// Customer is a customer of a seed: the members of the API's customer
// request, an optional fixed id, an opening balance (for a customer with
// requires_account) and its cards.
type Customer struct {
	ID string `json:"id,omitempty"`
	openpay.CustomerRequest
	Balance openpay.Amount `json:"balance,omitzero"`
	Cards   []Card         `json:"cards,omitempty"`
}

// Card is a stored card of a seed: the members of the API's card
// request (the card's data and a device session id, side by side as the
// API takes them) and an optional fixed id. Like [openpay.CardDetails], it
// prints and encodes masked, as the card's data alone.
type Card struct {
	ID string `json:"id,omitempty"`
	openpay.CardDetails
	DeviceSessionID string `json:"device_session_id,omitempty"`
}

// RequestBody is the card as the API's card request takes it, with its
// real number and security code (openpay.CardDetails and
// openpay.CardRequest encode masked): the card's members and
// device_session_id side by side. It is for the request that stores the
// card, never for a log.
func (c Card) RequestBody() any {
	type plainCardDetails openpay.CardDetails // the members without the masking methods
	return struct {
		plainCardDetails
		DeviceSessionID string `json:"device_session_id,omitempty"`
	}{plainCardDetails(c.CardDetails), c.DeviceSessionID}
}

// Plan is a subscription plan of a seed: the members of the API's plan
// request and an optional fixed id.
type Plan struct {
	ID string `json:"id,omitempty"`
	openpay.PlanRequest
}

// ReadFile reads a seed from a JSON or YAML file and checks it as
// [Parse] does.
func ReadFile(path string, country func(string) error) (Seed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Seed{}, fmt.Errorf("seed: %w", err)
	}
	sd, err := Parse(data, country)
	if err != nil {
		return Seed{}, fmt.Errorf("seed file %s: %w", path, errors.Unwrap(err))
	}
	return sd, nil
}

// Parse reads a seed from JSON or YAML. Unknown or repeated members are
// refused; text members may be written as YAML numbers (card numbers,
// CLABEs, security codes). It then checks what can be checked without a
// server: the form of fixed ids, that no id or key is used twice, that a
// group names merchants of the seed and that balances are possible. The
// error names the line or the entry at fault.
func Parse(data []byte, country func(string) error) (Seed, error) {
	var sd Seed
	if err := decodeDocument(data, &sd); err != nil {
		return Seed{}, seedError{err}
	}
	if err := sd.Check(country); err != nil {
		return Seed{}, err
	}
	return sd, nil
}

// seedError is an error of a seed; its message starts with "seed: ".
type seedError struct{ err error }

func (e seedError) Error() string { return "seed: " + e.err.Error() }
func (e seedError) Unwrap() error { return e.err }

// Errorf formats a seed error about the entry at path (with its id,
// when it has one).
func Errorf(path, id, format string, args ...any) error {
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
		ms = append([]Merchant{{ID: id, PrivateKey: privateKey, PublicKey: publicKey}}, ms...)
	}
	sd.Merchants = ms
	return sd
}

// Entity is an entry of a seed that owns an id, for the checks that
// span the whole seed.
type Entity struct {
	Path, ID string
	// gatewayForm: the id must have the form of the server's ids. Merchant
	// ids keep the looser rule of AddMerchant (and of --merchant-id).
	GatewayForm bool
}

// entities lists every entry of the seed that has an id, in file order.
func (sd Seed) Entities() []Entity {
	var out []Entity
	customers := func(path string, cs []Customer) {
		for j, cu := range cs {
			p := fmt.Sprintf("%s.customers[%d]", path, j)
			out = append(out, Entity{p, cu.ID, true})
			for k, kd := range cu.Cards {
				out = append(out, Entity{fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, true})
			}
		}
	}
	for i, m := range sd.Merchants {
		p := fmt.Sprintf("merchants[%d]", i)
		out = append(out, Entity{p, m.ID, false})
		customers(p, m.Customers)
		for k, kd := range m.Cards {
			out = append(out, Entity{fmt.Sprintf("%s.cards[%d]", p, k), kd.ID, true})
		}
		for k, pl := range m.Plans {
			out = append(out, Entity{fmt.Sprintf("%s.plans[%d]", p, k), pl.ID, true})
		}
	}
	for i, g := range sd.Groups {
		p := fmt.Sprintf("groups[%d]", i)
		out = append(out, Entity{p, g.ID, true})
		customers(p, g.Customers)
	}
	return out
}

// check applies the rules that need no server (see Parse).
func (sd Seed) Check(country func(string) error) error {
	seen := make(map[string]string) // id -> path of the entry that has it
	for _, e := range sd.Entities() {
		if e.ID == "" {
			continue
		}
		if e.GatewayForm && !idgen.Valid(e.ID) {
			return Errorf(e.Path, "", "the id %q must be %d lower-case letters and digits, as the gateway's ids", apierr.Truncate(e.ID), idgen.Length)
		}
		if other, dup := seen[e.ID]; dup {
			return Errorf(e.Path, e.ID, "the id is already the id of %s", other)
		}
		seen[e.ID] = e.Path
	}
	// Keys: no key may open two accounts. The message names the entries,
	// never the key.
	keys := make(map[string]string)
	key := func(path, what, k string) error {
		if k == "" {
			return nil
		}
		if other, dup := keys[k]; dup {
			return Errorf(path, "", "its %s is already a key of %s", what, other)
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
		if err := checkBalance(p, m.ID, m.Balance); err != nil {
			return err
		}
		if err := country(m.Country); err != nil {
			return Errorf(p, m.ID, "%s", err)
		}
		for j, cu := range m.Customers {
			cp := fmt.Sprintf("%s.customers[%d]", p, j)
			if err := checkBalance(cp, cu.ID, cu.Balance); err != nil {
				return err
			}
			if !cu.Balance.IsZero() && !cu.RequiresAccount {
				return Errorf(cp, cu.ID, "a balance needs an account: set requires_account to true")
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
				return Errorf(fmt.Sprintf("%s.merchants[%d]", p, j), "", "%q is not the id of a merchant of the seed", apierr.Truncate(id))
			}
		}
		for j, cu := range g.Customers {
			if cu.RequiresAccount || !cu.Balance.IsZero() {
				return Errorf(fmt.Sprintf("%s.customers[%d]", p, j), cu.ID, "a customer of a group has no account, so neither requires_account nor a balance")
			}
		}
	}
	return nil
}

// checkBalance checks an opening balance: zero (none), or an amount a
// bank transfer can bring.
func checkBalance(path, id string, a openpay.Amount) error {
	if a.Cmp(openpay.Amount{}) < 0 || !a.HasValidPrecision() {
		return Errorf(path, id, "the balance must be an amount of zero or more with at most two decimals")
	}
	return nil
}
