package refserver

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
)

// Countries. Every merchant belongs to one of the gateway's countries
// (Mexico unless its MerchantConfig says otherwise), and this file is the
// one place that says what a country changes; handlers ask the merchant's
// rules rather than test the country themselves. The evidence, from the
// gateway's resource lists per country and the vendor's country modules
// (../shared/spec/facts-vendor.md, section 3):
//
//   - currencies: the account's own (MXN, COP, PEN), the default of every
//     charge, plus USD on card charges (Mexico also on IVR charges, as
//     before). Store charges take the own currency only, PSE COP only.
//   - payment methods: PSE (bank_account) only in Colombia, SPEI
//     (bank_account) only in Mexico, Alipay, IVR and card points only in
//     Mexico. A method the country lacks is 1003 naming method, as an
//     unknown method is.
//   - resources: Colombia has no payouts, transfers, bank accounts, card
//     points or groups; Peru neither, and no fees and no PSE; /pse exists
//     only in Colombia. Such a path answers 1005 with the unknown-path
//     description, as the gateway's router does for any path it lacks.
//   - webhook events: no payout, transfer, bank receipt or order events
//     outside Mexico, no fee events in Peru (1003 at webhook creation).
//   - instalments (payment_plan): 3, 6, 9, 12 or 18 in Mexico and Peru,
//     2 to 36 in Colombia (the WooCommerce plug-in's list); payments_type
//     (with or without interest) in Peru only.
//   - amounts: at most two decimals everywhere. Vendor clients disagree on
//     decimals in COP and PEN (one drops them, the plug-ins send two); the
//     server takes every form they send, so the rule is Mexico's.
//   - hosts: a server that plays a gateway host (Options.BaseURL
//     https://[sandbox-|dev-]api.openpay.mx) answers each merchant with its
//     own country's host; chain logos come from www.openpay.{mx,co,pe}.
//   - store data: stores near Bogotá, Medellín and Lima in their own
//     networks (package storedata), found by the same search; a receipt
//     names the networks of the merchant's country.
//   - time zone: every timestamp of a merchant's answers and events is in
//     its country's zone (Mexico City -06:00, Bogotá and Lima -05:00; the
//     Peruvian checkout echo in facts-vendor.md section 4 shows -0500), and
//     dates and date-times sent without an offset are read in it. None of
//     the three has daylight saving time, so fixed zones are exact; they
//     are the SDK's (openpay.Country.Location), so that client and server
//     agree on what day a list filter names (see gatewayZone, clock.go).

// countryRules is what a country decides.
type countryRules struct {
	code     openpay.Country
	domain   string           // the gateway's second-level domain: openpay.mx
	zone     *time.Location   // the zone of the merchant's timestamps
	currency openpay.Currency // the account's currency, the default of charges
	// usdRate is the default value of one US dollar in the account's
	// currency, applied to USD charges (Mexico's comes from Options).
	usdRate string
	// spei, pse, alipay, ivr, points: the payment methods besides card and
	// store.
	spei, pse, alipay, ivr, points bool
	// absent are literal path segments of the resources the country lacks.
	absent []string
	// noEvents are prefixes of the event types the country lacks.
	noEvents []string
	// instalmentsMin and instalmentsMax bound the number of monthly
	// instalments of a card charge (0: Mexico's 3, 6, 9, 12 or 18);
	// interestChoice: whether payment_plan takes payments_type.
	instalmentsMin, instalmentsMax int
	interestChoice                 bool
	// created are the operations whose success answers 201 Created in the
	// country rather than their route's status (the vendor's Peru suite
	// expects 201 from these four creates; its Colombia suite accepts 200
	// or 201, Mexico's clients read 200: openapi.yaml documents both).
	created []string
}

