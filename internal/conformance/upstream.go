package conformance

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/openpay-go/openpay/internal/gatewayhost"

	"github.com/openpay-go/openpay"
)

// gatewayHost reports whether host (no port) is one of the gateway's.
func gatewayHost(host string) bool {
	_, _, ok := gatewayhost.Lookup(host)
	return ok
}

// ErrProductionUpstream refuses recording against the gateway's production
// hosts: live payments and real card data have no place in a cassette.
var ErrProductionUpstream = errors.New("the gateway's production hosts cannot be recorded; record against the sandbox")

// CheckUpstream parses the base URL to record against and returns it with
// the merchant's country. The gateway's sandbox hosts (over https) are
// accepted; its production hosts never are; any other host only when
// allowOther is true (a stub upstream in tests, a proxy of the merchant's
// own). country, when not empty, must be the sandbox host's; empty, it is
// the host's, or Mexico for another host.
func CheckUpstream(base string, allowOther bool, country openpay.Country) (*url.URL, openpay.Country, error) {
	// The messages never repeat what was given: a URL may carry a key.
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, "", errors.New("upstream: want a base URL with no credentials, path or query, such as https://sandbox-api.openpay.mx")
	}
	u.Path = ""
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if code, production, ok := gatewayhost.Lookup(host); ok {
		if production {
			return nil, "", ErrProductionUpstream
		}
		c := openpay.Country(code)
		if u.Scheme != "https" {
			return nil, "", fmt.Errorf("upstream %s: the sandbox is reached over https", host)
		}
		if country != "" && country != c {
			return nil, "", fmt.Errorf("country %s does not match upstream %s (%s)", country, host, c)
		}
		return u, c, nil
	}
	if !allowOther {
		return nil, "", fmt.Errorf("upstream %s is not a sandbox host of the gateway (sandbox-api.openpay.mx, .co, .pe); allow it explicitly to record against it", host)
	}
	if country == "" {
		country = openpay.CountryMexico
	}
	return u, country, nil
}
