package openpay

import (
	"encoding/json"
	"time"
)

// WebhookEvent is the body of an event delivery. A decoded event keeps the
// body as delivered: the gateway adds event types without notice, and for
// those the body is all there is.
type WebhookEvent struct {
	EventDate time.Time `json:"event_date"`

	// Transaction is the transaction the event is about; nil on
	// verification events.
	Transaction *Transaction `json:"transaction,omitempty"`

	// Type is the event type. Types the SDK does not list arrive unchanged.
	Type EventType `json:"type"`

	// VerificationCode (verification events) is the code that verifies the
	// webhook.
	VerificationCode string `json:"verification_code,omitempty,omitzero"`

	// Raw is the JSON body the event was decoded from (nil for an event
	// built in code). It is never encoded.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes an event and keeps a copy of its body in Raw.
func (ev *WebhookEvent) UnmarshalJSON(b []byte) error {
	type plain WebhookEvent // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	p.Raw = append(json.RawMessage(nil), b...)
	*ev = WebhookEvent(p)
	return nil
}

// EventPayload is what an event is about, typed by its kind: see
// [WebhookEvent.Payload]. Its dynamic type is one of *VerificationEvent,
// *ChargeEvent, *ChargebackEvent, *SubscriptionChargeEvent,
// *BankReceiptEvent, *PayoutEvent, *TransferEvent, *FeeEvent,
// *FeeRefundEvent or *UnknownEvent; a type switch picks the kinds a
// receiver handles.
type EventPayload interface{ eventPayload() }

// VerificationEvent is the event the gateway sends to a webhook's URL when
// the webhook is created (type verification).
type VerificationEvent struct {
	// Code verifies the webhook ([WebhooksService.Verify]); answering the
	// delivery 2xx verifies it too.
	Code string
}

// ChargeEvent is a change of a charge: charge.created, charge.succeeded,
// charge.failed, charge.cancelled, charge.refunded,
// charge.rescored.to.decline, and transaction.expired (a Colombian PSE
// charge left unpaid, now cancelled).
type ChargeEvent struct{ Charge *Transaction }

// ChargebackEvent is a dispute of a charge: chargeback.created,
// chargeback.accepted and chargeback.rejected. Charge is the disputed
// charge; its status says where the dispute stands.
type ChargebackEvent struct{ Charge *Transaction }

// SubscriptionChargeEvent is a subscription's charge that failed
// (subscription.charge.failed).
type SubscriptionChargeEvent struct{ Charge *Transaction }

// BankReceiptEvent is a bank transfer (SPEI) received into the account
// (spei.received). Receipt is a transaction of type charge, method
// bank_account.
type BankReceiptEvent struct{ Receipt *Transaction }

// PayoutEvent is a change of a payout: payout.created, payout.succeeded
// and payout.failed.
type PayoutEvent struct{ Payout *Transaction }

// TransferEvent is a transfer between customers (transfer.succeeded).
type TransferEvent struct{ Transfer *Transaction }

// FeeEvent is a fee charged to a customer (fee.succeeded).
type FeeEvent struct{ Fee *Transaction }

// FeeRefundEvent is a fee given back to a customer (fee.refund.succeeded):
// Refund is the refund transaction.
type FeeRefundEvent struct{ Refund *Transaction }

// UnknownEvent is an event the SDK cannot type: an event type it does not
// know (the order.* types, whose payload Openpay does not document, and any
// type the gateway adds), or a known type whose body lacks what that type
// carries.
// Raw is the body as delivered.
type UnknownEvent struct {
	Type        EventType
	Transaction *Transaction
	Raw         json.RawMessage
}

func (*VerificationEvent) eventPayload()       {}
func (*ChargeEvent) eventPayload()             {}
func (*ChargebackEvent) eventPayload()         {}
func (*SubscriptionChargeEvent) eventPayload() {}
func (*BankReceiptEvent) eventPayload()        {}
func (*PayoutEvent) eventPayload()             {}
func (*TransferEvent) eventPayload()           {}
func (*FeeEvent) eventPayload()                {}
func (*FeeRefundEvent) eventPayload()          {}
func (*UnknownEvent) eventPayload()            {}

// Payload returns what the event is about, typed by its kind (see
// [EventPayload]). It never fails: an event it cannot type, because its
// type is new or its body is not what the type carries (no transaction, or
// one of another kind), comes back as an *UnknownEvent with the body kept.
func (ev WebhookEvent) Payload() EventPayload {
	t := ev.Transaction
	carries := func(typ TransactionType) bool { return t != nil && t.TransactionType == typ }
	switch ev.Type {
	case EventTypeVerification:
		if t == nil && ev.VerificationCode != "" {
			return &VerificationEvent{Code: ev.VerificationCode}
		}
	case EventTypeChargeCreated, EventTypeChargeSucceeded, EventTypeChargeFailed, EventTypeChargeCancelled,
		EventTypeChargeRefunded, EventTypeChargeRescoredToDecline, EventTypeTransactionExpired:
		if carries(TransactionTypeCharge) {
			return &ChargeEvent{Charge: t}
		}
	case EventTypeChargebackCreated, EventTypeChargebackAccepted, EventTypeChargebackRejected:
		if carries(TransactionTypeCharge) {
			return &ChargebackEvent{Charge: t}
		}
	case EventTypeSubscriptionChargeFailed:
		if carries(TransactionTypeCharge) {
			return &SubscriptionChargeEvent{Charge: t}
		}
	case EventTypeSPEIReceived:
		if carries(TransactionTypeCharge) {
			return &BankReceiptEvent{Receipt: t}
		}
	case EventTypePayoutCreated, EventTypePayoutSucceeded, EventTypePayoutFailed:
		if carries(TransactionTypePayout) {
			return &PayoutEvent{Payout: t}
		}
	case EventTypeTransferSucceeded:
		if carries(TransactionTypeTransfer) {
			return &TransferEvent{Transfer: t}
		}
	case EventTypeFeeSucceeded:
		if carries(TransactionTypeFee) {
			return &FeeEvent{Fee: t}
		}
	case EventTypeFeeRefundSucceeded:
		if carries(TransactionTypeRefund) {
			return &FeeRefundEvent{Refund: t}
		}
	}
	return &UnknownEvent{Type: ev.Type, Transaction: t, Raw: ev.Raw}
}
