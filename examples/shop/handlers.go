package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
)

// Handler returns the shop's HTTP API:
//
//	POST /orders                 description, total, name, email: a new order
//	GET  /orders/{id}            the order
//	POST /orders/{id}/card       token_id, device_session_id: pay with the token the page made
//	POST /orders/{id}/store      pay in cash at a store: the order shows the reference
//	POST /orders/{id}/refund     amount (empty: all that is left); for staff only
//	POST /webhooks/openpay       the gateway's events (HTTP Basic user and password)
//
// Put the refund endpoint behind your staff's authentication.
func (s *Shop) Handler(hookUser, hookPassword string) (http.Handler, error) {
	hook, err := webhookHandler(hookUser, hookPassword, s.HandleEvent, s.log)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders", s.createOrder)
	mux.HandleFunc("GET /orders/{id}", s.getOrder)
	mux.HandleFunc("POST /orders/{id}/card", s.payByCard)
	mux.HandleFunc("POST /orders/{id}/store", s.payAtStore)
	mux.HandleFunc("POST /orders/{id}/refund", s.refund)
	mux.Handle("POST /webhooks/openpay", hook)
	return mux, nil
}

// webhookHandler is the receiver at the webhook's URL. The gateway may
// deliver an event more than once: Deduplicate skips the ones already
// handled (one process; several share an openpay.EventStore), and handle
// is safe to run twice anyway. A handle that panics answers 500, logged to
// log, and the gateway delivers the event again.
func webhookHandler(user, password string, handle func(context.Context, *openpay.WebhookEvent) error, log *slog.Logger) (http.Handler, error) {
	events := openpay.NewMemoryEventStore(10000)
	return openpay.WebhookHandler(user, password, openpay.Deduplicate(events, handle), openpay.WithWebhookLogger(log))
}

// HandleEvent handles one event of the gateway. The body is not signed, so
// it only says which charge changed: the charge is read from the API. An
// error answers 500, and the gateway delivers the event again later.
func (s *Shop) HandleEvent(ctx context.Context, ev *openpay.WebhookEvent) error {
	switch ev.Type {
	case openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeFailed, openpay.EventTypeChargeCancelled:
	default:
		return nil // the verification event, and events the shop has no use for
	}
	if ev.Transaction == nil {
		return nil
	}
	ch, err := s.c.Charges.Get(ctx, ev.Transaction.ID)
	if err != nil {
		return err
	}
	s.applyCharge(ch)
	return nil
}

func (s *Shop) createOrder(w http.ResponseWriter, r *http.Request) {
	total, err := openpay.NewAmount(r.FormValue("total"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "total: "+err.Error())
		return
	}
	o, err := s.NewOrder(r.FormValue("description"), total,
		openpay.ChargeCustomer{Name: r.FormValue("name"), Email: r.FormValue("email")})
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, o)
}

func (s *Shop) getOrder(w http.ResponseWriter, r *http.Request) {
	o, ok := s.Order(r.PathValue("id"))
	if !ok {
		writeError(w, http.StatusNotFound, ErrOrderNotFound.Error())
		return
	}
	writeJSON(w, http.StatusOK, o)
}

func (s *Shop) payByCard(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := paymentContext(r)
	defer cancel()
	o, err := s.PayByCard(ctx, r.PathValue("id"), r.FormValue("token_id"), r.FormValue("device_session_id"), r)
	s.answerPayment(w, o, err)
}

func (s *Shop) payAtStore(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := paymentContext(r)
	defer cancel()
	o, err := s.PayAtStore(ctx, r.PathValue("id"), r)
	s.answerPayment(w, o, err)
}

// paymentContext outlives the payer's request: a payer who closes the page
// must not cut a charge in half.
func paymentContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), time.Minute)
}

// answerPayment tells the payer's page what came of a payment.
func (s *Shop) answerPayment(w http.ResponseWriter, o Order, err error) {
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, o) // paid, or pending: the order says
	case errors.Is(err, ErrOrderNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrAlreadyPaid), errors.Is(err, ErrPaymentInProgress):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, openpay.ErrOutcomeUnknown):
		writeJSON(w, http.StatusAccepted, o) // "we are checking your payment": the recovery job settles it
	case openpay.ClassOf(err) == openpay.ClassDeclined:
		writeJSON(w, http.StatusPaymentRequired, o) // the last attempt says why; try another card
	default:
		s.log.Error("payment failed", "err", err)
		writeError(w, http.StatusBadGateway, "the payment could not be made; try again")
	}
}

func (s *Shop) refund(w http.ResponseWriter, r *http.Request) {
	var amount openpay.Amount
	if v := r.FormValue("amount"); v != "" {
		var err error
		if amount, err = openpay.NewAmount(v); err != nil {
			writeError(w, http.StatusBadRequest, "amount: "+err.Error())
			return
		}
	}
	o, err := s.Refund(r.Context(), r.PathValue("id"), amount)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, o)
	case errors.Is(err, ErrOrderNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrNotPaid), errors.Is(err, ErrRefundTooLarge), errors.Is(err, ErrCashRefund), errors.Is(err, ErrAlreadyRefunded):
		writeError(w, http.StatusConflict, err.Error())
	default:
		s.log.Error("refund failed", "order", r.PathValue("id"), "err", err)
		writeError(w, http.StatusBadGateway, "the refund could not be made: "+err.Error())
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
