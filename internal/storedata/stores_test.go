package storedata

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBundledStores(t *testing.T) {
	t.Parallel()
	parsed, err := Parse(mexicoJSON)
	require.NoError(t, err, "the embedded data set parses")
	assert.Equal(t, parsed.All(), Mexico().All())
	require.GreaterOrEqual(t, len(parsed.All()), 40)
	stores := Everywhere().All()
	require.Equal(t, len(Mexico().All())+len(Colombia().All())+len(Peru().All()), len(stores))
	sites := map[string]string{"MX": "http://www.openpay.mx/", "CO": "http://www.openpay.co/", "PE": "http://www.openpay.pe/"}
	for _, cc := range []string{"MX", "CO", "PE"} {
		for _, s := range ForCountry(cc).All() {
			assert.Equal(t, cc, s.Address.CountryCode, "%s is in the set of %s", s.Name, cc)
			assert.True(t, strings.HasPrefix(s.Chain.Logo, sites[cc]+"logotipos/"), "%s: logo %s on its country's site", s.Name, s.Chain.Logo)
			assert.True(t, strings.HasPrefix(s.Chain.Thumb, sites[cc]+"thumb/"), "%s: thumb %s on its country's site", s.Name, s.Chain.Thumb)
		}
	}
	assert.Nil(t, ForCountry("AR"))

	postal := regexp.MustCompile(`^\d{5}$`)
	idStores := map[int64]bool{}
	placeIDs := map[string]bool{}
	chainIDs := map[string]map[int64]bool{}
	chains := map[string]decimal.Decimal{}
	countries := map[string][]string{} // chain -> its stores' country codes
	cities := map[string]int{}
	for _, s := range stores {
		assert.False(t, idStores[s.IDStore], "id_store %d repeated", s.IDStore)
		idStores[s.IDStore] = true
		assert.False(t, placeIDs[s.PlaceID], "place_id %s repeated", s.PlaceID)
		placeIDs[s.PlaceID] = true
		if chainIDs[s.Chain.Name] == nil {
			chainIDs[s.Chain.Name] = map[int64]bool{}
		}
		assert.False(t, chainIDs[s.Chain.Name][s.ID], "%s id %d repeated", s.Chain.Name, s.ID)
		chainIDs[s.Chain.Name][s.ID] = true
		if prev, ok := chains[s.Chain.Name]; ok {
			assert.True(t, prev.Equal(s.Chain.MaxAmount), "one max_amount per chain")
		}
		chains[s.Chain.Name] = s.Chain.MaxAmount
		cities[s.Address.State]++

		assert.NotEmpty(t, s.Name)
		assert.Equal(t, "active", s.Status)
		assert.Positive(t, s.IDStore)
		assert.Positive(t, s.ID)
		assert.Regexp(t, `^ChIJ[A-Za-z0-9_-]{20,}$`, s.PlaceID)
		assert.NotEmpty(t, s.Address.Line1)
		assert.NotEmpty(t, s.Address.Line2)
		assert.NotEmpty(t, s.Address.City)
		// Inside its country's bounding box, with its country's postal codes.
		box, ok := map[string][4]float64{"MX": {14, 33, -118, -86}, "CO": {-5, 13, -80, -66}, "PE": {-19, 0, -82, -68}}[s.Address.CountryCode]
		require.True(t, ok, "%s: country %q", s.Name, s.Address.CountryCode)
		assert.True(t, s.Lat > box[0] && s.Lat < box[1] && s.Lng > box[2] && s.Lng < box[3], "%s at %f,%f", s.Name, s.Lat, s.Lng)
		assert.Regexp(t, map[string]*regexp.Regexp{"MX": postal, "CO": regexp.MustCompile(`^[0-9]{6}$`), "PE": regexp.MustCompile(`^[0-9]{5}$`)}[s.Address.CountryCode],
			s.Address.PostalCode)
		countries[s.Chain.Name] = append(countries[s.Chain.Name], s.Address.CountryCode)
		assert.False(t, s.LastUpdate.IsZero())
		_, off := s.LastUpdate.Zone()
		assert.Equal(t, map[string]int{"MX": -6 * 3600, "CO": -5 * 3600, "PE": -5 * 3600}[s.Address.CountryCode], off)
		domain := "openpay\\." + strings.ToLower(s.Address.CountryCode)
		assert.Regexp(t, `^http://www\.`+domain+`/logotipos/[a-z0-9]+\.png$`, s.Chain.Logo)
		assert.Regexp(t, `^http://www\.`+domain+`/thumb/[a-z0-9]+\.png$`, s.Chain.Thumb)
		assert.Zero(t, s.DistanceKM)
	}
	assert.GreaterOrEqual(t, len(chains), 8, "chains")
	assert.NotContains(t, chains, "OXXO", "OXXO does not take Paynet payments")
	for name, max := range chains {
		assert.True(t, max.IsPositive(), name)
		assert.True(t, max.Equal(max.Round(2)), "%s max_amount has at most two decimals", name)
	}
	for _, state := range []string{"QUERETARO", "CIUDAD DE MEXICO", "JALISCO", "NUEVO LEON"} {
		assert.GreaterOrEqual(t, cities[state], 8, state)
	}
	// Bogotá, Medellín and Lima have stores of their own networks: a chain
	// belongs to one country.
	for _, state := range []string{"CUNDINAMARCA", "ANTIOQUIA", "LIMA"} {
		assert.GreaterOrEqual(t, cities[state], 3, state)
	}
	for chain, cs := range countries {
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(cs))), 1, "the stores of %s are in one country", chain)
	}
}

