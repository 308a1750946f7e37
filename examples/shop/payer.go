package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// The sandbox's test cards the demo pays with.
const (
	cardVisa     = openpaytest.CardVisa
	cardDeclined = openpaytest.EmulatorCardDeclined
)

// payer plays the payer's browser in the demo: it turns cards into tokens
// with the public key (card data never reaches the shop) and calls the
// shop's API.
type payer struct {
	url    string
	public *openpay.Client
}

func (p payer) newOrder(ctx context.Context, total string) (Order, error) {
	return p.post(ctx, "/orders", url.Values{"description": {"Talavera mug"}, "total": {total},
		"name": {"Ana López"}, "email": {"ana.lopez@example.com"}})
}

func (p payer) payByCard(ctx context.Context, orderID, number string) (Order, error) {
	tok, err := p.public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Ana López", CardNumber: number,
		CVV2: openpaytest.CVV(number), ExpirationMonth: "12", ExpirationYear: fmt.Sprint(time.Now().Year()%100 + 3)})
	if err != nil {
		return Order{}, fmt.Errorf("tokenizing the card: %w", err)
	}
	return p.post(ctx, "/orders/"+orderID+"/card", url.Values{"token_id": {tok.ID},
		"device_session_id": {"kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"}})
}

func (p payer) refund(ctx context.Context, orderID, amount string) (Order, error) {
	return p.post(ctx, "/orders/"+orderID+"/refund", url.Values{"amount": {amount}})
}

func (p payer) post(ctx context.Context, path string, form url.Values) (Order, error) {
	return p.do(ctx, http.MethodPost, path, form)
}

// do calls the shop's API. A payment the shop answers (paid, pending,
// declined: 402) gives the order; other answers are errors.
func (p payer) do(ctx context.Context, method, path string, form url.Values) (Order, error) {
	req, err := http.NewRequestWithContext(ctx, method, p.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		return Order{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Order{}, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusCreated, http.StatusAccepted, http.StatusPaymentRequired:
		var o Order
		return o, json.NewDecoder(resp.Body).Decode(&o)
	}
	var e struct{ Error string }
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return Order{}, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, e.Error)
}
