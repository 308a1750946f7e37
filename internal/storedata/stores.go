// Package storedata holds the data sets of convenience stores that take
// Paynet payments and the search over them: the stores within a radius of a
// point whose chain accepts an amount, nearest first. A data set is a [Set];
// [Parse] reads one from JSON and [Mexico] is the bundled Mexican one.
package storedata

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// mexicoJSON is the bundled Mexican store data set: sample data written for
// this project (plausible Paynet-affiliated stores in Querétaro, Ciudad de
// México, Guadalajara and Monterrey, with invented chain limits), not a copy
// of any real directory.
//
//go:embed stores.json
var mexicoJSON []byte

// Chain is a chain of stores that take Paynet payments.
type Chain struct {
	Name  string
	Logo  string // image URL
	Thumb string // thumbnail URL
	// MaxAmount is the largest payment a store of the chain accepts.
	MaxAmount decimal.Decimal
}

// Address is a store's address. Line3 is empty in the bundled data (the
// gateway sends null there).
type Address struct {
	Line1, Line2, Line3 string
	State, City         string
	PostalCode          string
	CountryCode         string
}

// Store is one convenience store, in the server's own terms; the HTTP
// layer converts it to the wire's store object.
type Store struct {
	IDStore int64 // unique over all stores of a set
	ID      int64 // unique within the chain
	Name    string
	// LastUpdate is in the offset the data set writes it with.
	LastUpdate time.Time
	Status     string // "active"
	Lat, Lng   float64
	PlaceID    string
	Address    Address
	Chain      Chain
	// DistanceKM is the distance from the searched point, set by
	// [Set.Search]; 0 elsewhere.
	DistanceKM float64
}

type storeFile struct {
	Chains []struct {
		Name      string `json:"name"`
		Slug      string `json:"slug"`
		MaxAmount string `json:"max_amount"`
	} `json:"chains"`
	Stores []struct {
		IDStore    int64   `json:"id_store"`
		ID         int64   `json:"id"`
		Chain      string  `json:"chain"`
		Name       string  `json:"name"`
		LastUpdate string  `json:"last_update"`
		Lat        float64 `json:"lat"`
		Lng        float64 `json:"lng"`
		PlaceID    string  `json:"place_id"`
		Address    struct {
			Line1       string `json:"line1"`
			Line2       string `json:"line2"`
			State       string `json:"state"`
			City        string `json:"city"`
			PostalCode  string `json:"postal_code"`
			CountryCode string `json:"country_code"`
		} `json:"address"`
	} `json:"stores"`
}

// Set is a store data set. Its methods never change it, so one Set may be
// searched by many goroutines at once.
type Set struct {
	stores []Store
}

// Parse decodes a store data set, refusing dangling chain names, malformed
// amounts and dates, and duplicate id_store values. Its chains' logos are on
// the gateway's Mexican site.
func Parse(data []byte) (*Set, error) { return parse(data, "www.openpay.mx") }

// parse is Parse with the logos on the gateway's site of a country (site:
// "www.openpay.co").
func parse(data []byte, site string) (*Set, error) {
	var f storeFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("stores: %w", err)
	}
	chains := make(map[string]Chain, len(f.Chains))
	for _, c := range f.Chains {
		maxAmount, err := decimal.NewFromString(c.MaxAmount)
		if err != nil {
			return nil, fmt.Errorf("stores: chain %q max_amount: %w", c.Name, err)
		}
		chains[c.Name] = Chain{
			Name:      c.Name,
			Logo:      "http://" + site + "/logotipos/" + c.Slug + ".png",
			Thumb:     "http://" + site + "/thumb/" + c.Slug + ".png",
			MaxAmount: maxAmount,
		}
	}
	seen := make(map[int64]bool, len(f.Stores))
	out := make([]Store, 0, len(f.Stores))
	for _, s := range f.Stores {
		chain, ok := chains[s.Chain]
		if !ok {
			return nil, fmt.Errorf("stores: store %d: unknown chain %q", s.IDStore, s.Chain)
		}
		if seen[s.IDStore] {
			return nil, fmt.Errorf("stores: duplicate id_store %d", s.IDStore)
		}
		seen[s.IDStore] = true
		updated, err := time.Parse(time.RFC3339, s.LastUpdate)
		if err != nil {
			return nil, fmt.Errorf("stores: store %d last_update: %w", s.IDStore, err)
		}
		out = append(out, Store{
			IDStore:    s.IDStore,
			ID:         s.ID,
			Name:       s.Name,
			LastUpdate: updated,
			Status:     "active",
			Lat:        s.Lat,
			Lng:        s.Lng,
			PlaceID:    s.PlaceID,
			Address: Address{
				Line1:       s.Address.Line1,
				Line2:       s.Address.Line2,
				State:       s.Address.State,
				City:        s.Address.City,
				PostalCode:  s.Address.PostalCode,
				CountryCode: s.Address.CountryCode,
			},
			Chain: chain,
		})
	}
	return &Set{stores: out}, nil
}

// bundled parses an embedded data set whose logos are on site. A broken
// set is empty: a test proves each one parses, so this only guards against
// a broken build.
func bundled(data []byte, site string) *Set {
	s, err := parse(data, site)
	if err != nil {
		return &Set{}
	}
	return s
}

// mexico parses the embedded Mexican data set once.
var mexico = sync.OnceValue(func() *Set { return bundled(mexicoJSON, "www.openpay.mx") })

// Mexico returns the bundled data set of Mexican stores (Querétaro, Ciudad
// de México, Guadalajara and Monterrey). It is empty only if the embedded
// data is broken, which a test rules out.
func Mexico() *Set { return mexico() }

// All returns every store of the set, a fresh copy on each call, in the
// data set's order.
func (s *Set) All() []Store {
	return slices.Clone(s.stores)
}

// earthRadiusKM is the mean radius of the Earth.
const earthRadiusKM = 6371.0088

// haversineKM is the great-circle distance between two points given in
// degrees.
func haversineKM(lat1, lng1, lat2, lng2 float64) float64 {
	const rad = math.Pi / 180
	dLat := (lat2 - lat1) * rad
	dLng := (lng2 - lng1) * rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) +
		math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	a = min(max(a, 0), 1) // rounding can step outside [0, 1]
	return 2 * earthRadiusKM * math.Asin(math.Sqrt(a))
}

// Search returns the stores of the set within km kilometres of the point
// (lat, lng) whose chain accepts a payment of amount (chain max_amount >=
// amount), nearest first (ties by id_store), each with DistanceKM set.
//
// Coordinates outside -90..90 / -180..180, a radius that is not a positive
// finite number, and NaNs give no stores: validating the query and answering
// with an error is the HTTP layer's job, this function only never misbehaves.
func (s *Set) Search(lat, lng, km float64, amount decimal.Decimal) []Store {
	if !(lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180 && km > 0) || math.IsInf(km, 0) {
		return nil
	}
	var out []Store
	for _, st := range s.stores {
		if st.Chain.MaxAmount.LessThan(amount) {
			continue
		}
		d := haversineKM(lat, lng, st.Lat, st.Lng)
		if d > km {
			continue
		}
		st.DistanceKM = d
		out = append(out, st)
	}
	sortByDistance(out)
	return out
}

// sortByDistance orders stores nearest first, ties by id_store, so that a
// search answers the same way on every run.
func sortByDistance(stores []Store) {
	slices.SortFunc(stores, func(a, b Store) int {
		if c := cmp.Compare(a.DistanceKM, b.DistanceKM); c != 0 {
			return c
		}
		return cmp.Compare(a.IDStore, b.IDStore)
	})
}