func TestStoresReturnsACopy(t *testing.T) {
	t.Parallel()
	a := Mexico().All()
	require.NotEmpty(t, a)
	a[0].Name = "CHANGED"
	assert.NotEqual(t, "CHANGED", Mexico().All()[0].Name)
}

func TestHaversineKM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		lat1, lng1, lat2, lng2 float64
		want, delta            float64
	}{
		{"same point", 20.5888, -100.3899, 20.5888, -100.3899, 0, 1e-9},
		{"quarter meridian", 0, 0, 90, 0, math.Pi / 2 * earthRadiusKM, 1e-6},
		{"quarter equator", 0, 0, 0, 90, math.Pi / 2 * earthRadiusKM, 1e-6},
		{"antipodes", 0, 0, 0, 180, math.Pi * earthRadiusKM, 1e-6},
		// One degree of latitude is about 111.2 km.
		{"one degree north", 20, -100, 21, -100, 111.195, 0.01},
		// Zócalo (Mexico City) to Guadalajara cathedral, about 461 km.
		{"Mexico City to Guadalajara", 19.4326, -99.1332, 20.6767, -103.3475, 461, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, haversineKM(tt.lat1, tt.lng1, tt.lat2, tt.lng2), tt.delta)
			assert.InDelta(t, tt.want, haversineKM(tt.lat2, tt.lng2, tt.lat1, tt.lng1), tt.delta, "symmetric")
		})
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	const qroLat, qroLng = 20.5931, -100.3926 // Querétaro centre
	amt := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	tests := []struct {
		name          string
		lat, lng, km  float64
		amount        decimal.Decimal
		wantMin       int // at least this many results
		wantMax       int // at most this many, -1 for no bound
		wantState     string
		wantNoChain   []string
		wantSomeChain string
	}{
		{"small amount near Querétaro", qroLat, qroLng, 5, amt("100"), 5, -1, "QUERETARO", nil, "7-ELEVEN"},
		{"amount at 7-ELEVEN's limit", qroLat, qroLng, 5, amt("10000"), 1, -1, "QUERETARO", []string{"CIRCLE K", "K"}, "7-ELEVEN"},
		{"amount over 7-ELEVEN's limit", qroLat, qroLng, 5, amt("10000.01"), 1, -1, "QUERETARO", []string{"7-ELEVEN", "CIRCLE K", "K", "FARMACIAS DEL AHORRO"}, "EXTRA"},
		{"largest payment", qroLat, qroLng, 50, amt("99999.99"), 1, -1, "QUERETARO", []string{"SORIANA", "BODEGA AURRERA", "FARMACIAS GUADALAJARA"}, "EXTRA"},
		{"amount beyond every chain", qroLat, qroLng, 50, amt("100000"), 0, 0, "", nil, ""},
		{"Monterrey", 25.6714, -100.3094, 10, amt("500"), 5, -1, "NUEVO LEON", nil, ""},
		{"Guadalajara", 20.6767, -103.3475, 8, amt("500"), 5, -1, "JALISCO", nil, ""},
		{"Mexico City", 19.4150, -99.1650, 8, amt("500"), 5, -1, "CIUDAD DE MEXICO", nil, ""},
		{"middle of the Pacific", 10, -140, 100, amt("1"), 0, 0, "", nil, ""},
		{"tiny radius", qroLat, qroLng, 0.01, amt("1"), 0, 0, "", nil, ""},
		{"whole country", 23, -102, 2000, amt("1"), 44, -1, "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Mexico().Search(tt.lat, tt.lng, tt.km, tt.amount)
			assert.GreaterOrEqual(t, len(got), tt.wantMin)
			if tt.wantMax >= 0 {
				assert.LessOrEqual(t, len(got), tt.wantMax)
			}
			chains := map[string]bool{}
			for i, s := range got {
				chains[s.Chain.Name] = true
				assert.LessOrEqual(t, s.DistanceKM, tt.km)
				assert.InDelta(t, haversineKM(tt.lat, tt.lng, s.Lat, s.Lng), s.DistanceKM, 1e-9)
				assert.True(t, s.Chain.MaxAmount.GreaterThanOrEqual(tt.amount), "%s accepts the amount", s.Chain.Name)
				if tt.wantState != "" {
					assert.Equal(t, tt.wantState, s.Address.State)
				}
				if i > 0 {
					assert.GreaterOrEqual(t, s.DistanceKM, got[i-1].DistanceKM, "nearest first")
				}
			}
			for _, c := range tt.wantNoChain {
				assert.False(t, chains[c], "%s should be filtered out", c)
			}
			if tt.wantSomeChain != "" {
				assert.True(t, chains[tt.wantSomeChain], "%s should be found", tt.wantSomeChain)
			}
		})
	}
}

