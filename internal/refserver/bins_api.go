package refserver

import (
	"net/http"

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

// registerBINs registers the BIN lookup.
func (s *Server) registerBINs(r *routeTable) {
	r.add("getBin", http.MethodGet, "/v1/{merchant_id}/bines/{bin}", http.StatusOK, s.getBIN)
}

// getBIN answers the issuer data of a BIN.
func (s *Server) getBIN(c *call) (any, *Error) {
	bin := c.param("bin")
	if len(bin) != 6 || !ascii.Digits(bin) {
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'bin' must be six digits")
	}
	for _, tc := range cardnum.TestCards() {
		if tc.Number[:6] != bin {
			continue
		}
		return openpay.CardBIN{
			BIN: bin, Bank: tc.BankName, BankCode: tc.BankCode, Brand: tc.Brand, Type: tc.Type,
			Category: BINCategory, Country: "Mexico", CountryCode: "MX",
			AllowedOnline: tc.Outcome.Code != cardnum.CodeCardNotOnline, AllowedSantanderPoints: tc.PointsCard,
		}, nil
	}
	return nil, errNotFound("bin", bin)
}
