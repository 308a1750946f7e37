package openpay

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
)

// StoreSearch locates convenience stores that take payments by reference.
type StoreSearch struct {
	// Latitude and Longitude of the payer, in degrees.
	Latitude, Longitude float64
	// Kilometers is the search radius.
	Kilometers float64
	// Amount is the payment: stores of chains that cannot take that much
	// are left out.
	Amount Amount
}

// StoresService looks up convenience stores (Client.Stores). The lookup
// needs no credentials, and the SDK sends none.
type StoresService struct{ s scope }

// Search returns the stores within q.Kilometers of the location that can
// take q.Amount, nearest first.
func (ss *StoresService) Search(ctx context.Context, q StoreSearch, opts ...CallOption) ([]Store, error) {
	if !finite(q.Latitude) || !finite(q.Longitude) || q.Latitude < -90 || q.Latitude > 90 || q.Longitude < -180 || q.Longitude > 180 {
		return nil, errors.New("openpay: store search needs a latitude in [-90, 90] and a longitude in [-180, 180]")
	}
	if !finite(q.Kilometers) || q.Kilometers <= 0 {
		return nil, errors.New("openpay: store search needs a positive radius in kilometers")
	}
	amount, err := q.Amount.MarshalText()
	if err != nil {
		return nil, err
	}
	query := url.Values{
		"latitud":    {strconv.FormatFloat(q.Latitude, 'f', -1, 64)},
		"longitud":   {strconv.FormatFloat(q.Longitude, 'f', -1, 64)},
		"kilometers": {strconv.FormatFloat(q.Kilometers, 'f', -1, 64)},
		"amount":     {string(amount)},
	}
	stores, err := call[[]Store](ctx, scopeOf(ss), apiRequest{opts: opts, method: http.MethodGet, query: query, noAuth: true, publicKeyOK: true}, "stores")
	if err != nil {
		return nil, err
	}
	return *stores, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