func TestSearchExcludesFartherStores(t *testing.T) {
	t.Parallel()
	// Every store within the radius is returned, and none beyond it.
	const lat, lng, km = 20.6, -100.4, 3.0
	got := Mexico().Search(lat, lng, km, decimal.NewFromInt(1))
	var want []int64
	for _, s := range Mexico().All() {
		if haversineKM(lat, lng, s.Lat, s.Lng) <= km {
			want = append(want, s.IDStore)
		}
	}
	var gotIDs []int64
	for _, s := range got {
		gotIDs = append(gotIDs, s.IDStore)
	}
	require.NotEmpty(t, want)
	slices.Sort(want)
	slices.Sort(gotIDs)
	assert.Equal(t, want, gotIDs)
}

func TestSortByDistance(t *testing.T) {
	t.Parallel()
	stores := []Store{
		{IDStore: 9, DistanceKM: 2},
		{IDStore: 7, DistanceKM: 1},
		{IDStore: 3, DistanceKM: 2},
		{IDStore: 5, DistanceKM: 1},
		{IDStore: 1, DistanceKM: 0.5},
	}
	sortByDistance(stores)
	var ids []int64
	for _, s := range stores {
		ids = append(ids, s.IDStore)
	}
	assert.Equal(t, []int64{1, 5, 7, 3, 9}, ids)
}

func TestSearchRejectsOddQueries(t *testing.T) {
	t.Parallel()
	one := decimal.NewFromInt(1)
	tests := []struct {
		name         string
		lat, lng, km float64
	}{
		{"zero radius", 20.59, -100.39, 0},
		{"negative radius", 20.59, -100.39, -5},
		{"infinite radius", 20.59, -100.39, math.Inf(1)},
		{"NaN radius", 20.59, -100.39, math.NaN()},
		{"NaN latitude", math.NaN(), -100.39, 5},
		{"NaN longitude", 20.59, math.NaN(), 5},
		{"latitude out of range", 91, -100.39, 5},
		{"longitude out of range", 20.59, -181, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Empty(t, Mexico().Search(tt.lat, tt.lng, tt.km, one))
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const chain = `{"name":"EXTRA","slug":"extra","max_amount":"99999.99"}`
	store := func(id, chain, date string) string {
		return `{"id_store":` + id + `,"id":1,"chain":"` + chain + `","name":"S","last_update":"` + date +
			`","lat":20,"lng":-100,"place_id":"ChIJx","address":{"line1":"A","line2":"B","state":"C","city":"D","postal_code":"76000","country_code":"MX"}}`
	}
	const okDate = "2024-01-02T03:04:05-06:00"
	tests := []struct {
		name, data string
		wantErr    bool
	}{
		{"valid", `{"chains":[` + chain + `],"stores":[` + store("1", "EXTRA", okDate) + `]}`, false},
		{"not JSON", `{"chains":`, true},
		{"unknown chain", `{"chains":[` + chain + `],"stores":[` + store("1", "SORIANA", okDate) + `]}`, true},
		{"duplicate id_store", `{"chains":[` + chain + `],"stores":[` + store("1", "EXTRA", okDate) + `,` + store("1", "EXTRA", okDate) + `]}`, true},
		{"bad date", `{"chains":[` + chain + `],"stores":[` + store("1", "EXTRA", "yesterday") + `]}`, true},
		{"bad amount", `{"chains":[{"name":"EXTRA","slug":"extra","max_amount":"lots"}],"stores":[]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set, err := Parse([]byte(tt.data))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			got := set.All()
			require.Len(t, got, 1)
			assert.Equal(t, "EXTRA", got[0].Chain.Name)
			assert.Equal(t, "99999.99", got[0].Chain.MaxAmount.StringFixed(2))
		})
	}
}
