package refserver

import (
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
)

// Countries. What a merchant's country changes is package countryrules'
// (its doc gives the evidence); this file holds the server's side of it,
// what depends on the server's own types: the currencies of the kinds of
// charge, the payment methods of the kinds, the routes and the zone of a
// merchant.

// ParseCountry reads a country code in any case ("mx", "CO"); empty is
// Mexico. It is what the binary's --country flag and a seed's country
// member go through ([countryrules.Parse]).
func ParseCountry(s string) (openpay.Country, error) { return countryrules.Parse(s) }

// acceptsCurrency reports whether the merchant takes charges in cur (any
// case) by any payment method: its own currency and US dollars. It is the
// one answer to "which currencies does this merchant take" for code
// outside the charge handlers (checkouts).
func (m *merchant) acceptsCurrency(cur string) bool {
	return strings.EqualFold(cur, string(m.country.Currency)) || strings.EqualFold(cur, string(openpay.CurrencyUSD))
}

// chargeCurrency checks the currency of a charge of the given kind (empty:
// the account's) in the country of r and returns the one the charge is
// made in: the account's own currency for every kind, US dollars also for
// charges to a card (in Mexico also for IVR, as before). Anything else is
// 1003.
func chargeCurrency(r *countryrules.Rules, kind chargeKind, cur openpay.Currency) (openpay.Currency, *Error) {
	if cur == "" || cur == r.Currency {
		return r.Currency, nil
	}
	usd := kind == kindCard || kind == kindRedirect || (kind == kindIVR && r.IVR)
	if cur == openpay.CurrencyUSD && usd {
		return cur, nil
	}
	if usd {
		return "", errorf(openpay.ErrInvalidParameter, "The field 'currency' must be %s or USD", r.Currency)
	}
	return "", errorf(openpay.ErrInvalidParameter, "The field 'currency' must be %s", r.Currency)
}

// planCurrency checks a plan's currency (its subscriptions charge a card):
// the account's own or US dollars; empty is the account's.
func planCurrency(r *countryrules.Rules, cur openpay.Currency) (openpay.Currency, *Error) {
	return chargeCurrency(r, kindCard, cur)
}

// offers reports whether the country of r has the payment method of a
// charge kind.
func offers(r *countryrules.Rules, kind chargeKind) bool {
	switch kind {
	case kindBank:
		return r.SPEI
	case kindPSE:
		return r.PSE
	case kindAlipay:
		return r.Alipay
	case kindIVR:
		return r.IVR
	}
	return true
}

// hasRoute reports whether a route exists for the merchants of the country
// of r: a route is absent when a literal segment of its pattern names a
// resource the country lacks. Group paths exist in Mexico only (AddGroup
// refuses other merchants), so they need no check here.
func hasRoute(r *countryrules.Rules, rt *route) bool { return r.HasPath(rt.segs) }

// successStatus is the status a route answers on success for the
// merchants of the country of r.
func successStatus(r *countryrules.Rules, rt *route) int { return r.Status(rt.operationID, rt.status) }

// zoneOf is the zone of a merchant's timestamps; no merchant (a route
// without one, a group's own resources) is Mexico's, the gateway's.
func zoneOf(m *merchant) *time.Location {
	if m == nil || m.country == nil {
		return gatewayZone
	}
	return m.country.Zone
}

// nowFor returns the merchant's time (to the second, its own clock's or
// the server's, clock.go) in the merchant's zone: what every timestamp a
// merchant is answered starts from.
func (s *Server) nowFor(m *merchant) time.Time { return s.nowOf(m).In(zoneOf(m)) }

// absentSomewhere reports whether some country lacks the route, so that a
// request to its path with a method it does not take answers as the
// country's missing resource (ServeHTTP) rather than 405.
func absentSomewhere(rt *route) bool { return countryrules.LackedSomewhere(rt.segs) }