var (
	mexico = &countryRules{code: openpay.CountryMexico, domain: "openpay.mx", zone: gatewayZone, currency: openpay.CurrencyMXN,
		spei: true, alipay: true, ivr: true, points: true, absent: []string{"pse"}}
	colombia = &countryRules{code: openpay.CountryColombia, domain: "openpay.co", zone: openpay.CountryColombia.Location(), currency: openpay.CurrencyCOP,
		usdRate: "4000.0000", pse: true, instalmentsMin: 2, instalmentsMax: 36,
		absent:   []string{"payouts", "transfers", "bankaccounts", "points", "spei", "groups"},
		noEvents: []string{"payout.", "transfer.", "spei.", "order."}}
	peru = &countryRules{code: openpay.CountryPeru, domain: "openpay.pe", zone: openpay.CountryPeru.Location(), currency: openpay.CurrencyPEN,
		usdRate: "3.7500", interestChoice: true,
		created:  []string{"createCustomer", "createCustomerCard", "createCard", "createToken"},
		absent:   []string{"payouts", "transfers", "bankaccounts", "points", "spei", "groups", "fees", "pse"},
		noEvents: []string{"payout.", "transfer.", "spei.", "order.", "fee."}}
	countries = []*countryRules{mexico, colombia, peru}
)

// ParseCountry reads a country code in any case ("mx", "CO"); empty is
// Mexico. It is what the binary's --country flag and a seed's country
// member go through.
func ParseCountry(s string) (openpay.Country, error) {
	r, ok := rulesOf(openpay.Country(s))
	if !ok {
		return "", unknownCountry(s)
	}
	return r.code, nil
}

// unknownCountry is the one wording of a country the server does not know,
// for the binary's flags, seed files and openpaytest alike.
func unknownCountry(s string) error {
	return fmt.Errorf("unknown country %q (use MX, CO or PE, in any case)", truncateForMessage(s))
}

// rulesOf returns a country's rules; empty is Mexico.
func rulesOf(c openpay.Country) (*countryRules, bool) {
	if c == "" {
		return mexico, true
	}
	for _, r := range countries {
		if strings.EqualFold(string(c), string(r.code)) {
			return r, true
		}
	}
	return nil, false
}

// acceptsCurrency reports whether the merchant takes charges in cur (any
// case) by any payment method: its own currency and US dollars. It is the
// one answer to "which currencies does this merchant take" for code
// outside the charge handlers (checkouts).
func (m *merchant) acceptsCurrency(cur string) bool {
	return strings.EqualFold(cur, string(m.country.currency)) || strings.EqualFold(cur, string(openpay.CurrencyUSD))
}

// chargeCurrency checks the currency of a charge of the given kind (empty:
// the account's) and returns the one the charge is made in: the account's
// own currency for every kind, US dollars also for charges to a card (in
// Mexico also for IVR, as before). Anything else is 1003.
func (r *countryRules) chargeCurrency(kind chargeKind, cur openpay.Currency) (openpay.Currency, *Error) {
	if cur == "" || cur == r.currency {
		return r.currency, nil
	}
	usd := kind == kindCard || kind == kindRedirect || (kind == kindIVR && r.ivr)
	if cur == openpay.CurrencyUSD && usd {
		return cur, nil
	}
	if usd {
		return "", errorf(openpay.ErrInvalidParameter, "The field 'currency' must be %s or USD", r.currency)
	}
	return "", errorf(openpay.ErrInvalidParameter, "The field 'currency' must be %s", r.currency)
}

// planCurrency checks a plan's currency (its subscriptions charge a card):
// the account's own or US dollars; empty is the account's.
func (r *countryRules) planCurrency(cur openpay.Currency) (openpay.Currency, *Error) {
	return r.chargeCurrency(kindCard, cur)
}

// offers reports whether the country has the payment method of a charge
// kind.
func (r *countryRules) offers(kind chargeKind) bool {
	switch kind {
	case kindBank:
		return r.spei
	case kindPSE:
		return r.pse
	case kindAlipay:
		return r.alipay
	case kindIVR:
		return r.ivr
	}
	return true
}

// methodError is the answer to a charge by a method the country lacks: 1003
// naming method, as for a method the gateway does not know.
func (r *countryRules) methodError() *Error {
	methods := "card or store"
	switch {
	case r.pse:
		methods = "card, store or bank_account (PSE)"
	case r.spei:
		methods = "card, store, bank_account or alipay"
	}
	return errorf(openpay.ErrInvalidParameter, "The field 'method' must be %s for a merchant in %s", methods, r.code)
}

