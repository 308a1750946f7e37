// Command payment-link shows checkouts, the gateway's payment links; the
// shop is package paylink, which says how it works.
//
//	go run ./examples/payment-link
package main

import (
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/examples/payment-link/paylink"
)

func main() { exampleenv.Main(paylink.Run) }
