package storedata

import (
	_ "embed"
	"strings"
	"sync"
)

// The Colombian and Peruvian data sets: sample data written for this
// project (plausible stores near Bogotá and Medellín, and near Lima, in
// networks of their own with invented limits in COP and PEN), not a copy of
// any real directory. Their chains' logos are on the gateway's site of
// their country.

//go:embed stores_co.json
var colombiaJSON []byte

//go:embed stores_pe.json
var peruJSON []byte

var (
	colombia = sync.OnceValue(func() *Set { return bundled(colombiaJSON, "www.openpay.co") })
	peru     = sync.OnceValue(func() *Set { return bundled(peruJSON, "www.openpay.pe") })
	// everywhere is the three sets in one, for the store search, which
	// names no merchant and so no country: the searched point decides.
	everywhere = sync.OnceValue(func() *Set {
		var all []Store
		for _, s := range []*Set{Mexico(), Colombia(), Peru()} {
			all = append(all, s.stores...)
		}
		return &Set{stores: all}
	})
)

// Colombia returns the bundled data set of Colombian stores (Bogotá and
// Medellín).
func Colombia() *Set { return colombia() }

// Peru returns the bundled data set of Peruvian stores (Lima).
func Peru() *Set { return peru() }

// Everywhere returns the stores of every bundled set, Mexico's first.
func Everywhere() *Set { return everywhere() }

// ForCountry returns the bundled set of a country by its ISO code (MX, CO
// or PE, in any case); nil for a country with no set.
func ForCountry(code string) *Set {
	switch strings.ToUpper(code) {
	case "MX":
		return Mexico()
	case "CO":
		return Colombia()
	case "PE":
		return Peru()
	}
	return nil
}
