package openpay_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// A platform charging for many merchants keeps one Client per merchant,
// built with that merchant's keys, and gives them all one *http.Client:
// one connection pool to the gateway. Here a reference server holds the
// two merchants; against the gateway, drop WithBaseURL.
func ExampleWithHTTPClient() {
	srv, err := openpaytest.Start(openpaytest.Deterministic())
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	if _, err := srv.AddMerchant("m2xkqjw3rfbdapjyg4hs", "sk_22222222222222222222222222222222", "pk_22222222222222222222222222222222"); err != nil {
		panic(err)
	}

	shared := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second},
	}
	keys := map[string]string{ // merchant id -> private key, from the platform's vault
		srv.MerchantID:         srv.PrivateKey,
		"m2xkqjw3rfbdapjyg4hs": "sk_22222222222222222222222222222222",
	}
	clients := make(map[string]*openpay.Client, len(keys))
	for id, key := range keys {
		c, err := openpay.New(id, key, openpay.WithHTTPClient(shared), openpay.WithBaseURL(srv.URL))
		if err != nil {
			panic(err)
		}
		clients[id] = c
	}

	ctx := context.Background()
	for _, id := range []string{srv.MerchantID, "m2xkqjw3rfbdapjyg4hs"} {
		cust, err := clients[id].Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
		if err != nil {
			panic(err)
		}
		page, err := clients[id].Customers.ListPage(ctx, nil)
		if err != nil {
			panic(err)
		}
		fmt.Println(cust.Name, len(page))
	}
	// Output:
	// Ana 1
	// Ana 1
}
