// Package countryrules holds what a country decides in the reference
// server. Every merchant belongs to one of the gateway's countries (Mexico
// unless its MerchantConfig says otherwise), and its [Rules] are the one
// place that says what the country changes; handlers ask the merchant's
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
//     agree on what day a list filter names (the server's gatewayZone, clock.go, is Mexico's).
//
// Contract: [Mexico], [Colombia] and [Peru] are the only Rules, shared and
// never changed, so a merchant's rules compare by pointer; [Of] finds them
// by code. The package decides currencies, instalments, hosts, paths and
// event types by the country's tables alone. It does not own the
// merchants, the routes or the charge kinds: the server asks [Rules.HasPath]
// with a route's literal segments and [Rules.Status] with its operation id,
// and decides itself which currency a kind of charge takes from the
// account's own ([Rules.Currency]). Its errors are the gateway's error
// objects (package apierr).
package countryrules

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
)

// Rules are what a country decides.
type Rules struct {
	// Code is the country's code.
	Code openpay.Country
	// Domain is the gateway's second-level domain: openpay.mx.
	Domain string
	// Zone is the zone of the merchant's timestamps.
	Zone *time.Location
	// Currency is the account's currency, the default of charges.
	Currency openpay.Currency
	// USDRate is the default value of one US dollar in the account's
	// currency, applied to USD charges (Mexico's comes from the server's
	// options, so it is empty here).
	USDRate string
	// SPEI, PSE, Alipay, IVR, Points: the payment methods besides card and
	// store.
	SPEI, PSE, Alipay, IVR, Points bool
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

// The countries' rules.
var (
	// Mexico's rules; its zone is the gateway's.
	Mexico = &Rules{Code: openpay.CountryMexico, Domain: "openpay.mx", Zone: openpay.CountryMexico.Location(), Currency: openpay.CurrencyMXN,
		SPEI: true, Alipay: true, IVR: true, Points: true, absent: []string{"pse"}}
	// Colombia's rules.
	Colombia = &Rules{Code: openpay.CountryColombia, Domain: "openpay.co", Zone: openpay.CountryColombia.Location(), Currency: openpay.CurrencyCOP,
		USDRate: "4000.0000", PSE: true, instalmentsMin: 2, instalmentsMax: 36,
		absent:   []string{"payouts", "transfers", "bankaccounts", "points", "spei", "groups"},
		noEvents: []string{"payout.", "transfer.", "spei.", "order."}}
	// Peru's rules.
	Peru = &Rules{Code: openpay.CountryPeru, Domain: "openpay.pe", Zone: openpay.CountryPeru.Location(), Currency: openpay.CurrencyPEN,
		USDRate: "3.7500", interestChoice: true,
		created:  []string{"createCustomer", "createCustomerCard", "createCard", "createToken"},
		absent:   []string{"payouts", "transfers", "bankaccounts", "points", "spei", "groups", "fees", "pse"},
		noEvents: []string{"payout.", "transfer.", "spei.", "order.", "fee."}}
	// All are the rules of every country, Mexico first.
	All = []*Rules{Mexico, Colombia, Peru}
)

// Of returns a country's rules, its code in any case; empty is Mexico.
func Of(c openpay.Country) (*Rules, bool) {
	if c == "" {
		return Mexico, true
	}
	for _, r := range All {
		if strings.EqualFold(string(c), string(r.Code)) {
			return r, true
		}
	}
	return nil, false
}

// Parse reads a country code in any case ("mx", "CO"); empty is Mexico.
// An unknown code is the one wording of a country the server does not
// know, for the binary's flags, seed files and openpaytest alike.
func Parse(s string) (openpay.Country, error) {
	r, ok := Of(openpay.Country(s))
	if !ok {
		return "", Unknown(s)
	}
	return r.Code, nil
}

// Unknown is the error of a country code the server does not know.
func Unknown(s string) error {
	return fmt.Errorf("unknown country %q (use MX, CO or PE, in any case)", apierr.Truncate(s))
}

// LackedSomewhere reports whether some country lacks the route whose
// pattern has the literal segments segs (HasPath).
func LackedSomewhere(segs []string) bool {
	for _, r := range All {
		if !r.HasPath(segs) {
			return true
		}
	}
	return false
}

// MethodError is the answer to a charge by a method the country lacks:
// 1003 naming method, as for a method the gateway does not know.
func (r *Rules) MethodError() *apierr.Error {
	methods := "card or store"
	switch {
	case r.PSE:
		methods = "card, store or bank_account (PSE)"
	case r.SPEI:
		methods = "card, store, bank_account or alipay"
	}
	return apierr.Errorf(openpay.ErrInvalidParameter, "The field 'method' must be %s for a merchant in %s", methods, r.Code)
}

// HasPath reports whether a route whose pattern has the literal segments
// segs (empty for a parameter) exists for the country's merchants: it is
// absent when a segment names a resource the country lacks.
func (r *Rules) HasPath(segs []string) bool {
	for _, seg := range segs {
		if seg != "" && slices.Contains(r.absent, seg) {
			return false
		}
	}
	return true
}

// Status is the status a route of the operation op answers on success for
// the country's merchants, where the route's own is status.
func (r *Rules) Status(op string, status int) int {
	if slices.Contains(r.created, op) {
		return http.StatusCreated
	}
	return status
}

// HasEvent reports whether the country's merchants can receive an event
// type.
func (r *Rules) HasEvent(t openpay.EventType) bool {
	for _, p := range r.noEvents {
		if strings.HasPrefix(string(t), p) {
			return false
		}
	}
	return true
}

// gatewayHost matches a base URL that is one of the gateway's own hosts.
var gatewayHost = regexp.MustCompile(`^(https://(?:sandbox-|dev-)?api\.)openpay\.(?:mx|co|pe)$`)

// HostFor returns base as the country's merchants see it: a base URL that
// is a gateway host of any country becomes the same host of this country
// (a server playing sandbox-api.openpay.mx hands a Colombian merchant
// sandbox-api.openpay.co URLs); any other base (the server's own address)
// is kept, since the URLs must lead back to this server.
func (r *Rules) HostFor(base string) string {
	if m := gatewayHost.FindStringSubmatch(base); m != nil {
		return m[1] + r.Domain
	}
	return base
}

// InstalmentChoices lists the numbers of monthly instalments the country
// takes (CheckInstalments), in order.
func (r *Rules) InstalmentChoices() []int {
	if r.instalmentsMax == 0 {
		return []int{3, 6, 9, 12, 18}
	}
	n := make([]int, 0, r.instalmentsMax-r.instalmentsMin+1)
	for i := r.instalmentsMin; i <= r.instalmentsMax; i++ {
		n = append(n, i)
	}
	return n
}

// CheckInstalments checks a card charge's payment_plan for the country
// (1003).
func (r *Rules) CheckInstalments(plan *openpay.PaymentPlan) *apierr.Error {
	n := int(plan.Payments)
	switch {
	case r.instalmentsMax > 0 && (n < r.instalmentsMin || n > r.instalmentsMax):
		return apierr.Errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments' must be from %d to %d", r.instalmentsMin, r.instalmentsMax)
	case r.instalmentsMax == 0 && !slices.Contains(r.InstalmentChoices(), n):
		return apierr.Errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments' must be 3, 6, 9, 12 or 18")
	case plan.PaymentsType != "" && !r.interestChoice:
		return apierr.Errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments_type' is taken in Peru only")
	case plan.PaymentsType != "" && !plan.PaymentsType.Valid():
		return apierr.Errorf(openpay.ErrInvalidParameter, "The field 'payment_plan.payments_type' must be WITH_INTEREST or WITHOUT_INTEREST")
	}
	return nil
}
