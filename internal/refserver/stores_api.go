package refserver

import (
	"math"
	"net/http"
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/storedata"
)

// The convenience-store search, GET /stores?latitud=&longitud=&kilometers=&amount=
// (section 4.10): no credentials, no version or merchant in the path.
// storedata.Everywhere().Search does the search over the bundled data sets
// of the three countries (the searched point decides: the path names no
// merchant, so no country); this file reads and checks the query and writes
// the gateway's store objects.
//
// Query rules. The four parameters are required (1001 when absent or
// empty); a value that is not a number, or is out of range, answers 1003
// naming the parameter:
//
//   - latitud: a finite number from -90 to 90; longitud: from -180 to 180;
//   - kilometers: greater than zero and at most maxSearchKM (a larger
//     radius means nothing on the Earth's surface, and is more likely a
//     client's mistake than a wish);
//   - amount: greater than zero with at most two decimals, like every
//     amount the gateway takes.
//
// The answer is an array, empty when no store matches, nearest first; a
// store is left out when its chain's max_amount is below the amount.

// maxSearchKM caps the search radius: about half the Earth's circumference,
// the farthest any two points on its surface can be.
const maxSearchKM = 20000

// registerStores registers the convenience-store search.
func (s *Server) registerStores(r *routeTable) {
	r.add("listStores", http.MethodGet, "/stores", http.StatusOK, s.listStores).noAuth()
}

// storeWire is a store as the gateway writes it. It is openpay.Store with
// two members in the gateway's own form, which the client's type reads
// either way: id_store as a JSON number (the client's type sends a string)
// and address.line3 as null when the store has none (the client's type
// leaves it out).
type storeWire struct {
	openpay.Store
	IDStore int64         `json:"id_store"`
	Address *storeAddress `json:"address,omitempty"`
}

// storeAddress is a store's address with line3 written as null when empty.
type storeAddress struct {
	openpay.Address
	Line3 *string `json:"line3"`
}

// listStores answers the stores near a point that take a payment of the
// amount.
func (s *Server) listStores(c *call) (any, *Error) {
	q := c.query
	for _, name := range []string{"latitud", "longitud", "kilometers", "amount"} {
		if strings.TrimSpace(q.Get(name)) == "" {
			return nil, errorf(openpay.ErrBadRequest, "The parameter '%s' is required", name)
		}
	}
	lat, e := listquery.Number(q.Get("latitud"), "latitud", -90, 90)
	if e != nil {
		return nil, e
	}
	lng, e := listquery.Number(q.Get("longitud"), "longitud", -180, 180)
	if e != nil {
		return nil, e
	}
	km, e := listquery.Number(q.Get("kilometers"), "kilometers", -math.MaxFloat64, math.MaxFloat64)
	if e != nil {
		return nil, e
	}
	if km <= 0 || km > maxSearchKM {
		return nil, errorf(openpay.ErrInvalidParameter, "The parameter 'kilometers' must be greater than 0 and at most %d", maxSearchKM)
	}
	amount, err := listquery.Amount(q.Get("amount"))
	if err != nil || !amount.IsPositive() {
		return nil, errorf(openpay.ErrInvalidParameter, "The parameter 'amount' must be a number greater than zero with at most two decimals")
	}
	found := storedata.Everywhere().Search(lat, lng, km, amount.Decimal())
	out := make([]storeWire, 0, len(found))
	for _, st := range found {
		out = append(out, wireStore(st))
	}
	return out, nil
}

// wireStore converts a store of the data set to its wire form.
func wireStore(st storedata.Store) storeWire {
	// The data set's limits are whole pesos or cents; a limit with more
	// decimals would be a broken data set, which a test of package storedata rules
	// out, and would show as zero.
	maxAmount, _ := openpay.AmountFromDecimal(st.Chain.MaxAmount)
	zone := gatewayZone
	if r, ok := countryrules.Of(openpay.Country(st.Address.CountryCode)); ok {
		zone = r.Zone // the store's country's, as its merchants' (country.go)
	}
	w := storeWire{
		Store: openpay.Store{
			ID: int(st.ID), Name: st.Name, LastUpdate: st.LastUpdate.In(zone),
			Status:      openpay.StoreStatus(st.Status),
			Geolocation: &openpay.Geolocation{Lat: st.Lat, Lng: st.Lng, PlaceID: st.PlaceID},
			PaynetChain: &openpay.PaynetChain{Name: st.Chain.Name, Logo: st.Chain.Logo, Thumb: st.Chain.Thumb, MaxAmount: maxAmount},
		},
		IDStore: st.IDStore,
		Address: &storeAddress{Address: openpay.Address{
			Line1: st.Address.Line1, Line2: st.Address.Line2, State: st.Address.State, City: st.Address.City,
			PostalCode: st.Address.PostalCode, CountryCode: st.Address.CountryCode,
		}},
	}
	if st.Address.Line3 != "" {
		line3 := st.Address.Line3
		w.Address.Line3 = &line3
	}
	return w
}
