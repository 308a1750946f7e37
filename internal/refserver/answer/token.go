package answer

import (
	"time"

	"github.com/openpay-go/openpay"
)

// Token is a token as the gateway answers it. The SDK reads a token's card
// as an [openpay.Card], whose stored-card members (allows_charges,
// bank_name, type...) a token's card does not carry: the server answers
// with this type, which has the members of openapi.yaml's TokenCard schema
// alone. It has the key plan of the schema of its name, as the wire types
// of package openpay do.
type Token struct {
	Card TokenCard `json:"card"`
	ID   string    `json:"id"`
}

// TokenCard is the masked card of a [Token].
type TokenCard struct {
	Address         *openpay.Address  `json:"address,omitempty"`
	Brand           openpay.CardBrand `json:"brand"`
	CardNumber      string            `json:"card_number"`
	CreationDate    time.Time         `json:"creation_date,omitzero"`
	ExpirationMonth string            `json:"expiration_month"`
	ExpirationYear  string            `json:"expiration_year"`
	HolderName      string            `json:"holder_name"`
	PointsCard      bool              `json:"points_card,omitzero"`
}
