// Package gatewayhost is the one list of the gateway's hosts: for each
// country, the sandbox's and production's (api.openpay.mx and
// sandbox-api.openpay.mx, and the same under .co and .pe). The client picks
// its base URL here, and the conformance recorder tells the sandbox from
// production and from other hosts with it.
package gatewayhost

import "strings"

type hosts struct{ sandbox, production string }

// byCountry is keyed by the country code of openpay.Country.
var byCountry = map[string]hosts{
	"MX": {"sandbox-api.openpay.mx", "api.openpay.mx"},
	"CO": {"sandbox-api.openpay.co", "api.openpay.co"},
	"PE": {"sandbox-api.openpay.pe", "api.openpay.pe"},
}

// BaseURL returns the https base URL of country's sandbox or production
// host, and false for a country the gateway does not serve.
func BaseURL(country string, production bool) (string, bool) {
	h, ok := byCountry[country]
	if !ok {
		return "", false
	}
	if production {
		return "https://" + h.production, true
	}
	return "https://" + h.sandbox, true
}

// Lookup tells whose host name is (any case, a trailing dot allowed, no
// port): the country code, whether it is a production host, and false when
// it is none of the gateway's hosts.
func Lookup(host string) (country string, production, ok bool) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for c, h := range byCountry {
		switch host {
		case h.sandbox:
			return c, false, true
		case h.production:
			return c, true, true
		}
	}
	return "", false, false
}
