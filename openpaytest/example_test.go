package openpaytest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

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
