// Command web-checkout is a small web shop that takes card payments in the
// browser; the shop is package webshop, which says how it works.
//
// Run it and open the URL it prints:
//
//	go run ./examples/web-checkout [-addr 127.0.0.1:8000]
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"

	"github.com/openpay-go/openpay/examples/web-checkout/webshop"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "address the shop listens on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := webshop.Run(ctx, os.Stdout, *addr); err != nil {
		log.Fatal(err)
	}
}