// hasRoute reports whether a route exists for the country's merchants: a
// route is absent when a literal segment of its pattern names a resource
// the country lacks. Group paths exist in Mexico only (AddGroup refuses
// other merchants), so they need no check here.
func (r *countryRules) hasRoute(rt *route) bool {
	for _, seg := range rt.segs {
		if seg != "" && slices.Contains(r.absent, seg) {
			return false
		}
	}
	return true
}

// successStatus is the status a route answers on success for the
// country's merchants.
func (r *countryRules) successStatus(rt *route) int {
	if slices.Contains(r.created, rt.operationID) {
		return http.StatusCreated
	}
	return rt.status
}

// zoneOf is the zone of a merchant's timestamps; no merchant (a route
// without one, a group's own resources) is Mexico's, the gateway's.
func zoneOf(m *merchant) *time.Location {
	if m == nil || m.country == nil {
		return gatewayZone
	}
	return m.country.zone
}

// nowFor returns the merchant's time (to the second, its own clock's or
// the server's, clock.go) in the merchant's zone: what every timestamp a
// merchant is answered starts from.
func (s *Server) nowFor(m *merchant) time.Time { return s.nowOf(m).In(zoneOf(m)) }

// absentSomewhere reports whether some country lacks the route, so that a
// request to its path with a method it does not take answers as the
// country's missing resource (ServeHTTP) rather than 405.
func absentSomewhere(rt *route) bool {
	for _, r := range countries {
		if !r.hasRoute(rt) {
			return true
		}
	}
	return false
}

// hasEvent reports whether the country's merchants can receive an event
// type.
func (r *countryRules) hasEvent(t openpay.EventType) bool {
	for _, p := range r.noEvents {
		if strings.HasPrefix(string(t), p) {
			return false
		}
	}
	return true
}

// gatewayHost matches a base URL that is one of the gateway's own hosts.
var gatewayHost = regexp.MustCompile(`^(https://(?:sandbox-|dev-)?api\.)openpay\.(?:mx|co|pe)$`)

// hostFor returns base as the country's merchants see it: a base URL that
// is a gateway host of any country becomes the same host of this country
// (a server playing sandbox-api.openpay.mx hands a Colombian merchant
// sandbox-api.openpay.co URLs); any other base (the server's own address)
// is kept, since the URLs must lead back to this server.
func (r *countryRules) hostFor(base string) string {
	if m := gatewayHost.FindStringSubmatch(base); m != nil {
		return m[1] + r.domain
	}
	return base
}

// instalmentChoices lists the numbers of monthly instalments the country
// takes (checkInstalments), in order.
func (r *countryRules) instalmentChoices() []int {
	if r.instalmentsMax == 0 {
		return []int{3, 6, 9, 12, 18}
	}
	n := make([]int, 0, r.instalmentsMax-r.instalmentsMin+1)
	for i := r.instalmentsMin; i <= r.instalmentsMax; i++ {
		n = append(n, i)
	}
	return n
}

// checkInstalments checks a card charge's payment_plan for the country
// (1003).
func (r *countryRules) checkInstalments(plan *openpay.PaymentPlan) *Error {
	n := int(plan.Payments)
	switch {
	case r.instalmentsMax > 0 && (n < r.instalmentsMin || n > r.instalmentsMax):
		return errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments' must be from %d to %d", r.instalmentsMin, r.instalmentsMax)
	case r.instalmentsMax == 0 && !slices.Contains(r.instalmentChoices(), n):
		return errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments' must be 3, 6, 9, 12 or 18")
	case plan.PaymentsType != "" && !r.interestChoice:
		return errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments_type' is taken in Peru only")
	case plan.PaymentsType != "" && !plan.PaymentsType.Valid():
		return errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments_type' must be WITH_INTEREST or WITHOUT_INTEREST")
	}
	return nil
}
