package openpaytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// A store charge, paid by the simulated payer, over plain HTTP.
func Example() {
	srv, err := openpaytest.Start(openpaytest.Deterministic())
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	body, _ := json.Marshal(map[string]any{"method": "store", "amount": 150, "description": "Order 42", "order_id": "42"})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/"+srv.MerchantID+"/charges", bytes.NewReader(body))
	req.SetBasicAuth(srv.PrivateKey, "")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	var charge struct {
		ID            string `json:"id"`
		Status        string `json:"status"`
		PaymentMethod struct {
			Type string `json:"type"`
		} `json:"payment_method"`
	}
	if err := json.NewDecoder(res.Body).Decode(&charge); err != nil {
		panic(err)
	}
	fmt.Println(res.StatusCode, charge.Status, charge.PaymentMethod.Type)

	paid, err := srv.PayCharge(charge.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(paid.Status, srv.Balance())
	// Output:
	// 200 in_progress store
	// completed 150.00
}

// A Colombian merchant: a PSE payment through the SDK, completed as the
// payer's bank would.
func ExampleWithCountry() {
	srv, err := openpaytest.Start(openpaytest.WithCountry(openpay.CountryColombia))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(srv.Country), openpay.WithBaseURL(srv.URL),
		openpay.WithDefaultClientIP("203.0.113.7"))
	if err != nil {
		panic(err)
	}
	ch, err := c.Charges.Create(context.Background(), openpay.PSECharge{
		Amount: openpay.MustAmount("119000"), IVA: "19000", Description: "Order 3001",
		RedirectURL: "https://shop.example.co/return",
		Customer: &openpay.ChargeCustomer{Name: "Camila", Email: "camila@example.co",
			CustomerAddress: &openpay.CustomerAddress{Department: "Antioquia", City: "Medellín", Additional: "Carrera 43A # 10-52"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(ch.Status, ch.Currency, ch.PaymentMethod.Type)

	paid, err := srv.PayCharge(ch.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(paid.Status, srv.Balance())
	// Output:
	// charge_pending COP redirect
	// completed 119000.00
}
