// Package eventwire holds the reference server's events in the form a
// webhook delivers them.
//
// Contract:
//   - [Event] is something that happened to a merchant's transaction: its
//     id, its merchant, its type, when it happened and the transaction as
//     it stood then. It is a value: nothing the server does afterwards
//     changes it.
//   - [Event.Wire] is the openpay.WebhookEvent a delivery carries, and
//     [Event.Body] its JSON exactly as the gateway sends it: the members
//     the gateway sends as null when they are empty are there
//     (answer.AddWireKeys), so that a receiver sees the gateway's shape.
package eventwire

import (
	"encoding/json"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/answer"
)

// Event is something that happened to a merchant's transaction, as a
// webhook delivers it: its type, when it happened and the transaction as it
// stood then.
type Event struct {
	// ID identifies the event within the server.
	ID string
	// MerchantID is the merchant the event belongs to.
	MerchantID string
	// Type is the event type (charge.succeeded, ...).
	Type openpay.EventType
	// Date is when the event happened (server clock).
	Date time.Time
	// Transaction is the transaction the event is about, as it stood when
	// the event happened.
	Transaction openpay.Transaction
}

// Wire returns the event as a webhook delivers it.
func (e Event) Wire() openpay.WebhookEvent {
	t := e.Transaction
	return openpay.WebhookEvent{Type: e.Type, EventDate: e.Date, Transaction: &t}
}

// Body is the event's JSON as a webhook delivery carries it.
func (e Event) Body() ([]byte, error) {
	wire := e.Wire()
	body, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	return answer.AddWireKeys(body, wire), nil
}
