package refserver

import (
	"net/http"
	"strings"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/ascii"
	"github.com/openpay-go/openpay/internal/cardnum"
)

// BIN lookup (/v1/{merchant_id}/bines/{bin}), which the Java and PHP SDKs
// call and the reference does not document. The server knows the BINs of
// its test cards only: a BIN answers the issuer data of the first card of
// the test-card table whose number starts with it (the chosen numbers that
// begin 400000 share one BIN, whose bank is then that of 4000000000000069).
// allowed_online is false for the BIN of the card that answers 3008 (not
// usable online), allowed_santander_points true for that of the points
// card. The issuers are Mexican (MX). The gateway publishes no category
// values: the server answers BINCategory for every BIN. A BIN that is not
// six digits answers 1003; one no test card starts with answers 1005.

// BINCategory is the category the server answers for every BIN.
const BINCategory = "consumer"

// registerBINs registers the BIN lookup and the plug-ins' BIN checks.
func (s *Server) registerBINs(r *routeTable) {
	r.add("getBin", http.MethodGet, "/v1/{merchant_id}/bines/{bin}", http.StatusOK, s.getBIN)
	r.add("getBinCardType", http.MethodGet, "/v1/{merchant_id}/bines/man/{bin}", http.StatusOK, s.getBINCardType)
	r.add("getBinPromotions", http.MethodGet, "/v1/{merchant_id}/bines/{bin}/promotions", http.StatusOK, s.getBINPromotions).noAuth()
	r.add("validateBin", http.MethodGet, "/v1/cards/validate-bin", http.StatusOK, s.validateBIN).noAuth()
}

// binCard returns the first test card whose number starts with bin, which
// must be from six to maxLen digits (1003 otherwise; 1005 when no test card
// starts with it).
func binCard(bin string, maxLen int) (cardnum.TestCard, *Error) {
	if len(bin) < 6 || len(bin) > maxLen || !ascii.Digits(bin) {
		if maxLen == 6 {
			return cardnum.TestCard{}, errorf(openpay.ErrInvalidParameter, "The field 'bin' must be six digits")
		}
		return cardnum.TestCard{}, errorf(openpay.ErrInvalidParameter, "The field 'bin' must be six to %d digits", maxLen)
	}
	for _, tc := range cardnum.TestCards() {
		if strings.HasPrefix(tc.Number, bin) {
			return tc, nil
		}
	}
	return cardnum.TestCard{}, errNotFound("bin", bin)
}

// getBIN answers the issuer data of a BIN.
func (s *Server) getBIN(c *call) (any, *Error) {
	bin := c.param("bin")
	tc, e := binCard(bin, 6)
	if e != nil {
		return nil, e
	}
	return openpay.CardBIN{
		BIN: bin, Bank: tc.BankName, BankCode: tc.BankCode, Brand: openpay.CardBrand(tc.Brand), Type: openpay.CardType(tc.Type),
		Category: BINCategory, Country: "Mexico", CountryCode: "MX",
		AllowedOnline: tc.Outcome.Code != cardnum.CodeCardNotOnline, AllowedSantanderPoints: tc.PointsCard,
	}, nil
}

// The plug-ins' BIN checks (openapi.yaml): the WooCommerce and Magento 2
// plug-ins send the first six or eight digits typed and compare the type
// with CREDIT, so these answers write it in capitals.

// pluginBINDigits is the longest BIN the plug-ins send (eight digits, WC
// 4.x "consulta de bines a 8 dígitos"; six from a saved card).
const pluginBINDigits = 8

// The answers of the Mexican and the Colombian checks (openapi.yaml
// BinCardType, BinValidation): the SDK reads them only to answer a
// CardType, so its wire types for them are unexported.
type (
	binCardTypeAnswer struct {
		BIN  string `json:"bin"`
		Type string `json:"type"`
	}
	binValidationAnswer struct {
		CardType string `json:"card_type"`
	}
)

// getBINCardType answers the Mexican plug-ins' check: the BIN and its type.
func (s *Server) getBINCardType(c *call) (any, *Error) {
	bin := c.param("bin")
	tc, e := binCard(bin, pluginBINDigits)
	if e != nil {
		return nil, e
	}
	return binCardTypeAnswer{BIN: bin, Type: strings.ToUpper(tc.Type)}, nil
}

// validateBIN answers the Colombian plug-ins' check (no merchant, no
// credentials).
func (s *Server) validateBIN(c *call) (any, *Error) {
	tc, e := binCard(c.query.Get("bin"), pluginBINDigits)
	if e != nil {
		return nil, e
	}
	return binValidationAnswer{CardType: strings.ToUpper(tc.Type)}, nil
}

// getBINPromotions answers the Peruvian plug-ins' check (no credentials):
// a credit BIN may pay in the merchant's country's instalments, with
// interest; a debit BIN in none. The gateway's own numbers and interest are
// not shown: these are the server's.
func (s *Server) getBINPromotions(c *call) (any, *Error) {
	m := s.merchantByID(c.param("merchant_id"))
	if m == nil {
		return nil, errNotFound("merchant", c.param("merchant_id"))
	}
	tc, e := binCard(c.param("bin"), pluginBINDigits)
	if e != nil {
		return nil, e
	}
	credit := strings.EqualFold(tc.Type, "credit")
	p := openpay.BINPromotions{CardType: openpay.CardType(strings.ToUpper(tc.Type)), Installments: []int{}, WithInterest: &credit}
	if credit {
		p.Installments = m.country.InstalmentChoices()
	}
	return p, nil
}
